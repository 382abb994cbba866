#if canImport(Accelerate)
    import Accelerate
#else
    import CVectorMath
#endif

/// Elementary functions over arrays, y[i] = f(x[i]) for i in 0..<count, in the executor's precision;
/// `x` and `y` may be the same memory (in place).
///
/// Linux: the CVectorMath target, which calls SLEEF's AVX2 entry points (Sleef_expf8_u10avx2,
/// Sleef_expd4_u10avx2, ...) when the CPU has AVX2 and FMA, SLEEF's SSE2 entry points otherwise (or the C
/// library's functions without SLEEF). Apple: vForce (vvexpf, vvexp, ...). Accuracy: at most 1 ulp for
/// SLEEF's u10 functions; see Docs/Activations.md for what the activations built on them reach.
enum VectorMath {
    /// y = e^x
    @inline(__always)
    static func exponential<Scalar: ExecutorScalar>(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>, _ count: Int) {
        if let (xf, yf) = asFloat(x, y) {
            exponential(xf, yf, count)
        } else if let (xd, yd) = asDouble(x, y) {
            exponential(xd, yd, count)
        } else {
            for i in 0..<count { y[i] = Scalar.exponential(x[i]) }
        }
    }

    /// y = e^x - 1, accurate near x = 0.
    @inline(__always)
    static func exponentialMinusOne<Scalar: ExecutorScalar>(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>, _ count: Int) {
        if let (xf, yf) = asFloat(x, y) {
            exponentialMinusOne(xf, yf, count)
        } else if let (xd, yd) = asDouble(x, y) {
            exponentialMinusOne(xd, yd, count)
        } else {
            for i in 0..<count { y[i] = Scalar.exponential(x[i]) - 1 }
        }
    }

    /// y = ln(1 + x), accurate near x = 0.
    @inline(__always)
    static func logOnePlus<Scalar: ExecutorScalar>(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>, _ count: Int) {
        if let (xf, yf) = asFloat(x, y) {
            logOnePlus(xf, yf, count)
        } else if let (xd, yd) = asDouble(x, y) {
            logOnePlus(xd, yd, count)
        } else {
            for i in 0..<count { y[i] = Scalar.logOnePlus(x[i]) }
        }
    }

    /// y = tanh(x)
    @inline(__always)
    static func hyperbolicTangent<Scalar: ExecutorScalar>(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>, _ count: Int) {
        if let (xf, yf) = asFloat(x, y) {
            hyperbolicTangent(xf, yf, count)
        } else if let (xd, yd) = asDouble(x, y) {
            hyperbolicTangent(xd, yd, count)
        } else {
            for i in 0..<count { y[i] = Scalar.hyperbolicTangent(x[i]) }
        }
    }

    @inline(__always)
    private static func asFloat<Scalar>(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>)
        -> (UnsafePointer<Float>, UnsafeMutablePointer<Float>)?
    {
        guard Scalar.self == Float.self else { return nil }
        return (UnsafeRawPointer(x).assumingMemoryBound(to: Float.self), UnsafeMutableRawPointer(y).assumingMemoryBound(to: Float.self))
    }

    @inline(__always)
    private static func asDouble<Scalar>(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>)
        -> (UnsafePointer<Double>, UnsafeMutablePointer<Double>)?
    {
        guard Scalar.self == Double.self else { return nil }
        return (UnsafeRawPointer(x).assumingMemoryBound(to: Double.self), UnsafeMutableRawPointer(y).assumingMemoryBound(to: Double.self))
    }
}

#if canImport(Accelerate)
    extension VectorMath {
        static func exponential(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
            var n = Int32(count); vvexpf(y, x, &n)
        }
        static func exponential(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
            var n = Int32(count); vvexp(y, x, &n)
        }
        static func exponentialMinusOne(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
            var n = Int32(count); vvexpm1f(y, x, &n)
        }
        static func exponentialMinusOne(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
            var n = Int32(count); vvexpm1(y, x, &n)
        }
        static func logOnePlus(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
            var n = Int32(count); vvlog1pf(y, x, &n)
        }
        static func logOnePlus(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
            var n = Int32(count); vvlog1p(y, x, &n)
        }
        static func hyperbolicTangent(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) {
            var n = Int32(count); vvtanhf(y, x, &n)
        }
        static func hyperbolicTangent(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) {
            var n = Int32(count); vvtanh(y, x, &n)
        }

        /// Whether the SLEEF AVX2 path is in use (never on Apple: vForce chooses its own code).
        static var usesAVX2: Bool { false }
        /// Forces the portable path (no effect on Apple).
        static func forceFallback(_ force: Bool) {}
    }
#else
    extension VectorMath {
        static func exponential(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) { cvm_exp_f32(x, y, count) }
        static func exponential(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) { cvm_exp_f64(x, y, count) }
        static func exponentialMinusOne(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) { cvm_expm1_f32(x, y, count) }
        static func exponentialMinusOne(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) { cvm_expm1_f64(x, y, count) }
        static func logOnePlus(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) { cvm_log1p_f32(x, y, count) }
        static func logOnePlus(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) { cvm_log1p_f64(x, y, count) }
        static func hyperbolicTangent(_ x: UnsafePointer<Float>, _ y: UnsafeMutablePointer<Float>, _ count: Int) { cvm_tanh_f32(x, y, count) }
        static func hyperbolicTangent(_ x: UnsafePointer<Double>, _ y: UnsafeMutablePointer<Double>, _ count: Int) { cvm_tanh_f64(x, y, count) }

        /// Whether the SLEEF AVX2 path is in use now (SLEEF present, CPU with AVX2 and FMA, not forced off).
        static var usesAVX2: Bool { cvm_active_path() == CVectorMathPathAVX2 }
        /// Forces the portable path (SLEEF's SSE2 entry points) or restores the automatic choice; for tests
        /// that check both paths.
        static func forceFallback(_ force: Bool) { cvm_force_fallback(force ? 1 : 0) }
    }
#endif
