/* The suite under a forced code path (common.h): HCL_GEMM_VARIANT, HCL_SOFTMAX_VARIANT, HCL_REDUCE_VARIANT (a GPU or
 * OpenCL kernel variant), HCL_HOST_ISA (the host kernels' instruction set), or any other override the library
 * documents. A call that the forced path cannot run fails with HCL_ERROR_UNSUPPORTED and a message that names the
 * override as VAR=value; the suite recognises it from the environment alone (VAR is set to that value), so no list of
 * overrides is kept here. Such a call is counted and reported as skipped with the library's reason, never as passed
 * and never as a failure. A test whose built-in calls were all refused is skipped; a test of which some ran passes on
 * those, with a line that counts both ("forced: ..."), which the GPU results README sums per variant. */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <criterion/logging.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHOWN_REFUSALS 3 /* refusals logged one by one per test; the rest are counted */

static unsigned ran, refused;
static char first_refusal[1024];
static char overrides[512]; /* "HCL_GEMM_VARIANT=wgmma ..." as set for this test, "" when none */

extern char **environ;

/* Whether NAME=value in the environment is an override of a code path: HCL_<...>_VARIANT or HCL_HOST_ISA. */
static bool is_override(const char *entry) {
    const char *eq = strchr(entry, '=');
    if (!eq || eq[1] == '\0' || strncmp(entry, "HCL_", 4) != 0) return false;
    const size_t len = (size_t)(eq - entry);
    return (len > 12 && strncmp(eq - 8, "_VARIANT", 8) == 0) || (len == 12 && strncmp(entry, "HCL_HOST_ISA", 12) == 0);
}

void conf_forced_begin(void) {
    ran = refused = 0;
    first_refusal[0] = overrides[0] = '\0';
    size_t used = 0;
    for (char **e = environ; e && *e && used < sizeof overrides; e++)
        if (is_override(*e)) {
            int n = snprintf(overrides + used, sizeof overrides - used, "%s%s", used ? " " : "", *e);
            used += n > 0 ? (size_t)n : 0;
        }
}

const char *conf_forced_overrides(void) { return overrides; }

/* Whether msg names HCL_X=value for an HCL_X the environment sets to that value. */
static bool names_set_override(const char *msg) {
    for (const char *p = strstr(msg, "HCL_"); p; p = strstr(p + 1, "HCL_")) {
        const char *q = p;
        while (isupper((unsigned char)*q) || isdigit((unsigned char)*q) || *q == '_') q++;
        if (*q != '=') continue;
        char name[64];
        const size_t len = (size_t)(q - p);
        if (len >= sizeof name) continue;
        memcpy(name, p, len);
        name[len] = '\0';
        const char *value = getenv(name);
        if (value && *value && strncmp(q + 1, value, strlen(value)) == 0) return true;
    }
    return false;
}

bool conf_forced_refusal(hcl_status got, const char *expr, const char *msg) {
    if (got != HCL_ERROR_UNSUPPORTED || !overrides[0] || !msg || !names_set_override(msg)) return false;
    if (refused++ == 0) snprintf(first_refusal, sizeof first_refusal, "%s", msg);
    if (refused <= SHOWN_REFUSALS) cr_log_info("skipped (refused under %s): %s\n  %s", overrides, expr, msg);
    return true;
}

void conf_forced_ran(void) { ran++; }

void conf_forced_end(const char *suite, const char *test, unsigned failures) {
    if (!overrides[0]) return;
    cr_log_info("forced: %s/%s on %s under %s: %u built-in call(s) ran, %u refused", suite, test, conf_backend_name,
                overrides, ran, refused);
    if (refused && !ran && !failures)
        cr_skip_test("%s: %u built-in call(s) refused under %s and none of the test's numeric cases ran (its other "
                     "checks passed); the first: %s",
                     conf_backend_name, refused, overrides, first_refusal);
}
