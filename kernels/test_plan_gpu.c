/* kernels-plan-gpu: the GPU family's gemm plans for the matrix-unit devices, and its softmax plans by row length (also
 * an OpenCL GPU's for short rows, and OpenCL CPU devices' one work-item a row), checked without a GPU. A plan is plain
 * C (hcl_plan.h), so what the core would launch on an H100 (sm_90: wgmma + TMA, tensor maps, TF32's swapped
 * operands and transposed copy), on an sm_80 part (mma.sync) and on AMD GPUs (gfx90a, gfx940: MFMA; gfx908: MFMA for f16;
 * gfx1030: the SIMT kernels) can be read here: kernel names, launch counts, grids, shared memory, scratch offsets and
 * every tensor map's dimensions, pitch and box. What the kernels compute is the conformance suite's business on the
 * GPU; this test pins the plan that feeds them, in CI.
 * Exit status: 0 when every check passed, 1 otherwise (each failure printed). */
#include "hcl_testsupport.h"
#include "gemm/gemm_wg.h"
#include "hcl_plan.h"
#include "test_plan_devices.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const hcl_driver_tensor_map *map_of(const hcl_klaunch *l, uint32_t arg) {
    return arg < l->num_args && l->args[arg].kind == HCL_KPARG_TENSOR_MAP
               ? (const hcl_driver_tensor_map *)(const void *)l->args[arg].value
               : NULL;
}

/* The tensor map of argument `arg`: over `slot` at `offset`, rows x cols of `type` with rows `pitch` bytes apart, boxes
 * of box_cols x box_rows. */
static void check_map(const char *what, const hcl_klaunch *l, uint32_t arg, hcl_kslot slot, size_t offset,
                      hcl_dtype type, uint64_t rows, uint64_t cols, uint64_t pitch, uint32_t box_cols,
                      uint32_t box_rows) {
    const hcl_driver_tensor_map *t = map_of(l, arg);
    HCL_TS_CHECK(t != NULL, "%s: argument %u is not a tensor map", what, arg);
    if (!t) return;
    HCL_TS_CHECK(l->args[arg].slot == slot && l->args[arg].offset == offset,
                 "%s: map %u over slot %d + %zu, not %d + %zu", what, arg, (int)l->args[arg].slot, l->args[arg].offset,
                 (int)slot, offset);
    HCL_TS_CHECK(t->type == type && t->dims[0] == cols && t->dims[1] == rows && t->row_bytes == pitch &&
                     t->box[0] == box_cols && t->box[1] == box_rows,
                 "%s: map %u is type %d, %" PRIu64 " x %" PRIu64 " (rows x cols), pitch %" PRIu64
                 ", box %u x %u; expected type "
                 "%d, %" PRIu64 " x %" PRIu64 ", pitch %" PRIu64 ", box %u x %u",
                 what, arg, (int)t->type, t->dims[1], t->dims[0], t->row_bytes, t->box[0], t->box[1], (int)type, rows,
                 cols, pitch, box_cols, box_rows);
}

/* Plan g on dev: HCL_SUCCESS, `launches` launches, the last one `kernel`. */
static int plan(const char *what, const hcl_kdevice *dev, const hcl_kgemm *g, size_t launches, const char *kernel,
                hcl_kplan *p) {
    hcl_status st = hcl_plan_gemm(dev, g, p);
    HCL_TS_CHECK(st == HCL_SUCCESS, "%s: status %d (%s)", what, (int)st, p->why);
    if (st != HCL_SUCCESS) return 0;
    HCL_TS_CHECK(p->count == launches, "%s: %zu launches, expected %zu", what, p->count, launches);
    if (p->count != launches) return 0;
    const char *got = hcl_test_kernel_name(&p->launch[p->count - 1]);
    HCL_TS_CHECK(strcmp(got, kernel) == 0, "%s: kernel %s, expected %s", what, got, kernel);
    return strcmp(got, kernel) == 0;
}

static void hopper_16bit(void) {
    const hcl_kdevice h100 = hcl_test_gpu(90);
    static const char *const names[4] = {"nn", "nt", "tn", "tt"};
    for (int t = 0; t < 4; t++) {
        const int ta = t >> 1, tb = t & 1;
        hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32, ta, tb, 1000, 3000, 200, 8);
        char what[64], kernel[64];
        snprintf(what, sizeof what, "sm_90 bf16 -> f32 %s", names[t]);
        snprintf(kernel, sizeof kernel, "hcl_gemm_wg_bf16_f32_%s", names[t]);
        hcl_kplan p;
        if (plan(what, &h100, &g, 1, kernel, &p)) {
            const hcl_klaunch *l = &p.launch[0];
            /* 8 x 12 = 96 tiles: fewer than the SMs, one block each */
            HCL_TS_CHECK(l->grid.x == 96 && l->grid.y == 1 && l->block.x == HCL_WG_THREADS &&
                             l->shared_bytes == HCL_WG_SMEM_BYTES && p.scratch_bytes == 0,
                         "%s: grid %u x %u, block %u, shared %zu, scratch %zu", what, l->grid.x, l->grid.y, l->block.x,
                         l->shared_bytes, p.scratch_bytes);
            uint64_t kslice = 0;
            if (l->num_args == 10) memcpy(&kslice, l->args[9].value, sizeof kslice);
            HCL_TS_CHECK(l->num_args == 10 && kslice == 200, "%s: %u arguments, slices of %" PRIu64 " (k 200: one)",
                         what, l->num_args, kslice);
            if (ta) /* A stored k x m, M contiguous: boxes of 64 x 64 */
                check_map(what, l, 4, HCL_KSLOT_A, 0, HCL_DTYPE_BF16, 200, 1000, 1008 * 2, 64, 64);
            else
                check_map(what, l, 4, HCL_KSLOT_A, 0, HCL_DTYPE_BF16, 1000, 200, 208 * 2, 64, 128);
            if (tb) /* B stored n x k, K contiguous: one box of 64 x 256 */
                check_map(what, l, 5, HCL_KSLOT_B, 0, HCL_DTYPE_BF16, 3000, 200, 208 * 2, 64, 256);
            else
                check_map(what, l, 5, HCL_KSLOT_B, 0, HCL_DTYPE_BF16, 200, 3000, 3008 * 2, 64, 64);
        }
        hcl_kplan_free(&p);
    }
    /* at most 64 rows, "nn" and "nt": the narrow kernels on swapped operands, C^T = B^T A^T (m' = n, n' = m, A' = B:
     * boxes of 64 x 64 when it is stored k x n, one box of 64 x 128 when n x k; B' = A, one box of 64 x 64), 4 tiles of
     * 128 x 64 over C^T; 65 rows, or A transposed: tiles of 128 x 64 over C (wg64: two 128 x 256 tiles would fill
     * far less than half the SMs), B boxed by 64 columns */
    static const struct {
        size_t m;
        int ta, tb;
        const char *kernel;
    } narrow[] = {{17, 0, 0, "hcl_gemm_wg_bf16_f32_nn_n64"},
                  {64, 0, 1, "hcl_gemm_wg_bf16_f32_nt_n64"},
                  {65, 0, 0, "hcl_gemm_wg64_bf16_f32_nn"},
                  {40, 1, 1, "hcl_gemm_wg64_bf16_f32_tt"}};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++) {
        const size_t m = narrow[i].m;
        hcl_kgemm g =
            hcl_test_gemm(HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32, narrow[i].ta, narrow[i].tb, m, 496, 200, 8);
        char what[64];
        snprintf(what, sizeof what, "sm_90 bf16 -> f32, %zu rows, %s%s", m, narrow[i].ta ? "t" : "n",
                 narrow[i].tb ? "t" : "n");
        hcl_kplan p;
        if (plan(what, &h100, &g, 1, narrow[i].kernel, &p) && strstr(narrow[i].kernel, "_n64")) {
            const hcl_klaunch *l = &p.launch[0];
            uint64_t m2 = 0, n2 = 0;
            memcpy(&m2, l->args[0].value, sizeof m2);
            memcpy(&n2, l->args[1].value, sizeof n2);
            HCL_TS_CHECK(m2 == 496 && n2 == m && l->grid.x == 4, "%s: m' %llu n' %llu grid %u (expected 496, %zu, 4)",
                         what, (unsigned long long)m2, (unsigned long long)n2, l->grid.x, m);
            if (narrow[i].tb)
                check_map(what, l, 4, HCL_KSLOT_B, 0, HCL_DTYPE_BF16, 496, 200, 208 * 2, 64, 128);
            else
                check_map(what, l, 4, HCL_KSLOT_B, 0, HCL_DTYPE_BF16, 200, 496, 504 * 2, 64, 64);
            check_map(what, l, 5, HCL_KSLOT_A, 0, HCL_DTYPE_BF16, m, 200, 208 * 2, 64, 64);
        } else if (p.count && strstr(narrow[i].kernel, "wg64")) {
            const hcl_klaunch *l = &p.launch[0];
            HCL_TS_CHECK(l->grid.x == 8, "%s: grid %u, expected 8 tiles of 128 x 64", what, l->grid.x);
            if (narrow[i].tb) /* B stored n x k: one box of 64 k x 64 rows */
                check_map(what, l, 5, HCL_KSLOT_B, 0, HCL_DTYPE_BF16, 496, 200, 208 * 2, 64, 64);
            else
                check_map(what, l, 5, HCL_KSLOT_B, 0, HCL_DTYPE_BF16, 200, 496, 504 * 2, 64, 64);
        }
        hcl_kplan_free(&p);
    }
    /* persistent: more tiles than SMs gives one block per SM */
    hcl_kgemm big = hcl_test_gemm(HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 0, 0, 4096, 4096, 4096, 0);
    hcl_kplan p;
    if (plan("sm_90 f16 4096^3", &h100, &big, 1, "hcl_gemm_wg_f16_f16_nn", &p))
        HCL_TS_CHECK(p.launch[0].grid.x == 132, "sm_90 f16 4096^3: %u blocks, expected one per SM", p.launch[0].grid.x);
    hcl_kplan_free(&p);
    /* a leading dimension whose rows are not 16-byte multiples: the mma.sync kernels */
    hcl_kgemm odd = hcl_test_gemm(HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 0, 1, 300, 300, 300, 3);
    if (plan("sm_90 f16 lda 303", &h100, &odd, 1, "hcl_gemm_tc_f16_f16_nt", &p))
        HCL_TS_CHECK(p.launch[0].block.x == 256 && p.launch[0].shared_bytes == 0,
                     "sm_90 f16 lda 303: block %u, shared %zu", p.launch[0].block.x, p.launch[0].shared_bytes);
    hcl_kplan_free(&p);
}

