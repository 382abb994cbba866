import ArgumentParser
import FoldKit
import Foundation

/// `foldkit`: the root command. Exit codes: 0 success / pass, 1 error (bad input, usage),
/// 2 checked and over tolerance (verify, fixtures --check).
struct FoldKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foldkit",
        abstract: "Fold batch norm into Darknet and Keras weights, write blobs for on-device engines, and prove the result.",
        discussion: HelpExamples.root,
        version: FoldKitVersion.string,
        subcommands: [
            ConvertCommand.self, ExportCommand.self, VerifyCommand.self, FixturesCommand.self, InspectCommand.self, SeedWeightsCommand.self,
            BenchCommand.self,
            CLIReferenceCommand.self, ReadCheckCommand.self,
        ])
}
