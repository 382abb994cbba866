import FoldKitCore

/// [local], as darknet's `parse_local` / `make_local_layer` / `forward_local_layer` (AlexeyAB darknet,
/// src/parser.c and src/local_layer.c): a locally connected convolution (`LocallyConnected`).
///
/// Options: `filters` (1), `size` (1), `stride` (1), `pad` (0), `activation` (logistic). The output is
/// `filters x out_h x out_w` with darknet's `local_out_height`: out_h = (pad ? h - 1 : h - size) / stride + 1
/// (C division, truncating toward zero), likewise the width. `forward_local_layer` hands `pad` to im2col
/// as the number of zero cells before the input, and im2col lays its columns out for
/// (h + 2*pad - size) / stride + 1 rows; the two agree for pad=0 and for size = 2*pad + 1 (every [local]
/// of yolov1's cfgs: size=3, pad=1). Where they disagree darknet multiplies columns of a differently shaped im2col
/// buffer (and reads past it when it is smaller): refused.
///
/// Weights file (`load_weights` for LOCAL): biases[filters * out_h * out_w], one per output element
/// (channel-major), then weights[out_h * out_w][filters][c][size][size]. No batch norm.
enum LocalSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        let input = context.inputShape
        let filters = try context.int("filters", default: 1)
        let size = try context.int("size", default: 1)
        let stride = try context.int("stride", default: 1)
        let pad = try context.int("pad", default: 0)
        guard filters >= 1, size >= 1, stride >= 1, pad >= 0 else {
            throw context.error(
                .badInput, "[local] needs filters, size and stride >= 1 and pad >= 0",
                found: "filters=\(filters) size=\(size) stride=\(stride) pad=\(pad)")
        }
        let activation = try DarknetActivation.read(context, default: "logistic")
        // darknet's local_out_height / local_out_width, and im2col's rows and columns for the same pad.
        let outH = (pad != 0 ? input.height - 1 : input.height - size) / stride + 1
        let outW = (pad != 0 ? input.width - 1 : input.width - size) / stride + 1
        let columnsH = (input.height + 2 * pad - size) / stride + 1
        let columnsW = (input.width + 2 * pad - size) / stride + 1
        guard outH == columnsH, outW == columnsW else {
            throw context.error(
                .unsupported,
                "[local] output size (pad ? in - 1 : in - size) / stride + 1 differs from im2col's (in + 2*pad - size) / stride + 1: darknet would mix up the locations",
                expected: "equal sizes (pad=0, or size = 2*pad + 1)",
                found: "\(outH)x\(outW) against \(columnsH)x\(columnsW) (size=\(size) pad=\(pad))")
        }
        guard outH >= 1, outW >= 1 else {
            throw context.error(
                .badInput, "[local] output would be empty", expected: "at least 1x1", found: "\(outH)x\(outW) from \(input.height)x\(input.width)")
        }
        let locations = outH * outW
        let fanIn = input.channels * size * size
        let bias = try context.take(.bias, shape: [filters, outH, outW])
        let weights = try context.take(.weights, shape: [locations, filters, input.channels, size, size], fanIn: fanIn)
        let layer = LocallyConnected(
            inputChannels: input.channels, outputChannels: filters, kernelSize: size, stride: stride, padding: pad, outputHeight: outH,
            outputWidth: outW, weights: weights, bias: bias, activation: activation)
        return BuiltLayer(kind: .locallyConnected(layer), inputs: [context.previous])
    }
}
