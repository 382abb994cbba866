import FoldKitCore

/// [crop] at inference (darknet src/crop_layer.c, `forward_crop_layer` with `net.train` 0): a centred
/// window of `crop_height` x `crop_width` (1 x 1 by default) of every channel, then
/// out = in * 2 - 1, or out = in with `noadjust=1`:
///
///     dh = (h - crop_height) / 2,  dw = (w - crop_width) / 2     (integer division)
///     out[c, i, j] = in[c, i + dh, j + dw] * scale + trans       (scale 2, trans -1; noadjust: 1, 0)
///
/// `flip`, `angle`, `saturation`, `exposure` and `shift` act only while training (random flips and
/// colour changes) and are ignored, as darknet ignores them at inference. A window larger than the
/// input is refused: darknet would read outside its input there.
enum CropSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        let input = context.inputShape
        let height = try context.int("crop_height", default: 1), width = try context.int("crop_width", default: 1)
        guard height >= 1, width >= 1, height <= input.height, width <= input.width else {
            throw context.error(
                .badInput, "[crop] window must fit the input", expected: "1 ... \(input.height) x 1 ... \(input.width)",
                found: "crop_height=\(height) crop_width=\(width)")
        }
        let noAdjust = try context.int("noadjust", default: 0) != 0
        let top = (input.height - height) / 2, left = (input.width - width) / 2
        let edges = Padding2D(top: top, left: left, bottom: input.height - height - top, right: input.width - width - left)
        return BuiltLayer(kind: .crop(edges, scale: noAdjust ? 1 : 2, shift: noAdjust ? 0 : -1), inputs: [context.previous])
    }
}
