// What the launcher's children share between sandbox.c and shim.c: their stacks, the clone
// that starts them, and joining namespaces made beforehand. Not part of the module's interface.
#ifndef C_APPEX_CHILDREN_H
#define C_APPEX_CHILDREN_H

#include "CAppexSystem.h"

/// Memory for the stack of a clone(CLONE_VM) child and, below it, one for the child it may
/// clone in turn: 64 KiB each, enough for the one small array each keeps and the libc calls
/// they make. NULL with errno if it can't be mapped.
void *appex_child_stacks_make(void);
void appex_child_stacks_free(void *stacks);
/// Where the child's stack starts, and its child's (stacks grow down).
void *appex_child_stack_top(void *stacks);
void *appex_grandchild_stack_top(void *stacks);

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
