import ArgumentParser
import FoldKit

@main
struct FoldKitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "foldkit", abstract: "Fold batch norm into Darknet and Keras weights, write blobs, and prove the result.")
}
