import FoldKitCore
import Foundation

/// A parsed Darknet .cfg file: the sections in order, the first one being `[net]`.
struct CfgFile: Sendable {
    var path: String
    var sections: [CfgSection]
}
