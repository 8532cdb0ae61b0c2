// The sandbox layers a spawned child applies to itself between fork and exec: no_new_privs,
// resource limits, Landlock and a seccomp baseline. No policy lives here: the caller says
// what is allowed (appex_sandbox), and this applies exactly that or fails.
//
// Everything here runs in the child of a clone(CLONE_VM), so it allocates nothing and calls
// only async-signal-safe functions and raw system calls.
#define _GNU_SOURCE
#include "CAppexSystem.h"
#include "children.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/lib-names.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// The Landlock ruleset attributes up to ABI 6, which this machine's kernel headers (ABI 2)
// predate: handled network access from ABI 4, scopes from ABI 6.
struct appex_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

int appex_landlock_abi(void) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? -1 : (int)abi;
}

int appex_seccomp_available(void) {
    // PR_GET_SECCOMP answers 0 (no filter yet) or 2 (filtered) where seccomp is built in,
    // and fails with EINVAL where it is not.
    return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 ? 1 : 0;
}

/// The rights a rule on a file that is not a directory may grant (Landlock refuses the others).
#define APPEX_LANDLOCK_FILE_RIGHTS \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE | (1ULL << 14) | (1ULL << 15))

/// Opens the folder `relative` inside the folder `confinedTo` (O_PATH), resolved by the kernel
/// beneath it and through no symbolic link: a link on the way fails with ELOOP, a `..` that
/// leaves it with EXDEV, and anything but a folder at the end with ENOTDIR.
APPEX_CHILD_SIDE static int appex_open_confined(const char *confinedTo, const char *relative) {
    int folder = open(confinedTo, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (folder < 0) return -1;
    struct open_how how = {
        .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    int target = (int)syscall(SYS_openat2, folder, relative, &how, sizeof(how));
    int error = errno;
    close(folder);
    errno = error;
    return target;
}

APPEX_CHILD_SIDE static int appex_apply_landlock(const appex_sandbox *sandbox, int *failedStep) {
    struct appex_landlock_ruleset_attr attributes = {
        .handled_access_fs = sandbox->handledFilesystem,
        .handled_access_net = sandbox->handledNetwork,
        .scoped = sandbox->scopes,
    };
    size_t size = sandbox->landlockABI >= 6 ? sizeof(attributes)
                : sandbox->landlockABI >= 4 ? offsetof(struct appex_landlock_ruleset_attr, scoped)
                : offsetof(struct appex_landlock_ruleset_attr, handled_access_net);
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attributes, size, 0);
    if (ruleset < 0) return -1;
    for (int index = 0; index < sandbox->ruleCount; index++) {
        const char *confinedTo = sandbox->ruleConfinedTo ? sandbox->ruleConfinedTo[index] : NULL;
        int target = confinedTo ? appex_open_confined(confinedTo, sandbox->rulePaths[index])
                                : open(sandbox->rulePaths[index], O_PATH | O_CLOEXEC);
        if (target < 0) {
            // A path that doesn't exist grants nothing; any other failure is an error, and a
            // confined path's names the rule.
            if (errno == ENOENT) continue;
            if (confinedTo) *failedStep = APPEX_SPAWN_STEP_GRANT + index;
            goto fail;
        }
        struct stat status;
        uint64_t access = sandbox->ruleAccess[index] & sandbox->handledFilesystem;
        if (fstat(target, &status) < 0) {
            close(target);
            goto fail;
        }
        if (!S_ISDIR(status.st_mode)) access &= APPEX_LANDLOCK_FILE_RIGHTS;
        struct landlock_path_beneath_attr beneath = { .allowed_access = access, .parent_fd = target };
        long added = access == 0 ? 0 : syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0);
        int error = errno;
        close(target);
        if (added < 0) {
            errno = error;
            goto fail;
        }
    }
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) goto fail;
    close(ruleset);
    return 0;
fail:;
    int error = errno;
    close(ruleset);
    errno = error;
    return -1;
}

