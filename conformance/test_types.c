/* Reduced precision conformance: the built-ins in f16 and bf16 (and GEMM in TF32), and the type rules of the API.
 *
 * Inputs are drawn as floats and rounded to the storage type with hcl_convert, so the float64 reference sees exactly
 * the stored values. Tolerances: the typed rules of testsupport/hcl_testsupport.h (vecadd exact, the one rounding of
 * a 16-bit output, GEMM's g(k) u_acc bound that a 16-bit accumulation fails at k = 4096, which core/
 * gemm_tolerance_sharp checks with simulated kernels, TF32's 2 u_tf32 per product).
 * Outputs are poisoned with a 16-bit NaN of a payload no kernel makes (0x7d5a for f16, 0x7f9a for bf16) before
 * each run, so an element that was never written fails.
 */
#include "common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GUARD 6

static const hcl_dtype g_half_types[] = {HCL_DTYPE_F16, HCL_DTYPE_BF16};

static uint16_t poison16(hcl_dtype t) { return t == HCL_DTYPE_F16 ? 0x7d5a : 0x7f9a; }
/* Round x[0..n) to `t` in place (x then holds exactly what the device will see); 16-bit copy in out16. */
static void to_type(hcl_dtype t, float *x, uint16_t *out16, size_t n) {
    if (t == HCL_DTYPE_F32) return;
    CHECK(hcl_convert(t, out16, HCL_DTYPE_F32, x, n) == HCL_SUCCESS, "hcl_convert to %s", hcl_dtype_name(t));
    CHECK(hcl_convert(HCL_DTYPE_F32, x, t, out16, n) == HCL_SUCCESS, "hcl_convert from %s", hcl_dtype_name(t));
}

/* A device buffer holding x[0..n) as `t` (16-bit: the copy in x16). */
static hcl_buffer typed_buffer(hcl_dtype t, const float *x, const uint16_t *x16, size_t n) {
    size_t bytes = n * hcl_dtype_size(t);
    hcl_buffer b = conf_buffer(bytes ? bytes : 2);
    if (!b || !bytes) return b;
    if (!conf_write(b, 0, t == HCL_DTYPE_F32 ? (const void *)x : (const void *)x16, bytes)) return NULL;
    return b;
}

/* A device buffer of n elements of 16-bit `t`, every one the poison. */
static hcl_buffer poisoned16(hcl_dtype t, size_t n) {
    uint16_t *p = conf_malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; i < n; i++) p[i] = poison16(t);
    return typed_buffer(t, NULL, p, n ? n : 1);
}

/* Read n 16-bit elements; widened into got, the raw bits into raw. */
static bool read16(hcl_buffer b, hcl_dtype t, size_t n, float *got, uint16_t *raw) {
    if (!conf_read(b, 0, raw, n * sizeof *raw)) return false;
    return CHECK(hcl_convert(HCL_DTYPE_F32, got, t, raw, n) == HCL_SUCCESS, "hcl_convert of the result");
}

static void check_guard16(const char *what, const uint16_t *raw, hcl_dtype t, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < GUARD; i++) bad += raw[n + i] != poison16(t);
    CHECK(bad == 0, "%s: %zu element(s) after the end were written", what, bad);
}

/* ---- vecadd ---- */

static void run_vecadd(hcl_dtype t, size_t n) {
    size_t len = n + GUARD;
    float *a = conf_floats(len), *b = conf_floats(len), *got = conf_floats(len);
    uint16_t *a16 = conf_malloc(len * 2), *b16 = conf_malloc(len * 2), *raw = conf_malloc(len * 2);
    double *ref = conf_doubles(len), *tol = conf_doubles(len);
    conf_fill_uniform(a, len, -100.0f, 100.0f);
    conf_fill_uniform(b, len, -100.0f, 100.0f);
    if (n > 3) a[1] = INFINITY, b[2] = -INFINITY, a[3] = nanf("");
    to_type(t, a, a16, len);
    to_type(t, b, b16, len);
    for (size_t i = 0; i < n; i++) ref[i] = hcl_ts_round_to(t, (double)a[i] + (double)b[i]); /* exact, tol 0 */
    hcl_buffer ba = typed_buffer(t, a, a16, len), bb = typed_buffer(t, b, b16, len), bc = poisoned16(t, len);
    if (!ba || !bb || !bc) return;
    if (!CHECK_RUN(hcl_vecadd(conf_queue, t, n, ba, bb, bc, NULL))) return;
    if (!read16(bc, t, len, got, raw)) return;
    char what[96];
    snprintf(what, sizeof what, "vecadd %s n=%zu", hcl_dtype_name(t), n);
    conf_compare(what, got, ref, tol, n);
    check_guard16(what, raw, t, n);
}

static const size_t vec_sizes[] = {0,  1,   2,   3,   7,   8,   9,    15,   16,   17,    31,
                                   33, 255, 256, 257, 511, 513, 1023, 1025, 4097, 65537, 1000003};

CONF_TEST(types, vecadd) {
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t i = 0; i < sizeof vec_sizes / sizeof vec_sizes[0]; i++) run_vecadd(g_half_types[ti], vec_sizes[i]);
}

/* ---- softmax ---- */

static void run_softmax(hcl_dtype t, size_t rows, size_t cols, bool in_place) {
    size_t n = rows * cols, len = n + GUARD;
    float *x = conf_floats(len), *got = conf_floats(len);
    uint16_t *x16 = conf_malloc(len * 2), *raw = conf_malloc(len * 2);
    double *ref = conf_doubles(len), *tol = conf_doubles(len);
    conf_fill_uniform(x, len, -8.0f, 8.0f);
    if (rows > 2 && cols > 2) {
        x[cols + 1] = -INFINITY;                      /* row 1: one -inf entry gives exactly 0 */
        x[2 * cols] = nanf("");                       /* row 2: a NaN makes the row NaN */
        x[0] = t == HCL_DTYPE_F16 ? 60000.0f : 1e30f; /* row 0: a large value must not overflow */
    }
    to_type(t, x, x16, len);
    hcl_ts_ref_softmax(HCL_TS_CONFORMANCE, x, rows, cols, ref, tol);
    hcl_ts_add_output_rounding(t, ref, tol, n);
    hcl_buffer bi = typed_buffer(t, x, x16, len), bo = in_place ? bi : poisoned16(t, len);
    if (!bi || !bo) return;
    if (!CHECK_RUN(hcl_softmax(conf_queue, t, rows, cols, bi, bo, NULL))) return;
    if (!read16(bo, t, len, got, raw)) return;
    char what[128];
    snprintf(what, sizeof what, "softmax %s %zu x %zu%s", hcl_dtype_name(t), rows, cols, in_place ? " in place" : "");
    conf_compare(what, got, ref, tol, n);
    if (!in_place) check_guard16(what, raw, t, n);
}