static void hopper_tf32(void) {
    const hcl_kdevice h100 = hcl_test_gpu(90);
    /* lda, ldb = m, n or k + 3: 304, 500, 80, every row a 16-byte multiple */
    const size_t m = 301, n = 497, k = 77, kp = 80;
    hcl_kplan p;
    /* B K-major (tb), one kernel over the operands as they are, no copy: nt, both operands K-major; tt, A (k x m,
     * M-major) in boxes of 32 x 32 floats (the kernel takes it to registers) */
    const struct {
        int ta;
        const char *what, *kernel;
        uint64_t a_rows, a_cols, a_pitch;
        uint32_t a_box_rows;
    } b_k_major[] = {{0, "sm_90 TF32 nt", "hcl_gemm_wg_tf32_f32_nt", m, k, 80 * 4, 128},
                     {1, "sm_90 TF32 tt", "hcl_gemm_wg_tf32_f32_tt", k, m, 304 * 4, 32}};
    for (size_t i = 0; i < sizeof b_k_major / sizeof b_k_major[0]; i++) {
        const char *what = b_k_major[i].what;
        hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, b_k_major[i].ta, 1, m, n, k, 3);
        if (plan(what, &h100, &g, 1, b_k_major[i].kernel, &p)) {
            HCL_TS_CHECK(p.scratch_bytes == 0, "%s: scratch %zu", what, p.scratch_bytes);
            check_map(what, &p.launch[0], 4, HCL_KSLOT_A, 0, HCL_DTYPE_F32, b_k_major[i].a_rows, b_k_major[i].a_cols,
                      b_k_major[i].a_pitch, 32, b_k_major[i].a_box_rows);
            check_map(what, &p.launch[0], 5, HCL_KSLOT_B, 0, HCL_DTYPE_F32, n, k, 80 * 4, 32, 256);
        }
        hcl_kplan_free(&p);
    }
    /* nn: the "nn" kernel on swapped operands, C^T = B^T A^T: m' = n, n' = m, A' = B (k x n, N-major), B' = A */
    hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 0, 0, m, n, k, 3);
    if (plan("sm_90 TF32 nn", &h100, &g, 1, "hcl_gemm_wg_tf32_f32_nn", &p)) {
        const hcl_klaunch *l = &p.launch[0];
        uint64_t m2 = 0, n2 = 0;
        memcpy(&m2, l->args[0].value, sizeof m2);
        memcpy(&n2, l->args[1].value, sizeof n2);
        HCL_TS_CHECK(m2 == n && n2 == m && p.scratch_bytes == 0 && l->grid.x == 4 * 2,
                     "sm_90 TF32 nn: m' %llu n' %llu, scratch %zu, grid %u (expected %zu, %zu, 0, 8)",
                     (unsigned long long)m2, (unsigned long long)n2, p.scratch_bytes, l->grid.x, n, m);
        check_map("sm_90 TF32 nn", l, 4, HCL_KSLOT_B, 0, HCL_DTYPE_F32, k, n, 500 * 4, 32, 32);
        check_map("sm_90 TF32 nn", l, 5, HCL_KSLOT_A, 0, HCL_DTYPE_F32, m, k, 80 * 4, 32, 256);
    }
    hcl_kplan_free(&p);
    /* nn of at most 64 rows: the narrow kernel, tiles of 128 x 64 over C^T, B' (A) boxed by 64 rows; 65: the wide one */
    static const struct {
        size_t m;
        const char *kernel;
        uint32_t box_rows;
    } narrow[] = {{17, "hcl_gemm_wg_tf32_f32_nn_n64", 64},
                  {61, "hcl_gemm_wg_tf32_f32_nn_n64", 64},
                  {64, "hcl_gemm_wg_tf32_f32_nn_n64", 64},
                  {65, "hcl_gemm_wg_tf32_f32_nn", 256}};
    for (size_t i = 0; i < sizeof narrow / sizeof narrow[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "sm_90 TF32 nn, %zu rows", narrow[i].m);
        g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 0, 0, narrow[i].m, n, k, 3);
        if (plan(what, &h100, &g, 1, narrow[i].kernel, &p)) {
            HCL_TS_CHECK(p.launch[0].grid.x == 4, "%s: grid %u (expected 4 tiles of 128 rows of C^T)", what,
                         p.launch[0].grid.x);
            check_map(what, &p.launch[0], 5, HCL_KSLOT_A, 0, HCL_DTYPE_F32, narrow[i].m, k, 80 * 4, 32,
                      narrow[i].box_rows);
        }
        hcl_kplan_free(&p);
    }
    /* TF32 "nn" of 16 rows goes to the narrow kernel before the few-rows kernels, but only where it takes the call: with
     * rows of A that are not 16-byte multiples (lda 4097) the few-rows kernels keep it */
    g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 0, 0, 16, 4096, 4096, 0);
    plan("sm_90 TF32 nn, 16 rows", &h100, &g, 2, "hcl_gemm_splitk_sum_f32", &p);
    HCL_TS_CHECK(p.count && strcmp(hcl_test_kernel_name(&p.launch[0]), "hcl_gemm_wg_tf32_f32_nn_n64") == 0,
                 "sm_90 TF32 nn, 16 rows: %s first, expected the narrow kernel",
                 p.count ? hcl_test_kernel_name(&p.launch[0]) : "-");
    hcl_kplan_free(&p);
    g.lda = 4097;
    plan("sm_90 TF32 nn, 16 rows, lda 4097", &h100, &g, 2, "hcl_gemm_splitk_sum_f32", &p);
    HCL_TS_CHECK(p.count && strcmp(hcl_test_kernel_name(&p.launch[0]), "hcl_gemm_rows_f32_16_n") == 0,
                 "sm_90 TF32 nn, 16 rows, lda 4097: %s first, expected the few-rows kernel",
                 p.count ? hcl_test_kernel_name(&p.launch[0]) : "-");
    hcl_kplan_free(&p);
    /* tn: B (k x n) copied transposed into the scratch first (rows of k padded to 4 floats), then the "tt" kernel */
    g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 1, 0, m, n, k, 3);
    if (plan("sm_90 TF32 tn", &h100, &g, 2, "hcl_gemm_wg_tf32_f32_tt", &p)) {
        const hcl_klaunch *t = &p.launch[0];
        HCL_TS_CHECK(strcmp(hcl_test_kernel_name(t), "hcl_transpose_f32") == 0 && t->grid.x == (n + 31) / 32 &&
                         t->grid.y == (k + 31) / 32 && t->block.x == 32 && t->block.y == 8,
                     "sm_90 TF32 tn: first launch %s grid %u x %u block %u x %u", hcl_test_kernel_name(t), t->grid.x,
                     t->grid.y, t->block.x, t->block.y);
        HCL_TS_CHECK(t->args[2].kind == HCL_KPARG_MEM && t->args[2].slot == HCL_KSLOT_B &&
                         t->args[4].kind == HCL_KPARG_MEM && t->args[4].slot == HCL_KSLOT_SCRATCH &&
                         t->args[4].offset == 0,
                     "sm_90 TF32 tn: the copy is not B -> scratch + 0");
        HCL_TS_CHECK(p.scratch_bytes == n * kp * 4, "sm_90 TF32 tn: scratch %zu, expected %zu", p.scratch_bytes,
                     n * kp * 4);
        check_map("sm_90 TF32 tn", &p.launch[1], 4, HCL_KSLOT_A, 0, HCL_DTYPE_F32, k, m, 304 * 4, 32, 32);
        check_map("sm_90 TF32 tn", &p.launch[1], 5, HCL_KSLOT_SCRATCH, 0, HCL_DTYPE_F32, n, k, kp * 4, 32, 256);
    }
    hcl_kplan_free(&p);
}

static void ampere(void) {
    const hcl_kdevice a100 = hcl_test_gpu(80);
    hcl_kplan p;
    hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 0, 0, 4096, 4096, 4096, 0);
    if (plan("sm_80 f16", &a100, &g, 1, "hcl_gemm_tc_f16_f16_nn", &p))
        HCL_TS_CHECK(p.launch[0].grid.x == 32 && p.launch[0].grid.y == 32 && p.launch[0].block.x == 256,
                     "sm_80 f16: grid %u x %u block %u", p.launch[0].grid.x, p.launch[0].grid.y, p.launch[0].block.x);
    hcl_kplan_free(&p);
    g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 1, 0, 100, 100, 100, 0);
    plan("sm_80 TF32", &a100, &g, 1, "hcl_gemm_tc_tf32_f32_tn", &p);
    hcl_kplan_free(&p);
    /* no tensor cores: TF32 is refused by the plan (the core refuses it earlier, from matrix_types) */
    hcl_kdevice old = hcl_test_gpu(75);
    old.matrix_unit = HCL_MATRIX_UNIT_NONE;
    old.matrix_types = 0;
    HCL_TS_CHECK(hcl_plan_gemm(&old, &g, &p) == HCL_ERROR_UNSUPPORTED, "sm_75 TF32: not refused");
    hcl_kplan_free(&p);
}

