/* ctest kernels-plan-vk: the Vulkan family's plans (plan_vk.c) without a device: each op's kernels and programs by type
 * (f32 in vk, f16 and bf16 in vk16, reduce's fold in vk), the arguments in the order the shaders' bindings and
 * push constants take them, gemm's dot kernel for few rows, its k slices on a CPU device only (lavapipe's loop limiter),
 * and calls past the kernels' 32-bit indices refused, never cut. */
#include "hcl_plan.h"
#include "hcl_testsupport.h"
#include "test_plan_devices.h"

#include <stdio.h>
#include <string.h>

static const char *kernel_name(const hcl_klaunch *l) { return hcl_kprogram_get(l->prog)->kernels[l->kernel]; }

static hcl_kgemm gemm_shape(size_t m, size_t n, size_t k, hcl_dtype t) {
    hcl_kgemm g = {HCL_NO_TRANS, HCL_NO_TRANS, m, n, k, 1.0f, 0.5f, k, n, n, t, t, HCL_COMPUTE_F32};
    return g;
}

/* The argument `i` of a launch as a 32-bit value. */
static uint32_t arg_u32(const hcl_klaunch *l, uint32_t i) {
    uint32_t v = 0;
    memcpy(&v, l->args[i].value, sizeof v);
    return v;
}

/* softmax on the GPU: the subgroup kernel (lanes a row: about 4 words each) up to 1024 columns, the work-group kernel
 * (enough work-items for 32 values each, 64 to 1024) above; each variant forced takes every row. */
