import Dispatch
import FoldKitBlobFormat
import FoldKitCore
import FoldKitRuntime

/// Scans every parameter tensor of a network for values no conversion can carry: NaN or infinity in
/// any tensor, and batch-norm variances whose denominator is not positive under the layer's epsilon
/// convention (Docs/Security.md, "What is checked"):
///
///     inside the square root:  var + eps <= 0           (sqrt of zero or of a negative number)
///     outside the square root: var < 0 or sqrt(var) + eps <= 0
///
/// A variance the epsilon rescues (var = 0 with eps > 0) is healthy. `inspect` and `verify` print the
/// findings; `convert` and `fixtures` refuse the model with `refusal(_:)` unless `--allow-nonfinite`.
/// File-backed tensors are read a bounded chunk at a time, so the scan holds at most
/// `chunkElements` values of a tensor, whatever the model's size.
public enum WeightHealthCheck {
    /// What is wrong with one element.
    public enum Problem: String, Sendable, Equatable {
        case nan = "NaN"
        case infinity = "infinity"
        case nonPositiveVariance = "variance with no positive denominator"
    }

    /// One bad element: where it is (layer, tensor, element, file byte), and its value.
    public struct Finding: Sendable, Equatable {
        public var problem: Problem
        /// `layer 3 [convolutional]` or `layer 2 'conv1' (Conv2D)`.
        public var layer: String
        public var role: TensorRole
        public var shape: [Int]
        /// Flat row-major index of the element in the tensor (FoldKit's internal layout).
        public var elementIndex: Int
        /// The value as stored (float32).
        public var value: Float
        /// The file the value was read from: the weights file for Darknet, else the layer's model file.
        public var file: String
        /// Byte offset of the element in `file` (file-backed tensors: Darknet .weights).
        public var byteOffset: Int?
        /// The epsilon convention that failed to rescue a variance (nil for NaN and infinity).
        public var convention: EpsilonConvention?

        /// The element's index per axis, from the flat index and the shape.
        public var coordinates: [Int] {
            var rest = elementIndex
            var result = [Int](repeating: 0, count: shape.count)
            for axis in shape.indices.reversed() where shape[axis] > 0 {
                result[axis] = rest % shape[axis]
                rest /= shape[axis]
            }
            return result
        }

        /// `weights [16, 3, 3, 3] element 17 [0, 1, 2, 2]`.
        public var elementText: String {
            "\(role.readableName) \(shape) element \(elementIndex) \(coordinates)"
        }

        /// One line for reports: file, layer, byte offset, tensor, element and value.
        public var text: String {
            var location = file + ": " + layer
            if let byteOffset { location += ": at byte \(byteOffset)" }
            return "\(location): \(problem.rawValue) in \(elementText) (value \(value)\(conventionText))"
        }

        private var conventionText: String {
            guard let convention else { return "" }
            return convention.placement == .insideSqrt ? ", var + \(convention.epsilon) <= 0" : ", sqrt(var) + \(convention.epsilon) not > 0"
        }
    }

    /// Values read per step from a file-backed tensor.
    static let chunkElements = 1 << 16

    /// Every bad element of `network`, in layer and tensor order, at most `limit` of them.
    ///
    /// `skipping` leaves out tensors of those roles (convert skips `.weights`, the large tensors, and
    /// finds non-finite values in them while hashing the folded blobs instead). Layers are scanned on all
    /// cores, each with its own reader and at most `limit` findings; the first `limit` in layer order are
    /// kept, which is what a scan in order would find. The error reported is the earliest layer's.
    public static func scan(_ network: Network, limit: Int = 100, skipping: Set<TensorRole> = []) throws -> [Finding] {
        let count = network.layers.count
        var perLayer = [[Finding]](repeating: [], count: count)
        var errors = [Error?](repeating: nil, count: count)
        perLayer.withUnsafeMutableBufferPointer { results in
            errors.withUnsafeMutableBufferPointer { failures in
                Parallel.fork(count) { i in
                    do {
                        results[i] = try scan(network.layers[i], limit: limit, skipping: skipping, reader: FloatSpanReader())
                    } catch {
                        failures[i] = error
                    }
                }
            }
        }
        var findings: [Finding] = []
        for i in 0..<count {
            if let error = errors[i] { throw error }
            findings += perLayer[i].prefix(limit - findings.count)
            if findings.count >= limit { break }
        }
        return findings
    }

