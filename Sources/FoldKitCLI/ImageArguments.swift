import ArgumentParser
import FoldKit
import Foundation

/// `--image`, `--resize`, `--channel-order`, `--draw`: feed a photo and look at the boxes.
struct ImageArguments: ParsableArguments {
    @Option(help: "JPEG or PNG image to run the network on (instead of --input / --seed).")
    var image: String?

    @Option(help: "How the image fits the input: stretch, letterbox, center-crop.")
    var resize: ResizeMode = .stretch

    @Option(name: .customLong("channel-order"), help: "Channel order the network expects: rgb (Darknet) or bgr.")
    var channelOrder: ChannelOrder = .rgb

    @Option(help: "Write the image with the original network's boxes drawn to this PNG file.")
    var draw: String?

    struct Prepared {
        var input: ModelInput
        var picture: RGBImage
        var preprocessing: ImagePreprocessing
        var drawPath: String?
        /// The image file's size and SHA-256, of the bytes decoded.
        var digest: FileDigest
    }

    func validate() throws {
        if draw != nil && image == nil { throw ValidationError("--draw needs --image (the picture to draw the boxes on)") }
    }

    func prepare(for network: Network) throws -> Prepared? {
        guard let image else { return nil }
        guard let data = FileManager.default.contents(atPath: image) else { throw FoldKitError(.io, "cannot read image", file: image) }
        let picture = try ImageFile.decode(data, path: image)
        var preprocessing = ImagePreprocessing(mode: resize, channelOrder: channelOrder)
        // Internal tensors are channel-major whatever the model's own convention.
        let values = try preprocessing.tensor(from: picture, shape: network.inputShape)
        let origin = "image \(image) (\(picture.width)x\(picture.height), \(resize.rawValue), \(channelOrder.rawValue), values / 255)"
        return Prepared(
            input: ModelInput(values: values, origin: origin), picture: picture, preprocessing: preprocessing, drawPath: draw,
            digest: FileDigest(role: .image, path: image, data: data))
    }
}

extension ResizeMode: ExpressibleByArgument {}
extension ChannelOrder: ExpressibleByArgument {}
