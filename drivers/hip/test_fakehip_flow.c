/* The HIP driver's whole host path through the public API, on libhcl-test-fakehip.so instead of libamdhip64
 * (ctest: hip-fake-flow, and hip-fake-flow-r0000 / hip-fake-flow-hiprtc with FAKEHIP_PROPS=r0000 and
 * HCL_HIP_BUILTINS=hiprtc, which makes the core compile its built-in kernels with the driver's hiprtc). No AMD GPU
 * is needed and none is modelled: the stand-in runs every command at once on host memory, and kernels as host code
 * on the arguments the driver passes (test_fakehip.c says how strict it is). What this proves is the host side:
 * init and device discovery (names, the gfx target from either hipDeviceProp_t layout, wavefront width, UUID or PCI
 * identity), the HIP entry point behind every neutral operation with its arguments in the right order, making the
 * right device current and restoring the caller's, the driver's helper bundle holding the device's target, the
 * core's built-in kernels run through the driver as ordinary modules and launches on wave64 and wave32 devices
 * (every op, through kernels/test_builtin_calls.c: this folder names no built-in op), binaries and hiprtc-compiled
 * source as modules, and that everything the driver makes it also releases. What it cannot prove: anything the GPU
 * does (the device code, its speed, the runtime's ordering and timing). */
#define _GNU_SOURCE 1
#include "hcl/hcl.h"
#include "hcl_testsupport.h"
#include "test_builtins.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char hcl_gpu_test_src[];
extern const size_t hcl_gpu_test_src_size;
extern const unsigned char hcl_gpu_test_binary[];
extern const size_t hcl_gpu_test_binary_size;

#define CHECK HCL_TS_CHECK /* counted; printed when it fails */
#define OK HCL_TS_OK

/* the stand-in's own counters and its current device, through a handle of our own on the same library */
static long (*fake_live)(void), (*fake_wrong_device)(void);
static int (*fake_get_device)(int *), (*fake_set_device)(int);
static int (*fake_malloc)(void **, size_t), (*fake_free)(void *);

static hcl_device dev;
static hcl_queue q;

static hcl_buffer make(size_t bytes) { return hcl_ts_buffer(dev, bytes); }

static void test_memory(void) {
    const size_t n = 4096;
    unsigned char *h = malloc(n), *r = malloc(n);
    for (size_t i = 0; i < n; i++) h[i] = (unsigned char)(i * 13 + 7);
    hcl_buffer a = make(n), b = make(n);
    OK(hcl_buffer_write(q, a, 0, n, h));
    OK(hcl_buffer_copy(q, b, 100, a, 200, 1000));
    OK(hcl_buffer_read(q, b, 100, 1000, r));
    CHECK(memcmp(r, h + 200, 1000) == 0, "write, copy at offsets, read: bytes differ");
    hcl_ts_check_fills(q, a, n);
    hcl_event w = NULL, m = NULL;
    OK(hcl_buffer_write_async(q, a, 0, n, h, 0, NULL, &w));
    OK(hcl_queue_marker(q, &m));
    double tw = -1, tm = -1, twm = -1;
    OK(hcl_event_elapsed(w, w, &tw));
    OK(hcl_event_elapsed(m, m, &tm));
    OK(hcl_event_elapsed(w, m, &twm));
    CHECK(tw >= 0 && tm == 0 && twm >= tw, "event times %g %g %g", tw, tm, twm);
    hcl_event_release(w);
    hcl_event_release(m);
    void *pinned = NULL;
    OK(hcl_host_alloc(dev, 1 << 16, &pinned));
    OK(hcl_host_free(dev, pinned));
    void *native = NULL;
    OK(hcl_buffer_get_native(a, &native));
    CHECK(native != NULL, "buffer native");
    OK(hcl_queue_get_native(q, &native));
    CHECK(native != NULL, "queue native");
    hcl_buffer_release(a);
    hcl_buffer_release(b);
    free(h);
    free(r);
}

/* hcl_test_builtin_calls' steps: failures counted and printed as this test's own */
/* hcl_buffer_wrap_native over memory the application allocated with the runtime (the stand-in's hipMalloc) on device
 * `d`: used like any buffer (transfers, a built-in), released without a hipFree (the application's hipFree after it
 * succeeds, and the live-object count at the end holds); memory of the other device, past the end of an allocation,
 * or not the runtime's at all refused by the driver (hipPointerGetAttribute). */
