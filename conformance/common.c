/* The conformance suite's shared machinery (see common.h). */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <criterion/event.h>
#include <criterion/logging.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define CONF_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CONF_LEAK_CHECK 1
#endif
#endif
#ifdef CONF_LEAK_CHECK
#include <sanitizer/lsan_interface.h>
#endif

/* ------------------------------------------------------------------------------------------------------- */
/* Backends                                                                                                */
/* ------------------------------------------------------------------------------------------------------- */
static void free_backend_params(struct criterion_test_params *params) { cr_free(params->params); }

/* A backend as the listing process saw it (one write to the pipe each: at most PIPE_BUF bytes). */
typedef struct listed_backend {
    conf_backend b;
    int available;
    uint32_t device_count;
    char reason[1024]; /* hcl_backend_info's, cut */
} listed_backend;
_Static_assert(sizeof(listed_backend) <= 4096, "a listed backend is one atomic write to the pipe");

int conf_print_backends(void) {
    uint32_t count = 0;
    if (hcl_backend_count(&count) != HCL_SUCCESS) {
        fprintf(stderr, "hcl-conformance: hcl_backend_count: %s\n", hcl_last_message());
        return 1;
    }
    for (uint32_t i = 0; i < count; i++) {
        listed_backend b = {.b = {.index = i}};
        hcl_backend_info bi;
        if (hcl_backend_get_info(i, &bi) == HCL_SUCCESS) {
            snprintf(b.b.name, sizeof b.b.name, "%s", bi.name);
            b.available = bi.available;
            b.device_count = bi.device_count;
            snprintf(b.reason, sizeof b.reason, "%.*s", (int)sizeof b.reason - 1, bi.reason);
        } else
            snprintf(b.b.name, sizeof b.b.name, "#%u", i); /* conf_begin fails it: not in the list */
        if (write(STDOUT_FILENO, &b, sizeof b) != (ssize_t)sizeof b) return 1;
    }
    return 0;
}

/* The backends' names as the library lists them, asked in a child process: listing starts every backend, and with
 * it the vendor runtimes (CUDA, NVIDIA's OpenCL, PoCL's threads). The runner that spawns every test process and
 * lives as long as the suite then starts none; a test process starts only the runtime it tests. The child is this
 * program run anew (CONF_LIST_BACKENDS_ARG: conf_print_backends), not a forked copy of the runner, which has other
 * threads by now (Criterion's message thread): a lock one of them held at the fork, ASan's allocator's say, would
 * never be released in the copy, and the listing hung (seen once in CI under ASan). Exits the runner with a message
 * when the child cannot give the list (a crash while listing is a failure, not "no backends"). */
