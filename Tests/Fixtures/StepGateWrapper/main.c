// appex-step-gate FD PROGRAM [ARGUMENT...]: runs PROGRAM under the step gate
// (CAppexStepGate.h), having sent the gate's listener descriptor over the Unix socket FD to
// the test that supervises it. Exits 70 with the reason if the gate can't be set up.
#include "CAppexStepGate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int send_descriptor(int socket, int descriptor) {
    char byte = 'g';
    struct iovec vector = {.iov_base = &byte, .iov_len = 1};
    union {
        char buffer[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1, .msg_control = control.buffer, .msg_controllen = sizeof control.buffer};
    struct cmsghdr *header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    return sendmsg(socket, &message, MSG_NOSIGNAL) == 1 ? 0 : -1;
}

int main(int argc, char *argv[]) {
    if (argc < 3) {
        fprintf(stderr, "usage: appex-step-gate FD PROGRAM [ARGUMENT...]\n");
        return 64;
    }
    int socket = atoi(argv[1]);
    int listener = appex_step_gate_install();
    if (listener < 0 || send_descriptor(socket, listener) != 0) {
        fprintf(stderr, "appex-step-gate: can't set up the gate: %s\n", strerror(errno));
        return 70;
    }
    close(listener);
    close(socket);
    execv(argv[2], argv + 2);
    fprintf(stderr, "appex-step-gate: can't run %s: %s\n", argv[2], strerror(errno));
    return 70;
}
