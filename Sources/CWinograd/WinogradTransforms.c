// Winograd F(2x2, 3x3) and F(4x4, 3x3) input and output transforms over a row of tiles, as loops over
// the tiles that the compiler turns into vector code (see CWinograd.h for the layout).
//
// Each transform is split into a vertical pass (rows of the patch combined element by element, across
// the whole row of tiles: contiguous in memory) and a horizontal pass (columns combined, after the
// vertical result is split into its s phases, column s*t + q for q = 0 ..< s, so that tile t's patch
// columns are phase arrays at t and t + 1: contiguous again). The matrices are written out in
// WinogradF2Convolution.swift and WinogradF4Convolution.swift; the order of the operations here is the one
// the tile-by-tile reference in WinogradTransformsTests.swift follows, to the bit.
//
// The output transforms read M with a tile stride (1, or the channel count for transposed products); the
// stride-1 loops are written out separately so that the compiler vectorises them without a runtime check.
//
// The bodies are written once as macros and compiled twice (Builds.h).

#include "Builds.h"

#include "CCPUFeatures.h"

#include <stdatomic.h>
#include <string.h>

// Tiles per pass of the inner loops: the patch rows, the vertical results and the phases of one chunk
// stay in the core's first-level cache.
#define CWG_CHUNK 64


// Patch row r (input row y) of a chunk starting at input column x0, `len` columns, zero outside the
// plane: a pointer into the plane when the whole span is inside it, else a copy in `buffer`.
#define CWG_PATCH_ROW(T, plane, height, width, y, x0, len, buffer, out)                          \
    do {                                                                                          \
        if ((y) < 0 || (y) >= (height)) {                                                        \
            memset((buffer), 0, sizeof(T) * (size_t)(len));                                      \
            (out) = (buffer);                                                                    \
        } else if ((x0) >= 0 && (x0) + (len) <= (width)) {                                       \
            (out) = (plane) + (y) * (width) + (x0);                                              \
        } else {                                                                                 \
            const T *source_ = (plane) + (y) * (width);                                          \
            for (long k_ = 0; k_ < (len); k_++) {                                                \
                long x_ = (x0) + k_;                                                             \
                (buffer)[k_] = (x_ >= 0 && x_ < (width)) ? source_[x_] : (T)0;                   \
            }                                                                                    \
            (out) = (buffer);                                                                    \
        }                                                                                        \
    } while (0)

// ---- F(2x2, 3x3) -----------------------------------------------------------------------------------

// V = Bt d B, Bt = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]].
#define CWG_F2_INPUT(NAME, T, ATTR)                                                               \
    ATTR static void NAME(const T *plane, long height, long width, long padTop, long padLeft,     \
                          long ty, long tx0, long n, T *v, long ps) {                             \
        T buffer[4][2 * CWG_CHUNK + 2];                                                           \
        T e[4][2 * CWG_CHUNK + 2];                                                                \
        T p0[CWG_CHUNK + 1], p1[CWG_CHUNK + 1];                                                   \
        for (long c0 = 0; c0 < n; c0 += CWG_CHUNK) {                                              \
            const long cn = CWG_MIN(CWG_CHUNK, n - c0), len = 2 * cn + 2;                         \
            const long x0 = 2 * (tx0 + c0) - padLeft, y0 = 2 * ty - padTop;                       \
            const T *d[4];                                                                        \
            for (int r = 0; r < 4; r++) CWG_PATCH_ROW(T, plane, height, width, y0 + r, x0, len, buffer[r], d[r]); \
            const T *restrict d0 = d[0], *restrict d1 = d[1], *restrict d2 = d[2], *restrict d3 = d[3]; \
            T *restrict e0 = e[0], *restrict e1 = e[1], *restrict e2 = e[2], *restrict e3 = e[3]; \
            for (long k = 0; k < len; k++) {                                                      \
                e0[k] = d0[k] - d2[k];                                                            \
                e1[k] = d1[k] + d2[k];                                                            \
                e2[k] = d2[k] - d1[k];                                                            \
                e3[k] = d1[k] - d3[k];                                                            \
            }                                                                                     \
            for (int i = 0; i < 4; i++) {                                                         \
                const T *restrict row = e[i];                                                     \
                for (long t = 0; t <= cn; t++) { p0[t] = row[2 * t]; p1[t] = row[2 * t + 1]; }    \
                T *restrict v0 = v + (4 * i) * ps + c0, *restrict v1 = v0 + ps;                   \
                T *restrict v2 = v1 + ps, *restrict v3 = v2 + ps;                                 \
                for (long t = 0; t < cn; t++) {                                                   \
                    v0[t] = p0[t] - p0[t + 1];                                                    \
                    v1[t] = p1[t] + p0[t + 1];                                                    \
                    v2[t] = p0[t + 1] - p1[t];                                                    \
                    v3[t] = p1[t] - p1[t + 1];                                                    \
                }                                                                                 \
            }                                                                                     \
        }                                                                                         \
    }

