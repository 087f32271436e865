/* ctest opencl-xmx-fake: the OpenCL driver and the core, end to end through the public API, on a fake libOpenCL
 * (test_fake_opencl.c, given as HCL_OPENCL_LIBRARY) with three Intel-like GPUs: DG2-like (the matrix extension,
 * sub-groups of 8, 16, 32), PVC-like (the extension, sub-groups of 16, 32) and one without the extension.
 *
 * Checked: hcl_device_info's sub-group size, fp64, work-item sizes and cache are the fake's answers, with the memory
 * figures OpenCL does not give left 0 (unknown);
 * hcl_device_info reports matrix_unit XMX and matrix_types f16 | bf16 exactly for the two devices with
 * cl_intel_subgroup_matrix_multiply_accumulate (NONE and 0 for the third); an f16 and a bf16 hcl_gemm there build the
 * XMX program of the device's smallest sub-group size (-DHCL_XMX_SG=8 / 16, a source that calls the matrix built-ins)
 * and launch its kernel over SG x 4 work-groups; f32 there, and every type on the third device, build and launch
 * gemm.cl's programs as before, and the third device never builds a source with the matrix built-ins.
 * The fake computes nothing: what the kernels compute is kernels-gemm-xmx-emulated's business; no Intel runtime
 * ran here. Exit status: 0 when every check passed, 1 otherwise (each failure printed), 2 on a usage error. */
#define _POSIX_C_SOURCE 200809L
#include "hcl_testsupport.h"
#include <hcl/hcl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *hcl_fake_cl_record(void); /* test_fake_opencl.c: the builds and launches since the last call */

/* Whether a line of `text` holds both a and b. */
static int line_has(const char *text, const char *a, const char *b) {
    for (const char *line = text; *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)n, line);
        if (strstr(buf, a) && (!b || strstr(buf, b))) return 1;
        line += n + (end ? 1 : 0);
    }
    return 0;
}

