import Foundation

/// One blob of a folder: its manifest entry and its bytes (memory-mapped unless the folder was loaded
/// with `BlobFolder.Options.memoryMapped` off).
///
/// The bytes are little-endian float32 in the order of `layout` (Docs/BlobFormat.md "Layouts"):
/// - "OHWI": ((o*kh + y)*kw + x)*I + i;  "OIHW": ((o*I + i)*kh + y)*kw + x;  "HWIO": ((y*kw + x)*I + i)*O + o
/// - "sliced": ((o*kh + y)*kw + x)*Ip + i, Ip = 4*ceil(I/4), padding zero; `shape` = [O, kh, kw, Ip]
/// - "sliced-depthwise": (((o/4)*kh + y)*kw + x)*4 + o%4; `shape` = [ceil(O/4), kh, kw, 4]
/// - "C": a vector [C];  "CHW": [C, H, W] channel-major
public struct BlobTensor: Sendable {
    /// The blob's name ("conv0_W"), unique in the folder.
    public var name: String
    /// The index of the layer it belongs to (`BlobLayer.index`).
    public var layer: Int
    /// What the blob is to its layer.
    public var role: BlobTensorRole
    /// The file name inside the folder.
    public var file: String
    /// The shape in the order of `layout` (the padded shape for the sliced layouts).
    public var shape: [Int]
    /// OHWI, OIHW, HWIO, sliced, sliced-depthwise, C or CHW.
    public var layout: String
    /// The SHA-256 (hex) manifest.json records for the file.
    public var sha256: String
    /// The file's bytes: `shape.reduce(1, *) * 4` of them.
    public var data: Data

    /// The number of float32 values, the product of `shape`.
    public var count: Int { shape.reduce(1, *) }

    /// Calls `body` with the values in place (no copy). The bytes are little-endian float32, which is
    /// the byte order of every platform Swift runs on (arm64, x86_64); a misaligned buffer (never the
    /// case for a mapped file) is copied first.
    public func withUnsafeFloats<Result>(_ body: (UnsafeBufferPointer<Float>) throws -> Result) rethrows -> Result {
        try data.withUnsafeBytes { raw -> Result in
            if let base = raw.baseAddress, Int(bitPattern: base) % MemoryLayout<Float>.alignment == 0 {
                return try body(UnsafeBufferPointer(start: base.assumingMemoryBound(to: Float.self), count: raw.count / 4))
            }
            return try floats().withUnsafeBufferPointer(body)
        }
    }

    /// The values copied into an array, decoded from little-endian on any host.
    public func floats() -> [Float] {
        data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }
}