CONF_TEST(types, softmax) {
    /* {7, 136} to {1, 256}: the GPU's two rows per warp (odd row counts: a warp's second row missing); from {3, 72}:
     * the GPU's warp64 (16-bit rows of whole vectors of 72 to 2048 columns, 1 to 16 rows a warp, the rows of the last
     * warp missing), its end and the block a row of 32 values a thread after it (2056), the block a row of 64 from
     * 4104, prime lengths (not whole vectors); rows of one or two vectors
     * over a lane each (8, 16); a row longer than a work-group of 1024 keeps in registers (Vulkan: 8 words of 8 a
     * work-item, 65536 columns), the rest streamed (65552) */
    static const size_t shapes[][2] = {{1, 1},     {3, 1},    {5, 7},    {4, 31},   {3, 32},    {3, 33},    {9, 64},
                                       {2, 127},   {4, 1024}, {3, 1025}, {2, 2048}, {2, 2049},  {65, 257},  {2, 4097},
                                       {2, 12033}, {7, 136},  {33, 256}, {5, 264},  {3, 512},   {1, 256},   {2, 4095},
                                       {2, 4096},  {3, 72},   {37, 72},  {17, 128}, {9, 1000},  {5, 1016},  {1, 2048},
                                       {33, 2040}, {3, 2056}, {2, 4104}, {3, 8191}, {2, 16384}, {2, 16392}, {1, 4099},
                                       {5, 1031},  {40, 16},  {3, 8},    {1, 65552}};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
            run_softmax(g_half_types[ti], shapes[i][0], shapes[i][1], false);
    run_softmax(HCL_DTYPE_F16, 7, 300, true);
    run_softmax(HCL_DTYPE_BF16, 7, 300, true);
    run_softmax(HCL_DTYPE_F16, 9, 256, true);
    run_softmax(HCL_DTYPE_BF16, 9, 1024, true); /* warp64 in place */
    run_softmax(HCL_DTYPE_F16, 5, 8192, true);  /* a block a row of 64 values a thread in place */
    run_softmax(HCL_DTYPE_BF16, 3, 4096, true); /* the host's longest row done in one piece, and the next */
    run_softmax(HCL_DTYPE_F16, 3, 4097, true);
}

CONF_TEST(types, softmax_wide) {
    for (size_t ti = 0; ti < 2; ti++) {
        run_softmax(g_half_types[ti], 3, 40000, false);
        run_softmax(g_half_types[ti], 2, 65536, false); /* the CL cached kernel's end at 4096 work-items */
        run_softmax(g_half_types[ti], 2, 65537, false);
        run_softmax(g_half_types[ti], 300, 16384, false); /* the GPU's block a row of 256 threads, 300 rows */
        run_softmax(g_half_types[ti], 3, 32768, false);   /* the GPU's longest block a row (512 threads of 64) */
        run_softmax(g_half_types[ti], 3, 32776, false);   /* and clusters of 2 after it */
        run_softmax(g_half_types[ti], 2, 32771, false);   /* a prime: not whole vectors */
        run_softmax(g_half_types[ti], 2, 131073, false);  /* the GPU's clusters of 8 blocks of 512 threads */
        run_softmax(g_half_types[ti], 1, 524288, false);  /* the GPU's largest cluster, 1024 threads a block */
        run_softmax(g_half_types[ti], 2, 262144, true);   /* OpenCL on a GPU: 16 work-groups a row, in place */
        run_softmax(g_half_types[ti], 3, 196648, false);  /* Vulkan on a GPU: 4 groups a row, the last one short */
    }
}

/* ---- reduce ---- */

/* Inputs of a reduce case: uniform; a NaN and an infinity (max / min skip the NaN, the sum is NaN); +inf only (the
 * sum is +inf); +inf and -inf (the sum is NaN); one sign only (an accumulator started at 0 shows). */
enum rgen { R_UNIFORM, R_NAN_INF, R_INF, R_BOTH_INF, R_ONE_SIGN };
static const char *rgen_name[] = {"", " (NaN, inf)", " (+inf)", " (+inf, -inf)", " (one sign)"};

static void run_reduce(hcl_dtype t, hcl_reduce_op op, size_t n, enum rgen gen) {
    size_t len = n ? n : 1;
    float *x = conf_floats(len), got = 0.0f;
    uint16_t *x16 = conf_malloc(len * 2);
    if (gen == R_ONE_SIGN)
        conf_fill_uniform(x, len, op == HCL_REDUCE_MAX ? -9.0f : 1.0f, op == HCL_REDUCE_MAX ? -1.0f : 9.0f);
    else
        conf_fill_uniform(x, len, -4.0f, 4.0f);
    if (n > 10 && gen == R_NAN_INF) x[3] = nanf(""), x[7] = op == HCL_REDUCE_MIN ? -INFINITY : INFINITY;
    if (n > 10 && (gen == R_INF || gen == R_BOTH_INF)) x[n - 2] = INFINITY;
    if (n > 10 && gen == R_BOTH_INF) x[n / 2] = -INFINITY;
    to_type(t, x, x16, len);
    /* the reference skips NaN for max / min and sums in float64, where inf + finite is inf and inf - inf is NaN */
    double tol = 0.0, ref = hcl_ts_ref_reduce(HCL_TS_CONFORMANCE, op, x, n, &tol);
    if (n > 10 && gen == R_NAN_INF && op == HCL_REDUCE_SUM) ref = NAN; /* NaN in a sum */
    if (isnan(ref) || isinf(ref)) tol = 0.0;
    hcl_buffer bi = typed_buffer(t, x, x16, len), bo = conf_buffer(sizeof(float));
    if (!bi || !bo || !conf_poison_buffer(bo, 0, sizeof(float))) return;
    if (!CHECK_RUN(hcl_reduce(conf_queue, t, op, n, bi, bo, NULL))) return;
    if (!conf_read(bo, 0, &got, sizeof got)) return;
    static const char *names[] = {"sum", "max", "min"};
    char what[96];
    snprintf(what, sizeof what, "reduce %s %s n=%zu%s", names[op], hcl_dtype_name(t), n, rgen_name[gen]);
    conf_compare(what, &got, &ref, &tol, 1);
}

