/// The element-wise comparison of a computed array with a reference, as every numeric test uses it.
///
/// Element `i` passes when `|actual[i] - expected[i]| <= atol + rtol * |expected[i]| + scaledTolerance * max|expected|`
/// (max over the finite reference values). Written so that NaN never passes silently:
/// - a NaN or infinity in `actual` where `expected` is finite fails (the deviation is infinite);
/// - a NaN or infinity in `expected` fails too (a float32-vs-float64 comparison where both executors
///   return NaN must not pass), unless `allowNonFiniteExpected` is set: then it passes only when `actual`
///   holds the same value (both NaN, or the same infinity);
/// - different element counts fail.
/// The worst element is the one with the largest deviation relative to its bound, NaN counting as
/// worse than any number.
public struct Closeness: Sendable, CustomStringConvertible {
    /// Number of elements compared (the shorter count when the counts differ).
    public let count: Int
    /// `actual.count` and `expected.count`.
    public let actualCount: Int
    public let expectedCount: Int
    /// Index of the worst element (-1 when nothing was compared).
    public let worstIndex: Int
    /// `|actual - expected|` at the worst element (infinity for a non-finite mismatch).
    public let worstDeviation: Double
    /// The two values at the worst element.
    public let worstActual: Double
    public let worstExpected: Double
    /// The allowed deviation at the worst element.
    public let worstBound: Double
    /// Elements outside their bound (NaN/Inf mismatches included).
    public let failingCount: Int
    /// Elements of `actual` that are NaN or infinite where the reference is finite.
    public let nonFiniteCount: Int
    /// Elements of `expected` that are NaN or infinite (counted as failures unless allowed).
    public let nonFiniteExpectedCount: Int
    /// max|expected| over finite reference values.
    public let referenceScale: Double

    /// True when the counts agree and every element is within its bound.
    public var passed: Bool { actualCount == expectedCount && failingCount == 0 }

    public var description: String {
        if actualCount != expectedCount {
            return "element count \(actualCount), expected \(expectedCount)"
        }
        if worstIndex < 0 { return "no elements" }
        var text = "worst at [\(worstIndex)]: got \(worstActual), expected \(worstExpected), |d| \(worstDeviation) (allowed \(worstBound))"
        text += "; \(failingCount) of \(count) outside tolerance"
        if nonFiniteCount > 0 { text += ", \(nonFiniteCount) NaN/Inf where the reference is finite" }
        if nonFiniteExpectedCount > 0 { text += ", \(nonFiniteExpectedCount) NaN/Inf in the reference itself" }
        text += "; max|expected| \(referenceScale)"
        return text
    }

    /// Compares `actual` with `expected` (see the type's documentation for the rule).
    public static func compare<A: BinaryFloatingPoint, E: BinaryFloatingPoint>(
        _ actual: [A], _ expected: [E], atol: Double = 0, rtol: Double = 0, scaledTolerance: Double = 0,
        allowNonFiniteExpected: Bool = false
    ) -> Closeness {
        let n = min(actual.count, expected.count)
        var scale = 0.0
        for e in expected where e.isFinite { scale = Swift.max(scale, abs(Double(e))) }
        var worstIndex = -1, worstRatio = -1.0, failing = 0, nonFinite = 0, nonFiniteExpected = 0
        var worstDeviation = 0.0, worstBound = 0.0
        for i in 0..<n {
            let a = Double(actual[i]), e = Double(expected[i])
            let bound = atol + rtol * abs(e) + scaledTolerance * scale
            let deviation: Double
            let ok: Bool
            if e.isFinite {
                if a.isFinite {
                    deviation = abs(a - e)
                    ok = deviation <= bound
                } else {
                    deviation = .infinity
                    ok = false
                    nonFinite += 1
                }
            } else {
                let same = (e.isNaN && a.isNaN) || a == e
                deviation = same ? 0 : .infinity
                ok = same && allowNonFiniteExpected
                if !allowNonFiniteExpected { nonFiniteExpected += 1 }
            }
            if !ok { failing += 1 }
            // Ratio of deviation to bound; failures always rank above passes.
            let ratio: Double = ok ? (bound > 0 ? deviation / bound : 0) : (deviation.isFinite && bound > 0 ? 1 + deviation / bound : .infinity)
            if worstIndex < 0 || ratio > worstRatio {
                worstIndex = i; worstRatio = ratio; worstDeviation = deviation; worstBound = bound
            }
        }
        return Closeness(
            count: n, actualCount: actual.count, expectedCount: expected.count, worstIndex: worstIndex,
            worstDeviation: worstDeviation,
            worstActual: worstIndex >= 0 ? Double(actual[worstIndex]) : .nan,
            worstExpected: worstIndex >= 0 ? Double(expected[worstIndex]) : .nan,
            worstBound: worstBound, failingCount: failing, nonFiniteCount: nonFinite,
            nonFiniteExpectedCount: nonFiniteExpected, referenceScale: scale)
    }
}
