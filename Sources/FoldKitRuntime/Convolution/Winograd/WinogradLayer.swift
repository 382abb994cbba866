/// One Winograd convolution layer: its geometry, U (`WinogradWeights`) and schedule, and the pass of a
/// `WinogradVariant` over them.
struct WinogradLayer<Variant: WinogradVariant> {
    typealias Scalar = Variant.Scalar
    let geometry: ConvolutionGeometry
    /// U, precomputed or computed per pass (`WinogradWeights`).
    let parameters: WinogradWeights<Scalar>
    /// Wide or blocked (`WinogradSchedule`).
    let schedule: WinogradSchedule
    /// Products shared out over the cores by FoldKit (`ProductThreading.splitAcrossCores`).
    let splitsProducts: Bool

    /// weights: O x C x 3 x 3 (OIHW), as the executor uses them (already rounded to binary16 when it emulates
    /// float16 storage: such values are exact in Float); U is computed in Double and rounded once to Scalar,
    /// at init with `precompute`, else on every pass. `splitsProducts`: FoldKit runs the products on the
    /// cores itself (`ProductThreading.splitAcrossCores`), else each is one BLAS call threaded by the BLAS.
    init(geometry: ConvolutionGeometry, weights: [Float], precompute: Bool, splitsProducts: Bool) {
        self.geometry = geometry
        parameters = WinogradWeights(
            weights: weights, points: Variant.points, outputChannels: geometry.output.channels, inputChannels: geometry.input.channels,
            precompute: precompute, transform: { Variant.transform($0, outputChannels: $1, inputChannels: $2, into: $3) })
        schedule = Variant.schedule(for: geometry, splitsProducts: splitsProducts)
        self.splitsProducts = splitsProducts
    }

    /// out = epilogue(conv(input)); `scratch` holds `Variant.scratchCount` elements.
    @inline(__always)
    func forward(
        input: UnsafePointer<Scalar>, output: UnsafeMutablePointer<Scalar>, scratch: UnsafeMutablePointer<Scalar>,
        epilogue: ChannelEpilogue<Scalar>
    ) {
        let g = geometry, schedule = self.schedule, parameters = self.parameters, splitsProducts = self.splitsProducts
        parameters.withTransformed(scratch: scratch + schedule.scratchCount) { u in
            schedule.run(
                scratch: scratch, inputWork: Variant.inputWork, outputWork: Variant.outputWork,
                inputTransform: { c, tiles, v, stride in
                    Variant.transformInput(g, channel: c, tiles: tiles, input: input, into: v, pointStride: stride)
                },
                multiply: { v, m, n, split, transposed in
                    parameters.multiply(u: u, v: v, into: m, tiles: n, splitAcrossCores: split && splitsProducts, transposed: transposed)
                },
                outputTransform: { o, tiles, m, stride, tileStride in
                    Variant.transformOutput(
                        g, channel: o, tiles: tiles, from: m, pointStride: stride, tileStride: tileStride, into: output, epilogue: epilogue)
                })
        }
    }
}
