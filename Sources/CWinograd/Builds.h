// What both CWinograd sources share: FMA contraction off, and the two builds of their loop bodies (x86-64's
// baseline and, in functions carrying __attribute__((target("avx2,fma"))), AVX2) with the run-time choice
// between them (cwg_uses_avx2, in WinogradTransforms.c).
//
// A source writes its bodies as a macro ALL(SUFFIX, ATTR) defining NAME##_SUFFIX functions with ATTR,
// instantiates them with CWG_BUILDS(ALL), and calls them through CWG_DISPATCH(NAME, arguments...).

#ifndef CWINOGRAD_BUILDS_H
#define CWINOGRAD_BUILDS_H

#include "CWinograd.h"

// Every build rounds every operation the same way.
#pragma clang fp contract(off)

#define CWG_MIN(a, b) ((a) < (b) ? (a) : (b))

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define CWG_HAVE_AVX2_BUILD 1
#define CWG_BUILDS(ALL) ALL(baseline, ) ALL(avx2, __attribute__((target("avx2,fma"))))
#define CWG_DISPATCH(NAME, ...) \
    do { if (cwg_uses_avx2()) NAME##_avx2(__VA_ARGS__); else NAME##_baseline(__VA_ARGS__); } while (0)
#else
#define CWG_BUILDS(ALL) ALL(baseline, )
#define CWG_DISPATCH(NAME, ...) NAME##_baseline(__VA_ARGS__)
#endif

#endif
