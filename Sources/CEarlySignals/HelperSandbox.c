#include "HelperSandbox.h"

#if defined(__linux__)
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

// --- Landlock -------------------------------------------------------------------------------------------
// Declared here rather than taken from <linux/landlock.h>, whose copy on Debian 12 stops at ABI 2: the
// kernel takes a larger attribute struct as long as the fields it does not know are zero.

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

struct foldkit_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;  // ABI 4
    uint64_t scoped;              // ABI 6
};

struct foldkit_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

#define FK_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#define FK_LANDLOCK_RULE_PATH_BENEATH 1

#define FK_FS_EXECUTE (1ULL << 0)
#define FK_FS_WRITE_FILE (1ULL << 1)
#define FK_FS_READ_FILE (1ULL << 2)
#define FK_FS_READ_DIR (1ULL << 3)
#define FK_FS_REMOVE_DIR (1ULL << 4)
#define FK_FS_REMOVE_FILE (1ULL << 5)
#define FK_FS_MAKE_CHAR (1ULL << 6)
#define FK_FS_MAKE_DIR (1ULL << 7)
#define FK_FS_MAKE_REG (1ULL << 8)
#define FK_FS_MAKE_SOCK (1ULL << 9)
#define FK_FS_MAKE_FIFO (1ULL << 10)
#define FK_FS_MAKE_BLOCK (1ULL << 11)
#define FK_FS_MAKE_SYM (1ULL << 12)
#define FK_FS_REFER (1ULL << 13)     // ABI 2
#define FK_FS_TRUNCATE (1ULL << 14)  // ABI 3
#define FK_FS_IOCTL_DEV (1ULL << 15) // ABI 5
#define FK_NET_BIND_TCP (1ULL << 0)
#define FK_NET_CONNECT_TCP (1ULL << 1)
#define FK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define FK_SCOPE_SIGNAL (1ULL << 1)

/// The rights that apply to a file (not a folder): Landlock refuses a file rule with any other.
#define FK_FS_FILE_RIGHTS (FK_FS_EXECUTE | FK_FS_WRITE_FILE | FK_FS_READ_FILE | FK_FS_TRUNCATE | FK_FS_IOCTL_DEV)

int foldkit_sandbox_landlock_abi(void) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, FK_LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

/// Every file-system right the kernel's Landlock ABI knows.
static uint64_t handled_fs(int abi) {
    uint64_t rights = FK_FS_EXECUTE | FK_FS_WRITE_FILE | FK_FS_READ_FILE | FK_FS_READ_DIR | FK_FS_REMOVE_DIR | FK_FS_REMOVE_FILE |
                      FK_FS_MAKE_CHAR | FK_FS_MAKE_DIR | FK_FS_MAKE_REG | FK_FS_MAKE_SOCK | FK_FS_MAKE_FIFO | FK_FS_MAKE_BLOCK |
                      FK_FS_MAKE_SYM;
    if (abi >= 2) rights |= FK_FS_REFER;
    if (abi >= 3) rights |= FK_FS_TRUNCATE;
    if (abi >= 5) rights |= FK_FS_IOCTL_DEV;
    return rights;
}

static int current_abi = 0;

int foldkit_sandbox_begin(void) {
    current_abi = foldkit_sandbox_landlock_abi();
    if (current_abi < 1) return -1;
    struct foldkit_landlock_ruleset_attr attr = {0};
    size_t size = offsetof(struct foldkit_landlock_ruleset_attr, handled_access_net);
    attr.handled_access_fs = handled_fs(current_abi);
    if (current_abi >= 4) {
        attr.handled_access_net = FK_NET_BIND_TCP | FK_NET_CONNECT_TCP;
        size = offsetof(struct foldkit_landlock_ruleset_attr, scoped);
    }
    if (current_abi >= 6) {
        attr.scoped = FK_SCOPE_ABSTRACT_UNIX_SOCKET | FK_SCOPE_SIGNAL;
        size = sizeof(attr);
    }
    long fd = syscall(__NR_landlock_create_ruleset, &attr, size, 0);
    return fd >= 0 ? (int)fd : -1;
}

static int allow(int ruleset, const char *path, uint64_t rights) {
    if (ruleset < 0) return -1;
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -1;
    }
    rights &= handled_fs(current_abi);
    if (!S_ISDIR(st.st_mode)) rights &= FK_FS_FILE_RIGHTS;
    struct foldkit_landlock_path_beneath_attr rule = {.allowed_access = rights, .parent_fd = fd};
    long result = syscall(__NR_landlock_add_rule, ruleset, FK_LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
    return result == 0 ? 0 : -1;
}

int foldkit_sandbox_allow_read(int ruleset, const char *path) { return allow(ruleset, path, FK_FS_READ_FILE | FK_FS_READ_DIR); }

int foldkit_sandbox_allow_write(int ruleset, const char *path) { return allow(ruleset, path, handled_fs(current_abi) & ~FK_FS_EXECUTE); }

// --- seccomp --------------------------------------------------------------------------------------------

#if defined(__x86_64__)
#define FK_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FK_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef FK_AUDIT_ARCH

