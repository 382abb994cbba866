// The CPU feature test behind the run-time choice between the baseline and the AVX2 builds of FoldKit's
// C loops (each target keeps its own switch to force the baseline, for tests).

#include "CCPUFeatures.h"

#include <stdatomic.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
static int ask_cpu(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static int ask_cpu(void) { return 0; }
#endif

// 0: not yet asked, 1: yes, 2: no.
static atomic_int answer = 0;

int ccpu_has_avx2_fma(void) {
    int state = atomic_load_explicit(&answer, memory_order_relaxed);
    if (state == 0) {
        state = ask_cpu() ? 1 : 2;
        atomic_store_explicit(&answer, state, memory_order_relaxed);
    }
    return state == 1;
}