#if defined(__x86_64__)
#define APPEX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define APPEX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/// The system calls the baseline refuses with EPERM: debugging other processes, reaching
/// into their memory or descriptors, mounting, loading code into the kernel, rebooting,
/// changing the clock, keyrings, making or joining namespaces, and io_uring, whose queued
/// operations (sockets and connections among them) no filter would see.
static const int appex_denied_calls[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_pidfd_getfd, SYS_kcmp,
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_fsopen, SYS_fsconfig, SYS_fsmount, SYS_fspick,
    SYS_move_mount, SYS_open_tree, SYS_mount_setattr,
    SYS_kexec_load, SYS_kexec_file_load, SYS_init_module, SYS_finit_module, SYS_delete_module,
    SYS_bpf, SYS_perf_event_open, SYS_userfaultfd, SYS_open_by_handle_at, SYS_name_to_handle_at,
    SYS_reboot, SYS_swapon, SYS_swapoff, SYS_acct, SYS_quotactl, SYS_syslog, SYS_vhangup,
    SYS_settimeofday, SYS_clock_settime, SYS_adjtimex, SYS_clock_adjtime, SYS_sethostname, SYS_setdomainname,
    SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_unshare, SYS_setns,
    SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
#ifdef SYS_iopl
    SYS_iopl,
#endif
#ifdef SYS_ioperm
    SYS_ioperm,
#endif
#ifdef SYS_uselib
    SYS_uselib,
#endif
};

#define APPEX_DENIED_COUNT (sizeof(appex_denied_calls) / sizeof(appex_denied_calls[0]))
#define APPEX_NAMESPACE_FLAGS (CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

APPEX_CHILD_SIDE static int appex_apply_seccomp(int refusesExecutableMemory) {
#ifndef APPEX_AUDIT_ARCH
    errno = ENOSYS;
    return -1;
#else
    // The program, in order: check the architecture (3); load the call's number and refuse
    // x32 calls (2); one test per denied call; clone3 (1); socket with AF_UNIX (3); with
    // `refusesExecutableMemory`, memfd_create without MFD_NOEXEC_SEAL (3); clone with a
    // namespace flag (3); allow; then the three refusals the tests jump to.
    enum { most = 3 + 2 + APPEX_DENIED_COUNT + 1 + 3 + 3 + 3 + 1 + 3 };
    const size_t count = most - (refusesExecutableMemory ? 0 : 3);
    const size_t allow = count - 4, refuseEPERM = count - 3, refuseENOSYS = count - 2, refuseEACCES = count - 1;
    struct sock_filter program[most];
    size_t at = 0;
    // A jump from instruction `at` to `target`: BPF counts from the next instruction.
#define APPEX_TO(target) ((unsigned char)((target) - at - 1))
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    program[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, APPEX_AUDIT_ARCH, 1, 0);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, APPEX_TO(refuseEPERM), 0);
    at++;
    for (size_t index = 0; index < APPEX_DENIED_COUNT; index++) {
        program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)appex_denied_calls[index], APPEX_TO(refuseEPERM), 0);
        at++;
    }
    // clone3 passes its flags in memory, which a filter can't read: ENOSYS, and the C
    // library falls back to clone, whose flags are in a register.
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone3, APPEX_TO(refuseENOSYS), 0);
    at++;
    // A new Unix socket could connect by path to any service outside the sandbox (a session
    // bus, a display server, an agent): Landlock doesn't govern that connect. The process's
    // channels are given to it; socketpair stays allowed, since it reaches only itself.
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 2);
    at++;
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, APPEX_TO(refuseEACCES), APPEX_TO(allow));
    at++;
    // A memory file has no path, so Landlock's execute right doesn't reach it: one the
    // process wrote could be run (execve of /proc/self/fd/N, or execveat with AT_EMPTY_PATH).
    // Only one sealed against execution (MFD_NOEXEC_SEAL, Linux 6.3) may be made.
    if (refusesExecutableMemory) {
        program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_create, 0, 2);
        at++;
        program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
        program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MFD_NOEXEC_SEAL, APPEX_TO(allow), APPEX_TO(refuseEACCES));
        at++;
    }
    // Not clone: skip the flag test, to the allow.
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 2);
    at++;
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, APPEX_NAMESPACE_FLAGS, APPEX_TO(refuseEPERM), 0);
    at++;
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA));
#undef APPEX_TO
    if (at != count) {
        errno = EINVAL;
        return -1;
    }
    struct sock_fprog filter = { .len = (unsigned short)count, .filter = program };
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter);
#endif
}

