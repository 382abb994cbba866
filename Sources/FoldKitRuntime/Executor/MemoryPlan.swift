import FoldKitCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The memory a command's forward passes need at their peak, worked out from the network's shapes before
/// anything is allocated, and the memory the process may use: a run that cannot fit is refused with the
/// figure, instead of dying when an allocation fails (Swift arrays abort on allocation failure).
///
/// One pass in precision `Scalar` (`ExecutorPass`, outputs released after their last reader,
/// `OutputLiveness`) holds at layer j: the input, every output a later layer still reads, the network's
/// outputs, layer j's output and layer j's scratch (im2col columns, Winograd tiles: the kernels' own
/// `scratchCount`). Its peak is the largest of these sums over j. Parameters: a pass that prepares its
/// kernels (`streamParameters` false) holds a `Scalar` copy of every parameter; a streaming pass one
/// layer's.
public enum MemoryPlan {
    /// Peak bytes of one pass over `network` in `Scalar` (see the type's description).
    public static func passBytes<Scalar: ExecutorScalar>(_ network: Network, _: Scalar.Type, options: ExecutorOptions) -> Int {
        let scalar = MemoryLayout<Scalar>.stride
        let liveness = OutputLiveness(network)
        let outputs = Set(network.outputIndices)
        var live = network.inputShape.count
        var peak = live
        for layer in network.layers {
            let produced = layer.outputShape.count
            peak = max(peak, live + produced + Executor<Scalar>.scratchElements(layer, network: network, options: options))
            live += produced
            for released in liveness.released(after: layer.index) where !outputs.contains(released) {
                live -= network.layers[released].outputShape.count
            }
        }
        let parameters = network.layers.map { $0.kind.parameters.reduce(0) { $0 + $1.tensor.count } }
        let held = options.streamParameters ? (parameters.max() ?? 0) : parameters.reduce(0, +)
        return (peak + held) * scalar
    }

    /// What `verify` runs: a float64 reference streaming its parameters, and per precision checked
    /// (float32; with `float16` also float16 storage) a float32 control and a float32 candidate (the folded
    /// network has the original's shapes), in lockstep, so all at once.
    public static func verifyBytes(_ network: Network, float16: Bool, productThreading: ProductThreading) -> Int {
        // The float32 input beside the passes.
        let input = 4 * network.inputShape.count
        let reference = passBytes(network, Double.self, options: ExecutorOptions(streamParameters: true, productThreading: productThreading))
        let prepared = passBytes(network, Float.self, options: ExecutorOptions(productThreading: productThreading))
        return input + reference + 2 * prepared * (float16 ? 2 : 1)
    }

    /// What `fixtures` runs: one float64 pass streaming its parameters, the float32 input, and beside the
    /// largest output while it is written its float32 copy, the copy in the pack's layout and the encoded
    /// .npy (12 bytes per value; `--check` holds the stored array instead of the encoding).
    public static func fixturesBytes(_ network: Network, productThreading: ProductThreading) -> Int {
        let largest = network.layers.map(\.outputShape.count).max() ?? 0
        return passBytes(network, Double.self, options: ExecutorOptions(streamParameters: true, productThreading: productThreading))
            + 4 * network.inputShape.count + 12 * max(largest, network.inputShape.count)
    }

    /// The memory this process may use: the machine's physical memory, lowered by a cgroup limit (v2
    /// `memory.max`, v1 `memory.limit_in_bytes`) and by the address-space and data-size limits (`ulimit -v`,
    /// `ulimit -d`), whichever is least.
    public static var available: Int {
        var limit = Int(clamping: ProcessInfo.processInfo.physicalMemory)
        for file in ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"] {
            if let text = try? String(contentsOfFile: file, encoding: .utf8), let value = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                value > 0
            {
                limit = min(limit, value)
            }
        }
        for resource in [RLIMIT_AS, RLIMIT_DATA] {
            var value = rlimit()
            #if canImport(Glibc)
                let status = getrlimit(__rlimit_resource_t(resource.rawValue), &value)
            #else
                let status = getrlimit(resource, &value)
            #endif
            if status == 0, value.rlim_cur != rlim_t.max { limit = min(limit, Int(clamping: value.rlim_cur)) }
        }
        return limit
    }

    /// Refuses a run that needs more than `limit` bytes, naming both figures and the way out.
    public static func check(needed: Int, limit: Int, command: String, network: Network) throws {
        guard needed > limit else { return }
        throw FoldKitError(
            .usage,
            "\(command) needs about \(gigabytes(needed)) for its passes at input \(network.inputShape) (CxHxW), more than the \(gigabytes(limit)) this process may use: run at a smaller --height/--width, or set --max-memory if the limit is wrong",
            file: network.sourceFiles.first, expected: "at most \(gigabytes(limit))", found: gigabytes(needed))
    }

    /// `12.3 GB` (10^9 bytes), or MB below a gigabyte.
    package static func gigabytes(_ bytes: Int) -> String {
        bytes >= 1_000_000_000 ? String(format: "%.1f GB", Double(bytes) / 1e9) : String(format: "%.0f MB", Double(bytes) / 1e6)
    }
}
