// Winograd weight transforms U = G g Gt for F(2x2, 3x3) and F(4x4, 3x3), in float64 and rounded once to
// the pass's precision, over runs of (output, input) channel pairs (see CWinograd.h). Each chunk of pairs
// is first split into the nine kernel taps (tap i of pair j at g[i][j]), so that the arithmetic runs across
// pairs in contiguous arrays the compiler vectorises. G is written out in WinogradF2Convolution.swift and
// WinogradF4Convolution.swift; the order of the operations is the one the kernel-by-kernel reference in
// WinogradTransformsTests.swift follows, to the bit. Two builds: Builds.h.

#include "Builds.h"

#define CWG_WEIGHT_CHUNK 64

// Tap i of the chunk's pair j at g[i][j], in float64.
#define CWG_SPLIT_TAPS(w, first, count, g)                                                        \
    for (long j_ = 0; j_ < (count); j_++)                                                        \
        for (int i_ = 0; i_ < 9; i_++) (g)[i_][j_] = (double)(w)[((first) + j_) * 9 + i_];

// U row i = (row i of G g) Gt: r0, (r0 + r1 + r2) / 2, (r0 - r1 + r2) / 2, r2, where the rows of G g
// are g's row 0, (rows 0 + 1 + 2) / 2, (rows 0 - 1 + 2) / 2 and row 2.
#define CWG_F2_U_ROW(T, r0, r1, r2, i, j)                                                         \
    do {                                                                                          \
        u0[j] = (T)(r0);                                                                          \
        u1[j] = (T)(0.5 * ((r0) + (r1) + (r2)));                                                  \
        u2[j] = (T)(0.5 * ((r0) - (r1) + (r2)));                                                  \
        u3[j] = (T)(r2);                                                                          \
    } while (0)

