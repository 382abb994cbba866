import FoldKitCore
import FoldKitKeras
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What the HDF5 helper process hands the command (`HDF5Helper`, Docs/Security.md "HDF5 read in a helper
/// process"): the model it read, so that the command never opens the `.h5` / `.keras` file with libhdf5.
///
/// One stream on the helper's standard output, a pipe the command reads as it is written:
/// - `FKMT` and the description's length in bytes (UInt64, little-endian);
/// - the description, JSON: the `Network` exactly as `ModelLoader` returns it (every layer, its kind and
///   parameters, names, sources, shapes, outputs, metadata, epsilon convention; `Codable`) with every
///   parameter tensor replaced by a span of the values that follow, their number, and, when the command
///   reads an input array with the model, the Keras input declaration the array was matched against;
/// - every tensor's values, float32 little-endian, one after the other, in the order of the spans.
///
/// The command reads each tensor's values straight into its own array (`WeightTensor.Storage.values`, as
/// the in-process read holds them), so the network it works on is the one `ModelLoader` would have
/// returned in process, value for value. It checks what it is handed as it would check a file: the spans
/// one after the other and of their tensors' sizes, the values no more than the helper could hold, every
/// layer's inputs before it, every shape and parameter count recomputed, the source files those given
/// (`check`); a hand-over that does not hold together is refused, not trusted. A stream that does not
/// start with `FKMT` is not a model (the helper's error, as JSON).
package enum LoadedModelTransfer {
    /// The first bytes of a hand-over.
    static let magic: [UInt8] = Array("FKMT".utf8)
    /// What a tensor's span names as its file: the values after the description.
    package static let valuesName = "values"
    /// `format` of the description.
    static let formatName = "foldkit-loaded-model"
    /// `version` of the description; a helper of another version is refused.
    static let formatVersion = 1

    /// What the helper read.
    package struct Loaded: Sendable {
        /// The network, batch norms attached (`ModelLoader.load`).
        package var network: Network
        /// The Keras input declaration an `--input` array is matched against; nil when no array is read.
        package var inputDeclaration: KerasInputDeclaration?

        package init(network: Network, inputDeclaration: KerasInputDeclaration? = nil) {
            self.network = network
            self.inputDeclaration = inputDeclaration
        }
    }

    /// What came through the helper's standard output.
    package enum Received: Sendable {
        /// A hand-over that holds together.
        case model(Loaded)
        /// A hand-over that does not: why (an error naming the model files).
        case refused(FoldKitError)
        /// Not a hand-over: everything the helper wrote (its error as JSON, or nothing).
        case other(Data)
    }

    /// The description.
    struct Header: Codable {
        var format: String
        var version: Int
        /// The number of float32 values after the description.
        var valueCount: Int
        var network: Network
        var inputDeclaration: KerasInputDeclaration?
    }

    /// The JSON coding of the description: floats in their shortest exact form (Foundation writes
    /// `description` and reads with `strtof`/`strtod`, so every finite value comes back bit for bit), the
    /// three non-finite values as strings.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    // MARK: Writing (the helper)

    /// The description of `loaded` and the tensors' values in its spans' order.
    static func header(_ loaded: Loaded) throws -> (Header, [[Float]]) {
        var values: [[Float]] = []
        var written = 0
        var network = loaded.network
        for i in network.layers.indices {
            network.layers[i].kind = try network.layers[i].kind.operation.mappingParameters { _, tensor in
                let floats = try tensor.floats()
                values.append(floats)
                defer { written += floats.count }
                return WeightTensor(shape: tensor.shape, span: FileSpan(path: valuesName, byteOffset: written * 4, count: floats.count))
            }
        }
        let header = Header(
            format: formatName, version: formatVersion, valueCount: written, network: network, inputDeclaration: loaded.inputDeclaration)
        return (header, values)
    }

    /// Writes `loaded` to `descriptor` (the helper's standard output).
    package static func write(_ loaded: Loaded, to descriptor: Int32) throws {
        let (header, values) = try header(loaded)
        try write(header, values: values, to: descriptor)
    }

    /// Writes the stream of `header` and `values` (tests change a header before they write it).
    static func write(_ header: Header, values: [[Float]], to descriptor: Int32) throws {
        let json = try encoder().encode(header)
        var written = 0
        func send(_ bytes: UnsafeRawBufferPointer) throws {
            try OutputFile.writeAll(bytes, to: descriptor, path: nil, at: written)
            written += bytes.count
        }
        var prefix = magic
        withUnsafeBytes(of: UInt64(json.count).littleEndian) { prefix += $0 }
        try prefix.withUnsafeBytes(send)
        try json.withUnsafeBytes(send)
        for floats in values {
            #if _endian(little)
                try floats.withUnsafeBytes(send)
            #else
                try floats.map { $0.bitPattern.littleEndian }.withUnsafeBytes(send)
            #endif
        }
    }

    // MARK: Reading (the command)

    /// Reads what the helper writes to `descriptor` until it closes it, for the model files `paths`:
    /// the network with every tensor's values in memory, refused if it does not hold together, or the bytes
    /// of whatever else the helper wrote. `byteLimit` bounds what a hand-over may hold (the helper's data limit).
    package static func receive(from descriptor: Int32, paths: [String], byteLimit: Int) -> Received {
        let modelFile = paths.joined(separator: ", ")
        func refused(_ what: String) -> Received {
            .refused(FoldKitError(.badInput, "the HDF5 helper process handed back a model that does not hold together: \(what)", file: modelFile))
        }
        var prefix = [UInt8](repeating: 0, count: magic.count)
        let start = readFully(descriptor, &prefix, count: magic.count)
        guard start == magic.count, prefix == magic else {
            var data = Data(prefix.prefix(start))
            data.append(readToEnd(descriptor))
            return .other(data)
        }
        var stored: UInt64 = 0
        guard readFully(descriptor, &stored, count: 8) == 8 else { return refused("it ends inside its first bytes") }
        let length = UInt64(littleEndian: stored)
        guard length <= UInt64(byteLimit) else { return refused("a description of \(length) bytes") }
        var json = Data(count: Int(length))
        let got = json.withUnsafeMutableBytes { readFully(descriptor, $0.baseAddress, count: Int(length)) }
        guard got == Int(length) else { return refused("it ends inside its description") }
        let header: Header
        do { header = try decoder().decode(Header.self, from: json) } catch { return refused("its description is not one foldkit writes") }
        guard header.format == formatName, header.version == formatVersion else {
            return refused("description format '\(header.format)' version \(header.version), not '\(formatName)' version \(formatVersion)")
        }
        guard header.valueCount >= 0, header.valueCount <= (byteLimit - Int(length)) / 4 else {
            return refused("\(header.valueCount) values, more than the helper may hold")
        }
        var network = header.network
        var offset = 0
        do {
            for i in network.layers.indices {
                let label = network.layers[i].label
                network.layers[i].kind = try network.layers[i].kind.operation.mappingParameters { role, tensor in
                    func fail(_ what: String) -> FoldKitError {
                        FoldKitError(
                            .badInput,
                            "the HDF5 helper process handed back a model that does not hold together: \(label): \(role.readableName) \(what)",
                            file: modelFile)
                    }
                    guard case .file(let span) = tensor.storage, span.path == valuesName else { throw fail("is not a span of the values") }
                    guard span.byteOffset == offset * 4, span.count >= 0, span.count <= header.valueCount - offset else {
                        throw fail("is not the next \(span.count) of the \(header.valueCount) values")
                    }
                    guard SizeLimits.elementCount(tensor.shape) == span.count else {
                        throw fail("of shape \(tensor.shape) holds \(span.count) values")
                    }
                    let floats = try [Float](unsafeUninitializedCapacity: span.count) { buffer, initialized in
                        initialized = 0
                        guard span.count > 0 else { return }
                        guard readFully(descriptor, buffer.baseAddress, count: span.count * 4) == span.count * 4 else {
                            throw fail("ends before its values do")
                        }
                        #if _endian(big)
                            for k in 0..<span.count { buffer[k] = Float(bitPattern: UInt32(littleEndian: buffer[k].bitPattern)) }
                        #endif
                        initialized = span.count
                    }
                    offset += span.count
                    return WeightTensor(shape: tensor.shape, values: floats)
                }
            }
        } catch let error as FoldKitError {
            return .refused(error)
        } catch {
            return refused("\(error)")
        }
        guard offset == header.valueCount else { return refused("\(offset) of its \(header.valueCount) values belong to tensors") }
        var extra: UInt8 = 0
        guard readFully(descriptor, &extra, count: 1) == 0 else { return refused("more bytes after its values") }
        do { try check(network, paths: paths) } catch let error as FoldKitError {
            return refused(error.description)
        } catch {
            return refused("\(error)")
        }
        return .model(Loaded(network: network, inputDeclaration: header.inputDeclaration))
    }

    /// Reads up to `count` bytes into `buffer`, fewer only at the end of the stream; returns how many.
    private static func readFully(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, count: Int) -> Int {
        guard let buffer, count > 0 else { return 0 }
        var done = 0
        while done < count {
            let n = systemRead(descriptor, buffer + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return done
            }
            if n == 0 { return done }
            done += n
        }
        return done
    }

    private static func readToEnd(_ descriptor: Int32) -> Data {
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = readFully(descriptor, &chunk, count: chunk.count)
            data.append(contentsOf: chunk.prefix(n))
            if n < chunk.count { return data }
        }
    }

    /// The checks a reader's own output passes by construction: a Keras network of the files given, every
    /// layer at its index reading layers before it, every output shape what its kind computes from its
    /// inputs (which checks weight counts) and within FoldKit's activation limit, every blob the layer
    /// writes of its stated size, every batch norm's statistics one per channel, the outputs existing layers.
    static func check(_ network: Network, paths: [String]) throws {
        func fail(_ what: String) -> FoldKitError { FoldKitError(.badInput, what) }
        guard network.format == .keras else { throw fail("a \(network.format.rawValue) network from a Keras file") }
        guard network.sourceFiles.sorted() == paths.sorted() else {
            throw fail("source files \(network.sourceFiles) for the files given, \(paths)")
        }
        let input = network.inputShape
        guard input.channels > 0, input.height > 0, input.width > 0, !network.layers.isEmpty else {
            throw fail("input \(input) and \(network.layers.count) layers")
        }
        try SizeLimits.checkActivation(input, file: nil, line: nil, layer: "input")
        for (i, layer) in network.layers.enumerated() {
            guard layer.index == i else { throw fail("layer \(i) says it is layer \(layer.index)") }
            guard !layer.inputs.isEmpty, layer.inputs.allSatisfy({ $0 == Network.inputIndex || (0..<i).contains($0) }) else {
                throw fail("\(layer.label) reads \(layer.inputs)")
            }
            let inputShapes = layer.inputs.map(network.shape(of:))
            let shape = try layer.kind.outputShape(for: inputShapes)
            guard shape == layer.outputShape else { throw fail("\(layer.label): output \(layer.outputShape) where its kind gives \(shape)") }
            try SizeLimits.checkActivation(shape, file: nil, line: nil, layer: layer.label)
            for plan in layer.kind.operation.blobs(inputShapes: inputShapes, outputShape: shape) {
                if let tensor = plan.tensor, tensor.count != plan.count {
                    throw fail("\(layer.label): \(plan.role.readableName) holds \(tensor.count) values, its blob \(plan.count)")
                }
            }
            let statistics: (BatchNorm, Int)?
            switch layer.kind {
            case .convolution(let c): statistics = c.batchNorm.map { ($0, c.outputChannels) }
            case .fullyConnected(let f): statistics = f.batchNorm.map { ($0, f.outputCount) }
            case .batchNorm(let bn): statistics = (bn, inputShapes[0].channels)
            default: statistics = nil
            }
            if let (bn, channels) = statistics {
                for (role, tensor) in bn.parameters where tensor.count != channels {
                    throw fail("\(layer.label): \(role.readableName) holds \(tensor.count) values for \(channels) channels")
                }
            }
        }
        for output in network.outputs where !network.layers.indices.contains(output) {
            throw fail("output \(output) of \(network.layers.count) layers")
        }
    }
}

#if canImport(Glibc)
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    private let systemRead = Darwin.read
#endif
