import FoldKitBlobFormat
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// The writer finds NaN and infinity in the folded blobs while hashing them (`BlobFileSink`), and
/// `BlobWriter.Options.onNonFiniteBlobs` can refuse the output before it is put in place.
final class NonFiniteBlobTests: XCTestCase {
    func testHoldsNonFiniteFindsNaNAndBothInfinitiesOnly() {
        let finite: [Float] = [0, -0, 1, -1, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude]
        finite.withUnsafeBytes { XCTAssertFalse(BlobFileSink.holdsNonFinite($0)) }
        for bad: Float in [.nan, .signalingNaN, .infinity, -.infinity, -Float.nan] {
            for position in [0, 3, finite.count] {
                var values = finite
                values.insert(bad, at: position)
                values.withUnsafeBytes { XCTAssertTrue(BlobFileSink.holdsNonFinite($0), "\(bad) at \(position)") }
            }
        }
        [Float]().withUnsafeBytes { XCTAssertFalse(BlobFileSink.holdsNonFinite($0)) }
    }

    /// conv(1->2, 1x1, BN) whose batch-norm scale overflows the folded weights of channel 1 only: every
    /// source value is finite, the folded product is not.
    private func overflowingNetwork(sourceFile: String) throws -> Network {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 1, height: 2, width: 2))
        let bn = BatchNorm(
            gamma: WeightTensor(shape: [2], values: [1, 1e30]), beta: WeightTensor(shape: [2], values: [0, 0]),
            mean: WeightTensor(shape: [2], values: [0, 0]), variance: WeightTensor(shape: [2], values: [1, 1]),
            convention: .darknet)
        let conv = Convolution(
            inputChannels: 1, outputChannels: 2, kernelHeight: 1, kernelWidth: 1, padding: .uniform(0),
            weights: WeightTensor(shape: [2, 1, 1, 1], values: [1, 1e30]), bias: nil, batchNorm: bn, activation: .linear)
        try builder.append(
            kind: .convolution(conv), inputs: [Network.inputIndex], source: LayerSource(file: sourceFile, section: "[convolutional]", line: 1))
        return Network(
            format: .darknet, sourceFiles: [sourceFile], inputShape: builder.inputShape, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [], epsilonConvention: .darknet)
    }

    func testOverflowingFoldIsReportedAndARefusalLeavesNoOutput() throws {
        struct Refused: Error {}
        let dir = try TestData.temporaryDirectory()
        let sourceFile = dir.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: sourceFile)
        let network = try overflowingNetwork(sourceFile: sourceFile.path)
        var reported: [String] = []
        let refuse: ([BlobEntry]) throws -> Void = { tensors in
            reported = tensors.map(\.file)
            throw Refused()
        }
        XCTAssertThrowsError(
            try BlobWriter.write(network: network, to: dir.appendingPathComponent("blobs"), options: .init(onNonFiniteBlobs: refuse))
        ) {
            XCTAssertTrue($0 is Refused, "\($0)")
        }
        XCTAssertEqual(reported, ["conv0_W.bin"], "only the weights overflow (1e30 x 1e30); the bias is 0")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["model.cfg"], "no output, no temporary folder")

        // Without the callback the blobs are written as they are, infinity included.
        let out = dir.appendingPathComponent("written")
        try BlobWriter.write(network: network, to: out)
        let blob = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: out.appendingPathComponent("conv0_W.bin")))
        XCTAssertEqual(blob[0], Float(1 / (1 + 1e-5).squareRoot()), accuracy: 1e-6)
        XCTAssertEqual(blob[1], .infinity)
    }
}
