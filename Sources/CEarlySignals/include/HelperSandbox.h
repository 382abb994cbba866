#ifndef FOLDKIT_HELPER_SANDBOX_H
#define FOLDKIT_HELPER_SANDBOX_H

// The confinement of the HDF5 helper process (`foldkit read-check`; Docs/Security.md, "HDF5 read in a
// helper process"), applied after its arguments are parsed and before libhdf5 sees a byte of the file.
//
// On Linux:
// - prctl(PR_SET_NO_NEW_PRIVS): nothing the process runs gains privileges (set-user-ID files), which
//   also lets an unprivileged process install the two filters below;
// - Landlock (kernel 5.13+): files may be opened for reading only beneath the paths allowed with
//   `foldkit_sandbox_allow_read` (the model files, the input array, the system library folders), and
//   created, written, renamed or removed only beneath the one folder allowed with
//   `foldkit_sandbox_allow_write` (the helper's temporary folder, which the command removes); where
//   the kernel's Landlock knows them, TCP bind/connect are refused (ABI 4) and signals to processes
//   outside the sandbox and connections to abstract Unix sockets are refused (ABI 6);
// - seccomp: no new program (execve, execveat), no new process (fork, vfork, clone without
//   CLONE_THREAD; clone3 answers ENOSYS, so threads are made with clone), no socket, no signal to
//   another process (kill and tgkill only to itself), no ptrace, no kernel-facing calls (mount,
//   module loading, bpf, perf_event_open, io_uring, keyctl, userfaultfd, ...): each fails with EPERM.
//
// Elsewhere every call is a no-op and `foldkit_sandbox_enforce` returns 0. Failures are not errors:
// the helper still runs under its memory and time limits and its parent's death (`foldkit_die_with_parent`).

/// What `foldkit_sandbox_enforce` put in place.
enum {
    FOLDKIT_SANDBOX_NO_NEW_PRIVS = 1,
    FOLDKIT_SANDBOX_LANDLOCK = 2,
    FOLDKIT_SANDBOX_SECCOMP = 4,
};

/// Starts a Landlock ruleset; returns its descriptor, or -1 (no Landlock: the rules below are skipped).
int foldkit_sandbox_begin(void);

/// Allows reading the file or the folder tree at `path` (followed if a symbolic link). Returns 0, or -1
/// when `path` cannot be opened or the rule is refused (reading it is then refused too).
int foldkit_sandbox_allow_read(int ruleset, const char *path);

/// Allows every file-system action beneath the folder `path`. Returns 0 or -1.
int foldkit_sandbox_allow_write(int ruleset, const char *path);

/// Sets no_new_privs, enforces the ruleset (closing it) and installs the seccomp filter. Returns the
/// FOLDKIT_SANDBOX_* flags of what holds now.
int foldkit_sandbox_enforce(int ruleset);

/// The Landlock ABI version the kernel offers (0: none).
int foldkit_sandbox_landlock_abi(void);

/// The number of threads of this process (-1: unknown). Landlock restricts the thread that enforces it and
/// the threads it makes afterwards, so the helper enforces it while it has one thread.
int foldkit_sandbox_threads(void);

#endif
