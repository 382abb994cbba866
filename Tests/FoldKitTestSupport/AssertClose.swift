import XCTest

/// Asserts that `actual` matches `expected` element by element: `|a - e| <= atol + rtol * |e| +
/// scaledTolerance * max|expected|`. A NaN or infinity in `actual` or in `expected` fails (unless
/// `allowNonFiniteExpected`, then the two must hold the same value), and so does a count mismatch
/// (see `Closeness`). The failure message names `what`, the worst index
/// and both values there. Returns the comparison so a test can also look at the worst deviation.
@discardableResult
public func assertClose<A: BinaryFloatingPoint, E: BinaryFloatingPoint>(
    _ actual: [A], _ expected: [E], atol: Double = 0, rtol: Double = 0, scaledTolerance: Double = 0,
    allowNonFiniteExpected: Bool = false, _ what: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line
) -> Closeness {
    let result = Closeness.compare(
        actual, expected, atol: atol, rtol: rtol, scaledTolerance: scaledTolerance,
        allowNonFiniteExpected: allowNonFiniteExpected)
    if !result.passed {
        let label = what()
        XCTFail("\(label.isEmpty ? "" : label + ": ")\(result)", file: file, line: line)
    }
    return result
}
