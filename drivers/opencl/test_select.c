/* ctest opencl-select-fake: which device a backend named without an index opens (issue 33, item 7), through the
 * public API, on a fake libOpenCL (test_fake_opencl.c, given as HCL_OPENCL_LIBRARY) whose three devices have the
 * types HCL_FAKE_CL_TYPES gives them. On the H200 machines PoCL's CPU is OpenCL device 0 and the GPU device 1, and
 * HCL_BACKEND=opencl opened the CPU.
 *
 * Checked, each device layout in a process of its own (the library loads a backend once per process):
 *   cpu,gpu,gpu                  "opencl" and HCL_BACKEND=opencl open opencl:1, the first GPU; "opencl:0",
 *                                HCL_BACKEND=opencl:0 and HCL_BACKEND=opencl with HCL_DEVICE=0 open opencl:0, the CPU;
 *                                HCL_DEVICE=2 opencl:2; "opencl,host" opencl:1; the default (no HCL_BACKEND), where it
 *                                is an OpenCL device, opencl:1
 *   cpu,cpu,cpu                  no GPU: the first CPU, opencl:0
 *   cpu,accelerator,cpu          no GPU: the accelerator before the CPUs, opencl:1
 *   cpu,accelerator,gpu          the GPU before the accelerator, opencl:2
 *   custom,cpu,custom            a CPU before a device of another type, opencl:1
 *   gpu,gpu,gpu                  opencl:0, as before
 * and in each, "host" opens host:0 (a backend of one device is as before).
 * Exit status: 0 when every check passed, 1 otherwise (each failure printed), 2 on a usage error. */
#define _POSIX_C_SOURCE 200809L
#include "hcl_testsupport.h"
#include <hcl/hcl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Open `selector` with HCL_BACKEND and HCL_DEVICE as given (NULL: unset); expect backend:index. */
static void expect(const char *selector, const char *env_backend, const char *env_device, const char *backend,
                   uint32_t index) {
    char what[160];
    snprintf(what, sizeof what, "%s: hcl_device_open(%s%s%s) with HCL_BACKEND=%s HCL_DEVICE=%s",
             getenv("HCL_FAKE_CL_TYPES"), selector ? "\"" : "", selector ? selector : "NULL", selector ? "\"" : "",
             env_backend ? env_backend : "(unset)", env_device ? env_device : "(unset)");
    if (env_backend)
        setenv("HCL_BACKEND", env_backend, 1);
    else
        unsetenv("HCL_BACKEND");
    if (env_device)
        setenv("HCL_DEVICE", env_device, 1);
    else
        unsetenv("HCL_DEVICE");
    hcl_device d = NULL;
    hcl_device_info info;
    hcl_status st = hcl_device_open(selector, &d);
    if (st == HCL_SUCCESS) st = hcl_device_get_info(d, &info);
    if (HCL_TS_CHECK(st == HCL_SUCCESS, "%s: %s: %s", what, hcl_status_name(st), hcl_last_message())) {
        int ok = HCL_TS_CHECK(strcmp(info.backend, backend) == 0 && info.index == index,
                              "%s opened %s:%u, expected %s:%u", what, info.backend, info.index, backend, index);
        if (ok) printf("ok   %s: %s:%u (%s)\n", what, info.backend, info.index, info.name);
    }
    if (d) hcl_device_release(d);
}

/* The checks of one device layout; returns the failures. */
static int layout(const char *types, uint32_t bare) {
    setenv("HCL_FAKE_CL_TYPES", types, 1);
    expect("opencl", NULL, NULL, "opencl", bare);
    expect(NULL, "opencl", NULL, "opencl", bare);
    expect("opencl", "host", "2", "opencl", bare); /* an explicit selector ignores the environment */
    expect("opencl:0", NULL, NULL, "opencl", 0);
    expect(NULL, "opencl:0", NULL, "opencl", 0);
    expect(NULL, "opencl", "0", "opencl", 0);
    expect(NULL, "opencl", "2", "opencl", 2);
    expect("opencl,host", NULL, NULL, "opencl", bare);
    expect("host", NULL, NULL, "host", 0);
    expect(NULL, "host", NULL, "host", 0);
    if (strcmp(types, "cpu,gpu,gpu") == 0) { /* the default rule: the first GPU of the GPU backends, else host */
        hcl_device d = NULL;
        hcl_device_info info;
        unsetenv("HCL_BACKEND");
        unsetenv("HCL_DEVICE");
        if (hcl_device_open(NULL, &d) == HCL_SUCCESS && hcl_device_get_info(d, &info) == HCL_SUCCESS &&
            strcmp(info.backend, "opencl") == 0)
            HCL_TS_CHECK(info.index == 1, "%s: the default device is opencl:%u, expected opencl:1", types, info.index);
        if (d) hcl_device_release(d);
    }
    return hcl_ts_failures();
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s FAKE_LIBOPENCL\n", argv[0]);
        return 2;
    }
    setenv("HCL_OPENCL_LIBRARY", argv[1], 1);
    static const struct {
        const char *types;
        uint32_t bare; /* the device "opencl" opens */
    } layouts[] = {{"cpu,gpu,gpu", 1},         {"cpu,cpu,cpu", 0},       {"cpu,accelerator,cpu", 1},
                   {"cpu,accelerator,gpu", 2}, {"custom,cpu,custom", 1}, {"gpu,gpu,gpu", 0}};
    int failed = 0;
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            int failures = layout(layouts[i].types, layouts[i].bare);
            fflush(stdout);
            fflush(stderr);
            _exit(failures ? 1 : 0);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            printf("FAIL %s: the layout's checks failed (or its process did not finish)\n", layouts[i].types);
            failed++;
        }
    }
    printf("%s: %d of %zu device layouts failed (a fake OpenCL library)\n", failed ? "FAIL" : "PASS", failed,
           sizeof layouts / sizeof layouts[0]);
    return failed ? 1 : 0;
}
