import ArgumentParser
import FoldKit
import FoldKitDarknet
import Foundation

/// `foldkit seed-weights`: a deterministic synthetic .weights file for a Darknet cfg.
struct SeedWeightsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-weights",
        abstract: "Write a complete Darknet .weights file for a cfg with seeded values (for tests and benchmarks).",
        discussion: HelpExamples.seedWeights)

    @Argument(help: "The Darknet .cfg file.")
    var cfg: String

    @Option(help: "Seed of the SplitMix64 generator.")
    var seed: UInt64 = 1

    @Option(
        help:
            "Value distributions: uniform (default), he (He-normal weights, batch-norm statistics drawn independently of the activations), wide (uniform weights, variances 1e-8 to 10). See Docs/CLI.md."
    )
    var generator: DarknetWeightGenerator = .uniform

    @Option(help: "Output .weights file.")
    var out: String

    func run() throws {
        try DarknetSeededWeights.write(cfgPath: cfg, seed: seed, generator: generator, to: out)
        let size = (try? FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? 0
        print("wrote \(out) (\(size) bytes, seed \(seed), generator \(generator.rawValue))")
    }
}

extension DarknetWeightGenerator: ExpressibleByArgument {}