static void softmax_plans(const hcl_kdevice *gpu) {
    static const struct {
        hcl_dtype type;
        size_t rows, cols;
        hcl_kvariant forced;
        const char *kernel;
        uint32_t groups, block, lanes, keep;
    } cases[] = {
        {HCL_DTYPE_F32, 100000, 7, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f32", 391, 256, 1, 1},
        {HCL_DTYPE_F32, 1 << 22, 32, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f32", 32768, 256, 2, 1},
        {HCL_DTYPE_F16, 1 << 19, 256, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f16", 16384, 256, 8, 1},
        {HCL_DTYPE_F32, 1 << 17, 1024, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f32", 16384, 256, 32, 1},
        {HCL_DTYPE_F32, 1000, 1025, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 1000, 64, 1, 1},
        {HCL_DTYPE_BF16, 8192, 16384, HCL_KVARIANT_AUTO, "hcl_softmax_bf16", 8192, 512, 1, 1},
        {HCL_DTYPE_F32, 4096, 32768, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 4096, 1024, 1, 1},
        {HCL_DTYPE_F32, 512, 262144, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 512, 1024, 1, 1},
        {HCL_DTYPE_F32, 512, 262144, HCL_KVARIANT_SOFTMAX_STREAMED, "hcl_softmax_f32", 512, 1024, 1, 0},
        {HCL_DTYPE_F32, 3, 5, HCL_KVARIANT_SOFTMAX_CACHED, "hcl_softmax_f32", 3, 64, 1, 1},
        {HCL_DTYPE_F16, 3, 70000, HCL_KVARIANT_SOFTMAX_SUBGROUP, "hcl_softmax_rows_f16", 1, 256, 32, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcl_kdevice dev = *gpu;
        dev.variant[HCL_KOP_SOFTMAX] = cases[i].forced;
        hcl_kplan p;
        const hcl_status st = hcl_plan_softmax(&dev, cases[i].type, cases[i].rows, cases[i].cols, &p);
        const hcl_klaunch *l = &p.launch[0];
        HCL_TS_CHECK(st == HCL_SUCCESS && !strcmp(kernel_name(l), cases[i].kernel) && l->num_args == 8 &&
                         l->args[2].slot == HCL_KSLOT_A && l->args[3].slot == HCL_KSLOT_C &&
                         l->grid.x == cases[i].groups && l->block.x == cases[i].block &&
                         arg_u32(l, 6) == cases[i].lanes && arg_u32(l, 7) == cases[i].keep,
                     "softmax %zu x %zu (case %zu): %s, %u groups of %u, lanes %u, keep %u (status %d: %s)",
                     cases[i].rows, cases[i].cols, i, st == HCL_SUCCESS ? kernel_name(l) : "-",
                     st == HCL_SUCCESS ? l->grid.x : 0, st == HCL_SUCCESS ? l->block.x : 0,
                     st == HCL_SUCCESS ? arg_u32(l, 6) : 0, st == HCL_SUCCESS ? arg_u32(l, 7) : 0, (int)st, p.why);
        hcl_kplan_free(&p);
    }
}

int main(void) {
    const hcl_kdevice gpu = hcl_test_vk(0), cpu = hcl_test_vk(1);
    hcl_kplan p;
    HCL_TS_CHECK(hcl_plan_program(&gpu, HCL_KOP_GEMM) == HCL_KPROG_VK, "the family's first program is vk");

    HCL_TS_CHECK(hcl_plan_vecadd(&gpu, HCL_DTYPE_BF16, 1000, &p) == HCL_SUCCESS, "vecadd bf16: %s", p.why);
    HCL_TS_CHECK(p.count == 1 && p.launch[0].prog == HCL_KPROG_VK16 &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_vecadd_bf16"),
                 "vecadd bf16 runs hcl_vecadd_bf16 of vk16");
    HCL_TS_CHECK(p.launch[0].num_args == 7 && p.launch[0].args[3].slot == HCL_KSLOT_A &&
                     p.launch[0].args[5].slot == HCL_KSLOT_C && p.launch[0].args[6].size == 4,
                 "vecadd: a, b, c, again as 16-byte words, then n as 32 bits");
    hcl_kplan_free(&p);
    /* a work-item a 16-byte word (8 16-bit elements) a trip, at most 4096 groups; at least one for a tail alone */
    HCL_TS_CHECK(hcl_plan_vecadd(&gpu, HCL_DTYPE_F16, (size_t)1 << 28, &p) == HCL_SUCCESS &&
                     p.launch[0].grid.x == 4096 && p.launch[0].block.x == 256,
                 "vecadd 2^28: 4096 groups of 256");
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_vecadd(&gpu, HCL_DTYPE_F32, 4096 + 3, &p) == HCL_SUCCESS && p.launch[0].grid.x == 4,
                 "vecadd 4099 f32: 1024 words in 4 groups");
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_vecadd(&gpu, HCL_DTYPE_BF16, 7, &p) == HCL_SUCCESS && p.launch[0].grid.x == 1,
                 "vecadd of 7 bf16 (no whole word): one group");
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
    HCL_TS_CHECK(p.launch[0].num_args == 4 && p.launch[0].args[2].slot == HCL_KSLOT_A,
                 "reduce: in, the partials, in again as 16-byte words, then n");
    hcl_kplan_free(&p);
    /* groups that fill the device: 8 of 256 an SM (132 SMs), where n has two words a work-item for them */
    HCL_TS_CHECK(hcl_plan_reduce(&gpu, HCL_DTYPE_F32, HCL_REDUCE_SUM, (size_t)1 << 25, &p) == HCL_SUCCESS &&
                     p.launch[0].grid.x == 1056 && p.launch[0].block.x == 256,
                 "reduce 2^25 on 132 SMs: 1056 groups of 256 (%u)", p.launch[0].grid.x);
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_reduce(&cpu, HCL_DTYPE_F32, HCL_REDUCE_SUM, (size_t)1 << 25, &p) == HCL_SUCCESS &&
                     p.launch[0].grid.x == 16,
                 "reduce 2^25 on 2 cores: 16 groups");
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_reduce(&gpu, HCL_DTYPE_BF16, HCL_REDUCE_MIN, 3, &p) == HCL_SUCCESS && p.launch[0].grid.x == 1,
                 "reduce of 3 elements: one group");
    hcl_kplan_free(&p);

    softmax_plans(&gpu);
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
