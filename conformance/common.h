/* The conformance suite's shared machinery: backend parameters, the per-backend table of unsupported cases and
 * expected failures, checks that record their own location, tracked objects, random inputs and poisoning.
 *
 * Every backend test is a Criterion parameterized test over the backends the library knows, asked of it at run
 * time (hcl_backend_count, hcl_backend_get_info): the build's list and any driver named in HCL_EXTRA_DRIVERS.
 * The parameter is plain data (the backend's name), the device is opened inside the test, since Criterion runs
 * each test in its own process. A test for a backend that is unavailable, not selected by HCL_BACKEND, or
 * declared unsupported in the table is skipped with the reason, never passed.
 *
 * References, tolerance rules, the poison and the comparison rule come from testsupport/hcl_testsupport.h.
 */
#ifndef HCL_CONFORMANCE_COMMON_H
#define HCL_CONFORMANCE_COMMON_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <hcl/hcl.h>

#include "hcl_testsupport.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The build's backend list (generated from HCL_BACKENDS in the root CMakeLists.txt): HCL_BACKEND_LIST(X),
 * HCL_BACKEND_BUILTIN_COUNT, HCL_BACKEND_BUILTIN_NAMES. The cases compare the library's list with it; the
 * backend tests themselves run on whatever the library lists. */
#include "hcl_backends.h"

#define CONF_NUM_BACKENDS HCL_BACKEND_BUILTIN_COUNT
#define CONF_TIMEOUT_S 300

/* The parameter of every backend test: plain data, no pointers (Criterion copies it into the test process). */
typedef struct conf_backend {
    uint32_t index; /* in the library's list */
    char name[32];
} conf_backend;

/* One parameter per backend of hcl_backend_count, extras included (called by Criterion's runner). */
struct criterion_test_params conf_backend_params(void);
/* hcl-conformance CONF_LIST_BACKENDS_ARG: the process conf_backend_params starts to list the backends. Writes a
 * record per backend to standard output (its conf_backend, whether it is available, its devices and the reason);
 * returns the exit status (0, or 1 when the library cannot list). */
#define CONF_LIST_BACKENDS_ARG "--hcl-list-backends"
int conf_print_backends(void);

/* hcl-conformance CONF_SKIP_IF_UNAVAILABLE_ARG (ctest's runs of one backend pass it): whether HCL_BACKEND names one
 * backend of the library's list that is unavailable or offers no device, so that every case of it would skip; if so,
 * says why on standard error (the reason each case would give) before the runner exits 77 without starting a case
 * (each started case loads every driver to find that out: 9 s for the whole suite, 28 s under ASan). False for no
 * HCL_BACKEND, a list, a name the library does not list (its cases fail as before) and under
 * HCL_CONFORMANCE_REQUIRE=1 (its cases fail). Lists the backends in a child process, as conf_backend_params. */
#define CONF_SKIP_IF_UNAVAILABLE_ARG "--skip-if-unavailable"
bool conf_selected_backend_absent(void);

/* Per-backend declarations: a case the backend does not support (skipped with the reason), or one expected to
 * fail (it must fail, and its first failure must contain `match`; a pass is reported as a failure so that a
 * fix is noticed). `test` may end in '*' to match a prefix. */
typedef enum conf_expect_kind { CONF_UNSUPPORTED = 1, CONF_XFAIL = 2 } conf_expect_kind;
typedef struct conf_expectation {
    const char *backend;
    const char *suite;
    const char *test;
    conf_expect_kind kind;
    const char *reason;
    const char *match; /* CONF_XFAIL: a substring the first failure message must contain */
} conf_expectation;

extern const conf_expectation conf_expectations[];
extern const size_t conf_num_expectations;
/* A backend outside the build's list that the suite holds to what it expects of a built-in one (`like`): that
 * backend's entries apply, after the alias's own entries in conf_alias_expectations. */
