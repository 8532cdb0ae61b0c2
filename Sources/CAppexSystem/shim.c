// CAppexSystem: see include/CAppexSystem.h. Each function is a thin, stateless wrapper.
#define _GNU_SOURCE
#include "CAppexSystem.h"
#include "children.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

ssize_t appex_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fdCount) {
    if (fdCount < 0 || fdCount > APPEX_MAX_FDS_PER_MESSAGE) {
        errno = EINVAL;
        return -1;
    }
    struct iovec vector = { .iov_base = (void *)bytes, .iov_len = length };
    struct msghdr message = { .msg_iov = &vector, .msg_iovlen = 1 };
    union {
        char buffer[CMSG_SPACE(sizeof(int) * APPEX_MAX_FDS_PER_MESSAGE)];
        struct cmsghdr align;
    } control;
    if (fdCount > 0) {
        memset(&control, 0, sizeof(control));
        message.msg_control = control.buffer;
        message.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)fdCount);
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)fdCount);
        memcpy(CMSG_DATA(header), fds, sizeof(int) * (size_t)fdCount);
    }
    ssize_t sent;
    do {
        sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
}

ssize_t appex_receive_with_fds(int socket, void *bytes, size_t capacity,
                               int *fds, int fdCapacity, int *fdCount, int *truncated, int dontWait) {
    struct iovec vector = { .iov_base = bytes, .iov_len = capacity };
    union {
        char buffer[CMSG_SPACE(sizeof(int) * APPEX_MAX_FDS_PER_MESSAGE)];
        struct cmsghdr align;
    } control;
    struct msghdr message = {
        .msg_iov = &vector, .msg_iovlen = 1,
        .msg_control = control.buffer, .msg_controllen = sizeof(control.buffer),
    };
    *fdCount = 0;
    *truncated = 0;
    ssize_t received;
    do {
        received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC | (dontWait ? MSG_DONTWAIT : 0));
    } while (received < 0 && errno == EINTR);
    if (received < 0) return received;
    if (message.msg_flags & MSG_CTRUNC) *truncated = 1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        const unsigned char *data = CMSG_DATA(header);
        for (size_t index = 0; index < count; index++) {
            int fd;
            memcpy(&fd, data + index * sizeof(int), sizeof(int));
            if (*fdCount < fdCapacity) {
                fds[(*fdCount)++] = fd;
            } else {
                close(fd);
                *truncated = 1;
            }
        }
    }
    return received;
}

int appex_accept(int listener) {
    int fd;
    do {
        fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    return fd;
}

int appex_open_path(const char *path) {
    return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int appex_sanitizer(void) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 1;
#elif __has_feature(thread_sanitizer)
    return 2;
#endif
#endif
    return 0;
}

int appex_open_beneath(int folder, const char *path, int flags, mode_t mode) {
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .mode = (flags & O_CREAT) ? mode : 0,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, folder, path, &how, sizeof(how));
}

int appex_open_within(int folder, const char *path, int flags) {
    struct open_how how = {
        .flags = (uint64_t)(flags | O_CLOEXEC),
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    return (int)syscall(SYS_openat2, folder, path, &how, sizeof(how));
}

int appex_clone_file(int destination, int source) {
    return ioctl(destination, FICLONE, source);
}

int appex_peer_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) < 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int appex_peer_pidfd(int socket) {
    int pidfd = -1;
    socklen_t length = sizeof(pidfd);
    if (getsockopt(socket, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &length) < 0) return -1;
    return pidfd;
}

int appex_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int appex_pidfd_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, NULL, 0);
}

int appex_pidfd_reap(int pidfd, int *code, int *status) {
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    int result;
    do {
        result = waitid((idtype_t)P_PIDFD, (id_t)pidfd, &info, WEXITED | WNOHANG);
    } while (result < 0 && errno == EINTR);
    if (result < 0) return -1;
    if (info.si_pid == 0) return 0;
    *code = info.si_code;
    *status = info.si_status;
    return 1;
}

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif

int appex_memfd_create(const char *name) {
    // Sealed against execution where the kernel can (Linux 6.3), which a sandbox's seccomp
    // baseline asks of every memory file; MFD_NOEXEC_SEAL allows the other seals too.
    int fd = memfd_create(name, MFD_CLOEXEC | MFD_NOEXEC_SEAL);
    if (fd < 0 && errno == EINVAL) fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    return fd;
}

