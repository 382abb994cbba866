#ifndef CCPUFEATURES_H
#define CCPUFEATURES_H

/// Whether the CPU can run the AVX2 builds of FoldKit's C loops (CWinograd, CDeviationScan, CVectorMath):
/// an x86-64 CPU with AVX2 and FMA. Asked once (`__builtin_cpu_supports`), then cached; 0 off x86-64.
int ccpu_has_avx2_fma(void);

#endif
