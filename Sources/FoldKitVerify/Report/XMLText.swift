/// Escaping for text and attribute values in the audit page, which is XHTML (well-formed XML): the five
/// characters XML reserves become entities (`&` -> `&amp;`, `<` -> `&lt;`, `>` -> `&gt;`, `"` -> `&quot;`,
/// `'` -> `&#39;`), and control characters XML 1.0 forbids (below U+0020 except tab, newline, return)
/// become U+FFFD.
enum XMLText {
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default: out.unicodeScalars.append(scalar.value < 0x20 ? "\u{FFFD}" : scalar)
            }
        }
        return out
    }

    /// A number as written in `data-value` attributes: Swift's shortest representation that reads back
    /// as the same Double (`1.2e-05`, `0.5`), "inf" / "-inf" / "nan" as in the JSON report.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value > 0 ? "inf" : "-inf" }
        return "\(value)"
    }

    /// A number for people: 3 significant digits, exponent form ("1.19e-05"), "0" for zero.
    static func short(_ value: Double) -> String {
        if value == 0 { return "0" }
        if !value.isFinite { return number(value) }
        return String(format: "%.2e", value)
    }
}
