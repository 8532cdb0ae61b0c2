// CAppexSystem: the Linux system calls Appex needs that Swift and SwiftNIO don't offer.
//
// Every function returns -1 and sets errno on failure, like the calls it wraps. Nothing
// here holds state or policy; Swift owns every descriptor these functions return.
#ifndef C_APPEX_SYSTEM_H
#define C_APPEX_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// The most descriptors one message may carry (the kernel's SCM_MAX_FD is 253).
#define APPEX_MAX_FDS_PER_MESSAGE 64

/// Sends `length` bytes and, with the first of them, `fdCount` descriptors (SCM_RIGHTS).
/// Never raises SIGPIPE. Returns the number of bytes sent, which may be fewer than `length`.
ssize_t appex_send_with_fds(int socket, const void *bytes, size_t length, const int *fds, int fdCount);

/// Receives up to `capacity` bytes and any descriptors that came with them, close-on-exec.
/// `*fdCount` is set to the number received. If the sender sent more descriptors than
/// `fdCapacity`, the extras are closed and `*truncated` is set to 1. With `dontWait`, a
/// socket with nothing to read fails with EAGAIN instead of blocking.
/// Returns the number of bytes read, 0 at end of stream.
ssize_t appex_receive_with_fds(int socket, void *bytes, size_t capacity,
                               int *fds, int fdCapacity, int *fdCount, int *truncated, int dontWait);

/// Accepts the next connection on `listener`, close-on-exec (accept4).
int appex_accept(int listener);

/// A new epoll instance, close-on-exec.
int appex_epoll_create(void);

/// Watches `fd` in the epoll instance `epoll` for one event, input or the peer's hang-up
/// (level-triggered, EPOLLONESHOT), reported with `token`: added with `modify` 0, watched
/// again after an event with `modify` 1.
int appex_epoll_watch_once(int epoll, int fd, uint64_t token, int modify);

/// Stops watching `fd` in `epoll`.
int appex_epoll_forget(int epoll, int fd);

/// Waits for events in `epoll` (`timeout` in milliseconds, -1 for ever, retried on EINTR)
/// and puts the tokens of up to `capacity` of them in `tokens`. Returns how many.
int appex_epoll_wait(int epoll, uint64_t *tokens, int capacity, int timeout);

/// The sanitizer this code was built with: 1 for AddressSanitizer, 2 for ThreadSanitizer, 0
/// for none. SwiftPM builds C targets with the same sanitizer as the Swift ones.
int appex_sanitizer(void);

/// A descriptor that names the folder `path` without opening it (O_PATH), close-on-exec.
int appex_open_path(const char *path);

/// Opens `path` relative to the folder `folder`, resolved by the kernel beneath it and
/// through no symbolic link (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
/// RESOLVE_NO_MAGICLINKS), close-on-exec. Fails with EXDEV for a path that leaves the folder
/// and ELOOP for one through a link.
int appex_open_beneath(int folder, const char *path, int flags, mode_t mode);

/// Opens `path` relative to the folder `folder`, resolved by the kernel beneath it: symbolic
/// links are followed while they lead to places beneath it, as the kernel would follow them
/// (openat2 with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS), close-on-exec. Fails with EXDEV
/// for a path or a chain of links that leaves the folder, or an absolute link, and ELOOP for
/// a loop.
int appex_open_within(int folder, const char *path, int flags);

/// Makes `destination` share `source`'s data, copied only where either is later written
/// (FICLONE, a reflink), on file systems that can (Btrfs, XFS, bcachefs); -1 with errno
/// EOPNOTSUPP, EXDEV or EINVAL where they can't, and the caller copies.
int appex_clone_file(int destination, int source);

/// The peer's process, user and group ids, as the kernel recorded them at connect time.
int appex_peer_credentials(int socket, pid_t *pid, uid_t *uid, gid_t *gid);

/// A pidfd for the peer, taken by the kernel at connect time (SO_PEERPIDFD, Linux 6.5).
int appex_peer_pidfd(int socket);

