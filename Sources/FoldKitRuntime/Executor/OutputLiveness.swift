import FoldKitCore

/// How long each layer's output is needed when a network runs in layer order: the last layer that reads it.
///
/// Every layer listed in another layer's `inputs` counts as a reader: the next layer in a chain, Darknet's
/// `[route]` and `[shortcut]` (`concatenation`, `sum`), `[yolo]`/`[region]` heads (`detection`, which pass
/// their input through), Keras merge layers. For layer i:
///
///     lastReader[i] = max({ j : i in layers[j].inputs } ∪ { i })
///
/// so `lastReader[i] == i` means no later layer reads the output. Running layer j, then releasing every
/// output in `released(after: j)`, holds at any time only outputs some layer still to run reads (plus the
/// one just computed). The network's own outputs (`Network.outputIndices`) are not treated specially:
/// a caller that must keep them keeps them itself.
///
/// Input indices outside `0..<layers.count` (`Network.inputIndex`, or a malformed hand-built network) and
/// inputs that do not come before their reader are ignored here; `Executor` reports those as errors.
struct OutputLiveness: Sendable {
    /// For each layer, the index of the last layer that reads its output (or the layer itself).
    let lastReader: [Int]
    /// For each layer j, the layers whose last reader is j, in increasing order (j itself when nothing
    /// reads its output): the outputs that can be released once j has run.
    private let releasedAfter: [[Int]]

    init(_ network: Network) {
        let count = network.layers.count
        var lastReader = Array(0..<count)
        for layer in network.layers {
            for input in layer.inputs where (0..<layer.index).contains(input) && input < count {
                lastReader[input] = max(lastReader[input], layer.index)
            }
        }
        var releasedAfter = [[Int]](repeating: [], count: count)
        for (index, reader) in lastReader.enumerated() {
            releasedAfter[reader].append(index)
        }
        self.lastReader = lastReader
        self.releasedAfter = releasedAfter
    }

    /// The outputs no layer after `index` reads: those whose last reader is `index` (including `index`'s
    /// own output when nothing reads it). Empty for an index outside the network.
    func released(after index: Int) -> [Int] {
        releasedAfter.indices.contains(index) ? releasedAfter[index] : []
    }

    /// The largest number of outputs held at once when every output is released right after its last
    /// reader has run: the count just after layer j has run, before the release, maximised over j.
    var peakLiveCount: Int {
        var live = 0, peak = 0
        for index in releasedAfter.indices {
            live += 1
            peak = max(peak, live)
            live -= releasedAfter[index].count
        }
        return peak
    }
}
