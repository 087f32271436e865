/* ctest kernels-gemm-xmx-emulated: the XMX gemm (kernels/gemm/gemm_xmx.cl) run on PoCL with the extension's built-ins
 * emulated, through the core's launch plans.
 *
 * No Intel GPU is here, and PoCL has neither cl_intel_subgroup_matrix_multiply_accumulate nor sub-groups. So the
 * catalogue's text of the two XMX programs (sub-groups of 8 and of 16: the very bytes and options libhcl hands the
 * OpenCL driver) is built on PoCL with one more define, HCL_XMX_EMULATE, which defines
 * intel_sub_group_{f16,bf16}_*_matrix_mad_k16 in plain OpenCL C from the extension's text (the sub-group exchange
 * through local memory). Each program is then run with the plan the core makes for a device that reports XMX with
 * that sub-group size (kernels/gemm/plan_cl.c), and every result is compared with a float64 reference under the
 * conformance suite's typed gemm rule (hcl_ts_ref_gemm_typed); outputs, and the ldc padding, are poisoned first. The
 * shapes: 1, primes, the tile sizes (64 rows, 4 x SG columns, 32 k per step) and one either side, all four
 * transposes, alpha and beta (beta 0 over a C of NaN: C not read; k 0 and alpha 0: C = beta C), C in the input type
 * and in f32.
 *
 * What this proves: the kernel's data layout (which lane holds which elements of A, B and the accumulator) and its
 * logic (staging, transposes, edges, BLAS rules) are right against OUR READING of the extension, as the emulation
 * encodes it. What it does not: that Intel hardware or its compiler agrees with that reading, or how fast it is; no
 * XMX device ran it.
 *
 * Usage: hcl-kernels-test-gemm-xmx. Exits 77 (skipped) without a PoCL device. HCL_SEED sets the seed (printed). */
#define _POSIX_C_SOURCE 200809L
#include "hcl_host_kernels.h"
#include "hcl_plan.h"
#include "test_plan_devices.h"
#include "test_typed_data.h"

#include "hcl_testsupport.h"
#include "hcl_testsupport_cl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hcl_ts_cl g_cl;
static cl_kernel g_kernels[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS];
static uint64_t g_kmax[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS];
static long g_runs[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS];
static double g_worst[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS]; /* largest error / tolerance */
static int g_checks;
static uint64_t g_rng;

#define fail(...) hcl_ts_cl_fail(&g_cl, __VA_ARGS__)
static uint64_t kernel_max_group(const hcl_kdevice *dev, hcl_kprog prog, int kernel) {
    (void)dev;
    return prog >= 0 && prog < HCL_KPROG_COUNT && kernel >= 0 && kernel < HCL_KPROG_MAX_KERNELS ? g_kmax[prog][kernel]
                                                                                                : 0;
}

/* A GPU that reports XMX with sub-groups of `sg` (as drivers/opencl/driver.c does for such a device). */
static hcl_kdevice xmx_device(uint32_t sg) {
    hcl_kdevice d = hcl_test_cl_subgroup_gpu(1, sg, 32);
    d.kernel_max_group = kernel_max_group;
    return d;
}

enum c_init { C_RANDOM, C_NAN };