int appex_memfd_noexec_seal_available(void) {
    int fd = memfd_create("appex-probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

int appex_memfd_seal(int fd) {
    return fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
}

int appex_is_sealed_against_shrinking(int fd) {
    int seals = fcntl(fd, F_GET_SEALS);
    return seals >= 0 && (seals & F_SEAL_SHRINK) != 0;
}

int appex_lock_byte(int fd, int64_t offset, int exclusive, int wait) {
    struct flock lock = {
        .l_type = exclusive ? F_WRLCK : F_RDLCK,
        .l_whence = SEEK_SET,
        .l_start = offset,
        .l_len = 1,
    };
    return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock);
}

int appex_unlock_byte(int fd, int64_t offset) {
    struct flock lock = {
        .l_type = F_UNLCK,
        .l_whence = SEEK_SET,
        .l_start = offset,
        .l_len = 1,
    };
    return fcntl(fd, F_OFD_SETLK, &lock);
}

#if defined(__aarch64__)
extern uintptr_t __stack_chk_guard;
#endif

uintptr_t appex_stack_guard(void) {
#if defined(__x86_64__)
    uintptr_t guard;
    __asm__ volatile("movq %%fs:0x28, %0" : "=r"(guard));
    return guard;
#elif defined(__aarch64__)
    return __stack_chk_guard;
#else
    return 0;
#endif
}

/// Gives the process a stack-protector canary of its own, from the kernel's random source:
/// a child forked from a template otherwise keeps the template's, which every other child
/// forked from it can read in itself (docs/zygote.md). Only for a process none of whose
/// checked frames will return, since each compares the canary it saved on entry with the
/// current one: a forked child about to run its body and exit. Keeps the lowest byte zero, as
/// glibc does, so that a string copied over the canary ends there. -1 with errno on failure.
APPEX_CHILD_SIDE static int appex_renew_stack_guard(void) {
    uintptr_t guard = 0;
    if (syscall(SYS_getrandom, &guard, sizeof(guard), 0) != (long)sizeof(guard)) return -1;
    guard &= ~(uintptr_t)0xff;
#if defined(__x86_64__)
    __asm__ volatile("movq %0, %%fs:0x28" : : "r"(guard) : "memory");
#elif defined(__aarch64__)
    __stack_chk_guard = guard;
#endif
    return 0;
}

/// In the child, between fork and exec: only async-signal-safe calls from here on.
///
/// `parentPidfd` is a pidfd for the parent when the child is in a pid namespace of its own,
/// where getppid() answers 0, else -1. `namespaces` are those the child was made in.
///
/// With `body`, the child is a fork that runs `body(context)` with `envp` as its environment
/// instead of executing `path` (appex_fork_run); the error pipe, closed first, tells the
/// parent that every step before it succeeded.
APPEX_CHILD_SIDE static void appex_child(const char *path, char *const argv[], char *const envp[],
                        const appex_spawn_options *options, pid_t parent, int parentPidfd, int namespaces, int errorPipe,
                        appex_fork_run_body body, void *context) {
    int step = APPEX_SPAWN_STEP_EXEC;
    if (options->dieWithParent) {
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) goto fail;
        // If the parent died before that, no signal comes: end now instead.
        if (parentPidfd >= 0) {
            struct pollfd exited = { .fd = parentPidfd, .events = POLLIN };
            if (poll(&exited, 1, 0) != 0) { errno = ESRCH; goto fail; }
        } else if (getppid() != parent) {
            errno = ESRCH;
            goto fail;
        }
    }
    if (namespaces && appex_sandbox_enter_namespaces(options->sandbox, &step) < 0) goto fail;
    if (setsid() < 0) goto fail;
    if (options->addressSpaceLimit > 0) {
        struct rlimit limit = { (rlim_t)options->addressSpaceLimit, (rlim_t)options->addressSpaceLimit };
        if (setrlimit(RLIMIT_AS, &limit) < 0) goto fail;
    }
    // Before the descriptors move: the sandbox opens its rule paths (and /dev/null is
    // opened below under its rules, which must allow it).
    if (options->sandbox && appex_sandbox_apply(options->sandbox, &step) < 0) goto fail;

    sigset_t none;
    sigemptyset(&none);
    // The raw system call, not glibc's sigaction: glibc refuses signals 32 and 33, which it
    // keeps for itself, so one ignored here (Swift test runners ignore 32) would stay ignored
    // across exec. All zeros is SIG_DFL with no flags, whatever the kernel's struct layout;
    // 8 is the size of the kernel's sigset_t (64 signals).
    static const unsigned long standard[4] = { 0, 0, 0, 0 };
    for (int number = 1; number < NSIG; number++) {
        if (number != SIGKILL && number != SIGSTOP) syscall(SYS_rt_sigaction, number, standard, NULL, 8);
    }
    sigprocmask(SIG_SETMASK, &none, NULL);

    // Move every source above the highest target first, so no dup2 clobbers a source.
    int highest = 2;
    for (int index = 0; index < options->fdCount; index++) {
        if (options->targets[index] > highest) highest = options->targets[index];
    }
    int base = highest + 1;
    if (errorPipe <= highest) {
        int moved = fcntl(errorPipe, F_DUPFD_CLOEXEC, base);
        if (moved < 0) goto fail;
        errorPipe = moved;
    }
    int moved[APPEX_MAX_FDS_PER_MESSAGE];
    if (options->fdCount > APPEX_MAX_FDS_PER_MESSAGE) { errno = EINVAL; goto fail; }
    for (int index = 0; index < options->fdCount; index++) {
        moved[index] = fcntl(options->fds[index], F_DUPFD_CLOEXEC, base);
        if (moved[index] < 0) goto fail;
    }
    int mapped[3] = { 0, 0, 0 };
    for (int index = 0; index < options->fdCount; index++) {
        if (dup2(moved[index], options->targets[index]) < 0) goto fail;
        if (options->targets[index] <= 2) mapped[options->targets[index]] = 1;
    }
    for (int target = 0; target <= 2; target++) {
        if (mapped[target]) continue;
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || (null != target && dup2(null, target) < 0)) goto fail;
        if (null != target) close(null);
    }
    // Close everything else but the error pipe, which closes itself at exec: what lies in
    // the gaps between targets (3 to highest), and all from base up.
    for (int fd = 3; fd <= highest; fd++) {
        int isTarget = 0;
        for (int index = 0; index < options->fdCount && !isTarget; index++) isTarget = options->targets[index] == fd;
        if (!isTarget) close(fd);
    }
    if (errorPipe > base) syscall(SYS_close_range, (unsigned)base, (unsigned)errorPipe - 1, 0);
    syscall(SYS_close_range, (unsigned)errorPipe + 1, ~0U, 0);

    if (options->directory && chdir(options->directory) < 0) goto fail;
    if (options->sandbox && appex_sandbox_apply_limits(options->sandbox, &step) < 0) goto fail;
    if (options->sandbox && options->sandbox->seccompBaseline && appex_sandbox_apply_seccomp(options->sandbox, &step) < 0) goto fail;
    if (body != NULL) {
        extern char **environ;
        environ = (char **)envp;
        step = APPEX_SPAWN_STEP_EXEC;
        if (appex_renew_stack_guard() < 0) goto fail;
        close(errorPipe);
        body(context);
        appex_child_exit(127);
    }
    execve(path, argv, envp);
