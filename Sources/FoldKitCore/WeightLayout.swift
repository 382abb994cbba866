import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a 4-D convolution weight tensor is laid out in memory.
///
/// With O output channels, I input channels per group, and a kh x kw kernel:
/// - `oihw`: index = ((o*I + i)*kh + y)*kw + x  (Darknet, PyTorch, ONNX; FoldKit's internal layout)
/// - `ohwi`: index = ((o*kh + y)*kw + x)*I + i  (Metal's MPSCNNConvolution; the blob default)
/// - `hwio`: index = ((y*kw + x)*I + i)*O + o  (Keras / TensorFlow)
public enum WeightLayout: String, CaseIterable, Sendable, Codable {
    case oihw = "OIHW"
    case ohwi = "OHWI"
    case hwio = "HWIO"
}