CONF_TEST(types, reduce) {
    /* the GPU plan's 256 x 8 elements per block and its 1024 blocks (2^21), the CL work-group sizes */
    static const size_t sizes[] = {0, 1, 2, 17, 255, 256, 257, 2047, 2048, 2049, 4099, 65536, 1000003, (1u << 21) + 1};
    for (size_t ti = 0; ti < 2; ti++)
        for (int op = 0; op < 3; op++) {
            for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
                run_reduce(g_half_types[ti], (hcl_reduce_op)op, sizes[i], R_UNIFORM);
            for (int gen = R_NAN_INF; gen <= R_ONE_SIGN; gen++) {
                run_reduce(g_half_types[ti], (hcl_reduce_op)op, 5000, (enum rgen)gen);
                run_reduce(g_half_types[ti], (hcl_reduce_op)op, 70001, (enum rgen)gen);
            }
        }
}

/* ---- gemm ---- */

typedef struct tcase {
    hcl_dtype ab, c;
    hcl_compute compute;
    size_t m, n, k;
    hcl_transpose ta, tb;
    size_t pad;
    float alpha, beta;
    bool c_nan; /* C holds NaN and beta is 0: must not propagate */
} tcase;

static void run_gemm(const tcase *g) {
    const size_t m = g->m, n = g->n, k = g->k;
    const size_t rows_a = g->ta == HCL_NO_TRANS ? m : k, cols_a = g->ta == HCL_NO_TRANS ? k : m;
    const size_t rows_b = g->tb == HCL_NO_TRANS ? k : n, cols_b = g->tb == HCL_NO_TRANS ? n : k;
    const size_t lda = (cols_a ? cols_a : 1) + g->pad, ldb = (cols_b ? cols_b : 1) + g->pad, ldc = (n ? n : 1) + g->pad;
    const size_t len_a = rows_a * lda + 1, len_b = rows_b * ldb + 1, len_c = m * ldc + GUARD;
    float *a = conf_floats(len_a), *b = conf_floats(len_b), *c0 = conf_floats(len_c), *got = conf_floats(len_c);
    uint16_t *a16 = conf_malloc(len_a * 2), *b16 = conf_malloc(len_b * 2), *c16 = conf_malloc(len_c * 2);
    conf_fill_uniform(a, len_a, -1.0f, 1.0f);
    conf_fill_uniform(b, len_b, -1.0f, 1.0f);
    conf_fill_uniform(c0, len_c, -1.0f, 1.0f);
    if (g->c_nan)
        for (size_t i = 0; i < len_c; i++) c0[i] = nanf("");
    /* the lda / ldb padding and the element after A and B hold NaN: a kernel that reads them poisons its result */
    for (size_t i = 0; i < len_a; i++)
        if (i == len_a - 1 || i % lda >= cols_a) a[i] = nanf("");
    for (size_t i = 0; i < len_b; i++)
        if (i == len_b - 1 || i % ldb >= cols_b) b[i] = nanf("");
    to_type(g->ab, a, a16, len_a);
    to_type(g->ab, b, b16, len_b);
    to_type(g->c, c0, c16, len_c);
    if (g->c != HCL_DTYPE_F32)
        for (size_t i = 0; i < m; i++)
            for (size_t j = n; j < ldc; j++) c16[i * ldc + j] = poison16(g->c); /* ldc padding: untouched */

    const size_t mn = m * n > 0 ? m * n : 1;
    double *ref = conf_doubles(mn), *tol = conf_doubles(mn);
    hcl_ts_ref_gemm_typed(g->c, g->compute, g->ta, g->tb, m, n, k, g->alpha, a, lda, b, ldb, g->beta, c0, ldc, ref,
                          tol);

    hcl_buffer ba = typed_buffer(g->ab, a, a16, len_a), bb = typed_buffer(g->ab, b, b16, len_b);
    hcl_buffer bc = typed_buffer(g->c, c0, c16, len_c);
    if (!ba || !bb || !bc) return;
    char what[200];
    snprintf(what, sizeof what, "gemm %s x %s -> %s%s %s%s m=%zu n=%zu k=%zu pad=%zu alpha=%g beta=%g%s",
             hcl_dtype_name(g->ab), hcl_dtype_name(g->ab), hcl_dtype_name(g->c),
             g->compute == HCL_COMPUTE_TF32 ? " (TF32)" : "", g->ta ? "T" : "N", g->tb ? "T" : "N", m, n, k, g->pad,
             (double)g->alpha, (double)g->beta, g->c_nan ? " (C holds NaN)" : "");
    if (!CHECK_RUN(hcl_gemm(conf_queue, g->ta, g->tb, m, n, k, g->alpha, g->ab, ba, lda, g->ab, bb, ldb, g->beta, g->c,
                            bc, ldc, g->compute, NULL)))
        return;
    uint16_t *raw = conf_malloc(len_c * 2);
    if (g->c == HCL_DTYPE_F32) {
        if (!conf_read(bc, 0, got, len_c * sizeof(float))) return;
    } else if (!read16(bc, g->c, len_c, got, raw)) {
        return;
    }
    float *packed = conf_floats(mn);
    for (size_t i = 0; i < m; i++) memcpy(packed + i * n, got + i * ldc, n * sizeof(float));
    conf_compare(what, packed, ref, tol, m * n);
    if (g->c != HCL_DTYPE_F32) {
        size_t touched = 0;
        for (size_t i = 0; i < m; i++)
            for (size_t j = n; j < ldc; j++) touched += raw[i * ldc + j] != poison16(g->c);
        CHECK(touched == 0, "%s: %zu element(s) of the ldc padding were written", what, touched);
    }
}

/* Shape mnk in transposes t (bit 1: A, bit 0: B) with rows padded by `pad`; t == 3 also scales (alpha -0.75, beta
 * 0.5), the others are C = A B. */
static void run_transposed(hcl_dtype ab, hcl_dtype c, hcl_compute compute, const size_t mnk[3], int t, size_t pad) {
    tcase g = {ab,
               c,
               compute,
               mnk[0],
               mnk[1],
               mnk[2],
               (hcl_transpose)(t >> 1),
               (hcl_transpose)(t & 1),
               pad,
               t == 3 ? -0.75f : 1.0f,
               t == 3 ? 0.5f : 0.0f,
               false};
    run_gemm(&g);
}

