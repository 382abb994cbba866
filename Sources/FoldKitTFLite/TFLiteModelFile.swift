import FoldKitCore
import Foundation

/// The .tflite file: a FlatBuffer of LiteRT's `Model` (Fixtures/litert/schema.fbs; file identifier "TFL3",
/// schema version 3), then the constants' bytes after it.
///
/// Each constant is a `Buffer` with `offset` (from the start of the file) and `size`, its bytes outside the
/// FlatBuffer: LiteRT's schema provides this for models past the FlatBuffer's 2 GB limit and its
/// interpreter reads `offset > 1` buffers from the file it mapped (tflite/core/interpreter_builder.cc), so
/// the weights are written to disk one tensor at a time and never copied into the builder. Each starts at a
/// multiple of 16 bytes (the alignment the schema asks of `Buffer.data`). Metadata buffers (small JSON texts) stay inside the FlatBuffer as `data`.
enum TFLiteModelFile {
    /// The alignment of each constant in the file.
    static let constantAlignment = 16

    /// Writes the model; returns the file's size in bytes.
    static func write(
        tensors: [TFLiteTensor], operations: [TFLiteOperation], constants: [TFLiteConstant], inputs: [Int], outputs: [Int],
        metadata: [(name: String, bytes: [UInt8])], description: String, to url: URL
    ) throws -> Int {
        // The FlatBuffer's size does not depend on the offsets (each is a ulong always written), so it is
        // built once to learn where the constants start, then again with their offsets.
        let probe = flatBuffer(
            tensors: tensors, operations: operations, constants: constants, offsets: constants.map { _ in 2 }, inputs: inputs, outputs: outputs,
            metadata: metadata, description: description)
        var offsets: [Int] = []
        var end = probe.count
        for constant in constants {
            end = (end + constantAlignment - 1) / constantAlignment * constantAlignment
            offsets.append(end)
            end += constant.byteCount
        }
        let model = flatBuffer(
            tensors: tensors, operations: operations, constants: constants, offsets: offsets, inputs: inputs, outputs: outputs,
            metadata: metadata, description: description)
        guard model.count == probe.count else {
            throw FoldKitError(.io, "the FlatBuffer changed size with the constants' offsets", file: url.path)
        }
        let file = try ModelFileAppender(url: url)
        try file.append(Data(model))
        for (constant, offset) in zip(constants, offsets) {
            if offset > file.written { try file.append(Data(count: offset - file.written)) }
            let bytes = try constant.produce()
            guard bytes.count == constant.byteCount else {
                throw FoldKitError(.io, "a constant gave \(bytes.count) bytes, \(constant.byteCount) planned", file: url.path)
            }
            try file.append(Data(bytes))
        }
        return file.written
    }

