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

    /// Reads a C-order .npy of float32 (`<f4`), float64 (`<f8`) or float16 (`<f2`) values as Float.
    static func read(path: String) throws -> (shape: [Int], values: [Float]) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FoldKitError(.io, "cannot read file", file: path)
        }
        let parsed = try parse(data, file: path)
        return (parsed.shape, parsed.values)
    }

    /// The header of the .npy at `path` (strictly parsed, see `NPYHeader`), read without its data, with a
    /// check that the file holds exactly the data the header declares for `elementSize`-byte elements.
    static func readHeader(path: String) throws -> NPYHeader {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw FoldKitError(.io, "cannot read file", file: path) }
        defer { try? handle.close() }
        let prefix = [UInt8]((try? handle.read(upToCount: NPYHeader.maximumLength + 12)) ?? Data())
        let header = try NPYHeader.parse(prefix, file: path)
        guard let elementSize = elementSizes[header.descr] else {
            throw FoldKitError(
                .badInput, "unsupported .npy dtype", file: path, byteOffset: header.dictOffset, expected: "<f4, <f8 or <f2", found: header.descr)
        }
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        // The declared bytes, nil when the product overflows (a header may declare any shape).
        let declared = header.shape.reduce(Int?(elementSize)) { bytes, n in
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

    /// Bytes per element of the dtypes FoldKit reads.
    static let elementSizes = ["<f4": 4, "<f8": 8, "<f2": 2]

    /// Parses .npy bytes; `descr` is the dtype string found (e.g. `<f4`).
    static func parse(_ data: Data, file: String) throws -> (shape: [Int], values: [Float], descr: String) {
        let bytes = [UInt8](data)
        let header = try NPYHeader.parse(bytes, file: file)
        let (shape, descr, headerStart) = (header.shape, header.descr, header.dictOffset)
        let dataStart = header.dataOffset
        let elementSize: Int
        switch descr {
        case "<f4": elementSize = 4
        case "<f8": elementSize = 8
        case "<f2": elementSize = 2
        default:
            throw FoldKitError(.badInput, "unsupported .npy dtype", file: file, byteOffset: headerStart, expected: "<f4, <f8 or <f2", found: descr)
        }
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
        bytes.withUnsafeBytes { raw in
            let base = raw.baseAddress.map { $0 + dataStart }
            guard let base else { return }
            for i in 0..<count {
                switch elementSize {
                case 4: values[i] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                case 8: values[i] = Float(Double(bitPattern: UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))))
                default: values[i] = Float(Float16(bitPattern: UInt16(littleEndian: base.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))))
                }
            }
        }
        return (shape, values, descr)
    }
}
