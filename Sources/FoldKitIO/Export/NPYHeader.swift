import FoldKitCore
import Foundation

/// The header of a `.npy` file, parsed strictly: magic `\x93NUMPY`, version 1.0, 2.0 or 3.0, the header
/// length (uint16, or uint32 from 2.0), then a Python dict literal holding exactly the keys `'descr'`
/// (a quoted dtype string), `'fortran_order'` (`False`; `True` is refused) and `'shape'` (a tuple of
/// non-negative integers), in any order, with an optional trailing comma, followed only by spaces and
/// newlines (numpy pads with spaces and ends with one; `read_array_header` evaluates the dict alone). Anything else is refused naming the byte offset.
struct NPYHeader: Equatable {
    var descr: String
    var shape: [Int]
    /// Where the header dict starts (10, or 12 from version 2.0).
    var dictOffset: Int
    /// Where the array's data starts.
    var dataOffset: Int

    /// Longest header accepted: 1 MiB (numpy writes well under 1 KiB).
    static let maximumLength = 1 << 20

    /// Parses the header from the start of the file (`bytes` may stop anywhere after the header).
    static func parse(_ bytes: [UInt8], file: String) throws -> NPYHeader {
        guard bytes.count >= 10, bytes[0] == 0x93, Array(bytes[1..<6]) == Array("NUMPY".utf8) else {
            throw FoldKitError(.badInput, "not a .npy file", file: file, byteOffset: 0, expected: "magic \\x93NUMPY")
        }
        let major = bytes[6]
        let length: Int
        let start: Int
        if major == 1 {
            length = Int(bytes[8]) | Int(bytes[9]) << 8
            start = 10
        } else if major == 2 || major == 3, bytes.count >= 12 {
            length = Int(bytes[8]) | Int(bytes[9]) << 8 | Int(bytes[10]) << 16 | Int(bytes[11]) << 24
            start = 12
        } else {
            throw FoldKitError(.badInput, "unsupported .npy version", file: file, byteOffset: 6, expected: "1, 2 or 3", found: "\(major)")
        }
        guard length <= maximumLength else {
            throw FoldKitError(
                .badInput, ".npy header is too long", file: file, byteOffset: 8, expected: "at most \(maximumLength) bytes", found: "\(length)")
        }
        guard bytes.count >= start + length, let text = String(bytes: bytes[start..<(start + length)], encoding: .ascii) else {
            throw FoldKitError(.badInput, ".npy header is cut off or not ASCII", file: file, byteOffset: start)
        }
        var scanner = DictScanner(text: Array(text), file: file, base: start)
        let fields = try scanner.dictionary()
        guard Set(fields.keys) == ["descr", "fortran_order", "shape"] else {
            throw FoldKitError(
                .badInput, ".npy header keys are not descr, fortran_order and shape", file: file, byteOffset: start,
                found: fields.keys.sorted().joined(separator: ", "))
        }
        guard case .string(let descr)? = fields["descr"] else {
            throw FoldKitError(.badInput, ".npy descr is not a string", file: file, byteOffset: start)
        }
        switch fields["fortran_order"] {
        case .boolean(false)?: break
        case .boolean(true)?:
            throw FoldKitError(
                .badInput, "Fortran-order .npy arrays are not supported", file: file, byteOffset: start, expected: "fortran_order False")
        default:
            throw FoldKitError(.badInput, ".npy fortran_order is not False or True", file: file, byteOffset: start)
        }
        guard case .tuple(let shape)? = fields["shape"] else {
            throw FoldKitError(.badInput, ".npy shape is not a tuple of integers", file: file, byteOffset: start)
        }
        return NPYHeader(descr: descr, shape: shape, dictOffset: start, dataOffset: start + length)
    }

    /// A value of the header dict.
    enum Value: Equatable {
        case string(String)
        case boolean(Bool)
        case tuple([Int])
    }

    /// Reads the dict literal character by character; `base` is the header's offset in the file.
    private struct DictScanner {
        let text: [Character]
        let file: String
        let base: Int
        var at = 0

        init(text: [Character], file: String, base: Int) {
            self.text = text
            self.file = file
            self.base = base
        }

        func fail(_ what: String) -> FoldKitError {
            FoldKitError(.badInput, ".npy header: \(what)", file: file, byteOffset: base + at)
        }

        mutating func skipSpaces() { while at < text.count, text[at] == " " { at += 1 } }

        mutating func expect(_ c: Character) throws {
            skipSpaces()
            guard at < text.count, text[at] == c else { throw fail("expected '\(c)'") }
            at += 1
        }

        mutating func peek() -> Character? {
            skipSpaces()
            return at < text.count ? text[at] : nil
        }

        mutating func quoted() throws -> String {
            try expect("'")
            var out = ""
            while at < text.count, text[at] != "'" {
                out.append(text[at])
                at += 1
            }
            guard at < text.count else { throw fail("unterminated string") }
            at += 1
            return out
        }

        mutating func integer() throws -> Int {
            skipSpaces()
            var digits = ""
            while at < text.count, text[at].wholeNumberValue != nil {
                digits.append(text[at])
                at += 1
            }
            if at < text.count, text[at] == "L" { at += 1 }  // Python 2 long suffix, as numpy accepts
            guard let n = Int(digits) else { throw fail("expected a non-negative integer") }
            return n
        }

        mutating func value() throws -> Value {
            switch peek() {
            case "'": return .string(try quoted())
            case "(":
                at += 1
                var items: [Int] = []
                while peek() != ")" {
                    items.append(try integer())
                    if peek() == "," { at += 1 } else { break }
                }
                try expect(")")
                return .tuple(items)
            default:
                for (word, flag) in [("False", false), ("True", true)] where text[at...].starts(with: Array(word)) {
                    at += word.count
                    return .boolean(flag)
                }
                throw fail("expected a string, a tuple, False or True")
            }
        }

        /// `{key: value, ...}` then only spaces and newlines (numpy writes one final newline).
        mutating func dictionary() throws -> [String: Value] {
            try expect("{")
            var fields: [String: Value] = [:]
            while peek() != "}" {
                let key = try quoted()
                try expect(":")
                guard fields[key] == nil else { throw fail("key '\(key)' repeated") }
                fields[key] = try value()
                if peek() == "," { at += 1 } else { break }
            }
            try expect("}")
            while at < text.count, text[at] == " " || text[at] == "\n" { at += 1 }
            guard at == text.count else { throw fail("junk after the header dict") }
            return fields
        }
    }
}