typedef struct conf_alias {
    const char *backend;
    const char *like;
    const char *reason;
} conf_alias;
extern const conf_alias conf_aliases[];
extern const size_t conf_num_aliases;
extern const conf_expectation conf_alias_expectations[];
extern const size_t conf_num_alias_expectations;
/* The entry for (backend, suite, test): the backend's own, else (for an alias) the one of the backend it is like. */
const conf_expectation *conf_find_expectation(const char *backend, const char *suite, const char *test);
/* Whether the running test's backend is `name`, or an alias held to what the suite expects of `name`. Cases that
 * expect something of one backend ask this rather than compare conf_backend_name. */
bool conf_backend_is(const char *name);

/* What an expected failure turned into: the decision, apart from Criterion so that it can be tested. */
typedef enum conf_xfail_verdict {
    CONF_XFAIL_CONFIRMED = 0, /* failed, for the reason given */
    CONF_XFAIL_PASSED = 1,    /* did not fail: the table entry is stale */
    CONF_XFAIL_OTHER = 2      /* failed for another reason */
} conf_xfail_verdict;
conf_xfail_verdict conf_xfail_judge(const conf_expectation *e, unsigned failures, const char *first_failure);

/* A backend test. The body runs with an opened device and queue (conf_dev, conf_queue) and may return early;
 * conf_end releases tracked objects and settles expected failures. */