/* Few tiles and a long k: split-K (a launch per slice set, then the sum); square: one launch. */
static void splitk(void) {
    const hcl_kdevice h100 = hcl_test_gpu(90);
    hcl_kplan p;
    hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 127, 127, 1048573, 0);
    if (plan("sm_90 f32 127x127x1048573", &h100, &g, 2, "hcl_gemm_splitk_sum_f32", &p)) {
        const hcl_klaunch *l = &p.launch[0];
        uint64_t kslice = 0;
        memcpy(&kslice, l->args[3].value, sizeof kslice);
        /* one 128 x 128 tile, nearly full: that kernel, about two blocks per SM */
        HCL_TS_CHECK(strcmp(hcl_test_kernel_name(l), "hcl_gemm_splitk_f32_128_nn") == 0 && l->grid.x == 1 &&
                         l->grid.y == 1 && l->grid.z * kslice >= g.k && (l->grid.z - 1) * kslice < g.k &&
                         kslice % 64 == 0 && l->grid.z * 4 >= 3 * 2 * 132 &&
                         p.scratch_bytes == (size_t)l->grid.z * 127 * 127 * 4,
                     "split-K: %s grid %u x %u x %u, slices of %" PRIu64 ", scratch %zu", hcl_test_kernel_name(l),
                     l->grid.x, l->grid.y, l->grid.z, kslice, p.scratch_bytes);
    }
    hcl_kplan_free(&p);
    /* 61 x 67: a 128 x 128 tile would be a quarter full; 64 x 64 tiles, three blocks per SM */
    g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 61, 67, 262139, 0);
    if (plan("sm_90 f32 61x67x262139", &h100, &g, 2, "hcl_gemm_splitk_sum_f32", &p))
        HCL_TS_CHECK(strcmp(hcl_test_kernel_name(&p.launch[0]), "hcl_gemm_splitk_f32_nn") == 0 &&
                         p.launch[0].grid.x == 2 && p.launch[0].grid.y == 1 &&
                         p.launch[0].grid.z * 2 * 4 >= 3 * 3 * 132,
                     "61x67x262139: %s grid %u x %u x %u", hcl_test_kernel_name(&p.launch[0]), p.launch[0].grid.x,
                     p.launch[0].grid.y, p.launch[0].grid.z);
    hcl_kplan_free(&p);
    /* a short k: the store-bound kernel, one launch, 32 rows x 256 columns a block, every type (TF32 in float32, before
     * the matrix units); k of 9 on the tiled kernels */
    static const struct {
        hcl_dtype ab, c;
        hcl_compute compute;
        int ta, tb;
        size_t m, n, k;
        const char *kernel;
    } smallk[] = {{HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 8191, 8191, 1, "hcl_gemm_smallk_f32"},
                  {HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 1, 1, 4093, 4099, 8, "hcl_gemm_smallk_f32"},
                  {HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 0, 1, 8191, 8191, 1, "hcl_gemm_smallk_f32"},
                  {HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 0, 0, 8191, 8191, 1, "hcl_gemm_smallk_f16_f16"},
                  {HCL_DTYPE_F16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 1, 0, 4093, 4099, 8, "hcl_gemm_smallk_f16_f32"},
                  {HCL_DTYPE_BF16, HCL_DTYPE_BF16, HCL_COMPUTE_F32, 1, 1, 4093, 4099, 3, "hcl_gemm_smallk_bf16_bf16"},
                  {HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 1, 1, 1, 1, "hcl_gemm_smallk_bf16_f32"},
                  {HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 4093, 4099, 9, "hcl_gemm_f32_256_nn"}};
    for (size_t i = 0; i < sizeof smallk / sizeof smallk[0]; i++) {
        g = hcl_test_gemm(smallk[i].ab, smallk[i].c, smallk[i].compute, smallk[i].ta, smallk[i].tb, smallk[i].m,
                          smallk[i].n, smallk[i].k, 0);
        if (plan("sm_90 short k", &h100, &g, 1, smallk[i].kernel, &p) && smallk[i].k <= 8)
            HCL_TS_CHECK(p.launch[0].grid.x * 256 >= g.n && p.launch[0].grid.y * 32 >= g.m, "%zux%zux%zu: grid %u x %u",
                         smallk[i].m, smallk[i].n, smallk[i].k, p.launch[0].grid.x, p.launch[0].grid.y);
        hcl_kplan_free(&p);
    }
    /* the tensor-core types likewise, on the mma.sync kernels (128 x 128 tiles, two blocks per SM), summed in C's type;
     * TF32 too, without copies (mma.sync reads any layout) */
    static const struct {
        hcl_dtype ab, c;
        hcl_compute compute;
        int ta, tb;
        const char *part, *sum;
    } typed[] = {
        {HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 0, 0, "hcl_gemm_tc_splitk_f16_nn", "hcl_gemm_splitk_sum_f16"},
        {HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 1, 1, "hcl_gemm_tc_splitk_bf16_tt", "hcl_gemm_splitk_sum_f32"},
        {HCL_DTYPE_BF16, HCL_DTYPE_BF16, HCL_COMPUTE_F32, 0, 1, "hcl_gemm_tc_splitk_bf16_nt",
         "hcl_gemm_splitk_sum_bf16"},
        {HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 0, 0, "hcl_gemm_tc_splitk_tf32_nn",
         "hcl_gemm_splitk_sum_f32"}};
    for (size_t i = 0; i < sizeof typed / sizeof typed[0]; i++) {
        g = hcl_test_gemm(typed[i].ab, typed[i].c, typed[i].compute, typed[i].ta, typed[i].tb, 61, 67, 262139, 0);
        if (plan("sm_90 typed 61x67x262139", &h100, &g, 2, typed[i].sum, &p)) {
            const hcl_klaunch *l = &p.launch[0];
            uint64_t kslice = 0;
            memcpy(&kslice, l->args[3].value, sizeof kslice);
            HCL_TS_CHECK(strcmp(hcl_test_kernel_name(l), typed[i].part) == 0 && l->grid.x == 1 && l->grid.y == 1 &&
                             l->grid.z * kslice >= g.k && (l->grid.z - 1) * kslice < g.k && kslice % 64 == 0 &&
                             l->grid.z >= 132 && p.scratch_bytes == (size_t)l->grid.z * 61 * 67 * 4,
                         "typed split-K: %s grid %u x %u x %u, slices of %" PRIu64 ", scratch %zu, expected %s",
                         hcl_test_kernel_name(l), l->grid.x, l->grid.y, l->grid.z, kslice, p.scratch_bytes,
                         typed[i].part);
        }
        hcl_kplan_free(&p);
    }
    /* 16-bit types take tiles of 128 x 64 where those of 128 x 256 would fill at most half the SMs: 1024^3 (32 wide
     * tiles) on 128, k short, whole. Where the Hopper kernels fit, they slice k themselves when their tiles fill at
     * most half the SMs and k is at least 2048: 128 x 128 x 65536 (two tiles of 128 x 64) 64 slices of 1024, f16
     * partial products in f32 (the kernel whose C is f32), alpha 1 and beta 0 into the scratch, pitch n; TF32 "nn" on
     * its swapped operands, an 8B model's down projection at 256 tokens (256 x 4096 x 14336: 32 tiles of C^T) 4 slices
     * of 3584, and at 64 tokens (64 x 4096 x 4096: 32 narrow tiles) 4 of 1024; bf16 128 x 4096 x 14336 (64 tiles of
     * 128 x 64) 2 slices; 16 x 1024 x 4096 (4 narrow tiles) 16 slices of 256, the least; 256 x 1024 x 4096 (32 tiles of
     * 128 x 64) 4 slices of 1024 */
    g = hcl_test_gemm(HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 0, 0, 1024, 1024, 1024, 0);
    if (plan("sm_90 f16 1024^3", &h100, &g, 1, "hcl_gemm_wg64_f16_f16_nn", &p))
        HCL_TS_CHECK(p.launch[0].grid.x == 128, "sm_90 f16 1024^3: %u blocks, expected 128", p.launch[0].grid.x);
    hcl_kplan_free(&p);
    static const struct {
        hcl_dtype ab, c;
        hcl_compute compute;
        size_t m, n, k, items, kslice;
        const char *part, *sum;
    } wg_sliced[] = {{HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 128, 128, 65536, 128, 1024,
                      "hcl_gemm_wg64_f16_f32_nn", "hcl_gemm_splitk_sum_f16"},
                     {HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 256, 4096, 14336, 128, 3584,
                      "hcl_gemm_wg_tf32_f32_nn", "hcl_gemm_splitk_sum_f32"},
                     {HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 128, 4096, 14336, 128, 7168,
                      "hcl_gemm_wg64_bf16_f32_nn", "hcl_gemm_splitk_sum_f32"},
                     {HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 64, 4096, 4096, 128, 1024,
                      "hcl_gemm_wg_tf32_f32_nn_n64", "hcl_gemm_splitk_sum_f32"},
                     {HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 16, 1024, 4096, 128, 256,
                      "hcl_gemm_wg_f16_f32_nn_n64", "hcl_gemm_splitk_sum_f16"},
                     {HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 256, 1024, 4096, 128, 1024,
                      "hcl_gemm_wg64_f16_f32_nn", "hcl_gemm_splitk_sum_f16"}};
    for (size_t i = 0; i < sizeof wg_sliced / sizeof wg_sliced[0]; i++) {
        const size_t m = wg_sliced[i].m, n = wg_sliced[i].n, k = wg_sliced[i].k;
        g = hcl_test_gemm(wg_sliced[i].ab, wg_sliced[i].c, wg_sliced[i].compute, 0, 0, m, n, k, 0);
        g.alpha = 0.5f;
        g.beta = 2.0f;
        if (!plan("sm_90 Hopper sliced", &h100, &g, 2, wg_sliced[i].sum, &p)) continue;
        const hcl_klaunch *l = &p.launch[0];
        uint64_t kslice = 0, ldc = 0;
        float alpha = -1, beta = -1;
        if (l->num_args == 10) {
            memcpy(&alpha, l->args[3].value, sizeof alpha);
            memcpy(&beta, l->args[6].value, sizeof beta);
            memcpy(&ldc, l->args[8].value, sizeof ldc);
            memcpy(&kslice, l->args[9].value, sizeof kslice);
        }
        HCL_TS_CHECK(strcmp(hcl_test_kernel_name(l), wg_sliced[i].part) == 0 && l->num_args == 10 &&
                         l->grid.x == wg_sliced[i].items && l->shared_bytes == HCL_WG_SMEM_BYTES &&
                         kslice == wg_sliced[i].kslice && alpha == 1.0f && beta == 0.0f && ldc == n &&
                         l->args[7].slot == HCL_KSLOT_SCRATCH &&
                         p.scratch_bytes == hcl_ceil_div(k, wg_sliced[i].kslice) * m * n * 4,
                     "sm_90 Hopper sliced %zux%zux%zu: %s, %u args, grid %u, slices of %" PRIu64
                     ", alpha %g beta %g ldc %" PRIu64 ", scratch %zu; expected %s, grid %zu, slices of %zu",
                     m, n, k, hcl_test_kernel_name(l), l->num_args, l->grid.x, kslice, alpha, beta, ldc,
                     p.scratch_bytes, wg_sliced[i].part, wg_sliced[i].items, wg_sliced[i].kslice);
        hcl_kplan_free(&p);
    }
    /* 256 x 128 tiles where they give at least 3/4 of the SMs a block (4096^3: 512; 2048^3: 128 on 132 SMs), 128 x 128
     * from one per SM (1536^3: 72 and 144), 64 x 64 below (1024^3: 64 tiles of 128 x 128) */
    g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 4096, 4096, 4096, 0);
    if (plan("sm_90 f32 4096^3", &h100, &g, 1, "hcl_gemm_f32_256_nn", &p))
        HCL_TS_CHECK(p.launch[0].grid.x == 32 && p.launch[0].grid.y == 16, "sm_90 f32 4096^3: grid %u x %u",
                     p.launch[0].grid.x, p.launch[0].grid.y);
    hcl_kplan_free(&p);
    static const struct {
        int t; /* both transposed */
        size_t m, k;
        const char *kernel;
    } tiles[] = {{1, 2048, 2048, "hcl_gemm_f32_256_tt"},
                 {0, 1536, 1536, "hcl_gemm_f32_128_nn"},
                 {0, 1024, 1024, "hcl_gemm_f32_64_nn"},
                 {0, 127, 600, "hcl_gemm_f32_64_nn"}}; /* k too short to split */
    for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++) {
        g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, tiles[i].t, tiles[i].t, tiles[i].m, tiles[i].m,
                          tiles[i].k, 0);
        plan("sm_90 f32 square", &h100, &g, 1, tiles[i].kernel, &p);
        hcl_kplan_free(&p);
    }
    /* the tiles mostly inside C: 64 rows fill a quarter of the 256-row tiles (and half of the 128-row ones), so 64 x
     * 128 tiles take 64 x 128256 x 4096 (1002 of them), and 40 rows too (5/8 of the 64-row tiles, either width: the
     * wider tiles are faster); 200 rows fill 78% of one 256-row tile; 1021 x 1031 makes 144 tiles of 64 x 128, too few
     * for two per SM, and takes 272 of 64 x 64 */
    static const struct {
        size_t m, n, k;
        const char *kernel;
        uint32_t grid_x, grid_y;
    } fill[] = {{64, 128256, 4096, "hcl_gemm_f32_64x128_nn", 1002, 1},
                {40, 128256, 4096, "hcl_gemm_f32_64x128_nn", 1002, 1},
                {200, 14336, 4096, "hcl_gemm_f32_256_nn", 112, 1},
                {1021, 1031, 1033, "hcl_gemm_f32_64_nn", 17, 16}};
    for (size_t i = 0; i < sizeof fill / sizeof fill[0]; i++) {
        g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, fill[i].m, fill[i].n, fill[i].k, 0);
        if (plan("sm_90 f32 tile fill", &h100, &g, 1, fill[i].kernel, &p))
            HCL_TS_CHECK(p.launch[0].grid.x == fill[i].grid_x && p.launch[0].grid.y == fill[i].grid_y,
                         "sm_90 f32 %zu x %zu x %zu: grid %u x %u, expected %u x %u", fill[i].m, fill[i].n, fill[i].k,
                         p.launch[0].grid.x, p.launch[0].grid.y, fill[i].grid_x, fill[i].grid_y);
        hcl_kplan_free(&p);
    }
    /* split-K on the largest tiles at least 3/4 full, its slices in whole rounds of the SMs' blocks: 256 x 4096 x 4096
     * on 128 x 128 tiles (64 tiles, two blocks per SM: 264 at once) takes 4 slices (256 blocks, one round), not 5 (320:
     * a second round a fifth full); 64 x 4096 x 4096 on 64 x 128 tiles (32) takes 8, not 9; 40 x 4096 x 4096 on 64 x
     * 64 tiles (64, three per SM: 396) takes 6, not 7; 64 x 14336 x 4096 (112 tiles of 64 x 128) takes 2 */
    static const struct {
        size_t m, n;
        const char *kernel;
        uint32_t slices;
    } rounds[] = {{256, 4096, "hcl_gemm_splitk_f32_128_nn", 4},
                  {64, 4096, "hcl_gemm_splitk_f32_64x128_nn", 8},
                  {40, 4096, "hcl_gemm_splitk_f32_nn", 6},
                  {64, 14336, "hcl_gemm_splitk_f32_64x128_nn", 2}};
    for (size_t i = 0; i < sizeof rounds / sizeof rounds[0]; i++) {
        g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, rounds[i].m, rounds[i].n, 4096, 0);
        if (plan("sm_90 f32 split-K rounds", &h100, &g, 2, "hcl_gemm_splitk_sum_f32", &p))
            HCL_TS_CHECK(strcmp(hcl_test_kernel_name(&p.launch[0]), rounds[i].kernel) == 0 &&
                             p.launch[0].grid.z == rounds[i].slices,
                         "sm_90 f32 %zu x %zu x 4096: %s over %u slices, expected %s over %u", rounds[i].m, rounds[i].n,
                         hcl_test_kernel_name(&p.launch[0]), p.launch[0].grid.z, rounds[i].kernel, rounds[i].slices);
        hcl_kplan_free(&p);
    }
}

