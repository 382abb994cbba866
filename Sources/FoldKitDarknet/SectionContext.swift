import FoldKitCore

/// Everything a section builder needs: the section, its layer index and label, the shapes built so
/// far, the weights cursor and the reader options.
struct SectionContext {
    let section: CfgSection
    let index: Int
    let builder: NetworkBuilder
    let cursor: WeightsCursor
    let options: DarknetReadOptions

    /// `layer 3 [convolutional]`
    var label: String { "layer \(index) \(section.header)" }
    /// The layer Darknet feeds into this one: the previous section, or the network input.
    var previous: Int { index == 0 ? Network.inputIndex : index - 1 }
    var inputShape: ActivationShape { builder.shape(of: previous) }

    func error(_ kind: FoldKitError.Kind, _ message: String, at option: CfgOption? = nil, expected: String? = nil, found: String? = nil)
        -> FoldKitError
    {
        FoldKitError(kind, message, file: section.file, line: option?.line ?? section.line, layer: label, expected: expected, found: found)
    }

    func int(_ key: String, default value: Int) throws -> Int {
        do { return try section.int(key, default: value) } catch let e as FoldKitError { throw e.relabelled(label) }
    }

    func float(_ key: String, default value: Float) throws -> Float {
        do { return try section.float(key, default: value) } catch let e as FoldKitError { throw e.relabelled(label) }
    }

    func intList(_ key: String) throws -> [Int]? {
        do { return try section.intList(key) } catch let e as FoldKitError { throw e.relabelled(label) }
    }

    func floatList(_ key: String) throws -> [Float]? {
        do { return try section.floatList(key) } catch let e as FoldKitError { throw e.relabelled(label) }
    }

    /// Refuses an option that changes the layer's maths when it is set to anything but `harmless`.
    func refuse(_ key: String, unless harmless: String = "0", because reason: String) throws {
        guard let option = section.option(key), option.value != harmless else { return }
        throw error(.unsupported, "\(key)=\(option.value) is not supported: \(reason)", at: option, expected: "\(key)=\(harmless) or absent")
    }

    /// A layer reference from `from=` / `layers=`: negative is relative to this layer, otherwise absolute.
    func resolve(_ reference: Int, option: CfgOption?) throws -> Int {
        let resolved = reference < 0 ? index + reference : reference
        guard resolved >= 0 && resolved < index else {
            throw error(
                .badInput, "layer reference \(reference) does not name an earlier layer", at: option,
                expected: "a layer in 0..<\(index) (or -1...-\(index))", found: "\(resolved)")
        }
        return resolved
    }

    func take(_ role: TensorRole, shape: [Int], fanIn: Int = 0) throws -> WeightTensor {
        do {
            return try cursor.take(role, shape: shape, fanIn: fanIn, layer: label)
        } catch let error as FoldKitError where error.file == nil {
            throw error.located(file: section.file, line: section.line)
        }
    }

    /// Darknet's batch-norm statistics after the layer's other tensors: scales (gamma), rolling mean,
    /// rolling variance, each `[n]`; `beta` is the layer's `biases` read earlier.
    func takeBatchNorm(channels n: Int, beta: WeightTensor) throws -> BatchNorm {
        let gamma = try take(.gamma, shape: [n])
        let mean = try take(.mean, shape: [n])
        let variance = try take(.variance, shape: [n])
        return BatchNorm(gamma: gamma, beta: beta, mean: mean, variance: variance, convention: options.epsilon)
    }
}