_Static_assert(APPEX_NAMESPACE_USER == CLONE_NEWUSER && APPEX_NAMESPACE_PID == CLONE_NEWPID
               && APPEX_NAMESPACE_MOUNT == CLONE_NEWNS && APPEX_NAMESPACE_NETWORK == CLONE_NEWNET,
               "the namespace flags are <sched.h>'s");

/// Writes all of `text` to the file at `path`.
APPEX_CHILD_SIDE static int appex_write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(text);
    ssize_t written;
    do {
        written = write(fd, text, length);
    } while (written < 0 && errno == EINTR);
    int error = errno;
    close(fd);
    if (written == (ssize_t)length) return 0;
    errno = written < 0 ? error : EIO;
    return -1;
}

APPEX_CHILD_SIDE int appex_sandbox_enter_namespaces(const appex_sandbox *sandbox, int *failedStep) {
    if (sandbox->namespaces & CLONE_NEWUSER) {
        // The child maps only its own ids, the same inside as outside, which an unprivileged
        // process may do for itself once it has given up setgroups.
        *failedStep = APPEX_SPAWN_STEP_ID_MAPS;
        if (appex_write_file("/proc/self/uid_map", sandbox->userMap) < 0) return -1;
        if (appex_write_file("/proc/self/setgroups", "deny") < 0) return -1;
        if (appex_write_file("/proc/self/gid_map", sandbox->groupMap) < 0) return -1;
    }
    if ((sandbox->namespaces & (CLONE_NEWPID | CLONE_NEWNS)) == (CLONE_NEWPID | CLONE_NEWNS)) {
        // A new mount namespace made by a less privileged user namespace turns shared mounts
        // into slaves, so this mount stays inside it.
        *failedStep = APPEX_SPAWN_STEP_PROC;
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) return -1;
    }
    if (sandbox->namespaces & CLONE_NEWNS) {
        *failedStep = APPEX_SPAWN_STEP_HIDE;
        for (int index = 0; index < sandbox->hiddenCount; index++) {
            if (mount("appex-hidden", sandbox->hiddenPaths[index], "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                      "size=4k,mode=0555") < 0 && errno != ENOENT) return -1;
        }
    }
    *failedStep = APPEX_SPAWN_STEP_EXEC;
    return 0;
}

APPEX_CHILD_SIDE void appex_report_failure(int errorPipe, int error, int step) {
    int report[2] = { error, step };
    while (write(errorPipe, report, sizeof(report)) < 0 && errno == EINTR) {}
}

APPEX_CHILD_SIDE void appex_sandbox_join_namespaces(const appex_sandbox *sandbox, int (*next)(void *), void *argument, void *stackTop,
                                   int errorPipe, pid_t *started) {
    int step = APPEX_SPAWN_STEP_JOIN;
    if (setns(sandbox->joinedUserFD, CLONE_NEWUSER) < 0 || setns(sandbox->joinedNetworkFD, CLONE_NEWNET) < 0) goto fail;
    step = APPEX_SPAWN_STEP_NAMESPACES;
    if (sandbox->namespaces & CLONE_NEWNET) {
        errno = EINVAL;
        goto fail;
    }
    if (unshare(sandbox->namespaces) < 0) goto fail;
    if (!(sandbox->namespaces & CLONE_NEWPID)) return;
    // Its exit signal is this process's, SIGCHLD, which goes to the same parent.
    pid_t pid = appex_clone(next, stackTop, CLONE_VM | CLONE_VFORK | CLONE_PARENT, argument);
    if (pid < 0) goto fail;
    *started = pid;
    appex_child_exit(0);
fail:
    appex_report_failure(errorPipe, errno, step);
    appex_child_exit(127);
}

#define APPEX_CHILD_STACK_SIZE (64 * 1024)

void *appex_child_stacks_make(void) {
    void *stacks = mmap(NULL, 2 * APPEX_CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    return stacks == MAP_FAILED ? NULL : stacks;
}

void appex_child_stacks_free(void *stacks) { munmap(stacks, 2 * APPEX_CHILD_STACK_SIZE); }

// The stacks grow down on every architecture Swift on Linux runs on.
void *appex_child_stack_top(void *stacks) { return (char *)stacks + 2 * APPEX_CHILD_STACK_SIZE; }
void *appex_grandchild_stack_top(void *stacks) { return (char *)stacks + APPEX_CHILD_STACK_SIZE; }

struct appex_probe {
    appex_sandbox sandbox;
    int errorPipe;
    void *stacks;
    pid_t grandchild;
};

APPEX_CHILD_SIDE static int appex_probe_enter(void *raw) {
    const struct appex_probe *probe = raw;
    int step = APPEX_SPAWN_STEP_EXEC;
    int error = appex_sandbox_enter_namespaces(&probe->sandbox, &step) < 0 ? errno : 0;
    appex_report_failure(probe->errorPipe, error, error ? step : 0);
    appex_child_exit(0);
}

APPEX_CHILD_SIDE static int appex_probe_child(void *raw) {
    struct appex_probe *probe = raw;
    if (probe->sandbox.joinsNetwork) {
        appex_sandbox_join_namespaces(&probe->sandbox, appex_probe_enter, probe, appex_grandchild_stack_top(probe->stacks),
                                      probe->errorPipe, &probe->grandchild);
    }
    return appex_probe_enter(raw);
}

// Runs in a child too: appex_sandbox_join_namespaces starts the program with it.
APPEX_CHILD_SIDE pid_t appex_clone(int (*child)(void *), void *stackTop, int flags, void *argument) {
#if APPEX_THREAD_SANITIZER
    typedef int (*clone_function)(int (*)(void *), void *, int, void *, ...);
    static clone_function glibc;
    clone_function found = __atomic_load_n(&glibc, __ATOMIC_ACQUIRE);
    if (found == NULL) {
        void *library = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
        found = library ? (clone_function)dlsym(library, "clone") : NULL;
        if (found == NULL) {
            errno = ENOSYS;
            return -1;
        }
        __atomic_store_n(&glibc, found, __ATOMIC_RELEASE);
    }
    return found(child, stackTop, flags, argument);
#else
    return clone(child, stackTop, flags, argument);
#endif
}

pid_t appex_clone_sharing_memory(int (*child)(void *), void *argument, void *stackTop, int flags) {
    // All signals, glibc's own (32, 33) included, which sigfillset and pthread_sigmask leave
    // out: the raw system call, as posix_spawn's __libc_signal_block_all. 8 is the size of
    // the kernel's sigset_t.
    static const unsigned long all[1] = { ~0UL };
    unsigned long previous[1] = { 0 };
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, all, previous, 8);
    pid_t pid = appex_clone(child, stackTop, CLONE_VM | CLONE_VFORK | SIGCHLD | flags, argument);
    int error = errno;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, previous, NULL, 8);
    errno = error;
    return pid;
}

