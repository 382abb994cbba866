/// How an `Executor` emulates the device it stands in for.
public struct ExecutorOptions: Sendable {
    /// Emulate MPSImage half-float textures: every parameter tensor the layers multiply or add
    /// (weights, biases, channel-affine scale and shift, PReLU alpha) is rounded to IEEE binary16 once at
    /// init, the network input is rounded on entry, and every layer output is rounded to binary16 after
    /// the layer has been computed in `Scalar`. Batch-norm statistics of unfolded layers are kept as read
    /// (a device never sees them: folding moves them into the weights).
    public var float16Storage: Bool = false

    /// Read and convert each layer's parameters when the layer runs, and drop them once it has run, instead
    /// of converting all of them in `Executor.init`: no copy of the weights is held between layers (for one
    /// pass over file-backed tensors, such as the float64 reference of `verify`, which would otherwise
    /// hold every weight as a Double). Every `run` then reads the parameters again, and a parameter tensor
    /// of the wrong size is reported by `run` rather than `init`. Layer shapes are still checked by `init`.
    public var streamParameters: Bool = false

    /// Who spreads matrix products over the cores: the BLAS as the program set it up (`.library`, the
    /// default; FoldKit changes no BLAS setting), or FoldKit, one single-threaded product per core
    /// (`.splitAcrossCores`, for a BLAS on one thread: `ProcessTuning.singleThreadedBLAS`). The results are
    /// the same either way.
    public var productThreading: ProductThreading = .library

    /// Perturb every computed layer output and every parameter tensor by a seeded random relative amount
    /// (`RoundingPerturbation`), before the float16 rounding of `float16Storage`: another sample of the
    /// precision's rounding. nil (the default): no perturbation.
    public var perturbation: RoundingPerturbation?

    /// float32 (or float64) storage, weights prepared up front, products threaded by the BLAS unless told
    /// otherwise, no perturbation.
    public init(
        float16Storage: Bool = false, streamParameters: Bool = false, productThreading: ProductThreading = .library,
        perturbation: RoundingPerturbation? = nil
    ) {
        self.float16Storage = float16Storage
        self.streamParameters = streamParameters
        self.productThreading = productThreading
        self.perturbation = perturbation
    }
}
