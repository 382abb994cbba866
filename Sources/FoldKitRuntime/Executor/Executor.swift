import FoldKitCore
import Foundation

/// Runs a `Network` on the CPU in `Scalar` precision: `Executor<Double>` is the float64 reference for an
/// original (unfolded) network, `Executor<Float>` runs a folded network as a device would, and
/// `ExecutorOptions.float16Storage` adds MPSImage half-texture rounding.
///
/// Works on folded and unfolded networks alike: a convolution or connected layer with a batch norm
/// applies it after the bias and before the activation, with the layer's `EpsilonConvention`, in
/// `Scalar` precision. Every `LayerKind` is supported; see the kernel files beside this one for the
/// exact formulas. Convolutions and connected layers go through cblas GEMM, threaded as
/// `ExecutorOptions.productThreading` says.
public final class Executor<Scalar: ExecutorScalar> {
    /// The network run.
    public let network: Network
    /// How it is run.
    public let options: ExecutorOptions

    package enum Step {
        /// Output is the input array itself (identity, detection heads, dropout, a route to one whole layer).
        case passThrough
        case kernel(any LayerKernel<Scalar>)
    }

    /// One prepared step per layer; nil for every layer when parameters are streamed (prepared in `run`).
    let steps: [Step?]
    /// The largest scratch any prepared kernel takes (0 with `streamParameters`: each layer's own is
    /// allocated while it runs).
    let scratchCount: Int
    /// For each layer, the index of the last layer that reads its output (or the layer itself): `OutputLiveness`.
    let lastReader: [Int]
    /// The scratch buffer of the previous `run`, kept so that the next run does not fault its pages in again
    /// (tens of MB for im2col and Winograd). A run takes it under the lock; concurrent runs allocate their own.
    /// Not kept with `streamParameters` (meant for a single pass in bounded memory).
    private let scratchLock = NSLock()
    private var cachedScratch: UnsafeMutableBufferPointer<Scalar>?

    deinit {
        cachedScratch?.deallocate()
    }

    func takeScratch(_ count: Int) -> UnsafeMutableBufferPointer<Scalar> {
        scratchLock.lock()
        let cached = cachedScratch
        cachedScratch = nil
        scratchLock.unlock()
        if let cached {
            if cached.count >= count { return cached }
            cached.deallocate()
        }
        return .allocate(capacity: count)
    }

    func returnScratch(_ buffer: UnsafeMutableBufferPointer<Scalar>) {
        if options.streamParameters {
            buffer.deallocate()
            return
        }
        scratchLock.lock()
        let previous = cachedScratch
        cachedScratch = buffer
        scratchLock.unlock()
        previous?.deallocate()
    }

    /// Reads all parameters once (file-backed tensors are read here) and converts them to `Scalar`, unless
    /// `options.streamParameters` defers that to `run`, layer by layer.
    /// Throws a `FoldKitError` naming the layer when a parameter tensor has the wrong size or a
    /// geometry cannot be run.
    public init(network: Network, options: ExecutorOptions = .init()) throws {
        if options.float16Storage && !HalfPrecision.isAvailable {
            throw FoldKitError(.unsupported, "float16 storage emulation needs Swift's Float16, which this platform (Intel macOS) lacks")
        }
        self.network = network
        self.options = options
        var steps: [Step?] = []
        steps.reserveCapacity(network.layers.count)
        for layer in network.layers {
            if options.streamParameters {
                // Checked now; the kernel (and its scratch, `ExecutorPass`) is made layer by layer in `run`.
                _ = try Executor.checkedInputShapes(layer, in: network)
                steps.append(nil)
            } else {
                steps.append(try Executor.prepare(layer, in: network, options: options))
            }
        }
        self.steps = steps
        self.lastReader = OutputLiveness(network).lastReader
        self.scratchCount = steps.reduce(0) { count, step in
            if case .kernel(let kernel)? = step { return max(count, kernel.scratchCount) }
            return count
        }
    }