/* Argument `arg` of launch l as a u64. */
static uint64_t arg_u64(const hcl_klaunch *l, uint32_t arg) {
    uint64_t v = 0;
    if (arg < l->num_args && l->args[arg].size == sizeof v) memcpy(&v, l->args[arg].value, sizeof v);
    return v;
}

/* The few-rows kernels of kernels/gemm/gemm_rows.cu on sm_90 (plan_rows.c): 1, 4 and 16 rows x 4096 x 4096 for every
 * type pair and TF32, B's rows along the columns (n) or along k (t), over slices of k that fill the SMs once or twice
 * but in one wave of two blocks an SM (each a multiple of 64, the scratch one m x n of floats a slice), summed in C's
 * type; 17 rows go elsewhere, and
 * so do 16-bit inputs of 16 rows where a matrix-unit kernel takes them (faster there), not where none does (gfx1030),
 * and TF32 "nn" of 16 rows (the narrow Hopper kernel);
 * a C of one or a few columns runs on swapped operands (the kernel's rows are C's columns, its products written
 * transposed). */
static void rows(void) {
    const hcl_kdevice h100 = hcl_test_gpu(90);
    static const struct {
        hcl_dtype ab, c;
        hcl_compute compute;
    } types[] = {{HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32},  {HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32},
                 {HCL_DTYPE_F16, HCL_DTYPE_F32, HCL_COMPUTE_F32},  {HCL_DTYPE_BF16, HCL_DTYPE_BF16, HCL_COMPUTE_F32},
                 {HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32}, {HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32}};
    static const size_t ms[] = {1, 4, 16, 17};
    hcl_kplan p;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
        for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
            for (int tb = 0; tb < 2; tb++) {
                const size_t m = ms[i], n = 4096, k = 4096;
                const hcl_kgemm g =
                    hcl_test_gemm(types[t].ab, types[t].c, types[t].compute, (int)(i & 1), tb, m, n, k, 0);
                char what[96], part[64], sum[64];
                snprintf(what, sizeof what, "sm_90 %s -> %s%s %zu x 4096 x 4096 %s", hcl_kdtype_name(g.ab_type),
                         hcl_kdtype_name(g.c_type), g.compute == HCL_COMPUTE_TF32 ? " (TF32)" : "", m,
                         (i & 1) ? (tb ? "tt" : "tn") : (tb ? "nt" : "nn"));
                snprintf(part, sizeof part, "hcl_gemm_rows_%s_%zu_%c", hcl_kdtype_name(g.ab_type), m, tb ? 't' : 'n');
                snprintf(sum, sizeof sum, "hcl_gemm_splitk_sum_%s", hcl_kdtype_name(g.c_type));
                const hcl_status st = hcl_plan_gemm(&h100, &g, &p);
                HCL_TS_CHECK(st == HCL_SUCCESS, "%s: status %d (%s)", what, (int)st, p.why);
                if (st != HCL_SUCCESS) continue;
                const char *got = hcl_test_kernel_name(&p.launch[0]);
                if (g.compute == HCL_COMPUTE_TF32 && m > 4 && m <= 64 && !(i & 1) && !tb) { /* TF32 "nn" from 5 */
                    HCL_TS_CHECK(strcmp(got, "hcl_gemm_wg_tf32_f32_nn_n64") == 0, "%s: %s, not the narrow kernel", what,
                                 got);
                    hcl_kplan_free(&p);
                    continue;
                }
                if (m > 16 || (g.ab_type != HCL_DTYPE_F32 && m > 4)) { /* 16-bit from 5 rows: the matrix unit's */
                    HCL_TS_CHECK(strncmp(got, "hcl_gemm_rows_", 14) != 0, "%s: %s, not a rows kernel", what, got);
                    hcl_kplan_free(&p);
                    continue;
                }
                if (!plan(what, &h100, &g, 2, sum, &p)) continue;
                const hcl_klaunch *l = &p.launch[0];
                const uint64_t kslice = arg_u64(l, 3);
                /* columns a block: t 32; n 32 vectors of 16 bytes, of 8 at 16 rows of 16-bit values */
                const size_t esize = hcl_kdtype_size(g.ab_type),
                             cols = tb ? 32 : 32 * (m * 16 / esize > 64 ? 8 / esize : 16 / esize);
                HCL_TS_CHECK(strcmp(hcl_test_kernel_name(l), part) == 0 && l->grid.x == n / cols && l->grid.z == 1 &&
                                 l->block.x == 256 && kslice % 64 == 0 && l->grid.y * kslice >= k &&
                                 (l->grid.y - 1) * kslice < k && l->grid.x * l->grid.y >= 132 &&
                                 l->grid.x * l->grid.y <= 2 * 132 &&
                                 p.scratch_bytes == (size_t)l->grid.y * m * n * sizeof(float) && arg_u64(l, 0) == m &&
                                 arg_u64(l, 1) == n && arg_u64(l, 5) == ((i & 1) ? 1 : k) &&
                                 arg_u64(l, 6) == ((i & 1) ? m : 1) && arg_u64(l, 8) == (tb ? k : n) &&
                                 arg_u64(l, 10) == n && arg_u64(l, 11) == 1 && l->args[4].slot == HCL_KSLOT_A &&
                                 l->args[7].slot == HCL_KSLOT_B && l->args[9].slot == HCL_KSLOT_SCRATCH,
                             "%s: %s grid %u x %u x %u, slices of %" PRIu64 ", scratch %zu, a %" PRIu64 " %" PRIu64
                             ", ldb %" PRIu64 "; expected %s",
                             what, hcl_test_kernel_name(l), l->grid.x, l->grid.y, l->grid.z, kslice, p.scratch_bytes,
                             arg_u64(l, 5), arg_u64(l, 6), arg_u64(l, 8), part);
                hcl_kplan_free(&p);
            }
    /* one column (the former gemv shapes) and a few: C^T = B^T A^T, the kernel's B the stored A */
    static const struct {
        int ta, tb;
        size_t m, n;
        const char *kernel;
    } cols[] = {{0, 0, 4096, 1, "hcl_gemm_rows_f32_1_t"},
                {1, 0, 4096, 1, "hcl_gemm_rows_f32_1_n"},
                {0, 1, 4093, 3, "hcl_gemm_rows_f32_4_t"},
                {1, 1, 4093, 16, "hcl_gemm_rows_f32_16_n"}};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        const hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, cols[i].ta, cols[i].tb,
                                          cols[i].m, cols[i].n, 4096, 0);
        if (plan("sm_90 f32 few columns", &h100, &g, 2, "hcl_gemm_splitk_sum_f32", &p)) {
            const hcl_klaunch *l = &p.launch[0];
            HCL_TS_CHECK(
                strcmp(hcl_test_kernel_name(l), cols[i].kernel) == 0 && l->grid.y >= 2 && arg_u64(l, 0) == cols[i].n &&
                    arg_u64(l, 1) == cols[i].m && l->args[4].slot == HCL_KSLOT_B && l->args[7].slot == HCL_KSLOT_A &&
                    arg_u64(l, 8) == g.lda && arg_u64(l, 10) == 1 && arg_u64(l, 11) == cols[i].n,
                "%zux%zux4096 %d%d: %s over %u slices, rows %" PRIu64 ", p %" PRIu64 " %" PRIu64 "; expected %s",
                cols[i].m, cols[i].n, cols[i].ta, cols[i].tb, hcl_test_kernel_name(l), l->grid.y, arg_u64(l, 0),
                arg_u64(l, 10), arg_u64(l, 11), cols[i].kernel);
        }
        hcl_kplan_free(&p);
    }
    /* 16-bit inputs of 16 rows where no matrix-unit kernel takes them: an RDNA part (gfx1030: no MFMA) */
    const hcl_kdevice rdna = hcl_test_amd("gfx1030");
    static const hcl_dtype half[2] = {HCL_DTYPE_F16, HCL_DTYPE_BF16};
    for (int t = 0; t < 2; t++) {
        const hcl_kgemm g16 = hcl_test_gemm(half[t], half[t], HCL_COMPUTE_F32, 0, 1, 16, 4096, 4096, 0);
        if (plan("gfx1030 16-bit 16 x 4096 x 4096 nt", &rdna, &g16, 2,
                 t ? "hcl_gemm_splitk_sum_bf16" : "hcl_gemm_splitk_sum_f16", &p))
            HCL_TS_CHECK(strcmp(hcl_test_kernel_name(&p.launch[0]),
                                t ? "hcl_gemm_rows_bf16_16_t" : "hcl_gemm_rows_f16_16_t") == 0,
                         "gfx1030 16 x 4096 x 4096: %s", hcl_test_kernel_name(&p.launch[0]));
        hcl_kplan_free(&p);
    }
    /* a k too short for the second launch to pay: the tensor-core kernels (f16) and the short-k kernel (f32) */
    hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_F16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 4, 4096, 63, 0);
    if (hcl_plan_gemm(&h100, &g, &p) == HCL_SUCCESS)
        HCL_TS_CHECK(strncmp(hcl_test_kernel_name(&p.launch[0]), "hcl_gemm_rows_", 14) != 0,
                     "sm_90 f16 4 x 4096 x 63: %s", hcl_test_kernel_name(&p.launch[0]));
    hcl_kplan_free(&p);
    g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 1, 4096, 8, 0);
    plan("sm_90 f32 1 x 4096 x 8", &h100, &g, 1, "hcl_gemm_smallk_f32", &p);
    hcl_kplan_free(&p);
}