static uint32_t list_backends(listed_backend *out, uint32_t max) {
    int fds[2];
    if (pipe(fds) != 0 || fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0) {
        perror("hcl-conformance: pipe");
        exit(1);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("hcl-conformance: fork");
        exit(1);
    }
    if (pid == 0) { /* only async-signal-safe calls until the new image runs */
        if (dup2(fds[1], STDOUT_FILENO) >= 0)
            execl("/proc/self/exe", "hcl-conformance", CONF_LIST_BACKENDS_ARG, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    uint32_t count = 0;
    listed_backend b;
    for (;;) {
        ssize_t got = read(fds[0], &b, sizeof b);
        if (got < 0 && errno == EINTR) continue;
        if (got != (ssize_t)sizeof b) break;
        if (count < max) out[count++] = b;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "hcl-conformance: the process that lists the backends %s %d\n",
                WIFSIGNALED(status) ? "died of signal" : "exited with",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        exit(1);
    }
    return count;
}

/* The backends the library lists, asked of a child process once per runner (list_backends). */
static const listed_backend *listed_backends(uint32_t *count) {
    static listed_backend listed[64];
    static uint32_t n;
    static bool asked;
    if (!asked) {
        asked = true;
        n = list_backends(listed, sizeof listed / sizeof listed[0]);
    }
    *count = n;
    return listed;
}

/* Runs in Criterion's runner process, once per test, before the test processes start: the list the library
 * gives (the build's backends, then HCL_EXTRA_DRIVERS) is the list every test process sees too, as they run with
 * the same environment. Asked once; the names travel in Criterion's shared memory (cr_calloc). */
struct criterion_test_params conf_backend_params(void) {
    uint32_t count;
    const listed_backend *listed = listed_backends(&count);
    conf_backend *params = count ? cr_calloc(count, sizeof *params) : NULL;
    if (!params) return cr_make_param_array(conf_backend, NULL, 0, NULL);
    for (uint32_t i = 0; i < count; i++) params[i] = listed[i].b;
    return cr_make_param_array(conf_backend, params, count, free_backend_params);
}

static bool selected_by_env(const char *backend);

bool conf_selected_backend_absent(void) {
    const char *env = getenv("HCL_BACKEND"), *req = getenv("HCL_CONFORMANCE_REQUIRE");
    if (!env || !env[0] || strchr(env, ',') || (req && strcmp(req, "1") == 0)) return false;
    uint32_t count;
    const listed_backend *listed = listed_backends(&count);
    for (uint32_t i = 0; i < count; i++) {
        const listed_backend *b = &listed[i];
        if (!selected_by_env(b->b.name)) continue; /* the one name HCL_BACKEND gives, as the cases read it */
        if (!b->available)
            fprintf(stderr, "hcl-conformance: %s: backend unavailable: %s\n", b->b.name, b->reason);
        else if (b->device_count == 0)
            fprintf(stderr, "hcl-conformance: %s: backend available but it offers no device\n", b->b.name);
        else
            return false;
        fprintf(stderr, "hcl-conformance: every case of HCL_BACKEND=%s would skip: none started (%s)\n", b->b.name,
                CONF_SKIP_IF_UNAVAILABLE_ARG);
        return true;
    }
    return false;
}

static bool glob_match(const char *pattern, const char *name) {
    size_t n = strlen(pattern);
    if (n > 0 && pattern[n - 1] == '*') return strncmp(pattern, name, n - 1) == 0;
    return strcmp(pattern, name) == 0;
}

static const conf_expectation *find_in(const conf_expectation *table, size_t n, const char *backend, const char *suite,
                                       const char *test) {
    for (size_t i = 0; i < n; i++) {
        const conf_expectation *e = &table[i];
        if (strcmp(e->backend, backend) == 0 && strcmp(e->suite, suite) == 0 && glob_match(e->test, test)) return e;
    }
    return NULL;
}

static const conf_alias *find_alias(const char *backend) {
    for (size_t i = 0; i < conf_num_aliases; i++)
        if (strcmp(conf_aliases[i].backend, backend) == 0) return &conf_aliases[i];
    return NULL;
}

const conf_expectation *conf_find_expectation(const char *backend, const char *suite, const char *test) {
    const conf_expectation *e = find_in(conf_expectations, conf_num_expectations, backend, suite, test);
    const conf_alias *a = e ? NULL : find_alias(backend);
    if (a) e = find_in(conf_alias_expectations, conf_num_alias_expectations, backend, suite, test);
    if (a && !e) e = find_in(conf_expectations, conf_num_expectations, a->like, suite, test);
    return e;
}

bool conf_backend_is(const char *name) {
    if (strcmp(conf_backend_name, name) == 0) return true;
    const conf_alias *a = find_alias(conf_backend_name);
    return a && strcmp(a->like, name) == 0;
}

conf_xfail_verdict conf_xfail_judge(const conf_expectation *e, unsigned failures, const char *first_failure) {
    if (failures == 0) return CONF_XFAIL_PASSED;
    if (e->match && e->match[0] && (!first_failure || !strstr(first_failure, e->match))) return CONF_XFAIL_OTHER;
    return CONF_XFAIL_CONFIRMED;
}

/* Whether HCL_BACKEND names this backend (a comma list of "name" or "name:N"). */
static bool selected_by_env(const char *backend) {
    const char *env = getenv("HCL_BACKEND");
    if (!env || !env[0]) return true;
    size_t len = strlen(backend);
    const char *p = env;
    while (*p) {
        while (*p == ' ') p++;
        const char *end = p + strcspn(p, ",");
        size_t name_len = strcspn(p, ":,");
        while (name_len > 0 && p[name_len - 1] == ' ') name_len--;
        if (name_len == len && strncmp(p, backend, len) == 0) return true;
        p = *end ? end + 1 : end;
    }
    return false;
}

/* ------------------------------------------------------------------------------------------------------- */
/* State of the running test                                                                               */
/* ------------------------------------------------------------------------------------------------------- */
hcl_device conf_dev;
hcl_queue conf_queue;
hcl_device_info conf_info;
char conf_selector[32];
const char *conf_backend_name = "-";
uint64_t conf_seed;

static const conf_expectation *cur_xfail;
static unsigned xfail_failures, failures;
static char xfail_first[1600];
static const char *cur_suite = "", *cur_test = "";
static uint64_t rng_state;
static char primed_message[HCL_REASON_MAX + 256];

enum track_kind { TR_DEVICE, TR_QUEUE, TR_BUFFER, TR_EVENT, TR_MODULE, TR_KERNEL, TR_MEMORY };
typedef struct tracked {
    enum track_kind kind;
    void *p;
} tracked;
static tracked *track;
static size_t track_len, track_cap;

static void track_add(enum track_kind kind, void *p) {
    if (!p) return;
    if (track_len == track_cap) {
        size_t cap = track_cap ? track_cap * 2 : 64;
        tracked *t = realloc(track, cap * sizeof *t);
        cr_assert(t != NULL, "out of host memory");
        track = t;
        track_cap = cap;
    }
    track[track_len].kind = kind;
    track[track_len].p = p;
    track_len++;
}

static void seed_rng(const char *suite, const char *name) {
    conf_seed = hcl_ts_seed();
    /* Each test draws its own stream from the seed and its name, so one seed replays any single test. */
    uint64_t h = conf_seed ^ 0x6a09e667f3bcc909ull;
    for (const char *p = suite; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    rng_state = h;
}

static void begin_common(const char *backend, const char *suite, const char *name) {
    conf_backend_name = backend;
    cur_suite = suite;
    cur_test = name;
    conf_dev = NULL;
    conf_queue = NULL;
    cur_xfail = NULL;
    xfail_failures = failures = 0;
    xfail_first[0] = 0;
    seed_rng(suite, name);
    conf_forced_begin();
}

bool conf_begin(const char *backend, const char *suite, const char *name) {
    begin_common(backend, suite, name);
    if (!selected_by_env(backend)) cr_skip_test("%s: not selected by HCL_BACKEND=%s", backend, getenv("HCL_BACKEND"));
    const conf_expectation *e = conf_find_expectation(backend, suite, name);
    if (e && e->kind == CONF_UNSUPPORTED) cr_skip_test("%s: unsupported: %s", backend, e->reason);
    if (e && e->kind == CONF_XFAIL) cur_xfail = e;

    uint32_t count = 0;
    hcl_status st = hcl_backend_count(&count);
    cr_assert(st == HCL_SUCCESS, "%s: hcl_backend_count: %s: %s", backend, hcl_status_name(st), hcl_last_message());
    hcl_backend_info bi;
    bool found = false;
    for (uint32_t i = 0; i < count && !found; i++) {
        st = hcl_backend_get_info(i, &bi);
        cr_assert(st == HCL_SUCCESS, "hcl_backend_get_info(%u): %s: %s", i, hcl_status_name(st), hcl_last_message());
        found = strcmp(bi.name, backend) == 0;
    }
    cr_assert(found, "backend %s is not in the list of known backends", backend);
    /* HCL_CONFORMANCE_REQUIRE=1 (vendor CI): a selected backend that cannot run fails instead of skipping. */
    const char *req = getenv("HCL_CONFORMANCE_REQUIRE");
    if (req && strcmp(req, "1") == 0) {
        cr_assert(bi.available,
                  "%s: backend unavailable (HCL_CONFORMANCE_REQUIRE=1 turns this skip into a failure): %s", backend,
                  bi.reason);
        cr_assert(bi.device_count > 0, "%s: backend offers no device (HCL_CONFORMANCE_REQUIRE=1)", backend);
    }
    if (!bi.available) cr_skip_test("%s: backend unavailable: %s", backend, bi.reason);
    if (bi.device_count == 0) cr_skip_test("%s: backend available but it offers no device", backend);

    const char *dev_env = getenv("HCL_DEVICE");
    if (dev_env && dev_env[0])
        snprintf(conf_selector, sizeof conf_selector, "%s:%s", backend, dev_env);
    else
        snprintf(conf_selector, sizeof conf_selector, "%s", backend);
    st = hcl_device_open(conf_selector, &conf_dev);
    cr_assert(st == HCL_SUCCESS, "%s: hcl_device_open(\"%s\"): %s: %s", backend, conf_selector, hcl_status_name(st),
              hcl_last_message());
    track_add(TR_DEVICE, conf_dev);
    st = hcl_device_get_info(conf_dev, &conf_info);
    cr_assert(st == HCL_SUCCESS, "%s: hcl_device_get_info: %s: %s", backend, hcl_status_name(st), hcl_last_message());
    st = hcl_queue_create(conf_dev, &conf_queue);
    cr_assert(st == HCL_SUCCESS, "%s: hcl_queue_create: %s: %s", backend, hcl_status_name(st), hcl_last_message());
    track_add(TR_QUEUE, conf_queue);
    cr_log_info("%s/%s on %s: device %s:%u \"%s\" (%s), seed HCL_SEED=%llu%s%s%s", suite, name, backend,
                conf_info.backend, conf_info.index, conf_info.name, conf_info.vendor, (unsigned long long)conf_seed,
                cur_xfail ? " (declared as an expected failure)" : "", conf_forced_overrides()[0] ? ", forced: " : "",
                conf_forced_overrides());
    return true;
}

void conf_begin_global(const char *suite, const char *name) {
    begin_common("-", suite, name);
    cr_log_info("%s/%s: seed HCL_SEED=%llu", suite, name, (unsigned long long)conf_seed);
}

void conf_end(void) {
    for (size_t i = track_len; i-- > 0;) {
        hcl_status st = HCL_SUCCESS;
        const char *what = "";
        void *p = track[i].p;
        switch (track[i].kind) {
        case TR_DEVICE: st = hcl_device_release(p), what = "hcl_device_release"; break;
        case TR_QUEUE: st = hcl_queue_release(p), what = "hcl_queue_release"; break;
        case TR_BUFFER: st = hcl_buffer_release(p), what = "hcl_buffer_release"; break;
        case TR_EVENT: st = hcl_event_release(p), what = "hcl_event_release"; break;
        case TR_MODULE: st = hcl_module_release(p), what = "hcl_module_release"; break;
        case TR_KERNEL: st = hcl_kernel_release(p), what = "hcl_kernel_release"; break;
        case TR_MEMORY: free(p); break;
        }
        CHECK(st == HCL_SUCCESS, "cleanup: %s: %s: %s", what, hcl_status_name(st), hcl_last_message());
    }
    free(track);
    track = NULL;
    track_len = track_cap = 0;
    conf_dev = NULL;
    conf_queue = NULL;
#ifdef CONF_LEAK_CHECK
    /* Criterion does not fail a test whose process leaks at exit: look now, with everything released. */
    CHECK(__lsan_do_recoverable_leak_check() == 0,
          "LeakSanitizer found memory leaked by this test (its report is on stderr, or under LSAN_OPTIONS log_path)");
#endif

    if (!cur_xfail) conf_forced_end(cur_suite, cur_test, failures);
    if (cur_xfail) {
        const conf_expectation *e = cur_xfail;
        cur_xfail = NULL; /* from here on, checks report normally */
        switch (conf_xfail_judge(e, xfail_failures, xfail_first)) {
        case CONF_XFAIL_CONFIRMED:
            cr_skip_test("%s: expected failure (declared: %s); observed %u failure(s), first: %s", conf_backend_name,
                         e->reason, xfail_failures, xfail_first);
        case CONF_XFAIL_PASSED:
            CHECK(false, "declared as an expected failure on %s (%s) but it passed: remove it from the table",
                  conf_backend_name, e->reason);
            break;
        case CONF_XFAIL_OTHER:
            CHECK(false, "declared as an expected failure on %s for \"%s\" but it failed otherwise: %s",
                  conf_backend_name, e->match, xfail_first);
            break;
        }
    }
}

/* ------------------------------------------------------------------------------------------------------- */
/* Checks                                                                                                  */
/* ------------------------------------------------------------------------------------------------------- */
static bool report(const char *file, int line, const char *msg) {
    char full[2048];
    snprintf(full, sizeof full, "[%s seed=%llu] %s", conf_backend_name, (unsigned long long)conf_seed, msg);
    if (cur_xfail) {
        if (xfail_failures++ == 0) snprintf(xfail_first, sizeof xfail_first, "%s", msg);
        cr_log_info("(expected failure) %s:%d: %s", file, line, full);
        return false;
    }
    failures++;
    struct criterion_assert_stats stat;
    memset(&stat, 0, sizeof stat);
    stat.passed = false;
    stat.file = file;
    stat.line = (unsigned)line;
    stat.message = full;
    criterion_send_assert(&stat);
    return false;
}

bool conf_check_at(bool ok, const char *file, int line, const char *fmt, ...) {
    if (ok) return true;
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return report(file, line, msg);
}

void conf_prime_message(void) {
    hcl_backend_info bi;
    (void)hcl_backend_get_info(0xdeadbeefu, &bi); /* an index no test uses */
    snprintf(primed_message, sizeof primed_message, "%s", hcl_last_message());
}

static bool status_check(hcl_status got, bool ok, const char *want_text, const char *expr, const char *file, int line) {
    const char *msg = hcl_last_message();
    if (!ok)
        return conf_check_at(false, file, line, "%s\n  returned %s, expected %s\n  message: \"%s\"", expr,
                             hcl_status_name(got), want_text, got != HCL_SUCCESS ? msg : "");
    if (got == HCL_SUCCESS) return true;
    if (!msg || !msg[0])
        return conf_check_at(false, file, line, "%s\n  returned %s as expected but hcl_last_message() is empty", expr,
                             hcl_status_name(got));
    if (primed_message[0] && strcmp(msg, primed_message) == 0)
        return conf_check_at(false, file, line,
                             "%s\n  returned %s as expected but left no message of its own (still: \"%s\")", expr,
                             hcl_status_name(got), msg);
    return true;
}

/* A call that should have succeeded but was refused by a forced code path: reported as skipped, not as a failure. */
static bool forced_refusal(hcl_status got, bool success_wanted, const char *expr) {
    return success_wanted && conf_forced_refusal(got, expr, hcl_last_message());
}

bool conf_status_at(hcl_status got, hcl_status want, const char *expr, const char *file, int line) {
    if (forced_refusal(got, want == HCL_SUCCESS, expr)) return false;
    return status_check(got, got == want, hcl_status_name(want), expr, file, line);
}

bool conf_status_any_at(hcl_status got, hcl_status want1, hcl_status want2, const char *expr, const char *file,
                        int line) {
    if (forced_refusal(got, want1 == HCL_SUCCESS || want2 == HCL_SUCCESS, expr)) return false;
    char want[96];
    snprintf(want, sizeof want, "%s or %s", hcl_status_name(want1), hcl_status_name(want2));
    return status_check(got, got == want1 || got == want2, want, expr, file, line);
}

bool conf_run_at(hcl_status got, const char *expr, const char *file, int line) {
    const bool ok = conf_status_at(got, HCL_SUCCESS, expr, file, line);
    if (ok) conf_forced_ran();
    return ok;
}

bool conf_message_has_at(const char *needle, const char *file, int line) {
    const char *msg = hcl_last_message();
    return conf_check_at(msg && strstr(msg, needle) != NULL, file, line,
                         "hcl_last_message() should mention \"%s\"; it is \"%s\"", needle, msg ? msg : "(null)");
}

/* ------------------------------------------------------------------------------------------------------- */
/* Tracked objects                                                                                         */
/* ------------------------------------------------------------------------------------------------------- */
hcl_buffer conf_buffer_on(hcl_device dev, size_t bytes) {
    hcl_buffer b = NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_create(dev, bytes, 0, &b))) return NULL;
    track_add(TR_BUFFER, b);
    return b;
}

hcl_buffer conf_buffer(size_t bytes) { return conf_buffer_on(conf_dev, bytes); }

hcl_queue conf_queue_on(hcl_device dev) {
    hcl_queue q = NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_queue_create(dev, &q))) return NULL;
    track_add(TR_QUEUE, q);
    return q;
}

