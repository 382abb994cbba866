// swift-tools-version:6.0
import PackageDescription

/// FoldKit: Darknet and Keras weights -> batch-norm-folded float32 blobs, with a CPU executor that
/// proves the conversion right. See Docs/Architecture.md for how the targets depend on each other.
let package = Package(
    name: "FoldKit",
    // iOS, tvOS, watchOS and visionOS are for FoldKitLoader, the blob reader an app links (CryptoKit's
    // SHA256 needs iOS 13 and later); the converter itself needs macOS or Linux.
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "FoldKit", targets: ["FoldKit"]),
        // The app side: reads and checks a blob folder with Foundation only (no HDF5, no BLAS).
        .library(name: "FoldKitLoader", targets: ["FoldKitLoader", "FoldKitBlobFormat", "FoldKitDetection", "FoldKitCore"]),
        // A CPU engine for a blob folder, for apps and tests on Linux (where there is no Metal): the network rebuilt
        // from the folder alone, FoldKit's executor, and image decoding with the manifest's resize. Nothing of
        // the converter (readers, verifier, writers, command line).
        .library(
            name: "FoldKitCPUEngine",
            targets: ["FoldKitBlobNetwork", "FoldKitRuntime", "FoldKitImage", "FoldKitBlobFormat", "FoldKitDetection", "FoldKitCore"]),
        .executable(name: "foldkit", targets: ["FoldKitCLI"]),
        .plugin(name: "FoldKitPlugin", targets: ["FoldKitPlugin"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // onnx's messages (FoldKitONNXProto: the TensorProto files of `foldkit fixtures --onnx`, ...); their Swift
        // code is generated once and committed (Fixtures/onnx/generate-swift.sh), no build plugin.
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
    ],
    targets: [
        // System libraries (Debian: libopenblas-dev, libhdf5-dev, zlib1g-dev, libssl-dev).
        .systemLibrary(
            name: "CBLAS", path: "Sources/CBLAS", pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]),
        .systemLibrary(
            name: "CHDF5", path: "Sources/CHDF5", pkgConfig: "hdf5",
            providers: [.apt(["libhdf5-dev"]), .brew(["hdf5"])]),
        .systemLibrary(
            name: "CTurboJPEG", path: "Sources/CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        // OpenSSL's libcrypto: SHA-256 on Linux (FoldKitBlobFormat's PlatformSHA256); Apple uses CryptoKit.
        .systemLibrary(
            name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),

        // Array exp/expm1/log1p/tanh: SLEEF (Debian: libsleef-dev) on Linux, AVX2 chosen at run time.
        // The CPU feature test behind the AVX2 builds of the C targets below.
        .target(name: "CCPUFeatures"),
        // The command's start-up signal guard, and the HDF5 helper's death with its parent and its sandbox (Linux).
        .target(name: "CEarlySignals"),

        .target(
            name: "CVectorMath",
            dependencies: ["CCPUFeatures"],
            linkerSettings: [.linkedLibrary("sleef", .when(platforms: [.linux]))]),

        // Winograd tile transforms over rows of tiles, vectorised; AVX2 chosen at run time.
        .target(name: "CWinograd", dependencies: ["CCPUFeatures"]),

        // The per-element passes of verify's layer comparison, vectorised; AVX2 chosen at run time.
        .target(name: "CDeviationScan", dependencies: ["CCPUFeatures"]),

        // The blob format: manifest types, layouts, dtypes, the folder reader. Foundation and the platform's
        // SHA-256 only (CryptoKit on Apple, libcrypto on Linux), so an app reading blobs links nothing else.
        .target(
            name: "FoldKitBlobFormat",
            dependencies: ["FoldKitCore", .target(name: "CLibCrypto", condition: .when(platforms: [.linux]))]),
        // Detection heads: their parameters, box decoding and NMS, shared by verify and an app's
        // FoldKitLoader. Foundation only.
        .target(name: "FoldKitDetection", dependencies: ["FoldKitCore"]),
        .target(name: "FoldKitCore"),
        // The app side: reads a blob folder through FoldKitBlobFormat, with Foundation only.
        .target(name: "FoldKitLoader", dependencies: ["FoldKitBlobFormat", "FoldKitDetection", "FoldKitCore"]),
        // The network rebuilt from a blob folder alone (manifest + blobs) and the weight layout moves both the
        // blob writer and the readers use. Foundation and the format module only.
        .target(name: "FoldKitBlobNetwork", dependencies: ["FoldKitBlobFormat", "FoldKitCore", "FoldKitDetection"]),
        // Images: JPEG and PNG decoding (libjpeg-turbo, libpng), the network input an image becomes, box drawing.
        .target(name: "FoldKitImage", dependencies: ["FoldKitCore", "FoldKitDetection", "CTurboJPEG", "CPNG"]),
        .target(name: "FoldKitDarknet", dependencies: ["FoldKitCore"]),
        .target(
            name: "FoldKitKeras",
            dependencies: ["FoldKitCore", "CHDF5", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        // onnx's protobuf messages (ModelProto and its parts), generated once and committed by Fixtures/onnx/generate-swift.sh.
        .target(name: "FoldKitONNXProto", dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")]),
        // The ONNX writer: lowers a folded network to standard onnx operators (Docs/Export.md). Imports the
        // operations and onnx's messages, nothing of the executor or the verifier.
        .target(
            name: "FoldKitONNX",
            dependencies: [
                "FoldKitCore", "FoldKitONNXProto", .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]),
        // The ncnn writer: lowers a folded network to ncnn's param and bin files (Docs/Export.md). Imports the
        // operations only, like the ONNX writer; the lowering decisions both share live in FoldKitCore.
        .target(name: "FoldKitNCNN", dependencies: ["FoldKitCore"]),
        // The LiteRT writer: lowers a folded network to a .tflite FlatBuffer of builtin operators with its own
        // small FlatBuffers encoder (Docs/Export.md, "LiteRT"). Imports the operations only, like the others.
        .target(name: "FoldKitTFLite", dependencies: ["FoldKitCore"]),
        // The executor: kernels, convolution paths, BLAS products, and the process-wide settings a program
        // applies once (Docs/Architecture.md, "Targets").
        .target(
            name: "FoldKitRuntime",
            dependencies: [
                "FoldKitCore", "CVectorMath", "CWinograd", .target(name: "CBLAS", condition: .when(platforms: [.linux])),
            ]),
        // Reading models and inputs, the fold passes, and every file FoldKit writes: blobs, fixture packs,
        // onnx exports with their test data, images. The only target that names the readers.
        .target(
            name: "FoldKitIO",
            dependencies: [
                "FoldKitBlobFormat", "FoldKitBlobNetwork", "FoldKitCore", "FoldKitDetection", "FoldKitDarknet", "FoldKitKeras", "FoldKitNCNN",
                "FoldKitONNX", "FoldKitONNXProto", "FoldKitTFLite", "FoldKitRuntime",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]),
        // Verification: the original against the folded network (or an engine's outputs), per layer and
        // precision, boxes, float16 hazards, the report and the audit page.
        .target(
            name: "FoldKitVerify",
            dependencies: [
                "FoldKitBlobFormat", "FoldKitCore", "FoldKitDetection", "FoldKitRuntime", "FoldKitImage", "FoldKitIO", "CDeviationScan",
            ]),
        // The library a client imports: re-exports the targets above, plus inspect and the bench.
        .target(
            name: "FoldKit",
            dependencies: [
                "FoldKitBlobFormat", "FoldKitBlobNetwork", "FoldKitCore", "FoldKitDetection", "FoldKitNCNN", "FoldKitONNX", "FoldKitRuntime",
                "FoldKitIO", "FoldKitImage", "FoldKitTFLite", "FoldKitVerify",
            ]),
        // The command `foldkit`; the target is named FoldKitCLI so that no two paths differ only by
        // letter case (Sources/FoldKit and Sources/foldkit are one folder on macOS's default file system).
        .executableTarget(
            name: "FoldKitCLI",
            dependencies: [
                "FoldKit", "FoldKitBlobFormat", "FoldKitDarknet", "FoldKitImage", "FoldKitONNX", "CEarlySignals",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Runs `foldkit convert` on a target's model files during the build (Docs/Plugin.md).
        .plugin(name: "FoldKitPlugin", capability: .buildTool(), dependencies: ["FoldKitCLI"]),

        // Shared test helpers (paths to Fixtures/ and ../shared); used by tests only.
        .target(name: "FoldKitTestSupport", path: "Tests/FoldKitTestSupport"),
        .testTarget(
            name: "FoldKitBlobFormatTests",
            dependencies: ["FoldKitBlobFormat", "FoldKitTestSupport"]),
        .testTarget(name: "FoldKitCoreTests", dependencies: ["FoldKitCore", "FoldKitTestSupport"]),
        .testTarget(name: "FoldKitONNXTests", dependencies: ["FoldKitONNX", "FoldKitONNXProto", "FoldKitTestSupport"]),
        .testTarget(name: "FoldKitNCNNTests", dependencies: ["FoldKitNCNN", "FoldKitCore", "FoldKitTestSupport"]),
        .testTarget(name: "FoldKitTFLiteTests", dependencies: ["FoldKitTFLite", "FoldKitCore", "FoldKitTestSupport"]),
        .testTarget(name: "FoldKitDetectionTests", dependencies: ["FoldKitDetection", "FoldKitCore", "FoldKitTestSupport"]),
        .testTarget(name: "FoldKitDarknetTests", dependencies: ["FoldKitDarknet", "FoldKit", "FoldKitTestSupport"]),
        .testTarget(
            name: "FoldKitKerasTests",
            dependencies: ["FoldKitKeras", "FoldKit", "FoldKitTestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation")]),
        .testTarget(
            name: "FoldKitTests",
            dependencies: [
                "FoldKit", "FoldKitBlobNetwork", "FoldKitDarknet", "FoldKitImage", "FoldKitLoader", "FoldKitTestSupport",
                .target(name: "CBLAS", condition: .when(platforms: [.linux])),
            ]),
        .testTarget(
            name: "FoldKitLoaderTests",
            dependencies: ["FoldKitLoader", "FoldKit", "FoldKitDarknet", "FoldKitTestSupport"]),
        .testTarget(
            name: "FoldKitCLITests",
            dependencies: [
                "FoldKitCLI", "FoldKit", "FoldKitBlobNetwork", "FoldKitDarknet", "FoldKitTestSupport",
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ]),
    ]
)
