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
    /// The order of the values (written as OHWI, OIHW, HWIO, sliced, sliced-depthwise, C or CHW).
    public var layout: BlobLayout
    /// The element type (written as "float32" or "float16").
    public var dtype: BlobDType
    /// The file's size in bytes: the product of `shape` x the dtype's size.
    public var byteCount: Int
    /// SHA-256 (64 lowercase hex digits) of the file.
    public var sha256: String

    /// An entry with every field given.
    public init(
        name: String, layer: Int, role: TensorRole, file: String, shape: [Int], layout: BlobLayout, dtype: BlobDType, byteCount: Int,
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

    private enum CodingKeys: String, CodingKey {
        case name, layer, role, file, shape, layout, dtype, byteCount, sha256
    }

    /// Reads an entry of manifest.json. A layout or dtype this reader does not know is a `.badEntry`
    /// `BlobFolderError` naming the entry, its file, the value found and the values known (a newer writer's
    /// format, or a damaged manifest), rather than a generic decoding error.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        layer = try container.decode(Int.self, forKey: .layer)
        role = try container.decode(TensorRole.self, forKey: .role)
        file = try container.decode(String.self, forKey: .file)
        shape = try container.decode([Int].self, forKey: .shape)
        byteCount = try container.decode(Int.self, forKey: .byteCount)
        sha256 = try container.decode(String.self, forKey: .sha256)
        layout = try Self.known(BlobLayout.self, try container.decode(String.self, forKey: .layout), field: "layout", name: name, file: file)
        dtype = try Self.known(BlobDType.self, try container.decode(String.self, forKey: .dtype), field: "dtype", name: name, file: file)
    }

    private static func known<Value: RawRepresentable & CaseIterable>(
        _ type: Value.Type, _ raw: String, field: String, name: String, file: String
    ) throws -> Value where Value.RawValue == String {
        guard let value = Value(rawValue: raw) else {
            throw BlobFolderError(
                .badEntry, "unknown \(field) of \(name)", file: file, expected: Value.allCases.map(\.rawValue).joined(separator: ", "),
                found: raw)
        }
        return value
    }
}
