import FoldKitCore
import Foundation

/// The image `verify --image` ran on, embedded in the audit page as a `data:` URI: the file's own bytes
/// (JPEG or PNG, told apart by their signatures FF D8 FF and 89 50 4E 47), base64-encoded, so the page
/// shows exactly the file that was checked and needs nothing beside it.
package struct AuditImage: Sendable {
    package var dataURI: String
    /// Size in pixels (boxes are drawn in these coordinates).
    package var width: Int
    package var height: Int

    package init(dataURI: String, width: Int, height: Int) {
        self.dataURI = dataURI
        self.width = width
        self.height = height
    }

    /// Reads the file at `path`; `width` x `height` is its decoded size.
    package init(path: String, width: Int, height: Int) throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw FoldKitError(.io, "cannot read image: \(error.localizedDescription)", file: path)
        }
        let bytes = [UInt8](data.prefix(4))
        let mime: String
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            mime = "image/jpeg"
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            mime = "image/png"
        } else {
            throw FoldKitError(
                .badInput, "image is neither JPEG nor PNG", file: path, byteOffset: 0,
                expected: "FF D8 FF or 89 50 4E 47", found: bytes.map { String(format: "%02X", $0) }.joined(separator: " "))
        }
        self.init(dataURI: "data:\(mime);base64,\(data.base64EncodedString())", width: width, height: height)
    }
}
