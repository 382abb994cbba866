import FoldKitCore
import Foundation

/// A parsed JSON value (Keras `model_config`, `config.json`), with the small accessors the Keras
/// reader needs. Python's `json.dumps` may write the non-standard tokens NaN / Infinity; they are
/// read as numbers.
indirect enum KerasJSON: Decodable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([KerasJSON])
    case object([String: KerasJSON])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let b = try? container.decode(Bool.self) {
            self = .bool(b)
        } else if let n = try? container.decode(Double.self) {
            self = .number(n)
        } else if let s = try? container.decode(String.self) {
            switch s {
            case "__foldkit_nan__": self = .number(.nan)
            case "__foldkit_inf__": self = .number(.infinity)
            case "__foldkit_-inf__": self = .number(-.infinity)
            default: self = .string(s)
            }
        } else if let a = try? container.decode([KerasJSON].self) {
            self = .array(a)
        } else {
            self = .object(try container.decode([String: KerasJSON].self))
        }
    }

    /// Parses JSON text; `file` names the source in errors.
    static func parse(_ text: String, file: String) throws -> KerasJSON {
        do {
            return try JSONDecoder().decode(KerasJSON.self, from: Data(text.utf8))
        } catch {
            // Python writes NaN, Infinity, -Infinity as bare tokens: quote them and retry.
            let patched = replacingBareTokens(text)
            if patched != text, let value = try? JSONDecoder().decode(KerasJSON.self, from: Data(patched.utf8)) {
                return value
            }
            throw FoldKitError(.badInput, "model description is not valid JSON: \(error)", file: file)
        }
    }

    /// Replaces NaN / Infinity / -Infinity outside strings by marker strings.
    private static func replacingBareTokens(_ text: String) -> String {
        var out = ""
        var inString = false
        var escaped = false
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { inString = false }
                i = text.index(after: i)
                continue
            }
            if c == "\"" { inString = true; out.append(c); i = text.index(after: i); continue }
            let rest = text[i...]
            if rest.hasPrefix("-Infinity") { out += "\"__foldkit_-inf__\""; i = text.index(i, offsetBy: 9); continue }
            if rest.hasPrefix("Infinity") { out += "\"__foldkit_inf__\""; i = text.index(i, offsetBy: 8); continue }
            if rest.hasPrefix("NaN") { out += "\"__foldkit_nan__\""; i = text.index(i, offsetBy: 3); continue }
            out.append(c)
            i = text.index(after: i)
        }
        return out
    }

    subscript(key: String) -> KerasJSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    var string: String? { if case .string(let s) = self { return s }; return nil }
    var array: [KerasJSON]? { if case .array(let a) = self { return a }; return nil }
    var object: [String: KerasJSON]? { if case .object(let o) = self { return o }; return nil }
    var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    var isNull: Bool { self == .null }
    var double: Double? { if case .number(let n) = self { return n }; return nil }

    /// An integral number (Keras writes 3 or 3.0).
    var int: Int? {
        guard case .number(let n) = self, n.isFinite, n == n.rounded(), abs(n) < 1e15 else { return nil }
        return Int(n)
    }

    /// Every string anywhere inside this value, depth first.
    var allStrings: [String] {
        switch self {
        case .string(let s): return [s]
        case .array(let a): return a.flatMap { $0.allStrings }
        case .object(let o): return o.keys.sorted().flatMap { o[$0]?.allStrings ?? [] }
        default: return []
        }
    }
}
