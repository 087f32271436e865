/* ctest levelzero-null-flow (run by run-null-flow.sh under ZE_ENABLE_NULL_DRIVER=1): the Level Zero driver's whole
 * call flow on the loader's null driver, which answers every call with success and computes nothing.
 *
 * Part 1 drives the driver module (argv[1]) through its table, as the core does, so that every entry point runs
 * whatever limits the null device reports: init, devices, open, queues, every transfer (staged and direct),
 * fills of every pattern size (the null device offers no runtime fill, so they take the fill kernel), markers
 * with wait lists, events, elapsed time, user modules from SPIR-V with their error paths, kernels, launches with
 * buffer offsets, values and dynamic local memory, then every release. Part 2 does it again through the public API,
 * so the core's loader finds libhcl-levelzero.so next to libhcl.so, and has the core run every built-in op through
 * the driver as ordinary modules (the core's SPIR-V) and launches (kernels/test_builtin_calls.c: this folder names
 * no built-in op).
 *
 * Every status is checked. No result is: the null driver computes nothing. The driver counts the Level Zero
 * objects it makes and destroys, and logs at device close whether all were destroyed; the test requires that
 * line and no warning, and ASan/LSan (in the sanitizer build) catches host leaks, the null driver's allocations
 * included (it mallocs device memory). Timing: the null driver fills in no kernel timestamp, so the driver must
 * refuse to give an elapsed time (HCL_ERROR_VENDOR) rather than invent one, and the test checks that it does. */
#define _GNU_SOURCE 1
#include <hcl/hcl.h>
#include <hcl/hcl_driver.h>

#include "test_builtins.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_host.h" /* the core's services, faked */

extern const unsigned char hcl_ze_test_spv[];
extern const size_t hcl_ze_test_spv_size;

static int g_warnings;
static int g_all_destroyed;
static int g_failures;
static int g_steps;

/* The driver's log: count its warnings and its report that every Level Zero object was destroyed. */
static void count_log(hcl_log_level level, const char *driver, const char *line) {
    if (strstr(line, "every Level Zero object it made was destroyed")) g_all_destroyed++;
    if (level <= HCL_LOG_WARN) {
        g_warnings++;
        printf("  hcl[%s] %s: %s\n", driver, level == HCL_LOG_ERROR ? "error" : "warn", line);
    } else if (getenv("HCL_TEST_VERBOSE")) {
        printf("  hcl[%s] debug: %s\n", driver, line);
    }
}

/* Check a call's status against the expected one; on a mismatch, say so with `message`, the call's message. */
static int check_status(const char *what, hcl_status got, hcl_status want, const char *message) {
    g_steps++;
    if (got == want) {
        if (want == HCL_SUCCESS)
            printf("ok   %s\n", what);
        else
            printf("ok   %s -> %s as expected: %s\n", what, hcl_status_name(got), message);
        return 1;
    }
    printf("FAIL %s -> %s (expected %s): %s\n", what, hcl_status_name(got), hcl_status_name(want), message);
    g_failures++;
    return 0;
}
/* A driver call (its message is the fake core's g_message); a call of the public API (hcl_last_message). The status
 * is taken before the message is read. */
static int expect(const char *what, hcl_status got, hcl_status want) {
    return check_status(what, got, want, g_message);
}
static int api(const char *what, hcl_status got, hcl_status want) {
    return check_status(what, got, want, hcl_last_message());
}
#define OK(what, call) expect(what, (call), HCL_SUCCESS)
#define API_OK(what, call) api(what, (call), HCL_SUCCESS)

/* ---------------------------------------------------------------------------------------------------------
 * Part 1: the driver table
 * ------------------------------------------------------------------------------------------------------- */