#define CONF_TEST(Suite, Case)                                                                                         \
    ParameterizedTestParameters(Suite, Case) { return conf_backend_params(); }                                         \
    static void conf_body_##Suite##_##Case(void);                                                                      \
    ParameterizedTest(conf_backend *param, Suite, Case, .timeout = CONF_TIMEOUT_S) {                                   \
        if (conf_begin(param->name, #Suite, #Case)) conf_body_##Suite##_##Case();                                      \
        conf_end();                                                                                                    \
    }                                                                                                                  \
    static void conf_body_##Suite##_##Case(void)

/* A test that needs no device (loader, status names); conf_begin_global prints the seed. */
#define CONF_GLOBAL_TEST(Suite, Case)                                                                                  \
    static void conf_body_##Suite##_##Case(void);                                                                      \
    Test(Suite, Case, .timeout = CONF_TIMEOUT_S) {                                                                     \
        conf_begin_global(#Suite, #Case);                                                                              \
        conf_body_##Suite##_##Case();                                                                                  \
        conf_end();                                                                                                    \
    }                                                                                                                  \
    static void conf_body_##Suite##_##Case(void)

bool conf_begin(const char *backend, const char *suite, const char *name);
void conf_begin_global(const char *suite, const char *name);
void conf_end(void);

/* The state of the running test (one test per process). */
extern hcl_device conf_dev;
extern hcl_queue conf_queue;
extern hcl_device_info conf_info;
extern char conf_selector[32];
extern const char *conf_backend_name;

/* Checks. Each records file and line, the backend and the seed. They return whether the check held. */
bool conf_check_at(bool ok, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool conf_status_at(hcl_status got, hcl_status want, const char *expr, const char *file, int line);
bool conf_status_any_at(hcl_status got, hcl_status want1, hcl_status want2, const char *expr, const char *file,
                        int line);
#define CHECK(cond, ...) conf_check_at((cond), __FILE__, __LINE__, __VA_ARGS__)
#define REQUIRE(cond, ...)                                                                                             \
    do {                                                                                                               \
        if (!conf_check_at((cond), __FILE__, __LINE__, __VA_ARGS__)) return;                                           \
    } while (0)
/* The call must return `want`; for an error, it must also leave a fresh non-empty hcl_last_message(). */
#define CHECK_ST(want, call) (conf_prime_message(), conf_status_at((call), (want), #call, __FILE__, __LINE__))
#define CHECK_ST2(want1, want2, call)                                                                                  \
    (conf_prime_message(), conf_status_any_at((call), (want1), (want2), #call, __FILE__, __LINE__))
#define REQUIRE_OK(call)                                                                                               \
    do {                                                                                                               \
        if (!CHECK_ST(HCL_SUCCESS, call)) return;                                                                      \
    } while (0)
/* A built-in call that must succeed: counted as run; or, under a forced code path (forced.c), refused by it with a
 * message naming the override, then counted as refused and reported as skipped. Returns whether it succeeded. */
#define CHECK_RUN(call) (conf_prime_message(), conf_run_at((call), #call, __FILE__, __LINE__))
bool conf_run_at(hcl_status got, const char *expr, const char *file, int line);
/* Forced code paths (forced.c): HCL_<OP>_VARIANT, HCL_HOST_ISA. */
void conf_forced_begin(void);
const char *conf_forced_overrides(void); /* the overrides set, "VAR=value ...", "" when none */
/* Whether a call that returned `got` with message `msg` was refused by an override the environment sets (then counted
 * and logged as skipped). */
bool conf_forced_refusal(hcl_status got, const char *expr, const char *msg);
void conf_forced_ran(void);
/* The test's count line; skips the test when all its built-in calls were refused and nothing failed. */
void conf_forced_end(const char *suite, const char *test, unsigned failures);
/* Makes the library set a known message, so that a later check can tell a fresh message from a stale one. */
void conf_prime_message(void);
/* Whether the message of the last failing call contains `needle` (reported as a check). */
bool conf_message_has_at(const char *needle, const char *file, int line);
#define CHECK_MSG_HAS(needle) conf_message_has_at((needle), __FILE__, __LINE__)

/* Tracked objects: released in reverse order by conf_end (so early returns leak nothing). */
hcl_buffer conf_buffer(size_t bytes);
hcl_queue conf_queue_on(hcl_device dev);
hcl_device conf_open_again(void);           /* a second, distinct open of the test's device */
hcl_buffer conf_dead_buffer(size_t bytes);  /* a buffer of the test's device, already released; NULL after a failure */
hcl_buffer conf_other_buffer(size_t bytes); /* a buffer on a second open of the test's device; NULL after a failure */
hcl_buffer conf_buffer_on(hcl_device dev, size_t bytes);
void conf_track_event(hcl_event e);
void conf_track_device(hcl_device d); /* a device the test opened itself */
/* Release a tracked buffer now (to keep the footprint of a long test small); reported as a check. */
bool conf_release_buffer(hcl_buffer b);
void conf_track_module(hcl_module m);
void conf_track_kernel(hcl_kernel k);
void *conf_malloc(size_t bytes); /* zeroed, freed by conf_end; never NULL (a failed allocation aborts) */
float *conf_floats(size_t n);
double *conf_doubles(size_t n);

/* Random inputs: the seed is hcl_ts_seed() (HCL_SEED, else the clock), printed by conf_begin; each test draws its
 * own stream (hcl_ts_splitmix64) from the seed and its name, so that one seed replays any single test. */
extern uint64_t conf_seed;
uint64_t conf_rand_u64(void);
float conf_rand_float(float lo, float hi); /* uniform in [lo, hi) */
int conf_rand_int(int lo, int hi);         /* uniform in [lo, hi] */
void conf_fill_uniform(float *x, size_t n, float lo, float hi);

/* Fill [offset, offset + bytes) of a buffer with the poison (HCL_TS_POISON_BITS); outputs are poisoned before
 * every run. */
bool conf_poison_buffer(hcl_buffer b, size_t offset, size_t bytes);

/* Transfers through conf_queue, reported as checks. */
bool conf_write(hcl_buffer b, size_t offset, const void *src, size_t bytes);
bool conf_read(hcl_buffer b, size_t offset, void *dst, size_t bytes);

/* Compare got[i] with ref[i] within tol[i] (tol NULL: exact) by hcl_ts_compare's rule. Reports the number of
 * mismatches and the first few. */
bool conf_compare(const char *what, const float *got, const double *ref, const double *tol, size_t n);
/* Check that got[0..n) are still the poison (nothing was written there). */
bool conf_check_untouched(const char *what, const float *got, size_t n);
/* The same for the first n floats of a buffer, read through conf_queue. */
bool conf_check_buffer_untouched(const char *what, hcl_buffer b, size_t n);

#endif /* HCL_CONFORMANCE_COMMON_H */
