import Foundation
import PackagePlugin

/// Build-tool plugin: converts every model file of a target with `foldkit convert` during the build and
/// adds the result to the target's resources, so the app reads it through `Bundle.module`. The tool is
/// `foldkit` built from this package's sources for the host; `FoldKitBinaryPlugin` (its own package,
/// Plugins/FoldKitBinaryPlugin) runs the same commands with a prebuilt `foldkit` (Docs/Plugin.md says which
/// to pick). The commands: `ConvertCommands`.
@main
struct FoldKitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        try ConvertCommands.make(context: context, target: target, converter: try context.tool(named: "FoldKitCLI").url)
    }
}
