// swift-tools-version:5.9
import PackageDescription

/// Example: a target holding a Darknet model (yolo-fastest-1.1) that FoldKitBinaryPlugin converts during the
/// build with the prebuilt `foldkit` (make its bundle once: `bash Scripts/make-artifactbundle.sh` in the FoldKit
/// repository); the executable reads the generated blobs and manifest.json from Bundle.module with
/// FoldKitLoader (Foundation only), runs dog.jpg through the network rebuilt from that folder alone (FoldKit's
/// CPU executor, the `FoldKitCPUEngine` product, standing in for an app's Metal engine: nothing of the
/// converter, see Docs/Plugin.md) and decodes the boxes with FoldKitLoader. The bundle holds the blob folder
/// and the photo, no .cfg or .weights. See Docs/Plugin.md and Docs/Library.md in the FoldKit repository.
let package = Package(
    name: "YoloFastestExample",
    dependencies: [
        // The FoldKit repository this example sits in (Docs/Examples/YoloFastest -> the root).
        .package(name: "FoldKit", path: "../../.."),
        // The build-tool plugin with the prebuilt foldkit, a package of its own in that repository.
        .package(name: "FoldKitBinaryPlugin", path: "../../../Plugins/FoldKitBinaryPlugin"),
    ],
    targets: [
        .executableTarget(
            name: "YoloFastestExample",
            dependencies: [.product(name: "FoldKitLoader", package: "FoldKit"), .product(name: "FoldKitCPUEngine", package: "FoldKit")],
            // The model's provenance, licence and class names travel with it; the .cfg + .weights pair (with
            // the class names beside it) is the plugin's input, the photo a resource.
            exclude: ["Model/SOURCE.txt", "Model/LICENSE.txt", "Model/coco.names"],
            resources: [.copy("Model/dog.jpg")],
            plugins: [.plugin(name: "FoldKitBinaryPlugin", package: "FoldKitBinaryPlugin")]),
    ]
)
