import FoldKitCore

/// The ncnn graph under construction: layers in execution order, each with its param values and weight
/// buffers (read when model.bin is written). The lowering of each operation (`NCNNGraphBuilder+<Family>.swift`)
/// appends layers through `op` and `layer`, weights through `weights` and `constants`.
///
/// Blobs are the activations between layers, each `[C, H, W]` (ncnn's three-dimensional Mat: w, h, c) unless
/// a lowering says otherwise inside itself. Names: a blob a layer makes is `<scope>/<hint>_<n>` with `scope`
/// the FoldKit layer's (`layer_007`), renamed to `layer_007` (or the output's name) once it is the layer's
/// result. A blob read by several layers gets its `Split` when the file is written (`NCNNParamFile`).
struct NCNNGraphBuilder {
    /// The weight type.
    let options: NCNNExportOptions
    /// The layers, in execution order.
    private(set) var layers: [NCNNLayer] = []
    /// The prefix of the names made now: the layer being lowered.
    var scope = "graph"
    /// The layer being lowered, as errors name it.
    var layerLabel: String?
    /// The file the layer came from, as errors name it.
    var layerFile: String?
    private var counter = 0

    init(options: NCNNExportOptions) {
        self.options = options
    }

    /// A name not handed out before: `<scope>/<hint>_<n>`.
    mutating func fresh(_ hint: String) -> String {
        counter += 1
        return "\(scope)/\(hint)_\(counter)"
    }

    /// Appends a layer of `type` reading `bottoms` and returns its `tops` output blobs (fresh names).
    @discardableResult
    mutating func layer(_ type: String, _ bottoms: [String], _ params: [(Int, NCNNParam)] = [], weights: [NCNNWeight] = [], tops: Int = 1)
        -> [String]
    {
        let names = (0..<tops).map { _ in fresh(type) }
        layers.append(NCNNLayer(type: type, bottoms: bottoms, tops: names, params: params.map { (id: $0.0, value: $0.1) }, weights: weights))
        return names
    }

    /// Appends a layer with one output and returns that blob.
    mutating func op(_ type: String, _ bottoms: [String], _ params: [(Int, NCNNParam)] = [], weights: [NCNNWeight] = []) -> String {
        layer(type, bottoms, params, weights: weights)[0]
    }

    /// Appends a layer writing exactly `top` (the network input, an output's alias).
    mutating func op(_ type: String, _ bottoms: [String], top: String, _ params: [(Int, NCNNParam)] = []) {
        layers.append(NCNNLayer(type: type, bottoms: bottoms, tops: [top], params: params.map { (id: $0.0, value: $0.1) }))
    }

    /// The number of layers so far (where the layer being lowered starts).
    var count: Int { layers.count }

    /// Renames `blob` to `name` when a layer from `start` on made it (the result of the layer being
    /// lowered), and returns the name the blob has now; a blob made before (a pass-through) keeps its name.
    mutating func settle(_ blob: String, as name: String, since start: Int) -> String {
        guard layers[start...].contains(where: { $0.tops.contains(blob) }) else { return blob }
        for i in start..<layers.count {
            layers[i].tops = layers[i].tops.map { $0 == blob ? name : $0 }
            layers[i].bottoms = layers[i].bottoms.map { $0 == blob ? name : $0 }
        }
        return name
    }

    /// A weight tensor of the layer as a buffer of `count` values (read when the model is written);
    /// `rearrange` (if given) maps the values as read to the order ncnn reads them.
    func weights(
        _ tensor: WeightTensor, count: Int, hint: String, storage: NCNNWeight.Storage, rearrange: (@Sendable ([Float]) -> [Float])? = nil
    ) throws -> NCNNWeight {
        guard tensor.count == count else {
            throw FoldKitError(
                .badInput, "\(hint) tensor does not have the size the layer needs", file: layerFile, layer: layerLabel,
                expected: "\(count) values", found: "\(tensor.count)")
        }
        return NCNNWeight(storage: storage, count: count, hint: hint, layer: layerLabel, file: layerFile) {
            let values = try tensor.floats()
            return rearrange?(values) ?? values
        }
    }

    /// A buffer of values the lowering computed.
    func constants(_ values: [Float], hint: String, storage: NCNNWeight.Storage) -> NCNNWeight {
        NCNNWeight(storage: storage, count: values.count, hint: hint, layer: layerLabel, file: layerFile) { values }
    }

    /// A refusal of the layer being lowered: ncnn has no exact lowering for it.
    func refuse(_ reason: String) -> FoldKitError {
        FoldKitError(.unsupported, "no exact ncnn lowering: \(reason)", file: layerFile, layer: layerLabel)
    }
}