static void check(const hcl_kdevice *dev, hcl_kprog want, hcl_dtype abt, hcl_dtype ct, int ta, int tb, size_t m,
                  size_t n, size_t k, float alpha, float beta, enum c_init cinit, size_t pad) {
    char what[240];
    snprintf(what, sizeof what, "[sg %u] gemm %s -> %s %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g%s pad=%zu",
             dev->subgroup_width, hcl_kdtype_name(abt), hcl_kdtype_name(ct), ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k,
             alpha, beta, cinit == C_NAN ? " C=NaN" : "", pad);
    const hcl_kgemm g = hcl_test_gemm_run(abt, ct, ta, tb, m, n, k, alpha, beta, pad);
    hcl_kplan plan;
    if (hcl_plan_gemm(dev, &g, &plan) != HCL_SUCCESS) {
        fail("%s: no plan: %s", what, plan.why);
        hcl_kplan_free(&plan);
        return;
    }
    const hcl_klaunch *l = &plan.launch[0];
    if (plan.count != 1 || l->prog != want || !g_kernels[l->prog][l->kernel]) {
        fail("%s: planned %zu launch(es) of program %s, not one of %s", what, plan.count,
             hcl_kprogram_get(l->prog)->name, hcl_kprogram_get(want)->name);
        hcl_kplan_free(&plan);
        return;
    }
    hcl_test_gemm_data d;
    if (hcl_test_gemm_data_init(&d, &g, &g_rng, cinit == C_NAN, &g_cl)) {
        hcl_ts_cl_arg args[HCL_KLAUNCH_MAX_ARGS];
        const cl_mem slots[HCL_KSLOT_COUNT] = {d.ma, d.mb, d.mc, NULL};
        for (uint32_t i = 0; i < l->num_args; i++) {
            const hcl_kparg *p = &l->args[i];
            args[i] = p->kind == HCL_KPARG_MEM ? (hcl_ts_cl_arg){true, slots[p->slot], p->offset, NULL, 0}
                                               : (hcl_ts_cl_arg){false, NULL, 0, p->value, p->size};
        }
        const uint32_t grid[3] = {l->grid.x, l->grid.y, l->grid.z}, block[3] = {l->block.x, l->block.y, l->block.z};
        const char *kname = hcl_kprogram_get(l->prog)->kernels[l->kernel];
        if (hcl_ts_cl_launch(&g_cl, g_kernels[l->prog][l->kernel], kname, grid, block, l->shared_bytes, l->num_args,
                             args, what) &&
            hcl_test_gemm_data_read(&d, &g, &g_cl)) {
            hcl_ts_ref_gemm_typed(ct, HCL_COMPUTE_F32, g.trans_a, g.trans_b, m, n, k, alpha, d.a, g.lda, d.b, g.ldb,
                                  beta, d.c0, g.ldc, d.ref, d.tol);
            hcl_ts_cmp cmp;
            hcl_ts_cmp_init(&cmp);
            char text[1200];
            g_checks++;
            if (!hcl_ts_compare(&cmp, d.got, d.ref, d.tol, 1.0, m * n))
                fail("%s (%s): %s", what, kname, hcl_ts_cmp_text(&cmp, text, sizeof text));
            g_runs[l->prog][l->kernel]++;
            g_worst[l->prog][l->kernel] = fmax(g_worst[l->prog][l->kernel], cmp.max_rel);
            hcl_test_gemm_data_check_padding(&d, &g, &g_cl, what);
        }
    }
    hcl_test_gemm_data_free(&d);
    hcl_kplan_free(&plan);
}

/* The catalogue's OpenCL C text of `prog`, built on PoCL with its own options and HCL_XMX_EMULATE. */
static int load(hcl_kprog prog) {
    const hcl_kprogram *def = hcl_kprogram_get(prog);
    const hcl_module_source *src = NULL;
    for (uint32_t i = 0; i < def->num_sources && !src; i++)
        if (def->sources[i].kind == HCL_SOURCE_OPENCL_C) src = &def->sources[i];
    if (!src) {
        fail("%s: no OpenCL C text in the catalogue", def->name);
        return 0;
    }
    char options[512];
    snprintf(options, sizeof options, "%s -DHCL_XMX_EMULATE", src->options ? src->options : "");
    return hcl_ts_cl_load_source(&g_cl, def->name, def->origin, src->data, src->size, options, def->kernels,
                                 def->num_kernels, g_kernels[prog], g_kmax[prog]);
}

