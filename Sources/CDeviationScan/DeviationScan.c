// The two passes of FoldKit's LayerDeviation (see CDeviationScan.h), in vectors of four float64 lanes
// (clang's ext_vector_type: SSE2 on x86-64's baseline, AVX2 in the functions carrying the target
// attribute, NEON on arm64). Every lane operation is exact (conversion, subtraction rounded once, bit
// masks, comparisons); the only sums are the four lane sums of a block, in index order, so every build
// gives the same bits.

#include "CDeviationScan.h"

#include "CCPUFeatures.h"

#include <math.h>
#include <stdatomic.h>
#include <string.h>

typedef double cds_d4 __attribute__((ext_vector_type(4)));
typedef float cds_f4 __attribute__((ext_vector_type(4)));
typedef long long cds_i4 __attribute__((ext_vector_type(4)));
typedef double cds_d4_unaligned __attribute__((ext_vector_type(4), aligned(8)));
typedef float cds_f4_unaligned __attribute__((ext_vector_type(4), aligned(4)));

#define CDS_EXPONENT 0x7ff0000000000000LL
#define CDS_MAGNITUDE 0x7fffffffffffffffLL

// d = |c - r| when both are finite; else 0 when r == c, +infinity otherwise.
static inline __attribute__((always_inline)) double cds_deviation(double r, double c) {
    return (isfinite(r) && isfinite(c)) ? fabs(c - r) : (r == c ? 0.0 : INFINITY);
}

// Four candidates at p as float64 lanes (macros, not functions: a function taking or returning a
// 256-bit vector would have a different ABI in the two builds).
#define cds_load_f32(p) __builtin_convertvector(*(const cds_f4_unaligned *)(p), cds_d4)
#define cds_load_f64(p) (*(const cds_d4_unaligned *)(p))

// The lane form of cds_deviation.
#define CDS_DEVIATION4(r, c, d)                                                                   \
    do {                                                                                          \
        cds_i4 rb_ = (cds_i4)(r), cb_ = (cds_i4)(c);                                              \
        cds_i4 both_ = (cds_i4)((rb_ & CDS_EXPONENT) != CDS_EXPONENT) &                           \
                       (cds_i4)((cb_ & CDS_EXPONENT) != CDS_EXPONENT);                            \
        cds_i4 difference_ = (cds_i4)((c) - (r)) & CDS_MAGNITUDE;                                 \
        cds_i4 unequal_ = ~(cds_i4)((r) == (c)) & CDS_EXPONENT;                                   \
        (d) = (cds_d4)((difference_ & both_) | (unequal_ & ~both_));                              \
    } while (0)

// m = max(m, x) lane by lane (no NaN reaches it).
#define CDS_MAX4(m, x)                                                                            \
    do {                                                                                          \
        cds_i4 greater_ = (cds_i4)((x) > (m));                                                    \
        (m) = (cds_d4)(((cds_i4)(x) & greater_) | ((cds_i4)(m) & ~greater_));                     \
    } while (0)

// The largest of the four lanes of v.
#define cds_max_lanes(v) cds_max2(cds_max2((v).x, (v).y), cds_max2((v).z, (v).w))
static inline double cds_max2(double a, double b) { return a > b ? a : b; }

#define CDS_COUNT4(counts, d)                                                                     \
    do {                                                                                          \
        cds_i4 b_ = ((cds_i4)(d) >> 47) & 0xffff;                                                 \
        (counts)[b_.x]++; (counts)[b_.y]++; (counts)[b_.z]++; (counts)[b_.w]++;                   \
    } while (0)