static void test_wrap(int d) {
    enum { N = 1000 };
    const size_t bytes = N * sizeof(float);
    void *mem[4] = {NULL, NULL, NULL, NULL};
    fake_set_device(d);
    for (int i = 0; i < 3; i++) CHECK(fake_malloc(&mem[i], bytes) == 0, "hipMalloc");
    fake_set_device(1 - d);
    CHECK(fake_malloc(&mem[3], bytes) == 0, "hipMalloc on the other device");
    fake_set_device(1 - d);
    if (!mem[0] || !mem[1] || !mem[2] || !mem[3]) return;
    float *x = mem[0], *y = mem[1], *z = mem[2]; /* the stand-in's device memory is host memory */
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 0.5f * (float)i;
        z[i] = -1.0f;
    }
    hcl_buffer w[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) OK(hcl_buffer_wrap_native(dev, mem[i], bytes, 0, &w[i]));
    if (w[0] && w[1] && w[2]) {
        void *back = NULL;
        OK(hcl_buffer_get_native(w[0], &back));
        CHECK(back == mem[0], "the wrapped buffer's native is %p, not %p", back, mem[0]);
        float v[4] = {1.5f, 2.5f, 3.5f, 4.5f}, r[4] = {0};
        OK(hcl_buffer_write(q, w[2], 16, sizeof v, v));
        CHECK(memcmp(z + 4, v, sizeof v) == 0, "a write through the wrapped buffer is not in the memory");
        OK(hcl_buffer_read(q, w[0], 40, sizeof r, r));
        CHECK(r[0] == 10.0f && r[3] == 13.0f, "a read through the wrapped buffer: %g %g", r[0], r[3]);
        OK(hcl_vecadd_f32(q, N, w[0], w[1], w[2], NULL));
        OK(hcl_queue_finish(q));
        int bad = 0;
        for (int i = 0; i < N; i++) bad += z[i] != 1.5f * (float)i;
        CHECK(bad == 0, "vecadd on wrapped buffers: %d of %d wrong", bad, N);
        /* a part of an allocation, from an offset to its end */
        hcl_buffer part = NULL;
        OK(hcl_buffer_wrap_native(dev, (char *)mem[0] + 256, bytes - 256, 0, &part));
        if (part) OK(hcl_buffer_release(part));
    }
    for (int i = 0; i < 3; i++)
        if (w[i]) OK(hcl_buffer_release(w[i]));
    CHECK(x[N - 1] == (float)(N - 1) && z[N - 1] == 1.5f * (float)(N - 1), "the release changed the memory");
    hcl_buffer bad = NULL;
    hcl_status st = hcl_buffer_wrap_native(dev, mem[3], bytes, 0, &bad);
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(hcl_last_message(), "memory of device"),
          "memory of the other device: %s (%s)", hcl_status_name(st), hcl_last_message());
    st = hcl_buffer_wrap_native(dev, (char *)mem[0] + 8, bytes, 0, &bad);
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(hcl_last_message(), "past the end"),
          "past the end of the allocation: %s (%s)", hcl_status_name(st), hcl_last_message());
    static float host_mem[16];
    st = hcl_buffer_wrap_native(dev, host_mem, sizeof host_mem, 0, &bad);
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(hcl_last_message(), "hipPointerGetAttribute"),
          "host memory: %s (%s)", hcl_status_name(st), hcl_last_message());
    fake_set_device(d);
    for (int i = 0; i < 3; i++) CHECK(fake_free(mem[i]) == 0, "the application's hipFree after the release");
    fake_set_device(1 - d);
    CHECK(fake_free(mem[3]) == 0, "hipFree on the other device");
    fake_set_device(1 - d);
}

static void report(void *ctx, int ok, const char *what) {
    CHECK(ok, "built-ins (wave%u): %s", *(const unsigned *)ctx, what);
}

static void test_builtins(unsigned wave) { hcl_test_builtin_calls(dev, q, 1, report, &wave); }

static void run_affine(hcl_module mod, const char *from) {
    hcl_ts_check_affine(dev, q, mod, from);
    hcl_kernel nope = NULL;
    hcl_status st = hcl_kernel_create(mod, "no_such_kernel", &nope);
    CHECK(st == HCL_ERROR_NOT_FOUND, "missing kernel: %s: %s", hcl_status_name(st), hcl_last_message());
}

/* A kernel hiprtc compiled has a parameter list from its source (affine(float *out, float a, double b, unsigned n)):
 * a buffer where the float goes and a 4-byte value where the double goes are refused, naming the parameter, before
 * the runtime sees them (HIP itself states no parameters). */
