import ArgumentParser
import FoldKit
import Foundation

/// `foldkit inspect`: the layer table of a model.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List every layer: index, type, output shape, parameters, bytes in the weights file, batch-norm epsilon.")

    @OptionGroup var model: ModelArguments

    func run() throws {
        let network = try model.load(requireWeights: false)
        print(InspectTable.render(network))
    }
}
