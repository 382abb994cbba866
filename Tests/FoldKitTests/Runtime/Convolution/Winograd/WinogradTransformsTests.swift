import FoldKitCore
import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// The C transforms (`WinogradTransforms`) against a kernel-by-kernel and tile-by-tile evaluation of the same
/// formulas in Swift, to the bit. Weights: runs of 1 to 300 kernels (across the C code's 64-kernel chunks),
/// Float and Double. Rows: both builds (AVX2 where the CPU has it, and the baseline), Float and Double, F(2x2) and
/// F(4x4), planes of odd and even sizes with symmetric, asymmetric and no padding, runs of tiles that start
/// and end inside a tile row and rows longer than the C code's 64-tile chunks.
final class WinogradTransformsTests: XCTestCase {
    struct Shape {
        let height: Int, width: Int, padTop: Int, padLeft: Int, padBottom: Int, padRight: Int
        var outputHeight: Int { height + padTop + padBottom - 2 }
        var outputWidth: Int { width + padLeft + padRight - 2 }
    }

    let shapes = [
        Shape(height: 13, width: 13, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
        Shape(height: 8, width: 11, padTop: 0, padLeft: 0, padBottom: 1, padRight: 1),
        Shape(height: 9, width: 7, padTop: 0, padLeft: 0, padBottom: 0, padRight: 0),
        Shape(height: 5, width: 300, padTop: 1, padLeft: 1, padBottom: 1, padRight: 1),
        Shape(height: 3, width: 3, padTop: 1, padLeft: 2, padBottom: 1, padRight: 0),
        Shape(height: 4, width: 531, padTop: 2, padLeft: 0, padBottom: 0, padRight: 2),
    ]

    func geometry(_ s: Shape) -> ConvolutionGeometry {
        let conv = Convolution(
            inputChannels: 1, outputChannels: 1, kernelHeight: 3, kernelWidth: 3, strideY: 1, strideX: 1, dilationY: 1, dilationX: 1,
            padding: Padding2D(top: s.padTop, left: s.padLeft, bottom: s.padBottom, right: s.padRight), groups: 1,
            weights: WeightTensor(shape: [1, 1, 3, 3], values: []), bias: nil)
        return ConvolutionGeometry(
            conv, input: ActivationShape(channels: 1, height: s.height, width: s.width),
            output: ActivationShape(channels: 1, height: s.outputHeight, width: s.outputWidth))
    }

    /// Tile runs to transform in one call: whole rows, and runs that start and end inside a row.
    func runs(across: Int) -> [Range<Int>] {
        Array(Set([0..<across, 0..<1, (across - 1)..<across, (across / 3)..<max(across / 3 + 1, 2 * across / 3), (across / 2)..<across]))
            .filter { !$0.isEmpty && $0.upperBound <= across }
            .sorted { ($0.lowerBound, $0.upperBound) < ($1.lowerBound, $1.upperBound) }
    }

    func values<S: ExecutorScalar>(_ count: Int, seed: UInt64) -> [S] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return S(Double(Int64(bitPattern: state >> 11) % 2_000_001) / 1_000_000 - 1) * 3
        }
    }

    // MARK: tile-by-tile reference (the formulas of WinogradF2Convolution / WinogradF4Convolution)

    func referenceInput<S: ExecutorScalar>(_ kind: WinogradTransforms, plane: [S], _ g: ConvolutionGeometry, ty: Int, tx: Int) -> [S] {
        let side = kind == .f2 ? 2 : 4, p = side + 2
        var d = [S](repeating: 0, count: p * p)
        for i in 0..<p {
            for j in 0..<p {
                let y = ty * side - g.padTop + i, x = tx * side - g.padLeft + j
                if y >= 0 && y < g.input.height && x >= 0 && x < g.input.width { d[i * p + j] = plane[y * g.input.width + x] }
            }
        }
        var v = [S](repeating: 0, count: p * p)
        if kind == .f2 {
            var e = [S](repeating: 0, count: 16)
            for j in 0..<4 {
                e[j] = d[j] - d[8 + j]; e[4 + j] = d[4 + j] + d[8 + j]; e[8 + j] = d[8 + j] - d[4 + j]; e[12 + j] = d[4 + j] - d[12 + j]
            }
            for i in 0..<4 {
                let r = 4 * i
                v[r] = e[r] - e[r + 2]; v[r + 1] = e[r + 1] + e[r + 2]; v[r + 2] = e[r + 2] - e[r + 1]; v[r + 3] = e[r + 1] - e[r + 3]
            }
            return v
        }
        func column(_ c: [S]) -> [S] {
            let a = c[4] - 4 * c[2], b = c[3] - 4 * c[1], e = c[4] - c[2], f = 2 * (c[3] - c[1])
            return [4 * c[0] - 5 * c[2] + c[4], a + b, a - b, e + f, e - f, 4 * c[1] - 5 * c[3] + c[5]]
        }
        let columns = (0..<6).map { j in column((0..<6).map { d[6 * $0 + j] }) }  // columns[j][i]
        for i in 0..<6 {
            let row = column((0..<6).map { columns[$0][i] })
            for j in 0..<6 { v[6 * i + j] = row[j] }
        }
        return v
    }

    func referenceOutput<S: ExecutorScalar>(_ kind: WinogradTransforms, m: [S]) -> [S] {
        if kind == .f2 {
            var a = [S](repeating: 0, count: 4), b = [S](repeating: 0, count: 4)
            for j in 0..<4 {
                let m0: S = m[j], m1: S = m[4 + j], m2: S = m[8 + j], m3: S = m[12 + j]
                a[j] = m0 + m1 + m2
                b[j] = m1 - m2 - m3
            }
            let y0: S = a[0] + a[1] + a[2], y1: S = a[1] - a[2] - a[3]
            let y2: S = b[0] + b[1] + b[2], y3: S = b[1] - b[2] - b[3]
            return [y0, y1, y2, y3]
        }
        func column(_ q: [S]) -> [S] {
            let s12 = q[1] + q[2], d12 = q[1] - q[2], s34 = q[3] + q[4], d34 = q[3] - q[4]
            return [q[0] + s12 + s34, d12 + 2 * d34, s12 + 4 * s34, d12 + 8 * d34 + q[5]]
        }
        let a = (0..<6).map { j in column((0..<6).map { m[6 * $0 + j] }) }  // a[j][r]
        return (0..<4).flatMap { r in column((0..<6).map { a[$0][r] }) }
    }

    // MARK: checks

    /// The same value to the bit, sign of zero included (NaN marks what must stay unwritten).
    func same<S: ExecutorScalar>(_ a: S, _ b: S) -> Bool { (a.isNaN && b.isNaN) || (a == b && a.sign == b.sign) }

    func checkInput<S: ExecutorScalar>(_: S.Type, _ kind: WinogradTransforms, file: StaticString = #filePath, line: UInt = #line) {
        let side = kind == .f2 ? 2 : 4, points = (side + 2) * (side + 2)
        for (index, shape) in shapes.enumerated() {
            let g = geometry(shape)
            let plane: [S] = values(shape.height * shape.width, seed: UInt64(index + 1))
            let across = (g.output.width + side - 1) / side, down = (g.output.height + side - 1) / side
            for ty in 0..<down {
                for run in runs(across: across) {
                    let stride = run.count + 3
                    var v = [S](repeating: .nan, count: points * stride)
                    plane.withUnsafeBufferPointer { p in
                        v.withUnsafeMutableBufferPointer { out in
                            kind.input(
                                plane: p.baseAddress!, geometry: g, tileRow: ty, firstTile: run.lowerBound, count: run.count,
                                into: out.baseAddress!, pointStride: stride)
                        }
                    }
                    for (t, tx) in run.enumerated() {
                        let expected = referenceInput(kind, plane: plane, g, ty: ty, tx: tx)
                        for k in 0..<points where !same(v[k * stride + t], expected[k]) {
                            XCTFail(
                                "\(kind) \(S.self) input, shape \(index), tile (\(ty), \(tx)), point \(k): \(v[k * stride + t]) != \(expected[k])",
                                file: file, line: line)
                            return
                        }
                    }
                    // Nothing written past the run's tiles.
                    for k in 0..<points {
                        for t in run.count..<stride where !v[k * stride + t].isNaN {
                            XCTFail("\(kind) \(S.self) input wrote past its run", file: file, line: line)
                            return
                        }
                    }
                }
            }
        }
    }

    func checkOutput<S: ExecutorScalar>(_: S.Type, _ kind: WinogradTransforms, file: StaticString = #filePath, line: UInt = #line) {
        let side = kind == .f2 ? 2 : 4, points = (side + 2) * (side + 2)
        for (index, shape) in shapes.enumerated() {
            let g = geometry(shape)
            let outH = g.output.height, outW = g.output.width
            let across = (outW + side - 1) / side, down = (outH + side - 1) / side
            for ty in 0..<down {
                // Tile strides 1 (M as the products give it) and 3 (transposed products, read with a stride).
                for (run, tileStride) in runs(across: across).flatMap({ run in [(run, 1), (run, 3)] }) {
                    let stride = (run.count + 1) * tileStride
                    let m: [S] = values(points * stride, seed: UInt64(100 * index + ty + 7))
                    var output = [S](repeating: .nan, count: outH * outW)
                    let y0 = ty * side, rowCount = min(side, outH - y0)
                    let first = run.lowerBound * side, columnCount = min(run.upperBound * side, outW) - first
                    m.withUnsafeBufferPointer { q in
                        output.withUnsafeMutableBufferPointer { out in
                            kind.output(
                                m: q.baseAddress!, pointStride: stride, tileStride: tileStride, count: run.count,
                                rows: out.baseAddress! + y0 * outW + first,
                                outputWidth: outW, rowCount: rowCount, columnCount: columnCount)
                        }
                    }
                    var expected = [S](repeating: .nan, count: outH * outW)
                    for (t, tx) in run.enumerated() {
                        let tile = referenceOutput(kind, m: (0..<points).map { m[$0 * stride + t * tileStride] })
                        for r in 0..<side where y0 + r < outH {
                            for c in 0..<side where tx * side + c < outW { expected[(y0 + r) * outW + tx * side + c] = tile[r * side + c] }
                        }
                    }
                    for i in 0..<(outH * outW) where !same(output[i], expected[i]) {
                        XCTFail(
                            "\(kind) \(S.self) output, shape \(index), tile row \(ty), run \(run), tile stride \(tileStride), pixel \(i): \(output[i]) != \(expected[i])",
                            file: file, line: line)
                        return
                    }
                }
            }
        }
    }

    /// U = G g Gt of one 3x3 kernel g (row-major), in Double, point k = side * i + j.
    func referenceWeights(_ kind: WinogradTransforms, _ g: [Float]) -> [Double] {
        let d = g.map(Double.init)
        if kind == .f2 {
            func row(_ r0: Double, _ r1: Double, _ r2: Double) -> [Double] { [r0, 0.5 * (r0 + r1 + r2), 0.5 * (r0 - r1 + r2), r2] }
            let half1 = [0.5 * (d[0] + d[3] + d[6]), 0.5 * (d[1] + d[4] + d[7]), 0.5 * (d[2] + d[5] + d[8])]
            let half2 = [0.5 * (d[0] - d[3] + d[6]), 0.5 * (d[1] - d[4] + d[7]), 0.5 * (d[2] - d[5] + d[8])]
            return row(d[0], d[1], d[2]) + row(half1[0], half1[1], half1[2]) + row(half2[0], half2[1], half2[2]) + row(d[6], d[7], d[8])
        }
        func column(_ a: Double, _ b: Double, _ c: Double) -> [Double] {
            let p0: Double = a / 4, p1: Double = -(a + b + c) / 6, p2: Double = -(a - b + c) / 6
            let p3: Double = a / 24 + b / 12 + c / 6, p4: Double = a / 24 - b / 12 + c / 6
            return [p0, p1, p2, p3, p4, c]
        }
        let c0 = column(d[0], d[3], d[6]), c1 = column(d[1], d[4], d[7]), c2 = column(d[2], d[5], d[8])
        return (0..<6).flatMap { i in column(c0[i], c1[i], c2[i]) }
    }

    func checkWeights<S: ExecutorScalar>(_: S.Type, _ kind: WinogradTransforms, file: StaticString = #filePath, line: UInt = #line) {
        let points = kind == .f2 ? 16 : 36
        for pairs in [1, 63, 64, 65, 300] {
            let w: [Float] = values(9 * pairs, seed: UInt64(pairs))
            let planeStride = pairs + 5
            var u = [S](repeating: .nan, count: points * planeStride)
            w.withUnsafeBufferPointer { wp in
                u.withUnsafeMutableBufferPointer { kind.weights(wp.baseAddress!, pairs: pairs, into: $0.baseAddress!, planeStride: planeStride) }
            }
            for p in 0..<pairs {
                let expected = referenceWeights(kind, Array(w[(9 * p)..<(9 * p + 9)])).map { S($0) }
                for k in 0..<points where !same(u[k * planeStride + p], expected[k]) {
                    XCTFail(
                        "\(kind) \(S.self) weights, \(pairs) pairs, pair \(p), point \(k): \(u[k * planeStride + p]) != \(expected[k])",
                        file: file, line: line)
                    return
                }
            }
            for k in 0..<points {
                for p in pairs..<planeStride where !u[k * planeStride + p].isNaN {
                    XCTFail("\(kind) \(S.self) weights wrote past the run", file: file, line: line)
                    return
                }
            }
        }
    }

    func checkAll() {
        for kind in [WinogradTransforms.f2, .f4] {
            checkWeights(Float.self, kind); checkWeights(Double.self, kind)
            checkInput(Float.self, kind); checkInput(Double.self, kind)
            checkOutput(Float.self, kind); checkOutput(Double.self, kind)
        }
    }

    func testRowTransformsMatchTileByTileFormulas() {
        checkAll()
    }

    func testBaselineBuildMatchesTileByTileFormulas() {
        WinogradTransforms.withBaselineBuild { checkAll() }
    }
}
