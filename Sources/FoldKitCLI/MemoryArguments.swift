import ArgumentParser
import FoldKit

/// `--max-memory`, shared by the commands that run forward passes (`verify`, `fixtures`): the budget
/// `MemoryPlan` checks a run against before anything is allocated. By default what the process may use
/// (`MemoryPlan.available`: physical memory, cgroup and ulimit limits).
struct MemoryArguments: ParsableArguments {
    @Option(
        name: .customLong("max-memory"),
        help:
            "Memory the passes may use, in bytes or with K, M, G (1024-based), e.g. 6G; a run that needs more is refused before it starts. Default: what this process may use (physical memory, cgroup and ulimit limits)."
    )
    var maxMemory: String?

    func validate() throws {
        if let maxMemory, Self.bytes(maxMemory) == nil {
            throw ValidationError("--max-memory must be a positive number of bytes, optionally with K, M or G (found '\(maxMemory)')")
        }
    }

    /// The budget in bytes.
    var limit: Int { maxMemory.flatMap(Self.bytes) ?? MemoryPlan.available }

    /// `123`, `64K`, `512M`, `6G` (1024-based) as bytes; nil when malformed or not positive.
    static func bytes(_ text: String) -> Int? {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = text.uppercased()
        var unit = 1
        if let last = digits.last, let scale = units[last] {
            unit = scale
            digits.removeLast()
        }
        guard let value = Int(digits), value > 0 else { return nil }
        let (bytes, overflow) = value.multipliedReportingOverflow(by: unit)
        return overflow ? nil : bytes
    }
}
