import FoldKitCore
import Foundation

/// Reads the class-hierarchy file a [region] section names with `tree=` (YOLO9000's 9k.tree), as
/// darknet's `read_tree` (src/tree.c) does, and stricter: one class a line, `name parent`, the parent a
/// class number counted from 0 on an earlier line, or -1 for a root (CRLF line ends are accepted).
///
/// Refused, naming the file, line and byte offset: a NUL byte (a damaged copy: darknet's line reader
/// would cut the line there and merge classes), a blank line (darknet would read it as a root class with
/// no name), a line that is not `name parent`, a parent that is not an earlier class (darknet writes
/// `child[parent]` into an array only as long as the lines read so far), and a file holding another
/// number of classes than the section's `classes` (darknet indexes the tree with every class).
enum ClassTreeFile {
    /// The largest tree file read (9k.tree is 150 KB).
    static let maximumBytes = 64 << 20

    /// Where darknet's relative path is looked for: as given when absolute; otherwise in the cfg's folder,
    /// then the file name alone beside the cfg (darknet's cfgs say `data/9k.tree`, relative to darknet's
    /// own folder), then relative to the working directory (as darknet opens it).
    static func candidates(for value: String, cfgPath: String) -> [String] {
        if value.hasPrefix("/") { return [value] }
        let folder = URL(fileURLWithPath: cfgPath).deletingLastPathComponent()
        let paths = [
            folder.appendingPathComponent(value).path, folder.appendingPathComponent(URL(fileURLWithPath: value).lastPathComponent).path,
            URL(fileURLWithPath: value).path,
        ]
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// The first candidate that exists, or nil.
    private static func resolve(_ value: String, cfgPath: String) -> String? {
        candidates(for: value, cfgPath: cfgPath).first { FileManager.default.fileExists(atPath: $0) }
    }

    /// The tree named by `option` of `context`'s section, checked to hold exactly `classes` classes, and
    /// the file it was read from.
    static func read(_ option: CfgOption, classes: Int, context: SectionContext) throws -> (tree: ClassTree, path: String) {
        guard let path = resolve(option.value, cfgPath: context.section.file) else {
            throw context.error(
                .badInput, "the class tree file \(option.value) was not found", at: option,
                expected: "one of " + candidates(for: option.value, cfgPath: context.section.file).joined(separator: ", "), found: "none")
        }
        let tree = try read(path: path, layer: context.label)
        guard tree.count == classes else {
            throw FoldKitError(
                .badInput, "the class tree holds another number of classes than the section's classes=", file: path, layer: context.label,
                expected: "\(classes) classes (one a line)", found: "\(tree.count)")
        }
        return (tree, path)
    }

    /// Parses the tree file at `path` (errors name `layer`).
    static func read(path: String, layer: String) throws -> ClassTree {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        let size = (attributes?[.size] as? Int) ?? 0
        guard size <= maximumBytes else {
            throw FoldKitError(
                .badInput, "the class tree file is too large", file: path, layer: layer, expected: "at most \(maximumBytes) bytes",
                found: "\(size) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FoldKitError(.io, "cannot read the class tree file", file: path, layer: layer)
        }
        let bytes = [UInt8](data)
        if let nul = bytes.firstIndex(of: 0) {
            let line = bytes[..<nul].filter { $0 == 0x0A }.count + 1
            throw FoldKitError(
                .badInput, "the class tree file holds a NUL byte: the copy is damaged", file: path, line: line, layer: layer, byteOffset: nul,
                expected: "text lines 'name parent'", found: "byte 0x00")
        }
        var parents: [Int] = []
        var start = 0
        var lineNumber = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let text = String(decoding: bytes[start..<lineEnd], as: UTF8.self)
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let index = parents.count
            let fail = { (message: String, expected: String) in
                FoldKitError(
                    .badInput, message, file: path, line: lineNumber, layer: layer, byteOffset: start, expected: expected, found: "'\(text)'")
            }
            guard fields.count == 2 else { throw fail("a class tree line must be 'name parent'", "'name parent'") }
            guard let parent = Int(fields[1]), parent >= -1, parent < index else {
                throw fail("the parent of class \(index) is not an earlier class", "-1 or a class number in 0..<\(index)")
            }
            parents.append(parent)
            start = end + 1
        }
        guard !parents.isEmpty else {
            throw FoldKitError(.badInput, "the class tree file is empty", file: path, layer: layer, expected: "one class a line", found: "no lines")
        }
        return ClassTree(parents: parents)
    }
}
