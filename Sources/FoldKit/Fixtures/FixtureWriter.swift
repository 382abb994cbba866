import Foundation
import FoldKitCore

/// How `foldkit fixtures` lays out each tensor in its .npy file.
public enum FixtureLayout: String, CaseIterable, Sendable, Codable {
    /// (1, C, H, W), channel-major.
    case nchw
    /// (1, H, W, C), channel-minor.
    case nhwc
    /// MPSImage texture slices (S, H, W, 4), S = ceil(C/4), last slice zero-padded; (H, W, C) for C <= 2.
    case sliced
}

/// `manifest.json` of a fixture folder (DESIGN.md "Fixtures").
public struct FixtureManifest: Codable, Equatable, Sendable {
    /// A Darknet layer index or a Keras layer name; the input tensor has the name "input".
    public enum LayerID: Codable, Equatable, Sendable {
        case index(Int)
        case name(String)

        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let i = try? container.decode(Int.self) { self = .index(i) } else { self = .name(try container.decode(String.self)) }
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .index(let i): try container.encode(i)
            case .name(let n): try container.encode(n)
            }
        }
    }

    public struct Tensor: Codable, Equatable, Sendable {
        public var file: String
        public var layer: LayerID
        public var name: String
        public var type: String
        public var shape: [Int]
        public var layout: String
        public var dtype: String
        public var sha256: String
    }

    public var format: String
    public var version: Int
    public var source: [String]
    public var bnEpsilon: Double
    public var bnEpsilonMode: String
    public var input: String
    /// Which network produced the outputs and in what precision.
    public var computedBy: String
    public var layout: String
    public var tensors: [Tensor]
}

/// Writes a seeded (or given) input and every layer's output as .npy files plus `manifest.json`.
///
/// The outputs come from the original network (batch norm unfolded) computed in float64 and rounded
/// once to float32: the most accurate reference FoldKit can give another engine's tests.
public enum FixtureWriter {
    @discardableResult
    public static func write(network: Network, input: ModelInput, layout: FixtureLayout, to destination: URL) throws -> FixtureManifest {
        let outputs = try Executor<Double>(network: network).run(input: input.values.map(Double.init), retention: .all)
        return try AtomicOutputDirectory.write(to: destination) { folder in
            var tensors: [FixtureManifest.Tensor] = []
            tensors.append(try writeTensor(input.values, shape: network.inputShape, fileName: "input.npy", layer: .name("input"),
                                           name: "input", type: "input", layout: layout, folder: folder))
            for layer in network.layers {
                let values = outputs[layer.index].map { Float($0) }
                let id: FixtureManifest.LayerID = network.format == .darknet ? .index(layer.index) : .name(layer.name)
                let suffix = network.format == .darknet ? "" : "_" + SafeFileName.sanitize(layer.name)
                let fileName = String(format: "layer_%03d", layer.index) + suffix + ".npy"
                tensors.append(try writeTensor(values, shape: layer.outputShape, fileName: fileName, layer: id,
                                               name: layer.name, type: layer.kind.typeName, layout: layout, folder: folder))
            }
            let manifest = FixtureManifest(
                format: "foldkit-fixtures", version: 1, source: network.sourceFiles.map { URL(fileURLWithPath: $0).lastPathComponent },
                bnEpsilon: network.epsilonConvention.epsilon, bnEpsilonMode: network.epsilonConvention.placement.rawValue,
                input: input.origin, computedBy: "original network (batch norm unfolded), float64 arithmetic, stored as float32",
                layout: layout.rawValue, tensors: tensors)
            try JSONOutput.write(manifest, to: try folder.url(for: "manifest.json"))
            return manifest
        }
    }

    /// Rearranges channel-major values into `layout`, returning values and the .npy shape.
    public static func arrange(_ values: [Float], shape: ActivationShape, layout: FixtureLayout) -> (values: [Float], shape: [Int]) {
        switch layout {
        case .nchw: return (values, [1, shape.channels, shape.height, shape.width])
        case .nhwc: return (TensorLayout.chwToHWC(values, shape: shape), [1, shape.height, shape.width, shape.channels])
        case .sliced: return TensorLayout.chwToSliced(values, shape: shape)
        }
    }

    private static func writeTensor(
        _ values: [Float], shape: ActivationShape, fileName: String, layer: FixtureManifest.LayerID, name: String, type: String,
        layout: FixtureLayout, folder: AtomicOutputDirectory
    ) throws -> FixtureManifest.Tensor {
        let arranged = arrange(values, shape: shape, layout: layout)
        let data = NPYFile.encode(values: arranged.values, shape: arranged.shape)
        let url = try folder.url(for: fileName)
        do { try data.write(to: url) } catch { throw FoldKitError(.io, "cannot write fixture: \(error.localizedDescription)", file: url.path) }
        return FixtureManifest.Tensor(file: fileName, layer: layer, name: name, type: type, shape: arranged.shape,
                                      layout: layout.rawValue, dtype: "float32", sha256: Checksum.sha256Hex(data))
    }
}
