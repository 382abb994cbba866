import FoldKitCore
import Foundation

/// One `key=value` line of a Darknet .cfg section.
struct CfgOption: Sendable, Hashable {
    public var key: String
    public var value: String
    /// 1-based line number in the .cfg file.
    public var line: Int

    public init(key: String, value: String, line: Int) {
        self.key = key
        self.value = value
        self.line = line
    }
}
