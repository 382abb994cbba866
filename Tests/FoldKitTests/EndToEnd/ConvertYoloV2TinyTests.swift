import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Convert yolov2-tiny-voc with seeded weights and compare every blob with batch-norm
/// folding (sqrt(var + 1e-5)) and OIHW -> OHWI done here independently, straight from the weights bytes.
final class ConvertYoloV2TinyTests: XCTestCase {
    /// (layer index, filters, input channels, kernel size, batch norm) of yolov2-tiny-voc.cfg's convolutions.
    private let convolutions: [(layer: Int, filters: Int, inputs: Int, size: Int, bn: Bool)] = [
        (0, 16, 3, 3, true), (2, 32, 16, 3, true), (4, 64, 32, 3, true), (6, 128, 64, 3, true), (8, 256, 128, 3, true),
        (10, 512, 256, 3, true), (12, 1024, 512, 3, true), (13, 1024, 1024, 3, true), (14, 125, 1024, 1, false),
    ]

    func testEveryBlobEqualsIndependentFoldAndTranspose() throws {
        let cfg = try TestData.sharedFile("darknet-cfg/yolov2-tiny-voc.cfg")
        let dir = try TestData.temporaryDirectory()
        let weightsURL = dir.appendingPathComponent("seeded.weights")
        try DarknetSeededWeights.write(cfgPath: cfg.path, seed: 11, to: weightsURL.path)
        let network = try ModelLoader.load(paths: [cfg.path, weightsURL.path])
        let out = dir.appendingPathComponent("blobs")
        let manifest = try BlobWriter.write(network: network, to: out)
        XCTAssertEqual(manifest.tensors.filter { $0.role == .weights }.count, 9)
        XCTAssertEqual(manifest.tensors.filter { $0.role == .bias }.count, 9)

        // Independent reading: 20-byte header, then per convolution biases, [scales, mean, variance], weights.
        let bytes = try Data(contentsOf: weightsURL)
        var offset = 20
        func take(_ n: Int) -> [Float] {
            defer { offset += 4 * n }
            return (0..<n).map { i in
                Float(bitPattern: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4 * i, as: UInt32.self) }.littleEndian)
            }
        }
        for conv in convolutions {
            let n = conv.filters, k = conv.size, c = conv.inputs
            let biases = take(n)
            let (scales, mean, variance) =
                conv.bn
                ? (take(n), take(n), take(n)) : ([Float](repeating: 1, count: n), [Float](repeating: 0, count: n), [Float](repeating: 1, count: n))
            let weights = take(n * c * k * k)
            var expectedW = [Double](repeating: 0, count: n * c * k * k)
            var expectedB = [Double](repeating: 0, count: n)
            for o in 0..<n {
                let s = conv.bn ? Double(scales[o]) / (Double(variance[o]) + 1e-5).squareRoot() : 1
                expectedB[o] = conv.bn ? Double(biases[o]) - Double(mean[o]) * s : Double(biases[o])
                for i in 0..<c {
                    for y in 0..<k {
                        for x in 0..<k {
                            expectedW[((o * k + y) * k + x) * c + i] = Double(weights[((o * c + i) * k + y) * k + x]) * s
                        }
                    }
                }
            }
            let w = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: out.appendingPathComponent("conv\(conv.layer)_W.bin")))
            let b = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: out.appendingPathComponent("conv\(conv.layer)_b.bin")))
            XCTAssertEqual(w.count, expectedW.count, "conv\(conv.layer)_W size")
            XCTAssertEqual(b.count, n, "conv\(conv.layer)_b size")
            assertClose(w, expectedW, rtol: 1e-6, "conv\(conv.layer)_W")
            assertClose(b, expectedB, rtol: 1e-6, "conv\(conv.layer)_b")
        }
        XCTAssertEqual(offset, bytes.count, "the independent reading consumed the whole file")
    }
}