/* Every type combination over shapes around the tiles of every plan (16, 32, 64, 128, 128 x 256), transposes and
 * padding. */
static void gemm_types(hcl_dtype ab, hcl_dtype c, hcl_compute compute) {
    static const size_t shapes[][3] = {{1, 1, 1},    {1, 7, 3},    {7, 1, 5},      {13, 17, 19},
                                       {16, 16, 16}, {31, 33, 17}, {64, 64, 64},   {65, 63, 129},
                                       {128, 1, 40}, {1, 130, 70}, {127, 129, 31}, {130, 67, 1000}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int t = 0; t < 4; t++) run_transposed(ab, c, compute, shapes[s], t, (s + t) % 3 == 0 ? 3 : 0);
    /* several tiles of the largest plan (128 x 256, k in steps of 64) each way, with m, n and k all 5 mod 8 and the
     * rows padded by 3 (NaN): every ld a multiple of 8 whatever the transposes, as copies of whole 16-byte rows need */
    static const size_t tiles[][3] = {{133, 301, 77}, {261, 525, 333}};
    for (size_t s = 0; s < sizeof tiles / sizeof tiles[0]; s++)
        for (int t = 0; t < 4; t++) run_transposed(ab, c, compute, tiles[s], t, 3);
    /* a long k under one tile with every row a whole number of 16-byte vectors (m, n, k 5 mod 8, rows padded by 3):
     * the Hopper kernels take it over slices of k (4 slices of 576, the last of 325), each way */
    static const size_t sliced[3] = {69, 77, 2053};
    for (int t = 0; t < 4; t++) run_transposed(ab, c, compute, sliced, t, 3);
    /* a short k over several of a GPU's short-k blocks (32 rows x 256 columns), a last one partial each way */
    static const size_t short_k[][3] = {{97, 530, 1}, {300, 260, 8}};
    for (size_t s = 0; s < sizeof short_k / sizeof short_k[0]; s++)
        for (int t = 0; t < 4; t++) run_transposed(ab, c, compute, short_k[s], t, (size_t)t);
    /* more tiles (17 x 10) than a GPU has SMs, so that blocks that take several tiles in turn are seen too */
    tcase many = {ab, c, compute, 2173, 2309, 45, HCL_NO_TRANS, HCL_NO_TRANS, 3, 0.5f, -1.0f, false};
    run_gemm(&many);
    /* few rows, scaled, "nn" and "nt", every ld a multiple of 8: over more 128-row tiles of C^T than a GPU has SMs, and
     * under two of them with k in slices (on sm_90 the narrow kernels, C^T in tiles of 128 x 64; TF32 "nt" the wide) */
    for (int t = 0; t < 2; t++) {
        tcase narrow = {ab, c, compute, 45, 17005, 45, HCL_NO_TRANS, (hcl_transpose)t, 3, 0.5f, -1.0f, false};
        run_gemm(&narrow);
        tcase narrow_sliced = {ab, c, compute, 21, 253, 2053, HCL_NO_TRANS, (hcl_transpose)t, 3, -0.75f, 0.5f, false};
        run_gemm(&narrow_sliced);
    }
    /* beta 0 with NaN in C; k 0; alpha 0 */
    tcase nan_c = {ab, c, compute, 33, 35, 9, HCL_NO_TRANS, HCL_NO_TRANS, 1, 1.5f, 0.0f, true};
    run_gemm(&nan_c);
    tcase k0 = {ab, c, compute, 17, 19, 0, HCL_NO_TRANS, HCL_TRANS, 0, 1.0f, -2.0f, false};
    run_gemm(&k0);
    tcase alpha0 = {ab, c, compute, 19, 17, 8, HCL_TRANS, HCL_NO_TRANS, 2, 0.0f, 0.25f, false};
    run_gemm(&alpha0);
    /* a long odd k under two tiles of C (a GPU cuts k into slices: split-K), plain and transposed with alpha, beta */
    static const size_t long_k[3] = {61, 67, 16411};
    run_transposed(ab, c, compute, long_k, 0, 0);
    run_transposed(ab, c, compute, long_k, 3, 1);
    /* the k loop's steps (16) and a long k, where a 16-bit accumulation fails the tolerance */
    static const size_t ks[] = {15, 16, 17, 4096};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        tcase kc = {ab, c, compute, 9, 66, ks[i], (hcl_transpose)(i & 1), (hcl_transpose)(i >> 1), 1, 1.0f, 0.0f, true};
        run_gemm(&kc);
    }
}

/* A C of few rows (GPU: the few-rows kernels, over slices of k) and of few columns (the same on swapped operands):
 * rows around the kernels' row counts (1, 2, 4, 8, 16) and past them (17), n off the 16-byte vectors and over several
 * blocks of every kernel (at most 256 columns), k off the slices (multiples of 64), every transpose, rows of A and B
 * padded to whole 16-byte vectors or one element past them (no vectors), alpha and beta, and a C of NaN under beta 0;
 * then short and prime k for the row and column counts of the decode and skinny shapes. */
