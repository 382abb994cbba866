import Foundation

/// The values of one blob file: little-endian float32, no header (FoldKit Docs/BlobFormat.md).
struct FloatBlob {
    let values: [Float]

    /// Reads `url`, refusing a file whose size is not `expectedByteCount` (the manifest's byteCount).
    init(contentsOf url: URL, expectedByteCount: Int) throws {
        let data = try Data(contentsOf: url)
        guard data.count == expectedByteCount, data.count % 4 == 0 else {
            throw ExampleFailure("\(url.lastPathComponent): \(data.count) bytes, manifest says \(expectedByteCount)")
        }
        values = data.withUnsafeBytes { raw in
            (0..<data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }
}
