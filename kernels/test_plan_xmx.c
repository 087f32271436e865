/* kernels-plan-xmx: the CL family's gemm plan on OpenCL devices with and without Intel's matrix unit, checked without a
 * device. drivers/opencl/driver.c reports matrix_unit XMX for a device whose extension string has
 * cl_intel_subgroup_matrix_multiply_accumulate, and the core (kernels/plan_types.c) gives it matrix_types f16 | bf16
 * where its smallest sub-group is 8 or 16; for such a
 * device the plan (kernels/gemm/plan_cl.c) runs f16 and bf16 on the XMX programs (kernels/gemm/gemm_xmx.cl) of its
 * sub-group size, and for every other device and type it plans exactly what it planned before: gemm.cl's programs.
 * Also: the catalogue marks only the XMX programs as needing the extension, and gives them OpenCL C only.
 * Exit status: 0 when every check passed, 1 otherwise (each failure printed). */
#include "hcl_testsupport.h"
#include "hcl_plan.h"
#include "test_plan_devices.h"

#include <stdio.h>
#include <string.h>

static uint64_t g_kernel_max = 0; /* what kernel_max_group answers (0: unknown) */
static uint64_t kernel_max_group(const hcl_kdevice *dev, hcl_kprog prog, int kernel) {
    (void)dev, (void)prog, (void)kernel;
    return g_kernel_max;
}

/* An OpenCL GPU: Intel's with XMX at sub-groups of `sg` when xmx, else one with no matrix unit. */
static hcl_kdevice cl_gpu(int xmx, uint32_t sg) {
    hcl_kdevice d = hcl_test_cl_subgroup_gpu(xmx, sg, 512);
    d.kernel_max_group = kernel_max_group;
    return d;
}

/* C = A B + 0.5 C of m x n x k, no padding (test_plan_devices.h). */
static hcl_kgemm shape(hcl_dtype ab, hcl_dtype c, int ta, int tb, size_t m, size_t n, size_t k) {
    hcl_kgemm g = hcl_test_gemm(ab, c, HCL_COMPUTE_F32, ta, tb, m, n, k, 0);
    g.beta = 0.5f;
    return g;
}

/* The plan of g on d: one launch of `kernel` in program `prog` over gx x gy groups of bx x by work-items. */
static void expect(const char *what, const hcl_kdevice *d, const hcl_kgemm *g, hcl_kprog prog, const char *kernel,
                   uint32_t gx, uint32_t gy, uint32_t bx, uint32_t by) {
    hcl_kplan p;
    hcl_status st = hcl_plan_gemm(d, g, &p);
    HCL_TS_CHECK(st == HCL_SUCCESS, "%s: status %d (%s)", what, (int)st, p.why);
    if (st == HCL_SUCCESS) {
        const hcl_klaunch *l = &p.launch[0];
        HCL_TS_CHECK(p.count == 1, "%s: %zu launches", what, p.count);
        HCL_TS_CHECK(l->prog == prog, "%s: program %s, expected %s", what, hcl_kprogram_get(l->prog)->name,
                     hcl_kprogram_get(prog)->name);
        HCL_TS_CHECK(strcmp(hcl_test_kernel_name(l), kernel) == 0, "%s: kernel %s, expected %s", what,
                     hcl_test_kernel_name(l), kernel);
        HCL_TS_CHECK(l->grid.x == gx && l->grid.y == gy && l->grid.z == 1,
                     "%s: grid %u x %u x %u, expected %u x %u x 1", what, l->grid.x, l->grid.y, l->grid.z, gx, gy);
        HCL_TS_CHECK(l->block.x == bx && l->block.y == by && l->block.z == 1,
                     "%s: block %u x %u x %u, expected %u x %u x 1", what, l->block.x, l->block.y, l->block.z, bx, by);
        HCL_TS_CHECK(l->shared_bytes == 0 && p.scratch_bytes == 0,
                     "%s: %zu bytes of dynamic local memory, %zu of scratch", what, l->shared_bytes, p.scratch_bytes);
        HCL_TS_CHECK(l->num_args == 11, "%s: %u arguments", what, l->num_args);
        printf("ok   %-58s %-14s %-20s %u x %u groups of %u x %u\n", what, hcl_kprogram_get(l->prog)->name,
               hcl_test_kernel_name(l), l->grid.x, l->grid.y, l->block.x, l->block.y);
    }
    hcl_kplan_free(&p);
}

/* g on d with gemm variant v forced: refused, naming the variable and the variant, with `needle` in the why. */
static void refused(const char *what, hcl_kdevice d, hcl_kvariant v, const hcl_kgemm *g, const char *needle) {
    hcl_kplan p;
    d.variant[HCL_KOP_GEMM] = v;
    const hcl_status st = hcl_plan_gemm(&d, g, &p);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "HCL_GEMM_VARIANT=%s cannot run this call", hcl_kvariant_get(v)->name);
    HCL_TS_CHECK(st == HCL_ERROR_UNSUPPORTED && strstr(p.why, prefix) && strstr(p.why, needle),
                 "%s: status %d, why '%s'", what, (int)st, p.why);
    hcl_kplan_free(&p);
}