    /// The `Model` table (fields: 0 version, 1 operator_codes, 2 subgraphs, 3 description, 4 buffers,
    /// 6 metadata) with one subgraph (0 tensors, 1 inputs, 2 outputs, 3 operators, 4 name).
    static func flatBuffer(
        tensors: [TFLiteTensor], operations: [TFLiteOperation], constants: [TFLiteConstant], offsets: [Int], inputs: [Int], outputs: [Int],
        metadata: [(name: String, bytes: [UInt8])], description: String
    ) -> [UInt8] {
        var b = FlatBufferBuilder(capacity: 64 * 1024)
        // One OperatorCode per (builtin, version) (`TFLiteOperatorVersion`), in order of first use.
        struct Code: Equatable {
            var op: TFLiteOperator
            var version: Int32
        }
        let used = operations.map { Code(op: $0.op, version: TFLiteOperatorVersion.of($0, tensors: tensors)) }
        var codes: [Code] = []
        for code in used where !codes.contains(code) { codes.append(code) }

        // Buffers: 0 the empty sentinel, 1... the constants (offset, size), then the metadata (data).
        var buffers: [FlatBufferBuilder.Offset] = []
        b.startTable()
        buffers.append(b.endTable())
        for (constant, offset) in zip(constants, offsets) {
            b.startTable()
            b.add(1, UInt64(offset), force: true)
            b.add(2, UInt64(constant.byteCount), force: true)
            buffers.append(b.endTable())
        }
        var metadataBuffers: [Int] = []
        for entry in metadata {
            let data = b.bytes(entry.bytes, alignment: 16)
            b.startTable()
            b.add(0, data)
            metadataBuffers.append(buffers.count)
            buffers.append(b.endTable())
        }

        var tensorTables: [FlatBufferBuilder.Offset] = []
        for tensor in tensors {
            let shape = b.vector(tensor.shape.map { Int32($0) })
            let name = b.string(tensor.name)
            b.startTable()
            b.add(0, shape)
            b.add(1, tensor.type.rawValue)
            b.add(2, UInt32(tensor.buffer))
            b.add(3, name)
            tensorTables.append(b.endTable())
        }
        var operatorTables: [FlatBufferBuilder.Offset] = []
        for (operation, code) in zip(operations, used) {
            let inputVector = b.vector(operation.inputs.map { Int32($0) })
            let outputVector = b.vector(operation.outputs.map { Int32($0) })
            let options = operation.options.map { optionsTable($0, in: &b) }
            b.startTable()
            b.add(0, UInt32(codes.firstIndex(of: code) ?? 0))
            b.add(1, inputVector)
            b.add(2, outputVector)
            if let options, let union = operation.options?.union {
                b.add(3, union)
                b.add(4, options)
            }
            operatorTables.append(b.endTable())
        }
        let tensorVector = b.vector(tensorTables)
        let inputVector = b.vector(inputs.map { Int32($0) })
        let outputVector = b.vector(outputs.map { Int32($0) })
        let operatorVector = b.vector(operatorTables)
        let graphName = b.string("main")
        b.startTable()
        b.add(0, tensorVector)
        b.add(1, inputVector)
        b.add(2, outputVector)
        b.add(3, operatorVector)
        b.add(4, graphName)
        let subgraph = b.endTable()

        // OperatorCode: 0 deprecated_builtin_code (byte; 127 for the codes past it), 2 version, 3 builtin_code.
        var codeTables: [FlatBufferBuilder.Offset] = []
        for code in codes {
            b.startTable()
            b.add(0, Int8(min(code.op.rawValue, 127)))
            b.add(2, code.version, default: 1)
            b.add(3, code.op.rawValue)
            codeTables.append(b.endTable())
        }
        var metadataTables: [FlatBufferBuilder.Offset] = []
        for (entry, buffer) in zip(metadata, metadataBuffers) {
            let name = b.string(entry.name)
            b.startTable()
            b.add(0, name)
            b.add(1, UInt32(buffer))
            metadataTables.append(b.endTable())
        }
        let codeVector = b.vector(codeTables)
        let subgraphVector = b.vector([subgraph])
        let descriptionString = b.string(description)
        let bufferVector = b.vector(buffers)
        let metadataVector = b.vector(metadataTables)
        b.startTable()
        b.add(0, UInt32(3))
        b.add(1, codeVector)
        b.add(2, subgraphVector)
        b.add(3, descriptionString)
        b.add(4, bufferVector)
        b.add(6, metadataVector)
        let model = b.endTable()
        return b.finish(root: model, identifier: "TFL3")
    }

    private static func optionsTable(_ options: TFLiteOptions, in b: inout FlatBufferBuilder) -> FlatBufferBuilder.Offset {
        var vectors: [Int: FlatBufferBuilder.Offset] = [:]
        for (id, value) in options.fields {
            if case .int32s(let values) = value { vectors[id] = b.vector(values) }
        }
        b.startTable()
        for (id, value) in options.fields {
            switch value {
            case .int32(let v): b.add(id, v)
            case .byte(let v): b.add(id, v)
            case .bool(let v): b.add(id, UInt8(v ? 1 : 0))
            case .float(let v): b.add(id, float: v)
            case .int32s: if let vector = vectors[id] { b.add(id, vector) }
            }
        }
        return b.endTable()
    }
}
