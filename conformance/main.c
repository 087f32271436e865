/* hcl-conformance: Criterion's runner, plus an exit status that tells "nothing ran" apart from "passed".
 *
 * Exit status: 0 when at least one test ran and none failed; 1 when a test failed or crashed; 77 when no test
 * ran at all (every one was skipped or filtered out: the backend asked for is absent), which CTest reports as
 * skipped (SKIP_RETURN_CODE 77). Criterion's own output, with --verbose, gives each skip with its reason.
 * --skip-if-unavailable (CONF_SKIP_IF_UNAVAILABLE_ARG, common.h): where HCL_BACKEND names one backend that cannot
 * run here, the reason once and 77 before any case starts, instead of every case started to skip.
 */
#include <criterion/criterion.h>
#include <criterion/hooks.h>

#include "common.h"

#include <stdio.h>
#include <string.h>

#define CONF_EXIT_NOTHING_RAN 77

static struct criterion_global_stats final_stats;
static int have_stats;

ReportHook(POST_ALL)(struct criterion_global_stats *stats) {
    final_stats = *stats;
    have_stats = 1;
}

/* Criterion's sandbox (BoxFort) starts each test worker by finding `main` in the executable's dynamic symbols:
 * it must stay visible although the project builds with hidden visibility. */
__attribute__((visibility("default"))) int main(int argc, char *argv[]);

int main(int argc, char *argv[]) {
    if (argc == 2 && strcmp(argv[1], CONF_LIST_BACKENDS_ARG) == 0) return conf_print_backends();
    /* our own option, taken out before Criterion reads the rest */
    bool skip_early = false;
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], CONF_SKIP_IF_UNAVAILABLE_ARG) == 0)
            skip_early = true;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = NULL;
    if (skip_early && conf_selected_backend_absent()) return CONF_EXIT_NOTHING_RAN;
    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) result = !criterion_run_all_tests(tests);
    criterion_finalize(tests);
    if (have_stats) {
        size_t ran = final_stats.tests_passed + final_stats.tests_failed; /* crashes count as failures too */
        fprintf(stderr,
                "hcl-conformance: %zu ran: %zu passed, %zu failed (%zu of them crashed); %zu skipped or filtered out\n",
                ran, final_stats.tests_passed, final_stats.tests_failed, final_stats.tests_crashed,
                final_stats.tests_skipped);
        if (result == 0 && ran == 0) {
            fprintf(stderr, "hcl-conformance: no test ran (see the skip reasons above)\n");
            return CONF_EXIT_NOTHING_RAN;
        }
    }
    return result;
}