/* The MFMA kernels of kernels/gemm/gemm_mfma.cu on gfx90a and gfx940: every type pair and transpose, 256 threads per
 * 128 x 128 tile (m, n, k of any size: primes, 1); gfx908 for f16 only; SIMT kernels elsewhere; TF32 refused. */
static void amd_mfma(void) {
    static const char *const targets[2] = {"gfx90a", "gfx940"};
    static const char *const names[4] = {"nn", "nt", "tn", "tt"};
    static const struct {
        hcl_dtype ab, c;
    } types[4] = {{HCL_DTYPE_F16, HCL_DTYPE_F16},
                  {HCL_DTYPE_F16, HCL_DTYPE_F32},
                  {HCL_DTYPE_BF16, HCL_DTYPE_BF16},
                  {HCL_DTYPE_BF16, HCL_DTYPE_F32}};
    static const size_t shapes[3][3] = {{1000, 3000, 200}, {1, 1, 9}, {257, 131, 509}}; /* k <= 8: the short-k kernel */
    hcl_kplan p;
    for (int d = 0; d < 2; d++) {
        const hcl_kdevice dev = hcl_test_amd(targets[d]);
        for (int ty = 0; ty < 4; ty++)
            for (int t = 0; t < 4; t++)
                for (int s = 0; s < 3; s++) {
                    const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                    hcl_kgemm g = hcl_test_gemm(types[ty].ab, types[ty].c, HCL_COMPUTE_F32, t >> 1, t & 1, m, n, k, s);
                    g.alpha = 1.5f, g.beta = s == 1 ? 0.0f : -0.5f;
                    char what[96], kernel[64];
                    snprintf(what, sizeof what, "%s %s -> %s %s %zux%zux%zu", targets[d], hcl_kdtype_name(g.ab_type),
                             hcl_kdtype_name(g.c_type), names[t], m, n, k);
                    snprintf(kernel, sizeof kernel, "hcl_gemm_mfma_%s_%s_%s", hcl_kdtype_name(g.ab_type),
                             hcl_kdtype_name(g.c_type), names[t]);
                    if (plan(what, &dev, &g, 1, kernel, &p)) {
                        const hcl_klaunch *l = &p.launch[0];
                        HCL_TS_CHECK(l->grid.x == (n + 127) / 128 && l->grid.y == (m + 127) / 128 && l->grid.z == 1 &&
                                         l->block.x == 256 && l->block.y == 1 && l->shared_bytes == 0 &&
                                         p.scratch_bytes == 0,
                                     "%s: grid %u x %u x %u, block %u x %u, shared %zu, scratch %zu", what, l->grid.x,
                                     l->grid.y, l->grid.z, l->block.x, l->block.y, l->shared_bytes, p.scratch_bytes);
                        /* the SIMT kernels' arguments: m, n, k, alpha, A, lda, B, ldb, beta, C, ldc */
                        uint64_t v[3];
                        memcpy(&v[0], l->args[0].value, 8), memcpy(&v[1], l->args[2].value, 8);
                        memcpy(&v[2], l->args[10].value, 8);
                        float alpha, beta;
                        memcpy(&alpha, l->args[3].value, 4), memcpy(&beta, l->args[8].value, 4);
                        HCL_TS_CHECK(
                            l->num_args == 11 && v[0] == m && v[1] == k && v[2] == g.ldc && alpha == 1.5f &&
                                beta == g.beta && l->args[4].slot == HCL_KSLOT_A && l->args[6].slot == HCL_KSLOT_B &&
                                l->args[9].slot == HCL_KSLOT_C,
                            "%s: arguments are not the SIMT kernels' (m, n, k, alpha, A, lda, B, ldb, beta, C, ldc)",
                            what);
                    }
                    hcl_kplan_free(&p);
                }
        /* a grid over 65535 tiles a dimension is capped; the kernel strides */
        hcl_kdevice capped = dev;
        capped.max_groups[0] = 7;
        hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 300, 5000, 64, 0);
        if (plan("capped grid", &capped, &g, 1, "hcl_gemm_mfma_bf16_f32_nn", &p))
            HCL_TS_CHECK(p.launch[0].grid.x == 7 && p.launch[0].grid.y == 3, "capped grid: %u x %u", p.launch[0].grid.x,
                         p.launch[0].grid.y);
        hcl_kplan_free(&p);
        /* TF32: no MFMA kernel, refused with the reason (no SIMT fallback) */
        g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32, 0, 0, 64, 64, 64, 0);
        hcl_status st = hcl_plan_gemm(&dev, &g, &p);
        HCL_TS_CHECK(st == HCL_ERROR_UNSUPPORTED && strstr(p.why, "TF32") != NULL, "%s TF32: status %d (%s)",
                     targets[d], (int)st, p.why);
        hcl_kplan_free(&p);
        /* f32: the SIMT kernels */
        g = hcl_test_gemm(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 1, 64, 64, 64, 0);
        plan("f32 on MFMA", &dev, &g, 1, "hcl_gemm_f32_64_nt", &p);
        hcl_kplan_free(&p);
    }
    /* gfx908: f16 on MFMA, bf16 (no bf16_1k) on the SIMT kernels */
    const hcl_kdevice mi100 = hcl_test_amd("gfx908");
    hcl_kgemm g = hcl_test_gemm(HCL_DTYPE_F16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 1, 1, 4096, 4096, 4096, 0);
    if (plan("gfx908 f16", &mi100, &g, 1, "hcl_gemm_mfma_f16_f32_tt", &p))
        HCL_TS_CHECK(p.launch[0].grid.x == 32 && p.launch[0].grid.y == 32, "gfx908 f16: grid %u x %u",
                     p.launch[0].grid.x, p.launch[0].grid.y);
    hcl_kplan_free(&p);
    g = hcl_test_gemm(HCL_DTYPE_BF16, HCL_DTYPE_BF16, HCL_COMPUTE_F32, 1, 1, 4096, 4096, 4096, 0);
    plan("gfx908 bf16", &mi100, &g, 1, "hcl_gemm_bf16_bf16_128_tt", &p);
    hcl_kplan_free(&p);
    /* gfx1030 (RDNA2, wave32, no matrix unit): the SIMT kernels, 64 x 64 tiles for a small problem */
    const hcl_kdevice rdna = hcl_test_amd("gfx1030");
    for (int ty = 0; ty < 4; ty++) {
        g = hcl_test_gemm(types[ty].ab, types[ty].c, HCL_COMPUTE_F32, 0, 1, 100, 200, 30, 0);
        char what[64], kernel[64];
        snprintf(what, sizeof what, "gfx1030 %s -> %s", hcl_kdtype_name(g.ab_type), hcl_kdtype_name(g.c_type));
        snprintf(kernel, sizeof kernel, "hcl_gemm_%s_%s_64_nt", hcl_kdtype_name(g.ab_type), hcl_kdtype_name(g.c_type));
        plan(what, &rdna, &g, 1, kernel, &p);
        hcl_kplan_free(&p);
    }
    /* less LDS a block than the kernels' 40 KiB: SIMT */
    hcl_kdevice small = hcl_test_amd("gfx90a");
    small.local_mem = 32768;
    g = hcl_test_gemm(HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32, 0, 0, 100, 100, 100, 0);
    plan("MFMA with 32 KiB of LDS", &small, &g, 1, "hcl_gemm_bf16_f32_64_nn", &p);
    hcl_kplan_free(&p);
    /* a device that says MFMA but lists no type (a driver that knows the unit, not the kernels): SIMT */
    hcl_kdevice unknown = hcl_test_amd("gfx90a");
    unknown.matrix_types = 0;
    g = hcl_test_gemm(HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32, 0, 0, 100, 100, 100, 0);
    plan("MFMA without types", &unknown, &g, 1, "hcl_gemm_f16_f16_64_nn", &p);
    hcl_kplan_free(&p);
}