fail:
    appex_report_failure(errorPipe, errno, step);
    appex_child_exit(127);
}

/// What `appex_spawn` hands its clone(CLONE_VM) child. The child reads these and writes
/// nothing the parent reads but the error pipe and, when it starts the program as a child of
/// its own (a sandbox that joins a network), `program`.
struct appex_spawn_arguments {
    const char *path;
    char *const *argv;
    char *const *envp;
    const appex_spawn_options *options;
    pid_t parent;
    int parentPidfd;
    int namespaces;
    int errorPipe;
    void *stacks;
    pid_t program;
};

APPEX_CHILD_SIDE static int appex_spawn_program(void *raw) {
    const struct appex_spawn_arguments *arguments = raw;
    appex_child(arguments->path, arguments->argv, arguments->envp, arguments->options,
                arguments->parent, arguments->parentPidfd, arguments->namespaces, arguments->errorPipe, NULL, NULL);
    return 127;
}

APPEX_CHILD_SIDE static int appex_spawn_child(void *raw) {
    struct appex_spawn_arguments *arguments = raw;
    const appex_sandbox *sandbox = arguments->options->sandbox;
    if (sandbox && sandbox->joinsNetwork) {
        appex_sandbox_join_namespaces(sandbox, appex_spawn_program, raw, appex_grandchild_stack_top(arguments->stacks),
                                      arguments->errorPipe, &arguments->program);
    }
    return appex_spawn_program(raw);
}