hcl_device conf_open_again(void) {
    hcl_device d = NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_device_open(conf_selector, &d))) return NULL;
    track_add(TR_DEVICE, d);
    CHECK(d != conf_dev, "two opens of \"%s\" gave the same handle", conf_selector);
    return d;
}

hcl_buffer conf_dead_buffer(size_t bytes) {
    hcl_buffer b = NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_create(conf_dev, bytes, 0, &b))) return NULL;
    return CHECK_ST(HCL_SUCCESS, hcl_buffer_release(b)) ? b : NULL;
}

hcl_buffer conf_other_buffer(size_t bytes) {
    hcl_device d = conf_open_again();
    return d ? conf_buffer_on(d, bytes) : NULL;
}

bool conf_release_buffer(hcl_buffer b) {
    for (size_t i = track_len; i-- > 0;) {
        if (track[i].kind == TR_BUFFER && track[i].p == (void *)b) {
            memmove(&track[i], &track[i + 1], (track_len - i - 1) * sizeof *track);
            track_len--;
            return CHECK_ST(HCL_SUCCESS, hcl_buffer_release(b));
        }
    }
    return CHECK(false, "conf_release_buffer: buffer %p is not tracked", (void *)b);
}

void conf_track_event(hcl_event e) { track_add(TR_EVENT, e); }
void conf_track_device(hcl_device d) { track_add(TR_DEVICE, d); }
void conf_track_module(hcl_module m) { track_add(TR_MODULE, m); }
void conf_track_kernel(hcl_kernel k) { track_add(TR_KERNEL, k); }