/// The calls the helper has no use for: each answers EPERM.
static const int denied[] = {
    __NR_execve, __NR_execveat,
#ifdef __NR_fork
    __NR_fork,
#endif
#ifdef __NR_vfork
    __NR_vfork,
#endif
    __NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen, __NR_accept, __NR_accept4,
    __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev, __NR_tkill, __NR_rt_sigqueueinfo, __NR_rt_tgsigqueueinfo,
#ifdef __NR_pidfd_open
    __NR_pidfd_open, __NR_pidfd_send_signal,
#endif
#ifdef __NR_pidfd_getfd
    __NR_pidfd_getfd,
#endif
#ifdef __NR_process_madvise
    __NR_process_madvise,
#endif
    __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot, __NR_unshare, __NR_setns,
#ifdef __NR_fsopen
    __NR_fsopen, __NR_fsconfig, __NR_fsmount, __NR_fspick, __NR_move_mount, __NR_open_tree,
#endif
#ifdef __NR_mount_setattr
    __NR_mount_setattr,
#endif
    __NR_kexec_load,
#ifdef __NR_kexec_file_load
    __NR_kexec_file_load,
#endif
    __NR_init_module, __NR_finit_module, __NR_delete_module, __NR_reboot, __NR_swapon, __NR_swapoff, __NR_acct,
    __NR_quotactl, __NR_bpf, __NR_perf_event_open, __NR_userfaultfd, __NR_keyctl, __NR_add_key, __NR_request_key,
    __NR_open_by_handle_at, __NR_name_to_handle_at, __NR_fanotify_init,
#ifdef __NR_io_uring_setup
    __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
#endif
#ifdef __NR_iopl
    __NR_iopl,
#endif
#ifdef __NR_ioperm
    __NR_ioperm,
#endif
};

#define FK_COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define FK_ARG_LOW(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#define FK_ARG_HIGH(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#define FK_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static int install_seccomp(void) {
    enum { most = 128 + FK_COUNT(denied) * 2 };
    struct sock_filter program[most];
    unsigned n = 0;
#define EMIT(statement) program[n++] = (struct sock_filter)statement
    uint32_t pid = (uint32_t)getpid();
    // Another architecture's calls (i386 through int 0x80 on x86_64): refused.
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FK_AUDIT_ARCH, 1, 0));
    EMIT(BPF_STMT(BPF_RET | BPF_K, FK_ERRNO(EPERM)));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
    // The x32 ABI's numbers: refused.
    EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, FK_ERRNO(EPERM)));
#endif
    for (unsigned i = 0; i < FK_COUNT(denied); i++) {
        EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)denied[i], 0, 1));
        EMIT(BPF_STMT(BPF_RET | BPF_K, FK_ERRNO(EPERM)));
    }
#ifdef __NR_clone3
    // clone3's flags are behind a pointer the filter cannot read: ENOSYS makes glibc make threads with clone.
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, FK_ERRNO(ENOSYS)));
#endif
    // clone: threads only (CLONE_THREAD in the flags, argument 0 on x86_64 and aarch64).
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, FK_ARG_LOW(0)));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    EMIT(BPF_STMT(BPF_RET | BPF_K, FK_ERRNO(EPERM)));
    // kill and tgkill: this process only (abort's raise is tgkill(getpid(), gettid(), SIGABRT)).
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 1, 0));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 0, 5));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, FK_ARG_HIGH(0)));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2));
    EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, FK_ARG_LOW(0)));
    EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, pid, 1, 0));
    EMIT(BPF_STMT(BPF_RET | BPF_K, FK_ERRNO(EPERM)));
    EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#undef EMIT
    struct sock_fprog fprog = {.len = (unsigned short)n, .filter = program};
    // TSYNC: every thread of the process gets the filter (and no_new_privs), not the calling one only.
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fprog) == 0) return 1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == 0 ? 1 : 0;
}
#else
static int install_seccomp(void) { return 0; }
#endif

/// The number of threads of this process (Landlock restricts the calling thread and the threads it
/// makes from then on: the helper enforces it while it has one thread).
static int thread_count(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(tasks);
    return count;
}

int foldkit_sandbox_threads(void) { return thread_count(); }

int foldkit_sandbox_enforce(int ruleset) {
    int held = 0;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) held |= FOLDKIT_SANDBOX_NO_NEW_PRIVS;
    if (ruleset >= 0) {
        if ((held & FOLDKIT_SANDBOX_NO_NEW_PRIVS) && syscall(__NR_landlock_restrict_self, ruleset, 0) == 0) held |= FOLDKIT_SANDBOX_LANDLOCK;
        close(ruleset);
    }
    if ((held & FOLDKIT_SANDBOX_NO_NEW_PRIVS) && install_seccomp()) held |= FOLDKIT_SANDBOX_SECCOMP;
    return held;
}

#else

int foldkit_sandbox_landlock_abi(void) { return 0; }
int foldkit_sandbox_begin(void) { return -1; }
int foldkit_sandbox_allow_read(int ruleset, const char *path) {
    (void)ruleset;
    (void)path;
    return -1;
}
int foldkit_sandbox_allow_write(int ruleset, const char *path) {
    (void)ruleset;
    (void)path;
    return -1;
}
int foldkit_sandbox_enforce(int ruleset) {
    (void)ruleset;
    return 0;
}
int foldkit_sandbox_threads(void) { return -1; }

#endif
