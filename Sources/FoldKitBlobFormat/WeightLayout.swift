import Foundation

/// How a 4-D convolution (or fully connected) weight tensor is laid out in memory.
///
/// With O output channels, I input channels per group, and a kh x kw kernel, OIHW element (o, i, y, x) is at:
/// - `oihw`: ((o*I + i)*kh + y)*kw + x  (Darknet, PyTorch, ONNX; FoldKit's internal layout)
/// - `ohwi`: ((o*kh + y)*kw + x)*I + i  (Metal's MPSCNNConvolution; the blob default)
/// - `hwio`: ((y*kw + x)*I + i)*O + o  (Keras / TensorFlow)
/// - `sliced`: 4-channel slices for a Metal kernel reading MPSImage-style textures (4 channels a texel),
///   zero-padded (Docs/BlobFormat.md "Sliced layout"):
///   - ((o*kh + y)*kw + x)*Ip + i with Ip = 4*ceil(I/4): OHWI with I padded to a multiple of 4, so the
///     weights of one input texel are one aligned float4; stored shape [O, kh, kw, Ip].
///   - depthwise (groups = O = input channels, I = 1): (((o/4)*kh + y)*kw + x)*4 + o%4, the weights of one
///     texel's 4 channels side by side; stored shape [ceil(O/4), kh, kw, 4]; manifest layout "sliced-depthwise".
public enum WeightLayout: String, CaseIterable, Sendable, Codable {
    case oihw = "OIHW"
    case ohwi = "OHWI"
    case hwio = "HWIO"
    case sliced = "sliced"

    /// How a weights blob in this layout is listed in the manifest: the layout itself, or
    /// `.slicedDepthwise` for the sliced form of a depthwise convolution's weights.
    public func blobLayout(depthwise: Bool) -> BlobLayout {
        switch self {
        case .oihw: return .oihw
        case .ohwi: return .ohwi
        case .hwio: return .hwio
        case .sliced: return depthwise ? .slicedDepthwise : .sliced
        }
    }

    /// The layout named `name` in any letter case ("ohwi", "OHWI", "Sliced"); nil for an unknown name.
    public init?(caseInsensitive name: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == name.lowercased() }) else { return nil }
        self = match
    }
}