// Y = At M At^T, At = [[1,1,1,0],[0,1,-1,-1]].
#define CWG_F2_OUTPUT(NAME, T, ATTR)                                                              \
    ATTR static void NAME(const T *m, long ps, long ts, long n, T *rows, long outputWidth,       \
                          long rowCount, long columnCount) {                                      \
        T a[2][4][CWG_CHUNK];                                                                     \
        T y0[CWG_CHUNK], y1[CWG_CHUNK];                                                           \
        T line[2 * CWG_CHUNK];                                                                    \
        for (long c0 = 0; c0 < n; c0 += CWG_CHUNK) {                                              \
            const long cn = CWG_MIN(CWG_CHUNK, n - c0);                                           \
            for (int j = 0; j < 4; j++) {                                                         \
                const T *restrict q0 = m + j * ps + c0 * ts, *restrict q1 = q0 + 4 * ps;          \
                const T *restrict q2 = q1 + 4 * ps, *restrict q3 = q2 + 4 * ps;                   \
                T *restrict aj = a[0][j], *restrict bj = a[1][j];                                 \
                if (ts == 1) {                                                                    \
                    for (long t = 0; t < cn; t++) {                                               \
                        aj[t] = q0[t] + q1[t] + q2[t];                                            \
                        bj[t] = q1[t] - q2[t] - q3[t];                                            \
                    }                                                                             \
                } else {                                                                          \
                    for (long t = 0; t < cn; t++) {                                               \
                        aj[t] = q0[t * ts] + q1[t * ts] + q2[t * ts];                             \
                        bj[t] = q1[t * ts] - q2[t * ts] - q3[t * ts];                             \
                    }                                                                             \
                }                                                                                 \
            }                                                                                     \
            const long columns = CWG_MIN(2 * cn, columnCount - 2 * c0);                           \
            for (long r = 0; r < rowCount; r++) {                                                 \
                const T *restrict r0 = a[r][0], *restrict r1 = a[r][1];                           \
                const T *restrict r2 = a[r][2], *restrict r3 = a[r][3];                           \
                for (long t = 0; t < cn; t++) {                                                   \
                    y0[t] = r0[t] + r1[t] + r2[t];                                                \
                    y1[t] = r1[t] - r2[t] - r3[t];                                                \
                }                                                                                 \
                T *out = rows + r * outputWidth + 2 * c0;                                         \
                T *restrict target = columns == 2 * cn ? out : line;                              \
                for (long t = 0; t < cn; t++) { target[2 * t] = y0[t]; target[2 * t + 1] = y1[t]; } \
                if (target == line) memcpy(out, line, sizeof(T) * (size_t)columns);               \
            }                                                                                     \
        }                                                                                         \
    }

// ---- F(4x4, 3x3) -----------------------------------------------------------------------------------

// Bt (d0 ... d5)^T, Bt = [[4,0,-5,0,1,0],[0,-4,-4,1,1,0],[0,4,-4,-1,1,0],[0,-2,-1,2,1,0],[0,2,-1,-2,1,0],
// [0,4,0,-5,0,1]], into o0 ... o5 at index t.
#define CWG_F4_INPUT_COLUMN(T, d0, d1, d2, d3, d4, d5, o0, o1, o2, o3, o4, o5, t)                 \
    do {                                                                                          \
        const T a_ = (d4) - 4 * (d2), b_ = (d3) - 4 * (d1), e_ = (d4) - (d2), f_ = 2 * ((d3) - (d1)); \
        (o0)[t] = 4 * (d0) - 5 * (d2) + (d4);                                                     \
        (o1)[t] = a_ + b_;                                                                        \
        (o2)[t] = a_ - b_;                                                                        \
        (o3)[t] = e_ + f_;                                                                        \
        (o4)[t] = e_ - f_;                                                                        \
        (o5)[t] = 4 * (d1) - 5 * (d3) + (d5);                                                     \
    } while (0)

