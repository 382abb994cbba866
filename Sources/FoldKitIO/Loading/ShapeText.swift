import FoldKitCore
import Foundation

/// Shapes written as numpy and Keras write them.
package enum ShapeText {
    /// `(a, b)`; a single axis gets the trailing comma `(a,)`.
    package static func tuple(_ parts: [String]) -> String {
        "(" + parts.joined(separator: ", ") + (parts.count == 1 ? ",)" : ")")
    }
}
