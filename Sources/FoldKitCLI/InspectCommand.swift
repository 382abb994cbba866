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
        guard model.files.count > 1 || network.format == .keras else { return }
        try WeightHealthArguments.report(network).forEach { print($0) }
        let hazards = try Float16Hazard.scan(folded: FoldBatchNorm.apply(to: network))
        print(hazards.isEmpty ? "float16 hazards of the folded weights: none" : "float16 hazards of the folded weights (\(hazards.count)):")
        hazards.forEach { print("  " + $0.text) }
    }
}
