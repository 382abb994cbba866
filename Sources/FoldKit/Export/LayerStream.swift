import FoldKitBlobFormat
import FoldKitCore
import Foundation

/// Writes one layer of a folded network at a time: reads its tensors (the weights a few output rows at a
/// time, one `pread` each, straight into a buffer borrowed from the sink; a folded tensor's rows are scaled
/// as they are read, `WeightTensor.Storage.scaledFile`), rearranges the weights in place
/// (`WeightLayoutTransform`), and queues the blobs - large ones chunk by chunk - for writing and hashing on
/// the sink's queues. Chunks of about `chunkBytes` stay in cache from the read to the write and hash.
final class LayerStream {
    let network: Network
    let folder: AtomicOutputDirectory
    let layout: WeightLayout
    let sink: BlobFileSink
    let reader: FloatSpanReader
    let chunkBytes: Int

    init(network: Network, folder: AtomicOutputDirectory, layout: WeightLayout, sink: BlobFileSink, reader: FloatSpanReader, chunkBytes: Int) {
        self.network = network
        self.folder = folder
        self.layout = layout
        self.sink = sink
        self.reader = reader
        self.chunkBytes = chunkBytes
    }

    /// A blob of the layer: either already queued on the sink (the weights) or a small array to queue.
    private enum Payload {
        case queued(count: Int)
        case values([Float])
        var count: Int {
            switch self {
            case .queued(let count): return count
            case .values(let v): return v.count
            }
        }
    }

    func writeLayer(_ layer: Layer, firstKey: Int, usedPrefixes: inout Set<String>) throws -> [BlobEntry] {
        // `usedPrefixes` holds lowercase prefixes: names differing only by case must not share files.
        let prefix = SafeFileName.unique(BlobWriter.prefix(for: layer, identity: network.layerIdentity), index: layer.index, taken: &usedPrefixes)
        let blobs: [(role: TensorRole, suffix: String, payload: Payload, shape: [Int], layout: BlobLayout)]
        do {
            switch layer.kind {
            case .convolution(let c):
                guard c.batchNorm == nil else { throw Self.unfolded }
                blobs = try weightAndBias(layer, weights: c.weights, bias: c.bias, outputs: c.outputChannels, prefix: prefix, key: firstKey)
            case .transposedConvolution(let t):
                blobs = try weightAndBias(layer, weights: t.weights, bias: t.bias, outputs: t.outputChannels, prefix: prefix, key: firstKey)
            case .fullyConnected(let f):
                guard f.batchNorm == nil else { throw Self.unfolded }
                blobs = try weightAndBias(layer, weights: f.weights, bias: f.bias, outputs: f.outputCount, prefix: prefix, key: firstKey)
            case .locallyConnected(let l):
                // The bias is one value per output element, written [O, H, W] channel-major.
                var pair = try weightAndBias(
                    layer, weights: l.weights, bias: l.bias, outputs: l.outputChannels * l.locations, prefix: prefix, key: firstKey)
                pair[1].shape = [l.outputChannels, l.outputHeight, l.outputWidth]
                pair[1].layout = .channelPlanes
                blobs = pair
            case .channelAffine(let a):
                blobs = [
                    (.scale, "scale", .values(try reader.floats(a.scale)), a.scale.shape, .vector),
                    (.shift, "shift", .values(try reader.floats(a.shift)), a.shift.shape, .vector),
                ]
            case .prelu(let alpha):
                blobs = [(.alpha, "alpha", .values(try reader.floats(alpha)), alpha.shape, alpha.shape.count == 1 ? .vector : .channelPlanes)]
            case .layerNormalization(let n):
                let channels = layer.outputShape.channels
                blobs = [
                    (.gamma, "gamma", .values(try vector(n.gamma, channels: channels, absent: 1, name: "gamma")), [channels], .vector),
                    (.beta, "beta", .values(try vector(n.beta, channels: channels, absent: 0, name: "beta")), [channels], .vector),
                ]
            case .batchNorm:
                throw Self.unfolded
            default:
                return []
            }
        } catch let error as FoldKitError {
            throw error.located(file: layer.source.file, layer: layer.label)
        }
        var tensors: [BlobEntry] = []
        for (offset, blob) in blobs.enumerated() {
            let fileName = "\(prefix)_\(blob.suffix).bin"
            if case .values(let values) = blob.payload {
                sink.write(values, to: try folder.url(for: fileName).path, key: firstKey + offset)
            }
            tensors.append(
                BlobEntry(
                    name: "\(prefix)_\(blob.suffix)", layer: layer.index, role: blob.role, file: fileName, shape: blob.shape,
                    layout: blob.layout.rawValue, dtype: sink.dtype.rawValue, byteCount: blob.payload.count * sink.dtype.size,
                    sha256: ""))
        }
        return tensors
    }

