/// How an `ElementwiseMerge` combines its inputs a, b, c, ... element by element (Keras Add, Subtract,
/// Multiply, Average, Maximum, Minimum and their TensorFlow operations), left to right in input order:
///
///     add:      out = ((a + b) + c) + ...
///     subtract: out = a - b                     (exactly two inputs)
///     multiply: out = ((a * b) * c) * ...
///     divide:   out = a / b                     (exactly two inputs)
///     average:  out = (((a + b) + c) + ...) / n  (n inputs; the sum divided once, at the end)
///     maximum:  out = max(max(a, b), c) ...
///     minimum:  out = min(min(a, b), c) ...
public enum MergeOperation: String, Sendable, Hashable, CaseIterable, Codable {
    case add
    case subtract
    case multiply
    case divide
    case average
    case maximum
    case minimum
}