/* softmax: the kernel and grid per row length on sm_90 (a block a row up to 32768 columns, 32 values a thread, 16-bit
 * rows above 4096 columns 64; clusters of 2 to 8 blocks above, each cluster over 4 float rows or 2 16-bit rows with 128
 * bytes of shared memory a thread where the driver does not say how many clusters run at once, the streamed kernel
 * past 262144 floats or 524288 16-bit values) and on sm_80 (no clusters: the staged kernel above 32768); short rows of
 * whole 16-byte vectors two vectors a lane, several rows a warp; 16-bit rows of whole vectors above 64 columns 64
 * values a lane (warp64, up to 2048 columns). */
static void softmax_rows(void) {
    static const struct {
        uint32_t arch;
        hcl_dtype type;
        size_t rows, cols;
        const char *kernel;
        uint32_t grid, block;
    } cases[] = {{90, HCL_DTYPE_F16, 1000, 256, "hcl_softmax_warp64_f16", 16, 256},
                 {90, HCL_DTYPE_F16, 1000, 1024, "hcl_softmax_warp64_f16", 63, 256},
                 {90, HCL_DTYPE_BF16, 1000, 2048, "hcl_softmax_warp64_bf16", 125, 256},
                 {90, HCL_DTYPE_BF16, 1000, 72, "hcl_softmax_warp16_bf16", 32, 256},
                 {90, HCL_DTYPE_F16, 1000, 128, "hcl_softmax_warp16_f16", 32, 256},
                 {90, HCL_DTYPE_F16, 1000, 136, "hcl_softmax_warp64_f16", 16, 256},
                 /* short rows: at most 64 blocks a compute unit (the test device has 132) */
                 {90, HCL_DTYPE_F16, 1 << 22, 32, "hcl_softmax_warp16_f16", 132 * 64, 256},
                 {90, HCL_DTYPE_F32, 1 << 22, 32, "hcl_softmax_warp8_f32", 132 * 64, 256},
                 {90, HCL_DTYPE_F16, 1000, 1022, "hcl_softmax_warp32_f16", 125, 256},
                 {90, HCL_DTYPE_F16, 1000, 64, "hcl_softmax_warp16_f16", 16, 256},
                 {90, HCL_DTYPE_F16, 1000, 62, "hcl_softmax_warp2_f16", 125, 256},
                 {90, HCL_DTYPE_F32, 1000, 32, "hcl_softmax_warp8_f32", 16, 256},
                 {90, HCL_DTYPE_F32, 1000, 128, "hcl_softmax_warp8_f32", 63, 256},
                 {90, HCL_DTYPE_F32, 1000, 30, "hcl_softmax_warp1_f32", 125, 256},
                 {90, HCL_DTYPE_F16, 1000, 136, "hcl_softmax_warp64_f16", 16, 256},
                 {90, HCL_DTYPE_F32, 1000, 256, "hcl_softmax_warp8_f32", 125, 256},
                 {90, HCL_DTYPE_F16, 1000, 1025, "hcl_softmax_split1_32_f16", 1000, 64},
                 {90, HCL_DTYPE_BF16, 1000, 2056, "hcl_softmax_split1_32_bf16", 1000, 128},
                 {90, HCL_DTYPE_F16, 1000, 4096, "hcl_softmax_split1_32_f16", 1000, 128},
                 {90, HCL_DTYPE_F16, 1000, 4104, "hcl_softmax_split1_64_f16", 1000, 128},
                 {90, HCL_DTYPE_F16, 1000, 16384, "hcl_softmax_split1_64_f16", 1000, 256},
                 {90, HCL_DTYPE_F16, 100, 16384, "hcl_softmax_split1_64_f16", 100, 256},
                 {90, HCL_DTYPE_F16, 1000, 16385, "hcl_softmax_split1_64_f16", 1000, 512},
                 {90, HCL_DTYPE_BF16, 1000, 32768, "hcl_softmax_split1_64_bf16", 1000, 512},
                 {90, HCL_DTYPE_F16, 1000, 32769, "hcl_softmax_split2_64_f16", 1000, 512},
                 {90, HCL_DTYPE_F16, 1000, 65537, "hcl_softmax_split4_64_f16", 2000, 512},
                 {90, HCL_DTYPE_BF16, 10, 262144, "hcl_softmax_split8_64_bf16", 40, 512},
                 {90, HCL_DTYPE_F16, 10, 524288, "hcl_softmax_split8_64_f16", 40, 1024},
                 {90, HCL_DTYPE_F16, 10, 524289, "hcl_softmax_block_f16", 10, 1024},
                 {90, HCL_DTYPE_F32, 1000, 4096, "hcl_softmax_split1_32_f32", 1000, 128},
                 {90, HCL_DTYPE_F32, 1000, 16385, "hcl_softmax_split1_32_f32", 1000, 1024},
                 {90, HCL_DTYPE_F32, 1000, 32768, "hcl_softmax_split1_32_f32", 1000, 1024},
                 {90, HCL_DTYPE_F32, 1000, 32769, "hcl_softmax_split4_32_f32", 1000, 512},
                 {90, HCL_DTYPE_F32, 1000, 65536, "hcl_softmax_split4_32_f32", 1000, 512},
                 {90, HCL_DTYPE_F32, 1000, 65537, "hcl_softmax_split8_32_f32", 2000, 512},
                 {90, HCL_DTYPE_F32, 10, 262144, "hcl_softmax_split8_32_f32", 24, 1024},
                 {90, HCL_DTYPE_F32, 10, 262145, "hcl_softmax_block_f32", 10, 1024},
                 {80, HCL_DTYPE_F16, 1000, 16385, "hcl_softmax_split1_64_f16", 1000, 512},
                 {80, HCL_DTYPE_F16, 1000, 32769, "hcl_softmax_block_staged_f16", 1000, 1024}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const hcl_kdevice dev = hcl_test_gpu(cases[i].arch);
        hcl_kplan p;
        memset(&p, 0, sizeof p);
        hcl_status st = hcl_plan_softmax(&dev, cases[i].type, cases[i].rows, cases[i].cols, &p);
        HCL_TS_CHECK(st == HCL_SUCCESS && p.count == 1, "softmax %zu x %zu on sm_%u: status %d, %zu launches",
                     cases[i].rows, cases[i].cols, cases[i].arch, (int)st, p.count);
        if (st == HCL_SUCCESS && p.count == 1) {
            const hcl_klaunch *l = &p.launch[0];
            HCL_TS_CHECK(strcmp(hcl_test_kernel_name(l), cases[i].kernel) == 0 && l->grid.x == cases[i].grid &&
                             l->block.x == cases[i].block,
                         "softmax %zu x %zu on sm_%u: %s over %u x %u, expected %s over %u x %u", cases[i].rows,
                         cases[i].cols, cases[i].arch, hcl_test_kernel_name(l), l->grid.x, l->block.x, cases[i].kernel,
                         cases[i].grid, cases[i].block);
            const size_t stage = strstr(cases[i].kernel, "split") && !strstr(cases[i].kernel, "split1_")
                                     ? (size_t)cases[i].block * 128
                                     : 0;
            HCL_TS_CHECK(strstr(cases[i].kernel, "staged") || l->shared_bytes == stage,
                         "softmax %zu x %zu on sm_%u: %zu bytes of shared memory, expected %zu", cases[i].rows,
                         cases[i].cols, cases[i].arch, l->shared_bytes, stage);
        }
        hcl_kplan_free(&p);
    }
}

