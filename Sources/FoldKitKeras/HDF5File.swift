import CHDF5
import FoldKitCore
import Foundation

/// A read-only HDF5 file opened through libhdf5. Every handle (`hid_t`) this wrapper opens is closed
/// before the call that opened it returns, except the file itself, which `deinit` closes.
///
/// Paths are HDF5 paths relative to the root group (`model_weights/conv2d_1/conv2d_1/kernel:0`).
/// Errors are `FoldKitError`s naming the file and the object path.
final class HDF5File {
    /// Where libhdf5 opens the file.
    let path: String
    /// What errors call the file: `path`, or for weights extracted from an archive the archive and its
    /// entry (`model.keras [model.weights.h5]`), not the temporary file.
    let displayName: String
    private let fileID: hid_t
    /// The contiguous storage of every dataset read so far (relative addresses), to refuse a dataset
    /// whose bytes are another's (`checkStorage`).
    private var readStorage: [(range: Range<UInt64>, dataset: String)] = []

    /// Opens `path` read-only. libhdf5's own error printer is silenced; failures become `FoldKitError`.
    init(path: String, displayName: String? = nil) throws {
        self.path = path
        let name = displayName ?? path
        self.displayName = name
        guard H5open() >= 0 else { throw FoldKitError(.io, "cannot initialise libhdf5", file: name) }
        H5Eset_auto2(foldkit_h5e_default(), nil, nil)
        guard FileManager.default.fileExists(atPath: path) else {
            throw FoldKitError(.io, "file not found", file: name)
        }
        guard H5Fis_hdf5(path) > 0 else {
            throw FoldKitError(.badInput, "not an HDF5 file", file: name, expected: "HDF5 signature \\x89HDF\\r\\n\\x1a\\n")
        }
        try HDF5GlobalHeapCheck.check(path: path, displayName: name)
        let id = H5Fopen(path, foldkit_h5f_acc_rdonly(), foldkit_h5p_default())
        guard id >= 0 else { throw FoldKitError(.io, "libhdf5 cannot open the file", file: name) }
        fileID = id
    }

    deinit { H5Fclose(fileID) }