void *conf_malloc(size_t bytes) {
    void *p = calloc(bytes ? bytes : 1, 1);
    cr_assert(p != NULL, "out of host memory (%zu bytes)", bytes);
    track_add(TR_MEMORY, p);
    return p;
}
float *conf_floats(size_t n) { return conf_malloc(n * sizeof(float)); }
double *conf_doubles(size_t n) { return conf_malloc(n * sizeof(double)); }

/* ------------------------------------------------------------------------------------------------------- */
/* Random inputs, poison, transfers, comparison                                                            */
/* ------------------------------------------------------------------------------------------------------- */
uint64_t conf_rand_u64(void) { return hcl_ts_splitmix64(&rng_state); }
float conf_rand_float(float lo, float hi) { return hcl_ts_rand_float(&rng_state, lo, hi); }
int conf_rand_int(int lo, int hi) { return hcl_ts_rand_int(&rng_state, lo, hi); }
void conf_fill_uniform(float *x, size_t n, float lo, float hi) { hcl_ts_fill_uniform(&rng_state, x, n, lo, hi); }

bool conf_poison_buffer(hcl_buffer b, size_t offset, size_t bytes) {
    uint32_t u = HCL_TS_POISON_BITS;
    return CHECK_ST(HCL_SUCCESS, hcl_buffer_fill(conf_queue, b, offset, bytes, &u, sizeof u));
}

