#ifndef CDEVIATIONSCAN_H
#define CDEVIATIONSCAN_H

#include <stdint.h>

/// The two passes behind FoldKit's LayerDeviation over one range of elements [start, end) of a layer's
/// outputs: a float64 reference against a float32 (or float64) candidate, and optionally a control run
/// of the candidate's type. Per element
///
///     d_i = |c_i - r_i|                       when r_i and c_i are finite
///           0 if r_i == c_i, else +infinity   otherwise (NaN or infinity on either side)
///
/// computed in float64 (c_i converted exactly). The loops run in vectors of four elements; they are
/// compiled for x86-64's baseline and with AVX2 (chosen at run time from the CPU's features), and both
/// builds give the same bits: every operation is exact but the sums, whose order is fixed below.

/// What pass 1 found in a range.
typedef struct {
    /// max |r_i| over the finite r_i (0 if none).
    double maxReference;
    /// max d_i (0 for an empty range).
    double maxDeviation;
    /// The first index i with d_i == maxDeviation (`start` when every d_i is 0).
    long worst;
    /// max |control_i - r_i| by the same rule (0 without a control run).
    double maxControlDeviation;
} cds_scan_summary;

/// Pass 1. `start` is a multiple of `block`. Adds 1 to counts[bucket(d_i)] for every element, where
/// bucket(d) = bits 62...47 of d's IEEE-754 pattern (65,536 buckets), and writes each block's sum of d_i
/// to blockSums[i / block]: block elements b ..< b + block (cut at `end`) summed as four lane sums,
///
///     lane_j = sum of d_i over i = b + j, b + j + 4, ... (in index order, j = 0...3)
///     block sum = ((lane_0 + lane_1) + lane_2) + lane_3
///
/// `control` may be NULL.
void cds_scan_f32(const double *reference, const float *candidate, const float *control, long start, long end,
                  long block, uint32_t *counts, double *blockSums, cds_scan_summary *summary);
void cds_scan_f64(const double *reference, const double *candidate, const double *control, long start, long end,
                  long block, uint32_t *counts, double *blockSums, cds_scan_summary *summary);

/// Pass 2: the d_i of [start, end) in bucket `first` go to firstValues (in index order), those in
/// bucket `second` (when it differs from `first`) to secondValues, at most firstCapacity and
/// secondCapacity of them; firstCount and secondCount receive how many there are (more than the
/// capacity only if the arrays were sized below what pass 1 counted for this range).
void cds_gather_f32(const double *reference, const float *candidate, long start, long end, int first, int second,
                    double *firstValues, long firstCapacity, long *firstCount,
                    double *secondValues, long secondCapacity, long *secondCount);
void cds_gather_f64(const double *reference, const double *candidate, long start, long end, int first, int second,
                    double *firstValues, long firstCapacity, long *firstCount,
                    double *secondValues, long secondCapacity, long *secondCount);

/// The histogram bucket of a non-negative double: bits 62...47 of its pattern.
static inline int cds_bucket(double value) {
    union { double d; uint64_t u; } bits = { value };
    return (int)((bits.u >> 47) & 0xffff);
}

/// Whether the AVX2 build of the loops is in use (x86-64 CPUs with AVX2 and FMA), unless
/// `cds_force_baseline(1)` was called.
int cds_uses_avx2(void);
/// Forces the baseline loops (nonzero) or restores the automatic choice (zero); for tests.
void cds_force_baseline(int force);

#endif