static void gemm_rows_types(hcl_dtype ab, hcl_dtype c, hcl_compute compute) {
    static const size_t ms[] = {1, 2, 3, 8, 15, 16, 17};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (int t = 0; t < 4; t++)
            for (int odd = 0; odd < 2; odd++) {
                const size_t n = 301, k = 1000, cols_b = t & 1 ? k : n;
                const size_t pad = (8 - cols_b % 8) % 8 + (size_t)odd; /* ldb a multiple of 8 elements, or not */
                tcase g = {ab,  c,    compute, ms[i], n, k, (hcl_transpose)(t >> 1), (hcl_transpose)(t & 1),
                           pad, 1.0f, 0.0f,    true};
                if (t == 3 || odd) g.alpha = -0.75f, g.beta = 0.5f, g.c_nan = false;
                run_gemm(&g);
            }
    /* a long k over many slices, its last one short */
    static const size_t long_k[][3] = {{8, 77, 16411}, {16, 301, 4097}, {1, 130, 20000}};
    for (size_t s = 0; s < sizeof long_k / sizeof long_k[0]; s++)
        for (int t = 0; t < 4; t++) run_transposed(ab, c, compute, long_k[s], t, s == 1 ? 0 : 3);
    /* few columns: C^T = B^T A^T */
    static const size_t cols[][3] = {{1000, 1, 777}, {1003, 3, 1029}, {2000, 16, 640}, {500, 17, 300}};
    for (size_t s = 0; s < sizeof cols / sizeof cols[0]; s++)
        for (int t = 0; t < 4; t++) run_transposed(ab, c, compute, cols[s], t, (size_t)t);
    /* 1, 2, 3, 7, 16 rows and 1, 7, 16 columns, 259 wide, k from 1 through 63, 64, 65 and primes to 4099, every
     * transpose (t == 3 scaled), rows padded by 0-3 elements (16-byte vectors, half vectors, none) */
    static const size_t mn[][2] = {{1, 259}, {2, 259}, {3, 259}, {7, 259}, {16, 259}, {259, 1}, {259, 7}, {259, 16}};
    static const size_t ks[] = {1, 63, 64, 65, 509, 4099};
    for (size_t s = 0; s < sizeof mn / sizeof mn[0]; s++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            for (int t = 0; t < 4; t++) {
                const size_t mnk[3] = {mn[s][0], mn[s][1], ks[i]};
                run_transposed(ab, c, compute, mnk, t, (s + i + (size_t)t) % 4);
            }
}

CONF_TEST(types, gemm_rows_f16) { gemm_rows_types(HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32); }
CONF_TEST(types, gemm_rows_f16_f32) { gemm_rows_types(HCL_DTYPE_F16, HCL_DTYPE_F32, HCL_COMPUTE_F32); }
CONF_TEST(types, gemm_rows_bf16) { gemm_rows_types(HCL_DTYPE_BF16, HCL_DTYPE_BF16, HCL_COMPUTE_F32); }
CONF_TEST(types, gemm_rows_bf16_f32) { gemm_rows_types(HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32); }
/* TF32 calls of few rows (on a GPU computed in float32 by the few-rows kernels), where the device has TF32 */
CONF_TEST(types, gemm_rows_tf32) {
    if (conf_info.matrix_types & HCL_TYPE_BIT_TF32) gemm_rows_types(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32);
}

CONF_TEST(types, gemm_f16) { gemm_types(HCL_DTYPE_F16, HCL_DTYPE_F16, HCL_COMPUTE_F32); }
CONF_TEST(types, gemm_f16_f32) { gemm_types(HCL_DTYPE_F16, HCL_DTYPE_F32, HCL_COMPUTE_F32); }
CONF_TEST(types, gemm_bf16) { gemm_types(HCL_DTYPE_BF16, HCL_DTYPE_BF16, HCL_COMPUTE_F32); }
CONF_TEST(types, gemm_bf16_f32) { gemm_types(HCL_DTYPE_BF16, HCL_DTYPE_F32, HCL_COMPUTE_F32); }

/* TF32 where the device has it; elsewhere the documented refusal, naming the device. */
CONF_TEST(types, gemm_tf32) {
    if (conf_info.matrix_types & HCL_TYPE_BIT_TF32) {
        gemm_types(HCL_DTYPE_F32, HCL_DTYPE_F32, HCL_COMPUTE_TF32);
        return;
    }
    hcl_buffer b = conf_buffer(64 * sizeof(float));
    if (!b) return;
    CHECK_ST(HCL_ERROR_UNSUPPORTED,
             hcl_gemm(conf_queue, HCL_NO_TRANS, HCL_NO_TRANS, 4, 4, 4, 1.0f, HCL_DTYPE_F32, b, 4, HCL_DTYPE_F32, b, 4,
                      0.0f, HCL_DTYPE_F32, conf_buffer(64), 4, HCL_COMPUTE_TF32, NULL));
    CHECK_MSG_HAS(conf_info.name);
    CHECK_MSG_HAS("TF32");
}

/* ---- the device's type fields ---- */

/* arch, native_types, matrix_unit, matrix_types as hcl.h defines them, and the same in the global device list. */
CONF_TEST(types, device_info) {
    const hcl_device_info *i = &conf_info;
    const uint32_t dtype_bits = HCL_TYPE_BIT(HCL_DTYPE_COUNT) - 1;
    CHECK(memchr(i->arch, 0, sizeof i->arch) != NULL, "arch is not NUL-terminated");
    CHECK(i->native_types & HCL_TYPE_BIT(HCL_DTYPE_F32), "native_types 0x%x lacks f32 (hcl.h: f32 always)",
          i->native_types);
    CHECK((i->native_types & ~dtype_bits) == 0, "native_types 0x%x has bits of no hcl_dtype", i->native_types);
    CHECK(i->matrix_unit >= HCL_MATRIX_UNIT_NONE && i->matrix_unit <= HCL_MATRIX_UNIT_XMX, "matrix_unit %d",
          (int)i->matrix_unit);
    CHECK((i->matrix_types & ~(dtype_bits | HCL_TYPE_BIT_TF32)) == 0, "matrix_types 0x%x has unknown bits",
          i->matrix_types);
    CHECK(i->matrix_unit != HCL_MATRIX_UNIT_NONE || i->matrix_types == 0, "matrix_types 0x%x without a matrix unit",
          i->matrix_types);
    cr_log_info("%s: arch \"%s\", native_types 0x%x, matrix_unit %d, matrix_types 0x%x", i->name, i->arch,
                i->native_types, (int)i->matrix_unit, i->matrix_types);
    uint32_t count = 0;
    REQUIRE_OK(hcl_device_count(&count));
    for (uint32_t k = 0; k < count; k++) {
        hcl_device_info g;
        if (!CHECK_ST(HCL_SUCCESS, hcl_device_get_info_by_index(k, &g))) continue;
        if (strcmp(g.backend, i->backend) != 0 || g.index != i->index) continue;
        CHECK(strcmp(g.arch, i->arch) == 0 && g.native_types == i->native_types && g.matrix_unit == i->matrix_unit &&
                  g.matrix_types == i->matrix_types,
              "global device %u: arch \"%s\" native 0x%x unit %d matrix 0x%x, opened: \"%s\" 0x%x %d 0x%x", k, g.arch,
              g.native_types, (int)g.matrix_unit, g.matrix_types, i->arch, i->native_types, (int)i->matrix_unit,
              i->matrix_types);
    }
}

/* ---- the type rules of the API ---- */

CONF_TEST(types, api_rules) {
    hcl_buffer a = conf_buffer(256), b = conf_buffer(256), c = conf_buffer(256);
    if (!a || !b || !c) return;
    const hcl_dtype F32 = HCL_DTYPE_F32, F16 = HCL_DTYPE_F16, BF16 = HCL_DTYPE_BF16;
#define GEMM(at, bt, ct, cm, m, n, k)                                                                                  \
    hcl_gemm(conf_queue, HCL_NO_TRANS, HCL_NO_TRANS, m, n, k, 1.0f, at, a, k, bt, b, n, 0.0f, ct, c, n, cm, NULL)
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F16, BF16, F32, HCL_COMPUTE_F32, 4, 4, 4)); /* a_type != b_type */
    CHECK_MSG_HAS("differ");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F16, F16, BF16, HCL_COMPUTE_F32, 4, 4, 4));    /* c neither f16 nor f32 */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F32, F32, F16, HCL_COMPUTE_F32, 4, 4, 4));     /* f32 inputs, f16 C */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(BF16, BF16, BF16, HCL_COMPUTE_TF32, 4, 4, 4)); /* TF32, 16-bit */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F16, F16, F16, HCL_COMPUTE_TF32, 4, 4, 4));    /* TF32, f16 */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F16, F16, F32, HCL_COMPUTE_TF32, 4, 4, 4));    /* TF32, f16 -> f32 */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F32, F32, F32, (hcl_compute)-1, 4, 4, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F32, F32, F32, (hcl_compute)2, 4, 4, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F32, (hcl_dtype)3, F32, HCL_COMPUTE_F32, 4, 4, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F32, F32, (hcl_dtype)3, HCL_COMPUTE_F32, 4, 4, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(BF16, BF16, F16, HCL_COMPUTE_F32, 4, 4, 4)); /* c neither bf16 nor f32 */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F32, F32, BF16, HCL_COMPUTE_F32, 4, 4, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F32, F32, F32, (hcl_compute)7, 4, 4, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM((hcl_dtype)3, (hcl_dtype)3, F32, HCL_COMPUTE_F32, 4, 4, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, GEMM(F16, F16, (hcl_dtype)-1, HCL_COMPUTE_F32, 4, 4, 4));
    /* sizes counted in the type's elements: 256 bytes hold 64 floats or 128 halves */
    CHECK_ST(HCL_SUCCESS, GEMM(F16, F16, F16, HCL_COMPUTE_F32, 8, 16, 8));              /* C: 128 halves, 256 B */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, GEMM(F16, F16, F32, HCL_COMPUTE_F32, 8, 16, 8));   /* C: 128 floats, 512 B */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, GEMM(F32, F32, F32, HCL_COMPUTE_F32, 8, 16, 8));   /* B: 128 floats */
    CHECK_ST(HCL_SUCCESS, GEMM(BF16, BF16, F32, HCL_COMPUTE_F32, 16, 4, 8));            /* A: 128 bf16, 256 B */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, GEMM(BF16, BF16, F32, HCL_COMPUTE_F32, 17, 4, 8)); /* A: 136 bf16, 272 B */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, GEMM(F16, F16, F16, HCL_COMPUTE_F32, 4, 8, 17));   /* B: 136 halves */
