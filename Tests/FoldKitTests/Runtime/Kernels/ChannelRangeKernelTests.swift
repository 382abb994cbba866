import XCTest

@testable import FoldKit

/// Channel windows (`ChannelRange`): padding, slicing and both at once, by hand, in float64 and float32,
/// with the type name each gets from its input's channel count, and the window shape inference refuses.
final class ChannelRangeKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// in[c, y, x] = 100c + 10y + x on 3 x 2 x 2.
    let codes: [Float] = [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211]
    let codeShape = ActivationShape(channels: 3, height: 2, width: 2)
    let zeros: [Double] = [0, 0, 0, 0]

    private func plane(_ c: Int) -> [Double] { [0, 1, 10, 11].map { Double(100 * c) + $0 } }

    private func check(
        offset: Int, channels: Int, _ expected: [Double], type: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let network = try S.single(.channelRange(ChannelRange(offset: offset, channels: channels)), input: codeShape)
        XCTAssertEqual(network.layers[0].outputShape, ActivationShape(channels: channels, height: 2, width: 2), file: file, line: line)
        XCTAssertEqual(try S.runDouble(network, input: codes), expected, file: file, line: line)
        XCTAssertEqual(try S.runFloat(network, input: codes).map(Double.init), expected, file: file, line: line)
        XCTAssertEqual(network.typeName(of: network.layers[0]), type, file: file, line: line)
        XCTAssertEqual(BlobLayer(network.layers[0], in: network).type, type, file: file, line: line)
        XCTAssertEqual(BlobLayer(network.layers[0], in: network).channelOffset, offset, file: file, line: line)
    }

    func testPadding() throws {
        // One zero channel before and one after (offset -1, 3 + 1 + 1 channels); two after only.
        try check(offset: -1, channels: 5, zeros + plane(0) + plane(1) + plane(2) + zeros, type: "channel_pad")
        try check(offset: 0, channels: 5, plane(0) + plane(1) + plane(2) + zeros + zeros, type: "channel_pad")
        try check(offset: -2, channels: 5, zeros + zeros + plane(0) + plane(1) + plane(2), type: "channel_pad")
        // The whole input unchanged counts as padding by nothing.
        try check(offset: 0, channels: 3, plane(0) + plane(1) + plane(2), type: "channel_pad")
    }

    func testSlicing() throws {
        // [1, 3), [0, 1) and [2, 3)
        try check(offset: 1, channels: 2, plane(1) + plane(2), type: "channel_slice")
        try check(offset: 0, channels: 1, plane(0), type: "channel_slice")
        try check(offset: 2, channels: 1, plane(2), type: "channel_slice")
    }

    func testWindowsThatPadAndSlice() throws {
        // A zero channel, then channel 0 (channels 1 and 2 dropped); channel 2 then two zero channels;
        // a window entirely past the input.
        try check(offset: -1, channels: 2, zeros + plane(0), type: "channel_range")
        try check(offset: 2, channels: 3, plane(2) + zeros + zeros, type: "channel_range")
        try check(offset: 4, channels: 1, zeros, type: "channel_range")
        XCTAssertEqual(LayerKind.channelRange(ChannelRange(offset: 1, channels: 2)).typeName, "channel_range")
    }

    /// A plane large enough to be more than one cache line per channel, against the formula.
    func testLargePlanesMatchTheFormula() throws {
        let shape = ActivationShape(channels: 5, height: 17, width: 19)
        let input = S.seeded(shape.count, seed: 3)
        for (offset, channels) in [(-3, 9), (2, 2), (-1, 4), (3, 6)] {
            let network = try S.single(.channelRange(ChannelRange(offset: offset, channels: channels)), input: shape)
            var expected: [Double] = []
            for c in 0..<channels {
                for i in 0..<shape.planeSize {
                    let from = c + offset
                    expected.append(from >= 0 && from < shape.channels ? Double(input[from * shape.planeSize + i]) : 0)
                }
            }
            XCTAssertEqual(try S.runDouble(network, input: input), expected, "offset \(offset), \(channels) channels")
            XCTAssertEqual(try S.runFloat(network, input: input).map(Double.init), expected, "offset \(offset), \(channels) channels")
        }
    }

    func testShapeInferenceRefusesAnEmptyWindow() {
        for channels in [0, -2] {
            XCTAssertThrowsError(try LayerKind.channelRange(ChannelRange(offset: 0, channels: channels)).outputShape(for: [codeShape])) { error in
                XCTAssertEqual((error as? FoldKitError)?.message, "a channel window needs at least one channel")
                XCTAssertEqual((error as? FoldKitError)?.found, "\(channels)")
            }
        }
    }
}
