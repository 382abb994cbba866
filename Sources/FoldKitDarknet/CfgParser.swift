import FoldKitCore
import Foundation

/// One `key=value` line of a Darknet .cfg section.
public struct CfgOption: Sendable, Hashable {
    public var key: String
    public var value: String
    /// 1-based line number in the .cfg file.
    public var line: Int

    public init(key: String, value: String, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}

/// One `[section]` of a Darknet .cfg file with its options in file order.
public struct CfgSection: Sendable {
    /// The name between the brackets, e.g. `convolutional`.
    public var name: String
    /// 1-based line number of the `[name]` header.
    public var line: Int
    /// Every option line of the section in file order, repeated keys included.
    public var options: [CfgOption]
    /// The .cfg file the section was read from (for error messages).
    public var file: String

    public init(name: String, line: Int, options: [CfgOption], file: String) {
        self.name = name
        self.line = line
        self.options = options
        self.file = file
    }

    /// `[convolutional]`, as errors print it.
    public var header: String { "[\(name)]" }

    /// The option Darknet uses for `key`: the FIRST occurrence. Darknet's `option_insert` appends
    /// to a list and `option_find` returns the first match, so a repeated key's later lines are ignored.
    public func option(_ key: String) -> CfgOption? {
        options.first { $0.key == key }
    }

    /// True when the section sets `key` at all.
    public func has(_ key: String) -> Bool { option(key) != nil }

    /// The raw string value of `key`, or `defaultValue`.
    public func string(_ key: String, default defaultValue: String) -> String {
        option(key)?.value ?? defaultValue
    }

    /// An integer option. Darknet uses `atoi`; FoldKit is strict and refuses text that is not an
    /// integer, naming the line, instead of silently reading 0.
    public func int(_ key: String, default defaultValue: Int) throws -> Int {
        guard let option = option(key) else { return defaultValue }
        guard let value = Int(option.value) else {
            throw badValue(option, expected: "an integer")
        }
        return value
    }

    /// A floating-point option (Darknet `atof`), strict like `int(_:default:)`.
    public func float(_ key: String, default defaultValue: Float) throws -> Float {
        guard let option = option(key) else { return defaultValue }
        guard let value = Float(option.value) else {
            throw badValue(option, expected: "a number")
        }
        return value
    }

    /// A comma-separated list of integers (`layers=-1,61`, `mask=0,1,2`), or nil when absent.
    public func intList(_ key: String) throws -> [Int]? {
        guard let option = option(key) else { return nil }
        var result: [Int] = []
        for item in option.value.split(separator: ",", omittingEmptySubsequences: false) {
            guard let value = Int(item) else { throw badValue(option, expected: "a comma-separated list of integers") }
            result.append(value)
        }
        return result
    }

    /// A comma-separated list of numbers (`anchors=...`), or nil when absent. A trailing comma is allowed.
    public func floatList(_ key: String) throws -> [Float]? {
        guard let option = option(key) else { return nil }
        var result: [Float] = []
        let items = option.value.split(separator: ",", omittingEmptySubsequences: false)
        for (i, item) in items.enumerated() {
            if item.isEmpty && i == items.count - 1 && i > 0 { break }
            guard let value = Float(item) else { throw badValue(option, expected: "a comma-separated list of numbers") }
            result.append(value)
        }
        return result
    }

    /// A `FoldKitError` located at this section's header line.
    public func error(_ kind: FoldKitError.Kind, _ message: String, layer: String? = nil, expected: String? = nil, found: String? = nil) -> FoldKitError {
        FoldKitError(kind, message, file: file, line: line, layer: layer ?? header, expected: expected, found: found)
    }

    /// A `FoldKitError` located at the line of `option`.
    public func error(at option: CfgOption, _ kind: FoldKitError.Kind, _ message: String, expected: String? = nil, found: String? = nil) -> FoldKitError {
        FoldKitError(kind, message, file: file, line: option.line, layer: header, expected: expected, found: found)
    }

    private func badValue(_ option: CfgOption, expected: String) -> FoldKitError {
        error(at: option, .badInput, "bad value for '\(option.key)'", expected: expected, found: "'\(option.value)'")
    }
}

/// A parsed Darknet .cfg file: the sections in order, the first one being `[net]`.
public struct CfgFile: Sendable {
    public var path: String
    public var sections: [CfgSection]

    public init(path: String, sections: [CfgSection]) {
        self.path = path
        self.sections = sections
    }
}

/// Reads Darknet .cfg text with the same rules as darknet's `read_cfg` / `read_option`:
///
/// - All whitespace is removed from every line, anywhere in it (darknet's `strip`), so
///   `saturation = 1.5` is `saturation=1.5` and `anchors = 10,14,  23,27` is `10,14,23,27`.
/// - Empty lines and lines starting with `#` or `;` are comments.
/// - A line starting with `[` opens a section; the name is the text up to `]`.
/// - Any other line is `key=value`, split at the first `=`. Text from a `#` on is an inline comment
///   (darknet's `atoi` stops there too, e.g. `groups=112 #96` is 112).
/// - Repeated keys are kept in order; lookups use the first occurrence as darknet does.
///
/// Unlike darknet, which prints a warning and carries on, malformed lines (no `=`, empty key or
/// value, an option before the first section, an unterminated `[`) are errors naming the line.
public enum CfgParser {
    public static func parse(path: String) throws -> CfgFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FoldKitError(.io, "cannot read the .cfg file", file: path)
        }
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw FoldKitError(.badInput, "the .cfg file is not text", file: path)
        }
        return try parse(text: text, path: path)
    }

    public static func parse(text: String, path: String) throws -> CfgFile {
        var sections: [CfgSection] = []
        var lineNumber = 0
        // Split on the scalar \n only (a Swift Character "\r\n" is one grapheme); \r is then
        // whitespace and removed, so CRLF files keep their line numbers.
        for rawLine in text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            var scalars = String.UnicodeScalarView()
            scalars.append(contentsOf: rawLine.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
            let line = String(scalars)
            guard let first = line.first else { continue }
            if first == "#" || first == ";" { continue }
            if first == "[" {
                guard let close = line.firstIndex(of: "]") else {
                    throw FoldKitError(.badInput, "section header without ']'", file: path, line: lineNumber, found: "'\(line)'")
                }
                let name = String(line[line.index(after: line.startIndex)..<close])
                let rest = line[line.index(after: close)...]
                guard !name.isEmpty, rest.isEmpty || rest.first == "#" || rest.first == ";" else {
                    throw FoldKitError(.badInput, "malformed section header", file: path, line: lineNumber, expected: "[name]", found: "'\(line)'")
                }
                sections.append(CfgSection(name: name, line: lineNumber, options: [], file: path))
                continue
            }
            var content = Substring(line)
            if let hash = content.firstIndex(of: "#") { content = content[..<hash] }
            guard let equals = content.firstIndex(of: "=") else {
                throw FoldKitError(.badInput, "line is neither a section header, a comment nor key=value", file: path, line: lineNumber, found: "'\(line)'")
            }
            let key = String(content[..<equals])
            let value = String(content[content.index(after: equals)...])
            guard !key.isEmpty, !value.isEmpty else {
                throw FoldKitError(.badInput, "option without a key or value", file: path, line: lineNumber, expected: "key=value", found: "'\(line)'")
            }
            guard !sections.isEmpty else {
                throw FoldKitError(.badInput, "option before the first [section]", file: path, line: lineNumber, found: "'\(line)'")
            }
            sections[sections.count - 1].options.append(CfgOption(key: key, value: value, line: lineNumber))
        }
        return CfgFile(path: path, sections: sections)
    }
}
