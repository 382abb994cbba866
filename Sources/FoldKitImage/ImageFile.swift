import CPNG
import CTurboJPEG
import FoldKitCore
import Foundation

/// Reads JPEG (libjpeg-turbo's TurboJPEG API) and PNG (libpng's simplified API) into RGB, and writes PNG.
public enum ImageFile {
    /// Reads a JPEG or PNG file as RGB; throws `FoldKitError` naming the file when it cannot.
    public static func read(path: String) throws -> RGBImage {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FoldKitError(.io, "cannot read image", file: path)
        }
        return try decode(data, path: path)
    }

    /// Decodes the bytes of a JPEG or PNG file already read from `path` (named in errors).
    public static func decode(_ data: Data, path: String) throws -> RGBImage {
        if data.starts(with: [0xFF, 0xD8]) { return try decodeJPEG(data, path: path) }
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return try decodePNG(data, path: path) }
        throw FoldKitError(.badInput, "not a JPEG or PNG image", file: path, byteOffset: 0, expected: "JPEG (FF D8) or PNG (89 50 4E 47) signature")
    }

    static func decodeJPEG(_ data: Data, path: String) throws -> RGBImage {
        guard let handle = tjInitDecompress() else { throw FoldKitError(.io, "cannot start the JPEG decoder", file: path) }
        defer { tjDestroy(handle) }
        var bytes = [UInt8](data)
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, &bytes, UInt(bytes.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw FoldKitError(.badInput, "bad JPEG header: \(String(cString: tjGetErrorStr2(handle)))", file: path)
        }
        try checkSize(width: Int(width), height: Int(height), path: path)
        var pixels = [UInt8](repeating: 0, count: Int(width) * Int(height) * 3)
        guard tjDecompress2(handle, &bytes, UInt(bytes.count), &pixels, width, 0, height, Int32(TJPF_RGB.rawValue), 0) == 0 else {
            throw FoldKitError(.badInput, "JPEG decoding failed: \(String(cString: tjGetErrorStr2(handle)))", file: path)
        }
        return RGBImage(width: Int(width), height: Int(height), pixels: pixels)
    }

    static func decodePNG(_ data: Data, path: String) throws -> RGBImage {
        var image = foldkit_png_image()
        let ok = data.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, data.count) }
        guard ok != 0 else { throw FoldKitError(.badInput, "bad PNG: \(message(image))", file: path) }
        image.format = foldkit_png_format_rgb()
        try checkSize(width: Int(image.width), height: Int(image.height), path: path)
        var pixels = [UInt8](repeating: 0, count: Int(image.width) * Int(image.height) * 3)
        guard png_image_finish_read(&image, nil, &pixels, 0, nil) != 0 else {
            throw FoldKitError(.badInput, "PNG decoding failed: \(message(image))", file: path)
        }
        return RGBImage(width: Int(image.width), height: Int(image.height), pixels: pixels)
    }

    /// Largest image decoded: 2^27 pixels (384 MiB as RGB; 11585 x 11585, far above any network input).
    static let maximumPixels = 1 << 27

    /// Refuses a header's size before the pixels are allocated: positive, width x height <= `maximumPixels`.
    static func checkSize(width: Int, height: Int, path: String) throws {
        guard width > 0, height > 0, width <= maximumPixels / height else {
            throw FoldKitError(
                .badInput, "image header declares \(width) x \(height) pixels", file: path,
                expected: "at most \(maximumPixels) pixels (2^27)", found: "\(width) x \(height)")
        }
    }

    /// Writes `image` as an 8-bit RGB PNG.
    public static func writePNG(_ image: RGBImage, to path: String) throws {
        var png = foldkit_png_image()
        png.width = UInt32(image.width)
        png.height = UInt32(image.height)
        png.format = foldkit_png_format_rgb()
        var pixels = image.pixels
        guard png_image_write_to_file(&png, path, 0, &pixels, 0, nil) != 0 else {
            throw FoldKitError(.io, "cannot write PNG: \(message(png))", file: path)
        }
    }

    private static func message(_ image: png_image) -> String {
        var copy = image.message
        return withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