#define CWG_F4_INPUT(NAME, T, ATTR)                                                               \
    ATTR static void NAME(const T *plane, long height, long width, long padTop, long padLeft,     \
                          long ty, long tx0, long n, T *v, long ps) {                             \
        T buffer[6][4 * CWG_CHUNK + 2];                                                           \
        T e[6][4 * CWG_CHUNK + 2];                                                                \
        T p0[CWG_CHUNK + 1], p1[CWG_CHUNK + 1], p2[CWG_CHUNK], p3[CWG_CHUNK];                     \
        for (long c0 = 0; c0 < n; c0 += CWG_CHUNK) {                                              \
            const long cn = CWG_MIN(CWG_CHUNK, n - c0), len = 4 * cn + 2;                         \
            const long x0 = 4 * (tx0 + c0) - padLeft, y0 = 4 * ty - padTop;                       \
            const T *d[6];                                                                        \
            for (int r = 0; r < 6; r++) CWG_PATCH_ROW(T, plane, height, width, y0 + r, x0, len, buffer[r], d[r]); \
            {                                                                                     \
                const T *restrict d0 = d[0], *restrict d1 = d[1], *restrict d2 = d[2];            \
                const T *restrict d3 = d[3], *restrict d4 = d[4], *restrict d5 = d[5];            \
                T *restrict e0 = e[0], *restrict e1 = e[1], *restrict e2 = e[2];                  \
                T *restrict e3 = e[3], *restrict e4 = e[4], *restrict e5 = e[5];                  \
                for (long k = 0; k < len; k++)                                                    \
                    CWG_F4_INPUT_COLUMN(T, d0[k], d1[k], d2[k], d3[k], d4[k], d5[k], e0, e1, e2, e3, e4, e5, k); \
            }                                                                                     \
            for (int i = 0; i < 6; i++) {                                                         \
                const T *restrict row = e[i];                                                     \
                for (long t = 0; t < cn; t++) {                                                   \
                    p0[t] = row[4 * t]; p1[t] = row[4 * t + 1];                                   \
                    p2[t] = row[4 * t + 2]; p3[t] = row[4 * t + 3];                               \
                }                                                                                 \
                p0[cn] = row[4 * cn]; p1[cn] = row[4 * cn + 1];                                   \
                T *restrict v0 = v + (6 * i) * ps + c0, *restrict v1 = v0 + ps, *restrict v2 = v1 + ps; \
                T *restrict v3 = v2 + ps, *restrict v4 = v3 + ps, *restrict v5 = v4 + ps;         \
                for (long t = 0; t < cn; t++)                                                     \
                    CWG_F4_INPUT_COLUMN(T, p0[t], p1[t], p2[t], p3[t], p0[t + 1], p1[t + 1], v0, v1, v2, v3, v4, v5, t); \
            }                                                                                     \
        }                                                                                         \
    }

// At (m0 ... m5)^T, At = [[1,1,1,1,1,0],[0,1,-1,2,-2,0],[0,1,1,4,4,0],[0,1,-1,8,-8,1]], into o0 ... o3.
#define CWG_F4_OUTPUT_COLUMN(T, m0, m1, m2, m3, m4, m5, o0, o1, o2, o3, t)                        \
    do {                                                                                          \
        const T s12_ = (m1) + (m2), d12_ = (m1) - (m2), s34_ = (m3) + (m4), d34_ = (m3) - (m4);  \
        (o0)[t] = (m0) + s12_ + s34_;                                                             \
        (o1)[t] = d12_ + 2 * d34_;                                                                \
        (o2)[t] = s12_ + 4 * s34_;                                                                \
        (o3)[t] = d12_ + 8 * d34_ + (m5);                                                         \
    } while (0)

