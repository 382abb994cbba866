// An LD_PRELOAD shim that logs every call through which libhdf5 opens a file: one line per call,
// "<pid> <parent pid> <function> <path>", appended to the file named by FOLDKIT_H5_LOG.
// HDF5HelperOnlyTests builds it (gcc -shared -fPIC) and runs `foldkit` under it to show which process
// opens the model files with libhdf5 (Docs/Security.md, "HDF5 read in a helper process").
//
// The log is opened when the shim is loaded, before the program runs (and so before the HDF5 helper
// enters its sandbox, which lets it write in its own folder only); O_APPEND keeps the lines of the
// command and of its helper whole.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int64_t hid_t;  // libhdf5 1.10 and later
typedef int htri_t;

static int log_descriptor = -1;

__attribute__((constructor)) static void open_log(void) {
    const char *path = getenv("FOLDKIT_H5_LOG");
    if (path) log_descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
}

static void note(const char *function, const char *name) {
    if (log_descriptor < 0) return;
    char line[4200];
    int n = snprintf(line, sizeof line, "%d %d %s %s\n", (int)getpid(), (int)getppid(), function, name ? name : "(null)");
    if (n > 0) (void)!write(log_descriptor, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
}

hid_t H5Fopen(const char *name, unsigned flags, hid_t access) {
    static hid_t (*real)(const char *, unsigned, hid_t);
    if (!real) real = (hid_t (*)(const char *, unsigned, hid_t))dlsym(RTLD_NEXT, "H5Fopen");
    note("H5Fopen", name);
    return real(name, flags, access);
}

htri_t H5Fis_hdf5(const char *name) {
    static htri_t (*real)(const char *);
    if (!real) real = (htri_t (*)(const char *))dlsym(RTLD_NEXT, "H5Fis_hdf5");
    note("H5Fis_hdf5", name);
    return real(name);
}

htri_t H5Fis_accessible(const char *name, hid_t access) {
    static htri_t (*real)(const char *, hid_t);
    if (!real) real = (htri_t (*)(const char *, hid_t))dlsym(RTLD_NEXT, "H5Fis_accessible");
    note("H5Fis_accessible", name);
    return real ? real(name, access) : -1;
}
