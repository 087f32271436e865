/* ctest kernels-plan-vk: the Vulkan family's plans (plan_vk.c) without a device: each op's kernels and programs by type
 * (f32 in vk, f16 and bf16 in vk16, reduce's fold in vk), the arguments in the order the shaders' bindings and
 * push constants take them, gemm's tile by shape and device (the gemv kernel for few rows or columns on a GPU, its
 * kernel, grid, slices and scratch, the dot kernel on a CPU; the vk-coop program for f16 and bf16 on a device with
 * VK_KHR_cooperative_matrix for that type, refused elsewhere; bf16 never on the SIMT 128 x 128 tile unforced; the
 * split-K kernel for a small C with a long k on a GPU, or few rows where gemv does not fit, its slices and scratch),
 * each gemm variant forced, its k slices on a CPU device only (lavapipe's loop limiter), softmax's kernels by row length and
 * device (the parts kernel, several work-groups a row, on a GPU only unless forced), and calls past the kernels'
 * 32-bit indices refused, never cut. */
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

/* softmax on the GPU: the subgroup kernel (lanes a row: about 4 words each, 8 for 16-bit rows, 2 for rows of at most
 * 8 words) up to 256 words (1024 float32 or 2048 16-bit columns), the work-group kernel (enough work-items for 8 words
 * each, 64 to 1024) above, up to 8192 words, and longer rows that are not whole words or whose parts would outnumber
 * the 132 compute units (softmax_parts_plans has the others); each variant forced takes every row. */
