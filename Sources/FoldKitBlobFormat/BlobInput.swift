/// The input the network expects (manifest.json's `input`), as the source model defines it, so an app can
/// prepare an image without the model's own files.
///
/// An image pixel p (0...255) of channel c becomes the input value `p * pixelScale + pixelOffset`, the
/// channels in `channelOrder`, the image fitted to `shape`'s H x W by `resize`:
/// - "stretch": each axis scaled on its own to fill the input (darknet's `resize_image`);
/// - "letterbox": aspect kept, fitted inside, the rest grey 0.5 (darknet's `letterbox_image`, `[net] letter_box=1`).
/// A field the source does not define (Keras files store no image convention) is absent; `definedBy` says
/// where each value comes from.
public struct BlobInput: Codable, Equatable, Sendable {
    /// [C, H, W]: the channel-major shape the blobs' network runs on (batch 1).
    public var shape: [Int]
    /// How the source model takes an input array: "NCHW" (Darknet) or "NHWC" (Keras channels-last),
    /// "NC" for a vector input.
    public var modelLayout: String
    /// "rgb", "bgr" or "grey"; absent when the source does not say.
    public var channelOrder: String?
    /// Input value per pixel value: value = pixel * pixelScale + pixelOffset (Darknet: 1/255, values in [0, 1]).
    public var pixelScale: Double?
    /// See `pixelScale`.
    public var pixelOffset: Double?
    /// "stretch" or "letterbox"; absent when the source does not say.
    public var resize: String?
    /// Where the values come from ("darknet: [net] letter_box=0 ...", "keras: ...").
    public var definedBy: String

    /// An input description with every field given (the optional ones only where the source defines them).
    public init(
        shape: [Int], modelLayout: String, channelOrder: String? = nil, pixelScale: Double? = nil, pixelOffset: Double? = nil,
        resize: String? = nil, definedBy: String
    ) {
        self.shape = shape
        self.modelLayout = modelLayout
        self.channelOrder = channelOrder
        self.pixelScale = pixelScale
        self.pixelOffset = pixelOffset
        self.resize = resize
        self.definedBy = definedBy
    }
}
