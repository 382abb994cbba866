import FoldKitCore
import Foundation

/// ncnn's text param file (docs/developer-guide/param-and-model-file-structure.md in Tencent/ncnn):
///
///     7767517
///     <layer count> <blob count>
///     <Type> <name> <input count> <output count> <inputs...> <outputs...> <id>=<value> ...
///
/// Every blob is read by at most one layer: a blob that several layers read gets a `Split` right after the
/// layer that makes it, with one output per reader (`<blob>_splitncnn_<k>`), as ncnn's own converters write.
/// Arrays are `-23300-id=count,v,v,...`. Floats are written so that ncnn's own parser (paramdict.cpp's
/// vstr_to_float: the digits before and after the point as 32-bit integers, at most 15 characters, the
/// power of ten applied in double) reads back the very same float (`format`).
enum NCNNParamFile {
    /// ncnn's magic number, the file's first line.
    static let magic = 7_767_517

    /// `layers` with a `Split` inserted after the maker of every blob read by more than one layer (each
    /// reading of a blob counts, a layer reading it twice included).
    static func withSplits(_ layers: [NCNNLayer]) -> [NCNNLayer] {
        var readers: [String: Int] = [:]
        for layer in layers { for bottom in layer.bottoms { readers[bottom, default: 0] += 1 } }
        var next: [String: Int] = [:]
        var result: [NCNNLayer] = []
        result.reserveCapacity(layers.count)
        for var layer in layers {
            layer.bottoms = layer.bottoms.map { bottom in
                guard let n = readers[bottom], n > 1 else { return bottom }
                let k = next[bottom, default: 0]
                next[bottom] = k + 1
                return "\(bottom)_splitncnn_\(k)"
            }
            result.append(layer)
            for top in layer.tops {
                guard let n = readers[top], n > 1 else { continue }
                result.append(NCNNLayer(type: "Split", bottoms: [top], tops: (0..<n).map { "\(top)_splitncnn_\($0)" }))
            }
        }
        return result
    }

    /// The text of the param file for `layers` (Splits already in).
    static func text(_ layers: [NCNNLayer]) throws -> String {
        var blobs = Set<String>()
        for layer in layers { for top in layer.tops { blobs.insert(top) } }
        var lines = ["\(magic)", "\(layers.count) \(blobs.count)"]
        lines.reserveCapacity(layers.count + 2)
        for layer in layers {
            var fields = [
                layer.type.padding(toLength: max(layer.type.count, 16), withPad: " ", startingAt: 0),
                layer.name.padding(toLength: max(layer.name.count, 16), withPad: " ", startingAt: 0), "\(layer.bottoms.count)", "\(layer.tops.count)",
            ]
            fields += layer.bottoms + layer.tops
            for (id, value) in layer.params { fields.append(try entry(id: id, value: value, layer: layer.name)) }
            lines.append(fields.joined(separator: " "))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func entry(id: Int, value: NCNNParam, layer: String) throws -> String {
        switch value {
        case .int(let v): return "\(id)=\(v)"
        case .float(let v): return "\(id)=\(try format(v, layer: layer))"
        case .ints(let values): return "\(-23300 - id)=\(values.count)" + values.map { ",\($0)" }.joined()
        case .floats(let values): return "\(-23300 - id)=\(values.count)" + (try values.map { ",\(try format($0, layer: layer))" }.joined())
        }
    }

    /// `v` as text ncnn reads back as `v`: Swift's shortest decimal form when ncnn's parser gives `v` from
    /// it, else the first of `%.0e` ... `%.8e` that does. A value with no such text (not finite) is refused.
    static func format(_ v: Float, layer: String) throws -> String {
        let shortest = v.description
        if shortest.contains(where: { $0 == "." || $0 == "e" }), let read = parse(shortest), read.bitPattern == v.bitPattern {
            return shortest
        }
        for digits in 0...8 {
            let text = String(format: "%.\(digits)e", Double(v))
            if let read = parse(text), read.bitPattern == v.bitPattern { return text }
        }
        throw FoldKitError(.unsupported, "no exact ncnn lowering: a parameter value \(v) ncnn's param parser cannot read back", layer: layer)
    }

    /// ncnn's vstr_to_float (src/paramdict.cpp) on `text`, as the C code computes it; nil for text longer
    /// than the 15 characters ncnn scans.
    static func parse(_ text: String) -> Float? {
        let bytes = Array(text.utf8)
        guard bytes.count <= 15, !bytes.isEmpty else { return nil }
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] >= 48 && bytes[i] <= 57 }
        var i = 0
        let positive = bytes[0] != UInt8(ascii: "-")
        if bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-") { i += 1 }
        var whole: UInt32 = 0
        while isDigit(i) {
            whole = whole &* 10 &+ UInt32(bytes[i] - 48)
            i += 1
        }
        var v = Double(whole)
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            i += 1
            var power: UInt32 = 1, fraction: UInt32 = 0
            while isDigit(i) {
                fraction = fraction &* 10 &+ UInt32(bytes[i] - 48)
                power = power &* 10
                i += 1
            }
            v += Double(fraction) / Double(power)
        }
        if i < bytes.count && (bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E")) {
            i += 1
            let up = !(i < bytes.count && bytes[i] == UInt8(ascii: "-"))
            if i < bytes.count && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) { i += 1 }
            var exponent: UInt32 = 0
            while isDigit(i) {
                exponent = exponent &* 10 &+ UInt32(bytes[i] - 48)
                i += 1
            }
            var scale = 1.0
            while exponent >= 8 {
                scale *= 1e8
                exponent -= 8
            }
            while exponent > 0 {
                scale *= 10
                exponent -= 1
            }
            v = up ? v * scale : v / scale
        }
        return positive ? Float(v) : Float(-v)
    }
}
