import FoldKitCore
import Foundation

/// Runs one closure on its own thread, started at once; `result()` waits for it and returns its value or
/// rethrows its error. Conversion uses it to checksum the source files on the second core while the
/// first one converts.
package final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Value, Error>?

    package init(_ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            outcome = Result { try body() }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits for the closure to finish (once; later calls return the same outcome).
    package func result() throws -> Value {
        if outcome == nil {
            done.wait()
            done.signal()
        }
        guard let outcome else {
            throw FoldKitError(.io, "background work ended without a result")
        }
        return try outcome.get()
    }
}
