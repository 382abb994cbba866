import Foundation

/// The repository's tracked paths, for checks of the tree itself.
public enum RepositoryPaths {
    /// Every file git tracks (`git ls-files`); without git, every file below the repository root that
    /// is not build output.
    public static func tracked() throws -> [String] {
        let root = TestData.repositoryRoot
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", root.path, "ls-files"]
        let out = Pipe()
        git.standardOutput = out
        git.standardError = Pipe()
        if (try? git.run()) != nil {
            let data = out.fileHandleForReading.readDataToEndOfFile()
            git.waitUntilExit()
            if git.terminationStatus == 0 {
                return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            }
        }
        var paths: [String] = []
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            if relative.hasPrefix(".build") || relative.hasPrefix(".git/") || relative.hasPrefix(".swiftpm") { continue }
            if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { paths.append(relative) }
        }
        return paths
    }

    /// Groups of paths (files and every folder above them) that are equal when letters are folded to
    /// one case, each group sorted; empty when there are none.
    public static func caseClashes(_ files: [String]) -> [[String]] {
        var all = Set<String>()
        for file in files {
            let parts = file.split(separator: "/")
            for end in 1...max(1, parts.count) { all.insert(parts[0..<end].joined(separator: "/")) }
        }
        let groups = Dictionary(grouping: all, by: { $0.lowercased() })
        return groups.values.filter { $0.count > 1 }.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }
}

extension RepositoryPaths {
    /// Lines of `text` that are left-over merge conflict markers (`<<<<<<< `, `=======`, `>>>>>>> ` at
    /// the start of a line), as "line N: marker"; empty when there are none.
    public static func conflictMarkers(in text: String) -> [String] {
        var found: [String] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.hasPrefix("<<<<<<< ") || line == "=======" || line.hasPrefix(">>>>>>> ") {
                found.append("line \(index + 1): \(line)")
            }
        }
        return found
    }
}
