import FoldKitCore
import Foundation

/// One stored weight array of a Keras layer, in the layer's own order and Keras layout.
struct KerasWeightArray {
    /// The stored name (`conv2d_1/kernel:0`, `convolution2d_1_W`, or `vars/0` for Keras 3 archives).
    var name: String
    var shape: [Int]
    var values: [Float]
}
