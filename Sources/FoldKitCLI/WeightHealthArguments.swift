import ArgumentParser
import FoldKit
import FoldKitBlobFormat
import FoldKitCore
import Foundation

/// `--allow-nonfinite` and how each command treats NaN, infinity and variances no epsilon rescues
/// (`WeightHealthCheck`): `convert` and `fixtures` refuse them unless the flag is given, `inspect` and
/// `verify` list them and go on.
struct WeightHealthArguments: ParsableArguments {
    @Flag(
        name: .customLong("allow-nonfinite"),
        help: "Write the output even when weights hold NaN or infinity or a batch-norm variance no epsilon rescues (each is listed on stderr).")
    var allowNonfinite = false

    /// Throws the first finding as an error unless `--allow-nonfinite`; with it, lists them on stderr.
    /// `skipping` leaves out tensors of those roles (see `WeightHealthCheck.scan`).
    func refuseUnhealthy(_ network: Network, skipping: Set<TensorRole> = []) throws {
        let findings = try WeightHealthCheck.scan(network, skipping: skipping)
        guard let first = findings.first else { return }
        guard allowNonfinite else { throw WeightHealthCheck.refusal(first, total: findings.count) }
        let lines = ["warning: writing \(findings.count) bad weight value(s) (--allow-nonfinite):"] + findings.map { "  " + $0.text }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }

    /// The findings of `WeightHealthCheck.scan` as report lines for `inspect` and `verify` (one "none"
    /// line when healthy).
    static func report(_ findings: [WeightHealthCheck.Finding]) -> [String] {
        guard !findings.isEmpty else { return ["weight values: all finite, every batch-norm denominator positive"] }
        return ["weight values: \(findings.count) bad value(s) (convert and fixtures refuse them without --allow-nonfinite):"]
            + findings.map { "  " + $0.text }
    }
}
