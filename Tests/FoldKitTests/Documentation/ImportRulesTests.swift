import FoldKitTestSupport
import Foundation
import XCTest

/// Docs/Architecture.md's import rules are the sources' imports: for every Swift target under Sources/, the
/// table after `<!-- import-rules -->` lists exactly the modules its files import (`import X`,
/// `@_exported import X`, also inside `#if` blocks), so a new import, a dropped one or a new target fails
/// here until the page says it.
final class ImportRulesTests: XCTestCase {
    func testArchitecturePageListsEveryTargetsImports() throws {
        let documented = try documentedRules()
        let actual = try sourceImports()
        XCTAssertEqual(Set(documented.keys), Set(actual.keys), "Docs/Architecture.md's import rules name every Swift target, and no other")
        for (target, modules) in actual.sorted(by: { $0.key < $1.key }) {
            guard let allowed = documented[target] else { continue }
            for module in modules.subtracting(allowed).sorted() {
                XCTFail("Sources/\(target) imports \(module), which Docs/Architecture.md's import rules do not list for it")
            }
            for module in allowed.subtracting(modules).sorted() {
                XCTFail("Docs/Architecture.md lists \(module) for \(target), which no file of Sources/\(target) imports")
            }
        }
    }

    func testCoreImportsNothingOfFoldKit() throws {
        let core = try sourceImports()["FoldKitCore"] ?? []
        XCTAssertFalse(core.isEmpty)
        XCTAssertEqual(core.filter { $0.hasPrefix("FoldKit") }, [], "FoldKitCore imports no module of FoldKit's")
    }

    func testTheParserReadsImportLines() {
        XCTAssertEqual(Self.importedModule("import Foundation"), "Foundation")
        XCTAssertEqual(Self.importedModule("    import Glibc"), "Glibc")
        XCTAssertEqual(Self.importedModule("@_exported import FoldKitCore"), "FoldKitCore")
        XCTAssertNil(Self.importedModule("// import Nothing"))
        XCTAssertNil(Self.importedModule("let imported = 1"))
    }

    /// The module an `import` line names, or nil for any other line.
    static func importedModule(_ line: String) -> String? {
        var text = line.trimmingCharacters(in: .whitespaces)
        for prefix in ["@_exported ", "@testable "] where text.hasPrefix(prefix) { text.removeFirst(prefix.count) }
        guard text.hasPrefix("import ") else { return nil }
        return text.dropFirst("import ".count).split(separator: " ").first.map(String.init)
    }

    private func sourceImports() throws -> [String: Set<String>] {
        let sources = TestData.repositoryRoot.appendingPathComponent("Sources")
        var imports: [String: Set<String>] = [:]
        for target in try FileManager.default.contentsOfDirectory(atPath: sources.path) {
            let folder = sources.appendingPathComponent(target)
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            let swift = files.filter { $0.pathExtension == "swift" }
            guard !swift.isEmpty else { continue }  // C targets and module maps
            var modules = Set<String>()
            for file in swift {
                for line in try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n") {
                    if let module = Self.importedModule(line) { modules.insert(module) }
                }
            }
            imports[target] = modules
        }
        return imports
    }

    /// The rows of the table after `<!-- import-rules -->`: `` | `Target` | A, B, C | ``.
    private func documentedRules() throws -> [String: Set<String>] {
        let page = try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Docs/Architecture.md"), encoding: .utf8)
        guard let marker = page.range(of: "<!-- import-rules -->") else {
            XCTFail("Docs/Architecture.md has no <!-- import-rules --> table")
            return [:]
        }
        var rules: [String: Set<String>] = [:]
        for line in page[marker.upperBound...].components(separatedBy: "\n").dropFirst() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { if !rules.isEmpty { break } else { continue } }
            let cells = trimmed.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[1].hasPrefix("`") else { continue }
            let target = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let modules = cells[2] == "-" ? [] : cells[2].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            rules[target] = Set(modules)
        }
        return rules
    }
}
