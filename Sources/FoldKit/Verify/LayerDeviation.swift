import FoldKitCore

/// How far one layer's candidate output is from the reference output.
///
/// - `maxAbsDeviation` = max_i |candidate_i - reference_i| (output units)
/// - `relativeDeviation` = maxAbsDeviation / max_i |reference_i| (the deviation as a fraction of the
///   layer's largest reference value; 0 when both are 0)
/// - `allowed` = atol + rtol * max|reference|; the layer passes when maxAbsDeviation <= allowed
public struct LayerDeviation: Codable, Equatable, Sendable {
    /// Where the largest deviation is: channel, row, column of the C x H x W output.
    public struct Location: Codable, Equatable, Sendable {
        public var channel: Int
        public var y: Int
        public var x: Int
    }

    public var index: Int
    public var name: String
    public var type: String
    /// [C, H, W]
    public var shape: [Int]
    public var maxAbsReference: Double
    public var maxAbsDeviation: Double
    public var relativeDeviation: Double
    public var meanAbsDeviation: Double
    public var at: Location
    public var allowed: Double
    public var pass: Bool

    /// Compares `candidate` against `reference` element by element (NaN or infinity in either where the
    /// other is finite counts as an infinite deviation).
    public static func measure<R: BinaryFloatingPoint, C: BinaryFloatingPoint>(
        layer: Layer, reference: [R], candidate: [C], atol: Double, rtol: Double
    ) -> LayerDeviation {
        let shape = layer.outputShape
        var maxRef = 0.0, maxDev = 0.0, sumDev = 0.0, worst = 0
        let n = min(reference.count, candidate.count)
        for i in 0..<n {
            let r = Double(reference[i]), c = Double(candidate[i])
            let d: Double = (r.isFinite && c.isFinite) ? abs(c - r) : (r == c ? 0 : .infinity)
            if r.isFinite { maxRef = max(maxRef, abs(r)) }
            sumDev += d
            if d > maxDev { maxDev = d; worst = i }
        }
        if reference.count != candidate.count { maxDev = .infinity }
        let plane = max(shape.height * shape.width, 1)
        let allowed = atol + rtol * maxRef
        return LayerDeviation(
            index: layer.index, name: layer.name, type: layer.kind.typeName,
            shape: [shape.channels, shape.height, shape.width], maxAbsReference: maxRef, maxAbsDeviation: maxDev,
            relativeDeviation: maxRef > 0 ? maxDev / maxRef : (maxDev == 0 ? 0 : .infinity),
            meanAbsDeviation: n > 0 ? sumDev / Double(n) : 0,
            at: Location(channel: worst / plane, y: (worst % plane) / max(shape.width, 1), x: worst % max(shape.width, 1)),
            allowed: allowed, pass: maxDev <= allowed)
    }
}
