import FoldKitCore
import Foundation

/// Which layers' outputs a fixture pack holds (`foldkit fixtures --layers`, Docs/Fixtures.md "Choosing
/// layers"). The network input is always written, whatever the choice.
public enum FixtureLayerChoice: Equatable, Sendable {
    /// Every layer (the default).
    case all
    /// The network's outputs (`Network.outputIndices`): Darknet's detection heads ([yolo], [region],
    /// [detection]; the last layer when it has none), a Keras model's output layers.
    case outputs
    /// The layers named, as given: Darknet section indices counted from 0 after [net] ("0", "12"), or
    /// Keras layer names.
    case list([String])

    /// Reads `all`, `outputs` or a comma-separated list (`3,7,12`; `conv1,dense_2`). An empty entry is an
    /// error; every entry is checked against the network by `layerIndices(in:)`.
    public init(argument: String) throws {
        switch argument {
        case "all": self = .all
        case "outputs": self = .outputs
        default:
            let entries = argument.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard !entries.contains(where: \.isEmpty) else {
                throw FoldKitError(
                    .usage, "--layers has an empty entry", expected: "all, outputs, or layers separated by commas", found: "'\(argument)'")
            }
            self = .list(entries)
        }
    }

    /// "all", "outputs" or "list": what the manifest records as `layers.choice`.
    public var name: String {
        switch self {
        case .all: return "all"
        case .outputs: return "outputs"
        case .list: return "list"
        }
    }

    /// The chosen layers' indices in `network.layers`, ascending (a list's order and repeats do not
    /// matter). Throws `FoldKitError` (usage) naming every entry that is not a layer of the network and
    /// listing the valid ones: Darknet indices as a range, Keras names in full.
    public func layerIndices(in network: Network) throws -> [Int] {
        switch self {
        case .all: return Array(network.layers.indices)
        case .outputs: return Set(network.outputIndices).sorted()
        case .list(let entries):
            var chosen = Set<Int>()
            var unknown: [String] = []
            for entry in entries {
                if let index = Self.index(of: entry, in: network) { chosen.insert(index) } else { unknown.append(entry) }
            }
            guard unknown.isEmpty else {
                throw FoldKitError(
                    .usage,
                    "--layers names \(unknown.count == 1 ? "a layer" : "layers") this model does not have: "
                        + unknown.map { "'\($0)'" }.joined(separator: ", "),
                    file: network.sourceFiles.first, expected: Self.validEntries(network), found: unknown.joined(separator: ","))
            }
            return chosen.sorted()
        }
    }

    /// The layer `entry` names: a section index for Darknet (`layerIdentity == .index`), a layer name for Keras.
    private static func index(of entry: String, in network: Network) -> Int? {
        switch network.layerIdentity {
        case .index:
            guard let i = Int(entry), network.layers.indices.contains(i) else { return nil }
            return i
        case .name: return network.layers.first { $0.name == entry }?.index
        }
    }

    /// What `--layers` takes for this network, for the error message.
    private static func validEntries(_ network: Network) -> String {
        let layers: String
        switch network.layerIdentity {
        case .index: layers = network.layers.isEmpty ? "no layers" : "section indices 0...\(network.layers.count - 1)"
        case .name: layers = "layer names " + network.layers.map(\.name).joined(separator: ", ")
        }
        return "all, outputs, or \(layers)"
    }
}