static void check_arg_refusals(hcl_module mod) {
    hcl_kernel k = NULL;
    OK(hcl_kernel_create(mod, "affine", &k));
    hcl_buffer b = make(256);
    if (!k || !b) return;
    float a = 2.0f;
    double bb = 1.0;
    unsigned n = 64;
    hcl_arg args[4] = {hcl_arg_buffer(b), hcl_arg_buffer(b), hcl_arg_value(&bb, 8), hcl_arg_value(&n, 4)};
    hcl_status st = hcl_kernel_launch(q, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){64, 1, 1}, 0, 4, args, 0, NULL, NULL);
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(hcl_last_message(), "parameter 1 'a'"),
          "a buffer where affine's float goes: %s: %s", hcl_status_name(st), hcl_last_message());
    args[1] = hcl_arg_value(&a, 4);
    args[2] = hcl_arg_value(&a, 4);
    st = hcl_kernel_launch(q, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){64, 1, 1}, 0, 4, args, 0, NULL, NULL);
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(hcl_last_message(), "parameter 2 'b'"),
          "a 4-byte value where affine's double goes: %s: %s", hcl_status_name(st), hcl_last_message());
    st = hcl_kernel_launch(q, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){64, 1, 1}, 0, 3, args, 0, NULL, NULL);
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(hcl_last_message(), "too few"),
          "3 arguments to affine's 4: %s: %s", hcl_status_name(st), hcl_last_message());
    hcl_buffer_release(b);
    hcl_kernel_release(k);
}

static void test_modules(void) {
    hcl_module mod = NULL;
    static const char ocl[] = "__kernel void k(__global float *x) { x[0] = 1.0f; }";
    hcl_module_source bin[2] = {{HCL_SOURCE_OPENCL_C, ocl, sizeof ocl - 1, NULL},
                                {HCL_SOURCE_HIP_BINARY, hcl_gpu_test_binary, hcl_gpu_test_binary_size, NULL}};
    OK(hcl_module_create(dev, bin, 2, &mod));
    if (mod) {
        run_affine(mod, "code-object bundle");
        hcl_module_release(mod);
    }
    /* HIP C through hiprtc (the machine's real one) for the device's target */
    hcl_module_source src = {HCL_SOURCE_HIP_C, hcl_gpu_test_src, hcl_gpu_test_src_size, NULL};
    mod = NULL;
    hcl_status st = hcl_module_create(dev, &src, 1, &mod);
    if (st == HCL_ERROR_UNSUPPORTED) {
        printf("note HIP C not tried: %s\n", hcl_last_message());
    } else {
        CHECK(st == HCL_SUCCESS, "HIP C module: %s: %s", hcl_status_name(st), hcl_last_message());
        if (mod) {
            run_affine(mod, "HIP C (hiprtc)");
            check_arg_refusals(mod);
            hcl_module_release(mod);
        }
    }
    hcl_module_source only_ocl = bin[0];
    mod = NULL;
    st = hcl_module_create(dev, &only_ocl, 1, &mod);
    CHECK(st == HCL_ERROR_UNSUPPORTED, "OpenCL C on hip: %s", hcl_status_name(st));
}

