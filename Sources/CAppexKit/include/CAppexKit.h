// What AppexKit needs from C: making an instance of the principal class named in the
// Info.plist, as Objective-C's `[[cls alloc] init]` does on Apple's systems, and letting a
// debugger attach.
#ifndef C_APPEX_KIT_H
#define C_APPEX_KIT_H

/// Makes an instance of `metadata`, the Swift metadata of a subclass of Foundation's
/// `NSObject`, with the class's `init()`, which it has or inherits; returns it retained,
/// or NULL when the class has no `init()` at all. A subclass that declares another
/// designated initializer and not `init()` traps with Swift's "Use of unimplemented
/// initializer 'init()'", as its `[[cls alloc] init]` does on Apple's systems.
void *appex_make_principal_object(const void *metadata);

/// Lets any process of this user trace this one (`prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY)`),
/// which Yama's ptrace_scope 1 allows only to the tracer's own children otherwise; returns
/// 0, or -1 with errno set. prctl is variadic, so Swift can't call it.
int appex_allow_any_tracer(void);

/// Returns once the process has had a SIGCONT, which appexd sends when it sees that a
/// debugger has attached: from inside the sandbox's pid namespace, the tracer can't be seen.
void appex_wait_for_continue(void);

#endif