#undef GEMM
    CHECK_ST(HCL_SUCCESS, hcl_vecadd(conf_queue, F16, 128, a, b, c, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_vecadd(conf_queue, BF16, 129, a, b, c, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_vecadd(conf_queue, (hcl_dtype)9, 4, a, b, c, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_softmax(conf_queue, (hcl_dtype)-2, 2, 2, a, c, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_softmax(conf_queue, F16, 2, 65, a, c, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_reduce(conf_queue, (hcl_dtype)5, HCL_REDUCE_SUM, 4, a, c, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_reduce(conf_queue, BF16, HCL_REDUCE_MAX, 129, a, c, NULL));
    CHECK_ST(HCL_SUCCESS, hcl_reduce(conf_queue, BF16, HCL_REDUCE_MAX, 128, a, c, NULL));
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
}

/* ---- the host conversions ---- */

CONF_GLOBAL_TEST(core, conversions) {
    CHECK(strcmp(hcl_dtype_name(HCL_DTYPE_F32), "f32") == 0 && strcmp(hcl_dtype_name(HCL_DTYPE_F16), "f16") == 0 &&
              strcmp(hcl_dtype_name(HCL_DTYPE_BF16), "bf16") == 0 && strcmp(hcl_dtype_name((hcl_dtype)3), "?") == 0 &&
              strcmp(hcl_dtype_name((hcl_dtype)-1), "?") == 0,
          "hcl_dtype_name");
    CHECK(hcl_dtype_size(HCL_DTYPE_F32) == 4 && hcl_dtype_size(HCL_DTYPE_F16) == 2 &&
              hcl_dtype_size(HCL_DTYPE_BF16) == 2 && hcl_dtype_size((hcl_dtype)3) == 0 &&
              hcl_dtype_size((hcl_dtype)-1) == 0,
          "hcl_dtype_size");
    /* NaN stays NaN, quiet (f16 bit 9, bf16 bit 6), sign kept, from signalling and quiet float32 NaNs alike */
    static const uint32_t nans[] = {0x7f800001u, 0xff800001u, 0x7fc00000u, 0x7fbfffffu, 0xffc0dead, 0x7f802000u};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        float x;
        memcpy(&x, &nans[i], sizeof x);
        uint16_t h = hcl_f32_to_f16(x), bf = hcl_f32_to_bf16(x);
        uint16_t sign = (uint16_t)(nans[i] >> 16 & 0x8000);
        CHECK((h & 0x7e00) == 0x7e00 && (h & 0x8000) == sign && (bf & 0x7fc0) == 0x7fc0 && (bf & 0x8000) == sign,
              "float32 NaN 0x%08x gives f16 0x%04x, bf16 0x%04x: not a quiet NaN of its sign", nans[i], h, bf);
    }
    /* every 16-bit pattern widens exactly and narrows back to itself (NaN: to a NaN) */
    size_t bad_f16 = 0, bad_bf16 = 0;
    for (uint32_t p = 0; p < 65536; p++) {
        float h = hcl_f16_to_f32((uint16_t)p), bf = hcl_bf16_to_f32((uint16_t)p);
        int e = (p >> 10) & 31;
        double expect =
            e == 31 ? ((p & 0x3ff) ? NAN : INFINITY) : ldexp((double)((e ? 1024 : 0) + (p & 0x3ff)), (e ? e : 1) - 25);
        if (p & 0x8000) expect = -expect;
        if (isnan(expect) ? !isnan(h) : (double)h != expect) bad_f16++;
        uint16_t back = hcl_f32_to_f16(h);
        if (isnan(h) ? (back & 0x7c00) != 0x7c00 || !(back & 0x3ff) : back != p) bad_f16++;
        uint32_t bits;
        memcpy(&bits, &bf, sizeof bits);
        if (bits != p << 16) bad_bf16++;
        uint16_t bback = hcl_f32_to_bf16(bf);
        if (isnan(bf) ? (bback & 0x7f80) != 0x7f80 || !(bback & 0x7f) : bback != p) bad_bf16++;
    }
    CHECK(bad_f16 == 0 && bad_bf16 == 0, "16-bit round trips: %zu f16 and %zu bf16 patterns wrong", bad_f16, bad_bf16);
    /* narrowing against the reference: random floats over the whole range, ties, subnormals, overflow */
    size_t wrong = 0, compiler_wrong = 0;
    float first_bad = 0.0f;
    for (int i = 0; i < 400000; i++) {
        float x;
        if (i < 200000) {
            uint32_t u = (uint32_t)conf_rand_u64();
            memcpy(&x, &u, sizeof x);
        } else { /* exact ties and near-ties of both formats at many exponents */
            int e = conf_rand_int(-30, 20);
            uint32_t mant = (uint32_t)conf_rand_u64() & 0x7fffffu;
            mant = (mant & ~0x1fffu) | ((i & 1) ? 0x1000u : (0x1000u + (uint32_t)conf_rand_int(-2, 2)));
            float base = ldexpf(1.0f + (float)mant / 8388608.0f, e);
            x = (i & 2) ? -base : base;
        }
        if (isnan(x)) continue;
        double rf = hcl_ts_round_to(HCL_DTYPE_F16, x), rb = hcl_ts_round_to(HCL_DTYPE_BF16, x);
#ifdef __FLT16_MANT_DIG__
        /* a second reference where the compiler has _Float16 (gcc >= 12 on x86-64): its conversion from float
         * rounds to nearest even */
        _Float16 cf = (_Float16)x;
        uint16_t cbits;
        memcpy(&cbits, &cf, sizeof cbits);
        if (hcl_f32_to_f16(x) != cbits) compiler_wrong++;
#endif
        float gf = hcl_f16_to_f32(hcl_f32_to_f16(x)), gb = hcl_bf16_to_f32(hcl_f32_to_bf16(x));
        if ((double)gf != rf || (double)gb != rb || signbit(gf) != signbit(x) || signbit(gb) != signbit(x)) {
            if (wrong++ == 0) first_bad = x;
        }
    }
    CHECK(wrong == 0, "narrowing: %zu of 400000 floats rounded wrongly, first %a", wrong, (double)first_bad);
    CHECK(compiler_wrong == 0, "narrowing: %zu of 400000 floats differ from the compiler's _Float16", compiler_wrong);
    CHECK(hcl_f32_to_f16(65520.0f) == 0x7c00 && hcl_f32_to_f16(65519.0f) == 0x7bff && hcl_f32_to_f16(0x1p-25f) == 0 &&
              hcl_f32_to_f16(0x1.0002p-25f) == 1 && hcl_f32_to_bf16(0x1.01p0f) == 0x3f80 &&
              hcl_f32_to_bf16(0x1.03p0f) == 0x3f82,
          "named rounding points (65520 -> inf, 2^-25 -> 0, ties to even)");
    /* hcl_convert's arrays (F16C where the CPU has it) against the scalar conversions, bit for bit: every f16
     * pattern widened, the floats above (NaN payloads included) narrowed, at lengths that leave every tail */
    enum { NW = 65536 + 7, NN = 4099 };
    uint16_t *pat = conf_malloc(NW * sizeof *pat), *nar = conf_malloc(NN * sizeof *nar);
    float *wid = conf_floats(NW), *xs = conf_floats(NN);
    for (uint32_t p = 0; p < NW; p++) pat[p] = (uint16_t)(p * 40503u);
    for (int i = 0; i < NN; i++) {
        uint32_t u = i < 64 ? nans[i % 6] ^ ((uint32_t)i << 13) : (uint32_t)conf_rand_u64();
        if (i >= 64 && i < 1024) { /* bf16 and f16 ties, float32 subnormals, near the largest finite values */
            const uint32_t kind = (uint32_t)i % 4;
            u = kind == 0   ? (u & ~0xffffu) | 0x8000u
                : kind == 1 ? (u & ~0x1fffu) | 0x1000u
                : kind == 2 ? u & 0x807fffffu
                            : (u & 0x8000ffffu) | 0x7f7f0000u;
        }
        memcpy(&xs[i], &u, sizeof u);
    }
    size_t array_wrong = 0;
    for (size_t len = NW - 17; len <= NW; len++) {
        CHECK(hcl_convert(HCL_DTYPE_F32, wid, HCL_DTYPE_F16, pat, len) == HCL_SUCCESS, "hcl_convert f16 -> f32");
        for (size_t i = 0; i < len; i++) {
            float s = hcl_f16_to_f32(pat[i]);
            array_wrong += memcmp(&s, &wid[i], sizeof s) != 0;
        }
        CHECK(hcl_convert(HCL_DTYPE_F32, wid, HCL_DTYPE_BF16, pat, len) == HCL_SUCCESS, "hcl_convert bf16 -> f32");
        for (size_t i = 0; i < len; i++) {
            float s = hcl_bf16_to_f32(pat[i]);
            array_wrong += memcmp(&s, &wid[i], sizeof s) != 0;
        }
    }
    for (size_t len = NN - 17; len <= NN; len++) {
        CHECK(hcl_convert(HCL_DTYPE_F16, nar, HCL_DTYPE_F32, xs, len) == HCL_SUCCESS, "hcl_convert f32 -> f16");
        for (size_t i = 0; i < len; i++) array_wrong += nar[i] != hcl_f32_to_f16(xs[i]);
        CHECK(hcl_convert(HCL_DTYPE_BF16, nar, HCL_DTYPE_F32, xs, len) == HCL_SUCCESS, "hcl_convert f32 -> bf16");
        for (size_t i = 0; i < len; i++) array_wrong += nar[i] != hcl_f32_to_bf16(xs[i]);
    }
    CHECK(array_wrong == 0, "hcl_convert arrays: %zu elements differ from the scalar conversions", array_wrong);
    /* hcl_convert: arrays, f16 <-> bf16, bad arguments */
    float src[5] = {1.0f, -2.5f, 0x1p-20f, 70000.0f, 3.14159f}, back[5];
    uint16_t mid[5], mid2[5];
    CHECK(hcl_convert(HCL_DTYPE_F16, mid, HCL_DTYPE_F32, src, 5) == HCL_SUCCESS &&
              hcl_convert(HCL_DTYPE_BF16, mid2, HCL_DTYPE_F16, mid, 5) == HCL_SUCCESS &&
              hcl_convert(HCL_DTYPE_F32, back, HCL_DTYPE_BF16, mid2, 5) == HCL_SUCCESS,
          "hcl_convert chain");
    CHECK(back[0] == 1.0f && back[1] == -2.5f && isinf(back[3]) && back[4] == 3.140625f,
          "f32 -> f16 -> bf16 -> f32: %g %g %g %g %g", (double)back[0], (double)back[1], (double)back[2],
          (double)back[3], (double)back[4]);
    CHECK(hcl_convert(HCL_DTYPE_F16, NULL, HCL_DTYPE_F32, src, 1) == HCL_ERROR_INVALID_ARGUMENT &&
              hcl_convert(HCL_DTYPE_F16, mid, (hcl_dtype)4, src, 1) == HCL_ERROR_INVALID_ARGUMENT &&
              hcl_convert(HCL_DTYPE_F16, NULL, HCL_DTYPE_F32, NULL, 0) == HCL_SUCCESS &&
              hcl_convert(HCL_DTYPE_F32, back, HCL_DTYPE_F16, NULL, 1) == HCL_ERROR_INVALID_ARGUMENT &&
              hcl_convert((hcl_dtype)3, mid, HCL_DTYPE_F32, src, 1) == HCL_ERROR_INVALID_ARGUMENT &&
              hcl_convert((hcl_dtype)-1, mid, HCL_DTYPE_F32, src, 1) == HCL_ERROR_INVALID_ARGUMENT,
          "hcl_convert argument checks");
}

/* ---- the GEMM tolerance is sharp enough ---- */

/* C = A B (m x n, k long, both row-major) summed in order of p by a simulated kernel: in float32 (fmaf, or a rounded
 * product then a sum), or with the running sum rounded to the 16-bit `acc` after every step (a kernel that computes
 * in 16-bit arithmetic); then rounded to c_type. */
static void simulated_gemm(int how, hcl_dtype acc, hcl_dtype c_type, size_t m, size_t n, size_t k, const float *a,
                           const float *b, float *out) {
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) {
            float s32 = 0.0f;
            double s16 = 0.0;
            for (size_t p = 0; p < k; p++) {
                float x = a[i * k + p], y = b[p * n + j];
                if (how == 0)
                    s32 = fmaf(x, y, s32);
                else if (how == 1)
                    s32 = s32 + x * y;
                else
                    s16 = hcl_ts_round_to(acc, s16 + (double)x * (double)y);
            }
            out[i * n + j] = (float)hcl_ts_round_to(c_type, how == 2 ? s16 : (double)s32);
        }
}

/* Float32 kernels pass the typed GEMM tolerance at k = 4096 and a kernel that accumulates in 16 bits fails it on
 * most elements (hcl_testsupport.h, "Sharpness"), for every 16-bit type and C type. */
CONF_GLOBAL_TEST(core, gemm_tolerance_sharp) {
    const size_t m = 4, n = 32, k = 4096;
    float *a = conf_floats(m * k), *b = conf_floats(k * n), *got = conf_floats(m * n);
    double *ref = conf_doubles(m * n), *tol = conf_doubles(m * n);
    for (size_t ti = 0; ti < 2; ti++) {
        hcl_dtype t = g_half_types[ti];
        conf_fill_uniform(a, m * k, -1.0f, 1.0f);
        conf_fill_uniform(b, k * n, -1.0f, 1.0f);
        for (size_t i = 0; i < m * k; i++) a[i] = (float)hcl_ts_round_to(t, a[i]);
        for (size_t i = 0; i < k * n; i++) b[i] = (float)hcl_ts_round_to(t, b[i]);
        for (int ci = 0; ci < 2; ci++) {
            hcl_dtype c = ci ? HCL_DTYPE_F32 : t;
            hcl_ts_ref_gemm_typed(c, HCL_COMPUTE_F32, HCL_NO_TRANS, HCL_NO_TRANS, m, n, k, 1.0f, a, k, b, n, 0.0f, NULL,
                                  n, ref, tol);
            for (int how = 0; how < 3; how++) {
                simulated_gemm(how, t, c, m, n, k, a, b, got);
                hcl_ts_cmp cmp;
                hcl_ts_cmp_init(&cmp);
                hcl_ts_compare(&cmp, got, ref, tol, 1.0, m * n);
                static const char *hows[] = {"float32 fma", "float32 mul+add", "16-bit accumulation"};
                cr_log_info("%s -> %s, %s: %zu of %zu outside, max |err| / tol %.3g", hcl_dtype_name(t),
                            hcl_dtype_name(c), hows[how], cmp.bad, cmp.count, cmp.max_rel);
                if (how < 2)
                    CHECK(cmp.bad == 0, "%s -> %s, %s at k = %zu: %zu of %zu elements outside the tolerance",
                          hcl_dtype_name(t), hcl_dtype_name(c), hows[how], k, cmp.bad, cmp.count);
                else
                    CHECK(cmp.bad > cmp.count / 2,
                          "%s -> %s: a 16-bit accumulation at k = %zu passes the tolerance on %zu of %zu elements",
                          hcl_dtype_name(t), hcl_dtype_name(c), k, cmp.count - cmp.bad, cmp.count);
            }
        }
    }
}

/* ---- large ---- */

/* Sizes of the f32 suites' large cases, in each 16-bit type. */
CONF_TEST(types, large) {
    for (size_t ti = 0; ti < 2; ti++) {
        hcl_dtype t = g_half_types[ti];
        run_vecadd(t, (1u << 22) + 19);
        run_reduce(t, HCL_REDUCE_SUM, (1u << 22) + 13, R_UNIFORM);
        run_reduce(t, HCL_REDUCE_MAX, (1u << 22) + 13, R_ONE_SIGN);
        run_softmax(t, 513, 1031, false);
        tcase g = {
            t, ti ? t : HCL_DTYPE_F32, HCL_COMPUTE_F32, 300, 333, 417, HCL_TRANS, HCL_NO_TRANS, 5, 0.5f, -1.0f, false};
        run_gemm(&g);
    }
}
