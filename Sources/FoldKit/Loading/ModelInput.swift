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

    /// A float32 .npy for a network already read: Darknet (1,C,H,W) or (C,H,W); Keras channels-last
    /// (1,H,W,C) or (H,W,C), channels-first (1,C,H,W) or (C,H,W), vector inputs (1,N) or (N).
    /// Any other shape or dtype is an error naming the file, expected and found. To take a Keras
    /// model's undefined sizes from the array, use `ModelLoader.load(paths:options:inputPath:)`.
    public static func npy(path: String, network: Network) throws -> ModelInput {
        try npy(InputArray.read(path: path), network: network)
    }

    /// `npy(path:network:)` for an array already read.
    public static func npy(_ array: InputArray, network: Network) throws -> ModelInput {
        let s = network.inputShape
        let isVector = network.format == .keras && s.height == 1 && s.width == 1 && array.shape.last == s.channels && array.shape.count <= 2
        let dims: [Int]
        switch network.inputOrder {
        case _ where isVector: dims = [s.channels]
        case .channelsFirst: dims = [s.channels, s.height, s.width]
        case .channelsLast: dims = [s.height, s.width, s.channels]
        }
        let body = array.shape.count == dims.count + 1 && array.shape.first == 1 ? Array(array.shape.dropFirst()) : array.shape
        guard body == dims else {
            let text = dims.map(String.init)
            let batch = array.shape.count == dims.count + 1 && array.shape.first != 1 ? " (only batch 1 is supported)" : ""
            throw FoldKitError(.usage, "input shape does not match the network" + batch, file: array.path,
                               expected: ShapeText.tuple(["1"] + text) + " or " + ShapeText.tuple(text), found: array.shapeText)
        }
        let values = network.inputOrder == .channelsLast && !isVector ? TensorLayout.hwcToCHW(array.values, shape: s) : array.values
        return ModelInput(values: values, origin: array.path)
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
