import Foundation
import FoldKitCore

/// `manifest.json` of a fixture folder (Docs/Fixtures.md).
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
    /// The `.npz` pack holding the same arrays (member = file name without `.npy`), when written.
    public var pack: Pack?

    public struct Pack: Codable, Equatable, Sendable {
        public var file: String
        public var sha256: String
    }
}
