import FoldKitBlobFormat
import FoldKitBlobNetwork
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
        var blobs: [(role: TensorRole, suffix: String, payload: Payload, shape: [Int], layout: BlobLayout)] = []
        do {
            guard layer.kind.operation.isFolded else { throw Self.unfolded }
            for (offset, plan) in network.blobPlans(of: layer).enumerated() {
                switch plan.form {
                case .weights(let dims, let depthwise):
                    guard let weights = plan.tensor else { throw FoldKitError(.badInput, "the layer has no weights") }
                    let storedShape = WeightLayoutTransform.shape(dims, in: layout, depthwise: depthwise)
                    try writeWeights(
                        weights, dims: dims, depthwise: depthwise, path: try folder.url(for: "\(prefix)_\(plan.suffix).bin").path,
                        key: firstKey + offset)
                    blobs.append(
                        (plan.role, plan.suffix, .queued(count: storedShape.reduce(1, *)), storedShape, layout.blobLayout(depthwise: depthwise)))
                case .vector(let shape):
                    blobs.append((plan.role, plan.suffix, .values(try values(of: plan, in: layer)), shape, .vector))
                case .planes(let shape):
                    blobs.append((plan.role, plan.suffix, .values(try values(of: plan, in: layer)), shape, .channelPlanes))
                }
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
                    layout: blob.layout, dtype: sink.dtype, byteCount: blob.payload.count * sink.dtype.size,
                    sha256: ""))
        }
        return tensors
    }

    /// The values of a small blob: its tensor's (which must hold `plan.count` values), or `plan.fill`
    /// repeated when the operation has none (a missing bias is zeros, a missing layer-norm gamma ones).
    private func values(of plan: BlobTensorPlan, in layer: Layer) throws -> [Float] {
        guard let tensor = plan.tensor else { return [Float](repeating: plan.fill, count: plan.count) }
        let values = try reader.floats(tensor)
        guard values.count == plan.count else {
            throw FoldKitError(
                .badInput, "\(layer.kind.operation.parameterName(plan.role)) does not match the layer's outputs", expected: "\(plan.count)",
                found: "\(values.count)")
        }
        return values
    }

    /// A layer that still holds a batch norm: the writer takes the fold pass's result.
    private static let unfolded = FoldKitError(.usage, "the layer still has a batch norm: BlobWriter writes a folded network (FoldBatchNorm.apply)")

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
