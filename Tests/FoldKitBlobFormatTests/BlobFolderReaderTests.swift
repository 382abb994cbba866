import FoldKitBlobFormat
import Foundation
import XCTest

/// The checks `BlobFolderReader.load` makes on one entry, each with the kind and file it reports, in the
/// documented order (the first failing check wins).
final class BlobFolderReaderTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("blob-folder-reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // Six float32 values: 1, 2, ..., 6, little-endian.
        let bytes = (1...6).flatMap { value -> [UInt8] in withUnsafeBytes(of: Float(value).bitPattern.littleEndian, Array.init) }
        try Data(bytes).write(to: folder.appendingPathComponent("conv0_b.bin"))
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: folder)
    }

    private func entry(
        file: String = "conv0_b.bin", shape: [Int] = [6], layout: BlobLayout = .vector, dtype: BlobDType = .float32,
        byteCount: Int = 24, sha256: String = ""
    ) -> BlobEntry {
        BlobEntry(
            name: "conv0_b", layer: 0, role: .bias, file: file, shape: shape, layout: layout, dtype: dtype, byteCount: byteCount, sha256: sha256)
    }

    private func failure(_ entry: BlobEntry) -> BlobFolderError? {
        do {
            _ = try BlobFolderReader.load(entry, in: folder, memoryMapped: false, digest: nil)
            return nil
        } catch let error as BlobFolderError {
            return error
        } catch {
            XCTFail("\(error)")
            return nil
        }
    }

    func testEachCheckReportsItsKindAndFile() {
        let cases: [(BlobEntry, BlobFolderError.Kind)] = [
            (entry(file: "../conv0_b.bin"), .unsafeFileName),
            (entry(file: ""), .unsafeFileName),
            (entry(file: "a\\b.bin"), .unsafeFileName),
            (entry(dtype: .float16), .badEntry),
            (entry(byteCount: 20), .badEntry),
            (entry(shape: [-2, -3], byteCount: 24), .badEntry),
            (entry(shape: [Int.max, 3], byteCount: 24), .badEntry),
            (entry(file: "absent.bin"), .missingFile),
            (entry(shape: [5], byteCount: 20), .sizeMismatch),
            // An unsafe name is reported before its other faults.
            (entry(file: "../x.bin", dtype: .float16), .unsafeFileName),
        ]
        for (entry, kind) in cases {
            let error = failure(entry)
            XCTAssertEqual(error?.kind, kind, "\(entry)")
            XCTAssertEqual(error?.file, entry.file)
        }
    }

    /// A manifest entry whose layout or dtype this reader does not know is a `.badEntry` error naming the
    /// entry, its file and the value found; known ones read back as their enums.
    func testUnknownLayoutOrDtypeIsNamedWhenTheEntryIsRead() throws {
        func entry(layout: String, dtype: String) throws -> BlobEntry {
            let json = """
                {"name": "conv0_b", "layer": 0, "role": "bias", "file": "conv0_b.bin", "shape": [6], "layout": "\(layout)",
                 "dtype": "\(dtype)", "byteCount": 24, "sha256": ""}
                """
            return try JSONDecoder().decode(BlobEntry.self, from: Data(json.utf8))
        }
        let known = try entry(layout: "sliced-depthwise", dtype: "float16")
        XCTAssertEqual(known.layout, .slicedDepthwise)
        XCTAssertEqual(known.dtype, .float16)
        for (layout, dtype, found) in [("NCHW", "float32", "NCHW"), ("C", "bfloat16", "bfloat16")] {
            XCTAssertThrowsError(try entry(layout: layout, dtype: dtype)) { error in
                let error = error as? BlobFolderError
                XCTAssertEqual(error?.kind, .badEntry, "\(layout) \(dtype)")
                XCTAssertEqual(error?.file, "conv0_b.bin")
                XCTAssertEqual(error?.found, found)
                XCTAssertTrue(error?.message.contains("conv0_b") ?? false, "\(String(describing: error))")
            }
        }
    }

    func testChecksumMismatchIsReportedBesideTheBytes() throws {
        let data = try Data(contentsOf: folder.appendingPathComponent("conv0_b.bin"))
        let digest = BlobChecksum.sha256Hex(data)
        let good = try BlobFolderReader.load(
            entry(sha256: digest.uppercased()), in: folder, memoryMapped: true, digest: { BlobChecksum.sha256Hex($0) })
        XCTAssertNil(good.checksumMismatch, "hex case does not matter")
        XCTAssertEqual(good.data, data)
        let bad = try BlobFolderReader.load(
            entry(sha256: String(repeating: "0", count: 64)), in: folder, memoryMapped: false,
            digest: { BlobChecksum.sha256Hex($0) })
        XCTAssertEqual(bad.checksumMismatch?.kind, .checksumMismatch)
        XCTAssertEqual(bad.checksumMismatch?.found, digest)
        XCTAssertEqual(bad.data, data, "the bytes come back with the mismatch")
        let unchecked = try BlobFolderReader.load(entry(sha256: "not checked"), in: folder, memoryMapped: false, digest: nil)
        XCTAssertNil(unchecked.checksumMismatch)
    }

    func testManifestFormatAndVersionAreChecked() throws {
        XCTAssertThrowsError(try BlobFolderReader.manifest(in: folder)) { XCTAssertEqual(($0 as? BlobFolderError)?.kind, .missingManifest) }
        let manifest = BlobManifest(
            source: BlobSource(format: "darknet", files: [], sha256: [:], bnEpsilon: 1e-5, bnEpsilonMode: "inside"),
            layers: [], tensors: [entry()])
        let url = folder.appendingPathComponent(BlobManifest.fileName)
        try JSONEncoder().encode(manifest).write(to: url)
        XCTAssertEqual(try BlobFolderReader.manifest(in: folder), manifest)
        var other = manifest
        other.version = 1  // version 1 folders (before input, heads and class names) are still read
        try JSONEncoder().encode(other).write(to: url)
        XCTAssertEqual(try BlobFolderReader.manifest(in: folder).version, 1)
        other.version = 3
        try JSONEncoder().encode(other).write(to: url)
        XCTAssertThrowsError(try BlobFolderReader.manifest(in: folder)) { error in
            XCTAssertEqual((error as? BlobFolderError)?.kind, .badManifest)
            XCTAssertEqual((error as? BlobFolderError)?.found, "foldkit-blobs v3")
        }
    }
}