static void softmax_plans(const hcl_kdevice *gpu) {
    static const struct {
        hcl_dtype type;
        size_t rows, cols;
        hcl_kvariant forced;
        const char *kernel;
        uint32_t groups, block, lanes, keep;
    } cases[] = {
        {HCL_DTYPE_F32, 100000, 7, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f32", 391, 256, 1, 1},
        /* short rows: at most 64 work-groups a compute unit (the test device has 132; plan_vk.c) */
        {HCL_DTYPE_F32, 1 << 22, 32, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f32", 132 * 64, 256, 4, 1},
        {HCL_DTYPE_F16, 1 << 22, 32, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f16", 132 * 64, 256, 2, 1},
        /* 16-bit rows of 9 to 16 words: 4 words a lane, above them 8 */
        {HCL_DTYPE_F16, 1 << 20, 128, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f16", 16384, 256, 4, 1},
        {HCL_DTYPE_BF16, 1 << 20, 72, HCL_KVARIANT_AUTO, "hcl_softmax_rows_bf16", 16384, 256, 4, 1},
        {HCL_DTYPE_F16, 1 << 19, 256, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f16", 8192, 256, 4, 1},
        {HCL_DTYPE_F32, 1 << 17, 1024, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f32", 16384, 256, 32, 1},
        {HCL_DTYPE_F32, 1000, 1025, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 1000, 64, 1, 1},
        {HCL_DTYPE_F16, 1 << 16, 2048, HCL_KVARIANT_AUTO, "hcl_softmax_rows_f16", 8192, 256, 32, 1},
        {HCL_DTYPE_F16, 1000, 2056, HCL_KVARIANT_AUTO, "hcl_softmax_f16", 1000, 64, 1, 1},
        {HCL_DTYPE_BF16, 8192, 16384, HCL_KVARIANT_AUTO, "hcl_softmax_bf16", 8192, 256, 1, 1},
        {HCL_DTYPE_F32, 4096, 32768, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 4096, 1024, 1, 1},
        {HCL_DTYPE_F32, 1000, 32773, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 1000, 1024, 1, 1},
        {HCL_DTYPE_F32, 1, 4358144, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 1, 1024, 1, 1},
        {HCL_DTYPE_F32, 512, 262144, HCL_KVARIANT_SOFTMAX_CACHED, "hcl_softmax_f32", 512, 1024, 1, 1},
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
        HCL_TS_CHECK(st == HCL_SUCCESS && !strcmp(kernel_name(l), cases[i].kernel) && l->num_args == 6 &&
                         l->args[0].slot == HCL_KSLOT_A && l->args[1].slot == HCL_KSLOT_C &&
                         l->grid.x == cases[i].groups && l->block.x == cases[i].block &&
                         arg_u32(l, 4) == cases[i].lanes && arg_u32(l, 5) == cases[i].keep,
                     "softmax %zu x %zu (case %zu): %s, %u groups of %u, lanes %u, keep %u (status %d: %s)",
                     cases[i].rows, cases[i].cols, i, st == HCL_SUCCESS ? kernel_name(l) : "-",
                     st == HCL_SUCCESS ? l->grid.x : 0, st == HCL_SUCCESS ? l->block.x : 0,
                     st == HCL_SUCCESS ? arg_u32(l, 4) : 0, st == HCL_SUCCESS ? arg_u32(l, 5) : 0, (int)st, p.why);
        hcl_kplan_free(&p);
    }
}

/* gemm's split-K kernel (gemm_splitk.comp): unforced on a GPU of 132 compute units for C of fewer 64 x 64 tiles than
 * a quarter of the units, and of at most 16 rows or columns where the gemv kernel does not fit (here a GPU of 20 KiB
 * of shared memory), where k makes 2 slices of 256 or more (slices for 4 groups a unit); never unforced on a CPU (the
 * dot or 64 x 64 kernel and 32768-k launches, as before); forced anywhere (on a CPU in slices of at most 2048 k);
 * refused where its shared memory is missing. */
static void splitk_plans(const hcl_kdevice *gpu, const hcl_kdevice *cpu) {
    hcl_kdevice small = *gpu; /* shared memory for the split-K kernel, not for the gemv kernel */
    small.local_mem = 20480;
    static const struct {
        size_t m, n, k;
        int dev; /* 0 the GPU, 1 the CPU, 2 the GPU of 20 KiB of shared memory */
        const char *kernel;
        uint32_t gx, gy, gz;
        size_t launches;
    } cases[] = {
        {1, 4096, 4096, 2, "hcl_gemm_splitk_rows_f32", 64, 1, 9, 1},
        {4096, 1, 4096, 2, "hcl_gemm_splitk_cols_f32", 1, 64, 9, 1},
        {7, 4096, 4096, 2, "hcl_gemm_splitk_rows_f32", 64, 1, 9, 1},
        {4096, 7, 4096, 2, "hcl_gemm_splitk_cols_f32", 1, 64, 9, 1},
        {127, 127, 1048573, 0, "hcl_gemm_splitk_tile_f32", 2, 2, 132, 1},
        {61, 67, 262139, 0, "hcl_gemm_splitk_tile_f32", 2, 1, 264, 1},
        {16, 16, 100000, 2, "hcl_gemm_splitk_rows_f32", 1, 1, 391, 1}, /* slices of at least 256 k */
        {127, 4096, 4096, 0, "hcl_gemm_f32", 64, 2, 1, 1},             /* 128 tiles: the SIMT tiles */
        {7, 4096, 256, 2, "hcl_gemm_dot_f32", 256, 1, 1, 1},           /* one slice: the dot kernel */
        {1, 4096, 4096, 1, "hcl_gemm_dot_f32", 256, 1, 1, 1},
        {4096, 7, 4096, 1, "hcl_gemm_dot_f32", 1, 256, 1, 1},
        {127, 127, 1048573, 1, "hcl_gemm_f32", 2, 2, 1, 32},
        {61, 67, 262139, 1, "hcl_gemm_f32", 2, 1, 1, 8},
    };
    hcl_kplan p;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcl_kgemm g = gemm_shape(cases[i].m, cases[i].n, cases[i].k, HCL_DTYPE_F32);
        const hcl_status st = hcl_plan_gemm(cases[i].dev == 1 ? cpu : cases[i].dev == 2 ? &small : gpu, &g, &p);
        const hcl_klaunch *l = &p.launch[0];
        const int sk = cases[i].gz > 1;
        const size_t tile = strstr(cases[i].kernel, "_tile_") ? 64 * 64 : 16 * 64; /* elements of C a tile */
        HCL_TS_CHECK(st == HCL_SUCCESS && p.count == cases[i].launches && !strcmp(kernel_name(l), cases[i].kernel) &&
                         l->grid.x == cases[i].gx && l->grid.y == cases[i].gy && l->grid.z == cases[i].gz &&
                         l->num_args == (sk ? 13u : 12u) && (!sk || l->args[3].slot == HCL_KSLOT_SCRATCH) &&
                         (!sk || (p.scratch_zeroed &&
                                  p.scratch_bytes == (size_t)cases[i].gx * cases[i].gy * (1 + cases[i].gz * tile) * 4)),
                     "gemm %zu x %zu x %zu on a %s: %s over %u x %u x %u, %zu launch(es) (%s: %s over %u x %u x %u, "
                     "%zu, scratch %zu)",
                     cases[i].m, cases[i].n, cases[i].k, cases[i].dev == 1 ? "CPU" : "GPU", cases[i].kernel,
                     cases[i].gx, cases[i].gy, cases[i].gz, cases[i].launches, p.why,
                     st == HCL_SUCCESS ? kernel_name(l) : "-", l->grid.x, l->grid.y, l->grid.z, p.count,
                     p.scratch_bytes);
        hcl_kplan_free(&p);
    }
    /* forced on the CPU: launches of 32768 k (beta 1 after the first), each over slices of at most 2048 k; the
     * scratch holds the first launch's slices */
    hcl_kdevice dev = *cpu;
    dev.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_SPLITK;
    hcl_kgemm g = gemm_shape(3, 100, 100000, HCL_DTYPE_BF16);
    g.c_type = HCL_DTYPE_F32;
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS && p.count == 4 &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_splitk_rows_bf16_f32") &&
                     p.launch[0].prog == HCL_KPROG_VK16 && p.launch[0].grid.x == 2 && p.launch[0].grid.z == 16 &&
                     p.launch[3].grid.z == 1 && p.scratch_bytes == 2 * (1 + 16 * 1024) * 4 && p.scratch_zeroed,
                 "forced vk-splitk on a CPU, 3 x 100 x 100000: 4 launches over 16, .., 1 slices (%s)", p.why);
    hcl_kplan_free(&p);
    /* many tiles: launches of one slice of 2048 k, the scratch its tickets only */
    g = gemm_shape(4096, 4096, 4100, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS && p.count == 3 && p.launch[0].grid.z == 1 &&
                     p.scratch_bytes == 64 * 64 * 4,
                 "forced vk-splitk on a CPU, 4096 x 4096 x 4100: 3 launches of one slice (%zu, %zu bytes)", p.count,
                 p.scratch_bytes);
    hcl_kplan_free(&p);
    /* forced on the GPU: few columns from 16-bit inputs, k 0 (C = beta C: one slice), and where shared memory lacks */
    dev = *gpu;
    dev.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_SPLITK;
    g = gemm_shape(1000, 3, 5000, HCL_DTYPE_F16);
    g.trans_a = g.trans_b = HCL_TRANS;
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_splitk_cols_f16") && p.launch[0].grid.y == 16 &&
                     p.launch[0].grid.z == 20,
                 "forced vk-splitk, 1000 x 3 x 5000 f16 transposed: 16 tiles of 64 x 16 over 20 slices (%s)", p.why);
    hcl_kplan_free(&p);
    g = gemm_shape(5, 5, 0, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS && p.launch[0].grid.z == 1,
                 "forced vk-splitk, k 0: one slice (%s)", p.why);
    hcl_kplan_free(&p);
    dev.local_mem = 8192;
    g = gemm_shape(1, 4096, 4096, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_ERROR_UNSUPPORTED && strstr(p.why, "HCL_GEMM_VARIANT=vk-splitk") &&
                     strstr(p.why, "shared memory"),
                 "forced vk-splitk with 8 KiB of shared memory: refused (%s)", p.why);
    hcl_kplan_free(&p);
    /* a GPU that allows one group in z: no slices, so not unforced (the dot kernel, where gemv does not fit) */
    dev = small;
    dev.max_groups[2] = 1;
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS && !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_dot_f32"),
                 "one group in z: the dot kernel (%s)", p.why);
    hcl_kplan_free(&p);
}

/* gemm's gemv kernel (gemm_gemv.comp): unforced on a GPU for C of at most 8 rows or columns of f32 and 4 of 16-bit
 * types (before the split-K kernel; more forced here), never unforced on a CPU; the kernel by rows (1, 2, 4, 8, 16), B's layout (n: along C's columns, t: along k)
 * and types; a group per range of columns (f32 128, 16-bit 256, 16-bit at 16 rows 128; t 32) and slice of k (grid
 * y): on the GPU's 132 units enough for 4 groups a unit, slices of at least 256 k in multiples of 64, none empty, and
 * one slice (no scratch, C bound again) where the ranges alone fill the device; on a CPU (forced) slices of at most
 * 2048 k; the small operand at binding 0 and the large at 1 (swapped for few columns), the scratch a ticket and the
 * slices' partials a range; the strides the shader takes; refused past 16 rows and columns. */
static void gemv_plans(const hcl_kdevice *gpu, const hcl_kdevice *cpu) {
    static const struct {
        size_t m, n, k;
        hcl_dtype ab, c;
        int ta, tb, cpu;
        const char *kernel;
        uint32_t gx, gy, kslice;
        int swap;
    } cases[] = {
        {1, 4096, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_n1_f32", 32, 16, 256, 0},
        {4, 4096, 4096, HCL_DTYPE_F16, HCL_DTYPE_F16, 0, 0, 0, "hcl_gemm_gemv_n4_f16", 16, 16, 256, 0},
        {16, 14336, 4096, HCL_DTYPE_BF16, HCL_DTYPE_BF16, 0, 0, 0, "hcl_gemm_gemv_n16_bf16", 112, 5, 832, 0},
        {16, 4096, 14336, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_n16_f32", 32, 16, 896, 0},
        {4, 1024, 4096, HCL_DTYPE_BF16, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_n4_bf16_f32", 4, 16, 256, 0},
        {1, 128256, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_n1_f32", 1002, 1, 4096, 0},
        {1, 4096, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 1, 0, "hcl_gemm_gemv_t1_f32", 128, 5, 832, 0},
        {16, 128256, 4096, HCL_DTYPE_F16, HCL_DTYPE_F16, 1, 1, 0, "hcl_gemm_gemv_t16_f16", 4008, 1, 4096, 0},
        {7, 4096, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_n8_f32", 32, 16, 256, 0},
        {4096, 1, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_t1_f32", 128, 5, 832, 1},
        {4096, 7, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_t8_f32", 128, 5, 832, 1},
        {4096, 7, 4096, HCL_DTYPE_BF16, HCL_DTYPE_BF16, 1, 0, 0, "hcl_gemm_gemv_n8_bf16", 16, 16, 256, 1},
        {16, 8, 1000, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_t8_f32", 1, 4, 256, 1},
        {3, 5, 7, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 0, "hcl_gemm_gemv_n4_f32", 1, 1, 7, 0},
        {1, 4096, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, 0, 0, 1, "hcl_gemm_gemv_n1_f32", 32, 2, 2048, 0},
        {3, 100, 100000, HCL_DTYPE_BF16, HCL_DTYPE_F32, 0, 0, 1, "hcl_gemm_gemv_n4_bf16_f32", 1, 49, 2048, 0},
        {1000, 3, 5000, HCL_DTYPE_F16, HCL_DTYPE_F16, 1, 1, 1, "hcl_gemm_gemv_n4_f16", 4, 3, 1728, 1},
    };
    hcl_kplan p;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const int sw = cases[i].swap, ta = cases[i].ta, tb = cases[i].tb;
        const size_t rows = sw ? cases[i].n : cases[i].m;
        hcl_kdevice dev = cases[i].cpu ? *cpu : *gpu;
        const int forced = cases[i].cpu || rows > (cases[i].ab == HCL_DTYPE_F32 ? 8u : 4u);
        dev.variant[HCL_KOP_GEMM] = forced ? HCL_KVARIANT_GEMM_VK_GEMV : HCL_KVARIANT_AUTO;
        hcl_kgemm g = hcl_test_gemm(cases[i].ab, cases[i].c, HCL_COMPUTE_F32, cases[i].ta, cases[i].tb, cases[i].m,
                                    cases[i].n, cases[i].k, 0);
        g.ldc = cases[i].n + 3;
        const hcl_status st = hcl_plan_gemm(&dev, &g, &p);
        const hcl_klaunch *l = &p.launch[0];
        const size_t mr = rows <= 1 ? 1 : rows <= 2 ? 2 : rows <= 4 ? 4 : rows <= 8 ? 8 : 16;
        const size_t gc = strstr(cases[i].kernel, "_t") ? 32 : cases[i].ab == HCL_DTYPE_F32 || mr == 16 ? 128 : 256;
        const size_t scratch = cases[i].gy > 1 ? (size_t)cases[i].gx * (1 + cases[i].gy * mr * gc) * 4 : 0;
        /* X(r, p) at r * x_r + p * x_p, W's leading dimension, out(r, j) at r * c_r + j * c_j */
        const uint32_t x_r = (uint32_t)(sw ? (tb ? g.ldb : 1) : (ta ? 1 : g.lda));
        const uint32_t x_p = (uint32_t)(sw ? (tb ? 1 : g.ldb) : (ta ? g.lda : 1));
        const uint32_t want[9] = {(uint32_t)rows,
                                  (uint32_t)(sw ? cases[i].m : cases[i].n),
                                  (uint32_t)cases[i].k,
                                  cases[i].kslice,
                                  x_r,
                                  x_p,
                                  (uint32_t)(sw ? g.lda : g.ldb),
                                  (uint32_t)(sw ? 1 : g.ldc),
                                  (uint32_t)(sw ? g.ldc : 1)};
        int ok = st == HCL_SUCCESS && p.count == 1 && !strcmp(kernel_name(l), cases[i].kernel) &&
                 l->prog == (cases[i].ab == HCL_DTYPE_F32 ? HCL_KPROG_VK : HCL_KPROG_VK16) &&
                 l->grid.x == cases[i].gx && l->grid.y == cases[i].gy && l->grid.z == 1 && l->block.x == 256 &&
                 l->block.y == 1 && l->num_args == 15 && l->args[0].slot == (sw ? HCL_KSLOT_B : HCL_KSLOT_A) &&
                 l->args[1].slot == (sw ? HCL_KSLOT_A : HCL_KSLOT_B) && l->args[2].slot == HCL_KSLOT_C &&
                 l->args[3].slot == (scratch ? HCL_KSLOT_SCRATCH : HCL_KSLOT_C) && p.scratch_bytes == scratch &&
                 p.scratch_zeroed == (scratch != 0);
        for (uint32_t a = 0; ok && a < 9; a++) ok = arg_u32(l, 4 + a) == want[a];
        HCL_TS_CHECK(ok,
                     "gemv %zu x %zu x %zu %s%s%s on a %s: %s over %u x %u (slices of %u), scratch %zu (status %d: %s, "
                     "%s over %u x %u, scratch %zu)",
                     cases[i].m, cases[i].n, cases[i].k, hcl_kdtype_name(cases[i].ab), ta ? " A^T" : "",
                     tb ? " B^T" : "", cases[i].cpu ? "CPU (forced)" : "GPU", cases[i].kernel, cases[i].gx, cases[i].gy,
                     cases[i].kslice, scratch, (int)st, p.why, st == HCL_SUCCESS ? kernel_name(l) : "-", l->grid.x,
                     l->grid.y, p.scratch_bytes);
        hcl_kplan_free(&p);
    }
    /* not unforced on a CPU; forced: k 0 and alpha 0 read neither A nor B (one slice, k 0), past 16 rows and columns
     * refused with the reason */
    hcl_kgemm g = gemm_shape(1, 4096, 4096, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(cpu, &g, &p) == HCL_SUCCESS && !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_dot_f32"),
                 "1 x 4096 x 4096 on a CPU unforced: the dot kernel, as before (%s)", p.why);
    hcl_kplan_free(&p);
    g = gemm_shape(16, 4096, 4096, HCL_DTYPE_F32); /* 9 rows and more: the split-K kernel unforced */
    HCL_TS_CHECK(hcl_plan_gemm(gpu, &g, &p) == HCL_SUCCESS && strstr(kernel_name(&p.launch[0]), "hcl_gemm_splitk_"),
                 "16 x 4096 x 4096 on a GPU unforced: the split-K kernel (%s: %s)",
                 p.count ? kernel_name(&p.launch[0]) : "-", p.why);
    hcl_kplan_free(&p);
    hcl_kdevice dev = *gpu;
    dev.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_GEMV;
    g.alpha = 0.0f;
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS && p.launch[0].grid.y == 1 &&
                     arg_u32(&p.launch[0], 6) == 0 && p.scratch_bytes == 0,
                 "forced vk-gemv, alpha 0: one slice of k 0, no scratch (%s)", p.why);
    hcl_kplan_free(&p);
    g = gemm_shape(5, 9, 0, HCL_DTYPE_F16);
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS && p.launch[0].grid.y == 1 && arg_u32(&p.launch[0], 6) == 0,
                 "forced vk-gemv, k 0: one slice (%s)", p.why);
    hcl_kplan_free(&p);
    g = gemm_shape(17, 17, 1000, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_ERROR_UNSUPPORTED && strstr(p.why, "HCL_GEMM_VARIANT=vk-gemv") &&
                     strstr(p.why, "at most 16 rows or 16 columns (here 17 x 17)"),
                 "forced vk-gemv, 17 x 17: refused (%s)", p.why);
    hcl_kplan_free(&p);
    HCL_TS_CHECK(hcl_plan_gemm(gpu, &g, &p) == HCL_SUCCESS && !strstr(kernel_name(&p.launch[0]), "gemv"),
                 "17 x 17 x 1000 unforced: not the gemv kernel (%s)", kernel_name(&p.launch[0]));
    hcl_kplan_free(&p);
}

/* softmax's parts kernel: on a GPU unforced for rows of whole 16-byte words above 8192 words (one work-group of 1024
 * work-items at 8 words each), groups of the fewest work-items (256 to 1024) whose parts of 8 words a work-item number
 * at most the group's work-items (and, unforced, the compute units); batches of rows within 65535 groups a launch, the
 * zeroed scratch its ticket and each row's words; never unforced on a CPU device (lavapipe) or a device that states no
 * compute units; forced anywhere on rows of whole words, with the refusals. */
static void softmax_parts_plans(const hcl_kdevice *gpu, const hcl_kdevice *cpu) {
    hcl_kdevice nocu = *gpu;
    nocu.compute_units = 0;
    static const struct {
        int device; /* 0 the GPU, 1 lavapipe, 2 the GPU without a count of compute units */
        hcl_dtype type;
        size_t rows, cols;
        hcl_kvariant forced;
        const char *kernel; /* the kernel of every launch */
        size_t launches;
        uint32_t groups, block, parts; /* the first launch's */
        uint32_t last_row0;            /* the last launch's first row */
    } cases[] = {
        {0, HCL_DTYPE_F32, 512, 262144, HCL_KVARIANT_AUTO, "hcl_softmax_parts_f32", 1, 16384, 256, 32, 0},
        {0, HCL_DTYPE_F32, 1000, 32772, HCL_KVARIANT_AUTO, "hcl_softmax_parts_f32", 1, 5000, 256, 5, 0},
        {0, HCL_DTYPE_F16, 2, 65544, HCL_KVARIANT_AUTO, "hcl_softmax_parts_f16", 1, 10, 256, 5, 0},
        {0, HCL_DTYPE_BF16, 64, 131072, HCL_KVARIANT_AUTO, "hcl_softmax_parts_bf16", 1, 512, 256, 8, 0},
        {0, HCL_DTYPE_F32, 1, 4325376, HCL_KVARIANT_AUTO, "hcl_softmax_parts_f32", 1, 132, 1024, 132, 0},
        {0, HCL_DTYPE_F32, 40000, 32772, HCL_KVARIANT_AUTO, "hcl_softmax_parts_f32", 4, 65535, 256, 5, 39321},
        {0, HCL_DTYPE_F32, 512, 262144, HCL_KVARIANT_SOFTMAX_PARTS, "hcl_softmax_parts_f32", 1, 16384, 256, 32, 0},
        {0, HCL_DTYPE_F32, 7, 4096, HCL_KVARIANT_SOFTMAX_PARTS, "hcl_softmax_parts_f32", 1, 7, 256, 1, 0},
        {0, HCL_DTYPE_F32, 3, 8196, HCL_KVARIANT_SOFTMAX_PARTS, "hcl_softmax_parts_f32", 1, 6, 256, 2, 0},
        {0, HCL_DTYPE_F32, 1, 4358144, HCL_KVARIANT_SOFTMAX_PARTS, "hcl_softmax_parts_f32", 1, 266, 512, 266, 0},
        {1, HCL_DTYPE_F32, 512, 262144, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 1, 512, 1024, 0, 0},
        {2, HCL_DTYPE_F32, 512, 262144, HCL_KVARIANT_AUTO, "hcl_softmax_f32", 1, 512, 1024, 0, 0},
        {1, HCL_DTYPE_F32, 3, 40000, HCL_KVARIANT_SOFTMAX_PARTS, "hcl_softmax_parts_f32", 1, 15, 256, 5, 0},
        {1, HCL_DTYPE_F16, 3, 16, HCL_KVARIANT_SOFTMAX_PARTS, "hcl_softmax_parts_f16", 1, 3, 256, 1, 0},
        {1, HCL_DTYPE_F32, 1 << 20, 4, HCL_KVARIANT_SOFTMAX_PARTS, "hcl_softmax_parts_f32", 17, 65535, 256, 1,
         16 * 65535},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcl_kdevice dev = cases[i].device == 0 ? *gpu : cases[i].device == 1 ? *cpu : nocu;
        dev.variant[HCL_KOP_SOFTMAX] = cases[i].forced;
        hcl_kplan p;
        const hcl_status st = hcl_plan_softmax(&dev, cases[i].type, cases[i].rows, cases[i].cols, &p);
        const hcl_klaunch *l = &p.launch[0], *z = &p.launch[p.count ? p.count - 1 : 0];
        const int parts = cases[i].parts != 0;
        int ok = st == HCL_SUCCESS && p.count == cases[i].launches && l->grid.x == cases[i].groups &&
                 l->block.x == cases[i].block;
        for (size_t j = 0; ok && j < p.count; j++) ok = !strcmp(kernel_name(&p.launch[j]), cases[i].kernel);
        if (ok && parts) {
            const size_t batch = cases[i].launches > 1 ? 65535 / cases[i].parts : cases[i].rows;
            /* A, C, the scratch (bindings 0, 1, 2), then the launch's first row, the columns and the parts */
            ok = l->num_args == 6 && l->args[0].slot == HCL_KSLOT_A && l->args[1].slot == HCL_KSLOT_C &&
                 l->args[2].slot == HCL_KSLOT_SCRATCH && arg_u32(l, 3) == 0 && arg_u32(l, 4) == cases[i].cols &&
                 arg_u32(l, 5) == cases[i].parts && arg_u32(z, 3) == cases[i].last_row0 &&
                 z->grid.x == (cases[i].rows - cases[i].last_row0) * cases[i].parts && p.scratch_zeroed &&
                 p.scratch_bytes == (64 + batch * (2 + 3 * cases[i].parts)) * sizeof(uint32_t);
        } else if (ok) {
            ok = p.scratch_bytes == 0 && arg_u32(l, 5) == 1; /* the work-group kernel, keeping 8 words */
        }
        HCL_TS_CHECK(ok,
                     "softmax %zu x %zu %s (parts case %zu): %zu launch(es) of %s, %u groups of %u, scratch %zu%s "
                     "(status %d: %s)",
                     cases[i].rows, cases[i].cols, hcl_kdtype_name(cases[i].type), i, p.count,
                     st == HCL_SUCCESS && p.count ? kernel_name(l) : "-", st == HCL_SUCCESS ? l->grid.x : 0,
                     st == HCL_SUCCESS ? l->block.x : 0, p.scratch_bytes, p.scratch_zeroed ? " zeroed" : "", (int)st,
                     p.why);
        hcl_kplan_free(&p);
    }
    /* forced, refused: rows not of whole words, longer than 1024 parts of 1024 work-items, groups below 256 */
    static const struct {
        hcl_dtype type;
        size_t cols, max_group;
        const char *why;
    } refused[] = {{HCL_DTYPE_F32, 65537, 1024, "whole 16-byte words (4 f32 values each; 65537 columns)"},
                   {HCL_DTYPE_BF16, 1004, 1024, "whole 16-byte words (8 bf16 values each"},
                   {HCL_DTYPE_F32, 33554436, 1024, "at most 8388608 words"},
                   {HCL_DTYPE_F16, 4096, 128, "work-groups of 256 work-items (the device allows 128)"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        hcl_kdevice dev = *gpu;
        dev.variant[HCL_KOP_SOFTMAX] = HCL_KVARIANT_SOFTMAX_PARTS;
        dev.max_group_size = refused[i].max_group;
        hcl_kplan p;
        const hcl_status st = hcl_plan_softmax(&dev, refused[i].type, 1, refused[i].cols, &p);
        HCL_TS_CHECK(st == HCL_ERROR_UNSUPPORTED && strstr(p.why, "HCL_SOFTMAX_VARIANT=parts cannot run this call") &&
                         strstr(p.why, refused[i].why),
                     "forced parts, %zu %s columns, groups of %zu: refused with '%s' (status %d: %s)", refused[i].cols,
                     hcl_kdtype_name(refused[i].type), refused[i].max_group, refused[i].why, (int)st, p.why);
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
    HCL_TS_CHECK(p.launch[0].num_args == 4 && p.launch[0].args[0].slot == HCL_KSLOT_A &&
                     p.launch[0].args[2].slot == HCL_KSLOT_C && p.launch[0].args[3].size == 4,
                 "vecadd: a, b, c (each seen as elements and as 16-byte words), then n as 32 bits");
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
    HCL_TS_CHECK(p.count == 1 && !strcmp(kernel_name(&p.launch[0]), "hcl_reduce_max_f16"),
                 "reduce: one launch, whose last work-group folds the partials");
    HCL_TS_CHECK(p.scratch_bytes == (1 + p.launch[0].grid.x) * sizeof(float) && p.scratch_zeroed,
                 "reduce: zeroed scratch, the ticket and a float a partial");
    HCL_TS_CHECK(p.launch[0].num_args == 4 && p.launch[0].args[0].slot == HCL_KSLOT_A &&
                     p.launch[0].args[1].slot == HCL_KSLOT_SCRATCH && p.launch[0].args[2].slot == HCL_KSLOT_C,
                 "reduce: in (seen as elements and as 16-byte words), the scratch, out, then n");
    hcl_kplan_free(&p);
    /* groups that fill the device: 8 of 256 an SM (132 SMs), where n has four words a work-item for them */
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
    softmax_parts_plans(&gpu, &cpu);
    HCL_TS_CHECK(hcl_plan_softmax(&gpu, HCL_DTYPE_F32, 70000, 70000, &p) == HCL_ERROR_UNSUPPORTED,
                 "softmax past 2^32 elements refused");
    hcl_kplan_free(&p);

    /* the tile by the fill of the GPU's 132 compute units: 128 x 128 where its groups number 3/4 of them, else
     * 128 x 64, else 64 x 64; a CPU always 64 x 64 */
    static const struct {
        size_t m, n;
        int cpu;
        const char *kernel;
        uint32_t gx, gy;
    } tiles[] = {{4096, 4096, 0, "hcl_gemm_128_f32", 32, 32},   {2048, 1024, 0, "hcl_gemm_128_f32", 8, 16},
                 {1024, 1024, 0, "hcl_gemm_128x64_f32", 16, 8}, {600, 1300, 0, "hcl_gemm_128x64_f32", 21, 5},
                 {512, 512, 0, "hcl_gemm_f32", 8, 8},           {17, 100000, 0, "hcl_gemm_128_f32", 782, 1},
                 {4096, 4096, 1, "hcl_gemm_f32", 64, 64},       {17, 17, 1, "hcl_gemm_f32", 1, 1}};
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
        hcl_kgemm g = gemm_shape(tiles[i].m, tiles[i].n, 64, HCL_DTYPE_F32);
        HCL_TS_CHECK(hcl_plan_gemm(tiles[i].cpu ? &cpu : &gpu, &g, &p) == HCL_SUCCESS, "gemm: %s", p.why);
        HCL_TS_CHECK(p.count == 1 && !strcmp(kernel_name(&p.launch[0]), tiles[i].kernel) &&
                         p.launch[0].grid.x == tiles[i].gx && p.launch[0].grid.y == tiles[i].gy &&
                         p.launch[0].block.x == 16 && p.launch[0].block.y == 16,
                     "gemm %zu x %zu on a %s: %s over %u x %u groups of 16 x 16 (%s, %u x %u)", tiles[i].m, tiles[i].n,
                     tiles[i].cpu ? "CPU" : "GPU", tiles[i].kernel, tiles[i].gx, tiles[i].gy, kernel_name(&p.launch[0]),
                     p.launch[0].grid.x, p.launch[0].grid.y);
        HCL_TS_CHECK(p.launch[0].num_args == 12, "gemm: A, B, C and nine push constants (%u)", p.launch[0].num_args);
        hcl_kplan_free(&p);
    }
    hcl_kgemm g = gemm_shape(1024, 1024, 1024, HCL_DTYPE_F16);
    HCL_TS_CHECK(hcl_plan_gemm(&gpu, &g, &p) == HCL_SUCCESS && p.launch[0].prog == HCL_KPROG_VK16 &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_128x64_f16"),
                 "gemm f16 without a matrix unit: the same tiles in vk16");
    hcl_kplan_free(&p);
    /* every variant forced, on either device: its kernel, whatever the shape */
    static const struct {
        hcl_kvariant v;
        const char *kernel;
        uint32_t gx;
    } forced[] = {{HCL_KVARIANT_GEMM_VK_SIMT128, "hcl_gemm_128_f32", 1},
                  {HCL_KVARIANT_GEMM_VK_SIMT128X64, "hcl_gemm_128x64_f32", 2},
                  {HCL_KVARIANT_GEMM_VK_SIMT64, "hcl_gemm_f32", 2},
                  {HCL_KVARIANT_GEMM_VK_DOT, "hcl_gemm_dot_f32", 7},
                  {HCL_KVARIANT_GEMM_VK_GEMV, "hcl_gemm_gemv_n16_f32", 1}};
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < sizeof forced / sizeof forced[0]; i++) {
            hcl_kdevice dev = d ? cpu : gpu;
            dev.variant[HCL_KOP_GEMM] = forced[i].v;
            g = gemm_shape(10, 100, 30, HCL_DTYPE_F32);
            HCL_TS_CHECK(hcl_plan_gemm(&dev, &g, &p) == HCL_SUCCESS &&
                             !strcmp(kernel_name(&p.launch[0]), forced[i].kernel) && p.launch[0].grid.x == forced[i].gx,
                         "forced %s: %s (%s: %s)", hcl_kvariant_get(forced[i].v)->name, forced[i].kernel, p.why,
                         p.count ? kernel_name(&p.launch[0]) : "-");
            hcl_kplan_free(&p);
            dev.local_mem = 8192; /* less than any tiled kernel's shared memory */
            const hcl_status st = hcl_plan_gemm(&dev, &g, &p);
            HCL_TS_CHECK(forced[i].v == HCL_KVARIANT_GEMM_VK_DOT
                             ? st == HCL_SUCCESS
                             : st == HCL_ERROR_UNSUPPORTED && strstr(p.why, "HCL_GEMM_VARIANT=") &&
                                   strstr(p.why, "shared memory"),
                         "forced %s with 8 KiB of shared memory: %d (%s)", hcl_kvariant_get(forced[i].v)->name, (int)st,
                         p.why);
            hcl_kplan_free(&p);
        }
    /* a GPU whose driver enabled VK_KHR_cooperative_matrix for f16 and bf16 (the H200's): unforced, both on the
     * cooperative-matrix kernel (C of their type or f32, 128 x 128 tiles, any shape past the split-K and dot kernels'),
     * few rows or a small C with a long k the split-K kernel; on one with f16 only, bf16 on the SIMT 128 x 64 tile where
     * f32 takes 128 x 128 */
    hcl_kdevice nv = gpu;
    nv.matrix_unit = HCL_MATRIX_UNIT_TENSOR_CORE;
    nv.matrix_types = HCL_TYPE_BIT(HCL_DTYPE_F16) | HCL_TYPE_BIT(HCL_DTYPE_BF16);
    nv.subgroup_width = 32;
    hcl_kdevice nv16 = nv;
    nv16.matrix_types = HCL_TYPE_BIT(HCL_DTYPE_F16);
    static const struct {
        int f16_only; /* on nv16 */
        size_t m, n;
        hcl_dtype ab, c;
        const char *kernel;
        hcl_kprog prog;
    } coop[] = {{0, 4096, 4096, HCL_DTYPE_F16, HCL_DTYPE_F16, "hcl_gemm_coop_nn_f16", HCL_KPROG_VK_COOP},
                {0, 300, 600, HCL_DTYPE_F16, HCL_DTYPE_F32, "hcl_gemm_coop64_nn_f16_f32", HCL_KPROG_VK_COOP},
                {0, 4096, 4096, HCL_DTYPE_BF16, HCL_DTYPE_BF16, "hcl_gemm_coop_nn_bf16", HCL_KPROG_VK_COOP},
                {0, 300, 600, HCL_DTYPE_BF16, HCL_DTYPE_F32, "hcl_gemm_coop64_nn_bf16_f32", HCL_KPROG_VK_COOP},
                /* 128 x 128 tiles from as many as the compute units (132): 12 x 11, not 11 x 11 */
                {0, 1536, 1408, HCL_DTYPE_F16, HCL_DTYPE_F16, "hcl_gemm_coop_nn_f16", HCL_KPROG_VK_COOP},
                {0, 1408, 1408, HCL_DTYPE_F16, HCL_DTYPE_F16, "hcl_gemm_coop64_nn_f16", HCL_KPROG_VK_COOP},
                {1, 4096, 4096, HCL_DTYPE_BF16, HCL_DTYPE_BF16, "hcl_gemm_128x64_bf16", HCL_KPROG_VK16},
                {1, 4096, 4096, HCL_DTYPE_F16, HCL_DTYPE_F16, "hcl_gemm_coop_nn_f16", HCL_KPROG_VK_COOP},
                {0, 4096, 4096, HCL_DTYPE_F32, HCL_DTYPE_F32, "hcl_gemm_128_f32", HCL_KPROG_VK},
                {0, 4, 4096, HCL_DTYPE_F16, HCL_DTYPE_F16, "hcl_gemm_gemv_n4_f16", HCL_KPROG_VK16},
                {0, 8, 4096, HCL_DTYPE_F16, HCL_DTYPE_F16, "hcl_gemm_splitk_rows_f16", HCL_KPROG_VK16},
                {0, 17, 131, HCL_DTYPE_F16, HCL_DTYPE_F32, "hcl_gemm_splitk_tile_f16_f32", HCL_KPROG_VK16}};
    for (size_t i = 0; i < sizeof coop / sizeof coop[0]; i++) {
        g = gemm_shape(coop[i].m, coop[i].n, 1000, coop[i].ab);
        g.c_type = coop[i].c;
        const int gemv = strstr(coop[i].kernel, "gemv") != NULL, one_d = gemv || coop[i].prog == HCL_KPROG_VK_COOP;
        const size_t tile = strstr(coop[i].kernel, "coop64") ? 64 : 128;
        HCL_TS_CHECK(hcl_plan_gemm(coop[i].f16_only ? &nv16 : &nv, &g, &p) == HCL_SUCCESS &&
                         p.launch[0].prog == coop[i].prog && !strcmp(kernel_name(&p.launch[0]), coop[i].kernel) &&
                         (coop[i].prog != HCL_KPROG_VK_COOP || (p.launch[0].grid.x == hcl_ceil_div(coop[i].n, tile) &&
                                                                p.launch[0].grid.y == hcl_ceil_div(coop[i].m, tile))) &&
                         p.launch[0].block.x == (!one_d                 ? 16u
                                                 : tile == 128 && !gemv ? 128u
                                                                        : 256u) &&
                         p.launch[0].block.y == (one_d ? 1u : 16u) &&
                         p.launch[0].num_args == (strstr(coop[i].kernel, "splitk") ? 13u
                                                  : gemv                           ? 15u
                                                                                   : 12u),
                     "matrix unit%s, %zu x %zu %s -> %s: %s (%s)", coop[i].f16_only ? " for f16 only" : "", coop[i].m,
                     coop[i].n, hcl_kdtype_name(coop[i].ab), hcl_kdtype_name(coop[i].c), coop[i].kernel, p.why);
        hcl_kplan_free(&p);
    }
    /* forced: vk-coop runs the types of the device's matrix unit, refused elsewhere with the reason; vk-simt64 still runs
     * f16 there */
    nv.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_COOP;
    g = gemm_shape(7, 5, 3, HCL_DTYPE_F16);
    HCL_TS_CHECK(hcl_plan_gemm(&nv, &g, &p) == HCL_SUCCESS &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_coop_nn_f16") && p.launch[0].grid.x == 1 &&
                     p.launch[0].grid.y == 1,
                 "forced vk-coop: a 7 x 5 x 3 f16 call on the matrix unit (%s)", p.why);
    hcl_kplan_free(&p);
    /* a kernel per transposition */
    static const char *const coop_ab[] = {"hcl_gemm_coop_nn_f16", "hcl_gemm_coop_tn_f16", "hcl_gemm_coop_nt_f16",
                                          "hcl_gemm_coop_tt_f16"};
    for (int t = 0; t < 4; t++) {
        g = gemm_shape(300, 200, 100, HCL_DTYPE_F16);
        g.trans_a = t & 1 ? HCL_TRANS : HCL_NO_TRANS;
        g.trans_b = t & 2 ? HCL_TRANS : HCL_NO_TRANS;
        g.lda = t & 1 ? g.m : g.k;
        g.ldb = t & 2 ? g.k : g.n;
        HCL_TS_CHECK(hcl_plan_gemm(&nv, &g, &p) == HCL_SUCCESS && !strcmp(kernel_name(&p.launch[0]), coop_ab[t]) &&
                         p.launch[0].block.x == 128u,
                     "forced vk-coop, transposes %d: %s (%s)", t, coop_ab[t], p.why);
        hcl_kplan_free(&p);
    }
    nv.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_COOP64;
    g = gemm_shape(4096, 4096, 64, HCL_DTYPE_F16);
    HCL_TS_CHECK(hcl_plan_gemm(&nv, &g, &p) == HCL_SUCCESS &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_coop64_nn_f16") && p.launch[0].grid.x == 64 &&
                     p.launch[0].grid.y == 64,
                 "forced vk-coop64: a 4096 x 4096 x 64 f16 call on 64 x 64 tiles (%s)", p.why);
    hcl_kplan_free(&p);
    nv.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_COOP;
    g = gemm_shape(7, 5, 3, HCL_DTYPE_BF16);
    HCL_TS_CHECK(hcl_plan_gemm(&nv, &g, &p) == HCL_SUCCESS &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_coop_nn_bf16"),
                 "forced vk-coop: a 7 x 5 x 3 bf16 call on the matrix unit (%s)", p.why);
    hcl_kplan_free(&p);
    nv16.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_COOP;
    HCL_TS_CHECK(hcl_plan_gemm(&nv16, &g, &p) == HCL_ERROR_UNSUPPORTED && strstr(p.why, "HCL_GEMM_VARIANT=vk-coop") &&
                     strstr(p.why, "bf16 inputs, no matrix unit for them"),
                 "forced vk-coop, bf16 on a matrix unit for f16 only: refused (%s)", p.why);
    hcl_kplan_free(&p);
    g.ab_type = g.c_type = HCL_DTYPE_F32;
    HCL_TS_CHECK(hcl_plan_gemm(&nv, &g, &p) == HCL_ERROR_UNSUPPORTED && strstr(p.why, "f32 inputs"),
                 "forced vk-coop, f32: refused (%s)", p.why);
    hcl_kplan_free(&p);
    for (int d = 0; d < 2; d++) {
        hcl_kdevice plain = d ? cpu : gpu;
        plain.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_COOP;
        g = gemm_shape(256, 256, 256, HCL_DTYPE_F16);
        HCL_TS_CHECK(hcl_plan_gemm(&plain, &g, &p) == HCL_ERROR_UNSUPPORTED &&
                         strstr(p.why, "HCL_GEMM_VARIANT=vk-coop") && strstr(p.why, "no matrix unit"),
                     "forced vk-coop without the matrix unit (%s): refused, never built (%s)", d ? "CPU" : "GPU",
                     p.why);
        hcl_kplan_free(&p);
    }
    nv.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_VK_SIMT64;
    g = gemm_shape(256, 256, 256, HCL_DTYPE_F16);
    HCL_TS_CHECK(hcl_plan_gemm(&nv, &g, &p) == HCL_SUCCESS && !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_f16"),
                 "forced vk-simt64 on the matrix unit's device: the SIMT kernel (%s)", p.why);
    hcl_kplan_free(&p);
    hcl_kdevice other = gpu;
    other.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_SIMT;
    g = gemm_shape(64, 64, 64, HCL_DTYPE_F32);
    HCL_TS_CHECK(hcl_plan_gemm(&other, &g, &p) == HCL_ERROR_UNSUPPORTED && strstr(p.why, "vk-simt128"),
                 "the CUDA/OpenCL simt forced on Vulkan: refused, listing Vulkan's variants (%s)", p.why);
    hcl_kplan_free(&p);
    g = gemm_shape(4, 4096, 256, HCL_DTYPE_BF16);
    g.c_type = HCL_DTYPE_F32;
    HCL_TS_CHECK(hcl_plan_gemm(&gpu, &g, &p) == HCL_SUCCESS &&
                     !strcmp(kernel_name(&p.launch[0]), "hcl_gemm_gemv_n4_bf16_f32") && p.launch[0].grid.x == 16 &&
                     p.launch[0].grid.y == 1 && p.scratch_bytes == 0,
                 "gemm of 4 rows, k 256: the gemv kernel, 16 ranges of 256 columns, one slice, C in f32 (%s)", p.why);
    hcl_kplan_free(&p);
    splitk_plans(&gpu, &cpu);
    gemv_plans(&gpu, &cpu);
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
        memcpy(&k1, p.launch[3].args[5].value, 4);
        HCL_TS_CHECK(k1 == 100000, "the last slice ends at k (%u)", k1);
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
