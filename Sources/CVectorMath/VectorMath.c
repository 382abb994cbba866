// Array versions of exp, expm1, log1p and tanh: SLEEF (https://sleef.org, libsleef-dev) AVX2 entry
// points when the CPU has AVX2 and FMA, SLEEF's SSE2 entry points or the C library otherwise.
//
// sleef.h declares its AVX2 functions only when __AVX2__ is defined at compile time, and this target is
// compiled without -mavx2 (so that the binary runs on any x86-64). The AVX2 loops therefore live in
// functions carrying __attribute__((target("avx2,fma"))) and declare the SLEEF prototypes they call
// themselves, with the same attribute; they are only called after CCPUFeatures says the CPU has AVX2 and FMA.

#include "CVectorMath.h"
#include "CCPUFeatures.h"

#include <math.h>
#include <stdatomic.h>

#if defined(__has_include)
#  if __has_include(<sleef.h>) && defined(__x86_64__) && defined(__linux__)
#    define CVM_HAVE_SLEEF_X86 1
#  endif
#endif

#ifdef CVM_HAVE_SLEEF_X86
#include <immintrin.h>
#include <sleef.h>

#define CVM_AVX2 __attribute__((target("avx2,fma")))

// SLEEF's AVX2 prototypes (sleef.h, under #if defined(__AVX2__)).
CVM_AVX2 __m256 Sleef_expf8_u10avx2(__m256);
CVM_AVX2 __m256 Sleef_expm1f8_u10avx2(__m256);
CVM_AVX2 __m256 Sleef_log1pf8_u10avx2(__m256);
CVM_AVX2 __m256 Sleef_tanhf8_u10avx2(__m256);
CVM_AVX2 __m256d Sleef_expd4_u10avx2(__m256d);
CVM_AVX2 __m256d Sleef_expm1d4_u10avx2(__m256d);
CVM_AVX2 __m256d Sleef_log1pd4_u10avx2(__m256d);
CVM_AVX2 __m256d Sleef_tanhd4_u10avx2(__m256d);

// One AVX2 loop per function: whole vectors, then the tail through a zero-padded vector.
#define CVM_AVX2_LOOP_F32(NAME, SLEEF)                                            \
    CVM_AVX2 static void NAME(const float *x, float *y, size_t n) {                \
        size_t i = 0;                                                              \
        for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, SLEEF(_mm256_loadu_ps(x + i))); \
        if (i < n) {                                                               \
            float lanes[8] = {0, 0, 0, 0, 0, 0, 0, 0};                             \
            for (size_t k = 0; k < n - i; k++) lanes[k] = x[i + k];                \
            _mm256_storeu_ps(lanes, SLEEF(_mm256_loadu_ps(lanes)));                \
            for (size_t k = 0; k < n - i; k++) y[i + k] = lanes[k];                \
        }                                                                          \
    }
#define CVM_AVX2_LOOP_F64(NAME, SLEEF)                                            \
    CVM_AVX2 static void NAME(const double *x, double *y, size_t n) {              \
        size_t i = 0;                                                              \
        for (; i + 4 <= n; i += 4) _mm256_storeu_pd(y + i, SLEEF(_mm256_loadu_pd(x + i))); \
        if (i < n) {                                                               \
            double lanes[4] = {0, 0, 0, 0};                                        \
            for (size_t k = 0; k < n - i; k++) lanes[k] = x[i + k];                \
            _mm256_storeu_pd(lanes, SLEEF(_mm256_loadu_pd(lanes)));                \
            for (size_t k = 0; k < n - i; k++) y[i + k] = lanes[k];                \
        }                                                                          \
    }
// The same with SSE2 (part of x86-64, so declared by sleef.h without flags).
#define CVM_SSE2_LOOP_F32(NAME, SLEEF)                                            \
    static void NAME(const float *x, float *y, size_t n) {                         \
        size_t i = 0;                                                              \
        for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, SLEEF(_mm_loadu_ps(x + i))); \
        if (i < n) {                                                               \
            float lanes[4] = {0, 0, 0, 0};                                         \
            for (size_t k = 0; k < n - i; k++) lanes[k] = x[i + k];                \
            _mm_storeu_ps(lanes, SLEEF(_mm_loadu_ps(lanes)));                      \
            for (size_t k = 0; k < n - i; k++) y[i + k] = lanes[k];                \
        }                                                                          \
    }
#define CVM_SSE2_LOOP_F64(NAME, SLEEF)                                            \
    static void NAME(const double *x, double *y, size_t n) {                       \
        size_t i = 0;                                                              \
        for (; i + 2 <= n; i += 2) _mm_storeu_pd(y + i, SLEEF(_mm_loadu_pd(x + i))); \
        if (i < n) {                                                               \
            double lanes[2] = {0, 0};                                              \
            lanes[0] = x[i];                                                       \
            _mm_storeu_pd(lanes, SLEEF(_mm_loadu_pd(lanes)));                      \
            y[i] = lanes[0];                                                       \
        }                                                                          \
    }

