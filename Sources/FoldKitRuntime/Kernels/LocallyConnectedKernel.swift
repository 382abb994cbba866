import FoldKitCore

/// Locally connected convolution (`LocallyConnected`, Darknet [local]) as darknet's
/// `forward_local_layer` (src/local_layer.c): the output starts as the per-element bias; the input is
/// unrolled into im2col columns (C*k*k rows, one column per location, zero outside the input); then for
/// each location l one product adds that location's O x (C*k*k) weight matrix times column l into output
/// column l (stride L); the activation is applied last.
struct LocallyConnectedKernel<Scalar: ExecutorScalar>: LayerKernel {
    let layer: LocallyConnected
    let inputHeight: Int
    let inputWidth: Int
    let weights: [Scalar]
    let bias: [Scalar]
    /// Each product cut into one BLAS call per core (`ProductThreading.splitAcrossCores`).
    let splitsProducts: Bool

    init(_ local: LocallyConnected, input: ActivationShape, layer: Layer, options: ExecutorOptions) throws {
        self.layer = local
        inputHeight = input.height
        inputWidth = input.width
        weights = try scalarParameters(
            local.weights, count: local.locations * local.outputChannels * local.accumulationLength, role: .weights, layer: layer,
            roundToHalf: options.float16Storage, perturbation: options.perturbation)
        bias = try scalarParameters(
            local.bias, count: local.outputChannels * local.locations, role: .bias, layer: layer, roundToHalf: options.float16Storage,
            perturbation: options.perturbation)
        splitsProducts = options.productThreading == .splitAcrossCores
    }

    /// The im2col columns: C*k*k rows of L values.
    var scratchCount: Int { layer.accumulationLength * layer.locations }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let size = layer.kernelSize, stride = layer.stride, pad = layer.padding
        let outH = layer.outputHeight, outW = layer.outputWidth, locations = layer.locations
        let k = layer.accumulationLength, filters = layer.outputChannels
        guard let out = output.baseAddress, let columns = scratch.baseAddress else { return }
        _ = output.initialize(from: bias)
        inputs[0].withUnsafeBufferPointer { input in
            for row in 0..<k {
                let kx = row % size, ky = (row / size) % size, channel = row / size / size
                let plane = channel * inputHeight * inputWidth
                for y in 0..<outH {
                    let iy = y * stride + ky - pad
                    for x in 0..<outW {
                        let ix = x * stride + kx - pad
                        let inside = iy >= 0 && iy < inputHeight && ix >= 0 && ix < inputWidth
                        columns[row * locations + y * outW + x] = inside ? input[plane + iy * inputWidth + ix] : 0
                    }
                }
            }
        }
        weights.withUnsafeBufferPointer { w in
            guard let a = w.baseAddress else { return }
            for location in 0..<locations {
                Scalar.gemm(
                    transposeA: false, transposeB: false, m: filters, n: 1, k: k, alpha: 1, a: a + location * filters * k, lda: k,
                    b: columns + location, ldb: locations, beta: 1, c: out + location, ldc: locations, splitAcrossCores: splitsProducts)
            }
        }
        ActivationFunction.apply(layer.activation, to: output)
    }
}