static void part_driver(const char *module_path) {
    printf("== part 1: the driver module %s, through its table\n", module_path);
    void *lib = dlopen(module_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("FAIL dlopen %s: %s\n", module_path, dlerror());
        g_failures++;
        return;
    }
    hcl_driver_entry_fn entry = NULL;
    void *sym = dlsym(lib, HCL_DRIVER_ENTRY_NAME);
    memcpy(&entry, &sym, sizeof sym);
    const hcl_driver_table *t = entry ? entry() : NULL;
    if (!t || t->abi_major != HCL_DRIVER_ABI_MAJOR || strcmp(t->name, "levelzero") != 0) {
        printf("FAIL the module's entry point gave no levelzero table of ABI %d\n", HCL_DRIVER_ABI_MAJOR);
        g_failures++;
        dlclose(lib);
        return;
    }
    char reason[2048] = "", version[256] = "";
    g_log_hook = count_log;
    if (!OK("init (zeInit, zeDriverGet, zeDeviceGet and the device properties)",
            t->init(&g_host, reason, sizeof reason, version, sizeof version))) {
        printf("     reason: %s\n", reason);
        dlclose(lib);
        return;
    }
    printf("     version: %s\n", version);
    uint32_t count = 0;
    OK("device_count", t->device_count(&count));
    if (count == 0) {
        printf("FAIL the null driver offers no device\n");
        g_failures++;
        t->shutdown();
        dlclose(lib);
        return;
    }
    hcl_device_info info;
    OK("device_info(0)", t->device_info(0, &info));
    printf("     device 0: '%s', vendor %s, driver %s, type %d, %u EUs, max group %llu, local %llu B, %s\n", info.name,
           info.vendor, info.driver_version, (int)info.type, info.compute_units,
           (unsigned long long)info.max_work_group_size, (unsigned long long)info.local_mem_bytes, info.identity);
    expect("device_info(count) (out of range)", t->device_info(count, &info), HCL_ERROR_DEVICE_NOT_FOUND);

    void *dev = NULL, *q = NULL, *q2 = NULL;
    void *a = NULL, *b = NULL, *c = NULL, *big = NULL;
    void *mod = NULL, *bad_mod = NULL, *kern = NULL;
    enum { N = 4096, EVENTS = 48 };
    void *ev[EVENTS] = {NULL};
    int nev = 0;
    static float host_a[N], host_b[N];
    float *host_big = calloc(1, (size_t)3 << 20);
    if (!OK("device_open(0) (zeContextCreate)", t->device_open(0, &dev))) goto shutdown;
    if (HCL_DRIVER_HAS(t, device_limits)) {
        hcl_driver_limits lim;
        memset(&lim, 0, sizeof lim);
        OK("device_limits (zeDeviceGetComputeProperties: sub-group sizes, maxGroupCount)", t->device_limits(dev, &lim));
        printf("     sub-groups of %u, at most %u x %u x %u groups\n", lim.subgroup_width, lim.max_groups[0],
               lim.max_groups[1], lim.max_groups[2]);
    } else {
        printf("FAIL the table has no device_limits\n");
        g_failures++;
    }
    OK("queue_create (zeCommandListCreateImmediate)", t->queue_create(dev, &q));
    OK("queue_create (a second queue)", t->queue_create(dev, &q2));
    if (!q || !q2) goto close;
    OK("buffer_alloc a (zeMemAllocDevice)", t->buffer_alloc(dev, N * sizeof(float), &a));
    OK("buffer_alloc b", t->buffer_alloc(dev, N * sizeof(float), &b));
    OK("buffer_alloc c", t->buffer_alloc(dev, N * sizeof(float), &c));
    OK("buffer_alloc 3 MiB", t->buffer_alloc(dev, (size_t)3 << 20, &big));
    if (!a || !b || !c || !big || !host_big) goto release;

    void *pinned = NULL, *native = NULL;
    if (HCL_DRIVER_HAS(t, host_alloc) && OK("host_alloc 64 KiB (zeMemAllocHost)", t->host_alloc(dev, 65536, &pinned))) {
        OK("buffer_write async from host_alloc memory", t->buffer_write(q, a, 0, 65536 / 4, pinned, 0, 0, NULL, NULL));
        OK("buffer_read blocking into host_alloc memory", t->buffer_read(q, a, 0, 65536 / 4, pinned, 1, 0, NULL, NULL));
        t->host_free(dev, pinned);
    }
    if (HCL_DRIVER_HAS(t, get_native)) {
        OK("get_native device (ze_context_handle_t)", t->get_native(HCL_NATIVE_DEVICE, dev, &native));
        OK("get_native queue (ze_command_list_handle_t)", t->get_native(HCL_NATIVE_QUEUE, q, &native));
        OK("get_native buffer (the device pointer)", t->get_native(HCL_NATIVE_BUFFER, a, &native));
        if (native != a) {
            printf("FAIL get_native of a buffer is not its device pointer\n");
            g_failures++;
        }
    }
    if (HCL_DRIVER_HAS(t, buffer_wrap)) {
        /* the null driver fills in no allocation properties (memory type unknown): a wrap asks and is refused */
        void *wrapped = NULL;
        expect("buffer_wrap of a device pointer (zeMemGetAllocProperties: the null driver says unknown memory)",
               t->buffer_wrap(dev, a, N * sizeof(float), &wrapped), HCL_ERROR_INVALID_ARGUMENT);
    }

    /* transfers: blocking small ones are staged through zeMemAllocHost memory, the rest copy directly */
    for (int i = 0; i < N; i++) host_a[i] = (float)i, host_b[i] = 1.0f;
    OK("buffer_write blocking 16 KiB (staged in host memory)",
       t->buffer_write(q, a, 0, N * sizeof(float), host_a, 1, 0, NULL, NULL));
    OK("buffer_write async with event (direct)",
       t->buffer_write(q, b, 0, N * sizeof(float), host_b, 0, 0, NULL, &ev[nev++]));
    OK("buffer_write blocking 3 MiB (direct)", t->buffer_write(q, big, 0, (size_t)3 << 20, host_big, 1, 0, NULL, NULL));
    OK("buffer_read blocking at an offset (staged)", t->buffer_read(q, a, 64, 256, host_a, 1, 0, NULL, NULL));
    OK("buffer_read blocking 3 MiB with event (direct)",
       t->buffer_read(q, big, 0, (size_t)3 << 20, host_big, 1, 0, NULL, &ev[nev++]));
    OK("buffer_read async with a wait list from the other queue",
       t->buffer_read(q2, b, 0, 1024, host_b, 0, 1, &ev[0], &ev[nev++]));
    OK("buffer_copy blocking", t->buffer_copy(q, c, 128, a, 0, 1024, 1, 0, NULL, NULL));
    OK("buffer_copy async with event", t->buffer_copy(q, c, 0, b, 0, 4096, 0, 0, NULL, &ev[nev++]));
    static const unsigned char pattern[128] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        char what[160];
        snprintf(what, sizeof what, "buffer_fill pattern of %zu bytes, blocking (fill kernel on the null device)", ps);
        OK(what, t->buffer_fill(q, c, ps * 2, ps * 8, pattern, ps, 1, 0, NULL, NULL));
        snprintf(what, sizeof what, "buffer_fill pattern of %zu bytes, async with event", ps);
        OK(what, t->buffer_fill(q2, c, 0, ps * 16, pattern, ps, 0, 0, NULL, &ev[nev++]));
    }
    void *marker = NULL;
    OK("queue_marker after events of both queues", t->queue_marker(q, 2, &ev[1], &marker));
    if (marker) {
        ev[nev++] = marker;
        OK("event_wait (zeEventHostSynchronize) on the marker", t->event_wait(marker));
        int done = 0;
        OK("event_query (zeEventQueryStatus) on the marker", t->event_query(marker, &done));
        if (!done) {
            printf("FAIL event_query says the marker waited for is not done\n");
            g_failures++;
        }
    }
    double seconds = -1.0;
    expect("event_elapsed (zeEventQueryKernelTimestamp): the null driver gives no timestamps",
           t->event_elapsed(ev[0], ev[1], &seconds), HCL_ERROR_VENDOR);
    if (!strstr(g_message, "no timestamp")) {
        printf("FAIL event_elapsed's message does not say that there was no timestamp: %s\n", g_message);
        g_failures++;
    }

    /* user modules */
    hcl_module_source src = {HCL_SOURCE_OPENCL_C, "__kernel void k(void) {}", 24, NULL};
    expect("module_create from OpenCL C (levelzero takes SPIR-V only)", t->module_create(dev, &src, 1, &bad_mod),
           HCL_ERROR_UNSUPPORTED);
    static const uint32_t not_spirv[8] = {0x12345678u, 1, 2, 3, 4, 5, 6, 7};
    hcl_module_source bad = {HCL_SOURCE_SPIRV, not_spirv, sizeof not_spirv, NULL};
    expect("module_create from data that is not SPIR-V", t->module_create(dev, &bad, 1, &bad_mod), HCL_ERROR_BUILD);
    hcl_module_source srcs[2] = {{HCL_SOURCE_OPENCL_C, "x", 1, NULL},
                                 {HCL_SOURCE_SPIRV, hcl_ze_test_spv, hcl_ze_test_spv_size, NULL}};
    OK("module_create from SPIR-V, second of two sources (zeModuleCreate)", t->module_create(dev, srcs, 2, &mod));
    if (mod)
        OK("kernel_create hcl_test_scale (zeKernelCreate, zeKernelGetProperties)",
           t->kernel_create(mod, "hcl_test_scale", &kern));
    if (kern && HCL_DRIVER_HAS(t, kernel_max_group)) {
        uint64_t max_group = UINT64_MAX;
        OK("kernel_max_group (maxSubgroupSize x maxNumSubgroups, 0: not given)", t->kernel_max_group(kern, &max_group));
        if (max_group == UINT64_MAX) {
            printf("FAIL kernel_max_group wrote nothing\n");
            g_failures++;
        }
    } else if (kern) {
        printf("FAIL the table has no kernel_max_group\n");
        g_failures++;
    }
    if (kern) {
        float s = 2.0f;
        uint64_t n = 1000;
        hcl_driver_arg args[4] = {{HCL_DRIVER_ARG_BUFFER, c, 4, NULL, 0},
                                  {HCL_DRIVER_ARG_BUFFER, a, 0, NULL, 0},
                                  {HCL_DRIVER_ARG_VALUE, NULL, 0, &s, sizeof s},
                                  {HCL_DRIVER_ARG_VALUE, NULL, 0, &n, sizeof n}};
        hcl_dim3 grid = {16, 1, 1}, block = {64, 1, 1};
        OK("kernel_launch: buffer at offset 4, values, 256 B of dynamic local memory, wait list, event "
           "(zeKernelSetGroupSize, zeKernelSetArgumentValue, zeCommandListAppendLaunchKernel)",
           t->kernel_launch(q, kern, grid, block, 64 * sizeof(float), 4, args, 1, &ev[2], &ev[nev++]));
        hcl_dim3 grid3 = {2, 3, 4}, block3 = {4, 2, 2};
        OK("kernel_launch 3-D without event on the second queue",
           t->kernel_launch(q2, kern, grid3, block3, 16 * sizeof(float), 4, args, 0, NULL, NULL));
    }

    OK("queue_finish (barrier signalling the queue's event, zeEventHostSynchronize)", t->queue_finish(q));
    OK("queue_finish of the second queue", t->queue_finish(q2));
    int waited = 0;
    for (int i = 0; i < nev; i++)
        if (ev[i]) waited += t->event_wait(ev[i]) == HCL_SUCCESS;
    expect("event_wait on every event", waited == nev ? HCL_SUCCESS : HCL_ERROR_VENDOR, HCL_SUCCESS);

