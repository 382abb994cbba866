// swift-tools-version:5.9
import PackageDescription

/// Example: a target holding a Darknet model (yolo-fastest-1.1) that FoldKitPlugin converts during the
/// build; the executable reads the generated blobs and manifest.json from Bundle.module with
/// FoldKitLoader (Foundation only). See Docs/Plugin.md and Docs/Library.md in the FoldKit repository.
let package = Package(
    name: "YoloFastestExample",
    dependencies: [
        // The FoldKit repository this example sits in (Docs/Examples/YoloFastest -> the root).
        .package(name: "FoldKit", path: "../../.."),
    ],
    targets: [
        .executableTarget(
            name: "YoloFastestExample",
            dependencies: [.product(name: "FoldKitLoader", package: "FoldKit")],
            // The model's provenance, licence, class names and test photo travel with it; only the
            // .cfg + .weights pair is a plugin input.
            exclude: ["Model/SOURCE.txt", "Model/LICENSE.txt", "Model/coco.names", "Model/dog.jpg"],
            plugins: [.plugin(name: "FoldKitPlugin", package: "FoldKit")]),
    ]
)
