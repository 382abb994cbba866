#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// printf-style formatting through the C library's `vsnprintf`, for reports with many lines.
///
/// Gives the same text as Foundation's `String(format:)` for the conversions used here (%ld, %f, %e with
/// a precision; Float arguments are promoted to double as in C) at a fraction of the cost: a verify
/// report on a detector with random weights lists hundreds of thousands of boxes.
enum CFormat {
    static func string(_ format: String, _ arguments: CVarArg...) -> String {
        let capacity = 256
        let result: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: capacity) { buffer -> String? in
            guard let base = buffer.baseAddress else { return nil }
            let written = withVaList(arguments) { vsnprintf(base, capacity, format, $0) }
            guard written >= 0 && written < capacity else { return nil }
            return String(cString: base)
        }
        if let result { return result }
        // Longer than the stack buffer: measure, then format into a heap buffer.
        let needed = withVaList(arguments) { vsnprintf(nil, 0, format, $0) }
        guard needed >= 0 else { return "" }
        var heap = [CChar](repeating: 0, count: Int(needed) + 1)
        _ = heap.withUnsafeMutableBufferPointer { buffer in
            withVaList(arguments) { vsnprintf(buffer.baseAddress, buffer.count, format, $0) }
        }
        return String(cString: heap)
    }
}
