import FoldKitCore
public struct DarknetReadOptions { public var epsilon: EpsilonConvention = .darknet; public var inputHeight: Int? = nil; public var inputWidth: Int? = nil; public init(epsilon: EpsilonConvention = .darknet, inputHeight: Int? = nil, inputWidth: Int? = nil) {} }
public enum DarknetReader { public static func read(cfgPath: String, weightsPath: String?, options: DarknetReadOptions = .init()) throws -> Network { throw FoldKitError(.usage, "stub") } }
public enum DarknetSeededWeights { public static func write(cfgPath: String, seed: UInt64, to path: String) throws {} }
