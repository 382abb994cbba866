/// An operation's per-output-channel tensors as an engine stores them (the float16 scan reports the
/// output channels whose weights or biases leave float16's range): `weights` has `rows` equal rows, row r
/// belonging to output channel `rowChannel(r)`; `bias` value i to channel `biasChannel(i)`.
public struct ChannelTensors: Sendable {
    /// Which output channel a row or element belongs to.
    public enum ChannelMap: Sendable, Equatable {
        /// Its own index.
        case identity
        /// Its index modulo n (a locally connected layer's rows: location-major, then filter).
        case modulo(Int)
        /// Its index divided by n (a locally connected layer's biases: filter-major, then location).
        case dividedBy(Int)

        /// The channel of index `i`.
        public func channel(_ i: Int) -> Int {
            switch self {
            case .identity: return i
            case .modulo(let n): return i % max(n, 1)
            case .dividedBy(let n): return i / max(n, 1)
            }
        }
    }

    /// Weights (or per-channel scales).
    public var weights: WeightTensor?
    /// Biases (or per-channel shifts).
    public var bias: WeightTensor?
    /// Rows of `weights`.
    public var rows: Int
    /// The output channel of a weights row.
    public var rowChannel: ChannelMap
    /// The output channel of a bias value.
    public var biasChannel: ChannelMap

    /// Tensors of `rows` rows with the channel maps given (identity by default).
    public init(weights: WeightTensor?, bias: WeightTensor?, rows: Int, rowChannel: ChannelMap = .identity, biasChannel: ChannelMap = .identity) {
        self.weights = weights
        self.bias = bias
        self.rows = rows
        self.rowChannel = rowChannel
        self.biasChannel = biasChannel
    }
}
