/// Nearest-neighbour upsampling: out[c, y, x] = scale * in[c, y / strideY, x / strideX]
/// (Darknet [upsample] with `scale`, Keras UpSampling2D 'nearest').
public struct Upsample: Sendable, Hashable {
    public var strideY: Int
    public var strideX: Int
    public var scale: Float
    public init(strideY: Int, strideX: Int, scale: Float = 1) {
        self.strideY = strideY
        self.strideX = strideX
        self.scale = scale
    }
}
