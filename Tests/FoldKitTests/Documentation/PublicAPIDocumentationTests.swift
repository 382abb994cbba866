import FoldKitTestSupport
import Foundation
import XCTest

/// The public API is exactly what Docs/Library.md "Public API" lists: for every library module, the
/// top-level types declared `public` in Sources/<module> and the types named in backticks at the start of
/// that module's list items (before the colon) are the same set.
final class PublicAPIDocumentationTests: XCTestCase {
    private let modules = [
        "FoldKitBlobFormat", "FoldKitCore", "FoldKitDarknet", "FoldKitKeras", "FoldKit", "FoldKitLoader", "FoldKitDetection", "FoldKitONNX",
        "FoldKitNCNN", "FoldKitTFLite", "FoldKitRuntime", "FoldKitIO", "FoldKitVerify", "FoldKitBlobNetwork", "FoldKitImage",
    ]

    func testLibraryPageListsEveryPublicTypeAndNoOther() throws {
        let documented = try documentedTypes()
        XCTAssertEqual(Set(documented.keys), Set(modules), "Library.md's Public API has a heading per library module")
        for module in modules {
            let declared = try publicTypes(in: module)
            let listed = documented[module] ?? []
            XCTAssertFalse(declared.isEmpty, "\(module) declares public types")
            for name in declared.subtracting(listed).sorted() {
                XCTFail("\(module): public type \(name) is not in Docs/Library.md \"Public API\" (document it, or make it package/internal)")
            }
            for name in listed.subtracting(declared).sorted() {
                XCTFail("\(module): Docs/Library.md \"Public API\" lists \(name), which Sources/\(module) does not declare public")
            }
        }
    }

    /// The parser reads the backticked names before the colon of a list item (continuation lines joined first).
    func testListItemsAreReadUpToTheColon() {
        XCTAssertEqual(Self.names(inItem: "- `Network`, `LayerIdentity`: the layers, see `Layer`."), ["Network", "LayerIdentity"])
        XCTAssertEqual(Self.names(inItem: "  continued text with `Other`"), [])
    }

    /// Top-level `public` type declarations (struct, enum, class, protocol, typealias, actor) of a module.
    private func publicTypes(in module: String) throws -> Set<String> {
        let folder = TestData.repositoryRoot.appendingPathComponent("Sources/\(module)")
        let pattern = try NSRegularExpression(
            pattern: #"^public (?:final )?(?:struct|enum|class|protocol|typealias|actor) ([A-Za-z0-9_]+)"#,
            options: .anchorsMatchLines)
        var names = Set<String>()
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                if let range = Range(match.range(at: 1), in: text) { names.insert(String(text[range])) }
            }
        }
        return names
    }

    /// Module name -> the type names its "### Module" list under "## Public API" names.
    private func documentedTypes() throws -> [String: Set<String>] {
        let page = try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Docs/Library.md"), encoding: .utf8)
        var result: [String: Set<String>] = [:]
        var inSection = false
        var module: String?
        var item = ""  // the current list item, its continuation lines joined
        func finishItem() {
            if let module { result[module, default: []].formUnion(Self.names(inItem: item)) }
            item = ""
        }
        for line in page.components(separatedBy: "\n") {
            if line.hasPrefix("  "), !item.isEmpty {
                item += " " + line.trimmingCharacters(in: .whitespaces)
                continue
            }
            finishItem()
            if line.hasPrefix("## ") {
                inSection = line == "## Public API"
                module = nil
            } else if inSection, line.hasPrefix("### ") {
                module = String(line.dropFirst(4)).trimmingCharacters(in: .whitespaces)
                result[module ?? "", default: []] = []
            } else if inSection, module != nil, line.hasPrefix("- ") {
                item = line
            }
        }
        finishItem()
        return result
    }

    /// The backticked names before the first ": " of a list item ("- `A`, `B`: ..."); none for other lines.
    static func names(inItem line: String) -> [String] {
        guard line.hasPrefix("- "), let colon = line.range(of: ": ") else { return [] }
        return line[..<colon.lowerBound].components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }
}