    /// The shapes of `layer`'s inputs, after checking that its inputs come before it and that its output
    /// shape follows from them (the kernels index buffers by these shapes: a hand-built Network is not trusted).
    private static func checkedInputShapes(_ layer: Layer, in network: Network) throws -> [ActivationShape] {
        for input in layer.inputs where input != Network.inputIndex && !(0..<layer.index).contains(input) {
            throw FoldKitError(
                .badInput, "input refers to layer \(input), which does not come before this one",
                file: layer.source.file, line: layer.source.line, layer: layer.label)
        }
        let inputShapes = layer.inputs.map { network.shape(of: $0) }
        guard !inputShapes.isEmpty else {
            throw FoldKitError(.badInput, "layer has no input", file: layer.source.file, line: layer.source.line, layer: layer.label)
        }
        let output = layer.outputShape
        let inferred: ActivationShape
        do {
            inferred = try layer.kind.outputShape(for: inputShapes)
        } catch let error as FoldKitError {
            throw error.located(file: layer.source.file, line: layer.source.line, layer: layer.label)
        }
        guard inferred == output else {
            throw FoldKitError(
                .badInput, "layer output shape does not follow from its inputs", file: layer.source.file,
                line: layer.source.line, layer: layer.label, expected: "\(inferred)", found: "\(output)")
        }
        return inputShapes
    }

    /// Scratch elements `layer` takes while it runs (`MemoryPlan`), known from the shapes before any
    /// parameter is read: the kernels that need scratch say how much.
    static func scratchElements(_ layer: Layer, network: Network, options: ExecutorOptions) -> Int {
        guard let first = layer.inputs.first else { return 0 }
        let input = network.shape(of: first)
        switch layer.kind {
        case .convolution(let c):
            let geometry = ConvolutionGeometry(c, input: input, output: layer.outputShape)
            let path = ConvolutionKernel<Scalar>.path(for: c, geometry: geometry)
            return ConvolutionKernel<Scalar>.scratchCount(path: path, geometry: geometry, options: options)
        case .transposedConvolution(let t):
            return TransposedConvolutionKernel<Scalar>.scratchCount(
                outputChannels: t.outputChannels, kernelHeight: t.kernelHeight, kernelWidth: t.kernelWidth, input: input)
        case .layerNormalization: return LayerNormalizationKernel<Scalar>.scratchCount(shape: input)
        default: return 0
        }
    }

