import FoldKitTestSupport
import Foundation
import XCTest

/// Every cross-reference in the documentation leads somewhere: a Markdown link's file exists (with that
/// exact letter case) and its `#anchor` is a heading of the page it names, by GitHub's anchor rule; and a
/// citation of a heading by name in the project's own convention (`Docs/Security.md, "Output safety"`,
/// in comments, scripts and pages) names a heading that exists.
///
/// Checked: every tracked Markdown file (README.md, Docs/, Fixtures/*/README.md) except the tables the
/// bench scripts write verbatim (`Docs/bench/*last-run*.md`); for citations, every tracked `.swift`,
/// `.md`, `.sh`, `.py`, `.c` and `.h` file. http(s) and mailto links are not followed.
final class DocumentationLinksTests: XCTestCase {
    func testEveryMarkdownLinkLeadsToAFileAndHeading() throws {
        let pages = try DocumentationLinks.markdownFiles()
        XCTAssertTrue(pages.contains("README.md") && pages.contains("Docs/Architecture.md"), "expected README.md and Docs/*.md among \(pages)")
        var checker = DocumentationLinks(root: TestData.repositoryRoot)
        var links = 0
        for page in pages {
            let found = try checker.links(in: page)
            links += found.count
            for link in found {
                if let problem = try checker.problem(with: link, in: page) {
                    XCTFail("\(page):\(link.line): broken link [\(link.text)](\(link.target)): \(problem)")
                }
            }
        }
        XCTAssertGreaterThan(links, 20, "expected the links of README.md and Docs/, found \(links)")
    }

    func testEveryCitedHeadingExists() throws {
        var checker = DocumentationLinks(root: TestData.repositoryRoot)
        var citations = 0
        for path in try DocumentationLinks.citingFiles() {
            for citation in try checker.citations(in: path) {
                citations += 1
                if let problem = try checker.problem(with: citation, in: path) {
                    XCTFail("\(path):\(citation.line): broken citation \(citation.page), \"\(citation.heading)\": \(problem)")
                }
            }
        }
        XCTAssertGreaterThan(citations, 20, "expected the citations of Sources/, Tests/ and Docs/, found \(citations)")
    }

    // MARK: The checker itself

    func testAnchorFollowsGitHubsRule() {
        XCTAssertEqual(DocumentationLinks.anchor("Output safety"), "output-safety")
        XCTAssertEqual(DocumentationLinks.anchor("Audit page (`--report audit.html`)"), "audit-page---report-audithtml")
        XCTAssertEqual(DocumentationLinks.anchor("JSON (`--json FILE`, `--json -`)"), "json---json-file---json--")
        XCTAssertEqual(DocumentationLinks.anchor("Winograd F(4x4) in float32"), "winograd-f4x4-in-float32")
        XCTAssertEqual(DocumentationLinks.anchor("manifest.json"), "manifestjson")
        XCTAssertEqual(DocumentationLinks.anchor("Weight values (`--allow-nonfinite`)"), "weight-values---allow-nonfinite")
        XCTAssertEqual(DocumentationLinks.anchor("Why K = 8 and 16"), "why-k--8-and-16")
        XCTAssertEqual(DocumentationLinks.anchor("snake_case and **bold** [a link](x.md)"), "snake_case-and-bold-a-link")
        XCTAssertEqual(DocumentationLinks.anchor("Größe: Ümlaut"), "größe-ümlaut")
    }

    func testHeadingsOutsideCodeWithDuplicatesNumbered() {
        let page = """
            # Title
            ## Layouts
            ```sh
            # not a heading
            [not a link](missing.md)
            ```
            ## Layouts
            ### Layouts ###
            #no-space is no heading
            <a id="custom-anchor"></a>
            """
        XCTAssertEqual(DocumentationLinks.anchors(inMarkdown: page), ["title", "layouts", "layouts-1", "layouts-2", "custom-anchor"])
    }

    func testLinksSkipCodeAndSpanLines() {
        let page = """
            See [one](A.md#x) and ![an image](img/b.png "title"), `[code](no.md)` and
            [a link whose text
            wraps](C.md) then [nested `[b]`](<D E.md>) and [[batchnorm]] alone.
            ```
            [fenced](no.md)
            ```
            [last](https://example.com)
            """
        let links = DocumentationLinks.links(inMarkdown: page)
        XCTAssertEqual(links.map(\.target), ["A.md#x", "img/b.png", "C.md", "D E.md", "https://example.com"])
        XCTAssertEqual(links.map(\.line), [1, 1, 2, 3, 7])
        XCTAssertEqual(links.map(\.text)[2], "a link whose text wraps")
    }

