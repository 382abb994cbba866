import Foundation
import FoldKitCore

/// The input tensor a command runs the network on: seeded, or read from a .npy file.
public struct ModelInput: Sendable {
    /// Channel-major C*H*W values for the network's input shape.
    public var values: [Float]
    /// How it was made, for reports and manifests: `seed 0` or the file path.
    public var origin: String

    public init(values: [Float], origin: String) {
        self.values = values
        self.origin = origin
    }

    /// Uniform values in [0, 1) from `SplitMix64(seed)`, one per element in channel-major order.
    public static func seeded(_ seed: UInt64, shape: ActivationShape) -> ModelInput {
        var rng = SplitMix64(seed: seed)
        return ModelInput(values: (0..<shape.count).map { _ in Float(rng.nextUnit()) }, origin: "seed \(seed)")
    }

    /// A float32 .npy in the model's own layout: Darknet (1,C,H,W) or (C,H,W); Keras (1,H,W,C) or (H,W,C).
    /// Any other shape or dtype is an error naming the file, expected and found.
    public static func npy(path: String, network: Network) throws -> ModelInput {
        guard let data = FileManager.default.contents(atPath: path) else { throw FoldKitError(.io, "cannot read input file", file: path) }
        let parsed = try NPYFile.parse(data, file: path)
        guard parsed.descr == "<f4" else {
            throw FoldKitError(.usage, "input must be float32", file: path, expected: "<f4", found: parsed.descr)
        }
        let s = network.inputShape
        let dims = parsed.shape.first == 1 && parsed.shape.count == 4 ? Array(parsed.shape.dropFirst()) : parsed.shape
        switch network.inputOrder {
        case .channelsFirst:
            guard dims == [s.channels, s.height, s.width] else {
                throw FoldKitError(.usage, "input shape does not match the network", file: path,
                                   expected: "(1, \(s.channels), \(s.height), \(s.width)) or (\(s.channels), \(s.height), \(s.width))", found: "\(parsed.shape)")
            }
            return ModelInput(values: parsed.values, origin: path)
        case .channelsLast:
            guard dims == [s.height, s.width, s.channels] else {
                throw FoldKitError(.usage, "input shape does not match the network", file: path,
                                   expected: "(1, \(s.height), \(s.width), \(s.channels)) or (\(s.height), \(s.width), \(s.channels))", found: "\(parsed.shape)")
            }
            return ModelInput(values: TensorLayout.hwcToCHW(parsed.values, shape: s), origin: path)
        }
    }
}

/// Moves activations between channel-major (FoldKit's internal, NCHW) and other layouts.
public enum TensorLayout {
    /// (y, x, c) at (y*W + x)*C + c  ->  (c, y, x) at (c*H + y)*W + x.
    public static func hwcToCHW<T>(_ values: [T], shape: ActivationShape) -> [T] {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        guard let first = values.first else { return values }
        var out = [T](repeating: first, count: values.count)
        for y in 0..<h { for x in 0..<w { for ch in 0..<c { out[(ch * h + y) * w + x] = values[(y * w + x) * c + ch] } } }
        return out
    }

    /// (c, y, x) at (c*H + y)*W + x  ->  (y, x, c) at (y*W + x)*C + c.
    public static func chwToHWC<T>(_ values: [T], shape: ActivationShape) -> [T] {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        guard let first = values.first else { return values }
        var out = [T](repeating: first, count: values.count)
        for ch in 0..<c { for y in 0..<h { for x in 0..<w { out[(y * w + x) * c + ch] = values[(ch * h + y) * w + x] } } }
        return out
    }

    /// MPSImage texture slices: S = ceil(C/4) slices of H x W pixels with 4 channels each;
    /// (c, y, x) goes to (c/4)*H*W*4 + y*W*4 + x*4 + c%4, the last slice zero-padded. C <= 2 is
    /// stored unpadded with C components per pixel: index (y*W + x)*C + c.
    /// Returns the values and the written shape ([S, H, W, 4], or [H, W, C] for C <= 2).
    public static func chwToSliced(_ values: [Float], shape: ActivationShape) -> (values: [Float], shape: [Int]) {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        if c <= 2 { return (chwToHWC(values, shape: shape), [h, w, c]) }
        let slices = (c + 3) / 4
        var out = [Float](repeating: 0, count: slices * h * w * 4)
        for ch in 0..<c { for y in 0..<h { for x in 0..<w {
            out[(ch / 4) * h * w * 4 + y * w * 4 + x * 4 + ch % 4] = values[(ch * h + y) * w + x]
        } } }
        return (out, [slices, h, w, 4])
    }

    /// The inverse of `chwToSliced`.
    public static func slicedToCHW(_ values: [Float], shape: ActivationShape) -> [Float] {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        if c <= 2 { return hwcToCHW(values, shape: shape) }
        var out = [Float](repeating: 0, count: shape.count)
        for ch in 0..<c { for y in 0..<h { for x in 0..<w {
            out[(ch * h + y) * w + x] = values[(ch / 4) * h * w * 4 + y * w * 4 + x * 4 + ch % 4]
        } } }
        return out
    }
}
