import FoldKitCore
import Foundation

/// One initializer's bytes, made on a thread of Dispatch's global pool while the caller writes the one
/// before. The closure runs once; `result` waits for it.
final class SerializedPart: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Data, Error>?

    init(_ make: @escaping () throws -> Data) {
        let work = Work(make)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            outcome = Result { try work.value() }
            done.signal()
        }
    }

    func result() throws -> Data {
        done.wait()
        done.signal()
        guard let outcome else { throw FoldKitError(.io, "an initializer was not serialized") }
        return try outcome.get()
    }

    /// The closure handed to the pool thread; `result`'s semaphore orders its use.
    private struct Work: @unchecked Sendable {
        let value: () throws -> Data
        init(_ value: @escaping () throws -> Data) { self.value = value }
    }
}