/// The parent's end of a start: reads the child's report from `errorPipe` to its end and
/// closes it. An empty pipe means the child reached exec or its body: returns `program` with
/// its pidfd in `*pidfd` (or kills and reaps it if the pidfd can't be had). A report, or no
/// program, fails: `program` is reaped, and -1 returned with the child's errno and the step
/// in `*failedStep`.
static pid_t appex_finish_start(int errorPipe, pid_t program, int *pidfd, int *failedStep) {
    int report[2] = { 0, APPEX_SPAWN_STEP_EXEC };
    ssize_t got;
    do {
        got = read(errorPipe, report, sizeof(report));
    } while (got < 0 && errno == EINTR);
    close(errorPipe);
    int error = 0;
    if (got > 0) {
        *failedStep = report[1];
        error = report[0] != 0 ? report[0] : EIO;
    } else if (program <= 0) {
        error = ECHILD;
    }
    if (error != 0) {
        if (program > 0) {
            while (waitpid(program, NULL, 0) < 0 && errno == EINTR) {}
        }
        errno = error;
        return -1;
    }
    *pidfd = appex_pidfd_open(program);
    if (*pidfd < 0) {
        error = errno;
        kill(program, SIGKILL);
        while (waitpid(program, NULL, 0) < 0 && errno == EINTR) {}
        errno = error;
        return -1;
    }
    return program;
}

/// Spawns as glibc's posix_spawn does: clone(CLONE_VM | CLONE_VFORK) on a stack of its own,
/// so the kernel neither copies the daemon's page tables nor tears them down again at exec,
/// and this thread waits until the child has exec'd or exited. The child shares the parent's
/// memory (its errno included, which is this thread's) until then: it runs only
/// `appex_child`, with every signal blocked until it has reset all dispositions, so no
/// handler of the daemon's runs on the shared memory. A sandbox that joins a network with a
/// pid namespace of its own takes two such children: the first joins and unshares, and
/// starts the program as the second, then exits (appex_sandbox_join_namespaces).
pid_t appex_spawn(const char *path, char *const argv[], char *const envp[],
                  const appex_spawn_options *options, int *pidfd, int *failedStep) {
    int errorPipe[2];
    if (pipe2(errorPipe, O_CLOEXEC) < 0) return -1;
    void *stacks = appex_child_stacks_make();
    if (stacks == NULL) {
        int error = errno;
        close(errorPipe[0]);
        close(errorPipe[1]);
        errno = error;
        return -1;
    }
    int namespaces = options->sandbox ? options->sandbox->namespaces : 0;
    int joins = options->sandbox && options->sandbox->joinsNetwork;
    int parentPidfd = -1;
    if ((namespaces & CLONE_NEWPID) && options->dieWithParent) {
        parentPidfd = appex_pidfd_open(getpid());
        if (parentPidfd < 0) {
            int error = errno;
            appex_child_stacks_free(stacks);
            close(errorPipe[0]);
            close(errorPipe[1]);
            errno = error;
            return -1;
        }
    }
    struct appex_spawn_arguments arguments = {
        .path = path, .argv = argv, .envp = envp, .options = options,
        .parent = getpid(), .parentPidfd = parentPidfd, .namespaces = namespaces, .errorPipe = errorPipe[1],
        .stacks = stacks, .program = 0,
    };
    pid_t child = appex_clone_sharing_memory(appex_spawn_child, &arguments, appex_child_stack_top(stacks),
                                             joins ? 0 : namespaces);
    int cloneError = errno;
    appex_child_stacks_free(stacks);
    close(errorPipe[1]);
    if (parentPidfd >= 0) close(parentPidfd);
    if (child < 0) {
        close(errorPipe[0]);
        *failedStep = namespaces ? APPEX_SPAWN_STEP_NAMESPACES : APPEX_SPAWN_STEP_EXEC;
        errno = cloneError;
        return -1;
    }
    // The first child has exited, if it started the program as a second: reap it, and the
    // program is the second.
    if (arguments.program > 0) {
        while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
        child = arguments.program;
    }
    // The child has exec'd (the pipe's end closed with it) or written its errno and the
    // failed step, and exited.
    return appex_finish_start(errorPipe[0], child, pidfd, failedStep);
}

