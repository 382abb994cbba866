import FoldKitBlobFormat
import FoldKitCore
import Foundation

/// One blob of a folder: its manifest entry and its bytes (memory-mapped unless the folder was loaded
/// with `BlobFolder.Options.memoryMapped` off).
///
/// The bytes are little-endian float32 or float16 (`dtype`) in the order of `layout` (Docs/BlobFormat.md "Layouts"):
/// - "OHWI": ((o*kh + y)*kw + x)*I + i;  "OIHW": ((o*I + i)*kh + y)*kw + x;  "HWIO": ((y*kw + x)*I + i)*O + o
/// - "sliced": ((o*kh + y)*kw + x)*Ip + i, Ip = 4*ceil(I/4), padding zero; `shape` = [O, kh, kw, Ip]
/// - "sliced-depthwise": (((o/4)*kh + y)*kw + x)*4 + o%4; `shape` = [ceil(O/4), kh, kw, 4]
/// - "C": a vector [C];  "CHW": [C, H, W] channel-major
public struct BlobTensor: Sendable {
    /// The blob's manifest entry (name, layer, role, file, shape, layout, dtype, byte count, SHA-256).
    public let entry: BlobEntry
    /// The file's bytes: `shape.reduce(1, *)` times 4 (float32) or 2 (float16) of them.
    public let data: Data

    /// The blob's name ("conv0_W"), unique in the folder.
    public var name: String { entry.name }
    /// The index of the layer it belongs to (`BlobLayer.index`).
    public var layer: Int { entry.layer }
    /// What the blob is to its layer.
    public var role: TensorRole { entry.role }
    /// The file name inside the folder.
    public var file: String { entry.file }
    /// The shape in the order of `layout` (the padded shape for the sliced layouts).
    public var shape: [Int] { entry.shape }
    /// The order of the values: OHWI, OIHW, HWIO, sliced, sliced-depthwise, C or CHW (`BlobLayout`).
    public var layout: BlobLayout { entry.layout }

    /// The element type: float32 or float16 (IEEE binary16, as Metal's `MPSDataType.float16` takes it).
    public var dtype: BlobDType { entry.dtype }

    /// The number of values, the product of `shape`.
    public var count: Int { entry.elementCount }

    /// Calls `body` with the values as float32: in place (no copy) for a float32 blob, whose little-endian
    /// bytes are the byte order of every platform Swift runs on (arm64, x86_64); a misaligned buffer (never
    /// the case for a mapped file) is copied first. A float16 blob is widened into a copy (exact).
    public func withUnsafeFloats<Result>(_ body: (UnsafeBufferPointer<Float>) throws -> Result) rethrows -> Result {
        if dtype == .float16 { return try floats().withUnsafeBufferPointer(body) }
        return try data.withUnsafeBytes { raw -> Result in
            if let base = raw.baseAddress, Int(bitPattern: base) % MemoryLayout<Float>.alignment == 0 {
                return try body(UnsafeBufferPointer(start: base.assumingMemoryBound(to: Float.self), count: raw.count / 4))
            }
            return try floats().withUnsafeBufferPointer(body)
        }
    }

    /// The values copied into a float32 array, decoded from little-endian on any host (float16 widened exactly).
    public func floats() -> [Float] { BlobValues.floats(data, dtype: dtype) }

    /// The bytes as they are in the file, for an engine that takes them as they are (float16: Metal's
    /// `MPSDataType.float16` weights). Calls `body` with the raw little-endian bytes, no copy.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try data.withUnsafeBytes(body)
    }
}
