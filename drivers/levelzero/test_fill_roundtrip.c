/* ctest levelzero-fill-roundtrip: the SPIR-V of the driver's helper kernels (fill.cl), executed.
 *
 * No Level Zero GPU runs here, so each helper program the driver would hand to zeModuleCreate (the very bytes
 * embedded in libhcl-levelzero.so: this program links the same objects) is translated back to LLVM bitcode with
 * `llvm-spirv -r`, loaded on PoCL (CPU) and run (testsupport/hcl_testsupport_cl.h) with the driver's own fill plans
 * (plan.c: the same kernel, work-group size, group count and arguments that helpers.c appends to a Level Zero
 * command list) for several device profiles: PoCL's own limits, a large GPU, a GPU with a tiny group count limit,
 * and a small GPU. Every fill pattern size (1 to 128 bytes) at several offsets and sizes is checked byte for byte,
 * inside the fill and around it.
 *
 * What this proves: the SPIR-V fills right with the driver's arguments, through a translation round trip. What it
 * does not: that a Level Zero runtime compiles and runs it the same way (no such runtime here).
 *
 * Usage: hcl-levelzero-test-fill-roundtrip LLVM_SPIRV WORK_DIR. Exits 77 (skipped) without a PoCL device.
 * HCL_SEED sets the random seed (printed). */
#include "plan.h"

#include "hcl_testsupport.h"
#include "hcl_testsupport_cl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hcl_ts_cl g_cl;
static cl_kernel g_kernels[HCL_ZE_HELPER_COUNT][HCL_ZE_HELPER_MAX_KERNELS];
static hcl__ze_kernel_limits g_klimits[HCL_ZE_HELPER_COUNT];
static int g_checks;
static uint64_t g_rng; /* hcl_ts_splitmix64 state */
static long g_runs[HCL_ZE_HELPER_COUNT][HCL_ZE_HELPER_MAX_KERNELS];

#define fail(...) hcl_ts_cl_fail(&g_cl, __VA_ARGS__)

/* ---------------------------------------------------------------------------------------------------------
 * The plan executor: what helpers.c does with Level Zero, done with OpenCL
 * ------------------------------------------------------------------------------------------------------- */
static bool run_fill(const hcl__ze_fill_plan *p, cl_mem dst, const char *what) {
    const hcl_ts_cl_arg args[] = {
        {true, dst, p->offset, NULL, 0},
        {false, NULL, 0, &p->count, sizeof p->count},
        {false, NULL, 0, p->pattern, 64},
        {false, NULL, 0, p->pattern + 64, 64},
        {false, NULL, 0, &p->period, sizeof p->period},
    };
    const uint32_t groups[3] = {p->groups, 1, 1}, group_size[3] = {p->group_size, 1, 1};
    return hcl_ts_cl_launch(&g_cl, g_kernels[HCL_ZE_HELPER_FILL][p->kernel],
                            hcl__ze_helpers[HCL_ZE_HELPER_FILL].kernels[p->kernel], groups, group_size, 0,
                            (uint32_t)(sizeof args / sizeof args[0]), args, what);
}

/* ---------------------------------------------------------------------------------------------------------
 * Profiles: device limits the plans are made for
 * ------------------------------------------------------------------------------------------------------- */
typedef struct {
    const char *name;
    hcl__ze_limits lim;
} profile;

static profile g_profiles[4];
static int g_nprofiles;

/* ---------------------------------------------------------------------------------------------------------
 * fill (fill.cl): exact bytes inside, untouched bytes outside
 * ------------------------------------------------------------------------------------------------------- */
