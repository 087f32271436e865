/* kernels-host-gemm: the host GEMM (kernels/gemm/gemm.c) at every instruction-set level this CPU runs
 * (hcl__host_isa_force: avx512, avx2, generic), on the workspace hcl__host_gemm_workspace_bytes asks for and not a
 * byte more, with a guard of known bytes after it: a packing that writes past the workspace it sized fails here
 * whatever the allocator and sanitizers do (the AVX2 micro-kernel's 24-wide panels once overran a block of 1024
 * columns by 8, and only the AVX-512 path had ever run in CI). Results against the float64 reference of the
 * conformance suite's rule. Shapes straddle each level's packed-block widths (mc rows, nc columns of whole panels, KC)
 * on one thread and on all of them; a level the CPU lacks is reported as skipped. */
#include "hcl_host_kernels.h"
#include "hcl_testsupport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define GUARD_BYTES 4096
#define GUARD_BYTE 0xa5

static uint64_t rng;

static float *random_floats(size_t n) {
    float *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = hcl_ts_rand_float(&rng, -1.0f, 1.0f);
    return x;
}

/* x's values rounded to `ab` (f16, bf16) in place, and those 16-bit elements in a new array (NULL for f32). */
static uint16_t *round_to(hcl_dtype ab, float *x, size_t n) {
    if (ab == HCL_DTYPE_F32) return NULL;
    uint16_t *h = malloc((n ? n : 1) * sizeof *h);
    for (size_t i = 0; i < n; i++) {
        h[i] = ab == HCL_DTYPE_F16 ? hcl__f32_to_f16(x[i]) : hcl__f32_to_bf16(x[i]);
        x[i] = ab == HCL_DTYPE_F16 ? hcl__f16_to_f32(h[i]) : hcl__bf16_to_f32(h[i]);
    }
    return h;
}

/* One product C = alpha op(A) op(B) + beta C (A and B of type ab, C float) with minimal leading dimensions, checked
 * and guarded. The reference takes the 16-bit values widened: the products are exact in float, so the float rule
 * holds. */
static void gemm_case(const char *lv, int threads, hcl_dtype ab, size_t m, size_t n, size_t k, hcl_transpose ta,
                      hcl_transpose tb, float alpha, float beta) {
    const size_t lda = ta == HCL_NO_TRANS ? k : m, ldb = tb == HCL_NO_TRANS ? n : k, ldc = n;
    const hcl_kgemm g = {ta, tb, m, n, k, alpha, beta, lda, ldb, ldc, ab, HCL_DTYPE_F32, HCL_COMPUTE_F32};
    float *a = random_floats(m * k), *b = random_floats(k * n), *c0 = random_floats(m * n);
    uint16_t *a16 = round_to(ab, a, m * k), *b16 = round_to(ab, b, k * n);
    const size_t mn = m * n, cells = mn > 0 ? mn : 1;
    float *c = malloc(cells * sizeof *c);
    memcpy(c, c0, m * n * sizeof *c);
    const size_t ws = hcl__host_gemm_workspace_bytes(&g);
    unsigned char *work = malloc(ws + GUARD_BYTES);
    memset(work, 0, ws);
    memset(work + ws, GUARD_BYTE, GUARD_BYTES);
    const int rc = hcl__host_gemm(&g, a16 ? (void *)a16 : a, b16 ? (void *)b16 : b, c, ws ? work : NULL);
    size_t overrun = 0;
    for (size_t i = 0; i < GUARD_BYTES; i++) overrun += work[ws + i] != GUARD_BYTE;
    char what[160];
    snprintf(what, sizeof what, "%s, %d thread(s): gemm %s %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g", lv, threads,
             ab == HCL_DTYPE_F32   ? "f32"
             : ab == HCL_DTYPE_F16 ? "f16"
                                   : "bf16",
             ta == HCL_NO_TRANS ? 'N' : 'T', tb == HCL_NO_TRANS ? 'N' : 'T', m, n, k, (double)alpha, (double)beta);
    HCL_TS_CHECK(rc == 0, "%s: returned %d", what, rc);
    HCL_TS_CHECK(overrun == 0, "%s: %zu of the %d guard bytes after the %zu-byte workspace were overwritten", what,
                 overrun, GUARD_BYTES, ws);
    double *ref = malloc(cells * sizeof *ref), *tol = malloc(cells * sizeof *tol);
    hcl_ts_ref_gemm(HCL_TS_CONFORMANCE, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc, ref, tol);
    size_t wrong = 0, first = 0;
    for (size_t i = 0; i < m * n; i++)
        if (!(fabs((double)c[i] - ref[i]) <= tol[i]) && wrong++ == 0) first = i;
    HCL_TS_CHECK(wrong == 0, "%s: %zu of %zu elements wrong, first (%zu, %zu): %.9g, want %.9g", what, wrong, m * n,
                 wrong ? first / n : 0, wrong ? first % n : 0, wrong ? (double)c[first] : 0.0,
                 wrong ? ref[first] : 0.0);
    free(a), free(b), free(a16), free(b16), free(c0), free(c), free(work), free(ref), free(tol);
}

