/* The loader after a dlopen that failed for want of memory (issue 33): the backend is not given up for the life of
 * the process (the next use tries again) and hcl_device_open says HCL_ERROR_OUT_OF_MEMORY; a failure that memory does
 * not explain (a full static TLS block) still makes the backend unavailable, once.
 *   hcl-loader-oom-test TESTDRIVER_DIR     (the folder of libhcl-testok.so, testdriver.c)
 * The dynamic loader's own allocations cannot be failed one by one from here, so this program defines dlopen and
 * dlerror, which libhcl's calls reach first: while a failure is armed, the next dlopen of libhcl-testok.so fails
 * with the text glibc's loader gives for that failure, and every other call goes to the real functions. Each case runs
 * in a child process of its own (the loader's state is per process), forked before any HCL call. */
#define _GNU_SOURCE
#include <hcl/hcl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *g_fail_text; /* armed: the next dlopen of the test module fails with this text */
static char g_error[1024];
static int g_error_pending, g_opens;

#define EXPORT __attribute__((visibility("default"))) /* the build hides symbols by default */

EXPORT void *dlopen(const char *file, int mode) {
    static void *(*real)(const char *, int);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "dlopen");
    if (file && strstr(file, "/libhcl-testok.so")) {
        g_opens++;
        if (g_fail_text) {
            snprintf(g_error, sizeof g_error, "%s: %s", file, g_fail_text);
            g_fail_text = NULL;
            g_error_pending = 1;
            return NULL;
        }
    }
    return real(file, mode);
}

EXPORT char *dlerror(void) {
    static char *(*real)(void);
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "dlerror");
    if (g_error_pending) {
        g_error_pending = 0;
        return g_error;
    }
    return real();
}

static int g_failures;
#define FAIL(...) (g_failures++, printf("  FAIL: "), printf(__VA_ARGS__), printf("\n"))

static void expect(hcl_status want, const char *when) {
    hcl_device dev = NULL;
    hcl_status st = hcl_device_open("testok", &dev);
    printf("  %s: %s: %s\n", when, hcl_status_name(st), hcl_last_message());
    if (st != want)
        FAIL("%s: hcl_device_open(\"testok\") gave %s, expected %s", when, hcl_status_name(st), hcl_status_name(want));
    if (st == HCL_SUCCESS) hcl_device_release(dev);
}

/* One case: the first dlopen of the test module fails with `text`. `transient`: the failure is one of memory. */
static int run_case(const char *text, int transient) {
    printf("dlopen fails with \"%s\"\n", text);
    g_fail_text = text;
    expect(transient ? HCL_ERROR_OUT_OF_MEMORY : HCL_ERROR_BACKEND_UNAVAILABLE, "first open");
    if (!strstr(hcl_last_message(), text)) FAIL("the message does not give the loader's text");
    /* testok has no devices: once it starts, an open finds none */
    expect(transient ? HCL_ERROR_DEVICE_NOT_FOUND : HCL_ERROR_BACKEND_UNAVAILABLE, "second open");
    if (g_opens != (transient ? 2 : 1))
        FAIL("the module was opened %d times, expected %d (%s)", g_opens, transient ? 2 : 1,
             transient ? "tried again after the failure" : "not tried again");
    return g_failures;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s TESTDRIVER_DIR\n", argv[0]);
        return 2;
    }
    setenv("HCL_DRIVER_PATH", argv[1], 1);
    setenv("HCL_EXTRA_DRIVERS", "testok", 1);
    unsetenv("HCL_BACKEND");
    unsetenv("HCL_DEVICE");
    static const struct {
        const char *text;
        int transient;
    } cases[] = {
        {"cannot create shared object descriptor", 1},
        {"cannot allocate address lookup data", 1},
        {"failed to map segment from shared object: Cannot allocate memory", 1},
        {"cannot allocate memory in static TLS block", 0},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            const int failures = run_case(cases[i].text, cases[i].transient);
            fflush(stdout);
            _exit(failures ? 1 : 0);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("  case %zu failed\n", i);
            failed++;
        }
    }
    printf("%s\n", failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
