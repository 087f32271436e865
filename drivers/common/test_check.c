/* The kit's unit tests' check (test_check.h). */
#include "test_check.h"

#include <stdio.h>

static int g_failures, g_checks;

void check(int ok, const char *what) {
    g_checks++;
    if (!ok) {
        g_failures++;
        fprintf(stderr, "FAIL: %s\n", what);
    }
}

int test_check_report(const char *name) {
    printf("%s: %d checks, %d failed\n", name, g_checks, g_failures);
    return g_failures ? 1 : 0;
}
