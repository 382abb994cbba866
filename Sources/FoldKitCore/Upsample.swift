/// Nearest-neighbour upsampling: out[c, y, x] = scale * in[c, y / strideY, x / strideX]
/// (Darknet [upsample] with `scale`, Keras UpSampling2D 'nearest').
public struct Upsample: Sendable, Hashable {
    /// Vertical factor.
    public var strideY: Int
    /// Horizontal factor.
    public var strideX: Int
    /// Multiplies every value (Darknet's `scale`; 1 for Keras).
    public var scale: Float
    /// Upsampling by (strideY, strideX).
    public init(strideY: Int, strideX: Int, scale: Float = 1) {
        self.strideY = strideY
        self.strideX = strideX
        self.scale = scale
    }
}
