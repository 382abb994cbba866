import FoldKitCore
public struct KerasReadOptions { public var epsilonOverride: EpsilonConvention? = nil; public init() {} }
public enum KerasReader { public static func read(paths: [String], options: KerasReadOptions = .init()) throws -> Network { throw FoldKitError(.usage, "stub") } }
