import FoldKitCore
import Foundation

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
enum CfgParser {
    /// Largest .cfg read: 16 MiB (yolov4.cfg is 12 KB); checked before the file is read into memory.
    static let maximumBytes = 16 << 20

    static func parse(path: String) throws -> CfgFile {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        if let size, size > maximumBytes {
            throw FoldKitError(
                .badInput, "the .cfg file is larger than any network description", file: path,
                expected: "at most \(maximumBytes) bytes", found: "\(size) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FoldKitError(.io, "cannot read the .cfg file", file: path)
        }
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw FoldKitError(.badInput, "the .cfg file is not text", file: path)
        }
        return try parse(text: text, path: path)
    }

    static func parse(text: String, path: String) throws -> CfgFile {
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
                throw FoldKitError(
                    .badInput, "line is neither a section header, a comment nor key=value", file: path, line: lineNumber, found: "'\(line)'")
            }
            let key = String(content[..<equals])
            let value = String(content[content.index(after: equals)...])
            guard !key.isEmpty, !value.isEmpty else {
                throw FoldKitError(
                    .badInput, "option without a key or value", file: path, line: lineNumber, expected: "key=value", found: "'\(line)'")
            }
            guard !sections.isEmpty else {
                throw FoldKitError(.badInput, "option before the first [section]", file: path, line: lineNumber, found: "'\(line)'")
            }
            sections[sections.count - 1].options.append(CfgOption(key: key, value: value, line: lineNumber))
        }
        return CfgFile(path: path, sections: sections)
    }
}