    func testCitationsNeedAQuotedHeadingRightAfterThePage() {
        let text = """
            /// As in Docs/Security.md, "Output safety" and Verify.md "Audit page".
            let names = ["Docs/README.md", "Docs/readme.md"]  // no citation
            // Docs/Performance.md, third round (unquoted: not checked)
            """
        let found = DocumentationLinks.citations(inText: text)
        XCTAssertEqual(found.map(\.page), ["Docs/Security.md", "Verify.md"])
        XCTAssertEqual(found.map(\.heading), ["Output safety", "Audit page"])
        XCTAssertEqual(found.map(\.line), [1, 1])
    }

    func testCitationMatchesAHeadingWithOrWithoutItsParentheticalOrSubtitle() {
        let headings = ["Audit page (`--report audit.html`)", "Seventh round: Winograd blocks", "manifest.json"]
        for cited in ["Audit page", "audit page (`--report audit.html`)", "Seventh round", "manifest.json"] {
            XCTAssertTrue(DocumentationLinks.cites(cited, oneOf: headings), cited)
        }
        for cited in ["Audit", "Winograd blocks", "manifest"] {
            XCTAssertFalse(DocumentationLinks.cites(cited, oneOf: headings), cited)
        }
    }
}

/// Parses Markdown links, headings and heading citations, and checks them against the repository.
struct DocumentationLinks {
    struct Link: Equatable {
        var text: String
        var target: String
        var line: Int
    }

    struct Citation: Equatable {
        var page: String
        var heading: String
        var line: Int
    }

    let root: URL
    private var headingCache: [String: [String]] = [:]

    init(root: URL) {
        self.root = root
    }

    // MARK: Which files

    /// Generated verbatim by Docs/bench scripts (tables without links), not written by hand.
    static func isGenerated(_ path: String) -> Bool {
        path.hasPrefix("Docs/bench/") && path.contains("last-run")
    }

    static func markdownFiles() throws -> [String] {
        try RepositoryPaths.tracked().filter { $0.hasSuffix(".md") && !isGenerated($0) }.sorted()
    }

    static func citingFiles() throws -> [String] {
        let endings = [".swift", ".md", ".sh", ".py", ".c", ".h"]
        return try RepositoryPaths.tracked().filter { path in endings.contains(where: path.hasSuffix) && !isGenerated(path) }.sorted()
    }

    // MARK: Parsing

