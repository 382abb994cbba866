import XCTest

@testable import FoldKitCore

/// `BatchNorm.affine()`: scale = gamma / sqrt(var + eps), shift = beta - mean * scale in float64, and an
/// error (not a read past the end) when its tensors do not all hold `channels` values.
final class BatchNormAffineTests: XCTestCase {
    private func tensor(_ values: [Float]) -> WeightTensor { WeightTensor(shape: [values.count], values: values) }

    func testScaleAndShift() throws {
        let bn = BatchNorm(
            gamma: tensor([2, 1]), beta: tensor([0.5, -1]), mean: tensor([1, 3]), variance: tensor([4, 0.25]),
            convention: EpsilonConvention(epsilon: 0, placement: .insideSqrt))
        let (scale, shift) = try bn.affine()
        XCTAssertEqual(scale, [1, 2])
        XCTAssertEqual(shift, [-0.5, -7])
    }

    func testTensorsShorterThanTheChannelsAreAnError() {
        let three = tensor([1, 2, 3]), two = tensor([1, 2])
        for (bn, name) in [
            (BatchNorm(gamma: two, beta: three, mean: three, variance: three, convention: .darknet), "gamma"),
            (BatchNorm(gamma: nil, beta: two, mean: three, variance: three, convention: .darknet), "beta"),
            (BatchNorm(gamma: nil, beta: nil, mean: three, variance: two, convention: .darknet), "variance"),
        ] {
            XCTAssertThrowsError(try bn.affine()) { XCTAssertEqual(($0 as? FoldKitError)?.found, "2 (\(name))") }
        }
    }
}
