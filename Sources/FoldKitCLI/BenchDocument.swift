import FoldKit

/// `bench --json FILE`: the figures by name (`{"minimum", "median", "runs", ...}` each, as before) beside
/// the keys every FoldKit JSON document has (Docs/CLI.md "JSON documents"):
///
///     { "tool": "foldkit bench", "toolVersion": "1.0.0", "schemaVersion": 1, "filesRead": [],
///       "forward float32 (folded)": {...}, ... }
///
/// The figures stay top-level keys, so scripts reading `json[name]["minimum"]` (Docs/bench/compare.sh)
/// read old and new files alike. `filesRead` names the model files timed (hashed after the timings).
struct BenchDocument: Encodable {
    /// The figures by name.
    var figures: [String: Timing]
    /// The --cfg, --weights and --keras files.
    var filesRead: [FileDigest]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode("foldkit bench", forKey: Key(stringValue: "tool"))
        try container.encode(FoldKitVersion.string, forKey: Key(stringValue: "toolVersion"))
        try container.encode(1, forKey: Key(stringValue: "schemaVersion"))
        try container.encode(filesRead, forKey: Key(stringValue: "filesRead"))
        for (name, timing) in figures { try container.encode(timing, forKey: Key(stringValue: name)) }
    }
}
