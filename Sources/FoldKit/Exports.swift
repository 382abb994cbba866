// The vocabulary FoldKit's API is written in, and the targets it is made of (the executor, reading and
// writing files, the network rebuilt from a blob folder, images, verification): a client that imports FoldKit names `Network`, `Layer`,
// `BlobManifest`, `TensorRole`, `ONNXExportOptions`, `NCNNExportOptions` and `TFLiteExportOptions` without importing their modules. The readers (FoldKitDarknet,
// FoldKitKeras) are not re-exported: `ModelLoader` picks them, and a client that calls one itself imports it.
@_exported import FoldKitBlobFormat
@_exported import FoldKitBlobNetwork
@_exported import FoldKitCore
@_exported import FoldKitDetection
@_exported import FoldKitIO
@_exported import FoldKitImage
@_exported import FoldKitNCNN
@_exported import FoldKitONNX
@_exported import FoldKitRuntime
@_exported import FoldKitTFLite
@_exported import FoldKitVerify