/* The fake driver's answer to kernel_max_clusters (H100: 15 clusters of 8 blocks of 1024 threads with 128 KiB each);
 * the last question it was asked. */
static uint32_t g_resident = 15, g_asked_blocks, g_asked_threads;
static uint64_t g_asked_shared;
static uint32_t max_clusters(const hcl_kdevice *dev, hcl_kprog prog, int kernel, uint32_t cluster_blocks,
                             uint32_t threads, uint64_t shared_bytes) {
    (void)dev, (void)prog, (void)kernel;
    g_asked_blocks = cluster_blocks, g_asked_threads = threads, g_asked_shared = shared_bytes;
    return g_resident;
}

/* softmax clusters where the driver says how many run at once: that many, one wave, each over an equal share of the
 * rows (never more clusters than rows); 0 from the driver: 4 float rows a cluster as without it. */
static void softmax_resident(void) {
    hcl_kdevice dev = hcl_test_gpu(90);
    dev.kernel_max_clusters = max_clusters;
    static const struct {
        uint32_t resident;
        size_t rows, cols;
        uint32_t grid;
    } cases[] = {{15, 512, 262144, 15 * 8}, {15, 10, 262144, 10 * 8}, {0, 512, 262144, 128 * 8}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        g_resident = cases[i].resident;
        g_asked_blocks = g_asked_threads = 0, g_asked_shared = 0;
        hcl_kplan p;
        memset(&p, 0, sizeof p);
        hcl_status st = hcl_plan_softmax(&dev, HCL_DTYPE_F32, cases[i].rows, cases[i].cols, &p);
        HCL_TS_CHECK(st == HCL_SUCCESS && p.count == 1 && p.launch[0].grid.x == cases[i].grid && g_asked_blocks == 8 &&
                         g_asked_threads == 1024 && g_asked_shared == 1024 * 128,
                     "softmax %zu x %zu, %u clusters resident: status %d, grid %u (expected %u), asked for clusters of "
                     "%u x %u threads, %llu bytes",
                     cases[i].rows, cases[i].cols, cases[i].resident, (int)st, p.count ? p.launch[0].grid.x : 0,
                     cases[i].grid, g_asked_blocks, g_asked_threads, (unsigned long long)g_asked_shared);
        hcl_kplan_free(&p);
    }
}

/* softmax on an OpenCL GPU, long rows: up to 64 columns a work-item of 256 the cached64 kernel; longer rows of whole
 * vectors of 4 (16-bit: of 8) over `parts` groups of 32 columns a work-item (16-bit: 64; the last argument), the
 * fewest that hold the row; other long rows the streamed kernel (chunk 1). */
static void softmax_cl_long(void) {
    hcl_kdevice dev = hcl_test_cl_gpu();
    static const struct {
        hcl_dtype type;
        size_t cols;
        const char *kernel;
        uint32_t grid, group; /* for 100 rows */
        uint64_t last_arg;
    } cases[] = {
        {HCL_DTYPE_F16, 16384, "hcl_softmax_cached64_f16", 100, 256, 1},
        {HCL_DTYPE_F16, 262144, "hcl_softmax_parts_f16", 1600, 256, 16},
        {HCL_DTYPE_BF16, 32768, "hcl_softmax_parts_bf16", 200, 256, 2},
        {HCL_DTYPE_BF16, 32772, "hcl_softmax_bf16", 100, 256, 1},
        {HCL_DTYPE_F32, 32772, "hcl_softmax_parts_f32", 500, 224, 5},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcl_kplan p;
        memset(&p, 0, sizeof p);
        hcl_status st = hcl_plan_softmax(&dev, cases[i].type, 100, cases[i].cols, &p);
        HCL_TS_CHECK(st == HCL_SUCCESS && p.count == 1, "CL softmax 100 x %zu: status %d, %zu launches", cases[i].cols,
                     (int)st, p.count);
        if (st == HCL_SUCCESS && p.count == 1) {
            const hcl_klaunch *l = &p.launch[0];
            uint64_t last = 0;
            memcpy(&last, l->args[4].value, sizeof last);
            HCL_TS_CHECK(strcmp(hcl_test_kernel_name(l), cases[i].kernel) == 0 && l->grid.x == cases[i].grid &&
                             l->block.x == cases[i].group && l->block.y == 1 && last == cases[i].last_arg,
                         "CL softmax 100 x %zu %s: %s over %u groups of %u x %u, last argument %llu; expected %s over "
                         "%u of %u, last argument %llu",
                         cases[i].cols, hcl_kdtype_name(cases[i].type), hcl_test_kernel_name(l), l->grid.x, l->block.x,
                         l->block.y, (unsigned long long)last, cases[i].kernel, cases[i].grid, cases[i].group,
                         (unsigned long long)cases[i].last_arg);
        }
        hcl_kplan_free(&p);
    }
}

/* The CL softmax plan of rows x cols of `type` on dev, checked to hold `launches` launches: its last launch, with its
 * first row (argument 2) and its last argument (4) in *row_begin and *last; NULL (reported) otherwise. `what` names the
 * device in messages. p is the caller's to free. */
static const hcl_klaunch *cl_softmax_last(const hcl_kdevice *dev, const char *what, hcl_dtype type, size_t rows,
                                          size_t cols, size_t launches, hcl_kplan *p, uint64_t *row_begin,
                                          uint64_t *last) {
    memset(p, 0, sizeof *p);
    hcl_status st = hcl_plan_softmax(dev, type, rows, cols, p);
    HCL_TS_CHECK(st == HCL_SUCCESS && p->count == launches, "%s softmax %zu x %zu: status %d, %zu launches", what, rows,
                 cols, (int)st, p->count);
    if (st != HCL_SUCCESS || p->count != launches) return NULL;
    const hcl_klaunch *l = &p->launch[p->count - 1];
    memcpy(row_begin, l->args[2].value, sizeof *row_begin);
    memcpy(last, l->args[4].value, sizeof *last);
    return l;
}

/* A CL softmax case: rows x cols of `type` (in batches where the device allows max_groups groups a launch, when not 0)
 * planned in `launches` launches, the last one `kernel` over `grid` groups of lanes x per_group work-items from row
 * row_begin, its last argument last_arg (its row_end; its chunk for the one-row-a-group kernels), with a float of local
 * memory a work-item. */
typedef struct cl_softmax_case {
    hcl_dtype type;
    size_t rows, cols;
    uint32_t max_groups;
    const char *kernel;
    size_t launches;
    uint32_t grid, lanes, per_group;
    uint64_t row_begin, last_arg;
} cl_softmax_case;

