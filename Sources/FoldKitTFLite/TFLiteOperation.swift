/// An operator of the graph: the builtin, its input and output tensor indices (-1: an optional input left
/// out) and its options.
struct TFLiteOperation: Sendable {
    var op: TFLiteOperator
    var inputs: [Int]
    var outputs: [Int]
    var options: TFLiteOptions?
}