    /// A per-channel vector of a layer with `channels` channels, `absent` repeated when the layer has none.
    private func vector(_ tensor: WeightTensor?, channels: Int, absent: Float, name: String) throws -> [Float] {
        guard let tensor else { return [Float](repeating: absent, count: channels) }
        let values = try reader.floats(tensor)
        guard values.count == channels else {
            throw FoldKitError(.badInput, "\(name) does not match the layer's channels", expected: "\(channels)", found: "\(values.count)")
        }
        return values
    }

    /// A layer that still holds a batch norm: the writer takes the fold pass's result.
    private static let unfolded = FoldKitError(.usage, "the layer still has a batch norm: BlobWriter writes a folded network (FoldBatchNorm.apply)")

    /// The weights blob (queued on the sink as blob `key`) and the bias blob (zeros when the layer has none)
    /// of a convolution, transposed convolution, fully connected or locally connected layer with `outputs`
    /// bias values.
    private func weightAndBias(
        _ layer: Layer, weights: WeightTensor, bias: WeightTensor?, outputs: Int, prefix: String, key: Int
    ) throws -> [(role: TensorRole, suffix: String, payload: Payload, shape: [Int], layout: BlobLayout)] {
        let biasValues = try bias.map(reader.floats) ?? [Float](repeating: 0, count: outputs)
        guard biasValues.count == outputs else {
            throw FoldKitError(.badInput, "bias does not match the layer's outputs", expected: "\(outputs)", found: "\(biasValues.count)")
        }
        let dims = BlobWriter.weightDims(of: layer, in: network) ?? []
        let depthwise = BlobWriter.isDepthwise(layer, in: network)
        let storedShape = WeightLayoutTransform.shape(dims, in: layout, depthwise: depthwise)
        try writeWeights(weights, dims: dims, depthwise: depthwise, path: try folder.url(for: "\(prefix)_W.bin").path, key: key)
        return [
            (.weights, "W", .queued(count: storedShape.reduce(1, *)), storedShape, layout.blobLayout(depthwise: depthwise)),
            (.bias, "b", .values(biasValues), [outputs], .vector),
        ]
    }

    /// Queues the weights as blob `key` at `path`, a few whole output rows at a time: each chunk is read
    /// into a buffer borrowed from the sink (`FloatSpanReader.readRows`, which scales a folded tensor's rows),
    /// then rearranged from OIHW `dims` into `layout`. HWIO goes as one chunk (it interleaves rows); so does
    /// sliced, copied out of the buffer into its padded form (`depthwise` picks the form).
    private func writeWeights(_ weights: WeightTensor, dims: [Int], depthwise: Bool, path: String, key: Int) throws {
        _ = try WeightLayoutTransform.checkedDims(dims, count: weights.count)
        if case .values(let values) = weights.storage { _ = try WeightLayoutTransform.checkedDims(dims, count: values.count) }
        if let span = weights.fileSpan { _ = try WeightLayoutTransform.checkedDims(dims, count: span.count) }
        let expected = dims.reduce(1, *)
        let rows = dims.first ?? 0
        let row = rows > 0 ? expected / rows : 0
        let rowsPerChunk = WeightLayoutTransform.isRowLocal(layout) && row > 0 ? max(1, chunkBytes / (row * 4)) : max(rows, 1)
        var first = 0
        repeat {
            let end = min(rows, first + rowsPerChunk)
            var chunkDims = dims
            if !chunkDims.isEmpty { chunkDims[0] = end - first }
            let destination = try sink.borrow(count: (end - first) * row)
            do {
                try reader.readRows(of: weights, firstRow: first, rowLength: row, into: destination)
                if layout == .sliced {
                    let sliced = try WeightLayoutTransform.sliced(fromOIHW: UnsafeBufferPointer(destination), dims: chunkDims, depthwise: depthwise)
                    sink.giveBack(destination)
                    sink.write(sliced, to: path, key: key)
                    return
                }
                try WeightLayoutTransform.rearrange(inPlace: destination, dims: chunkDims, to: layout)
            } catch {
                sink.giveBack(destination)
                throw error
            }
            sink.append(borrowed: destination, to: path, key: key, last: end == rows)
            first = end
        } while first < rows
    }
}