/// A pidfd for the process `pid` (pidfd_open, Linux 5.3), close-on-exec.
int appex_pidfd_open(pid_t pid);

/// Sends `signal` to the process a pidfd refers to (pidfd_send_signal).
int appex_pidfd_send_signal(int pidfd, int signal);

/// Reaps the exited child a pidfd refers to, without blocking.
/// Returns 1 with `*code` (CLD_EXITED, CLD_KILLED, CLD_DUMPED) and `*status`, 0 while
/// it still runs, or -1.
int appex_pidfd_reap(int pidfd, int *code, int *status);

/// An anonymous memory file (memfd_create), close-on-exec, that can be sealed, and is
/// sealed against execution where the kernel can (MFD_NOEXEC_SEAL, Linux 6.3).
int appex_memfd_create(const char *name);

/// 1 if this kernel makes memory files sealed against execution (MFD_NOEXEC_SEAL), else 0.
int appex_memfd_noexec_seal_available(void);

/// Seals a memory file against any further change of size or content.
int appex_memfd_seal(int fd);

/// 1 if no one can make the file behind `fd` shorter (a memory file sealed with
/// F_SEAL_SHRINK), else 0: any other file, or what can't carry seals.
int appex_is_sealed_against_shrinking(int fd);

/// Locks the byte at `offset` of `fd`, waiting until it can: shared if `exclusive` is 0,
/// else exclusive. The lock belongs to the open file description (an OFD lock, Linux 3.15),
/// so locks taken through one description never conflict with each other, and those of any
/// other description do, in this process or another. Taking a lock on a byte this
/// description already locks converts it. The kernel drops them all when the description
/// is closed, or its process dies. May fail with EINTR. With `wait` 0 it never waits, and
/// fails with EAGAIN (or EACCES) while another description holds a conflicting lock.
int appex_lock_byte(int fd, int64_t offset, int exclusive, int wait);

/// Lets go of the open file description's lock on the byte at `offset`, if it holds one.
int appex_unlock_byte(int fd, int64_t offset);

/// The namespaces appex_sandbox's `namespaces` may name: the CLONE_NEW* flags of <sched.h>,
/// which Swift's Glibc module doesn't show.
enum {
    APPEX_NAMESPACE_USER = 0x10000000,
    APPEX_NAMESPACE_PID = 0x20000000,
    APPEX_NAMESPACE_MOUNT = 0x00020000,
    APPEX_NAMESPACE_NETWORK = 0x40000000,
};

/// The setting that asks a program started as the first process of a pid namespace to fork
/// an init for it, naming the descriptor the init writes the program's wait status to
/// (init.c tells the whole story).
#define APPEX_INIT_STATUS_SETTING "APPEX_INIT_STATUS_FD"

/// With APPEX_INIT_STATUS_SETTING: a pidfd the init watches. When that process ends, the init
/// kills the program, reports it and exits, and the kernel ends the rest of the namespace: for
/// a program whose init is not the child of the process it should die with (appex_fork_run).
#define APPEX_INIT_WATCH_SETTING "APPEX_INIT_WATCH_FD"

/// The name that init takes (PR_SET_NAME), by which it is told from the program.
#define APPEX_INIT_PROCESS_NAME "appex-init"

