#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// printf-style number formatting for reports with many lines, giving exactly the text of C's printf
/// (and Foundation's `String(format:)`) at a fraction of the cost: a verify report on a detector with
/// random weights lists hundreds of thousands of boxes.
///
/// `fixed` (%.Nf) and `scientific` (%.Ne) compute the digits with one floating-point product when it is
/// exact (checked with a fused multiply-add, `addingProduct`: |v| x 10^k == scaled with no rounding, as for every Float
/// value and small N), then round half to even like glibc's printf, which rounds the exact binary value.
/// Anything else (NaN, infinities, inexact products) goes through the C library's `vsnprintf`.
public enum PrintfFormat {
    /// `String(format: format, arguments...)` through `vsnprintf`. Integers need %ld.
    public static func string(_ format: String, _ arguments: CVarArg...) -> String {
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

    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

    /// printf's "%.<digits>f" of `value` (digits 0...9).
    public static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite, (0...9).contains(digits) else { return string("%.*f", Int32(clamping: digits), value) }
        let magnitude = abs(value), scale = powersOfTen[digits]
        let scaled = magnitude * scale
        guard scaled < 0x1p53, (-scaled).addingProduct(magnitude, scale) == 0 else {
            return string("%.*f", Int32(digits), value)
        }
        let units = UInt64(scaled.rounded(.toNearestOrEven))
        let unit = UInt64(scale)
        var text = value.sign == .minus ? "-" : ""
        text += String(units / unit)
        if digits > 0 {
            text += "."
            text += padded(units % unit, width: digits)
        }
        return text
    }

    /// printf's "%.<digits>e" of `value` (digits 0...9): d.ddd followed by e, sign and at least two exponent digits.
    public static func scientific(_ value: Double, digits: Int) -> String {
        guard value.isFinite, (0...9).contains(digits) else { return string("%.*e", Int32(clamping: digits), value) }
        let sign = value.sign == .minus ? "-" : ""
        let magnitude = abs(value)
        if magnitude == 0 { return sign + "0" + (digits > 0 ? "." + String(repeating: "0", count: digits) : "") + "e+00" }
        let low = powersOfTen[digits], high = powersOfTen[digits + 1]
        var exponent = Int(log10(magnitude).rounded(.down))
        var scaled = 0.0
        for _ in 0..<3 {
            // scaled = magnitude x 10^(digits - exponent), exact or not at all.
            let k = digits - exponent
            guard abs(k) <= 22 else { return string("%.*e", Int32(digits), value) }
            let p = powersOfTen[abs(k)]
            if k >= 0 {
                scaled = magnitude * p
                guard (-scaled).addingProduct(magnitude, p) == 0 else { return string("%.*e", Int32(digits), value) }
            } else {
                scaled = magnitude / p
                guard (-magnitude).addingProduct(scaled, p) == 0 else { return string("%.*e", Int32(digits), value) }
            }
            if scaled < low { exponent -= 1 } else if scaled >= high { exponent += 1 } else { break }
        }
        guard scaled >= low && scaled < high else { return string("%.*e", Int32(digits), value) }
        var units = UInt64(scaled.rounded(.toNearestOrEven))
        if Double(units) >= high {
            units /= 10
            exponent += 1
        }
        let lead = UInt64(low)
        var text = sign + String(units / lead)
        if digits > 0 { text += "." + padded(units % lead, width: digits) }
        text += exponent < 0 ? "e-" : "e+"
        text += padded(UInt64(abs(exponent)), width: 2)
        return text
    }

    private static func padded(_ value: UInt64, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