release:
    for (int i = 0; i < nev; i++)
        if (ev[i]) t->event_release(ev[i]);
    printf("ok   event_release x %d (zeEventHostReset, back to the pool)\n", nev);
    if (kern) t->kernel_destroy(kern);
    if (mod) t->module_destroy(mod);
    if (bad_mod) {
        printf("FAIL a module was made from a bad source\n");
        g_failures++;
        t->module_destroy(bad_mod);
    }
    if (a) t->buffer_free(dev, a);
    if (b) t->buffer_free(dev, b);
    if (c) t->buffer_free(dev, c);
    if (big) t->buffer_free(dev, big);
    printf("ok   kernel_destroy, module_destroy, buffer_free (zeKernelDestroy, zeModuleDestroy, zeMemFree)\n");
close:
    if (q2) OK("queue_finish before release", t->queue_finish(q2));
    if (q2) t->queue_destroy(q2);
    if (q) t->queue_destroy(q);
    t->device_close(dev);
    printf("ok   queue_destroy, device_close (zeCommandListDestroy, event pools, helper modules, zeContextDestroy)\n");
    if (g_all_destroyed != 1) {
        printf("FAIL the driver did not report that every Level Zero object it made was destroyed\n");
        g_failures++;
    } else {
        printf("ok   the driver destroyed every Level Zero object it made\n");
    }