/// The sandbox a spawned child applies to itself between fork and exec, in this order: the
/// namespaces it is made in (with its uid and gid maps, and a fresh /proc for a new pid
/// namespace), no_new_privs, the resource limits, Landlock (if `landlockABI` > 0), and
/// last, just before exec, the seccomp baseline (if `seccompBaseline`). It holds no policy:
/// the caller says exactly what is allowed.
typedef struct {
    /// The namespaces to make the child in: APPEX_NAMESPACE_USER, and with it any of the
    /// others; 0 for none. With CLONE_NEWPID and CLONE_NEWNS, a fresh
    /// /proc showing only the new pid namespace is mounted over /proc.
    int namespaces;
    /// With CLONE_NEWUSER: the child's uid_map and gid_map, such as "1000 1000 1\n".
    const char *userMap;
    const char *groupMap;
    /// Resource limits (RLIMIT_*), soft and hard alike.
    const int *limitResources;
    const unsigned long long *limitValues;
    int limitCount;
    /// The Landlock ABI to speak, as `appex_landlock_abi` reports it; 0 applies no Landlock.
    int landlockABI;
    /// The filesystem rights the ruleset handles, so refuses unless a rule grants them.
    unsigned long long handledFilesystem;
    /// The network rights it handles (ABI 4): TCP bind and connect.
    unsigned long long handledNetwork;
    /// What it scopes to the sandbox (ABI 6): abstract Unix sockets and signals.
    unsigned long long scopes;
    /// Rules: the rights granted beneath each path. A path that doesn't exist is skipped;
    /// on a file that is not a directory, only the file rights apply.
    const char *const *rulePaths;
    const unsigned long long *ruleAccess;
    int ruleCount;
    /// For each rule, NULL, or the folder its path lies in that others may change: the path
    /// (then relative to that folder) is opened beneath it and through no symbolic link
    /// (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), and must be a folder. A link,
    /// or anything but a folder, fails the spawn at APPEX_SPAWN_STEP_GRANT plus the rule's
    /// index, rather than granting what the link leads to. The folder itself is trusted.
    const char *const *ruleConfinedTo;
    /// Install the seccomp baseline (appex_sandbox.c lists what it refuses).
    int seccompBaseline;
    /// With the baseline, also refuse (EACCES) a memory file not sealed against execution
    /// (memfd_create without MFD_NOEXEC_SEAL), which needs Linux 6.3.
    int seccompRefusesExecutableMemory;
    /// With CLONE_NEWNS: folders covered with an empty, read-only tmpfs in the child's mount
    /// namespace, so that nothing in them can be reached, by any call. A folder that doesn't
    /// exist is skipped.
    const char *const *hiddenPaths;
    int hiddenCount;
    /// Whether the child joins a network namespace made beforehand (appex_empty_network_make)
    /// instead of making one: it joins `joinedUserFD`, the user namespace that owns it, then
    /// `joinedNetworkFD`, and makes its own `namespaces` (which may not name CLONE_NEWNET)
    /// inside, with unshare. With CLONE_NEWPID, the process that execs is a second child, the
    /// first process of the new pid namespace, whose parent is still the caller (CLONE_PARENT).
    int joinsNetwork;
    int joinedUserFD;
    int joinedNetworkFD;
} appex_sandbox;

/// The step of a spawn that failed, for the error message.
enum {
    APPEX_SPAWN_STEP_EXEC = 0,
    APPEX_SPAWN_STEP_NO_NEW_PRIVILEGES = 1,
    APPEX_SPAWN_STEP_RESOURCE_LIMIT = 2,
    APPEX_SPAWN_STEP_LANDLOCK = 3,
    APPEX_SPAWN_STEP_SECCOMP = 4,
    APPEX_SPAWN_STEP_NAMESPACES = 5,
    APPEX_SPAWN_STEP_ID_MAPS = 6,
    APPEX_SPAWN_STEP_PROC = 7,
    APPEX_SPAWN_STEP_HIDE = 8,
    APPEX_SPAWN_STEP_JOIN = 9,
    /// Opening the path of confined rule N fails at this step plus N.
    APPEX_SPAWN_STEP_GRANT = 1000,
};

/// The Landlock ABI version the kernel offers, or -1 (errno ENOSYS or EOPNOTSUPP) if none.
int appex_landlock_abi(void);

/// 1 if the kernel filters system calls with seccomp, else 0.
int appex_seccomp_available(void);

/// 0 if a child can be made in the namespaces `namespaces` (as appex_sandbox's field), with
/// its id maps written and, for a new pid namespace, a fresh /proc mounted; else -1, with
/// the errno and the step that failed. With `joinedUserFD` and `joinedNetworkFD` (else -1),
/// the child first joins them, as appex_sandbox's `joinsNetwork` asks. Makes and reaps one
/// or two short-lived children.
int appex_namespaces_probe(int namespaces, int joinedUserFD, int joinedNetworkFD, int *failedStep);