#define CWG_F4_OUTPUT(NAME, T, ATTR)                                                              \
    ATTR static void NAME(const T *m, long ps, long ts, long n, T *rows, long outputWidth,       \
                          long rowCount, long columnCount) {                                      \
        T a[4][6][CWG_CHUNK];                                                                     \
        T y[4][CWG_CHUNK];                                                                        \
        T line[4 * CWG_CHUNK];                                                                    \
        for (long c0 = 0; c0 < n; c0 += CWG_CHUNK) {                                              \
            const long cn = CWG_MIN(CWG_CHUNK, n - c0);                                           \
            for (int j = 0; j < 6; j++) {                                                         \
                const T *restrict q0 = m + j * ps + c0 * ts, *restrict q1 = q0 + 6 * ps;          \
                const T *restrict q2 = q1 + 6 * ps, *restrict q3 = q2 + 6 * ps;                   \
                const T *restrict q4 = q3 + 6 * ps, *restrict q5 = q4 + 6 * ps;                   \
                T *restrict a0 = a[0][j], *restrict a1 = a[1][j], *restrict a2 = a[2][j], *restrict a3 = a[3][j]; \
                if (ts == 1) {                                                                    \
                    for (long t = 0; t < cn; t++)                                                 \
                        CWG_F4_OUTPUT_COLUMN(T, q0[t], q1[t], q2[t], q3[t], q4[t], q5[t], a0, a1, a2, a3, t); \
                } else {                                                                          \
                    for (long t = 0; t < cn; t++)                                                 \
                        CWG_F4_OUTPUT_COLUMN(T, q0[t * ts], q1[t * ts], q2[t * ts], q3[t * ts],   \
                                             q4[t * ts], q5[t * ts], a0, a1, a2, a3, t);          \
                }                                                                                 \
            }                                                                                     \
            const long columns = CWG_MIN(4 * cn, columnCount - 4 * c0);                           \
            for (long r = 0; r < rowCount; r++) {                                                 \
                const T *restrict r0 = a[r][0], *restrict r1 = a[r][1], *restrict r2 = a[r][2];   \
                const T *restrict r3 = a[r][3], *restrict r4 = a[r][4], *restrict r5 = a[r][5];   \
                T *restrict y0 = y[0], *restrict y1 = y[1], *restrict y2 = y[2], *restrict y3 = y[3]; \
                for (long t = 0; t < cn; t++)                                                     \
                    CWG_F4_OUTPUT_COLUMN(T, r0[t], r1[t], r2[t], r3[t], r4[t], r5[t], y0, y1, y2, y3, t); \
                T *out = rows + r * outputWidth + 4 * c0;                                         \
                T *restrict target = columns == 4 * cn ? out : line;                              \
                for (long t = 0; t < cn; t++) {                                                   \
                    target[4 * t] = y0[t]; target[4 * t + 1] = y1[t];                             \
                    target[4 * t + 2] = y2[t]; target[4 * t + 3] = y3[t];                         \
                }                                                                                 \
                if (target == line) memcpy(out, line, sizeof(T) * (size_t)columns);               \
            }                                                                                     \
        }                                                                                         \
    }

// ---- builds and dispatch ---------------------------------------------------------------------------

#define CWG_ALL(SUFFIX, ATTR)                                                                     \
    CWG_F2_INPUT(f2_input_f32_##SUFFIX, float, ATTR)                                              \
    CWG_F2_INPUT(f2_input_f64_##SUFFIX, double, ATTR)                                             \
    CWG_F4_INPUT(f4_input_f32_##SUFFIX, float, ATTR)                                              \
    CWG_F4_INPUT(f4_input_f64_##SUFFIX, double, ATTR)                                             \
    CWG_F2_OUTPUT(f2_output_f32_##SUFFIX, float, ATTR)                                            \
    CWG_F2_OUTPUT(f2_output_f64_##SUFFIX, double, ATTR)                                           \
    CWG_F4_OUTPUT(f4_output_f32_##SUFFIX, float, ATTR)                                            \
    CWG_F4_OUTPUT(f4_output_f64_##SUFFIX, double, ATTR)

CWG_BUILDS(CWG_ALL)

static atomic_int baseline_forced = 0;

int cwg_uses_avx2(void) {
#ifdef CWG_HAVE_AVX2_BUILD
    return !atomic_load_explicit(&baseline_forced, memory_order_relaxed) && ccpu_has_avx2_fma();
#else
    return 0;
#endif
}

void cwg_force_baseline(int force) { atomic_store_explicit(&baseline_forced, force != 0, memory_order_relaxed); }

#define CWG_INPUT_ENTRY(NAME, T)                                                                  \
    void cwg_##NAME(const T *plane, long height, long width, long padTop, long padLeft, long ty, \
                    long tx0, long n, T *v, long pointStride) {                                   \
        CWG_DISPATCH(NAME, plane, height, width, padTop, padLeft, ty, tx0, n, v, pointStride);    \
    }
#define CWG_OUTPUT_ENTRY(NAME, T)                                                                 \
    void cwg_##NAME(const T *m, long pointStride, long tileStride, long n, T *rows, long outputWidth, \
                    long rowCount, long columnCount) {                                            \
        CWG_DISPATCH(NAME, m, pointStride, tileStride, n, rows, outputWidth, rowCount, columnCount); \
    }

CWG_INPUT_ENTRY(f2_input_f32, float)
CWG_INPUT_ENTRY(f2_input_f64, double)
CWG_INPUT_ENTRY(f4_input_f32, float)
CWG_INPUT_ENTRY(f4_input_f64, double)
CWG_OUTPUT_ENTRY(f2_output_f32, float)
CWG_OUTPUT_ENTRY(f2_output_f64, double)
CWG_OUTPUT_ENTRY(f4_output_f32, float)
CWG_OUTPUT_ENTRY(f4_output_f64, double)
