/// What a check concluded, as the JSON report writes it (`"verdict": "pass"` or `"fail"`).
public enum Verdict: String, Codable, Sendable {
    /// Every layer within its allowance, the boxes agree (or do not count) and no blob problem.
    case pass
    /// At least one of those is not so; the report says which.
    case fail

    /// "PASS" or "FAIL", as the text report's last line and the audit page start.
    public var label: String { rawValue.uppercased() }
}
