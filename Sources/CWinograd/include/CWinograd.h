#ifndef CWINOGRAD_H
#define CWINOGRAD_H

#include <stddef.h>

/// Winograd F(2x2, 3x3) and F(4x4, 3x3) tile transforms for one row of tiles of one channel, evaluated
/// in vectors across the tiles (Lavin & Gray 2015; the matrices are written out in FoldKit's
/// WinogradF2Convolution.swift and WinogradF4Convolution.swift, and these functions compute the same
/// expressions in the same order, so their results are identical to a tile-by-tile evaluation).
///
/// Layout. A row of n tiles tx = tx0 ..< tx0 + n at tile row ty, side s (2 or 4) and patch side s + 2:
/// - input: the channel's plane, row-major height x width; tile tx reads input rows s*ty - padTop ..<
///   s*ty - padTop + s + 2 and columns s*tx - padLeft ..< s*tx - padLeft + s + 2, zero outside the plane;
/// - V: point k (k = (s+2)*i + j) of tile tx0 + t at v[k * pointStride + t];
/// - M: point k of tile tx0 + t at m[k * pointStride + t * tileStride], read by the output transforms
///   (tileStride 1: V's layout; O: the products were computed transposed, tiles x output channels);
/// - output: `rows` points at output pixel (s*ty, s*tx0), rows `outputWidth` apart; `rowCount` rows
///   (at most s) of `columnCount` pixels (at most s*n) are written.
///
/// The loops are compiled twice, for x86-64's baseline and with AVX2 and FMA (chosen at run time from
/// the CPU's features; FMA contraction is off, so both give the same results).

void cwg_f2_input_f32(const float *plane, long height, long width, long padTop, long padLeft,
                      long ty, long tx0, long n, float *v, long pointStride);
void cwg_f2_input_f64(const double *plane, long height, long width, long padTop, long padLeft,
                      long ty, long tx0, long n, double *v, long pointStride);
void cwg_f4_input_f32(const float *plane, long height, long width, long padTop, long padLeft,
                      long ty, long tx0, long n, float *v, long pointStride);
void cwg_f4_input_f64(const double *plane, long height, long width, long padTop, long padLeft,
                      long ty, long tx0, long n, double *v, long pointStride);

void cwg_f2_output_f32(const float *m, long pointStride, long tileStride, long n, float *rows,
                       long outputWidth, long rowCount, long columnCount);
void cwg_f2_output_f64(const double *m, long pointStride, long tileStride, long n, double *rows,
                       long outputWidth, long rowCount, long columnCount);
void cwg_f4_output_f32(const float *m, long pointStride, long tileStride, long n, float *rows,
                       long outputWidth, long rowCount, long columnCount);
void cwg_f4_output_f64(const double *m, long pointStride, long tileStride, long n, double *rows,
                       long outputWidth, long rowCount, long columnCount);

/// Weight transforms U = G g Gt (the G of each variant is written out in WinogradF2Convolution.swift and
/// WinogradF4Convolution.swift) of `pairs` consecutive 3x3 kernels g (w: pair j's nine taps at w[9j ..< 9j + 9],
/// row-major), computed in float64 and rounded once: point k of pair j at u[k * planeStride + j] (16 or 36
/// points). The order of the operations is fixed (a kernel-by-kernel evaluation in the same order gives the
/// same bits; FoldKit's WinogradTransformsTests checks it).
void cwg_f2_weights_f32(const float *w, long pairs, float *u, long planeStride);
void cwg_f2_weights_f64(const float *w, long pairs, double *u, long planeStride);
void cwg_f4_weights_f32(const float *w, long pairs, float *u, long planeStride);
void cwg_f4_weights_f64(const float *w, long pairs, double *u, long planeStride);

/// Whether the AVX2 build of the loops is in use (x86-64 CPUs with AVX2 and FMA), unless
/// `cwg_force_baseline(1)` was called.
int cwg_uses_avx2(void);
/// Forces the baseline loops (nonzero) or restores the automatic choice (zero); for tests.
void cwg_force_baseline(int force);

#endif