#define CWG_F2_WEIGHTS(NAME, T, ATTR)                                                             \
    ATTR static void NAME(const float *w, long pairs, T *u, long planeStride) {                   \
        double g[9][CWG_WEIGHT_CHUNK];                                                            \
        for (long first = 0; first < pairs; first += CWG_WEIGHT_CHUNK) {                          \
            const long count = CWG_MIN(CWG_WEIGHT_CHUNK, pairs - first);                          \
            CWG_SPLIT_TAPS(w, first, count, g)                                                    \
            const double *restrict g0 = g[0], *restrict g1 = g[1], *restrict g2 = g[2];           \
            const double *restrict g3 = g[3], *restrict g4 = g[4], *restrict g5 = g[5];           \
            const double *restrict g6 = g[6], *restrict g7 = g[7], *restrict g8 = g[8];           \
            for (int i = 0; i < 4; i++) {                                                         \
                T *restrict u0 = u + (4 * i) * planeStride + first, *restrict u1 = u0 + planeStride; \
                T *restrict u2 = u1 + planeStride, *restrict u3 = u2 + planeStride;               \
                switch (i) {                                                                      \
                case 0:                                                                           \
                    for (long j = 0; j < count; j++) CWG_F2_U_ROW(T, g0[j], g1[j], g2[j], i, j);  \
                    break;                                                                        \
                case 1:                                                                           \
                    for (long j = 0; j < count; j++)                                              \
                        CWG_F2_U_ROW(T, 0.5 * (g0[j] + g3[j] + g6[j]), 0.5 * (g1[j] + g4[j] + g7[j]), \
                                     0.5 * (g2[j] + g5[j] + g8[j]), i, j);                        \
                    break;                                                                        \
                case 2:                                                                           \
                    for (long j = 0; j < count; j++)                                              \
                        CWG_F2_U_ROW(T, 0.5 * (g0[j] - g3[j] + g6[j]), 0.5 * (g1[j] - g4[j] + g7[j]), \
                                     0.5 * (g2[j] - g5[j] + g8[j]), i, j);                        \
                    break;                                                                        \
                default:                                                                          \
                    for (long j = 0; j < count; j++) CWG_F2_U_ROW(T, g6[j], g7[j], g8[j], i, j);  \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }

// G (a, b, c)^T for G = [[1/4,0,0],[-1/6,-1/6,-1/6],[-1/6,1/6,-1/6],[1/24,1/12,1/6],[1/24,-1/12,1/6],[0,0,1]],
// into o0 ... o5 at j.
#define CWG_F4_WEIGHT_COLUMN(T, a, b, c, o0, o1, o2, o3, o4, o5, j)                               \
    do {                                                                                          \
        (o0)[j] = (T)((a) / 4);                                                                   \
        (o1)[j] = (T)(-((a) + (b) + (c)) / 6);                                                    \
        (o2)[j] = (T)(-((a) - (b) + (c)) / 6);                                                    \
        (o3)[j] = (T)((a) / 24 + (b) / 12 + (c) / 6);                                             \
        (o4)[j] = (T)((a) / 24 - (b) / 12 + (c) / 6);                                             \
        (o5)[j] = (T)(c);                                                                         \
    } while (0)

#define CWG_F4_WEIGHTS(NAME, T, ATTR)                                                             \
    ATTR static void NAME(const float *w, long pairs, T *u, long planeStride) {                   \
        double g[9][CWG_WEIGHT_CHUNK];                                                            \
        double col[3][6][CWG_WEIGHT_CHUNK];                                                       \
        for (long first = 0; first < pairs; first += CWG_WEIGHT_CHUNK) {                          \
            const long count = CWG_MIN(CWG_WEIGHT_CHUNK, pairs - first);                          \
            CWG_SPLIT_TAPS(w, first, count, g)                                                    \
            /* Column s of G g, from taps s, 3 + s, 6 + s. */                                     \
            for (int s = 0; s < 3; s++) {                                                         \
                const double *restrict a = g[s], *restrict b = g[3 + s], *restrict c = g[6 + s];  \
                double *restrict c0 = col[s][0], *restrict c1 = col[s][1], *restrict c2 = col[s][2]; \
                double *restrict c3 = col[s][3], *restrict c4 = col[s][4], *restrict c5 = col[s][5]; \
                for (long j = 0; j < count; j++)                                                  \
                    CWG_F4_WEIGHT_COLUMN(double, a[j], b[j], c[j], c0, c1, c2, c3, c4, c5, j);    \
            }                                                                                     \
            /* Row i of U = G (row i of G g)^T: points 6i ..< 6i + 6. */                          \
            for (int i = 0; i < 6; i++) {                                                         \
                const double *restrict a = col[0][i], *restrict b = col[1][i], *restrict c = col[2][i]; \
                T *restrict o0 = u + (6 * i) * planeStride + first, *restrict o1 = o0 + planeStride; \
                T *restrict o2 = o1 + planeStride, *restrict o3 = o2 + planeStride;               \
                T *restrict o4 = o3 + planeStride, *restrict o5 = o4 + planeStride;               \
                for (long j = 0; j < count; j++)                                                  \
                    CWG_F4_WEIGHT_COLUMN(T, a[j], b[j], c[j], o0, o1, o2, o3, o4, o5, j);         \
            }                                                                                     \
        }                                                                                         \
    }

#define CWG_ALL_WEIGHTS(SUFFIX, ATTR)                                                             \
    CWG_F2_WEIGHTS(f2_weights_f32_##SUFFIX, float, ATTR)                                          \
    CWG_F2_WEIGHTS(f2_weights_f64_##SUFFIX, double, ATTR)                                         \
    CWG_F4_WEIGHTS(f4_weights_f32_##SUFFIX, float, ATTR)                                          \
    CWG_F4_WEIGHTS(f4_weights_f64_##SUFFIX, double, ATTR)

CWG_BUILDS(CWG_ALL_WEIGHTS)

void cwg_f2_weights_f32(const float *w, long pairs, float *u, long planeStride) {
    CWG_DISPATCH(f2_weights_f32, w, pairs, u, planeStride);
}
void cwg_f2_weights_f64(const float *w, long pairs, double *u, long planeStride) {
    CWG_DISPATCH(f2_weights_f64, w, pairs, u, planeStride);
}
void cwg_f4_weights_f32(const float *w, long pairs, float *u, long planeStride) {
    CWG_DISPATCH(f4_weights_f32, w, pairs, u, planeStride);
}
void cwg_f4_weights_f64(const float *w, long pairs, double *u, long planeStride) {
    CWG_DISPATCH(f4_weights_f64, w, pairs, u, planeStride);
}
