import FoldKitCore
import Foundation

/// Layout conversions and padding rules shared by the Keras layer translators.
enum KerasLayout {
    /// TensorFlow's 'same' padding along one axis: with out = ceil(in / stride),
    /// total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - in, 0);
    /// before = total / 2 (rounded down), after = total - before.
    static func samePadding(input: Int, kernel: Int, stride: Int, dilation: Int = 1) -> (before: Int, after: Int) {
        let out = (input + stride - 1) / stride
        let total = max((out - 1) * stride + (kernel - 1) * dilation + 1 - input, 0)
        return (total / 2, total - total / 2)
    }

    /// Keras/TensorFlow kernel (kh, kw, in, out) -> OIHW: dst[((o*I + i)*kh + y)*kw + x] = src[((y*kw + x)*I + i)*O + o].
    /// With `flip`, the kernel is also rotated by 180 degrees (y -> kh-1-y, x -> kw-1-x), which turns a
    /// Theano true-convolution kernel into a cross-correlation kernel.
    static func hwioToOIHW(_ src: [Float], kh: Int, kw: Int, inChannels: Int, outChannels: Int, flip: Bool = false) -> [Float] {
        let spatial = kh * kw
        guard src.count == spatial * inChannels * outChannels else {
            // Shapes are checked by the callers; keep the element-by-element form for anything else.
            var dst = [Float](repeating: 0, count: src.count)
            for y in 0..<kh {
                for x in 0..<kw {
                    let (sy, sx) = flip ? (kh - 1 - y, kw - 1 - x) : (y, x)
                    for i in 0..<inChannels {
                        let srcBase = ((sy * kw + sx) * inChannels + i) * outChannels
                        for o in 0..<outChannels { dst[((o * inChannels + i) * kh + y) * kw + x] = src[srcBase + o] }
                    }
                }
            }
            return dst
        }
        // Blocks of 16 output channels: each source read is one cache line, each of the 16 destination
        // rows is written front to back.
        return [Float](unsafeUninitializedCapacity: src.count) { dst, initialized in
            src.withUnsafeBufferPointer { source in
                guard let s = source.baseAddress, let d = dst.baseAddress else { return }
                // Source kernel position for each destination position (rotated by 180 degrees with `flip`).
                let sourcePosition = (0..<spatial).map { p in flip ? spatial - 1 - p : p }
                let row = inChannels * spatial
                let block = 16
                var o0 = 0
                while o0 < outChannels {
                    let o1 = min(o0 + block, outChannels)
                    for i in 0..<inChannels {
                        for p in 0..<spatial {
                            let from = s + (sourcePosition[p] * inChannels + i) * outChannels + o0
                            var to = d + o0 * row + i * spatial + p
                            for o in 0..<(o1 - o0) {
                                to.pointee = from[o]
                                to += row
                            }
                        }
                    }
                    o0 = o1
                }
            }
            initialized = src.count
        }
    }

    /// Keras 1 Theano-ordered kernel (out, in, kh, kw), already OIHW; with `flip` rotated by 180 degrees.
    static func oihw(_ src: [Float], outChannels: Int, inChannels: Int, kh: Int, kw: Int, flip: Bool) -> [Float] {
        guard flip else { return src }
        var dst = [Float](repeating: 0, count: src.count)
        for oi in 0..<(outChannels * inChannels) {
            for y in 0..<kh {
                for x in 0..<kw {
                    dst[(oi * kh + y) * kw + x] = src[(oi * kh + (kh - 1 - y)) * kw + (kw - 1 - x)]
                }
            }
        }
        return dst
    }

    /// Depthwise kernel (kh, kw, in, m) -> OIHW with groups = in and one input channel per group:
    /// output channel o = i*m + j, dst[(o*kh + y)*kw + x] = src[((y*kw + x)*in + i)*m + j].
    static func depthwiseToOIHW(_ src: [Float], kh: Int, kw: Int, inChannels: Int, multiplier: Int, flip: Bool = false) -> [Float] {
        var dst = [Float](repeating: 0, count: src.count)
        for y in 0..<kh {
            for x in 0..<kw {
                let (sy, sx) = flip ? (kh - 1 - y, kw - 1 - x) : (y, x)
                for i in 0..<inChannels {
                    for j in 0..<multiplier {
                        dst[((i * multiplier + j) * kh + y) * kw + x] = src[((sy * kw + sx) * inChannels + i) * multiplier + j]
                    }
                }
            }
        }
        return dst
    }

    /// Dense kernel (in, out) -> [out][in].
    static func transpose(_ src: [Float], rows: Int, columns: Int) -> [Float] {
        guard src.count == rows * columns else {
            var dst = [Float](repeating: 0, count: src.count)
            for r in 0..<rows {
                for c in 0..<columns { dst[c * rows + r] = src[r * columns + c] }
            }
            return dst
        }
        // Tiles of 16 x 16 so that reads and writes both stay within a few cache lines.
        return [Float](unsafeUninitializedCapacity: src.count) { dst, initialized in
            src.withUnsafeBufferPointer { source in
                guard let s = source.baseAddress, let d = dst.baseAddress else { return }
                let tile = 16
                var r0 = 0
                while r0 < rows {
                    let r1 = min(r0 + tile, rows)
                    var c0 = 0
                    while c0 < columns {
                        let c1 = min(c0 + tile, columns)
                        for r in r0..<r1 {
                            for c in c0..<c1 { d[c * rows + r] = s[r * columns + c] }
                        }
                        c0 = c1
                    }
                    r0 = r1
                }
            }
            initialized = src.count
        }
    }

    /// Keras' `naming.to_snake_case`: drop non-word characters, then `(.)([A-Z][a-z]+)` -> `\1_\2`,
    /// `([a-z])([A-Z])` -> `\1_\2`, lower-cased (`PReLU` -> `p_re_lu`, `Conv2D` -> `conv2d`).
    static func snakeCase(_ className: String) -> String {
        var chars = Array(className.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "_" })
        func isUpper(_ c: Unicode.Scalar) -> Bool { c.value >= 65 && c.value <= 90 }
        func isLower(_ c: Unicode.Scalar) -> Bool { c.value >= 97 && c.value <= 122 }
        // Pass 1: before every uppercase letter followed by lowercase letters, if something precedes it.
        // Python's re.sub scans left to right without overlap: a match consumes (.)([A-Z][a-z]+).
        var out: [Unicode.Scalar] = []
        var i = 0
        while i < chars.count {
            let j = i + 1
            if j + 1 < chars.count, isUpper(chars[j]), isLower(chars[j + 1]) {
                var end = j + 1
                while end < chars.count, isLower(chars[end]) { end += 1 }
                out.append(chars[i]); out.append("_")
                out.append(contentsOf: chars[j..<end])
                i = end
                continue
            }
            out.append(chars[i])
            i += 1
        }
        chars = out
        out = []
        // Pass 2: ([a-z])([A-Z]) -> \1_\2 (non-overlapping, left to right).
        i = 0
        while i < chars.count {
            if i + 1 < chars.count, isLower(chars[i]), isUpper(chars[i + 1]) {
                out.append(chars[i]); out.append("_"); out.append(chars[i + 1])
                i += 2
                continue
            }
            out.append(chars[i])
            i += 1
        }
        return String(String.UnicodeScalarView(out)).lowercased()
    }
}
