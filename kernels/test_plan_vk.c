/* ctest kernels-plan-vk: the Vulkan family's plans (plan_vk.c) without a device: each op's kernels and programs by type
 * (f32 in vk, f16 and bf16 in vk16, reduce's fold in vk), the arguments in the order the shaders' bindings and
 * push constants take them, gemm's dot kernel for few rows, its k slices on a CPU device only (lavapipe's loop limiter),
 * and calls past the kernels' 32-bit indices refused, never cut. */
#include "hcl_plan.h"
#include "hcl_testsupport.h"

#include <stdio.h>
#include <string.h>

static hcl_kdevice vk_device(int cpu) {
    hcl_kdevice d;
    memset(&d, 0, sizeof d);
    d.family = HCL_KFAMILY_VK;
    d.is_cpu = cpu;
    d.compute_units = cpu ? 2 : 132;
    d.max_group_size = 1024;
    d.local_mem = cpu ? 32768 : 49152;
    d.max_groups[0] = d.max_groups[1] = d.max_groups[2] = 65535;
    return d;
}

static const char *kernel_name(const hcl_klaunch *l) { return hcl_kprogram_get(l->prog)->kernels[l->kernel]; }

static hcl_kgemm gemm_shape(size_t m, size_t n, size_t k, hcl_dtype t) {
    hcl_kgemm g = {HCL_NO_TRANS, HCL_NO_TRANS, m, n, k, 1.0f, 0.5f, k, n, n, t, t, HCL_COMPUTE_F32};
    return g;
}

int main(void) {
    const hcl_kdevice gpu = vk_device(0), cpu = vk_device(1);
    hcl_kplan p;
    HCL_TS_CHECK(hcl_plan_program(&gpu, HCL_KOP_GEMM) == HCL_KPROG_VK, "the family's first program is vk");

    HCL_TS_CHECK(hcl_plan_vecadd(&gpu, HCL_DTYPE_BF16, 1000, &p) == HCL_SUCCESS, "vecadd bf16: %s", p.why);
    HCL_TS_CHECK(p.count == 1 && p.launch[0].prog == HCL_KPROG_VK16 &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_vecadd_bf16"),
                 "vecadd bf16 runs hcl_vecadd_bf16 of vk16");
    HCL_TS_CHECK(p.launch[0].num_args == 4 && p.launch[0].args[3].size == 4, "vecadd: a, b, c, then n as 32 bits");
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_vecadd(&gpu, HCL_DTYPE_F32, (size_t)1 << 33, &p) == HCL_ERROR_UNSUPPORTED &&
                     strstr(p.why, "2^32"),
                 "vecadd past 2^32 elements refused (%s)", p.why);
    hcl_kplan_free(&p);

    HCL_TS_CHECK(hcl_plan_reduce(&gpu, HCL_DTYPE_F16, HCL_REDUCE_MAX, 1000003, &p) == HCL_SUCCESS, "reduce: %s", p.why);
    HCL_TS_CHECK(p.count == 2 && !strcmp(kernel_name(&p.launch[0]), "hcl_reduce_max_f16") &&
                     p.launch[1].prog == HCL_KPROG_VK && !strcmp(kernel_name(&p.launch[1]), "hcl_reduce_max_final") &&
                     p.launch[1].grid.x == 1,
                 "reduce: the f16 partials, then one group folds them in f32");
    HCL_TS_CHECK(p.scratch_bytes == p.launch[0].grid.x * sizeof(float), "reduce: one float of scratch a partial");
    hcl_kplan_free(&p);

    HCL_TS_CHECK(hcl_plan_softmax(&gpu, HCL_DTYPE_F32, 100000, 7, &p) == HCL_SUCCESS, "softmax: %s", p.why);
    HCL_TS_CHECK(p.launch[0].grid.x == 65535 && p.launch[0].block.x == 32,
                 "softmax: rows strided over 65535 groups of 32");
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_softmax(&gpu, HCL_DTYPE_F32, 70000, 70000, &p) == HCL_ERROR_UNSUPPORTED,
                 "softmax past 2^32 elements refused");
    hcl_kplan_free(&p);

    hcl_kgemm g = gemm_shape(1024, 1024, 1024, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(&gpu, &g, &p) == HCL_SUCCESS, "gemm: %s", p.why);
    HCL_TS_CHECK(p.count == 1 && !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_f32") && p.launch[0].grid.x == 16 &&
                     p.launch[0].grid.y == 16 && p.launch[0].block.x == 16 && p.launch[0].block.y == 16,
                 "gemm 1024^3: 16 x 16 groups of the tiled kernel");
    HCL_TS_CHECK(p.launch[0].num_args == 12, "gemm: A, B, C and nine push constants (%u)", p.launch[0].num_args);
    hcl_kplan_free(&p);
    g = gemm_shape(8, 4096, 1024, HCL_DTYPE_BF16);
    g.c_type = HCL_DTYPE_F32;
    HCL_TS_CHECK(hcl_plan_gemm(&gpu, &g, &p) == HCL_SUCCESS &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_dot_bf16_f32"),
                 "gemm of 8 rows: the dot kernel, C in f32");
    hcl_kplan_free(&p);
    g = gemm_shape(64, 64, 100000, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(&gpu, &g, &p) == HCL_SUCCESS && p.count == 1, "a GPU: k in one launch");
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_gemm(&cpu, &g, &p) == HCL_SUCCESS && p.count == 4, "a CPU: k = 100000 in 4 slices (%zu)",
                 p.count);
    if (p.count == 4) {
        uint32_t flags, k1;
        float beta;
        memcpy(&flags, p.launch[2].args[9].value, 4);
        memcpy(&k1, p.launch[2].args[5].value, 4);
        memcpy(&beta, p.launch[2].args[11].value, 4);
        HCL_TS_CHECK(flags >> 2 == 65536 && k1 == 98304 && beta == 1.0f, "slice 2: k 65536..98304, beta 1 (%u %u %g)",
                     flags >> 2, k1, beta);
        memcpy(&beta, p.launch[0].args[11].value, 4);
        HCL_TS_CHECK(beta == 0.5f, "slice 0 keeps the call's beta");
    }
    hcl_kplan_free(&p);
    g = gemm_shape(64, 64, 64, HCL_DTYPE_F32);
    g.compute = HCL_COMPUTE_TF32;
    HCL_TS_CHECK(hcl_plan_gemm(&gpu, &g, &p) == HCL_ERROR_UNSUPPORTED, "TF32 refused");
    hcl_kplan_free(&p);
    const int failures = hcl_ts_failures();
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