int main(void) {
    /* the catalogue: the XMX programs need the extension, are CL, carry OpenCL C (with their sub-group size) only */
    for (int p = 0; p < HCL_KPROG_COUNT; p++) {
        const hcl_kprogram *def = hcl_kprogram_get((hcl_kprog)p);
        const int xmx = p == HCL_KPROG_CL_GEMM_XMX8 || p == HCL_KPROG_CL_GEMM_XMX16;
        HCL_TS_CHECK(xmx == (def->device_extension != NULL), "program %s: device_extension '%s'", def->name,
                     def->device_extension ? def->device_extension : "(none)");
        if (!xmx) continue;
        HCL_TS_CHECK(strcmp(def->device_extension, "cl_intel_subgroup_matrix_multiply_accumulate") == 0,
                     "program %s needs '%s'", def->name, def->device_extension);
        HCL_TS_CHECK(def->family == HCL_KFAMILY_CL && def->num_kernels == 16, "program %s: family %d, %u kernels",
                     def->name, (int)def->family, def->num_kernels);
        const char *want = p == HCL_KPROG_CL_GEMM_XMX8 ? "-DHCL_XMX_SG=8" : "-DHCL_XMX_SG=16";
        HCL_TS_CHECK(def->num_sources == 1 && def->sources[0].kind == HCL_SOURCE_OPENCL_C && def->sources[0].options &&
                         strstr(def->sources[0].options, want) && !strstr(def->sources[0].options, "HCL_XMX_EMULATE"),
                     "program %s: %u sources, the first of kind %d with options '%s'", def->name, def->num_sources,
                     def->num_sources ? (int)def->sources[0].kind : -1,
                     def->num_sources && def->sources[0].options ? def->sources[0].options : "");
        for (uint32_t k = 0; k < def->num_kernels; k++)
            HCL_TS_CHECK(hcl_kprogram_kernel(HCL_KPROG_CL_GEMM16, def->kernels[k]) >= 0,
                         "program %s: kernel %s is not named as gemm.cl's", def->name, def->kernels[k]);
    }

    /* XMX, sub-groups of 8 (DG2): SG x 4 work-items per 64 x 32 tile of C */
    const hcl_kdevice dg2 = cl_gpu(1, 8), pvc = cl_gpu(1, 16);
    hcl_kgemm g = shape(HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 1000, 1000, 1000);
    expect("xmx sg 8: f16 nn 1000^3", &dg2, &g, HCL_KPROG_CL_GEMM_XMX8, "hcl_gemm_nn_f16", 32, 16, 8, 4);
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F32, 0, 1, 65, 33, 7);
    expect("xmx sg 8: f16 -> f32 nt 65 x 33 x 7", &dg2, &g, HCL_KPROG_CL_GEMM_XMX8, "hcl_gemm_nt_f16_f32", 2, 2, 8, 4);
    g = shape(HCL_DTYPE_BF16, HCL_DTYPE_BF16, 1, 0, 1, 1, 1);
    expect("xmx sg 8: bf16 tn 1 x 1 x 1", &dg2, &g, HCL_KPROG_CL_GEMM_XMX8, "hcl_gemm_tn_bf16", 1, 1, 8, 4);
    g = shape(HCL_DTYPE_BF16, HCL_DTYPE_F32, 1, 1, 128, 64, 0);
    expect("xmx sg 8: bf16 -> f32 tt k 0", &dg2, &g, HCL_KPROG_CL_GEMM_XMX8, "hcl_gemm_tt_bf16_f32", 2, 2, 8, 4);
    /* sub-groups of 16 (Ponte Vecchio, Xe2): 64 x 64 tiles */
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 1000, 1000, 1000);
    expect("xmx sg 16: f16 nn 1000^3", &pvc, &g, HCL_KPROG_CL_GEMM_XMX16, "hcl_gemm_nn_f16", 16, 16, 16, 4);
    g = shape(HCL_DTYPE_BF16, HCL_DTYPE_F32, 1, 0, 129, 65, 3);
    expect("xmx sg 16: bf16 -> f32 tn 129 x 65 x 3", &pvc, &g, HCL_KPROG_CL_GEMM_XMX16, "hcl_gemm_tn_bf16_f32", 2, 3,
           16, 4);
    /* f32 stays on gemm.cl on an XMX device */
    g = shape(HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 1000, 1000, 1000);
    expect("xmx sg 8: f32 nn (not for the matrix unit)", &dg2, &g, HCL_KPROG_CL_GEMM16, "hcl_gemm_nn_f32", 8, 8, 16,
           16);

    /* without the extension: what the plan always did (gemm.cl, 16 x 16 on a GPU) */
    const hcl_kdevice plain = cl_gpu(0, 8), plain32 = cl_gpu(0, 32);
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 1000, 1000, 1000);
    expect("no xmx sg 8: f16 nn 1000^3", &plain, &g, HCL_KPROG_CL_GEMM16, "hcl_gemm_nn_f16", 8, 8, 16, 16);
    g = shape(HCL_DTYPE_BF16, HCL_DTYPE_F32, 1, 1, 65, 33, 7);
    expect("no xmx sg 32: bf16 -> f32 tt", &plain32, &g, HCL_KPROG_CL_GEMM16, "hcl_gemm_tt_bf16_f32", 1, 1, 16, 16);
    /* XMX reported, but a sub-group size the extension does not define, or no bf16 among the matrix types: gemm.cl */
    hcl_kdevice odd = cl_gpu(1, 32);
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F32, 0, 0, 100, 100, 100);
    expect("xmx sg 32: f16 -> f32 nn", &odd, &g, HCL_KPROG_CL_GEMM16, "hcl_gemm_nn_f16_f32", 1, 1, 16, 16);
    hcl_kdevice f16only = cl_gpu(1, 8);
    f16only.matrix_types = HCL_TYPE_BIT(HCL_DTYPE_F16);
    g = shape(HCL_DTYPE_BF16, HCL_DTYPE_BF16, 0, 0, 100, 100, 100);
    expect("xmx sg 8, f16 only: bf16 nn", &f16only, &g, HCL_KPROG_CL_GEMM16, "hcl_gemm_nn_bf16", 1, 1, 16, 16);
    /* a CPU device (PoCL): 8 x 8 as before */
    hcl_kdevice cpu = cl_gpu(0, 1);
    cpu.is_cpu = 1;
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 100, 100, 100);
    expect("cpu: f16 nn", &cpu, &g, HCL_KPROG_CL_GEMM8, "hcl_gemm_nn_f16", 2, 2, 8, 8);

    /* the XMX kernel allows fewer work-items than its group has: refused, saying why */
    g_kernel_max = 16;
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 64, 64, 64);
    hcl_kplan p;
    hcl_status st = hcl_plan_gemm(&dg2, &g, &p);
    HCL_TS_CHECK(st == HCL_ERROR_UNSUPPORTED && strstr(p.why, "cl-gemm-xmx8") && strstr(p.why, "32 work-items"),
                 "xmx kernel limited to 16 work-items: status %d, why '%s'", (int)st, p.why);
    hcl_kplan_free(&p);
    g_kernel_max = 0;
    /* HCL_GEMM_VARIANT: xmx forced takes the matrix unit where it can and is refused, naming it, elsewhere; simt and
     * simt8 forced keep an XMX device's f16 on gemm.cl */
    hcl_kdevice forced = dg2;
    forced.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_XMX;
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 1000, 1000, 1000);
    expect("xmx forced, sg 8: f16 nn 1000^3", &forced, &g, HCL_KPROG_CL_GEMM_XMX8, "hcl_gemm_nn_f16", 32, 16, 8, 4);
    g = shape(HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 64, 64, 64);
    refused("xmx forced, f32", dg2, HCL_KVARIANT_GEMM_XMX, &g, "f16 and bf16 inputs");
    g = shape(HCL_DTYPE_BF16, HCL_DTYPE_BF16, 0, 0, 64, 64, 64);
    refused("xmx forced without the extension", plain, HCL_KVARIANT_GEMM_XMX, &g, "no XMX");
    forced.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_SIMT;
    g = shape(HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 1000, 1000, 1000);
    expect("simt forced, sg 8: f16 nn 1000^3", &forced, &g, HCL_KPROG_CL_GEMM16, "hcl_gemm_nn_f16", 8, 8, 16, 16);
    forced.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_SIMT8;
    expect("simt8 forced, sg 8: f16 nn 1000^3", &forced, &g, HCL_KPROG_CL_GEMM8, "hcl_gemm_nn_f16", 16, 16, 8, 8);

    /* TF32 is still refused (the core refuses it first: matrix_types has no TF32) */
    g = shape(HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 64, 64, 64);
    g.compute = HCL_COMPUTE_TF32;
    st = hcl_plan_gemm(&dg2, &g, &p);
    HCL_TS_CHECK(st == HCL_ERROR_UNSUPPORTED, "xmx: TF32 planned (status %d)", (int)st);
    hcl_kplan_free(&p);

    printf("%s: %d failures\n", hcl_ts_failures() ? "FAIL" : "PASS", hcl_ts_failures());
    return hcl_ts_failures() ? 1 : 0;
}