int appex_become_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

/// A fork, not a clone sharing memory: the child keeps a copy of the template it was forked
/// from and never execs (docs/zygote.md, "The process tree"). _Fork, not fork: no atfork
/// handler runs, and a sanitizer's would start a thread of its own in the child
/// (ThreadSanitizer's does), which can then neither join nor make a user namespace (EINVAL
/// for a process with two threads). _Fork still gives the child glibc's record of its own
/// thread id, which a raw clone would leave naming the parent's thread. The caller has one
/// thread, so no lock is held across the fork, and has started no dispatch thread, the one
/// runtime state whose atfork handler would matter.
pid_t appex_fork_run(const appex_spawn_options *options, char *const envp[], appex_fork_run_body body, void *context,
                     int *pidfd, int *failedStep) {
    *failedStep = APPEX_SPAWN_STEP_EXEC;
    const appex_sandbox *sandbox = options->sandbox;
    int namespaces = sandbox ? sandbox->namespaces : 0;
    if (body == NULL || (options->dieWithParent && (namespaces & CLONE_NEWPID))) {
        errno = EINVAL;
        return -1;
    }
    int errorPipe[2], startedPipe[2];
    if (pipe2(errorPipe, O_CLOEXEC) < 0) return -1;
    if (pipe2(startedPipe, O_CLOEXEC) < 0) {
        int error = errno;
        close(errorPipe[0]);
        close(errorPipe[1]);
        errno = error;
        return -1;
    }
    sigset_t all, previous;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &previous);
    pid_t parent = getpid();
    pid_t first = _Fork();
    if (first == 0) {
        close(errorPipe[0]);
        close(startedPipe[0]);
        int step = APPEX_SPAWN_STEP_NAMESPACES;
        if (sandbox && sandbox->joinsNetwork) {
            step = APPEX_SPAWN_STEP_JOIN;
            if (setns(sandbox->joinedUserFD, CLONE_NEWUSER) < 0 || setns(sandbox->joinedNetworkFD, CLONE_NEWNET) < 0) goto fail;
            step = APPEX_SPAWN_STEP_NAMESPACES;
            if (namespaces & CLONE_NEWNET) {
                errno = EINVAL;
                goto fail;
            }
        }
        if (namespaces && unshare(namespaces) < 0) goto fail;
        // A new pid namespace holds only the children of the process that made it.
        if (namespaces & CLONE_NEWPID) {
            pid_t init = _Fork();
            if (init < 0) goto fail;
            if (init > 0) {
                while (write(startedPipe[1], &init, sizeof(init)) < 0 && errno == EINTR) {}
                _exit(0);
            }
        }
        close(startedPipe[1]);
        appex_child(NULL, NULL, envp, options, parent, -1, namespaces, errorPipe[1], body, context);
    fail:
        appex_report_failure(errorPipe[1], errno, step);
        _exit(127);
    }
    int forkError = errno;
    sigprocmask(SIG_SETMASK, &previous, NULL);
    close(errorPipe[1]);
    close(startedPipe[1]);
    if (first < 0) {
        close(errorPipe[0]);
        close(startedPipe[0]);
        errno = forkError;
        return -1;
    }
    pid_t program = first;
    if (namespaces & CLONE_NEWPID) {
        // The first child has exited, or is about to: reap it, and its child, now ours as
        // this process is a subreaper, is the program.
        pid_t init = 0;
        ssize_t got;
        do {
            got = read(startedPipe[0], &init, sizeof(init));
        } while (got < 0 && errno == EINTR);
        while (waitpid(first, NULL, 0) < 0 && errno == EINTR) {}
        program = got == sizeof(init) ? init : 0;
    }
    close(startedPipe[0]);
    return appex_finish_start(errorPipe[0], program, pidfd, failedStep);
}

