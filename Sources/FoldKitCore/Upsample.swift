/// Upsampling by integer factors, times `scale` (Darknet [upsample] with `scale`, Keras UpSampling2D),
/// to Hout = H * strideY rows and Wout = W * strideX columns:
///
/// - nearest (Darknet, Keras 'nearest'): out[c, y, x] = scale * in[c, y / strideY, x / strideX];
/// - bilinear (Keras 'bilinear', TensorFlow's `tf.image.resize(method="bilinear")` with half-pixel
///   centres), for output row y (columns alike, with W, Wout, x0, x1, fx), computed in float64:
///
///       src = (y + 0.5) * (H / Hout) - 0.5
///       y0  = max(floor(src), 0),  y1 = min(ceil(src), H - 1),  fy = src - floor(src)
///       top    = in[c, y0, x0] + (in[c, y0, x1] - in[c, y0, x0]) * fx
///       bottom = in[c, y1, x0] + (in[c, y1, x1] - in[c, y1, x0]) * fx
///       out[c, y, x] = scale * (top + (bottom - top) * fy)
public struct Upsample: Sendable, Hashable, Codable {
    /// How output values are taken from the input.
    public enum Interpolation: String, Sendable, Hashable, Codable {
        /// The input element the output position falls in.
        case nearest
        /// Linear in both directions between the four nearest input elements (half-pixel centres).
        case bilinear
    }

    /// Vertical factor.
    public var strideY: Int
    /// Horizontal factor.
    public var strideX: Int
    /// Multiplies every value (Darknet's `scale`; 1 for Keras).
    public var scale: Float
    /// Nearest-neighbour (the default) or bilinear.
    public var interpolation: Interpolation
    /// Upsampling by (strideY, strideX), nearest-neighbour unless told otherwise.
    public init(strideY: Int, strideX: Int, scale: Float = 1, interpolation: Interpolation = .nearest) {
        self.strideY = strideY
        self.strideX = strideX
        self.scale = scale
        self.interpolation = interpolation
    }
}

extension Upsample: LayerOperation {
    public var layerKind: LayerKind { .upsample(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String {
        switch interpolation {
        case .nearest: return "upsample"
        case .bilinear: return "upsample(bilinear)"
        }
    }

    /// The input's channels at strideY times its height and strideX times its width.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        return ActivationShape(channels: first.channels, height: first.height * strideY, width: first.width * strideX)
    }

    public func describe(into description: inout LayerDescription) {
        description.stride = [strideY, strideX]
        if scale != 1 { description.scale = Double(scale) }
    }

    public var deviationCarry: DeviationCarry? { DeviationCarry.largest(abs(Double(scale))) }
}
