import FoldKitBlobNetwork
import FoldKitImage
import FoldKitLoader
import FoldKitRuntime
import Foundation

// An app's path from the folder FoldKitPlugin generated during the build (`yolo-fastest-1.1.blobs` in this
// target's resource bundle; no .cfg or .weights is bundled):
//  1. FoldKitLoader (Foundation only, what an app on a device links) reads the folder: every blob's size and
//     SHA-256 checked against manifest.json, the files memory-mapped, and the manifest's description of the
//     network: the input it expects, its detection heads and class names.
//  2. An engine runs the network on dog.jpg. On a device that is Metal; here FoldKit's CPU executor (the
//     FoldKitCPUEngine product, nothing of the converter) stands in, running the network rebuilt from the
//     folder alone (BlobNetwork), the image fitted as the manifest's `input` says.
//  3. FoldKitLoader decodes the engine's head outputs into boxes: the decoding and NMS `foldkit verify` uses.

let modelName = "yolo-fastest-1.1"

func run() throws {
    guard let url = Bundle.module.url(forResource: modelName, withExtension: "blobs") else {
        throw ExampleFailure("\(modelName).blobs is not in \(Bundle.module.bundlePath): did FoldKitPlugin run?")
    }
    guard let photo = Bundle.module.url(forResource: "dog", withExtension: "jpg") else {
        throw ExampleFailure("dog.jpg is not in \(Bundle.module.bundlePath)")
    }
    // 1. The folder, as an app reads it.
    let folder = try BlobFolder(url: url)
    let bytes = folder.tensors.reduce(0) { $0 + $1.data.count }
    print("\(url.path)")
    print(
        "\(folder.layers.count) layers, \(folder.tensors.count) tensors (\(bytes) bytes, \(folder.tensors.first?.dtype.rawValue ?? "-")), "
            + "every size and SHA-256 as manifest.json gives; written by FoldKit \(folder.toolVersion ?? "?")")
    guard let input = folder.input, let resize = input.resize.flatMap(ResizeMode.init(rawValue:)),
        let order = input.channelOrder.flatMap(ChannelOrder.init(rawValue:))
    else { throw ExampleFailure("manifest.json does not say how to prepare an image (\(folder.input?.definedBy ?? "no input"))") }
    print("input \(input.shape) \(input.channelOrder ?? "") x \(input.pixelScale ?? 1), \(input.resize ?? ""): \(input.definedBy)")
    print("\(folder.heads.count) heads: " + folder.heads.map { "layer \($0.layer) \($0.decoding.kind.rawValue) \($0.outputShape)" }.joined(separator: ", "))

    // 2. The engine (FoldKit's CPU executor standing in for Metal) on the photo.
    let network = try BlobNetwork.read(folder: url)
    let picture = try ImageFile.read(path: photo.path)
    var preprocessing = ImagePreprocessing(mode: resize, channelOrder: order)
    let values = try preprocessing.tensor(from: picture, shape: network.inputShape)
    let outputs = try Executor<Float>(network: network).run(input: values)

    // 3. Boxes from the head outputs, with the class names the folder carries.
    let boxes = try folder.detections(headOutputs: folder.heads.map { outputs[$0.layer] }, threshold: 0.3, nmsIoU: 0.5)
    print("\(boxes.count) boxes in dog.jpg (\(picture.width)x\(picture.height); left, top, right, bottom in pixels):")
    for box in boxes {
        let name = folder.classNames.flatMap { box.classIndex < $0.count ? $0[box.classIndex] : nil } ?? "class \(box.classIndex)"
        let (left, top, right, bottom) = preprocessing.imageBox(box, networkInput: network.inputShape)
        print("  \(name) " + String(format: "%.2f  (%.1f, %.1f, %.1f, %.1f)", box.score, left, top, right, bottom))
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