shutdown:
    t->shutdown();
    free(host_big);
    dlclose(lib);
}

/* ---------------------------------------------------------------------------------------------------------
 * Part 2: the public API
 * ------------------------------------------------------------------------------------------------------- */
/* hcl_test_builtin_calls' steps, as this test's own */
static void builtin_step(void *ctx, int ok, const char *what) {
    (void)ctx;
    g_steps++;
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) g_failures++;
}

static void part_api(void) {
    printf("== part 2: the public API (the core loads libhcl-levelzero.so from next to libhcl.so)\n");
    uint32_t count = 0;
    API_OK("hcl_backend_count", hcl_backend_count(&count));
    hcl_backend_info binfo;
    int found = 0;
    for (uint32_t i = 0; i < count && !found; i++)
        if (hcl_backend_get_info(i, &binfo) == HCL_SUCCESS && strcmp(binfo.name, "levelzero") == 0) found = 1;
    if (!found || !binfo.available) {
        printf("FAIL levelzero is %s: %s\n", found ? "unavailable" : "not listed", found ? binfo.reason : "");
        g_failures++;
        return;
    }
    printf("ok   levelzero available: %u device(s), module %s, %s\n", binfo.device_count, binfo.module_path,
           binfo.version);
    hcl_device dev = NULL;
    hcl_queue q = NULL;
    hcl_buffer a = NULL, b = NULL, c = NULL;
    hcl_module m = NULL;
    hcl_kernel k = NULL;
    hcl_event e1 = NULL, e2 = NULL;
    hcl_device_info info;
    enum { N = 1000 };
    static float x[N];
    if (!API_OK("hcl_device_open(\"levelzero\")", hcl_device_open("levelzero", &dev))) return;
    API_OK("hcl_device_get_info", hcl_device_get_info(dev, &info));
    printf("     %s:%u '%s' (%s), max work-group %llu\n", info.backend, info.index, info.name, info.identity,
           (unsigned long long)info.max_work_group_size);
    API_OK("hcl_queue_create", hcl_queue_create(dev, &q));
    API_OK("hcl_buffer_create a", hcl_buffer_create(dev, N * sizeof(float), 0, &a));
    API_OK("hcl_buffer_create b", hcl_buffer_create(dev, N * sizeof(float), 0, &b));
    API_OK("hcl_buffer_create c", hcl_buffer_create(dev, N * sizeof(float), 0, &c));
    if (!q || !a || !b || !c) goto cleanup;
    API_OK("hcl_buffer_write", hcl_buffer_write(q, a, 0, sizeof x, x));
    API_OK("hcl_buffer_fill (1-byte pattern)", hcl_buffer_fill(q, b, 0, sizeof x, "\0", 1));
    API_OK("hcl_buffer_write_async with event", hcl_buffer_write_async(q, a, 0, sizeof x, x, 0, NULL, &e1));
    /* every built-in op, statuses only (the null driver computes nothing) */
    int failed = hcl_test_builtin_calls(dev, q, 0, builtin_step, NULL);
    printf("%s   the built-in ops through the core (%d failed step(s))\n", failed ? "FAIL" : "ok  ", failed);
    API_OK("hcl_queue_marker with event", hcl_queue_marker(q, &e2));
    double s = 0.0;
    api("hcl_event_elapsed: the null driver gives no timestamps", hcl_event_elapsed(e1, e2, &s), HCL_ERROR_VENDOR);
    hcl_module_source src = {HCL_SOURCE_SPIRV, hcl_ze_test_spv, hcl_ze_test_spv_size, NULL};
    API_OK("hcl_module_create from SPIR-V", hcl_module_create(dev, &src, 1, &m));
    if (m) API_OK("hcl_kernel_create", hcl_kernel_create(m, "hcl_test_scale", &k));
    if (k) {
        float f = 3.0f;
        uint64_t n = N;
        hcl_arg args[4] = {hcl_arg_buffer(c), hcl_arg_buffer(a), hcl_arg_value(&f, sizeof f),
                           hcl_arg_value(&n, sizeof n)};
        hcl_dim3 grid = {4, 1, 1}, block = {256, 1, 1};
        /* the null device reports a largest work-group of 0, so the core refuses every launch before the driver */
        hcl_status want = info.max_work_group_size >= 256 ? HCL_SUCCESS : HCL_ERROR_INVALID_ARGUMENT;
        api("hcl_kernel_launch (the core checks the block against max_work_group_size)",
            hcl_kernel_launch(q, k, grid, block, 256 * sizeof(float), 4, args, 0, NULL, NULL), want);
    }
    API_OK("hcl_buffer_read", hcl_buffer_read(q, c, 0, sizeof x, x));
    API_OK("hcl_queue_finish", hcl_queue_finish(q));
cleanup:
    if (e1) API_OK("hcl_event_release", hcl_event_release(e1));
    if (e2) API_OK("hcl_event_release", hcl_event_release(e2));
    if (k) API_OK("hcl_kernel_release", hcl_kernel_release(k));
    if (m) API_OK("hcl_module_release", hcl_module_release(m));
    if (a) API_OK("hcl_buffer_release", hcl_buffer_release(a));
    if (b) API_OK("hcl_buffer_release", hcl_buffer_release(b));
    if (c) API_OK("hcl_buffer_release", hcl_buffer_release(c));
    if (q) API_OK("hcl_queue_release", hcl_queue_release(q));
    if (dev) API_OK("hcl_device_release", hcl_device_release(dev));
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s path/to/libhcl-levelzero.so (run by run-null-flow.sh)\n", argv[0]);
        return 2;
    }
    const char *null_env = getenv("ZE_ENABLE_NULL_DRIVER");
    if (!null_env || strcmp(null_env, "1") != 0) {
        printf("SKIP: ZE_ENABLE_NULL_DRIVER=1 is not set: run this through run-null-flow.sh\n");
        return 77;
    }
    printf("The Level Zero null driver computes nothing: no result of this run is checked, only the call flow and "
           "every status.\n");
    part_driver(argv[1]);
    part_api();
    if (g_warnings) {
        printf("FAIL %d warning(s) from the driver (above)\n", g_warnings);
        g_failures++;
    }
    fake_cache_free();
    printf("%s: %d step(s), %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_steps, g_failures);
    return g_failures ? 1 : 0;
}
