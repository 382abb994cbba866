import FoldKitCore

/// One blob of a folder as manifest.json lists it (`tensors[]`, Docs/BlobFormat.md "manifest.json").
public struct BlobEntry: Codable, Equatable, Sendable {
    /// The blob's name: the file name without ".bin" ("conv0_W"), unique in the folder.
    public var name: String
    /// The index of the layer it belongs to (`BlobLayer.index`).
    public var layer: Int
    /// What the blob is to its layer (weights, bias, scale, shift or alpha).
    public var role: TensorRole
    /// The file name inside the blob folder.
    public var file: String
    /// The shape in the order of `layout` (the padded shape for the sliced layouts).
    public var shape: [Int]
    /// The order of the values: a `BlobLayout` raw value (OHWI, OIHW, HWIO, sliced, sliced-depthwise, C, CHW).
    /// Kept as written so that a reader can name an unknown layout in its error.
    public var layout: String
    /// The element type: a `BlobDType` raw value ("float32").
    public var dtype: String
    /// The file's size in bytes: the product of `shape` x the dtype's size.
    public var byteCount: Int
    /// SHA-256 (64 lowercase hex digits) of the file.
    public var sha256: String

    /// An entry with every field given.
    public init(
        name: String, layer: Int, role: TensorRole, file: String, shape: [Int], layout: String, dtype: String, byteCount: Int,
        sha256: String
    ) {
        self.name = name
        self.layer = layer
        self.role = role
        self.file = file
        self.shape = shape
        self.layout = layout
        self.dtype = dtype
        self.byteCount = byteCount
        self.sha256 = sha256
    }

    /// The number of values: the product of `shape`.
    public var elementCount: Int { shape.reduce(1, *) }
}
