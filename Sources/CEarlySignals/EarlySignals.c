#include "CEarlySignals.h"

#include <signal.h>

static int installed = 0;

static void foldkit_ignore_termination_signals_early(void) {
    if (installed) return;
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    installed = 1;
}

#if defined(__linux__)
// ELF executables run .preinit_array before any shared library's initialisers (Foundation's, ICU's),
// which take most of the start-up: the signals are ignored as early as a program can.
__attribute__((section(".preinit_array"), used)) static void (*const foldkit_early_signals_preinit)(void) =
    foldkit_ignore_termination_signals_early;
#endif

// Elsewhere (and as a fallback), an ordinary constructor.
__attribute__((constructor)) static void foldkit_early_signals_constructor(void) { foldkit_ignore_termination_signals_early(); }

int foldkit_early_signals_installed(void) { return installed; }