int appex_namespaces_probe(int namespaces, int joinedUserFD, int joinedNetworkFD, int *failedStep) {
    char userMap[64], groupMap[64];
    snprintf(userMap, sizeof(userMap), "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
    snprintf(groupMap, sizeof(groupMap), "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
    int pipes[2];
    if (pipe2(pipes, O_CLOEXEC) < 0) return -1;
    struct appex_probe probe = { .errorPipe = pipes[1], .stacks = appex_child_stacks_make() };
    probe.sandbox.namespaces = namespaces;
    probe.sandbox.userMap = userMap;
    probe.sandbox.groupMap = groupMap;
    probe.sandbox.joinsNetwork = joinedUserFD >= 0 && joinedNetworkFD >= 0;
    probe.sandbox.joinedUserFD = joinedUserFD;
    probe.sandbox.joinedNetworkFD = joinedNetworkFD;
    if (probe.stacks == NULL) {
        int error = errno;
        close(pipes[0]);
        close(pipes[1]);
        errno = error;
        return -1;
    }
    pid_t child = appex_clone_sharing_memory(appex_probe_child, &probe, appex_child_stack_top(probe.stacks),
                                             probe.sandbox.joinsNetwork ? 0 : namespaces);
    int error = errno;
    appex_child_stacks_free(probe.stacks);
    close(pipes[1]);
    if (child < 0) {
        close(pipes[0]);
        *failedStep = APPEX_SPAWN_STEP_NAMESPACES;
        errno = error;
        return -1;
    }
    int report[2] = { EIO, APPEX_SPAWN_STEP_NAMESPACES };
    while (read(pipes[0], report, sizeof(report)) < 0 && errno == EINTR) {}
    close(pipes[0]);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
    if (probe.grandchild > 0) {
        while (waitpid(probe.grandchild, NULL, 0) < 0 && errno == EINTR) {}
    }
    if (report[0] == 0) return 0;
    *failedStep = report[1];
    errno = report[0];
    return -1;
}

struct appex_empty_network {
    const char *userMap;
    const char *groupMap;
    int userFD;
    int networkFD;
    int error;
};

APPEX_CHILD_SIDE static int appex_empty_network_child(void *raw) {
    struct appex_empty_network *made = raw;
    // Made with CLONE_FILES, so what this opens is the parent's.
    if (appex_write_file("/proc/self/uid_map", made->userMap) < 0 || appex_write_file("/proc/self/setgroups", "deny") < 0
        || appex_write_file("/proc/self/gid_map", made->groupMap) < 0
        || (made->userFD = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC)) < 0
        || (made->networkFD = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
        made->error = errno;
    }
    appex_child_exit(0);
}

int appex_empty_network_make(int *userFD, int *networkFD) {
    char userMap[64], groupMap[64];
    snprintf(userMap, sizeof(userMap), "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
    snprintf(groupMap, sizeof(groupMap), "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
    struct appex_empty_network made = { .userMap = userMap, .groupMap = groupMap, .userFD = -1, .networkFD = -1, .error = 0 };
    void *stacks = appex_child_stacks_make();
    if (stacks == NULL) return -1;
    pid_t child = appex_clone_sharing_memory(appex_empty_network_child, &made, appex_child_stack_top(stacks),
                                             CLONE_FILES | CLONE_NEWUSER | CLONE_NEWNET);
    int error = errno;
    appex_child_stacks_free(stacks);
    if (child < 0) {
        errno = error;
        return -1;
    }
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
    if (made.error != 0) {
        if (made.userFD >= 0) close(made.userFD);
        if (made.networkFD >= 0) close(made.networkFD);
        errno = made.error;
        return -1;
    }
    *userFD = made.userFD;
    *networkFD = made.networkFD;
    return 0;
}

APPEX_CHILD_SIDE int appex_sandbox_apply(const appex_sandbox *sandbox, int *failedStep) {
    *failedStep = APPEX_SPAWN_STEP_NO_NEW_PRIVILEGES;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return -1;
    if (sandbox->landlockABI > 0) {
        *failedStep = APPEX_SPAWN_STEP_LANDLOCK;
        if (appex_apply_landlock(sandbox, failedStep) < 0) return -1;
    }
    *failedStep = APPEX_SPAWN_STEP_EXEC;
    return 0;
}

APPEX_CHILD_SIDE int appex_sandbox_apply_limits(const appex_sandbox *sandbox, int *failedStep) {
    *failedStep = APPEX_SPAWN_STEP_RESOURCE_LIMIT;
    for (int index = 0; index < sandbox->limitCount; index++) {
        struct rlimit limit = { (rlim_t)sandbox->limitValues[index], (rlim_t)sandbox->limitValues[index] };
        if (setrlimit(sandbox->limitResources[index], &limit) < 0) return -1;
    }
    *failedStep = APPEX_SPAWN_STEP_EXEC;
    return 0;
}

APPEX_CHILD_SIDE int appex_sandbox_apply_seccomp(const appex_sandbox *sandbox, int *failedStep) {
    *failedStep = APPEX_SPAWN_STEP_SECCOMP;
    if (appex_apply_seccomp(sandbox->seccompRefusesExecutableMemory) < 0) return -1;
    *failedStep = APPEX_SPAWN_STEP_EXEC;
    return 0;
}
