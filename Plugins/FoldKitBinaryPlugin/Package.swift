// swift-tools-version:6.0
import PackageDescription

/// FoldKitBinaryPlugin: FoldKitPlugin's build-tool plugin with a prebuilt `foldkit` (an artifact bundle,
/// SE-0305) instead of one built from source, so a package using it compiles nothing of FoldKit's
/// converter (Docs/Plugin.md in the FoldKit repository). Its own package, beside FoldKit's, so that
/// FoldKit's manifest loads in a fresh clone where the bundle was never made.
///
/// `foldkit.artifactbundle.zip` is written here by `Scripts/make-artifactbundle.sh` (run from the FoldKit
/// repository's root). A release publishes that zip and replaces the path with its URL and the checksum the
/// script prints: `.binaryTarget(name: "foldkit", url: "https://.../foldkit.artifactbundle.zip", checksum: "...")`.
let package = Package(
    name: "FoldKitBinaryPlugin",
    products: [
        .plugin(name: "FoldKitBinaryPlugin", targets: ["FoldKitBinaryPlugin"])
    ],
    targets: [
        .binaryTarget(name: "foldkit", path: "foldkit.artifactbundle.zip"),
        .plugin(name: "FoldKitBinaryPlugin", capability: .buildTool(), dependencies: ["foldkit"]),
    ]
)
