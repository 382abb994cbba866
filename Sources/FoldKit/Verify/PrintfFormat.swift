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
        var text = ASCIIText()
        text.appendFixed(value, digits: digits)
        return text.string
    }

    /// printf's "%.<digits>e" of `value` (digits 0...9): d.ddd followed by e, sign and at least two exponent digits.
    public static func scientific(_ value: Double, digits: Int) -> String {
        var text = ASCIIText()
        text.appendScientific(value, digits: digits)
        return text.string
    }

    /// The integer of %.<digits>f of |value| scaled by 10^digits, when one product gives it exactly.
    fileprivate static func fixedUnits(_ magnitude: Double, digits: Int) -> UInt64? {
        let scale = powersOfTen[digits]
        let scaled = magnitude * scale
        guard scaled < 0x1p53, (-scaled).addingProduct(magnitude, scale) == 0 else { return nil }
        return UInt64(scaled.rounded(.toNearestOrEven))
    }

    /// The digits (an integer of digits + 1 decimal digits) and decimal exponent of %.<digits>e of
    /// |value| > 0, when one product or quotient gives them exactly.
    fileprivate static func scientificUnits(_ magnitude: Double, digits: Int) -> (units: UInt64, exponent: Int)? {
        let low = powersOfTen[digits], high = powersOfTen[digits + 1]
        var exponent = Int(log10(magnitude).rounded(.down))
        var scaled = 0.0
        for _ in 0..<3 {
            // scaled = magnitude x 10^(digits - exponent), exact or not at all.
            let k = digits - exponent
            guard abs(k) <= 22 else { return nil }
            let p = powersOfTen[abs(k)]
            if k >= 0 {
                scaled = magnitude * p
                guard (-scaled).addingProduct(magnitude, p) == 0 else { return nil }
            } else {
                scaled = magnitude / p
                guard (-magnitude).addingProduct(scaled, p) == 0 else { return nil }
            }
            if scaled < low { exponent -= 1 } else if scaled >= high { exponent += 1 } else { break }
        }
        guard scaled >= low && scaled < high else { return nil }
        var units = UInt64(scaled.rounded(.toNearestOrEven))
        if Double(units) >= high {
            units /= 10
            exponent += 1
        }
        return (units, exponent)
    }
}

/// ASCII text built byte by byte (no intermediate strings), with printf's number formats.
struct ASCIIText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 32) { bytes.reserveCapacity(capacity) }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    /// %d / %ld
    mutating func append(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        appendDigits(UInt64(value.magnitude), width: 1)
    }

    /// `value` in decimal, zero-padded on the left to at least `width` digits.
    mutating func appendDigits(_ value: UInt64, width: Int) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            while count < min(width, buffer.count) {
                buffer[count] = UInt8(ascii: "0")
                count += 1
            }
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }

    /// printf's "%.<digits>f" (digits 0...9).
    mutating func appendFixed(_ value: Double, digits: Int) {
        guard value.isFinite, (0...9).contains(digits), let units = PrintfFormat.fixedUnits(abs(value), digits: digits) else {
            append(PrintfFormat.string("%.*f", Int32(clamping: digits), value))
            return
        }
        if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
        var unit: UInt64 = 1
        for _ in 0..<digits { unit *= 10 }
        appendDigits(units / unit, width: 1)
        if digits > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(units % unit, width: digits)
        }
    }

    /// printf's "%.<digits>e" (digits 0...9).
    mutating func appendScientific(_ value: Double, digits: Int) {
        guard value.isFinite, (0...9).contains(digits) else {
            append(PrintfFormat.string("%.*e", Int32(clamping: digits), value))
            return
        }
        let magnitude = abs(value)
        let parts: (units: UInt64, exponent: Int)
        if magnitude == 0 {
            parts = (0, 0)
        } else if let exact = PrintfFormat.scientificUnits(magnitude, digits: digits) {
            parts = exact
        } else {
            append(PrintfFormat.string("%.*e", Int32(digits), value))
            return
        }
        if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
        var lead: UInt64 = 1
        for _ in 0..<digits { lead *= 10 }
        appendDigits(parts.units / lead, width: 1)
        if digits > 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(parts.units % lead, width: digits)
        }
        bytes.append(UInt8(ascii: "e"))
        bytes.append(UInt8(ascii: parts.exponent < 0 ? "-" : "+"))
        appendDigits(UInt64(abs(parts.exponent)), width: 2)
    }
}
