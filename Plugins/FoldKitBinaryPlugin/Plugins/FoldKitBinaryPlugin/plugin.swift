import Foundation
import PackagePlugin

/// Build-tool plugin: `FoldKitPlugin`'s commands (`ConvertCommands`, shared through symbolic links: a plugin
/// cannot depend on a library) run with the prebuilt `foldkit` of `foldkit.artifactbundle.zip`, so a
/// package using it compiles none of FoldKit's converter (Docs/Plugin.md).
@main
struct FoldKitBinaryPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        try ConvertCommands.make(context: context, target: target, converter: try context.tool(named: "foldkit").url)
    }
}