    /// True if a link (group or dataset) exists at `objectPath`; every intermediate group must exist.
    /// An external link (to another file) is not followed: it and what lies below it do not exist here.
    func exists(_ objectPath: String) -> Bool {
        var prefix = ""
        for part in objectPath.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += prefix.isEmpty ? String(part) : "/" + part
            if H5Lexists(fileID, prefix, foldkit_h5p_default()) <= 0 { return false }
            if foldkit_h5_link_type(fileID, prefix) == foldkit_h5l_type_external() { return false }
        }
        return !prefix.isEmpty || objectPath == "/"
    }

    /// Refuses an external link on the way to `objectPath`: libhdf5 would open the file it names (any
    /// path on the machine) and read from it as if it were part of this one.
    func refuseExternalLinks(_ objectPath: String) throws {
        var prefix = ""
        for part in objectPath.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += prefix.isEmpty ? String(part) : "/" + part
            guard H5Lexists(fileID, prefix, foldkit_h5p_default()) > 0 else { return }
            if foldkit_h5_link_type(fileID, prefix) == foldkit_h5l_type_external() {
                throw error("is an external link to another file, which FoldKit does not follow", prefix, expected: "objects stored in this file")
            }
        }
    }

    /// True if `objectPath` is a group.
    func isGroup(_ objectPath: String) -> Bool {
        guard exists(objectPath) || objectPath == "/" else { return false }
        let id = H5Gopen2(fileID, objectPath, foldkit_h5p_default())
        if id < 0 { return false }
        H5Gclose(id)
        return true
    }

    /// Names of the direct members (groups and datasets) of the group at `groupPath`, in libhdf5's
    /// name order.
    func memberNames(_ groupPath: String) throws -> [String] {
        let group = try openGroup(groupPath)
        defer { H5Gclose(group) }
        var info = H5G_info_t()
        guard H5Gget_info(group, &info) >= 0 else { throw error("cannot list group", groupPath) }
        var names: [String] = []
        for i in 0..<info.nlinks {
            let size = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, nil, 0, foldkit_h5p_default())
            guard size >= 0 else { throw error("cannot read member \(i) name", groupPath) }
            var buffer = [CChar](repeating: 0, count: Int(size) + 1)
            H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, &buffer, Int(size) + 1, foldkit_h5p_default())
            names.append(String(decoding: buffer.prefix(Int(size)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return names
    }

    // MARK: datasets

    /// The shape of the dataset at `datasetPath` (row-major, slowest axis first).
    func shape(ofDataset datasetPath: String) throws -> [Int] {
        let dataset = try openDataset(datasetPath)
        defer { H5Dclose(dataset) }
        return try dims(of: dataset, datasetPath)
    }

    /// Reads a floating-point dataset (float16, float32 or float64 in the file) as float32 values in
    /// row-major order, with its shape. libhdf5 converts the stored type to native float.
    /// A floating-point dataset's shape and values as Float (libhdf5 converts float16 and float64).
    func readFloats(_ datasetPath: String) throws -> (shape: [Int], values: [Float]) {
        let read = try readNumbers(datasetPath)
        guard !read.isInteger else {
            throw error("dataset is not floating point", datasetPath, expected: "float16/float32/float64", found: "an integer type")
        }
        return (read.shape, read.values)
    }

    /// A numeric dataset's shape and values as Float, integers converted by libhdf5, and whether it holds
    /// integers (Normalization's sample count is an int64; a kernel of integers is not a Keras file's).
    func readNumbers(_ datasetPath: String) throws -> (shape: [Int], values: [Float], isInteger: Bool) {
        let dataset = try openDataset(datasetPath)
        defer { H5Dclose(dataset) }
        let type = H5Dget_type(dataset)
        guard type >= 0 else { throw error("cannot read dataset type", datasetPath) }
        defer { H5Tclose(type) }
        let typeClass = H5Tget_class(type)
        let typeSize = H5Tget_size(type)
        guard typeClass == H5T_FLOAT || typeClass == H5T_INTEGER else {
            throw error(
                "dataset is not numeric", datasetPath, expected: "float16/float32/float64 or an integer",
                found: "HDF5 type class \(typeClass.rawValue), \(typeSize) bytes")
        }
        try checkStandardNumber(type, isFloat: typeClass == H5T_FLOAT, size: typeSize, datasetPath)
        try checkStorage(of: dataset, datasetPath)
        let shape = try dims(of: dataset, datasetPath)
        let count = try checkedCount(of: dataset, shape: shape, elementBytes: typeSize, datasetPath)
        // One H5Dread straight into the result (no zero-fill first: libhdf5 writes every element).
        var status: herr_t = 0
        let values = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 {
                status = H5Dread(dataset, foldkit_h5t_native_float(), foldkit_h5s_all(), foldkit_h5s_all(), foldkit_h5p_default(), buffer.baseAddress)
            }
            if status >= 0 {
                initialized = count
            } else {
                buffer.initialize(repeating: 0)
                initialized = count
            }
        }
        guard status >= 0 else { throw error("cannot read dataset values", datasetPath) }
        return (shape, values, typeClass == H5T_INTEGER)
    }

    /// libhdf5 converts any number layout a datatype message states: a damaged float type (the sign bit
    /// inside the mantissa, no implied leading bit, 128 bytes per value) turns the stored bytes into other
    /// finite values, and a blob silently differs from the original. Only the layouts a Keras file holds
    /// are read: IEEE 754 binary16, binary32 and binary64, and 1-, 2-, 4- and 8-byte integers, in either
    /// byte order, every bit significant.
    private func checkStandardNumber(_ type: hid_t, isFloat: Bool, size: Int, _ datasetPath: String) throws {
        let order = H5Tget_order(type)
        let precision = H5Tget_precision(type)
        let offset = H5Tget_offset(type)
        var found: String?
        if order != H5T_ORDER_LE && order != H5T_ORDER_BE && !(order == H5T_ORDER_NONE && size == 1) {
            found = "byte order \(order.rawValue)"
        } else if precision != 8 * size || offset != 0 {
            found = "\(precision) significant bits at bit \(offset) of \(size) bytes"
        } else if isFloat {
            var sign = 0, exponent = 0, exponentBits = 0, mantissa = 0, mantissaBits = 0
            let layout = H5Tget_fields(type, &sign, &exponent, &exponentBits, &mantissa, &mantissaBits)
            let bias = H5Tget_ebias(type)
            let ieee: [Int: [Int]] = [2: [15, 10, 5, 0, 10, 15], 4: [31, 23, 8, 0, 23, 127], 8: [63, 52, 11, 0, 52, 1023]]
            if layout < 0 || ieee[size] != [sign, exponent, exponentBits, mantissa, mantissaBits, bias] || H5Tget_norm(type) != H5T_NORM_IMPLIED {
                found =
                    "a \(size)-byte float with sign bit \(sign), exponent bits \(exponent)+\(exponentBits) (bias \(bias)), "
                    + "mantissa bits \(mantissa)+\(mantissaBits), normalization \(H5Tget_norm(type).rawValue)"
            }
        } else if ![1, 2, 4, 8].contains(size) {
            found = "a \(size)-byte integer"
        }
        if let found {
            throw error(
                "dataset type is not a standard number", datasetPath,
                expected: "IEEE 754 float16/float32/float64 or an 8/16/32/64-bit integer", found: found)
        }
    }

    // MARK: attributes

    /// True if the object at `objectPath` ("/" for the root) has an attribute `name`.
    func hasAttribute(_ name: String, at objectPath: String = "/") -> Bool {
        guard let object = try? openObject(objectPath) else { return false }
        defer { H5Oclose(object) }
        return H5Aexists(object, name) > 0
    }

    /// Reads a string attribute (scalar or 1-D array; fixed-length NULLPAD/NULLTERM/SPACEPAD or
    /// variable-length). A numeric attribute with no elements reads as `[]` (h5py writes an empty
    /// list that way). Any other type is an error.
    func stringsAttribute(_ name: String, at objectPath: String = "/") throws -> [String] {
        let object = try openObject(objectPath)
        defer { H5Oclose(object) }
        let attribute = H5Aopen(object, name, foldkit_h5p_default())
        guard attribute >= 0 else { throw error("attribute '\(name)' not found", objectPath) }
        defer { H5Aclose(attribute) }
        let space = H5Aget_space(attribute)
        defer { H5Sclose(space) }
        let count = Int(H5Sget_simple_extent_npoints(space))
        let fileType = H5Aget_type(attribute)
        defer { H5Tclose(fileType) }
        guard H5Tget_class(fileType) == H5T_STRING else {
            if count == 0 { return [] }
            throw error(
                "attribute '\(name)' is not a string", objectPath, expected: "string", found: "HDF5 type class \(H5Tget_class(fileType).rawValue)")
        }
        if count == 0 { return [] }
        // Sizes come from the file: bound them before allocating (model_config is a few MB at most).
        guard count <= Self.maximumAttributeBytes / 16,
            let total = SizeLimits.elementCount([count, H5Tget_size(fileType)]), total <= Self.maximumAttributeBytes
        else {
            throw error(
                "attribute '\(name)' is larger than any model description", objectPath,
                expected: "at most \(Self.maximumAttributeBytes) bytes", found: "\(count) strings of \(H5Tget_size(fileType)) bytes")
        }
        if H5Tis_variable_str(fileType) > 0 {
            let memType = H5Tcopy(foldkit_h5t_c_s1())
            defer { H5Tclose(memType) }
            H5Tset_size(memType, foldkit_h5t_variable())
            H5Tset_cset(memType, H5Tget_cset(fileType))
            var pointers = [UnsafeMutablePointer<CChar>?](repeating: nil, count: count)
            let status = pointers.withUnsafeMutableBytes { H5Aread(attribute, memType, $0.baseAddress) }
            guard status >= 0 else { throw error("cannot read attribute '\(name)'", objectPath) }
            var result: [String] = []
            for pointer in pointers {
                if let pointer {
                    result.append(String(cString: pointer))
                    H5free_memory(pointer)
                } else {
                    result.append("")
                }
            }
            return result
        }
        let size = H5Tget_size(fileType)
        guard size > 0 else { return [String](repeating: "", count: count) }
        var buffer = [UInt8](repeating: 0, count: size * count)
        let status = buffer.withUnsafeMutableBytes { H5Aread(attribute, fileType, $0.baseAddress) }
        guard status >= 0 else { throw error("cannot read attribute '\(name)'", objectPath) }
        let spacePadded = H5Tget_strpad(fileType) == H5T_STR_SPACEPAD
        return (0..<count).map { i in
            var bytes = buffer[(i * size)..<((i + 1) * size)]
            if let end = bytes.firstIndex(of: 0) { bytes = bytes[bytes.startIndex..<end] }
            var text = String(decoding: bytes, as: UTF8.self)
            if spacePadded { while text.hasSuffix(" ") { text.removeLast() } }
            return text
        }
    }

    /// A scalar string attribute (the first element of `stringsAttribute`).
    func stringAttribute(_ name: String, at objectPath: String = "/") throws -> String {
        let values = try stringsAttribute(name, at: objectPath)
        guard let first = values.first else { throw error("attribute '\(name)' is empty", objectPath) }
        return first
    }

    // MARK: private

    private func openObject(_ objectPath: String) throws -> hid_t {
        try refuseExternalLinks(objectPath)
        let id = H5Oopen(fileID, objectPath, foldkit_h5p_default())
        guard id >= 0 else { throw error("object not found", objectPath) }
        return id
    }

    private func openGroup(_ groupPath: String) throws -> hid_t {
        try refuseExternalLinks(groupPath)
        guard groupPath == "/" || exists(groupPath) else { throw error("group not found", groupPath) }
        let id = H5Gopen2(fileID, groupPath, foldkit_h5p_default())
        guard id >= 0 else { throw error("not a group", groupPath) }
        return id
    }

    /// Opens a dataset whose values are stored in this file: external storage (values read from other
    /// files, any path), virtual datasets (values gathered from other files) and filters other than
    /// libhdf5's own (plugins loaded from disk) are refused before anything is read.
    private func openDataset(_ datasetPath: String) throws -> hid_t {
        try refuseExternalLinks(datasetPath)
        guard exists(datasetPath) else { throw error("dataset not found", datasetPath) }
        let id = H5Dopen2(fileID, datasetPath, foldkit_h5p_default())
        guard id >= 0 else { throw error("not a dataset", datasetPath) }
        let refusal: String?
        switch foldkit_h5_dataset_storage(id) {
        case 0: refusal = nil
        case 1: refusal = "keeps its values in external files (HDF5 external storage), which FoldKit does not read"
        case 2: refusal = "is a virtual dataset (values gathered from other files), which FoldKit does not read"
        case 3: refusal = "is compressed with a filter that is not libhdf5's own (a plugin), which FoldKit does not load"
        default: refusal = "has a storage layout libhdf5 cannot describe"
        }
        if let refusal {
            H5Dclose(id)
            throw error(refusal, datasetPath, expected: "values stored in this file")
        }
        return id
    }

    /// A file without checksums cannot show a changed value, but it can show a moved one: a damaged
    /// address makes libhdf5 read a dataset's values from wherever it points. A contiguous dataset's bytes
    /// must lie after the superblock and overlap no dataset read before from this file (in a well-formed
    /// file no two objects share bytes).
    private func checkStorage(of dataset: hid_t, _ datasetPath: String) throws {
        var address: UInt64 = 0, size: UInt64 = 0
        guard foldkit_h5_contiguous_storage(dataset, &address, &size) == 0, size > 0 else { return }
        let (end, overflows) = address.addingReportingOverflow(size)
        let superblock = UInt64(foldkit_h5_superblock_size(fileID))
        guard !overflows, address >= superblock else {
            throw error(
                "dataset's values would be read from the file's superblock or past the end of the address space: its address is damaged",
                datasetPath, expected: "storage after the \(superblock)-byte superblock", found: "address \(address), \(size) bytes")
        }
        let range = address..<end
        if let other = readStorage.first(where: { $0.dataset != datasetPath && $0.range.overlaps(range) }) {
            throw error(
                "dataset's values would be read from bytes that hold '\(other.dataset)': an address is damaged", datasetPath,
                expected: "storage of its own",
                found: "bytes \(range.lowerBound)..<\(range.upperBound), \(other.dataset) at \(other.range.lowerBound)..<\(other.range.upperBound)")
        }
        readStorage.append((range, datasetPath))
    }

    private func dims(of dataset: hid_t, _ datasetPath: String) throws -> [Int] {
        let space = H5Dget_space(dataset)
        guard space >= 0 else { throw error("cannot read dataset shape", datasetPath) }
        defer { H5Sclose(space) }
        let rank = Int(H5Sget_simple_extent_ndims(space))
        guard rank >= 0 else { throw error("cannot read dataset rank", datasetPath) }
        var dims = [hsize_t](repeating: 0, count: rank)
        if rank > 0 { H5Sget_simple_extent_dims(space, &dims, nil) }
        return dims.map { Int(clamping: $0) }
    }

    /// Largest string attribute read (fixed-length bytes, or 16 x the count of variable-length strings): 256 MiB.
    static let maximumAttributeBytes = 1 << 28

    /// Largest dataset read into memory: 2^28 values (1 GiB as float32; VGG16's largest kernel has 1.0e8).
    static let maximumDatasetElements = 1 << 28
    /// Largest expansion from the bytes a dataset stores to the bytes it declares (compressed chunks of
    /// float weights shrink by far less; a dataset whose chunks were never written stores nothing).
    static let maximumExpansion = 1000

    /// The dataset's element count, checked before anything is allocated for it: no overflow, at most
    /// `maximumDatasetElements`, and count x element size <= maximumExpansion x stored bytes + 1 MiB.
    private func checkedCount(of dataset: hid_t, shape: [Int], elementBytes: Int, _ datasetPath: String) throws -> Int {
        guard let count = SizeLimits.elementCount(shape), count <= Self.maximumDatasetElements else {
            throw error(
                "dataset is larger than any layer FoldKit reads", datasetPath,
                expected: "at most \(Self.maximumDatasetElements) values", found: "shape \(shape)")
        }
        let stored = Int(clamping: H5Dget_storage_size(dataset))
        // A damaged type may state any element size, and a damaged layout any stored size: no product may overflow.
        let (declared, declaredOverflows) = count.multipliedReportingOverflow(by: max(elementBytes, 1))
        let (allowance, allowanceOverflows) = Self.maximumExpansion.multipliedReportingOverflow(by: stored)
        guard !declaredOverflows, allowanceOverflows || declared <= allowance + (1 << 20) else {
            throw error(
                "dataset declares far more values than it stores", datasetPath,
                expected: "at most \(Self.maximumExpansion)x the \(stored) stored bytes",
                found: declaredOverflows ? "\(count) values of \(elementBytes) bytes each" : "\(declared) bytes (shape \(shape))")
        }
        return count
    }

    private func error(_ message: String, _ objectPath: String, expected: String? = nil, found: String? = nil) -> FoldKitError {
        FoldKitError(.badInput, "HDF5 '\(objectPath)': \(message)", file: displayName, expected: expected, found: found)
    }
}