static void check_fill(const profile *pr, size_t pattern_size, size_t offset, size_t size) {
    char what[160], why[512];
    snprintf(what, sizeof what, "[%s] fill pattern %zu B, offset %zu, size %zu", pr->name, pattern_size, offset, size);
    unsigned char pattern[128];
    for (size_t i = 0; i < sizeof pattern; i++) pattern[i] = (unsigned char)(hcl_ts_rand_unit(&g_rng) * 256);
    hcl__ze_kernel_limits kl = g_klimits[HCL_ZE_HELPER_FILL];
    hcl__ze_fill_plan plan;
    if (hcl__ze_plan_fill(&pr->lim, &kl, offset, size, pattern, pattern_size, &plan, why, sizeof why) != HCL_SUCCESS) {
        fail("%s: no plan: %s", what, why);
        return;
    }
    size_t total = offset + size + 256;
    unsigned char *buf = hcl_ts_alloc(total), *want = hcl_ts_alloc(total);
    for (size_t i = 0; i < total; i++) buf[i] = want[i] = (unsigned char)(0xa5 ^ i);
    for (size_t i = 0; i < size; i++) want[offset + i] = pattern[i % pattern_size];
    cl_mem m = hcl_ts_cl_buffer(&g_cl, total);
    if (m && hcl_ts_cl_write(&g_cl, m, buf, total)) {
        if (run_fill(&plan, m, what) && hcl_ts_cl_read(&g_cl, m, buf, total)) {
            size_t bad = 0;
            for (size_t i = 0; i < total; i++)
                if (buf[i] != want[i] && bad++ < 3)
                    printf("     %s: byte %zu is 0x%02x, expected 0x%02x (%s)\n", what, i, buf[i], want[i],
                           i >= offset && i < offset + size ? "inside" : "outside the fill");
            g_checks++;
            if (bad) fail("%s: %zu of %zu bytes wrong", what, bad, total);
            g_runs[HCL_ZE_HELPER_FILL][plan.kernel]++;
        }
    }
    if (m) clReleaseMemObject(m);
    free(buf), free(want);
}

/* ---------------------------------------------------------------------------------------------------------
 * Setup: every helper program through llvm-spirv -r, on PoCL
 * ------------------------------------------------------------------------------------------------------- */
static bool load_helper(int hi, const char *llvm_spirv, const char *dir) {
    const hcl__ze_helper_def *def = &hcl__ze_helpers[hi];
    uint32_t n = 0;
    while (n < HCL_ZE_HELPER_MAX_KERNELS && def->kernels[n]) n++;
    return hcl_ts_cl_load_spirv(&g_cl, llvm_spirv, dir, def->name, def->origin, def->spirv, *def->spirv_size,
                                def->kernels, n, g_kernels[hi], g_klimits[hi].max_group_size);
}

int main(int argc, char **argv) {
    int rc = hcl_ts_cl_start(&g_cl, argc, argv, "levelzero-fill-roundtrip", &g_rng);
    if (rc != 0) return rc;
    int loaded = 1;
    for (int h = 0; h < HCL_ZE_HELPER_COUNT; h++) loaded &= load_helper(h, argv[1], argv[2]);
    if (!loaded) {
        hcl_ts_cl_close(&g_cl);
        printf("FAIL: not every helper program went through the round trip\n");
        return 1;
    }

    const size_t align = g_cl.align;
    g_profiles[g_nprofiles++] =
        (profile){"pocl-cpu", {1, g_cl.max_group_size, g_cl.local_mem, {0, 0, 0}, g_cl.compute_units}};
    g_profiles[g_nprofiles++] = (profile){"gpu", {0, 1024, 65536, {0, 0, 0}, 64}};
    g_profiles[g_nprofiles++] = (profile){"gpu-grid-3", {0, 256, 65536, {3, 3, 3}, 64}};
    g_profiles[g_nprofiles++] = (profile){"gpu-small", {0, 64, 12288, {0, 0, 0}, 4}};

    for (int p = 0; p < g_nprofiles; p++) {
        const profile *pr = &g_profiles[p];
        int failures_before = g_cl.failures, checks_before = g_checks;
        for (size_t ps = 1; ps <= 128; ps *= 2) {
            check_fill(pr, ps, 0, ps);
            check_fill(pr, ps, align, ps * 37);
            check_fill(pr, ps, 3 * align, ps * 3001);
        }
        printf("%s profile %-10s (group <= %llu, group count <= %u): %d checks, %d failed\n",
               g_cl.failures == failures_before ? "ok  " : "FAIL", pr->name, (unsigned long long)pr->lim.max_group_size,
               pr->lim.max_group_count[0], g_checks - checks_before, g_cl.failures - failures_before);
    }

    printf("\nper kernel (every helper program, run from its SPIR-V on PoCL): runs\n");
    for (int h = 0; h < HCL_ZE_HELPER_COUNT; h++)
        for (int k = 0; k < HCL_ZE_HELPER_MAX_KERNELS && hcl__ze_helpers[h].kernels[k]; k++) {
            printf("  %-8s %-24s %5ld runs\n", hcl__ze_helpers[h].name, hcl__ze_helpers[h].kernels[k], g_runs[h][k]);
            if (g_runs[h][k] == 0)
                fail("kernel '%s' of %s was never run", hcl__ze_helpers[h].kernels[k], hcl__ze_helpers[h].name);
        }
    hcl_ts_cl_close(&g_cl);
    printf("%s: %d checks, %d failures\n", g_cl.failures ? "FAIL" : "PASS", g_checks, g_cl.failures);
    return g_cl.failures ? 1 : 0;
}
