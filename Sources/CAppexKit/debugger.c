// Waiting for a debugger (NSExtensionMain, `appex run ID --wait-for-debugger`).
#include "CAppexKit.h"

#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>

int appex_allow_any_tracer(void) {
    return prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

static volatile sig_atomic_t continued = 0;

static void note_continue(int signal) {
    (void)signal;
    continued = 1;
}

void appex_wait_for_continue(void) {
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGCONT);
    sigprocmask(SIG_BLOCK, &blocked, &previous);
    struct sigaction action = {0}, former;
    action.sa_handler = note_continue;
    sigemptyset(&action.sa_mask);
    sigaction(SIGCONT, &action, &former);
    sigset_t waiting = previous;
    sigdelset(&waiting, SIGCONT);
    // SIGCONT stays blocked between the check and the wait, so none is missed.
    while (!continued) sigsuspend(&waiting);
    sigaction(SIGCONT, &former, NULL);
    sigprocmask(SIG_SETMASK, &previous, NULL);
}