/// Closes every descriptor from 3 up except those in `keep`, which it sorts. Async-signal-safe.
APPEX_CHILD_SIDE static void appex_close_all_but(int *keep, int count) {
    for (int index = 1; index < count; index++) {
        int value = keep[index];
        int position = index;
        for (; position > 0 && keep[position - 1] > value; position--) keep[position] = keep[position - 1];
        keep[position] = value;
    }
    unsigned next = 3;
    for (int index = 0; index < count; index++) {
        if (keep[index] < (int)next) continue;
        if ((unsigned)keep[index] > next) syscall(SYS_close_range, next, (unsigned)keep[index] - 1, 0);
        next = (unsigned)keep[index] + 1;
    }
    syscall(SYS_close_range, next, ~0U, 0);
}

pid_t appex_spawn_detached(const char *path, char *const argv[], char *const envp[],
                           const appex_spawn_options *options) {
    int errorPipe[2];
    if (pipe2(errorPipe, O_CLOEXEC) < 0) return -1;
    int pidPipe[2];
    if (pipe2(pidPipe, O_CLOEXEC) < 0) {
        close(errorPipe[0]);
        close(errorPipe[1]);
        return -1;
    }
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int error = errno;
        close(errorPipe[0]); close(errorPipe[1]); close(pidPipe[0]); close(pidPipe[1]);
        errno = error;
        return -1;
    }
    if (child == 0) {
        // First, drop every descriptor but the pipes' write ends and those the grandchild
        // installs: a copy of the parent's descriptors would otherwise live until this
        // process has forked and exited, which for a large parent on a loaded machine can
        // be long. Meanwhile a lock the parent released would stay held, and a peer the parent
        // hung up on would not see it go.
        int keep[APPEX_MAX_FDS_PER_MESSAGE + 2];
        int keepCount = 0;
        keep[keepCount++] = errorPipe[1];
        keep[keepCount++] = pidPipe[1];
        for (int index = 0; index < options->fdCount && index < APPEX_MAX_FDS_PER_MESSAGE; index++) keep[keepCount++] = options->fds[index];
        appex_close_all_but(keep, keepCount);
        if (setsid() < 0) _exit(127);
        pid_t grandchild = fork();
        if (grandchild < 0) _exit(127);
        if (grandchild == 0) {
            close(pidPipe[1]);
            appex_spawn_options detached = *options;
            detached.dieWithParent = 0;
            appex_child(path, argv, envp, &detached, parent, -1, 0, errorPipe[1], NULL, NULL);
        }
        while (write(pidPipe[1], &grandchild, sizeof(grandchild)) < 0 && errno == EINTR) {}
        _exit(0);
    }
    close(errorPipe[1]);
    close(pidPipe[1]);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR) {}
    pid_t grandchild = -1;
    ssize_t got;
    do {
        got = read(pidPipe[0], &grandchild, sizeof(grandchild));
    } while (got < 0 && errno == EINTR);
    close(pidPipe[0]);
    int childError = 0;
    do {
        got = read(errorPipe[0], &childError, sizeof(childError));
    } while (got < 0 && errno == EINTR);
    close(errorPipe[0]);
    if (got > 0 || grandchild <= 0) {
        errno = got > 0 ? childError : ECHILD;
        return -1;
    }
    return grandchild;
}

int appex_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

int appex_epoll_watch_once(int epoll, int fd, uint64_t token, int modify) {
    struct epoll_event event = { .events = EPOLLIN | EPOLLRDHUP | EPOLLONESHOT, .data.u64 = token };
    return epoll_ctl(epoll, modify ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &event);
}

int appex_epoll_forget(int epoll, int fd) {
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, NULL);
}

int appex_epoll_wait(int epoll, uint64_t *tokens, int capacity, int timeout) {
    struct epoll_event events[64];
    if (capacity > 64) capacity = 64;
    int count;
    do {
        count = epoll_wait(epoll, events, capacity, timeout);
    } while (count < 0 && errno == EINTR);
    for (int index = 0; index < count; index++) tokens[index] = events[index].data.u64;
    return count;
}