/* The shapes at one level and thread count: the report's pair (64^3, then 2307 x 1283 x 41 on the same state),
 * column counts just past whole 1024-column blocks and each micro-tile width (8, 24, 32), row counts past the
 * 192-row blocks, k past the 512-deep block, every transpose, and the gemv path (m or n 1). The 16-bit products
 * take 2307 (f16) and 1031 (bf16) rows. Under emulation (`emulated`: qemu's AVX2 runs about 50x slower than the CPU)
 * the pair's product takes 385 rows and the 16-bit ones 193: still past two and one 192-row blocks, the columns
 * (where the report's overrun was) unchanged, a sixth and a ninth of the work. */
static void shapes(const char *lv, int threads, int emulated) {
    gemm_case(lv, threads, HCL_DTYPE_F32, 64, 64, 64, HCL_NO_TRANS, HCL_NO_TRANS, 1.0f, 0.0f);
    gemm_case(lv, threads, HCL_DTYPE_F32, emulated ? 385 : 2307, 1283, 41, HCL_NO_TRANS, HCL_NO_TRANS, 1.0f, 0.0f);
    gemm_case(lv, threads, HCL_DTYPE_F16, emulated ? 193 : 2307, 1283, 41, HCL_NO_TRANS, HCL_TRANS, 1.0f, 0.0f);
    gemm_case(lv, threads, HCL_DTYPE_BF16, emulated ? 193 : 1031, 1283, 41, HCL_TRANS, HCL_NO_TRANS, 1.0f, 0.5f);
    static const size_t s[][3] = {{1, 1, 1},       {5, 1025, 3},   {13, 1031, 7},   {3, 1033, 9},  {9, 2049, 5},
                                  {193, 1047, 17}, {385, 25, 513}, {191, 2071, 33}, {7, 3079, 11}, {12, 32, 1024},
                                  {1, 777, 19},    {777, 1, 19},   {0, 5, 3},       {5, 3, 0}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        for (int t = 0; t < 4; t++)
            gemm_case(lv, threads, HCL_DTYPE_F32, s[i][0], s[i][1], s[i][2], (hcl_transpose)(t & 1),
                      (hcl_transpose)(t >> 1), t == 3 ? -0.75f : 1.0f, t == 2 ? 0.5f : 0.0f);
}

/* The shapes at one level, on all threads and then on one; `emulated`: on all threads only, the largest products
 * smaller (a run under qemu, after the same shapes ran natively at every level, both thread counts). */
static void level_run(int level, int all_threads, int emulated) {
    const char *lv = hcl__host_isa_name(level);
    rng = hcl_ts_seed();
    const int before = hcl_ts_failures();
    shapes(lv, all_threads, emulated);
#ifdef _OPENMP
    if (all_threads > 1 && !emulated) {
        omp_set_num_threads(1);
        shapes(lv, 1, 0);
        omp_set_num_threads(all_threads);
    }
#endif
    printf("  %s: %s\n", lv, hcl_ts_failures() == before ? "passed" : "FAILED");
}

/* No argument: every level this CPU runs, forced in turn. `--expect LEVEL`: the level chosen by the CPU alone must be
 * LEVEL, and only it runs, on all threads with the largest products smaller (ctest kernels-host-gemm-cpus runs this
 * under emulated CPUs without AVX-512 or AVX2). */
int main(int argc, char **argv) {
    const uint64_t seed = hcl_ts_seed();
    printf("kernels-host-gemm: seed %llu (HCL_SEED to repeat)\n", (unsigned long long)seed);
    int all_threads = 1;
#ifdef _OPENMP
    all_threads = omp_get_max_threads();
#endif
    if (argc == 3 && strcmp(argv[1], "--expect") == 0) {
        const int chosen = hcl__host_isa();
        printf("  chosen by this CPU: %s (expected %s)\n", hcl__host_isa_name(chosen), argv[2]);
        HCL_TS_CHECK(strcmp(hcl__host_isa_name(chosen), argv[2]) == 0, "the CPU's level is %s, expected %s",
                     hcl__host_isa_name(chosen), argv[2]);
        level_run(chosen, all_threads, 1);
    } else {
        for (int level = HCL__HOST_ISA_AVX512; level >= HCL__HOST_ISA_GENERIC; level--) {
            if (hcl__host_isa_force(level) != 0) {
                printf("  %s: skipped (this CPU does not run it)\n", hcl__host_isa_name(level));
                continue;
            }
            level_run(level, all_threads, 0);
        }
        (void)hcl__host_isa_force(-1);
    }
    const int failures = hcl_ts_failures();
    printf("kernels-host-gemm: %s (%d failure%s)\n", failures ? "FAILED" : "passed", failures,
           failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