bool conf_write(hcl_buffer b, size_t offset, const void *src, size_t bytes) {
    return CHECK_ST(HCL_SUCCESS, hcl_buffer_write(conf_queue, b, offset, bytes, src));
}
bool conf_read(hcl_buffer b, size_t offset, void *dst, size_t bytes) {
    return CHECK_ST(HCL_SUCCESS, hcl_buffer_read(conf_queue, b, offset, bytes, dst));
}

bool conf_compare(const char *what, const float *got, const double *ref, const double *tol, size_t n) {
    hcl_ts_cmp c;
    hcl_ts_cmp_init(&c);
    if (hcl_ts_compare(&c, got, ref, tol, tol ? 1.0 : 0.0, n)) return true;
    char text[1200];
    return CHECK(false, "%s: %s", what, hcl_ts_cmp_text(&c, text, sizeof text));
}

bool conf_check_untouched(const char *what, const float *got, size_t n) {
    size_t i = hcl_ts_first_unpoisoned(got, n);
    return CHECK(i == n, "%s: element %zu was written (0x%08x) but must be left alone", what, i,
                 i < n ? hcl_ts_f32_bits(got[i]) : 0u);
}

bool conf_check_buffer_untouched(const char *what, hcl_buffer b, size_t n) {
    float *got = conf_floats(n);
    return conf_read(b, 0, got, n * sizeof(float)) && conf_check_untouched(what, got, n);
}
