import Foundation
import PackagePlugin

/// The build commands of both plugins (`FoldKitPlugin`, whose `foldkit` is built from source, and
/// `FoldKitBinaryPlugin`, whose `foldkit` is the prebuilt one of `foldkit.artifactbundle.zip`): one
/// `foldkit convert` per model of the target. SwiftPM gives a plugin no way to depend on a library, so
/// the binary plugin's package (Plugins/FoldKitBinaryPlugin) compiles this file and the two it uses
/// (`ModelFile.swift`, `PluginFailure.swift`) through symbolic links to them; only each plugin's
/// `@main` type, naming its tool, is its own.
///
/// Models found among the target's files (see Docs/Plugin.md):
/// - Darknet: `NAME.cfg` with `NAME.weights` beside it (same folder, same stem)
/// - Keras: `NAME.h5`, `NAME.hdf5` or `NAME.keras` (one file holding both architecture and weights)
///
/// Each model becomes one build command writing the folder `NAME.blobs/` (the blobs and `manifest.json`
/// of Docs/BlobFormat.md) into the plugin's work directory; SwiftPM copies the folder, whole, into the
/// target's resource bundle: `Bundle.module.url(forResource: "NAME", withExtension: "blobs")`.
/// The command's inputs are the model files, the class names file beside them (`NAME.names`, else the only
/// `.names` file of the folder; passed as `--names`, so the manifest carries the class names) and the
/// `foldkit` executable, so it runs again when one of them changes and not otherwise. Its one declared
/// output is that folder: the blob file names come from the model (layer indices, Keras layer names) and
/// are not known before it is read.
enum ConvertCommands {
    static func make(context: PluginContext, target: Target, converter: URL) throws -> [Command] {
        guard let sourceTarget = target as? SourceModuleTarget else { return [] }
        let models = ModelFile.find(in: sourceTarget.sourceFiles.map(\.url))
        var seenStems: [String: URL] = [:]
        return try models.map { model in
            if let earlier = seenStems[model.stem] {
                throw PluginFailure(
                    "two models of target '\(target.name)' are both named '\(model.stem)' "
                        + "(\(earlier.path), \(model.files[0].path)): their '\(model.stem).blobs' folders would collide; rename one")
            }
            seenStems[model.stem] = model.files[0]
            let output = context.pluginWorkDirectoryURL.appendingPathComponent(model.stem + ".blobs")
            return .buildCommand(
                displayName: "foldkit convert \(model.files.map(\.lastPathComponent).joined(separator: " "))",
                executable: converter,
                arguments: ["convert"] + model.files.map(\.path) + ["--out", output.path] + (model.names.map { ["--names", $0.path] } ?? []),
                inputFiles: model.files + (model.names.map { [$0] } ?? []) + [converter],
                outputFiles: [output])
        }
    }
}
