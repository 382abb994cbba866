import FoldKitCore
import Foundation

/// One stored weight array of a Keras layer, in the layer's own order and Keras layout.
struct KerasWeightArray {
    /// The stored name (`conv2d_1/kernel:0`, `convolution2d_1_W`, or `vars/0` for Keras 3 archives).
    var name: String
    var shape: [Int]
    var values: [Float]
    /// Stored as integers (converted to Float on reading): only where a layer's format has one, such as
    /// Normalization's sample count (`KerasTranslationContext.weightArrays`).
    var isInteger = false
    /// The dataset's path in the HDF5 file, for errors.
    var path = ""
}
