/// LiteRT's nearest-neighbour source index (tflite/kernels/internal/reference/resize_nearest_neighbor.h and
/// its optimized_ops twin) against darknet's.
enum TFLiteNearestIndex {
    /// Whether, for every output index i of an input of `extent` upsampled by `stride`, both LiteRT formulas
    /// give i / stride: the reference kernel's min(floor(i * (extent / (float)(extent * stride))), extent - 1)
    /// in float32, and the optimized kernel's fixed point min((i * ((extent << 16) / (extent * stride) + 1))
    /// >> 16, extent - 1).
    static func matchesDarknet(extent: Int, stride: Int) -> Bool {
        let out = extent * stride
        let scale = Float(extent) / Float(out)
        let fixed = (extent << 16) / out + 1
        for i in 0..<out {
            let reference = min(Int((Float(i) * scale).rounded(.down)), extent - 1)
            let optimized = min((i * fixed) >> 16, extent - 1)
            if reference != i / stride || optimized != i / stride { return false }
        }
        return true
    }
}
