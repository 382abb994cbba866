import FoldKitCore
import Foundation

/// A parsed Darknet .cfg file: the sections in order, the first one being `[net]`.
struct CfgFile: Sendable {
    public var path: String
    public var sections: [CfgSection]

    public init(path: String, sections: [CfgSection]) {
        self.path = path
        self.sections = sections
    }
}
