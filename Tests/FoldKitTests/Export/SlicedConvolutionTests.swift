import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// A convolution that reads only 4-channel texels - sliced activations, element (c, y, x) at
/// (c/4)*H*W*4 + y*W*4 + x*4 + c%4, and the sliced weight blobs `BlobWriter` writes (Docs/BlobFormat.md
/// "Sliced layout") - gives what FoldKit's executor computes in NCHW, for a plain, a strided, a depthwise,
/// a grouped, an even-kernel and a pointwise convolution (Fixtures/darknet/cfg/conv-basic.cfg).
final class SlicedConvolutionTests: XCTestCase {
    /// The sliced form of an NCHW activation: 4 channels per texel, the last slice zero-padded.
    private func slicedActivation(_ nchw: [Float], channels: Int, height: Int, width: Int) -> [Float] {
        var out = [Float](repeating: 0, count: (channels + 3) / 4 * height * width * 4)
        for c in 0..<channels {
            for y in 0..<height {
                for x in 0..<width {
                    out[(c / 4) * height * width * 4 + y * width * 4 + x * 4 + c % 4] = nchw[(c * height + y) * width + x]
                }
            }
        }
        return out
    }

    /// The reference kernel: one output texel (4 output channels) at a time, as a Metal kernel reading
    /// an input texture and the sliced weights would compute it. A dense convolution reads whole input
    /// texels against one float4 of weights; a depthwise one multiplies lane by lane; a grouped one reads
    /// each of its group's input channels from the texel holding it. Returns the sliced output.
    private func slicedConvolution(
        _ c: Convolution, input: [Float], inputHeight: Int, inputWidth: Int,
        outputHeight: Int, outputWidth: Int, weights: [Float], bias: [Float], depthwise: Bool
    ) -> [Float] {
        let inSlices = (c.inputChannels + 3) / 4, outSlices = (c.outputChannels + 3) / 4
        let perGroupIn = c.inputChannels / c.groups, perGroupOut = c.outputChannels / c.groups
        let paddedIn = (perGroupIn + 3) / 4 * 4
        let (kh, kw) = (c.kernelHeight, c.kernelWidth)
        func texel(_ slice: Int, _ y: Int, _ x: Int) -> [Float] {
            guard y >= 0, y < inputHeight, x >= 0, x < inputWidth else { return [0, 0, 0, 0] }
            let base = slice * inputHeight * inputWidth * 4 + y * inputWidth * 4 + x * 4
            return Array(input[base..<(base + 4)])
        }
        var out = [Float](repeating: 0, count: outSlices * outputHeight * outputWidth * 4)
        for s in 0..<outSlices {
            for oy in 0..<outputHeight {
                for ox in 0..<outputWidth {
                    for lane in 0..<4 {
                        let o = s * 4 + lane
                        guard o < c.outputChannels else { continue }
                        var sum = Double(bias[o])
                        for ky in 0..<kh {
                            for kx in 0..<kw {
                                let y = oy * c.strideY - c.padding.top + ky * c.dilationY
                                let x = ox * c.strideX - c.padding.left + kx * c.dilationX
                                if depthwise {
                                    sum += Double(texel(s, y, x)[lane]) * Double(weights[((s * kh + ky) * kw + kx) * 4 + lane])
                                } else if c.groups == 1 {
                                    for inSlice in 0..<inSlices {
                                        let t = texel(inSlice, y, x)
                                        for l in 0..<4 {
                                            sum += Double(t[l]) * Double(weights[((o * kh + ky) * kw + kx) * paddedIn + inSlice * 4 + l])
                                        }
                                    }
                                } else {
                                    let g = o / perGroupOut
                                    for i in 0..<perGroupIn {
                                        let channel = g * perGroupIn + i
                                        sum +=
                                            Double(texel(channel / 4, y, x)[channel % 4]) * Double(weights[((o * kh + ky) * kw + kx) * paddedIn + i])
                                    }
                                }
                            }
                        }
                        out[s * outputHeight * outputWidth * 4 + oy * outputWidth * 4 + ox * 4 + lane] = Float(sum)
                    }
                }
            }
        }
        return out
    }

    func testSlicedKernelMatchesTheExecutorOnEveryConvolution() throws {
        let dir = try TestData.temporaryDirectory()
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let weightsPath = dir.appendingPathComponent("conv-basic.weights").path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 11, to: weightsPath)
        // Activations are taken out (linear) so the comparison is of the convolution alone.
        var network = try FoldBatchNorm.apply(to: try DarknetReader.read(cfgPath: cfg, weightsPath: weightsPath))
        for i in network.layers.indices {
            if case .convolution(var c) = network.layers[i].kind { c.activation = .linear; network.layers[i].kind = .convolution(c) }
        }
        let blobs = dir.appendingPathComponent("blobs")
        let manifest = try BlobWriter.write(network: network, to: blobs, options: .init(layout: .sliced))
        let input = RuntimeTestSupport.seeded(network.inputShape.count, seed: 5)
        let outputs = try Executor<Float>(network: network).run(input: input)

        var depthwiseSeen = false, groupedSeen = false, checked = 0
        for layer in network.layers {
            guard case .convolution(let c) = layer.kind else { continue }
            let inputIndex = layer.inputs.first ?? Network.inputIndex
            let inShape = network.shape(of: inputIndex)
            let inNCHW = inputIndex == Network.inputIndex ? input : outputs[inputIndex]
            guard let w = manifest.tensors.first(where: { $0.layer == layer.index && $0.role == .weights }),
                let b = manifest.tensors.first(where: { $0.layer == layer.index && $0.role == .bias })
            else {
                return XCTFail("no blobs for layer \(layer.index)")
            }
            let depthwise = c.groups > 1 && c.groups == c.outputChannels && c.inputChannels == c.groups
            XCTAssertEqual(w.layout, depthwise ? .slicedDepthwise : .sliced, "layer \(layer.index)")
            depthwiseSeen = depthwiseSeen || depthwise
            groupedSeen = groupedSeen || (c.groups > 1 && !depthwise)
            let weights = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: blobs.appendingPathComponent(w.file)))
            let bias = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: blobs.appendingPathComponent(b.file)))
            let out = layer.outputShape
            let sliced = slicedConvolution(
                c, input: slicedActivation(inNCHW, channels: inShape.channels, height: inShape.height, width: inShape.width),
                inputHeight: inShape.height, inputWidth: inShape.width, outputHeight: out.height, outputWidth: out.width,
                weights: weights, bias: bias, depthwise: depthwise)
            let expected = slicedActivation(outputs[layer.index], channels: out.channels, height: out.height, width: out.width)
            XCTAssertEqual(sliced.count, expected.count, "layer \(layer.index)")
            _ = FoldKitTestSupport.assertClose(sliced, expected.map(Double.init), atol: 1e-4, "layer \(layer.index)")
            checked += 1
        }
        XCTAssertEqual(checked, 9)
        XCTAssertTrue(depthwiseSeen && groupedSeen)
    }
}
