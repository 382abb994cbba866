/// The value orders a blob can be stored in: manifest.json's `layout` (Docs/BlobFormat.md "Layouts").
///
/// For a weight tensor with O outputs, I inputs per group and a kh x kw kernel, element (o, i, y, x) is at:
/// - `oihw` "OIHW": ((o*I + i)*kh + y)*kw + x  (Darknet, PyTorch, ONNX)
/// - `ohwi` "OHWI": ((o*kh + y)*kw + x)*I + i  (Metal's MPSCNNConvolution; the default)
/// - `hwio` "HWIO": ((y*kw + x)*I + i)*O + o  (Keras, TensorFlow)
/// - `sliced` "sliced": ((o*kh + y)*kw + x)*Ip + i with Ip = 4*ceil(I/4), zero-padded; shape [O, kh, kw, Ip]
/// - `slicedDepthwise` "sliced-depthwise" (I = 1, groups = O): (((o/4)*kh + y)*kw + x)*4 + o%4; shape [ceil(O/4), kh, kw, 4]
/// - `vector` "C": one value per channel, [C]
/// - `channelPlanes` "CHW": [C, H, W] channel-major (a per-element PReLU alpha)
public enum BlobLayout: String, Codable, Sendable, CaseIterable {
    case oihw = "OIHW"
    case ohwi = "OHWI"
    case hwio = "HWIO"
    case sliced = "sliced"
    case slicedDepthwise = "sliced-depthwise"
    case vector = "C"
    case channelPlanes = "CHW"
}
