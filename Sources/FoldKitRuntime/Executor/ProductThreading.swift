/// Who spreads a layer's matrix products over the cores (`ExecutorOptions.productThreading`).
///
/// - `library`: each product is one cblas call, threaded however the program has set its BLAS up
///   (OpenBLAS's default: all cores; Accelerate: its own). FoldKit changes no BLAS setting.
/// - `splitAcrossCores`: FoldKit cuts each product into one single-threaded cblas call per core
///   (`GEMMPartition`) and runs Winograd layers' products one per core. For a BLAS running on one thread,
///   as `ProcessTuning.singleThreadedBLAS` sets OpenBLAS up: with OpenBLAS's own threading, no worker is
///   left spinning between products against FoldKit's loops (Docs/Performance.md, "Threading and memory
///   (third round)"). With a multi-threaded BLAS the results are the same, only slower.
public enum ProductThreading: String, Sendable, Codable, CaseIterable {
    case library
    case splitAcrossCores
}
