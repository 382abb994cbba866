import ArgumentParser
import FoldKit
import Foundation

/// `foldkit inspect`: the layer table of a model.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List every layer: index, type, output shape, parameters, bytes in the weights file, batch-norm epsilon.",
        discussion: HelpExamples.inspect)

    @OptionGroup var model: ModelArguments
    @OptionGroup var output: OutputOptions

    func run() throws {
        var preflight = InputPreflight()
        preflight.addModel(model.files)
        try preflight.check()
        let console = output.console
        // Hashed beside the reading and the scans, for the document's filesRead.
        let digests = output.json ? ModelDigests(model.files) : nil
        let network = try model.load(requireWeights: false)
        console.say(InspectTable.render(network))
        var hazards: [Float16Hazard]?
        var weightProblems: [String]?
        if !network.parametersArePlaceholders {
            let findings = try WeightHealthCheck.scan(network)
            for line in WeightHealthArguments.report(findings) { console.say(line) }
            weightProblems = findings.map(\.text)
            let found = try Float16Hazard.scan(folded: FoldBatchNorm.apply(to: network))
            console.say(found.isEmpty ? "float16 hazards of the folded weights: none" : "float16 hazards of the folded weights (\(found.count)):")
            for hazard in found { console.say("  " + hazard.text) }
            hazards = found
        }
        try console.document(
            JSONDocument(
                command: "inspect", filesRead: try digests?.result() ?? [],
                InspectResult(network, float16Hazards: hazards, weightProblems: weightProblems)))
    }
}