    package static func prepare(_ layer: Layer, in network: Network, options: ExecutorOptions) throws -> Step {
        let inputShapes = try checkedInputShapes(layer, in: network)
        let first = inputShapes[0]
        let output = layer.outputShape
        let kernel: any LayerKernel<Scalar>
        switch layer.kind {
        case .identity, .detection:
            return .passThrough
        case .convolution(let c):
            kernel = try ConvolutionKernel<Scalar>(c, input: first, output: output, layer: layer, options: options)
        case .transposedConvolution(let t):
            kernel = try TransposedConvolutionKernel<Scalar>(t, input: first, output: output, layer: layer, options: options)
        case .fullyConnected(let f):
            kernel = try FullyConnectedKernel<Scalar>(f, layer: layer, options: options)
        case .locallyConnected(let l):
            kernel = try LocallyConnectedKernel<Scalar>(l, input: first, layer: layer, options: options)
        case .pooling(let p):
            kernel = PoolingKernel<Scalar>(pooling: p, input: first, output: output)
        case .globalAveragePool:
            kernel = GlobalPoolingKernel<Scalar>(reduction: .average, input: first)
        case .globalMaxPool:
            kernel = GlobalPoolingKernel<Scalar>(reduction: .max, input: first)
        case .activation(let a):
            kernel = ActivationKernel<Scalar>(activation: a)
        case .prelu(let alpha):
            kernel = try PReLUKernel<Scalar>(alpha: alpha, shape: first, layer: layer, options: options)
        case .softmax(let axis):
            if case .flattened(let groups, _) = axis, groups < 1 || first.count % groups != 0 {
                throw FoldKitError(
                    .badInput, "softmax groups must divide the input size", file: layer.source.file,
                    line: layer.source.line, layer: layer.label, expected: "a divisor of \(first.count)", found: "groups=\(groups)")
            }
            kernel = SoftmaxKernel<Scalar>(axis: axis, shape: first)
        case .batchNorm(let bn):
            kernel = BatchNormKernel<Scalar>(batchNorm: try PreparedBatchNorm(bn, channels: first.channels, layer: layer), shape: first)
        case .channelAffine(let a):
            kernel = try ChannelAffineKernel<Scalar>(a, shape: first, layer: layer, options: options)
        case .layerNormalization(let n):
            kernel = try LayerNormalizationKernel<Scalar>(n, shape: first, layer: layer, options: options)
        case .groupNormalization(let n):
            kernel = try GroupNormalizationKernel<Scalar>(n, shape: first, layer: layer, options: options)
        case .concatenation(let r) where r.groups == 1 && layer.inputs.count == 1:
            // A route to one whole layer is that layer's output.
            return .passThrough
        case .concatenation(let r):
            kernel = ConcatenationKernel<Scalar>(concatenation: r, inputShapes: inputShapes)
        case .sum(let s):
            kernel = try SumKernel<Scalar>(inputShapes: inputShapes, activation: s.activation, layer: layer)
        case .product:
            guard inputShapes.count == 2 else {
                throw FoldKitError(
                    .badInput, "product needs two inputs", file: layer.source.file, line: layer.source.line,
                    layer: layer.label, expected: "2", found: "\(inputShapes.count)")
            }
            kernel = ProductKernel<Scalar>(first: inputShapes[0], second: inputShapes[1])
        case .merge(let m):
            kernel = MergeKernel<Scalar>(operation: m.operation, inputShapes: inputShapes, output: output)
        case .upsample(let u):
            switch u.interpolation {
            case .nearest: kernel = UpsampleKernel<Scalar>(upsample: u, input: first)
            case .bilinear: kernel = BilinearUpsampleKernel<Scalar>(upsample: u, input: first, output: output)
            }
        case .reorg(let r):
            kernel = try ReorgKernel<Scalar>(r, input: first, layer: layer)
        case .reshape(let r):
            kernel = ReshapeKernel<Scalar>(input: first, target: r.target, order: r.order)
        case .zeroPad(let p):
            kernel = PadCropKernel<Scalar>(mode: .pad, edges: p, input: first, output: output)
        case .crop(let p, let scale, let shift):
            kernel = PadCropKernel<Scalar>(mode: .crop(scale: Scalar(scale), shift: Scalar(shift)), edges: p, input: first, output: output)
        case .channelRange(let r):
            kernel = ChannelRangeKernel<Scalar>(offset: r.offset, input: first, output: output)
        }
        return .kernel(kernel)
    }

    /// Runs the network on `input` (channel-major C*H*W of `network.inputShape`) and returns one array per
    /// layer, indexed by layer index. With `.outputsOnly`, arrays of layers not in
    /// `network.outputIndices` are empty (each is freed once its last reader has run).
    ///
    /// `observe(index, output)`, when given, is called with every layer's output as soon as the layer has
    /// run: a caller can inspect every layer while keeping only `.outputsOnly`.
    public func run(
        input: [Scalar], retention: OutputRetention = .all, observe: ((Int, [Scalar]) throws -> Void)? = nil
    ) throws -> [[Scalar]] {
        let pass = try start(input: input, retention: retention)
        while let (index, output) = try pass.next() {
            try observe?(index, output)
        }
        return pass.outputs
    }

    /// Starts a run that computes one layer per `ExecutorPass.next()`, so that several passes can advance
    /// in lockstep (see `ExecutorPass`). `retention` as for `run`.
    public func start(input: [Scalar], retention: OutputRetention = .all) throws -> ExecutorPass<Scalar> {
        try ExecutorPass(executor: self, input: input, retention: retention)
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func roundToHalf(_ values: inout [Scalar]) {
        values.withUnsafeMutableBufferPointer { buffer in
            Parallel.forRanges(buffer.count, totalWork: buffer.count) { range in
                for i in range { buffer[i] = buffer[i].roundedToHalf() }
            }
        }
    }
}
