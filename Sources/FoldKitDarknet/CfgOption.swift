import FoldKitCore
import Foundation

/// One `key=value` line of a Darknet .cfg section.
struct CfgOption: Sendable, Hashable {
    var key: String
    var value: String
    /// 1-based line number in the .cfg file.
    var line: Int
}
