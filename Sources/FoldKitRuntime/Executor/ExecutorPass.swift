import FoldKitCore

/// One run of an `Executor`'s network, one layer per `next()`.
///
/// Several passes (different networks or precisions over the same layer graph) can advance in lockstep:
/// layer i of each, then layer i + 1 of each. A caller comparing them holds, in every pass, only the
/// outputs later layers still read (with `.outputsOnly`) plus the outputs it is comparing, instead of
/// one pass's every output. `Executor.run` is a loop over `next()`.
public final class ExecutorPass<Scalar: ExecutorScalar> {
    private let executor: Executor<Scalar>
    private let retention: OutputRetention
    private let networkInput: [Scalar]
    private let keep: Set<Int>
    /// Per layer: the output while a later layer reads it (or always, with `.all` or for network outputs).
    private var held: [[Scalar]]
    /// The scratch buffer held for the whole run; nil with `ExecutorOptions.streamParameters`, where each
    /// layer takes its own for as long as it runs (`layerScratch`).
    private var scratch: UnsafeMutableBufferPointer<Scalar>?
    /// The layer the next call of `next()` computes.
    public private(set) var nextIndex = 0

    init(executor: Executor<Scalar>, input: [Scalar], retention: OutputRetention) throws {
        let network = executor.network
        guard input.count == network.inputShape.count else {
            throw FoldKitError(
                .usage, "input has the wrong number of values", file: network.sourceFiles.first,
                expected: "\(network.inputShape.count) (\(network.inputShape), channel-major)", found: "\(input.count)")
        }
        self.executor = executor
        self.retention = retention
        networkInput = executor.options.float16Storage ? input.map { $0.roundedToHalf() } : input
        keep = Set(network.outputIndices)
        held = [[Scalar]](repeating: [], count: network.layers.count)
        scratch = executor.options.streamParameters ? nil : executor.takeScratch(executor.scratchCount)
    }

    deinit {
        if let scratch { executor.returnScratch(scratch) }
    }

    /// Computes the next layer and returns its index and output (perturbed with
    /// `ExecutorOptions.perturbation`, then float16-rounded with `ExecutorOptions.float16Storage`); nil once every layer has run. Outputs no later layer reads are
    /// released here (with `.outputsOnly`); the returned array stays valid for as long as the caller keeps it.
    public func next() throws -> (index: Int, output: [Scalar])? {
        let network = executor.network
        let index = nextIndex
        guard index < network.layers.count else { return nil }
        let layer = network.layers[index]
        let inputs = layer.inputs.map { $0 == Network.inputIndex ? networkInput : held[$0] }
        // Streamed parameters: this layer's are read and converted now, and dropped with `step`.
        let step = try executor.steps[index] ?? Executor.prepare(layer, in: network, options: executor.options)
        let output: [Scalar]
        switch step {
        case .passThrough:
            output = inputs[0]
        case .kernel(let kernel):
            let workspace = layerScratch(kernel.scratchCount)
            defer { if executor.options.streamParameters { executor.returnScratch(workspace) } }
            let count = layer.outputShape.count
            var result = [Scalar](unsafeUninitializedCapacity: count) { values, initialized in
                kernel.forward(inputs, into: values, scratch: workspace)
                initialized = count
            }
            executor.options.perturbation?.apply(to: &result, layer: index)
            if executor.options.float16Storage { Executor.roundToHalf(&result) }
            output = result
        }
        held[index] = output
        if retention == .outputsOnly {
            for source in layer.inputs where source != Network.inputIndex && executor.lastReader[source] == index && !keep.contains(source) {
                held[source] = []
            }
            if executor.lastReader[index] == index && !keep.contains(index) { held[index] = [] }
        }
        nextIndex = index + 1
        if nextIndex == network.layers.count, let scratch {
            executor.returnScratch(scratch)
            self.scratch = nil
        }
        return (index, output)
    }

    /// How many layer outputs the pass holds now: with `.outputsOnly`, those a later layer still reads
    /// plus the network's outputs computed so far (the memory bound of a streaming caller).
    package var heldOutputCount: Int { held.reduce(0) { $0 + ($1.isEmpty ? 0 : 1) } }

    /// Scratch memory of at least `count` elements for one layer. With `ExecutorOptions.streamParameters`
    /// a buffer of its own, which the caller returns (freeing it) once the layer has run: several passes
    /// advancing in lockstep then hold one layer's scratch at a time between them, not each its largest for
    /// the whole run. Otherwise the run's buffer, grown when a layer needs more.
    private func layerScratch(_ count: Int) -> UnsafeMutableBufferPointer<Scalar> {
        if executor.options.streamParameters { return executor.takeScratch(count) }
        if let scratch, scratch.count >= count { return scratch }
        scratch?.deallocate()
        let grown = UnsafeMutableBufferPointer<Scalar>.allocate(capacity: count)
        scratch = grown
        return grown
    }

    /// One array per layer, as `Executor.run` returns them: with `.outputsOnly`, only the network's
    /// outputs are filled. Complete once `next()` has returned nil.
    public var outputs: [[Scalar]] {
        retention == .outputsOnly ? held.indices.map { keep.contains($0) ? held[$0] : [] } : held
    }
}
