// The step gate (CAppexStepGate.h): a seccomp filter that hands each call that may change a
// file to a supervisor, and the supervisor's side of the listener.
#define _GNU_SOURCE
#include "CAppexStepGate.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GATE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GATE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "the step gate knows x86_64 and aarch64"
#endif

/// Calls that change the file system whatever their arguments (the path-based ones, and those
/// whose descriptor is not their first argument).
static const int gate_path_calls[] = {
#ifdef SYS_rename
    SYS_rename, SYS_unlink, SYS_mkdir, SYS_rmdir, SYS_link, SYS_symlink, SYS_creat, SYS_chmod, SYS_chown, SYS_lchown,
    SYS_mknod, SYS_utime, SYS_utimes, SYS_futimesat,
#endif
    SYS_renameat, SYS_renameat2, SYS_unlinkat, SYS_mkdirat, SYS_linkat, SYS_symlinkat, SYS_truncate, SYS_fchmodat,
    SYS_fchownat, SYS_utimensat, SYS_setxattr, SYS_lsetxattr, SYS_removexattr, SYS_lremovexattr, SYS_mknodat,
    SYS_copy_file_range, SYS_openat2,
};

/// Calls that change what their first argument, a descriptor, refers to: a step when that is
/// a file (the supervisor looks), and never for standard input, output or error.
static const int gate_descriptor_calls[] = {
    SYS_write, SYS_pwrite64, SYS_writev, SYS_pwritev, SYS_pwritev2, SYS_ftruncate, SYS_fsync, SYS_fdatasync,
    SYS_fallocate, SYS_fchmod, SYS_fchown, SYS_fsetxattr, SYS_fremovexattr, SYS_sendfile, SYS_sync_file_range,
};

#define GATE_COUNT(array) ((int)(sizeof(array) / sizeof((array)[0])))

int appex_step_gate_install(void) {
    enum { pathCount = GATE_COUNT(gate_path_calls), descriptorCount = GATE_COUNT(gate_descriptor_calls) };
    // The arch check (3), the number's load (1), a jump for each call, the two opens' checks
    // (3 + 3) and the jump past them (1), the descriptor's check (2), and the two returns.
    struct sock_filter program[4 + pathCount + descriptorCount + 3 + 3 + 1 + 2 + 2];
    int at = 0;
    const int total = (int)(sizeof(program) / sizeof(program[0]));
    const int notify = total - 2, allow = total - 1, descriptor = total - 4;
#define GATE_TO(label) ((unsigned char)((label) - at - 1))
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
    program[at++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GATE_AUDIT_ARCH, 1, 0);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
    for (int index = 0; index < pathCount; index++, at++)
        program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)gate_path_calls[index], GATE_TO(notify), 0);
    for (int index = 0; index < descriptorCount; index++, at++)
        program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)gate_descriptor_calls[index], GATE_TO(descriptor), 0);
    // openat(dir, path, flags): a step when it creates or truncates.
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 2);
    at++;
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2]));
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT | O_TRUNC, GATE_TO(notify), GATE_TO(allow));
    at++;
#ifdef SYS_open
    // open(path, flags): the same.
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_open, 0, 2);
    at++;
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1]));
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT | O_TRUNC, GATE_TO(notify), GATE_TO(allow));
    at++;
#else
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#endif
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA | BPF_K, GATE_TO(allow), 0, 0);
    at++;
    // descriptor: a step unless it is 0, 1 or 2.
    program[at++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]));
    program[at] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 2, GATE_TO(notify), GATE_TO(allow));
    at++;
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
    program[at++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
#undef GATE_TO
    if (at != total || descriptor != total - 4) {
        errno = EINVAL;
        return -1;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    struct sock_fprog filter = {.len = (unsigned short)total, .filter = program};
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filter);
}

/// Whether the call's descriptor refers to a file, as /proc names it: a path, not a pipe,
/// a socket or an anonymous inode.
static int gate_is_file(pid_t pid, uint64_t descriptor) {
    char link[64], target[8];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", (int)pid, (int)descriptor);
    ssize_t length = readlink(link, target, sizeof target);
    return length > 0 && target[0] == '/';
}

static int gate_is_descriptor_call(int number) {
    for (int index = 0; index < GATE_COUNT(gate_descriptor_calls); index++)
        if (gate_descriptor_calls[index] == number) return 1;
    return 0;
}

int appex_step_gate_continue(int listener, uint64_t id) {
    struct seccomp_notif_resp response;
    memset(&response, 0, sizeof response);
    response.id = id;
    response.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    return ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
}

int appex_step_gate_next(int listener, int timeoutMilliseconds, appex_step *step) {
    for (;;) {
        struct pollfd ready = {.fd = listener, .events = POLLIN};
        int count = poll(&ready, 1, timeoutMilliseconds);
        if (count < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (count == 0) {
            errno = EAGAIN;
            return -1;
        }
        if (!(ready.revents & POLLIN)) return 0; // POLLHUP: every gated process has gone
        struct seccomp_notif call;
        memset(&call, 0, sizeof call);
        if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &call) != 0) {
            if (errno == EINTR || errno == ENOENT) continue; // its thread died before we took it
            return -1;
        }
        if (gate_is_descriptor_call(call.data.nr) && !gate_is_file((pid_t)call.pid, call.data.args[0])) {
            if (appex_step_gate_continue(listener, call.id) != 0 && errno != ENOENT) return -1;
            continue;
        }
        step->id = call.id;
        step->pid = (pid_t)call.pid;
        step->number = call.data.nr;
        step->firstArgument = call.data.args[0];
        return 1;
    }
}