static void check_cl_softmax(hcl_kdevice dev, const char *what, const cl_softmax_case *c) {
    if (c->max_groups) dev.max_groups[0] = c->max_groups;
    hcl_kplan p;
    uint64_t row_begin = 0, last = 0;
    const hcl_klaunch *l = cl_softmax_last(&dev, what, c->type, c->rows, c->cols, c->launches, &p, &row_begin, &last);
    if (l) {
        HCL_TS_CHECK(
            strcmp(hcl_test_kernel_name(l), c->kernel) == 0 && l->grid.x == c->grid && l->block.x == c->lanes &&
                l->block.y == c->per_group && l->block.z == 1 && row_begin == c->row_begin && last == c->last_arg &&
                l->shared_bytes == (size_t)c->lanes * c->per_group * sizeof(float),
            "%s softmax %zu x %zu %s: %s over %u groups of %u x %u x %u from row %llu, last argument %llu, %zu "
            "bytes of local memory; expected %s over %u of %u x %u from row %llu, last argument %llu",
            what, c->rows, c->cols, hcl_kdtype_name(c->type), hcl_test_kernel_name(l), l->grid.x, l->block.x,
            l->block.y, l->block.z, (unsigned long long)row_begin, (unsigned long long)last, l->shared_bytes, c->kernel,
            c->grid, c->lanes, c->per_group, (unsigned long long)c->row_begin, (unsigned long long)c->last_arg);
    }
    hcl_kplan_free(&p);
}

/* softmax on an OpenCL GPU (the H100 through NVIDIA's OpenCL): short rows of whole vectors of 4 several to a
 * work-group, local sizes (L, R), the last argument the launch's row_end (the rows kernels skip rows from there on);
 * rows of up to 32 columns 8 columns a work-item, longer 16; odd or longer rows one work-group a row. Also in batches
 * where the device allows 3 groups a launch. */
static void softmax_cl_rows(void) {
    static const cl_softmax_case cases[] = {
        {HCL_DTYPE_F32, 1000, 32, 0, "hcl_softmax_rows8_f32", 1, 16, 4, 64, 0, 1000},
        {HCL_DTYPE_BF16, 1000, 4, 0, "hcl_softmax_rows8_bf16", 1, 16, 1, 64, 0, 1000},
        {HCL_DTYPE_F32, 1000, 64, 0, "hcl_softmax_rows_f32", 1, 16, 4, 64, 0, 1000},
        {HCL_DTYPE_F16, 1000, 256, 0, "hcl_softmax_rows_f16", 1, 63, 16, 16, 0, 1000},
        {HCL_DTYPE_BF16, 1000, 512, 0, "hcl_softmax_rows_bf16", 1, 125, 32, 8, 0, 1000},
        {HCL_DTYPE_F32, 1000, 516, 0, "hcl_softmax_cached_f32", 1, 1000, 64, 1, 0, 1},
        {HCL_DTYPE_F32, 1000, 30, 0, "hcl_softmax_cached_f32", 1, 1000, 32, 1, 0, 1},
        {HCL_DTYPE_F32, 1000, 32, 3, "hcl_softmax_rows8_f32", 6, 1, 4, 64, 960, 1000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_cl_softmax(hcl_test_cl_gpu(), "CL", &cases[i]);
}

/* softmax on OpenCL CPU devices, PoCL 3.1's limits and Intel's OpenCL CPU runtime's (groups of up to 8192, 256 KiB of
 * local memory): whatever the runtime, work-groups of one work-item (the streamed kernel then takes its rows in vectors
 * of 8 from any element: softmax.cl, hcl_softmax_row1), a row each, or rows of under 512 elements several (up to 64)
 * each, the launch's row end as the last argument; rows of any length and type, in batches where the device allows
 * fewer groups a launch. */
static void softmax_cl_cpu(void) {
    hcl_kdevice devs[2] = {hcl_test_pocl(), hcl_test_pocl()};
    devs[1].max_group_size = 8192;
    devs[1].local_mem = 262144;
#define ONE_ITEM_GROUPS(type, rows, cols, max_groups, kernel, launches, grid, row_begin, row_end)                      \
    { type, rows, cols, max_groups, kernel, launches, grid, 1, 1, row_begin, row_end }
    static const cl_softmax_case cases[] = {
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 257, 1001, 0, "hcl_softmax_f32", 1, 257, 0, 257),
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 3, 20011, 0, "hcl_softmax_f32", 1, 3, 0, 3),
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 100, 512, 0, "hcl_softmax_f32", 1, 100, 0, 100),
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 100, 511, 0, "hcl_softmax_f32", 1, 100, 0, 100),
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 100, 256, 0, "hcl_softmax_f32", 1, 50, 0, 100),
        ONE_ITEM_GROUPS(HCL_DTYPE_F16, 1000, 32, 0, "hcl_softmax_f16", 1, 63, 0, 1000),
        ONE_ITEM_GROUPS(HCL_DTYPE_BF16, 10, 262144, 0, "hcl_softmax_bf16", 1, 10, 0, 10),
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 1000, 7, 0, "hcl_softmax_f32", 1, 16, 0, 1000),
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 1000, 1024, 300, "hcl_softmax_f32", 4, 100, 900, 1000),
        ONE_ITEM_GROUPS(HCL_DTYPE_F32, 1000, 32, 30, "hcl_softmax_f32", 3, 3, 960, 1000),
    };
    for (int d = 0; d < 2; d++)
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            check_cl_softmax(devs[d], d ? "CPU 1" : "CPU 0", &cases[i]);
#undef ONE_ITEM_GROUPS
}

/* Every launch of every plan on every test device holds its arguments (a launch may take at most
 * HCL_KLAUNCH_MAX_ARGS; one that asks for more is refused by the core). The short-k kernel took 13 while the bound
 * was 12: every gemm of k <= 8 on CUDA and HIP devices failed with HCL_ERROR_INTERNAL. */
static void check_args(const char *what, const hcl_kplan *p) {
    for (size_t i = 0; i < p->count; i++)
        HCL_TS_CHECK(p->launch[i].num_args <= HCL_KLAUNCH_MAX_ARGS,
                     "%s: launch %zu (%s) asks for %u arguments (at most %d)", what, i,
                     hcl_test_kernel_name(&p->launch[i]), p->launch[i].num_args, HCL_KLAUNCH_MAX_ARGS);
}

static void arguments_fit(void) {
    const hcl_kdevice devs[] = {
        hcl_test_gpu(90),        hcl_test_gpu(80),  hcl_test_amd("gfx90a"), hcl_test_amd("gfx908"),
        hcl_test_amd("gfx1030"), hcl_test_cl_gpu(), hcl_test_pocl(),        hcl_test_cl_subgroup_gpu(1, 16, 64),
        hcl_test_vk(0),          hcl_test_vk(1)};
    static const size_t shapes[][3] = {{1, 1, 1},       {8191, 8191, 1},    {4093, 4099, 1},   {1000, 1000, 8},
                                       {1, 4096, 4096}, {16, 1024, 4096},   {127, 4096, 4096}, {61, 67, 262139},
                                       {4096, 7, 4096}, {1021, 1031, 1033}, {4096, 4096, 4096}};
    const hcl_dtype types[] = {HCL_DTYPE_F32, HCL_DTYPE_F16, HCL_DTYPE_BF16};
    size_t planned = 0;
    for (size_t d = 0; d < sizeof devs / sizeof devs[0]; d++)
        for (size_t t = 0; t < 4; t++) {
            const hcl_dtype type = types[t % 3];
            const hcl_compute compute = t == 3 ? HCL_COMPUTE_TF32 : HCL_COMPUTE_F32;
            for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
                for (int tr = 0; tr < 4; tr++) {
                    hcl_kgemm g = hcl_test_gemm(type, type, compute, tr & 1, tr >> 1, shapes[s][0], shapes[s][1],
                                                shapes[s][2], 0);
                    hcl_kplan p;
                    memset(&p, 0, sizeof p);
                    if (hcl_plan_gemm(&devs[d], &g, &p) == HCL_SUCCESS) {
                        char what[96];
                        snprintf(what, sizeof what, "device %zu gemm %zux%zux%zu type %zu trans %d", d, g.m, g.n, g.k,
                                 t, tr);
                        check_args(what, &p);
                        planned++;
                    }
                    hcl_kplan_free(&p);
                }
            const size_t n = (size_t)1 << 25;
            hcl_kplan p;
            memset(&p, 0, sizeof p);
            if (t < 3 && hcl_plan_softmax(&devs[d], type, 4096, 65536, &p) == HCL_SUCCESS) check_args("softmax", &p);
            hcl_kplan_free(&p);
            memset(&p, 0, sizeof p);
            if (t < 3 && hcl_plan_reduce(&devs[d], type, HCL_REDUCE_SUM, n, &p) == HCL_SUCCESS)
                check_args("reduce", &p);
            hcl_kplan_free(&p);
            memset(&p, 0, sizeof p);
            if (t < 3 && hcl_plan_vecadd(&devs[d], type, n, &p) == HCL_SUCCESS) check_args("vecadd", &p);
            hcl_kplan_free(&p);
        }
    HCL_TS_CHECK(planned > 500, "only %zu gemm plans were made: the sweep checked little", planned);
}

int main(void) {
    arguments_fit();
    hopper_16bit();
    hopper_tf32();
    ampere();
    splitk();
    rows();
    amd_mfma();
    softmax_rows();
    softmax_resident();
    softmax_cl_rows();
    softmax_cl_long();
    softmax_cl_cpu();
    const int failures = hcl_ts_failures();
    printf("kernels-plan-gpu: %s (%d failure%s)\n", failures ? "FAILED" : "passed", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
