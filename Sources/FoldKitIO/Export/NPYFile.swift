import FoldKitCore
import Foundation

/// The NumPy `.npy` format, version 1.0, byte-compatible with `numpy.save` for float32 C-order arrays.
///
/// Layout: the magic `\x93NUMPY`, version bytes 1 0, a little-endian uint16 header length, then an ASCII
/// dict `{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 4, 4), }` padded with spaces and
/// ending in '\n' so that the data starts at a multiple of 64 bytes, then the raw little-endian values.
enum NPYFile {
    /// Encodes float32 values with the given shape (C order).
    static func encode(values: [Float], shape: [Int]) -> Data {
        var data = header(descr: "<f4", shape: shape)
        values.withUnsafeBufferPointer { buffer in
            #if _endian(big)
                for v in buffer { var le = v.bitPattern.littleEndian; withUnsafeBytes(of: &le) { data.append(contentsOf: $0) } }
            #else
                data.append(
                    UnsafeBufferPointer(start: UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: UInt8.self), count: buffer.count * 4))
            #endif
        }
        return data
    }

    /// The header bytes exactly as numpy 1.x/2.x writes them for format version 1.0.
    static func header(descr: String, shape: [Int]) -> Data {
        let shapeText: String
        switch shape.count {
        case 0: shapeText = "()"
        case 1: shapeText = "(\(shape[0]),)"
        default: shapeText = "(" + shape.map(String.init).joined(separator: ", ") + ")"
        }
        var dict = "{'descr': '\(descr)', 'fortran_order': False, 'shape': \(shapeText), }"
        let preamble = 10  // magic (6) + version (2) + header length (2)
        let total = preamble + dict.utf8.count + 1
        let padded = (total + 63) / 64 * 64
        dict += String(repeating: " ", count: padded - total) + "\n"
        var data = Data([0x93] + Array("NUMPY".utf8) + [1, 0])
        let length = UInt16(dict.utf8.count)
        data.append(UInt8(length & 0xff))
        data.append(UInt8(length >> 8))
        data.append(contentsOf: Array(dict.utf8))
        return data
    }

    /// Writes float32 values to `url` as .npy.
    static func write(values: [Float], shape: [Int], to url: URL) throws {
        do { try encode(values: values, shape: shape).write(to: url) } catch {
            throw FoldKitError(.io, "cannot write .npy: \(error.localizedDescription)", file: url.path)
        }
    }

    /// Reads a C-order .npy of float32, float64 or float16 values (either byte order) as Float.
    static func read(path: String) throws -> (shape: [Int], values: [Float]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FoldKitError(.io, "cannot read file", file: path)
        }
        let parsed = try parse(data, file: path)
        return (parsed.shape, parsed.values)
    }

    /// The header of the .npy at `path` (strictly parsed, see `NPYHeader`), read without its data, with a
    /// check that the dtype is one FoldKit reads and that the file holds exactly the data the header declares.
    static func readHeader(path: String) throws -> NPYHeader {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw FoldKitError(.io, "cannot read file", file: path) }
        defer { try? handle.close() }
        let prefix = [UInt8]((try? handle.read(upToCount: NPYHeader.maximumLength + 12)) ?? Data())
        let header = try NPYHeader.parse(prefix, file: path)
        let dtype = try Self.dtype(header, file: path)
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        // The declared bytes, nil when the product overflows (a header may declare any shape).
        let declared = header.shape.reduce(Int?(dtype.size)) { bytes, n in
            guard let bytes, n >= 0 else { return nil }
            let (product, overflow) = bytes.multipliedReportingOverflow(by: n)
            return overflow ? nil : product
        }
        guard let declared, declared == fileSize - header.dataOffset else {
            throw FoldKitError(
                .badInput, ".npy data size does not match its shape", file: path, byteOffset: header.dataOffset,
                expected: declared.map { "\($0) bytes for shape \(header.shape)" } ?? "a shape that fits in memory",
                found: "\(fileSize - header.dataOffset) bytes")
        }
        return header
    }

    /// A dtype FoldKit reads: IEEE floats of 2, 4 or 8 bytes, little-endian (`<`, what numpy writes on
    /// x86 and ARM) or big-endian (`>`, numpy on a big-endian machine or `astype('>f8')`).
    struct DType: Equatable {
        /// Bytes per element.
        var size: Int
        var bigEndian: Bool
        /// "float16", "float32" or "float64".
        var name: String
    }

    /// The dtypes FoldKit reads, by numpy `descr`.
    static let dtypes: [String: DType] = [
        "<f4": DType(size: 4, bigEndian: false, name: "float32"), ">f4": DType(size: 4, bigEndian: true, name: "float32"),
        "<f8": DType(size: 8, bigEndian: false, name: "float64"), ">f8": DType(size: 8, bigEndian: true, name: "float64"),
        "<f2": DType(size: 2, bigEndian: false, name: "float16"), ">f2": DType(size: 2, bigEndian: true, name: "float16"),
    ]

    /// `header`'s dtype, or an error naming the file, the header's offset and the dtypes read.
    static func dtype(_ header: NPYHeader, file: String) throws -> DType {
        guard let dtype = dtypes[header.descr] else {
            throw FoldKitError(
                .badInput, "unsupported .npy dtype (FoldKit reads float arrays only)", file: file, byteOffset: header.dictOffset,
                expected: "<f4, <f8 or <f2 (or big-endian >f4, >f8, >f2)", found: header.descr)
        }
        return dtype
    }

    /// A parsed array: its shape, its values as float32, the dtype found and, when the values were not
    /// float32, how they were converted (`note`: "float64 (<f8) cast to float32 ...").
    struct Parsed {
        var shape: [Int]
        var values: [Float]
        /// The dtype string found (e.g. `<f4`).
        var descr: String
        /// How the values were turned into float32; nil for float32 files.
        var note: String?
    }

    /// Parses .npy bytes. float64 values are rounded to the nearest float32; a finite float64 value beyond
    /// float32's largest finite magnitude (3.4028235e38, which rounding would turn into an infinity) is an
    /// error naming the file, the element (flat index and per-axis coordinates) and its byte offset. NaN
    /// and infinities are kept, as in a float32 file. float16 values widen exactly.
    static func parse(_ data: Data, file: String) throws -> Parsed {
        let bytes = [UInt8](data)
        let header = try NPYHeader.parse(bytes, file: file)
        let (shape, descr, headerStart) = (header.shape, header.descr, header.dictOffset)
        let dataStart = header.dataOffset
        let dtype = try Self.dtype(header, file: file)
        let elementSize = dtype.size
        // The shape's product is checked against the bytes present before anything is allocated, and
        // without overflowing Int: a header may declare any shape.
        var count = 1
        for n in shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: n)
            guard !overflow, product.multipliedReportingOverflow(by: elementSize).partialValue <= bytes.count,
                !product.multipliedReportingOverflow(by: elementSize).overflow
            else {
                throw FoldKitError(
                    .badInput, ".npy shape is larger than the file", file: file, byteOffset: headerStart,
                    expected: "at most \(bytes.count - dataStart) data bytes", found: "shape \(shape)")
            }
            count = product
        }
        guard bytes.count - dataStart == count * elementSize else {
            throw FoldKitError(
                .badInput, ".npy data size does not match its shape", file: file, byteOffset: dataStart,
                expected: "\(count) elements of \(elementSize) bytes", found: "\(bytes.count - dataStart) bytes")
        }
        var values = [Float](repeating: 0, count: count)
        var largestRounding = 0.0
        var overflowAt: (index: Int, value: Double)?
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress.map { $0 + dataStart }
            guard let base else { return }
            let big = dtype.bigEndian
            switch elementSize {
            case 4:
                for i in 0..<count {
                    let word = base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)
                    values[i] = Float(bitPattern: big ? UInt32(bigEndian: word) : UInt32(littleEndian: word))
                }
            case 8:
                for i in 0..<count {
                    let word = base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)
                    let double = Double(bitPattern: big ? UInt64(bigEndian: word) : UInt64(littleEndian: word))
                    let single = Float(double)
                    values[i] = single
                    if double.isFinite && double != 0 {
                        if single.isInfinite {
                            if overflowAt == nil { overflowAt = (i, double) }
                        } else {
                            largestRounding = max(largestRounding, abs(Double(single) - double) / abs(double))
                        }
                    }
                }
            default:
                for i in 0..<count {
                    let word = base.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)
                    values[i] = Float(Float16(bitPattern: big ? UInt16(bigEndian: word) : UInt16(littleEndian: word)))
                }
            }
        }
        if let (index, value) = overflowAt {
            throw FoldKitError(
                .badInput, "float64 value outside float32's finite range at element \(index) \(coordinates(of: index, in: shape))", file: file,
                byteOffset: dataStart + index * elementSize, expected: "|value| <= \(Float.greatestFiniteMagnitude)", found: "\(value)")
        }
        let note: String?
        switch dtype.name {
        case "float64":
            note =
                "float64 (\(descr)) cast to float32 (round to nearest), largest relative rounding "
                + (largestRounding == 0 ? "0 (every value exact)" : String(format: "%.3g", largestRounding))
                + " (at most 2^-24 = 5.96e-08 for values in float32's normal range)"
        case "float16": note = "float16 (\(descr)) widened to float32 (exact)"
        default: note = nil
        }
        return Parsed(shape: shape, values: values, descr: descr, note: note)
    }

    /// `index`'s per-axis coordinates in a C-order array of `shape`, as `[i, j, ...]`.
    static func coordinates(of index: Int, in shape: [Int]) -> String {
        var rest = index
        var coordinates = [Int](repeating: 0, count: shape.count)
        for axis in shape.indices.reversed() where shape[axis] > 0 {
            coordinates[axis] = rest % shape[axis]
            rest /= shape[axis]
        }
        return "[" + coordinates.map(String.init).joined(separator: ", ") + "]"
    }
}