    /// The bad elements of one layer's tensors, in tensor order, at most `limit` of them.
    private static func scan(_ layer: Layer, limit: Int, skipping: Set<TensorRole>, reader: FloatSpanReader) throws -> [Finding] {
        let convention = batchNormConvention(of: layer.kind)
        var findings: [Finding] = []
        for (role, tensor) in layer.kind.parameters where !skipping.contains(role) {
            guard findings.count < limit else { return findings }
            let file = tensor.fileSpan?.path ?? layer.source.file
            try forEachChunk(of: tensor, reader: reader) { start, values in
                // Only NaN, infinity and variances can be findings: a finite chunk of another role has none.
                if role != .variance && allFinite(values) { return true }
                for (offset, value) in values.enumerated() {
                    guard let problem = problem(of: value, role: role, convention: convention) else { continue }
                    let index = start + offset
                    findings.append(
                        Finding(
                            problem: problem, layer: layer.label, role: role, shape: tensor.shape, elementIndex: index, value: value,
                            file: file, byteOffset: tensor.fileSpan.map { $0.byteOffset + index * 4 },
                            convention: problem == .nonPositiveVariance ? convention : nil))
                    if findings.count >= limit { return false }
                }
                return true
            }
        }
        return findings
    }

    /// The error `convert` and `fixtures` throw for a finding: located at the file, layer and byte.
    public static func refusal(_ finding: Finding, total: Int) -> FoldKitError {
        let more = total > 1 ? " and \(total - 1) more bad value\(total == 2 ? "" : "s")" : ""
        return FoldKitError(
            .badInput, "\(finding.problem.rawValue) in \(finding.elementText)\(more); pass --allow-nonfinite to write it anyway",
            file: finding.file, layer: finding.layer, byteOffset: finding.byteOffset,
            expected: finding.problem == .nonPositiveVariance ? "a variance whose denominator is positive" : "finite values",
            found: "\(finding.value)")
    }

    /// The problem with one element, if any: NaN and infinity in every tensor; for a variance, a
    /// denominator that is not positive under `convention`.
    package static func problem(of value: Float, role: TensorRole, convention: EpsilonConvention?) -> Problem? {
        if value.isNaN { return .nan }
        if value.isInfinite { return .infinity }
        guard role == .variance, let convention else { return nil }
        let variance = Double(value)
        let denominator: Double
        switch convention.placement {
        case .insideSqrt: denominator = variance + convention.epsilon
        case .outsideSqrt: denominator = variance < 0 ? -1 : variance.squareRoot() + convention.epsilon
        }
        return denominator > 0 ? nil : .nonPositiveVariance
    }

    /// Whether no value is NaN or infinite: the largest exponent field (bits 30...23) is below all ones.
    /// A branch-free maximum, so the loop runs in vectors.
    package static func allFinite(_ values: UnsafeBufferPointer<Float>) -> Bool {
        let exponentBits: UInt32 = 0x7f80_0000
        var largest: UInt32 = 0
        for value in values { largest = max(largest, value.bitPattern & exponentBits) }
        return largest != exponentBits
    }

    /// The convention of the layer's batch norm (nil when it has none).
    private static func batchNormConvention(of kind: LayerKind) -> EpsilonConvention? {
        switch kind {
        case .convolution(let c): return c.batchNorm?.convention
        case .fullyConnected(let f): return f.batchNorm?.convention
        case .batchNorm(let bn): return bn.convention
        default: return nil
        }
    }

    /// Calls `body(startIndex, values)` for consecutive runs of the tensor's values until it returns false.
    private static func forEachChunk(
        of tensor: WeightTensor, reader: FloatSpanReader,
        _ body: (Int, UnsafeBufferPointer<Float>) -> Bool
    ) throws {
        switch tensor.storage {
        case .values(let values):
            _ = values.withUnsafeBufferPointer { body(0, $0) }
        case .scaledFile:
            // A folded tensor (the scan runs on networks as read, which hold none): its values, scaled.
            _ = try reader.floats(tensor).withUnsafeBufferPointer { body(0, $0) }
        case .file(let span):
            var buffer = [Float](repeating: 0, count: min(span.count, chunkElements))
            var start = 0
            while start < span.count {
                let count = min(chunkElements, span.count - start)
                let part = FileSpan(path: span.path, byteOffset: span.byteOffset + start * 4, count: count)
                let keepGoing = try buffer.withUnsafeMutableBufferPointer { pointer -> Bool in
                    let slice = UnsafeMutableBufferPointer(rebasing: pointer[0..<count])
                    try reader.read(part, into: slice)
                    return body(start, UnsafeBufferPointer(slice))
                }
                if !keepGoing { return }
                start += count
            }
        }
    }
}