int main(void) {
    const char *lib = getenv("HCL_HIP_LIBRARY");
    void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!h || !(fake_live = (long (*)(void))dlsym(h, "fakehip_live_objects")) ||
        !(fake_wrong_device = (long (*)(void))dlsym(h, "fakehip_wrong_device_uses")) ||
        !(fake_get_device = (int (*)(int *))dlsym(h, "hipGetDevice")) ||
        !(fake_set_device = (int (*)(int))dlsym(h, "hipSetDevice")) ||
        !(fake_malloc = (int (*)(void **, size_t))dlsym(h, "hipMalloc")) ||
        !(fake_free = (int (*)(void *))dlsym(h, "hipFree"))) {
        printf("FAIL HCL_HIP_LIBRARY must name libhcl-test-fakehip.so (got %s)\n", lib ? lib : "nothing");
        return 1;
    }
    uint32_t nb = 0;
    OK(hcl_backend_count(&nb));
    for (uint32_t i = 0; i < nb; i++) {
        hcl_backend_info bi;
        OK(hcl_backend_get_info(i, &bi));
        if (strcmp(bi.name, "hip") != 0) continue;
        printf("hip: %s, %u devices, %s%s\n", bi.available ? "available" : "unavailable", bi.device_count, bi.version,
               bi.reason);
        CHECK(bi.available && bi.device_count == 2 && strstr(bi.version, "HIP runtime 6.3.42123"), "hip backend");
    }
    const struct {
        const char *selector, *arch, *identity;
        unsigned wave;
    } want[2] = {{"hip:0", "gfx90a:sramecc+:xnack-", "uuid:", 64}, {"hip:1", "gfx1030", "hip:AMD:", 32}};
    for (int d = 0; d < 2; d++) {
        /* the caller has device 1 - d current; the driver must leave it so */
        fake_set_device(1 - d);
        dev = NULL;
        OK(hcl_device_open(want[d].selector, &dev));
        if (!dev) continue;
        hcl_device_info info;
        OK(hcl_device_get_info(dev, &info));
        char wave_text[16];
        snprintf(wave_text, sizeof wave_text, "wave%u", want[d].wave);
        printf("%s: %s, %s, local memory %llu, %s\n", want[d].selector, info.name, info.driver_version,
               (unsigned long long)info.local_mem_bytes, info.identity);
        CHECK(strstr(info.driver_version, want[d].arch) && strstr(info.driver_version, wave_text),
              "driver_version '%s' should name %s and %s", info.driver_version, want[d].arch, wave_text);
        CHECK(strncmp(info.identity, want[d].identity, strlen(want[d].identity)) == 0, "identity %s", info.identity);
        CHECK(info.local_mem_bytes == 65536 && info.max_work_group_size == 1024 && info.compute_units > 0,
              "limits: local %llu, work-group %llu", (unsigned long long)info.local_mem_bytes,
              (unsigned long long)info.max_work_group_size);
        /* the properties hcl-info shows, from the attributes (device 1's runtime gives no memory figures: 0) */
        const int mem = d == 0;
        CHECK(info.subgroup_size == want[d].wave && info.has_fp16 == 1 && info.has_fp64 == 1,
              "sub-group %u (want %u), fp16 %u, fp64 %u", info.subgroup_size, want[d].wave, info.has_fp16,
              info.has_fp64);
        CHECK(info.max_work_item_sizes[0] == 1024 && info.max_work_item_sizes[1] == 1024 &&
                  info.max_work_item_sizes[2] == 1024 && info.max_grid_size[0] == 2147483647u &&
                  info.max_grid_size[1] == 65536 && info.max_grid_size[2] == 65536,
              "block/grid limits %llu %llu %llu / %llu %llu %llu", (unsigned long long)info.max_work_item_sizes[0],
              (unsigned long long)info.max_work_item_sizes[1], (unsigned long long)info.max_work_item_sizes[2],
              (unsigned long long)info.max_grid_size[0], (unsigned long long)info.max_grid_size[1],
              (unsigned long long)info.max_grid_size[2]);
        CHECK(info.memory_clock_mhz == (mem ? 1600u : 0u) && info.memory_bus_width_bits == (mem ? 4096u : 0u) &&
                  info.peak_memory_bandwidth == (mem ? 1638400000000ull : 0ull) &&
                  info.l2_cache_bytes == (mem ? 8ull << 20 : 0ull),
              "memory %u MHz, %u bits, %llu B/s, L2 %llu", info.memory_clock_mhz, info.memory_bus_width_bits,
              (unsigned long long)info.peak_memory_bandwidth, (unsigned long long)info.l2_cache_bytes);
        /* the unopened device's info (the global list) carries the same figures */
        uint32_t ndev = 0, seen = 0;
        OK(hcl_device_count(&ndev));
        for (uint32_t g = 0; g < ndev; g++) {
            hcl_device_info listed;
            if (hcl_device_get_info_by_index(g, &listed) != HCL_SUCCESS || strcmp(listed.backend, "hip") != 0 ||
                listed.index != (uint32_t)d)
                continue;
            seen++;
            CHECK(listed.subgroup_size == info.subgroup_size && listed.l2_cache_bytes == info.l2_cache_bytes &&
                      listed.peak_memory_bandwidth == info.peak_memory_bandwidth &&
                      listed.max_grid_size[2] == info.max_grid_size[2],
                  "hcl_device_get_info_by_index(%u) differs from the opened %s", g, want[d].selector);
        }
        CHECK(seen == 1, "%s found %u times in the global device list", want[d].selector, seen);
        void *native = NULL;
        OK(hcl_device_get_native(dev, &native));
        CHECK(native && *(int *)native == d, "device native: a pointer to the ordinal %d", d);
        OK(hcl_queue_create(dev, &q));
        test_memory();
        test_wrap(d);
        test_builtins(want[d].wave);
        test_modules();
        OK(hcl_queue_release(q));
        OK(hcl_device_release(dev));
        int current = -1;
        fake_get_device(&current);
        CHECK(current == 1 - d, "the caller's current device was %d, the driver left %d", 1 - d, current);
        printf("%s   %s: memory, fills, events, wrapped memory, built-ins (wave%u), modules\n",
               hcl_ts_failures() ? "FAIL" : "ok  ", want[d].selector, want[d].wave);
    }
    long live = fake_live(), wrong = fake_wrong_device();
    CHECK(live == 0, "%ld runtime objects still alive after every handle was released", live);
    CHECK(wrong == 0, "%ld runtime calls on an object of a device that was not current", wrong);
    printf("%s: %d of %d checks failed; runtime objects left %ld, wrong-device uses %ld\n",
           hcl_ts_failures() ? "FAIL" : "PASS", hcl_ts_failures(), hcl_ts_checks(), live, wrong);
    dlclose(h);
    return hcl_ts_failures() ? 1 : 0;
}