/* One gemm m = 100, n = 70, k = 33 of the given types on q; returns what the fake saw, or NULL when the call failed. */
static const char *gemm(hcl_device d, hcl_queue q, const char *what, hcl_transpose ta, hcl_dtype abt, hcl_dtype ct) {
    const size_t m = 100, n = 70, k = 33;
    hcl_buffer a = NULL, b = NULL, c = NULL;
    const size_t ea = hcl_dtype_size(abt), ec = hcl_dtype_size(ct);
    hcl_status st = hcl_buffer_create(d, m * k * ea, 0, &a);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(d, k * n * ea, 0, &b);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(d, m * n * ec, 0, &c);
    hcl_fake_cl_record(); /* from here on */
    if (st == HCL_SUCCESS)
        st = hcl_gemm(q, ta, HCL_NO_TRANS, m, n, k, 1.0f, abt, a, ta == HCL_TRANS ? m : k, abt, b, n, 0.5f, ct, c, n,
                      HCL_COMPUTE_F32, NULL);
    if (st == HCL_SUCCESS) st = hcl_queue_finish(q);
    HCL_TS_CHECK(st == HCL_SUCCESS, "%s: %s: %s", what, hcl_status_name(st), hcl_last_message());
    const char *seen = hcl_fake_cl_record();
    printf("%s:\n%s", what, seen);
    if (a) hcl_buffer_release(a);
    if (b) hcl_buffer_release(b);
    if (c) hcl_buffer_release(c);
    return st == HCL_SUCCESS ? seen : NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s FAKE_LIBOPENCL CACHE_DIR\n", argv[0]);
        return 2;
    }
    setenv("HCL_OPENCL_LIBRARY", argv[1], 1);
    setenv("HCL_CACHE_DIR", argv[2], 1);
    static const struct {
        const char *name;
        int sg;             /* the XMX program's sub-group size, 0: no XMX */
        const char *global; /* n = 70 in tiles of 4 * SG columns, m = 100 in tiles of 64 rows, SG x 4 work-items each */
    } devices[] = {
        {"Fake Xe DG2", 8, "global=24x8x1"}, {"Fake Xe PVC", 16, "global=32x8x1"}, {"Fake Xe no-XMX", 0, ""}};
    for (int i = 0; i < 3; i++) {
        char selector[32], what[160];
        snprintf(selector, sizeof selector, "opencl:%d", i);
        hcl_device d = NULL;
        hcl_queue q = NULL;
        hcl_status st = hcl_device_open(selector, &d);
        if (st == HCL_SUCCESS) st = hcl_queue_create(d, &q);
        if (st != HCL_SUCCESS) {
            HCL_TS_CHECK(0, "%s: %s: %s", selector, hcl_status_name(st), hcl_last_message());
            if (d) hcl_device_release(d);
            continue;
        }
        hcl_device_info info;
        st = hcl_device_get_info(d, &info);
        HCL_TS_CHECK(st == HCL_SUCCESS && strcmp(info.name, devices[i].name) == 0, "%s: device '%s', expected '%s'",
                     selector, st == HCL_SUCCESS ? info.name : "?", devices[i].name);
        const int xmx = devices[i].sg != 0;
        const uint32_t types = HCL_TYPE_BIT(HCL_DTYPE_F16) | HCL_TYPE_BIT(HCL_DTYPE_BF16);
        HCL_TS_CHECK(info.matrix_unit == (xmx ? HCL_MATRIX_UNIT_XMX : HCL_MATRIX_UNIT_NONE) &&
                         info.matrix_types == (xmx ? types : 0u),
                     "%s '%s': matrix_unit %d, matrix_types 0x%x", selector, info.name, (int)info.matrix_unit,
                     info.matrix_types);
        /* the properties hcl-info shows: the smallest sub-group size, fp64 as the device says (PVC only), the
         * work-item sizes and the cache; OpenCL gives no memory clock, bus width or grid limit (0, unknown) */
        HCL_TS_CHECK(
            info.subgroup_size == (i == 1 ? 16u : 8u) && info.has_fp64 == (i == 1) &&
                info.max_work_item_sizes[0] == 1024 && info.max_work_item_sizes[2] == 64 &&
                info.l2_cache_bytes == (4u << 20) && info.memory_clock_mhz == 0 && info.memory_bus_width_bits == 0 &&
                info.peak_memory_bandwidth == 0 && info.max_grid_size[0] == 0,
            "%s '%s': sub-group %u, fp64 %u, work-items %llu/%llu, cache %llu, memory %u MHz %u bits, grid %llu",
            selector, info.name, info.subgroup_size, info.has_fp64, (unsigned long long)info.max_work_item_sizes[0],
            (unsigned long long)info.max_work_item_sizes[2], (unsigned long long)info.l2_cache_bytes,
            info.memory_clock_mhz, info.memory_bus_width_bits, (unsigned long long)info.max_grid_size[0]);
        printf("%s '%s': matrix unit %s, matrix types 0x%x\n", selector, info.name,
               info.matrix_unit == HCL_MATRIX_UNIT_XMX ? "XMX" : "none", info.matrix_types);

        char xmx_options[64], xmx_local[32];
        snprintf(xmx_options, sizeof xmx_options, "-DHCL_XMX_SG=%d'", devices[i].sg);
        snprintf(xmx_local, sizeof xmx_local, "local=%dx4x1", devices[i].sg);
        const char *gx = devices[i].global;
        const char *seen;
        char all[8192] = "";
        snprintf(what, sizeof what, "%s f16 nn", selector);
        if ((seen = gemm(d, q, what, HCL_NO_TRANS, HCL_DTYPE_F16, HCL_DTYPE_F16))) {
            strncat(all, seen, sizeof all - strlen(all) - 1);
            if (xmx) {
                HCL_TS_CHECK(line_has(seen, xmx_options, "matrix_builtins=1"), "%s: no build of the XMX program (%s)",
                             what, xmx_options);
                HCL_TS_CHECK(line_has(seen, "kernel=hcl_gemm_nn_f16 ", xmx_local) && line_has(seen, xmx_local, gx),
                             "%s: no launch of hcl_gemm_nn_f16 with %s %s", what, gx, xmx_local);
            } else {
                HCL_TS_CHECK(line_has(seen, "kernel=hcl_gemm_nn_f16 ", "global=16x16x1 local=16x16x1"),
                             "%s: no launch of gemm.cl's hcl_gemm_nn_f16 over 16 x 16", what);
            }
        }
        snprintf(what, sizeof what, "%s bf16 -> f32 tn", selector);
        if ((seen = gemm(d, q, what, HCL_TRANS, HCL_DTYPE_BF16, HCL_DTYPE_F32))) {
            strncat(all, seen, sizeof all - strlen(all) - 1);
            HCL_TS_CHECK(line_has(seen, "kernel=hcl_gemm_tn_bf16_f32 ", xmx ? xmx_local : "local=16x16x1"),
                         "%s: no launch of hcl_gemm_tn_bf16_f32 with %s", what, xmx ? xmx_local : "local=16x16x1");
        }
        snprintf(what, sizeof what, "%s f32 nn", selector);
        if ((seen = gemm(d, q, what, HCL_NO_TRANS, HCL_DTYPE_F32, HCL_DTYPE_F32))) {
            strncat(all, seen, sizeof all - strlen(all) - 1);
            HCL_TS_CHECK(line_has(seen, "kernel=hcl_gemm_nn_f32 ", "global=16x16x1 local=16x16x1"),
                         "%s: no launch of gemm.cl's hcl_gemm_nn_f32 over 16 x 16", what);
            HCL_TS_CHECK(!line_has(seen, "matrix_builtins=1", NULL), "%s: built a source with the matrix built-ins",
                         what);
        }
        if (!xmx)
            HCL_TS_CHECK(!line_has(all, "matrix_builtins=1", NULL) && !line_has(all, "HCL_XMX", NULL),
                         "%s: a device without the extension built the XMX program", selector);
        hcl_queue_release(q);
        hcl_device_release(d);
    }
    /* a kernel without parameters, which NVIDIA's compiler refuses to build with -cl-kernel-arg-info (the fake does
     * the same): the module is built again without it */
    hcl_device d = NULL;
    hcl_module mod = NULL;
    hcl_kernel k = NULL;
    static const char empty[] = "__kernel void hcl_fake_empty(void) { }\n";
    const hcl_module_source src = {HCL_SOURCE_OPENCL_C, empty, sizeof empty - 1, NULL};
    hcl_status st = hcl_device_open("opencl:0", &d);
    hcl_fake_cl_record();
    if (st == HCL_SUCCESS) st = hcl_module_create(d, &src, 1, &mod);
    if (st == HCL_SUCCESS) st = hcl_kernel_create(mod, "hcl_fake_empty", &k);
    const char *seen = hcl_fake_cl_record();
    HCL_TS_CHECK(st == HCL_SUCCESS, "a kernel without parameters: %s: %s", hcl_status_name(st), hcl_last_message());
    HCL_TS_CHECK(line_has(seen, "options='-cl-kernel-arg-info'", NULL) && line_has(seen, "options=''", NULL),
                 "a kernel without parameters: not built with and then without argument info:\n%s", seen);
    if (k) hcl_kernel_release(k);
    if (mod) hcl_module_release(mod);
    if (d) hcl_device_release(d);
    printf("%s: %d failures (a fake OpenCL library: builds and launches checked, nothing computed)\n",
           hcl_ts_failures() ? "FAIL" : "PASS", hcl_ts_failures());
    return hcl_ts_failures() ? 1 : 0;
}