/// Makes a network namespace with nothing in it but a loopback device that is down, owned by
/// a user namespace of its own in which this process's uid and gid map to themselves, for
/// sandboxed children to share (appex_sandbox's `joinsNetwork`). Sets `*userFD` and
/// `*networkFD`, close-on-exec, which keep both namespaces alive until they are closed.
/// Makes and reaps one short-lived child.
int appex_empty_network_make(int *userFD, int *networkFD);

/// Makes the calling process, just cloned into `sandbox`'s namespaces, at home in them:
/// writes its id maps and mounts its /proc. For the spawned child.
int appex_sandbox_enter_namespaces(const appex_sandbox *sandbox, int *failedStep);

/// Applies no_new_privs and Landlock to the calling process. For the spawned
/// child; `*failedStep` names the step that failed.
int appex_sandbox_apply(const appex_sandbox *sandbox, int *failedStep);

/// Installs the seccomp baseline in the calling process, as `sandbox` says.
int appex_sandbox_apply_seccomp(const appex_sandbox *sandbox, int *failedStep);

/// In the child, once it holds only the descriptors it keeps: sets the sandbox's resource
/// limits. The open-file limit must wait until then, since the parent (appexd, with hundreds
/// of extensions) may hold descriptors numbered past it, and any descriptor the child opened
/// before would then fail with EMFILE.
int appex_sandbox_apply_limits(const appex_sandbox *sandbox, int *failedStep);

/// What a child is given between fork and exec.
typedef struct {
    /// Descriptors to install in the child: `fds[i]` becomes descriptor `targets[i]`.
    const int *fds;
    const int *targets;
    int fdCount;
    /// The working directory, or NULL to keep the parent's.
    const char *directory;
    /// Send the child SIGKILL when the spawning thread's process dies.
    int dieWithParent;
    /// The child's RLIMIT_AS, soft and hard, in bytes; 0 leaves it as inherited.
    unsigned long long addressSpaceLimit;
    /// The sandbox the child applies to itself, or NULL.
    const appex_sandbox *sandbox;
} appex_spawn_options;

/// Starts `path` as a new process in its own session, with exactly the descriptors the
/// options name (every other descriptor is closed), default signal handling and an empty
/// signal mask. Returns its pid and sets `*pidfd`. If exec or the sandbox fails, returns
/// -1 with the child's errno and the failed step in `*failedStep`, and no process is left
/// behind.
pid_t appex_spawn(const char *path, char *const argv[], char *const envp[],
                  const appex_spawn_options *options, int *pidfd, int *failedStep);

/// Like appex_spawn, but the new process is a grandchild in its own session, so it is
/// nobody's child here and outlives this process: a daemon started on demand.
/// Returns its pid; no pidfd, since it isn't ours to reap. It is made in no namespaces.
pid_t appex_spawn_detached(const char *path, char *const argv[], char *const envp[],
                           const appex_spawn_options *options);

/// Finds, in every object loaded now, the thread-local caches of a thread id that Swift's
/// and libdispatch's locks keep (thread_ids.c), so that a forked child can forget them.
/// Returns how many it found; -1 with errno ENOEXEC and `*unreadable` naming the first
/// object that may hold one but whose symbol table can't be read (stripped), or E2BIG.
/// Keeps what it found for appex_thread_ids_forget: call it from one thread, before forking.
int appex_thread_ids_find(const char **unreadable);

/// In a forked child, before it runs any Swift code: zeroes the caches found by
/// appex_thread_ids_find in this thread's blocks, so each is filled again with the child's
/// own thread id. Returns how many it zeroed; -1 (EINVAL) if they were never found.
int appex_thread_ids_forget(void);

/// What runs in a child forked by appex_fork_run in place of exec: the child has taken every
/// step a spawned child takes before execve (descriptors, signals, namespaces, limits, the
/// sandbox), and its environment is the one given. Must not return.
typedef void (*appex_fork_run_body)(void *context);

