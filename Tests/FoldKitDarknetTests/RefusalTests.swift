import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// Options that change the maths and cannot be represented are refused clearly, naming the line.
final class RefusalTests: XCTestCase {
    private let header = "[net]\nwidth=8\nheight=8\nchannels=4\n\n[convolutional]\nfilters=4\nsize=1\nactivation=linear\n\n"

    /// Writes `header + body`, reads it and returns the error; the body's first line is line 11.
    private func error(_ body: String) throws -> FoldKitError? {
        let directory = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.cfg").path
        try (header + body).write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try DarknetReader.read(cfgPath: path, weightsPath: nil)
            return nil
        } catch {
            return error as? FoldKitError
        }
    }

    func testRefusedOptions() throws {
        let cases: [(body: String, kind: FoldKitError.Kind, line: Int, text: String)] = [
            ("[convolutional]\nfilters=4\nsize=3\nbinary=1\n", .unsupported, 14, "binary"),
            ("[convolutional]\nfilters=4\nsize=3\nantialiasing=1\n", .unsupported, 14, "antialiasing"),
            ("[convolutional]\nfilters=4\nsize=3\nshare_index=0\n", .badInput, 11, "share_index names a convolution of another shape"),
            ("[convolutional]\nfilters=4\nsize=1\nshare_index=5\n", .badInput, 14, "share_index must name an earlier"),
            ("[convolutional]\nfilters=4\nsize=3\nactivation=leeky\n", .badInput, 14, "leeky"),
            ("[convolutional]\nfilters=4\nsize=3\nactivation=loggy\n", .unsupported, 14, "loggy"),
            ("[convolutional]\nfilters=3\nsize=3\ngroups=2\n", .badInput, 11, "groups"),
            ("[maxpool]\nsize=2\nmaxpool_depth=1\n", .unsupported, 13, "maxpool_depth"),
            ("[maxpool]\nsize=2\nantialiasing=1\n", .unsupported, 13, "antialiasing"),
            ("[shortcut]\nfrom=-2\nweights_type=per_channel\n", .unsupported, 13, "weights_type"),
            ("[upsample]\nstride=-2\n", .unsupported, 12, "negative stride"),
            ("[reorg]\nstride=2\nreverse=1\n", .unsupported, 13, "reverse"),
            ("[avgpool]\n\n[scale_channels]\nfrom=-2\nscale_wh=1\n", .unsupported, 15, "scale_wh"),
            ("[route]\nlayers=5\n", .badInput, 12, "does not name an earlier layer"),
            ("[route]\ngroups=2\n", .badInput, 11, "layers="),
            ("[yolo]\nmask=0\nclasses=80\nnum=1\n", .badInput, 11, "input channels"),
            ("[softmax]\ntemperature=0\n", .badInput, 11, "temperature"),
            ("[net]\nwidth=4\n", .badInput, 11, "[net]"),
            ("[gaussian_yolo]\n", .unsupported, 11, "unsupported layer [gaussian_yolo]"),
            // darknet's [local] output 8x8 ((8 - 1) / 1 + 1) against im2col's 6x6 ((8 + 2 - 5) / 1 + 1).
            ("[local]\nsize=5\npad=1\n", .unsupported, 11, "im2col"),
            ("[local]\nsize=9\n", .badInput, 11, "empty"),
            ("[detection]\nclasses=1\nside=2\n", .unsupported, 11, "coords=1"),
            ("[detection]\nclasses=2\ncoords=4\nside=2\n", .badInput, 11, "input size"),
        ]
        for c in cases {
            let e = try error(c.body)
            XCTAssertEqual(e?.kind, c.kind, c.body)
            XCTAssertEqual(e?.line, c.line, c.body)
            let lastSection = c.body.components(separatedBy: "\n").filter { $0.hasPrefix("[") }.last ?? ""
            let index = c.body.components(separatedBy: "\n").filter { $0.hasPrefix("[") }.count
            XCTAssertEqual(e?.layer, "layer \(index) \(lastSection)", c.body)
            XCTAssertTrue(e?.description.contains(c.text) ?? false, "\(c.body): \(e?.description ?? "no error")")
            XCTAssertNotNil(e?.file, c.body)
        }
    }
}