    /// The page's lines with fenced code blocks blanked (lines kept, so numbers stay right).
    static func linesOutsideCode(_ markdown: String) -> [String] {
        var lines: [String] = []
        var fence: (character: Character, length: Int)?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.drop(while: { $0 == " " })
            let indent = line.count - trimmed.count
            if indent <= 3, let first = trimmed.first, first == "`" || first == "~" {
                let run = trimmed.prefix(while: { $0 == first }).count
                if run >= 3 {
                    if let open = fence {
                        if open.character == first && run >= open.length && trimmed.dropFirst(run).allSatisfy(\.isWhitespace) {
                            fence = nil
                        }
                    } else {
                        fence = (first, run)
                    }
                    lines.append("")
                    continue
                }
            }
            lines.append(fence == nil ? line : "")
        }
        return lines
    }

    /// `text` with every inline code span (matching backtick runs) replaced by spaces of the same length.
    static func blankingCodeSpans(_ text: String) -> [Character] {
        var characters = Array(text)
        var i = 0
        while i < characters.count {
            guard characters[i] == "`" else { i += 1; continue }
            var run = 0
            while i + run < characters.count && characters[i + run] == "`" { run += 1 }
            var j = i + run
            var close: Int?
            while j < characters.count {
                if characters[j] == "`" {
                    var other = 0
                    while j + other < characters.count && characters[j + other] == "`" { other += 1 }
                    if other == run { close = j; break }
                    j += other
                } else {
                    j += 1
                }
            }
            guard let end = close else { i += run; continue }
            for k in i..<(end + run) where characters[k] != "\n" { characters[k] = " " }
            i = end + run
        }
        return characters
    }

    /// Inline links and images `[text](target "title")` outside code; the target without its title and
    /// angle brackets, the text with line breaks as spaces, the line where the link starts.
    static func links(inMarkdown markdown: String) -> [Link] {
        let original = Array(linesOutsideCode(markdown).joined(separator: "\n"))
        let masked = blankingCodeSpans(String(original))
        var lineStarts = [0]
        for (index, character) in masked.enumerated() where character == "\n" { lineStarts.append(index + 1) }
        func lineNumber(_ offset: Int) -> Int {
            var low = 0, high = lineStarts.count - 1
            while low < high {
                let mid = (low + high + 1) / 2
                if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
            }
            return low + 1
        }
        func endsParagraph(_ k: Int) -> Bool { masked[k] == "\n" && k + 1 < masked.count && masked[k + 1] == "\n" }

        var found: [Link] = []
        var i = 0
        while i < masked.count {
            guard masked[i] == "[", i == 0 || masked[i - 1] != "\\" else { i += 1; continue }
            // The closing bracket, nesting counted, within the paragraph.
            var depth = 0, j = i, closeBracket: Int?
            while j < masked.count {
                if endsParagraph(j) { break }
                if masked[j] == "\\" { j += 2; continue }
                if masked[j] == "[" { depth += 1 }
                if masked[j] == "]" {
                    depth -= 1
                    if depth == 0 { closeBracket = j; break }
                }
                j += 1
            }
            guard let textEnd = closeBracket, textEnd + 1 < masked.count, masked[textEnd + 1] == "(" else { i += 1; continue }
            // The closing parenthesis, nesting counted, on the same line.
            var parens = 0, k = textEnd + 1, closeParen: Int?
            while k < masked.count && masked[k] != "\n" {
                if masked[k] == "(" { parens += 1 }
                if masked[k] == ")" {
                    parens -= 1
                    if parens == 0 { closeParen = k; break }
                }
                k += 1
            }
            guard let destinationEnd = closeParen else { i += 1; continue }
            var destination = String(original[(textEnd + 2)..<destinationEnd]).trimmingCharacters(in: .whitespaces)
            if destination.hasPrefix("<"), let close = destination.firstIndex(of: ">") {
                destination = String(destination[destination.index(after: destination.startIndex)..<close])
            } else if let space = destination.firstIndex(where: \.isWhitespace) {
                destination = String(destination[..<space])
            }
            let text = String(original[(i + 1)..<textEnd]).replacingOccurrences(of: "\n", with: " ")
            found.append(Link(text: text, target: destination, line: lineNumber(i)))
            i = destinationEnd + 1
        }
        return found
    }

    /// The text of every ATX heading (`#` to `######`) outside code, in order, as written.
    static func headings(inMarkdown markdown: String) -> [String] {
        var headings: [String] = []
        for line in linesOutsideCode(markdown) {
            let trimmed = line.drop(while: { $0 == " " })
            guard line.count - trimmed.count <= 3, trimmed.first == "#" else { continue }
            let level = trimmed.prefix(while: { $0 == "#" }).count
            let rest = trimmed.dropFirst(level)
            guard level <= 6, rest.isEmpty || rest.first == " " || rest.first == "\t" else { continue }
            var text = rest.trimmingCharacters(in: .whitespaces)
            // An optional closing sequence of #s, after a space.
            if let lastNonHash = text.lastIndex(where: { $0 != "#" }), text.last == "#", text[lastNonHash] == " " {
                text = String(text[...lastNonHash]).trimmingCharacters(in: .whitespaces)
            } else if text.allSatisfy({ $0 == "#" }) {
                text = ""
            }
            headings.append(text)
        }
        return headings
    }

    /// Every anchor a page offers: its headings' anchors, numbered `-1`, `-2`, ... when repeated, and
    /// the `id` or `name` of any HTML `<a>` element.
    static func anchors(inMarkdown markdown: String) -> [String] {
        var counts: [String: Int] = [:]
        var anchors: [String] = []
        for heading in headings(inMarkdown: markdown) {
            let base = anchor(heading)
            let seen = counts[base, default: 0]
            anchors.append(seen == 0 ? base : "\(base)-\(seen)")
            counts[base] = seen + 1
        }
        let html = try! NSRegularExpression(pattern: #"<a\s[^>]*\b(?:id|name)\s*=\s*"([^"]+)""#)
        let text = linesOutsideCode(markdown).joined(separator: "\n")
        for match in html.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            if let range = Range(match.range(at: 1), in: text) { anchors.append(String(text[range])) }
        }
        return anchors
    }

    /// A heading's text as GitHub renders it: code spans without their backticks, links and images as
    /// their text, emphasis markers and HTML tags gone, backslash escapes resolved.
    static func renderedText(_ heading: String) -> String {
        var text = heading
        let rules: [(String, String)] = [
            (#"!?\[([^\]]*)\]\([^)]*\)"#, "$1"),  // links and images: their text
            (#"<[^>]+>"#, ""),  // HTML tags
            (#"\\(.)"#, "$1"),  // backslash escapes
        ]
        for (pattern, template) in rules {
            text = text.replacingOccurrences(of: pattern, with: template, options: .regularExpression)
        }
        text = text.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: "*", with: "")
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// GitHub's anchor for a heading: the rendered text lowercased, every character removed that is not a
    /// letter, mark, decimal digit, connector punctuation (`_`), hyphen or space, then spaces as hyphens.
    static func anchor(_ heading: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in renderedText(heading).lowercased().unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation:
                result.append(scalar)
            default:
                if scalar == "-" { result.append(scalar) } else if scalar == " " { result.append("-") }
            }
        }
        return String(result)
    }

    /// Citations: a page ending in `.md`, an optional comma, one space and a heading in double quotes;
    /// the page as written and the quoted heading.
    static func citations(inText text: String) -> [Citation] {
        let pattern = try! NSRegularExpression(pattern: #"((?:\.\./|[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+\.md),? "([^"\n]+)""#)
        var found: [Citation] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(line)
            for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                guard let page = Range(match.range(at: 1), in: line), let heading = Range(match.range(at: 2), in: line) else { continue }
                found.append(Citation(page: String(line[page]), heading: String(line[heading]), line: index + 1))
            }
        }
        return found
    }

    /// Whether `cited` names one of `headings`: its rendered text, or that text without a trailing
    /// parenthetical (`Audit page` for "Audit page (`--report audit.html`)") or without what follows a
    /// colon (`Seventh round` for "Seventh round: Winograd ..."); letter case and spacing aside.
    static func cites(_ cited: String, oneOf headings: [String]) -> Bool {
        func normal(_ text: String) -> String {
            renderedText(text).lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
        let wanted = normal(cited)
        for heading in headings {
            let full = normal(heading)
            var names = [full]
            if full.hasSuffix(")"), let open = full.range(of: " (", options: .backwards) { names.append(String(full[..<open.lowerBound])) }
            if let colon = full.range(of: ": ") { names.append(String(full[..<colon.lowerBound])) }
            if names.contains(wanted) { return true }
        }
        return false
    }

    // MARK: Checking against the repository

    func links(in path: String) throws -> [Link] {
        Self.links(inMarkdown: try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8))
    }

    func citations(in path: String) throws -> [Citation] {
        guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else { return [] }
        return Self.citations(inText: text)
    }

    /// Why `link`, written in `page`, leads nowhere; nil when it is fine or not checked (http(s), mailto).
    mutating func problem(with link: Link, in page: String) throws -> String? {
        let target = link.target
        let lowered = target.lowercased()
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") || lowered.hasPrefix("mailto:") { return nil }
        if target.isEmpty { return "empty target" }
        let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let pathPart = parts[0].removingPercentEncoding, let fragment = (parts.count > 1 ? parts[1] : "").removingPercentEncoding else {
            return "malformed percent-encoding"
        }
        let file: String
        if pathPart.isEmpty {
            file = page
        } else {
            guard let resolved = resolve(pathPart, from: page) else { return "\(pathPart) leaves the repository" }
            guard exists(resolved) else { return "no file \(resolved) (letter case counts)" }
            file = resolved
        }
        guard parts.count > 1 else { return nil }
        guard file.hasSuffix(".md") else { return nil }  // #L12 line anchors of source files: not checked
        if fragment.isEmpty { return "empty anchor" }
        let anchors = try anchors(of: file)
        if anchors.contains(fragment) { return nil }
        return "no heading with anchor #\(fragment) in \(file) (its anchors: \(anchors.joined(separator: ", ")))"
    }

    /// Why `citation` names no heading; nil when the page has a heading of that name.
    mutating func problem(with citation: Citation, in path: String) throws -> String? {
        let folder = (path as NSString).deletingLastPathComponent
        let candidates = [citation.page, (folder as NSString).appendingPathComponent(citation.page), "Docs/" + citation.page]
        guard let page = candidates.compactMap({ resolve($0, from: "") }).first(where: exists) else {
            return "no page \(citation.page) (looked at \(candidates.joined(separator: ", ")))"
        }
        let headings = try headings(of: page)
        if Self.cites(citation.heading, oneOf: headings) { return nil }
        return "\(page) has no heading \"\(citation.heading)\" (its headings: \(headings.map { "\"\($0)\"" }.joined(separator: ", ")))"
    }

    /// `relative`, written in the file `page`, as a path from the repository root (a leading `/` starts at
    /// the root, as on GitHub); nil when it climbs out of the repository.
    func resolve(_ relative: String, from page: String) -> String? {
        var parts: [Substring] = relative.hasPrefix("/") ? [] : (page as NSString).deletingLastPathComponent.split(separator: "/")
        for component in relative.split(separator: "/") {
            switch component {
            case ".": continue
            case "..":
                if parts.isEmpty { return nil }
                parts.removeLast()
            default: parts.append(component)
            }
        }
        return parts.joined(separator: "/")
    }

    /// Whether `path` (from the root) exists with exactly this letter case in every component.
    func exists(_ path: String) -> Bool {
        var folder = root
        for component in path.split(separator: "/").map(String.init) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), names.contains(component) else { return false }
            folder.appendPathComponent(component)
        }
        return true
    }

    private mutating func headings(of page: String) throws -> [String] {
        if let cached = headingCache[page] { return cached }
        let headings = Self.headings(inMarkdown: try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8))
        headingCache[page] = headings
        return headings
    }

    private mutating func anchors(of page: String) throws -> [String] {
        Self.anchors(inMarkdown: try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8))
    }
}
