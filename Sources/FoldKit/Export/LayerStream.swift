import FoldKitBlobFormat
import Foundation
import FoldKitCore

/// Converts one layer at a time: reads its tensors in file order (one `pread` each, the weights a few
/// output rows at a time straight into a buffer borrowed from the sink), folds batch norm with the fold
/// pass's `FoldPlan` and rearranges the weights in place (`WeightLayoutTransform`), and queues the blobs - large ones chunk by chunk - for writing and hashing on
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
        let prefix = SafeFileName.unique(BlobWriter.prefix(for: layer, format: network.format), index: layer.index, taken: &usedPrefixes)
        let blobs: [(role: TensorRole, suffix: String, payload: Payload, shape: [Int], layout: BlobLayout)]
        // The fold pass reads the bias and batch norm (file order: bias or beta, gamma, mean, variance,
        // then the weights) and checks their sizes; errors name the layer.
        if let plan = try FoldBatchNorm.plan(for: layer, reader: reader),
           let weights = layer.kind.parameters.first(where: { $0.role == .weights })?.tensor {
            let dims = BlobWriter.weightDims(of: layer, in: network) ?? []
            let depthwise = BlobWriter.isDepthwise(layer, in: network)
            let path = try folder.url(for: "\(prefix)_W.bin").path
            let storedShape = WeightLayoutTransform.shape(dims, in: layout, depthwise: depthwise)
            do {
                try writeWeights(weights, plan: plan, dims: dims, depthwise: depthwise, path: path, key: firstKey)
            } catch let error as FoldKitError {
                throw error.located(file: layer.source.file, layer: layer.label)
            }
            blobs = [(.weights, "W", .queued(count: storedShape.reduce(1, *)), storedShape,
                      layout.blobLayout(depthwise: depthwise)),
                     (.bias, "b", .values(plan.bias ?? [Float](repeating: 0, count: plan.outputs)), [plan.outputs], .vector)]
        } else {
            do {
                switch try FoldBatchNorm.fold(layer.kind) {
                case .channelAffine(let a):
                    blobs = [(.scale, "scale", .values(try a.scale.floats()), a.scale.shape, .vector),
                             (.shift, "shift", .values(try a.shift.floats()), a.shift.shape, .vector)]
                case .prelu(let alpha):
                    blobs = [(.alpha, "alpha", .values(try alpha.floats()), alpha.shape, alpha.shape.count == 1 ? .vector : .channelPlanes)]
                default:
                    return []
                }
            } catch let error as FoldKitError {
                throw error.located(file: layer.source.file, layer: layer.label)
            }
        }
        var tensors: [BlobEntry] = []
        for (offset, blob) in blobs.enumerated() {
            let fileName = "\(prefix)_\(blob.suffix).bin"
            if case .values(let values) = blob.payload {
                sink.write(values, to: try folder.url(for: fileName).path, key: firstKey + offset)
            }
            tensors.append(BlobEntry(
                name: "\(prefix)_\(blob.suffix)", layer: layer.index, role: blob.role, file: fileName, shape: blob.shape,
                layout: blob.layout.rawValue, dtype: BlobDType.float32.rawValue, byteCount: blob.payload.count * BlobDType.float32.size, sha256: ""))
        }
        return tensors
    }

    /// Queues the weights as blob `key` at `path`, a few whole output rows at a time: each chunk is read
    /// into a buffer borrowed from the sink, folded in place by `plan` (W'[o, ...] = Float(Double(W[o, ...])
    /// * s[o]), then rearranged from OIHW `dims` into `layout`. HWIO goes as one chunk (it interleaves rows);
    /// so does sliced, copied out of the buffer into its padded form (`depthwise` picks the form).
    private func writeWeights(_ weights: WeightTensor, plan: FoldPlan, dims: [Int], depthwise: Bool, path: String, key: Int) throws {
        _ = try WeightLayoutTransform.checkedDims(dims, count: weights.count)
        if case .values(let values) = weights.storage { _ = try WeightLayoutTransform.checkedDims(dims, count: values.count) }
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
                switch weights.storage {
                case .file(let span):
                    try reader.read(FileSpan(path: span.path, byteOffset: span.byteOffset + first * row * 4, count: destination.count), into: destination)
                case .values(let values):
                    _ = destination.update(fromContentsOf: values[(first * row)..<(end * row)])
                }
                try plan.foldRows(destination, firstRow: first, rowLength: row)
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
