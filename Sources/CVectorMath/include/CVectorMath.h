#ifndef CVECTORMATH_H
#define CVECTORMATH_H

#include <stddef.h>

/// Element-wise elementary functions over arrays, y[i] = f(x[i]) for i in [0, n); x and y may be the
/// same array (in place). On Linux x86-64 with SLEEF (libsleef-dev) and an AVX2+FMA CPU the work goes
/// through SLEEF's 1.0-ulp AVX2 entry points (Sleef_expf8_u10avx2, Sleef_expd4_u10avx2, ...), chosen at
/// run time from the CPU's features; otherwise through SLEEF's SSE2 entry points (x86-64 with SLEEF) or
/// the C library's scalar functions. Accuracy: at most 1.0 ulp on the SLEEF paths (SLEEF's u10
/// functions); the C library's own bounds otherwise (glibc's manual lists them per function).

/// The evaluation path the array functions take.
typedef enum {
    /// SLEEF's AVX2 entry points (8 floats / 4 doubles per call).
    CVectorMathPathAVX2 = 0,
    /// SLEEF's SSE2 entry points on x86-64, the C library's scalar functions elsewhere.
    CVectorMathPathFallback = 1,
} CVectorMathPath;

/// The path the functions take now: AVX2 when SLEEF is present and the CPU supports AVX2 and FMA,
/// unless `cvm_force_fallback(1)` was called.
CVectorMathPath cvm_active_path(void);

/// Whether this build and CPU can take the AVX2 path at all.
int cvm_avx2_available(void);

/// Forces the fallback path (nonzero) or restores the automatic choice (zero). For tests that compare
/// both paths; not meant to be toggled while other threads evaluate.
void cvm_force_fallback(int force);

/// y = e^x
void cvm_exp_f32(const float *x, float *y, size_t n);
void cvm_exp_f64(const double *x, double *y, size_t n);
/// y = e^x - 1 (accurate near x = 0)
void cvm_expm1_f32(const float *x, float *y, size_t n);
void cvm_expm1_f64(const double *x, double *y, size_t n);
/// y = ln(1 + x) (accurate near x = 0)
void cvm_log1p_f32(const float *x, float *y, size_t n);
void cvm_log1p_f64(const double *x, double *y, size_t n);
/// y = tanh(x)
void cvm_tanh_f32(const float *x, float *y, size_t n);
void cvm_tanh_f64(const double *x, double *y, size_t n);

#endif