// Pass 1 for candidate type CT (load function LOAD), one build (ATTR).
#define CDS_SCAN(NAME, CT, LOAD, ATTR)                                                            \
    ATTR static void NAME(const double *reference, const CT *candidate, const CT *control, long start, long end, \
                          long block, uint32_t *counts, double *blockSums, cds_scan_summary *summary) { \
        cds_d4 maxRef = 0, maxControl = 0;                                                        \
        double maxDev = 0;                                                                        \
        long worst = start;                                                                       \
        for (long b = start; b < end; b += block) {                                               \
            const long e = b + block < end ? b + block : end;                                     \
            cds_d4 sum = 0, blockMax = 0;                                                         \
            long i = b;                                                                           \
            for (; i + 4 <= e; i += 4) {                                                          \
                cds_d4 r = cds_load_f64(reference + i), d;                                        \
                CDS_DEVIATION4(r, LOAD(candidate + i), d);                                        \
                cds_d4 magnitude = (cds_d4)((cds_i4)r & CDS_MAGNITUDE &                           \
                                            (cds_i4)(((cds_i4)r & CDS_EXPONENT) != CDS_EXPONENT)); \
                CDS_MAX4(maxRef, magnitude);                                                      \
                sum += d;                                                                         \
                CDS_MAX4(blockMax, d);                                                            \
                CDS_COUNT4(counts, d);                                                            \
                if (control) {                                                                    \
                    cds_d4 dc;                                                                    \
                    CDS_DEVIATION4(r, LOAD(control + i), dc);                                     \
                    CDS_MAX4(maxControl, dc);                                                     \
                }                                                                                 \
            }                                                                                     \
            for (; i < e; i++) {                                                                  \
                const double r = reference[i], d = cds_deviation(r, (double)candidate[i]);        \
                if (isfinite(r) && fabs(r) > maxRef.x) maxRef.x = fabs(r);                        \
                sum[(i - b) & 3] += d;                                                            \
                if (d > blockMax.x) blockMax.x = d;                                               \
                counts[cds_bucket(d)]++;                                                          \
                if (control) {                                                                    \
                    const double dc = cds_deviation(r, (double)control[i]);                       \
                    if (dc > maxControl.x) maxControl.x = dc;                                     \
                }                                                                                 \
            }                                                                                     \
            blockSums[b / block] = ((sum.x + sum.y) + sum.z) + sum.w;                             \
            const double largest = cds_max_lanes(blockMax);                                       \
            if (largest > maxDev) {                                                               \
                maxDev = largest;                                                                 \
                for (long k = b; k < e; k++) {                                                    \
                    if (cds_deviation(reference[k], (double)candidate[k]) == largest) { worst = k; break; } \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
        summary->maxReference = cds_max_lanes(maxRef);                                            \
        summary->maxDeviation = maxDev;                                                           \
        summary->worst = worst;                                                                   \
        summary->maxControlDeviation = cds_max_lanes(maxControl);                                 \
    }

// Pass 2 for candidate type CT, one build.
#define CDS_GATHER(NAME, CT, LOAD, ATTR)                                                          \
    ATTR static void NAME(const double *reference, const CT *candidate, long start, long end, int first, int second, \
                          double *firstValues, long firstCapacity, long *firstCount,                      \
                          double *secondValues, long secondCapacity, long *secondCount) {                 \
        long nf = 0, ns = 0;                                                                      \
        long i = start;                                                                           \
        for (; i + 4 <= end; i += 4) {                                                            \
            cds_d4 d;                                                                             \
            CDS_DEVIATION4(cds_load_f64(reference + i), LOAD(candidate + i), d);                  \
            cds_i4 bucket = ((cds_i4)d >> 47) & 0xffff;                                           \
            cds_i4 hit = (cds_i4)(bucket == (long long)first) | (cds_i4)(bucket == (long long)second); \
            if ((hit.x | hit.y | hit.z | hit.w) == 0) continue;                                   \
            for (int k = 0; k < 4; k++) {                                                         \
                if (bucket[k] == first) { if (nf < firstCapacity) firstValues[nf] = d[k]; nf++; } \
                else if (bucket[k] == second) { if (ns < secondCapacity) secondValues[ns] = d[k]; ns++; } \
            }                                                                                     \
        }                                                                                         \
        for (; i < end; i++) {                                                                    \
            const double d = cds_deviation(reference[i], (double)candidate[i]);                   \
            const int bucket = cds_bucket(d);                                                     \
            if (bucket == first) { if (nf < firstCapacity) firstValues[nf] = d; nf++; }           \
            else if (bucket == second) { if (ns < secondCapacity) secondValues[ns] = d; ns++; }   \
        }                                                                                         \
        *firstCount = nf;                                                                         \
        *secondCount = ns;                                                                        \
    }

#define CDS_ALL(SUFFIX, ATTR)                                                                     \
    CDS_SCAN(scan_f32_##SUFFIX, float, cds_load_f32, ATTR)                                        \
    CDS_SCAN(scan_f64_##SUFFIX, double, cds_load_f64, ATTR)                                       \
    CDS_GATHER(gather_f32_##SUFFIX, float, cds_load_f32, ATTR)                                    \
    CDS_GATHER(gather_f64_##SUFFIX, double, cds_load_f64, ATTR)

CDS_ALL(baseline, )

#if defined(__x86_64__)
CDS_ALL(avx2, __attribute__((target("avx2"))))
#define CDS_DISPATCH(NAME, ...) \
    do { if (cds_uses_avx2()) NAME##_avx2(__VA_ARGS__); else NAME##_baseline(__VA_ARGS__); } while (0)
#else
#define CDS_DISPATCH(NAME, ...) NAME##_baseline(__VA_ARGS__)
#endif

static atomic_int baseline_forced = 0;

int cds_uses_avx2(void) {
#if defined(__x86_64__)
    return !atomic_load_explicit(&baseline_forced, memory_order_relaxed) && ccpu_has_avx2_fma();
#else
    return 0;
#endif
}

void cds_force_baseline(int force) { atomic_store_explicit(&baseline_forced, force != 0, memory_order_relaxed); }

void cds_scan_f32(const double *reference, const float *candidate, const float *control, long start, long end,
                  long block, uint32_t *counts, double *blockSums, cds_scan_summary *summary) {
    CDS_DISPATCH(scan_f32, reference, candidate, control, start, end, block, counts, blockSums, summary);
}

void cds_scan_f64(const double *reference, const double *candidate, const double *control, long start, long end,
                  long block, uint32_t *counts, double *blockSums, cds_scan_summary *summary) {
    CDS_DISPATCH(scan_f64, reference, candidate, control, start, end, block, counts, blockSums, summary);
}

void cds_gather_f32(const double *reference, const float *candidate, long start, long end, int first, int second,
                    double *firstValues, long firstCapacity, long *firstCount,
                    double *secondValues, long secondCapacity, long *secondCount) {
    CDS_DISPATCH(gather_f32, reference, candidate, start, end, first, second, firstValues, firstCapacity, firstCount,
                 secondValues, secondCapacity, secondCount);
}

void cds_gather_f64(const double *reference, const double *candidate, long start, long end, int first, int second,
                    double *firstValues, long firstCapacity, long *firstCount,
                    double *secondValues, long secondCapacity, long *secondCount) {
    CDS_DISPATCH(gather_f64, reference, candidate, start, end, first, second, firstValues, firstCapacity, firstCount,
                 secondValues, secondCapacity, secondCount);
}
