import FoldKitCore
import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

final class DumpTests: XCTestCase {
    func testDump() throws {
        let dir = TestData.shared.appendingPathComponent("darknet-cfg")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".cfg") {
            var out = ""
            do {
                let net = try DarknetReader.read(cfgPath: dir.appendingPathComponent(name).path, weightsPath: nil)
                for l in net.layers { out += "\(l.index) \(l.source.section) \(l.kind.typeName) in=\(l.inputs) -> \(l.outputShape) params=\(l.kind.parameters.reduce(0) { $0 + $1.tensor.count })\n" }
                out += "total params \(net.parameterCount)\n"
            } catch { out += "ERROR \(error)\n" }
            try out.write(toFile: "/tmp/fkdump/\(name).txt", atomically: true, encoding: .utf8)
        }
    }
}

final class DumpRealTests: XCTestCase {
    func testDumpReal() throws {
        let dir = TestData.shared.appendingPathComponent("real-models")
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
            let sub = dir.appendingPathComponent(name)
            let files = (try? FileManager.default.contentsOfDirectory(atPath: sub.path)) ?? []
            guard let cfg = files.first(where: { $0.hasSuffix(".cfg") }), let w = files.first(where: { $0.hasSuffix(".weights") }) else { continue }
            var out = ""
            do {
                let net = try DarknetReader.read(cfgPath: sub.appendingPathComponent(cfg).path, weightsPath: sub.appendingPathComponent(w).path)
                for l in net.layers { out += "\(l.index) \(l.source.section) \(l.kind.typeName) in=\(l.inputs) -> \(l.outputShape) params=\(l.kind.parameters.reduce(0) { $0 + $1.tensor.count }) bytes=\(String(describing: l.source.weightsByteRange))\n" }
                out += "total params \(net.parameterCount) meta \(net.metadata)\n"
            } catch { out += "ERROR \(error)\n" }
            try out.write(toFile: "/tmp/fkdump/real-\(name).txt", atomically: true, encoding: .utf8)
        }
    }
}
