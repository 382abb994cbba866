import FoldKitCore
import Foundation

/// [net] (alias [network]): the input shape.
enum NetSection {
    /// `channels x height x width` from `channels`, `height`, `width` (options override height and width).
    /// A [net] with only `inputs=` (no image size) gives a flat `inputs x 1 x 1` input.
    static func inputShape(_ net: CfgSection, options: DarknetReadOptions) throws -> ActivationShape {
        func int(_ key: String) throws -> Int { try net.int(key, default: 0) }
        let height = try options.inputHeight ?? int("height")
        let width = try options.inputWidth ?? int("width")
        let channels = try int("channels")
        if height > 0 && width > 0 && channels > 0 {
            let shape = ActivationShape(channels: channels, height: height, width: width)
            try SizeLimits.checkActivation(shape, file: net.file, line: net.line, layer: net.header)
            return shape
        }
        let inputs = try int("inputs")
        if height == 0 && width == 0 && channels == 0 && inputs > 0 {
            return .vector(inputs)
        }
        throw FoldKitError(
            .badInput, "[net] needs positive width, height and channels (or inputs=)", file: net.file, line: net.line,
            layer: net.header, found: "width=\(width) height=\(height) channels=\(channels)")
    }
}
