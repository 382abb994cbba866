import FoldKitCore

/// Fully connected: out[o] = activation(batchNorm(sum_i W[o, i] * in[i] + bias[o])), W row-major
/// [outputCount][inputCount], the input flattened channel-major. One GEMM (m = outputs, n = 1).
struct FullyConnectedKernel<Scalar: ExecutorScalar>: LayerKernel {
    let inputCount: Int
    let outputCount: Int
    let weights: [Scalar]
    let epilogue: ChannelEpilogue<Scalar>
    /// The product cut into one BLAS call per core (`ProductThreading.splitAcrossCores`).
    let splitsProducts: Bool

    init(_ fc: FullyConnected, layer: Layer, options: ExecutorOptions) throws {
        inputCount = fc.inputCount
        outputCount = fc.outputCount
        weights = try scalarParameters(
            fc.weights, count: fc.inputCount * fc.outputCount, role: .weights, layer: layer, roundToHalf: options.float16Storage,
            perturbation: options.perturbation)
        epilogue = ChannelEpilogue(
            bias: try fc.bias.map {
                try scalarParameters(
                    $0, count: fc.outputCount, role: .bias, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
            },
            batchNorm: try fc.batchNorm.map { try PreparedBatchNorm($0, channels: fc.outputCount, layer: layer) },
            activation: fc.activation)
        splitsProducts = options.productThreading == .splitAcrossCores
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        guard let out = output.baseAddress else { return }
        inputs[0].withUnsafeBufferPointer { input in
            weights.withUnsafeBufferPointer { w in
                guard let a = w.baseAddress, let b = input.baseAddress else { return }
                Scalar.gemm(
                    transposeA: false, transposeB: false, m: outputCount, n: 1, k: inputCount, alpha: 1,
                    a: a, lda: inputCount, b: b, ldb: 1, beta: 0, c: out, ldc: 1, splitAcrossCores: splitsProducts)
            }
        }
        epilogue.apply(to: output, channels: outputCount, planeSize: 1)
    }
}
