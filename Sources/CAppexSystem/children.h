// What the launcher's children share between sandbox.c and shim.c: their stacks, the clone
// that starts them, and joining namespaces made beforehand. Not part of the module's interface.
#ifndef C_APPEX_CHILDREN_H
#define C_APPEX_CHILDREN_H

#include "CAppexSystem.h"

#include <CAppexLocking.h>
#include <sys/syscall.h>
#include <unistd.h>

/// Marks a function that runs in a clone(CLONE_VM) child. Such a child borrows the stopped
/// parent thread's memory, its ThreadSanitizer state included, so under ThreadSanitizer it
/// runs uninstrumented: an entry it made on the parent's shadow stack would never be popped.
#if APPEX_THREAD_SANITIZER
#define APPEX_CHILD_SIDE __attribute__((disable_sanitizer_instrumentation))
#else
#define APPEX_CHILD_SIDE
#endif

/// Ends a clone(CLONE_VM) child, as _exit does, with the system call itself: a sanitizer's
/// _exit does the process's exit work (ThreadSanitizer's final report, and a second's wait
/// for the other threads), which is the parent's.
#define appex_child_exit(status)                \
    do {                                        \
        syscall(SYS_exit_group, (status));      \
        __builtin_unreachable();                \
    } while (0)

/// Memory for the stack of a clone(CLONE_VM) child and, below it, one for the child it may
/// clone in turn: 64 KiB each, enough for the one small array each keeps and the libc calls
/// they make. NULL with errno if it can't be mapped.
void *appex_child_stacks_make(void);
void appex_child_stacks_free(void *stacks);
/// Where the child's stack starts, and its child's (stacks grow down).
void *appex_child_stack_top(void *stacks);
void *appex_grandchild_stack_top(void *stacks);

/// glibc's clone(child, stackTop, flags, argument). Under ThreadSanitizer, past its clone
/// interceptor, which takes every clone for a fork: its child resets the sanitizer's state,
/// which a CLONE_VM child shares with the parent, and the parent then fails the sanitizer's
/// own check (tsan_rtl.cpp, ForkAfter).
pid_t appex_clone(int (*child)(void *), void *stackTop, int flags, void *argument);

/// Clones `child(argument)` as a child that shares this process's memory, with `flags` (such
/// as namespaces) added, and waits until it has exec'd or exited (CLONE_VFORK). Every signal
/// of this process is blocked around the clone: no handler of this process's may run on the
/// memory the child shares, so the child must reset them all before it unblocks any.
pid_t appex_clone_sharing_memory(int (*child)(void *), void *argument, void *stackTop, int flags);

/// Writes `error` and the step that failed to a spawn's error pipe, as the parent reads them.
void appex_report_failure(int errorPipe, int error, int step);

/// For a sandbox that `joinsNetwork`: joins its user and network namespaces, then makes its
/// `namespaces` inside them with unshare. A new pid namespace holds only the children of the
/// process that makes it, so with CLONE_NEWPID this clones `next(argument)`, on the stack
/// that ends at `stackTop`, as the namespace's first process: a child of the caller's parent
/// (CLONE_PARENT) that shares its memory, and waits until it has exec'd or exited; then
/// stores its pid in `*started` and exits. It also exits on failure, reported on `errorPipe`.
/// Returns only if the caller is to go on itself, in the namespaces made.
void appex_sandbox_join_namespaces(const appex_sandbox *sandbox, int (*next)(void *), void *argument, void *stackTop,
                                   int errorPipe, pid_t *started);

#endif
