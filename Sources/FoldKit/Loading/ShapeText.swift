import FoldKitCore
import Foundation

/// Shapes written as numpy and Keras write them.
enum ShapeText {
    /// `(a, b)`; a single axis gets the trailing comma `(a,)`.
    static func tuple(_ parts: [String]) -> String {
        "(" + parts.joined(separator: ", ") + (parts.count == 1 ? ",)" : ")")
    }
}
