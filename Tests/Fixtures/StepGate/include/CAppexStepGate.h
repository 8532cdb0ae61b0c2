// CAppexStepGate: stops a process before each change it makes to the file system, for the
// crash-consistency tests, which SIGKILL it there, one step at a time.
//
// A gated process runs under a seccomp filter that hands each call that may change a file
// (a write to a file, an open that creates or truncates, a rename, an unlink, a mkdir, an
// fsync, …) to a supervisor through a listener descriptor (SECCOMP_RET_USER_NOTIF, Linux
// 5.5). The call waits until the supervisor lets it go on; a SIGKILL then kills the process
// before the call has done anything. Test code only: nothing in Appex links it.
#ifndef C_APPEX_STEP_GATE_H
#define C_APPEX_STEP_GATE_H

#include <stdint.h>
#include <sys/types.h>

/// Installs the filter on the calling thread (and the threads it makes from then on), after
/// setting no_new_privs. Returns the listener descriptor, close-on-exec, or -1 with errno.
int appex_step_gate_install(void);

/// A call that waits at the gate.
typedef struct {
    /// The notification's id, for appex_step_gate_continue.
    uint64_t id;
    /// The calling thread's id.
    pid_t pid;
    /// The system call's number, and its first argument.
    int number;
    uint64_t firstArgument;
} appex_step;

/// Waits up to `timeoutMilliseconds` for the next call that changes a file, and lets go on at
/// once, uncounted, each call that only writes to a pipe, a socket or another descriptor
/// that is not a file. Returns 1 with `*step`, 0 once no gated process is left, or -1 with
/// errno (EAGAIN when the time ran out).
int appex_step_gate_next(int listener, int timeoutMilliseconds, appex_step *step);

/// Lets the call `id` go on. Fails with ENOENT if its process has died meanwhile.
int appex_step_gate_continue(int listener, uint64_t id);

#endif
