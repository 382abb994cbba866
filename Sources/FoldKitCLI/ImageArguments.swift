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

        /// Prints boxes in image pixels and draws them if asked.
        mutating func report(_ boxes: [Detection], network: Network) throws {
            print("boxes in image pixels (left, top, right, bottom) of \(picture.width)x\(picture.height):")
            var canvas = picture
            for (i, box) in boxes.enumerated() {
                let b = preprocessing.imageBox(box, networkInput: network.inputShape)
                if i < VerificationReport.printedBoxes {
                    print(String(format: "  class %d  score %.4f  (%.1f, %.1f, %.1f, %.1f)", box.classIndex, box.score, b.left, b.top, b.right, b.bottom))
                } else if i == VerificationReport.printedBoxes {
                    print("  ... \(boxes.count - i) more")
                }
                BoxDrawing.rectangle(&canvas, left: b.left, top: b.top, right: b.right, bottom: b.bottom, color: BoxDrawing.color(for: box.classIndex))
            }
            if let drawPath {
                try ImageFile.writePNG(canvas, to: drawPath)
                print("drew \(boxes.count) boxes into \(drawPath)")
            }
        }
    }

    func prepare(for network: Network) throws -> Prepared? {
        guard let image else {
            if draw != nil { throw FoldKitError(.usage, "--draw needs --image") }
            return nil
        }
        let picture = try ImageFile.read(path: image)
        var preprocessing = ImagePreprocessing(mode: resize, channelOrder: channelOrder)
        // Internal tensors are channel-major whatever the model's own convention.
        let values = try preprocessing.tensor(from: picture, shape: network.inputShape)
        let origin = "image \(image) (\(picture.width)x\(picture.height), \(resize.rawValue), \(channelOrder.rawValue), values / 255)"
        return Prepared(input: ModelInput(values: values, origin: origin), picture: picture, preprocessing: preprocessing, drawPath: draw)
    }
}

extension ResizeMode: ExpressibleByArgument {}
extension ChannelOrder: ExpressibleByArgument {}
