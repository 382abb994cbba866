import FoldKitCore
import Foundation

/// Reads a Darknet .cfg (and optionally its .weights) into a `Network`.
///
/// - Every section after [net] becomes exactly one layer, so `Layer.index` (and `Layer.name`,
///   `String(index)`) is darknet's layer number, which [route]/[shortcut] references and OpenCV's
///   layer names use. [dropout], [cost] and [empty] become `.identity`.
/// - The input is `channels x height x width` from [net] (`inputOrder` .channelsFirst).
/// - Tensors are `FileSpan`s into the weights file: nothing is read here, so large models stream.
///   Without a weights file they are zero-filled in memory (for shape-only use).
/// - Every byte of the weights file is accounted for: after the header, the tensors the cfg implies
///   must fill the file exactly. A short file is an error naming the layer whose tensor is cut off and
///   its byte offset; extra bytes are an error naming the offset where they start.
/// - `metadata`: `weightsVersion` ("0.2.5"), `seen`, `headerBytes` (16 or 20) and `weightsFloats`
///   (the float count after the header) when a weights file is given.
/// - `outputs`: the [yolo]/[region] layers if there are any, else the last layer.
///
/// See Docs/Formats/Darknet.md for every section and option, and what is refused.
public enum DarknetReader {
    /// weightsPath nil: parameters are zero-filled in-memory tensors (for shape-only use like inspect of a cfg).
    public static func read(cfgPath: String, weightsPath: String?, options: DarknetReadOptions = .init()) throws -> Network {
        let cfg = try CfgParser.parse(path: cfgPath)
        var header: DarknetWeightsHeader?
        var fileSize = 0
        if let weightsPath {
            let size = try fileByteCount(weightsPath)
            header = try DarknetWeightsHeader.read(path: weightsPath)
            fileSize = size
        }
        let (network, cursor) = try build(cfg, weightsPath: weightsPath, dataOffset: header?.byteCount ?? 20, options: options)
        guard let weightsPath, let header else { return network }

        try checkFileSize(plan: cursor.plan, end: cursor.offset, fileSize: fileSize, header: header, path: weightsPath)
        if header.connectedWeightsTransposed,
            let layer = network.layers.first(where: { if case .fullyConnected = $0.kind { return true } else { return false } })
        {
            throw FoldKitError(
                .unsupported, "weights version \(header.version) stores [connected] weights transposed; not supported",
                file: weightsPath, layer: layer.label, byteOffset: layer.source.weightsByteRange?.lowerBound)
        }
        var result = network
        result.metadata.weightsVersion = header.version
        result.metadata.seen = header.seen
        result.metadata.headerBytes = header.byteCount
        result.metadata.weightsFloats = (cursor.offset - header.byteCount) / 4
        return result
    }

    /// Builds the network from a parsed cfg, taking tensors from a cursor that starts at `dataOffset`.
    /// Returns the cursor too: its `plan` lists every tensor in file order.
    static func build(_ cfg: CfgFile, weightsPath: String?, dataOffset: Int, options: DarknetReadOptions) throws -> (Network, WeightsCursor) {
        guard let net = cfg.sections.first else {
            throw FoldKitError(.badInput, "the .cfg file has no sections", file: cfg.path)
        }
        guard net.name == "net" || net.name == "network" else {
            throw FoldKitError(
                .badInput, "the first section must be [net]", file: cfg.path, line: net.line, layer: net.header,
                expected: "[net]", found: net.header)
        }
        let inputShape = try NetSection.inputShape(net, options: options)
        let cursor = WeightsCursor(path: weightsPath, dataOffset: dataOffset)
        var builder = NetworkBuilder(inputShape: inputShape)
        // Files sections read besides the cfg and weights (class trees): sources too, their digests go into
        // manifests and reports. They come before the weights, which stay the last source file.
        var sectionFiles: [String] = []
        for section in cfg.sections.dropFirst() {
            let index = builder.layers.count
            let start = cursor.offset
            let built: BuiltLayer
            do {
                // The context holds a copy of the builder: it must be gone before `append`, or appending copies
                // every layer built so far (parsing would be quadratic in the number of sections).
                let context = SectionContext(section: section, index: index, builder: builder, cursor: cursor, options: options)
                built = try buildLayer(context)
            }
            let end = cursor.offset
            let source = LayerSource(
                file: cfg.path, section: section.header, line: section.line,
                weightsByteRange: weightsPath != nil && end > start ? start..<end : nil)
            try builder.append(kind: built.kind, inputs: built.inputs, source: source)
            sectionFiles += built.sourceFiles.filter { !sectionFiles.contains($0) }
        }
        guard !builder.layers.isEmpty else {
            throw FoldKitError(.badInput, "the .cfg file has no layers after [net]", file: cfg.path, line: net.line)
        }
        let heads = builder.layers.filter { if case .detection = $0.kind { return true } else { return false } }.map(\.index)
        // [net] letter_box (darknet's parse_net_options): 1 = the detector fits images with letterbox_image.
        var metadata = NetworkMetadata()
        metadata.letterBox = try net.int("letter_box", default: 0)
        let network = Network(
            format: .darknet, sourceFiles: [cfg.path] + sectionFiles + (weightsPath.map { [$0] } ?? []), inputShape: inputShape,
            inputOrder: .channelsFirst, layers: builder.layers, outputs: heads, epsilonConvention: options.epsilon,
            metadata: metadata, layerIdentity: .index, vectorsAreRank2: false,
            parametersArePlaceholders: weightsPath == nil)
        return (network, cursor)
    }

