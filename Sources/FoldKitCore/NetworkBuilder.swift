/// Builds a `Network` layer by layer, inferring each output shape and locating any error.
package struct NetworkBuilder {
    package private(set) var layers: [Layer] = []
    package let inputShape: ActivationShape

    package init(inputShape: ActivationShape) {
        self.inputShape = inputShape
    }

    /// Shape of the tensor produced by layer `index` (or the network input for `Network.inputIndex`).
    package func shape(of index: Int) -> ActivationShape {
        index == Network.inputIndex ? inputShape : layers[index].outputShape
    }

    /// Appends a layer reading `inputs`, returns its index. Errors carry the layer's file, label and line.
    @discardableResult
    package mutating func append(name: String? = nil, kind: LayerKind, inputs: [Int], source: LayerSource) throws -> Int {
        let index = layers.count
        let label = name.map { "layer \(index) '\($0)' (\(source.section))" } ?? "layer \(index) \(source.section)"
        for input in inputs where input != Network.inputIndex && !(0..<index).contains(input) {
            throw FoldKitError(
                .badInput, "input refers to layer \(input), which does not come before this one",
                file: source.file, line: source.line, layer: label)
        }
        let shape: ActivationShape
        do {
            shape = try kind.outputShape(for: inputs.map { self.shape(of: $0) })
        } catch let error as FoldKitError {
            throw error.located(file: source.file, line: source.line, layer: label, byteOffset: source.weightsByteRange?.lowerBound)
        }
        try SizeLimits.checkActivation(shape, file: source.file, line: source.line, layer: label)
        layers.append(Layer(index: index, name: name ?? String(index), kind: kind, inputs: inputs, outputShape: shape, source: source))
        return index
    }
}
