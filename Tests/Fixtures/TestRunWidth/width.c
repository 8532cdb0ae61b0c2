// See include/CAppexTestRunWidth.h.
#include "CAppexTestRunWidth.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *const variable = "SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH";

__attribute__((constructor)) static void appex_set_test_run_width(void) {
    if (getenv(variable) != NULL) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int width = cores > 1 ? (int)(cores * 2) : 2;
    char text[16];
    snprintf(text, sizeof text, "%d", width);
    setenv(variable, text, 0);
}