int main(void) {
    int rc = hcl_ts_cl_open(&g_cl, "kernels-gemm-xmx-emulated", "the emulated XMX gemm", &g_rng);
    if (rc != 0) return rc;
    printf(
        "NOTE: the matrix_mad built-ins are EMULATED from our reading of cl_intel_subgroup_matrix_multiply_accumulate"
        " (HCL_XMX_EMULATE); this checks the kernel's layout and logic, not Intel hardware.\n");
    static const hcl_kprog progs[] = {HCL_KPROG_CL_GEMM_XMX8, HCL_KPROG_CL_GEMM_XMX16};
    static const uint32_t sgs[] = {8, 16};
    int loaded = 1;
    for (int p = 0; p < 2; p++) loaded &= load(progs[p]);
    if (!loaded) {
        hcl_ts_cl_close(&g_cl);
        printf("FAIL: the XMX programs did not build on PoCL with the emulation\n");
        return 1;
    }
    static const hcl_dtype types[][2] = {{HCL_DTYPE_F16, HCL_DTYPE_F16},
                                         {HCL_DTYPE_F16, HCL_DTYPE_F32},
                                         {HCL_DTYPE_BF16, HCL_DTYPE_BF16},
                                         {HCL_DTYPE_BF16, HCL_DTYPE_F32}};
    /* 1, primes, the tile (64 x 4*SG, k steps of 32 and calls of 16) and either side of it, several tiles */
    static const size_t shapes[][3] = {{1, 1, 1},      {1, 7, 3},     {7, 1, 5},    {17, 19, 23},
                                       {64, 32, 32},   {64, 64, 16},  {63, 33, 31}, {65, 65, 33},
                                       {128, 129, 47}, {130, 67, 70}, {3, 5, 97}};
    for (int p = 0; p < 2; p++) {
        const hcl_kdevice dev = xmx_device(sgs[p]);
        const int failures_before = g_cl.failures, checks_before = g_checks;
        for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
            const hcl_dtype abt = types[t][0], ct = types[t][1];
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++) {
                    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
                        check(&dev, progs[p], abt, ct, ta, tb, shapes[i][0], shapes[i][1], shapes[i][2], 1.5f, 0.5f,
                              C_RANDOM, i % 3);
                    check(&dev, progs[p], abt, ct, ta, tb, 33, 31, 29, 1.0f, 0.0f, C_NAN, 2);   /* beta 0: C not read */
                    check(&dev, progs[p], abt, ct, ta, tb, 9, 10, 0, 1.0f, 2.0f, C_RANDOM, 1);  /* k 0: C = beta C */
                    check(&dev, progs[p], abt, ct, ta, tb, 9, 10, 11, 0.0f, 0.5f, C_RANDOM, 0); /* alpha 0 */
                    check(&dev, progs[p], abt, ct, ta, tb, 70, 40, 45, -0.75f, -1.25f, C_RANDOM, 1);
                }
        }
        printf("%s %-14s (sub-groups of %u): %d checks, %d failed\n",
               g_cl.failures == failures_before ? "ok  " : "FAIL", hcl_kprogram_get(progs[p])->name, sgs[p],
               g_checks - checks_before, g_cl.failures - failures_before);
    }
    printf("\nper kernel (emulated built-ins on PoCL): runs, largest error as a fraction of the tolerance\n");
    for (int p = 0; p < 2; p++) {
        const hcl_kprogram *def = hcl_kprogram_get(progs[p]);
        for (uint32_t k = 0; k < def->num_kernels; k++) {
            printf("  %-14s %-22s %4ld runs   err/tol %.3f\n", def->name, def->kernels[k], g_runs[progs[p]][k],
                   g_worst[progs[p]][k]);
            if (g_runs[progs[p]][k] == 0) fail("kernel '%s' of %s was never run", def->kernels[k], def->name);
        }
    }
    hcl_ts_cl_close(&g_cl);
    printf("%s: %d checks, %d failures (emulated built-ins: not a run on Intel hardware)\n",
           g_cl.failures ? "FAIL" : "PASS", g_checks, g_cl.failures);
    return g_cl.failures ? 1 : 0;
}