/// Like appex_spawn, but the child runs `body(context)` where a spawned child would exec: for
/// a launcher that forks programs from a template it has already started (docs/zygote.md).
/// With a pid namespace, the child forks the namespace's first process and exits, and that
/// process, orphaned, goes to the nearest subreaper: the caller must be one
/// (PR_SET_CHILD_SUBREAPER), so that the returned process is its child, as appex_spawn's is.
/// `body` runs as that first process, and calls appex_init_become_if_asked to fork the
/// program off as init.c does. `options->dieWithParent` ties the program to the caller only
/// without a pid namespace, where it is the caller's child; with one, the init's parent is not
/// the caller, so it is refused (EINVAL): give the init a pidfd of the caller to watch instead
/// (APPEX_INIT_WATCH_SETTING), as ProcessLaunch.forkRunning does. Returns the pid and sets
/// `*pidfd`; on failure -1 with errno and `*failedStep`, and no process left behind.
pid_t appex_fork_run(const appex_spawn_options *options, char *const envp[], appex_fork_run_body body, void *context,
                     int *pidfd, int *failedStep);

/// The calling thread's stack-protector canary, which a child appex_fork_run forked gets
/// anew before its body runs; 0 on an architecture where it isn't known. For tests.
uintptr_t appex_stack_guard(void);

/// Makes the calling process a subreaper (PR_SET_CHILD_SUBREAPER): orphans among its
/// descendants become its children, for it to reap. 0, or -1 with errno.
int appex_become_subreaper(void);


/// In a program started without exec (appex_fork_run's body), what init.c does at a spawned
/// program's start: if APPEX_INIT_STATUS_FD is set and this is a pid namespace's first
/// process, forks, returns in the child (pid 2) to run the program, and stays in the parent as
/// the namespace's init, never returning. Takes the setting out of the environment either way.
void appex_init_become_if_asked(void);

/// A program for appex_run_loaded to start: an executable the launcher loads into a forked
/// child instead of executing (docs/zygote.md), with DF_1_PIE clear, whose `main` is at
/// `mainAddress` relative to where it is loaded.
typedef struct appex_loaded_program {
    const char *path;
    uint64_t mainAddress;
    int argc;
    char **argv;
    /// Called, if set, once the process is named after the program and before it is loaded:
    /// for the launcher to tell what C can't reach (Foundation's ProcessInfo.processName).
    void (*named)(const struct appex_loaded_program *program);
} appex_loaded_program;

/// appex_fork_run's body for a launcher (loaded.c): `context` is an appex_loaded_program.
/// Becomes the pid namespace's init if asked, forgets the parent's thread ids, names the
/// process after the program (for the kernel, glibc and Foundation, whose Bundle.main
/// follows), gives the Swift runtime the program's arguments, loads the
/// executable and exits with what its `main` returns. A program that can't be loaded exits
/// with 127, saying why on standard error, as a shell says of a command it can't run.
void appex_run_loaded(void *context);

/// Finds, in libFoundation.so's symbol table, where Foundation keeps the program's path and
/// name, which it reads once from /proc/self/exe and finds Bundle.main from, for
/// appex_run_loaded to set to the loaded program's. Call before forking. 0, also where
/// Foundation isn't loaded; -1 (ENOEXEC) with `*unreadable` naming libFoundation.so if its
/// symbol table is gone or doesn't name them.
int appex_program_path_find(const char **unreadable);

/// Blocks SIGCHLD in the calling thread and returns a signalfd (close-on-exec, non-blocking)
/// that reads it, for a single-threaded process that reaps its children from a poll loop;
/// -1 with errno on failure.
int appex_child_exits_fd(void);

/// The path of the libswiftCore.so this process has loaded, or NULL if it has none.
const char *appex_loaded_swift_runtime(void);

/// Loads the library `name` for every object loaded after it (RTLD_NOW | RTLD_GLOBAL), found
/// as the loader finds a dependency, and returns the path it was loaded from; NULL with
/// `*error` set to the loader's message if it can't be. By this name, the loader then matches
/// a later object's dependency on `name` with it.
const char *appex_load_global(const char *name, const char **error);

#endif
