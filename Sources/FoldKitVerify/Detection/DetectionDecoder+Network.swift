import FoldKitCore
import FoldKitDetection
import Foundation

/// Decoding the heads of a `Network` run by the executor: the same `DetectionDecoder` an app's
/// FoldKitLoader uses, fed with the executor's per-layer outputs.
extension DetectionDecoder {
    /// `decode(head:...)` for a head tensor of `shape` in a network whose input is `networkInput`.
    package static func decode(
        head: DetectionHead, headIndex: Int = 0, output: UnsafeBufferPointer<Float>, shape: ActivationShape, networkInput: ActivationShape,
        threshold: Float
    ) -> [Detection] {
        decode(
            head: head, headIndex: headIndex, output: output, channels: shape.channels, height: shape.height, width: shape.width,
            inputWidth: networkInput.width, inputHeight: networkInput.height, threshold: threshold)
    }

    /// Decodes every detection head of `network` from per-layer outputs, before NMS.
    static func candidates(network: Network, outputs: [[Float]], threshold: Float) -> [Detection] {
        decodeHeads(network: network, outputs: outputs, threshold: threshold, networkName: "candidate").boxes
    }

    /// The head numbers (as `decodeHeads` counts them) of the heads with a class tree.
    static func classDecisionHeads(of network: Network) -> Set<Int> {
        let heads = network.layers.compactMap { layer -> DetectionHead? in
            if case .detection(let head) = layer.kind { return head } else { return nil }
        }
        return Set(heads.indices.filter { heads[$0].tree != nil })
    }

    /// Decodes every detection head of `network` from per-layer outputs, before NMS, with the channels
    /// that made boxes non-finite (reported as `networkName`'s hazards).
    package static func decodeHeads(network: Network, outputs: [[Float]], threshold: Float, networkName: String) -> DecodedBoxes {
        var decoded = DecodedBoxes(boxes: [])
        var headIndex = 0
        for layer in network.layers {
            guard case .detection(let head) = layer.kind else { continue }
            var overflows: [Int: (value: Float, boxes: Int)] = [:]
            outputs[layer.index].withUnsafeBufferPointer { buffer in
                let shape = layer.outputShape
                decoded.boxes += decode(
                    head: head, headIndex: headIndex, output: buffer,
                    channels: shape.channels, height: shape.height, width: shape.width,
                    inputWidth: network.inputShape.width, inputHeight: network.inputShape.height, threshold: threshold,
                    overflows: &overflows)
            }
            decoded.overflows += overflows.keys.sorted().map { channel in
                BoxOverflowHazard(
                    network: networkName, layer: layer.index, channel: channel, value: overflows[channel]?.value ?? 0,
                    boxes: overflows[channel]?.boxes ?? 0)
            }
            headIndex += 1
        }
        return decoded
    }
}
