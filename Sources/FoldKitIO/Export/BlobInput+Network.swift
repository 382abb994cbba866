import FoldKitBlobFormat
import FoldKitCore

extension BlobInput {
    /// The input `network` expects, as its source format defines it:
    /// - Darknet: RGB (grey for one channel), pixel / 255, stretched to the input (darknet's `resize_image`)
    ///   or letterboxed when `[net] letter_box=1` (`letterbox_image`); the array layout NCHW.
    /// - Keras: the file stores no image convention, so only the shape and layout (NHWC, or NCHW for a
    ///   channels-first model) are given; preprocessing layers inside the model are part of the network.
    init(_ network: Network) {
        let shape = network.inputShape
        let isVector = shape.height == 1 && shape.width == 1 && network.vectorsAreRank2
        let layout = isVector ? "NC" : (network.inputOrder == .channelsLast ? "NHWC" : "NCHW")
        switch network.format {
        case .darknet:
            let letterBox = network.metadata.letterBox == 1
            let order: String? = shape.channels == 3 ? "rgb" : (shape.channels == 1 ? "grey" : nil)
            self.init(
                shape: [shape.channels, shape.height, shape.width], modelLayout: layout, channelOrder: order, pixelScale: 1.0 / 255,
                pixelOffset: 0, resize: letterBox ? "letterbox" : "stretch",
                definedBy: "darknet: load_image_color (RGB, pixel / 255) and [net] letter_box=\(letterBox ? 1 : 0) "
                    + "(\(letterBox ? "letterbox_image" : "resize_image"))")
        case .keras:
            self.init(
                shape: [shape.channels, shape.height, shape.width], modelLayout: layout,
                definedBy: "keras: the model file stores no image convention (channel order, scaling, resizing); "
                    + "preprocessing layers inside the model are part of the network")
        }
    }
}