CVM_AVX2_LOOP_F32(exp_f32_avx2, Sleef_expf8_u10avx2)
CVM_AVX2_LOOP_F32(expm1_f32_avx2, Sleef_expm1f8_u10avx2)
CVM_AVX2_LOOP_F32(log1p_f32_avx2, Sleef_log1pf8_u10avx2)
CVM_AVX2_LOOP_F32(tanh_f32_avx2, Sleef_tanhf8_u10avx2)
CVM_AVX2_LOOP_F64(exp_f64_avx2, Sleef_expd4_u10avx2)
CVM_AVX2_LOOP_F64(expm1_f64_avx2, Sleef_expm1d4_u10avx2)
CVM_AVX2_LOOP_F64(log1p_f64_avx2, Sleef_log1pd4_u10avx2)
CVM_AVX2_LOOP_F64(tanh_f64_avx2, Sleef_tanhd4_u10avx2)

CVM_SSE2_LOOP_F32(exp_f32_fallback, Sleef_expf4_u10sse2)
CVM_SSE2_LOOP_F32(expm1_f32_fallback, Sleef_expm1f4_u10sse2)
CVM_SSE2_LOOP_F32(log1p_f32_fallback, Sleef_log1pf4_u10sse2)
CVM_SSE2_LOOP_F32(tanh_f32_fallback, Sleef_tanhf4_u10sse2)
CVM_SSE2_LOOP_F64(exp_f64_fallback, Sleef_expd2_u10sse2)
CVM_SSE2_LOOP_F64(expm1_f64_fallback, Sleef_expm1d2_u10sse2)
CVM_SSE2_LOOP_F64(log1p_f64_fallback, Sleef_log1pd2_u10sse2)
CVM_SSE2_LOOP_F64(tanh_f64_fallback, Sleef_tanhd2_u10sse2)

static int cpu_has_avx2_fma(void) { return ccpu_has_avx2_fma(); }
#else
// Without SLEEF (or off x86-64): the C library, one element at a time, in loops the compiler may vectorise.
#define CVM_LIBM_LOOP(NAME, T, F)                                                 \
    static void NAME(const T *x, T *y, size_t n) {                                 \
        for (size_t i = 0; i < n; i++) y[i] = F(x[i]);                             \
    }
CVM_LIBM_LOOP(exp_f32_fallback, float, expf)
CVM_LIBM_LOOP(expm1_f32_fallback, float, expm1f)
CVM_LIBM_LOOP(log1p_f32_fallback, float, log1pf)
CVM_LIBM_LOOP(tanh_f32_fallback, float, tanhf)
CVM_LIBM_LOOP(exp_f64_fallback, double, exp)
CVM_LIBM_LOOP(expm1_f64_fallback, double, expm1)
CVM_LIBM_LOOP(log1p_f64_fallback, double, log1p)
CVM_LIBM_LOOP(tanh_f64_fallback, double, tanh)

static int cpu_has_avx2_fma(void) { return 0; }
#endif

static atomic_int fallback_forced = 0;

int cvm_avx2_available(void) { return cpu_has_avx2_fma(); }

void cvm_force_fallback(int force) { atomic_store_explicit(&fallback_forced, force != 0, memory_order_relaxed); }

CVectorMathPath cvm_active_path(void) {
    if (atomic_load_explicit(&fallback_forced, memory_order_relaxed)) return CVectorMathPathFallback;
    return cvm_avx2_available() ? CVectorMathPathAVX2 : CVectorMathPathFallback;
}

#ifdef CVM_HAVE_SLEEF_X86
#define CVM_DISPATCH(NAME, T)                                                     \
    void cvm_##NAME(const T *x, T *y, size_t n) {                                  \
        if (cvm_active_path() == CVectorMathPathAVX2) NAME##_avx2(x, y, n);        \
        else NAME##_fallback(x, y, n);                                             \
    }
#else
#define CVM_DISPATCH(NAME, T)                                                     \
    void cvm_##NAME(const T *x, T *y, size_t n) { NAME##_fallback(x, y, n); }
#endif

CVM_DISPATCH(exp_f32, float)
CVM_DISPATCH(expm1_f32, float)
CVM_DISPATCH(log1p_f32, float)
CVM_DISPATCH(tanh_f32, float)
CVM_DISPATCH(exp_f64, double)
CVM_DISPATCH(expm1_f64, double)
CVM_DISPATCH(log1p_f64, double)
CVM_DISPATCH(tanh_f64, double)
