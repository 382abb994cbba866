/// Bounds on sizes read from model files, checked before anything is allocated from them
/// (Docs/Security.md, "What is checked"). A file may declare any number; these keep a hostile or
/// broken one from overflowing `Int` or reserving memory no real model needs.
package enum SizeLimits {
    /// Largest activation tensor (values of one layer's output): 2^31, 8 GiB as float32, beyond
    /// every real network yet far below where C x H x W overflows.
    package static let maximumActivationElements = 1 << 31

    /// Largest number of parameter values a reader fills in memory without a weights file behind
    /// them (Darknet `inspect model.cfg` zero-fills): 2^28, 1 GiB as float32 (yolov4 has 6.4e7).
    package static let maximumZeroFilledWeightElements = 1 << 28

    /// The most anchors (`num=`) a [yolo] or [region] head may declare: darknet allocates num * 2 floats
    /// for them before anything else checks `num`, and so would a reader that follows it.
    package static let maximumAnchors = 1 << 16

    /// The product of `dimensions`, or nil when one is negative or the product overflows `Int`.
    package static func elementCount(_ dimensions: [Int]) -> Int? {
        var product = 1
        for dimension in dimensions {
            guard dimension >= 0 else { return nil }
            let (next, overflow) = product.multipliedReportingOverflow(by: dimension)
            if overflow { return nil }
            product = next
        }
        return product
    }

    /// Throws unless `shape` has at most `maximumActivationElements` values.
    package static func checkActivation(_ shape: ActivationShape, file: String?, line: Int?, layer: String?) throws {
        let count = elementCount([shape.channels, shape.height, shape.width])
        guard let count, count <= maximumActivationElements else {
            throw FoldKitError(
                .badInput, "activation \(shape) is larger than any network FoldKit runs", file: file, line: line, layer: layer,
                expected: "at most \(maximumActivationElements) values (2^31)", found: count.map { "\($0) values" } ?? "more than Int holds")
        }
    }
}