    /// Maps one section onto a layer kind (section names and aliases as darknet's `string_to_layer_type`).
    static func buildLayer(_ context: SectionContext) throws -> BuiltLayer {
        switch context.section.name {
        case "convolutional", "conv": return try ConvolutionalSection.build(context)
        case "connected", "conn": return try ConnectedSection.build(context)
        case "local": return try LocalSection.build(context)
        case "batchnorm": return try BatchNormSection.build(context)
        case "maxpool", "max": return try PoolingSection.build(context, kind: .max)
        case "local_avgpool", "local_avg": return try PoolingSection.build(context, kind: .average)
        case "avgpool", "avg": return try GlobalAveragePoolSection.build(context)
        case "softmax", "soft": return try SoftmaxSection.build(context)
        case "crop": return try CropSection.build(context)
        case "contrastive": return try ContrastiveSection.build(context)
        case "dropout": return try IdentitySection.build(context, reason: "dropout")
        case "cost": return try IdentitySection.build(context, reason: "cost")
        case "empty", "silence": return try IdentitySection.build(context, reason: "empty")
        case "activation": return try ActivationSection.build(context)
        case "route": return try RoutingSections.route(context)
        case "shortcut": return try RoutingSections.shortcut(context)
        case "scale_channels": return try RoutingSections.scaleChannels(context)
        case "sam": return try RoutingSections.sam(context)
        case "upsample": return try ResamplingSections.upsample(context)
        case "reorg": return try ResamplingSections.reorg(context, flavor: .darknetReorg)
        case "reorg3d": return try ResamplingSections.reorg(context, flavor: .darknetReorg3d)
        case "yolo": return try DetectionSections.yolo(context)
        case "Gaussian_yolo": return try DetectionSections.gaussianYolo(context)
        case "region": return try DetectionSections.region(context)
        case "detection": return try DetectionSections.detection(context)
        case "net", "network":
            throw context.error(.badInput, "[net] may only be the first section")
        default:
            throw context.error(.unsupported, "unsupported layer \(context.section.header)")
        }
    }

    /// Compares the bytes the cfg implies with the file size; names the cut-off tensor or the extra bytes.
    static func checkFileSize(plan: [PlannedTensor], end: Int, fileSize: Int, header: DarknetWeightsHeader, path: String) throws {
        let expectation = "\(end) bytes (\(header.byteCount)-byte header + \((end - header.byteCount) / 4) floats)"
        if fileSize < end {
            let cut = plan.first { $0.byteOffset + $0.byteCount > fileSize }
            let available = max(0, fileSize - (cut?.byteOffset ?? fileSize))
            throw FoldKitError(
                .badInput,
                "weights file ends inside the \(cut?.role.readableName ?? "tensors") of this layer (\(cut?.count ?? 0) floats = \(cut?.byteCount ?? 0) bytes, \(available) present)",
                file: path, layer: cut?.layerLabel, byteOffset: cut?.byteOffset ?? fileSize,
                expected: expectation, found: "\(fileSize) bytes")
        }
        if fileSize > end {
            throw FoldKitError(
                .badInput, "\(fileSize - end) bytes left over after the last tensor the cfg describes",
                file: path, layer: plan.last.map { "after \($0.layerLabel)" }, byteOffset: end,
                expected: expectation, found: "\(fileSize) bytes")
        }
    }

    static func fileByteCount(_ path: String) throws -> Int {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            guard let size = (attributes[.size] as? NSNumber)?.intValue else {
                throw FoldKitError(.io, "cannot read the weights file size", file: path)
            }
            return size
        } catch let error as FoldKitError {
            throw error
        } catch {
            throw FoldKitError(.io, "cannot open the weights file: \(error.localizedDescription)", file: path)
        }
    }
}
