// The init of a sandboxed process's pid namespace.
//
// The first process of a pid namespace is its init, and the kernel treats an init apart:
// a signal it has no handler for is not delivered to it, even from itself, so abort() would
// end it with SIGSEGV instead of SIGABRT, SIGTERM would not end it, and every orphan in the
// namespace would become its child. So a program should not run as that process, and with
// this, a program that links CAppexSystem (every extension, through AppexKit) doesn't:
//
// When the launcher starts it as the first process of a new pid namespace with
// APPEX_INIT_STATUS_FD set, it forks before anything of the program runs. The child, pid 2,
// goes on to main as the program, with the signals and the parent a program expects. The
// first process stays behind as the namespace's init, running nothing of the program's:
// - it forwards the signals a process is asked to end or told about (SIGTERM, SIGINT,
//   SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGWINCH) to the program;
// - it reaps every process in the namespace;
// - it is named appex-init, so that appexd, which holds it, can tell it from the program;
// - when the program ends, it writes the program's wait status (an int, as waitpid reports
//   it) to the descriptor APPEX_INIT_STATUS_FD names, and exits 0. The kernel then kills
//   whatever is left in the namespace.
// A program that doesn't link this runs as the init itself, and its own exit status stands.
//
// The fork runs from the executable's .preinit_array, which the loader runs before the
// initializers of every shared library, not from a constructor, which runs after them. The
// shared Swift runtime's initializers take its locks, and its locks name their holder by the
// thread id each thread noted the first time it locked one. A thread's note survives a fork,
// so a fork after them left the program's main thread naming the init (pid 1) as itself:
// the first lock it handed to a waiting thread, it could never release (the kernel refuses
// FUTEX_UNLOCK_PI from a thread the lock doesn't name), and it spun there forever. An
// extension linked to the shared Swift libraries, as `swift build` links one by default, hung
// so at its first contended lock (SharedRuntimeExtensionTests). A sanitizer's runtime, which
// must start first, comes earlier in .preinit_array, since it is linked first.
#define _GNU_SOURCE
#include "CAppexSystem.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const int appex_forwarded_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGWINCH };

/// Handles one signal the init received: forwards it to the program, or on SIGCHLD reaps, and
/// once the program is among the reaped, reports its status and exits.
static void appex_init_handle(int signal, pid_t program, int statusFD) {
    if (signal != SIGCHLD) {
        for (size_t index = 0; index < sizeof(appex_forwarded_signals) / sizeof(int); index++) {
            if (appex_forwarded_signals[index] == signal) kill(program, signal);
        }
        return;
    }
    int status;
    pid_t reaped;
    while ((reaped = waitpid(-1, &status, WNOHANG)) > 0) {
        if (reaped != program) continue;
        while (write(statusFD, &status, sizeof(status)) < 0 && errno == EINTR) {}
        _exit(0);
    }
}

/// The init's loop: never returns. With `watchFD`, a pidfd, it also kills the program when that
/// process ends, and goes on until the program's end is reported.
static void appex_init_serve(pid_t program, int statusFD, int watchFD, const sigset_t *all) {
    int signals = watchFD >= 0 ? signalfd(-1, all, SFD_CLOEXEC) : -1;
    if (signals < 0) {
        for (;;) {
            siginfo_t info;
            int signal = sigwaitinfo(all, &info);
            if (signal >= 0) appex_init_handle(signal, program, statusFD);
        }
    }
    for (;;) {
        struct pollfd watched[2] = { { .fd = signals, .events = POLLIN }, { .fd = watchFD, .events = POLLIN } };
        if (poll(watched, watchFD >= 0 ? 2 : 1, -1) < 0) continue;
        if (watchFD >= 0 && watched[1].revents != 0) {
            kill(program, SIGKILL);
            close(watchFD);
            watchFD = -1;
        }
        if (watched[0].revents & POLLIN) {
            struct signalfd_siginfo info;
            if (read(signals, &info, sizeof(info)) == (ssize_t)sizeof(info)) appex_init_handle((int)info.ssi_signo, program, statusFD);
        }
    }
}

/// A descriptor number from the setting `value`, or -1 if it names none the init may keep.
static int appex_descriptor_setting(const char *value) {
    if (value == NULL) return -1;
    char *end = NULL;
    long number = strtol(value, &end, 10);
    return end == value || *end != '\0' || number < 3 || number > 1024 ? -1 : (int)number;
}

/// The first value of `name` in `environment`, or NULL; every entry of `name` is removed, as
/// unsetenv removes them. The loader's environment is the one libc goes on to use, so the
/// program never sees the setting.
static const char *appex_take_setting(char **environment, const char *name) {
    size_t length = strlen(name);
    const char *value = NULL;
    char **kept = environment;
    for (char **entry = environment; entry != NULL && *entry != NULL; entry++) {
        if (strncmp(*entry, name, length) == 0 && (*entry)[length] == '=') {
            if (value == NULL) value = *entry + length + 1;
        } else {
            *kept++ = *entry;
        }
    }
    if (kept != NULL) *kept = NULL;
    return value;
}

static void appex_init_if_first(int argumentCount, char **arguments, char **environment) {
    (void)argumentCount;
    (void)arguments;
    int statusFD = appex_descriptor_setting(appex_take_setting(environment, APPEX_INIT_STATUS_SETTING));
    int watchFD = appex_descriptor_setting(appex_take_setting(environment, APPEX_INIT_WATCH_SETTING));
    if (statusFD < 0 || getpid() != 1) {
        if (watchFD >= 0) close(watchFD);
        return;
    }

    sigset_t all, previous;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &previous);
    pid_t program = fork();
    if (program != 0) {
        if (program > 0) {
            prctl(PR_SET_NAME, APPEX_INIT_PROCESS_NAME, 0, 0, 0);
            // The init keeps only the status descriptor, the watched pidfd and standard
            // error: the program's channels must close when it ends, not when the init does.
            int low = watchFD >= 0 && watchFD < statusFD ? watchFD : statusFD;
            int high = watchFD > statusFD ? watchFD : statusFD;
            if (low > 3) syscall(SYS_close_range, 3U, (unsigned)low - 1, 0);
            if (high > low + 1) syscall(SYS_close_range, (unsigned)low + 1, (unsigned)high - 1, 0);
            syscall(SYS_close_range, (unsigned)high + 1, ~0U, 0);
            appex_init_serve(program, statusFD, watchFD, &all);
        }
        // No fork: run the program as the init after all.
    }
    close(statusFD);
    if (watchFD >= 0) close(watchFD);
    sigprocmask(SIG_SETMASK, &previous, NULL);
}

void appex_init_become_if_asked(void) {
    extern char **environ;
    appex_init_if_first(0, NULL, environ);
}

__attribute__((section(".preinit_array"), used))
static void (*const appex_init_entry)(int, char **, char **) = appex_init_if_first;
