import FoldKitCore
public protocol ExecutorScalar: BinaryFloatingPoint {}
extension Float: ExecutorScalar {}
extension Double: ExecutorScalar {}
public struct ExecutorOptions { public var float16Storage: Bool = false; public init(float16Storage: Bool = false) {} }
public enum OutputRetention { case all, outputsOnly }
public final class Executor<Scalar: ExecutorScalar> {
    public init(network: Network, options: ExecutorOptions = .init()) throws {}
    public func run(input: [Scalar], retention: OutputRetention = .all) throws -> [[Scalar]] { [] }
}
