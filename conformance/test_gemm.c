/* hcl_gemm_f32 conformance.
 *
 * Reference: float64 dot products (hcl_ts_ref_gemm). Tolerance, per element of C (hcl_testsupport.h says why):
 *     |c - ref| <= (k + 3) * FLT_EPSILON * (|alpha| * sum_p |a_ip| |b_pj| + |beta| |c0_ij|) + FLT_MIN
 * An element of A or B read from the wrong place errs by about |a||b|, far above it.
 *
 * That bound grows like k, and the error of a float32 dot product of random mixed-sign inputs does not: at k = 10^5
 * it lets through a lost half of the sum (a split-k partial dropped: ~sqrt(k/2)/3 against ~0.012 S, S ~ k/4). So a
 * case with k >= SHARP_K is checked a second time under the probabilistic rule of the typed GEMMs
 * (hcl_ts_ref_gemm_typed for a float32 C: g(k) 2^-24 S with g(k) = min(2 (k + 3), 8 (sqrt(k) + log2(k + 1) + 1)),
 * which is this rule below k of about 300 and holds for inputs like these, uniform in [-1, 1]): about 4 at k = 10^5,
 * where a lost block of 2^10 products errs by ~10.
 *
 * Padding: the lda/ldb padding columns of A and B hold NaN, so a kernel that reads them poisons its result;
 * the ldc padding of C and a guard after C hold the poison and must come back unchanged.
 */
#include "common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#define GUARD 8
/* From this k on, the float32 rule's (k + 3) bound is also held to the sharper probabilistic one (see above). */
#define SHARP_K 1024

enum c_init { C_RANDOM, C_NAN };

typedef struct gcase {
    size_t m, n, k;
    hcl_transpose ta, tb;
    size_t pad_a, pad_b, pad_c; /* lda = minimal + pad_a, ... */
    float alpha, beta;
    enum c_init c_init;
    bool ab_nan; /* A and B hold only NaN (valid when alpha == 0 or k == 0: they must not be read) */
} gcase;

static const char *tname(hcl_transpose t) { return t == HCL_NO_TRANS ? "N" : "T"; }

static void run_gemm(const gcase *g) {
    size_t m = g->m, n = g->n, k = g->k;
    size_t rows_a = g->ta == HCL_NO_TRANS ? m : k, cols_a = g->ta == HCL_NO_TRANS ? k : m;
    size_t rows_b = g->tb == HCL_NO_TRANS ? k : n, cols_b = g->tb == HCL_NO_TRANS ? n : k;
    size_t lda = (cols_a ? cols_a : 1) + g->pad_a, ldb = (cols_b ? cols_b : 1) + g->pad_b;
    size_t ldc = (n ? n : 1) + g->pad_c;
    size_t len_a = rows_a * lda + 1, len_b = rows_b * ldb + 1, len_c = m * ldc + GUARD;
    char what[160];
    snprintf(what, sizeof what, "gemm %s%s m=%zu n=%zu k=%zu lda=%zu ldb=%zu ldc=%zu alpha=%g beta=%g%s%s",
             tname(g->ta), tname(g->tb), m, n, k, lda, ldb, ldc, (double)g->alpha, (double)g->beta,
             g->c_init == C_NAN ? " (C holds NaN)" : "", g->ab_nan ? " (A, B hold NaN)" : "");

    float nan = nanf("");
    float *a = conf_floats(len_a), *b = conf_floats(len_b), *c0 = conf_floats(len_c), *c = conf_floats(len_c);
    for (size_t i = 0; i < len_a; i++) a[i] = nan;
    for (size_t i = 0; i < len_b; i++) b[i] = nan;
    if (!g->ab_nan) {
        for (size_t r = 0; r < rows_a; r++) conf_fill_uniform(a + r * lda, cols_a, -1.0f, 1.0f);
        for (size_t r = 0; r < rows_b; r++) conf_fill_uniform(b + r * ldb, cols_b, -1.0f, 1.0f);
    }
    for (size_t i = 0; i < len_c; i++) c0[i] = hcl_ts_poison();
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) c0[i * ldc + j] = g->c_init == C_NAN ? nan : conf_rand_float(-1.0f, 1.0f);

    hcl_buffer ba = conf_buffer(len_a * sizeof(float)), bb = conf_buffer(len_b * sizeof(float));
    hcl_buffer bc = conf_buffer(len_c * sizeof(float));
    if (!ba || !bb || !bc) return;
    if (!conf_write(ba, 0, a, len_a * sizeof(float)) || !conf_write(bb, 0, b, len_b * sizeof(float)) ||
        !conf_write(bc, 0, c0, len_c * sizeof(float)))
        return;
    if (!CHECK_RUN(hcl_gemm_f32(conf_queue, g->ta, g->tb, m, n, k, g->alpha, ba, lda, bb, ldb, g->beta, bc, ldc, NULL)))
        return;
    if (!conf_read(bc, 0, c, len_c * sizeof(float))) return;

    size_t mn = m * n;
    double *ref = conf_doubles(mn ? mn : 1), *tol = conf_doubles(mn ? mn : 1);
    float *got = conf_floats(mn ? mn : 1);
    hcl_ts_ref_gemm(HCL_TS_CONFORMANCE, g->ta, g->tb, m, n, k, g->alpha, a, lda, b, ldb, g->beta, c0, ldc, ref, tol);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) got[i * n + j] = c[i * ldc + j];
    conf_compare(what, got, ref, tol, mn);
    if (k >= SHARP_K) {
        char sharp[200];
        snprintf(sharp, sizeof sharp, "%s (probabilistic rule)", what);
        hcl_ts_ref_gemm_typed(HCL_DTYPE_F32, HCL_COMPUTE_F32, g->ta, g->tb, m, n, k, g->alpha, a, lda, b, ldb, g->beta,
                              c0, ldc, ref, tol);
        conf_compare(sharp, got, ref, tol, mn);
    }

    /* ldc padding and the guard after C. */
    size_t touched = 0, first = 0;
    for (size_t i = 0; i < len_c; i++) {
        bool inside = i < m * ldc && (i % ldc) < n;
        if (!inside && !hcl_ts_is_poison(c[i]) && touched++ == 0) first = i;
    }
    CHECK(touched == 0, "%s: %zu element(s) of C outside the m x n result were written, first at %zu (row %zu col %zu)",
          what, touched, first, first / ldc, first % ldc);
}

/* Every shape with NN, minimal leading dimensions, alpha 1, beta 0 over a C full of NaN. */
CONF_TEST(gemm, shapes) {
    static const size_t s[][3] = {
        {1, 1, 1},     {1, 1, 7},     {2, 3, 4},       {3, 2, 1},       {7, 11, 13},   {13, 7, 11},   {15, 16, 17},
        {16, 16, 16},  {17, 17, 17},  {16, 17, 15},    {31, 32, 33},    {32, 32, 32},  {33, 31, 32},  {63, 64, 65},
        {64, 64, 64},  {65, 63, 64},  {127, 128, 129}, {128, 128, 128}, {129, 127, 1}, {1, 129, 128}, {128, 1, 127},
        {255, 1, 257}, {1, 256, 257}, {257, 255, 3},   {3, 257, 256},   {1023, 3, 5},  {5, 1024, 3},  {4, 3, 1025},
        {1025, 2, 17}, {2, 1025, 33}, {101, 103, 107}, {1, 1, 4097},    {2, 3, 2049},  {4097, 1, 1},  {1, 4097, 2}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        gcase g = {s[i][0], s[i][1], s[i][2], HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
        run_gemm(&g);
    }
}

CONF_TEST(gemm, large) {
    gcase g1 = {300, 333, 417, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
    run_gemm(&g1);
    gcase g2 = {384, 256, 448, HCL_TRANS, HCL_NO_TRANS, 5, 0, 3, 0.5f, -1.0f, C_RANDOM, false};
    run_gemm(&g2);
    gcase g3 = {257, 511, 129, HCL_NO_TRANS, HCL_TRANS, 0, 9, 0, -1.25f, 0.75f, C_RANDOM, false};
    run_gemm(&g3);
    /* Many row blocks (a CPU cuts C into blocks of rows for its threads) over several blocks of k. */
    gcase g4 = {1001, 97, 1100, HCL_TRANS, HCL_NO_TRANS, 3, 0, 5, 0.75f, 0.5f, C_RANDOM, false};
    run_gemm(&g4);
    /* Few rows, many columns: a CPU splits the columns. */
    gcase g5 = {7, 1503, 613, HCL_NO_TRANS, HCL_TRANS, 0, 2, 0, 1.0f, 1.0f, C_RANDOM, false};
    run_gemm(&g5);
}

/* Enough tiles for a GPU's largest float32 tiles (256 x 128 on an H100's 132 SMs): m, n, k off every tile and step
 * boundary, each transpose, padded, alpha and beta; and a problem of whole tiles, where the kernel skips its bounds
 * checks. */
CONF_TEST(gemm, big_tiles) {
    enum { M = 2307, N = 1283, K = 41 };
    for (int t = 0; t < 4; t++) {
        const int ta = t & 1, tb = t >> 1;
        /* rows padded to a multiple of 4 floats (16 bytes: the kernels' vector loads), C's not */
        const size_t pad_a = (4 - (ta ? M : K) % 4) % 4, pad_b = (4 - (tb ? K : N) % 4) % 4;
        gcase g = {M, N, K, (hcl_transpose)ta, (hcl_transpose)tb, pad_a, pad_b, 3, 0.75f, -0.5f, C_RANDOM, false};
        run_gemm(&g);
    }
    gcase odd = {M, N, K, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false}; /* lda 41: no vectors */
    run_gemm(&odd);
    gcase whole = {2560, 1280, 64, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
    run_gemm(&whole);
    /* a C of under 64 rows with more 64 x 128 tiles than two for each of 132 SMs (a GPU's float32 tiles of 64 x 128),
     * each transpose, padded or not */
    for (int t = 0; t < 4; t++) {
        gcase g = {63,
                   33800,
                   9,
                   (hcl_transpose)(t >> 1),
                   (hcl_transpose)(t & 1),
                   (size_t)t,
                   (size_t)(3 - t),
                   1,
                   t ? -0.5f : 1.0f,
                   t ? 1.5f : 0.0f,
                   t ? C_RANDOM : C_NAN,
                   false};
        run_gemm(&g);
    }
}

/* A regression pair: 64^3, then 2307 x 1283 x 41 on the same queue (row-major, no transpose, alpha 1, beta 0). On the
 * host's AVX2 path the second call's packing of B, 24-wide panels in a block of 1024 columns, wrote 8 columns past the
 * workspace the plan had sized: wrong elements, then heap corruption. Then column counts just past whole blocks of
 * columns (1024 on the host) and of every micro-tile width. Run once per host instruction set by ctest
 * (conformance-host-<isa>). */
CONF_TEST(gemm, packed_blocks) {
    gcase first = {64, 64, 64, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
    run_gemm(&first);
    gcase report = {2307, 1283, 41, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
    run_gemm(&report);
    static const size_t s[][3] = {{13, 1025, 7}, {37, 1033, 19}, {5, 2049, 9}, {197, 1047, 5}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        gcase g = {s[i][0], s[i][1], s[i][2], HCL_NO_TRANS, HCL_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
        run_gemm(&g);
    }
}

/* All four transpose combinations, minimal and padded leading dimensions. */
CONF_TEST(gemm, transposes) {
    static const size_t s[][3] = {{1, 1, 1}, {7, 11, 13}, {33, 17, 65}, {64, 65, 63}, {16, 16, 16}, {129, 31, 257}};
    static const size_t pads[][3] = {{0, 0, 0}, {3, 5, 7}, {16, 1, 0}};
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
                for (size_t p = 0; p < sizeof pads / sizeof pads[0]; p++) {
                    gcase g = {s[i][0],
                               s[i][1],
                               s[i][2],
                               (hcl_transpose)ta,
                               (hcl_transpose)tb,
                               pads[p][0],
                               pads[p][1],
                               pads[p][2],
                               1.5f,
                               0.5f,
                               C_RANDOM,
                               false};
                    run_gemm(&g);
                }
}

CONF_TEST(gemm, alpha_beta) {
    static const float alphas[] = {1.0f, -0.75f, 2.0f, 0.0f};
    static const float betas[] = {0.0f, 1.0f, -2.5f, 0.25f};
    for (size_t ai = 0; ai < sizeof alphas / sizeof alphas[0]; ai++)
        for (size_t bi = 0; bi < sizeof betas / sizeof betas[0]; bi++)
            for (int t = 0; t < 2; t++) {
                hcl_transpose tr = t ? HCL_TRANS : HCL_NO_TRANS;
                float beta = betas[bi];
                /* beta = 0: C is not read, so NaN in C must not come through. */
                gcase g = {37, 41, 43, tr, tr, 2, 0, 1, alphas[ai], beta, beta == 0.0f ? C_NAN : C_RANDOM, false};
                run_gemm(&g);
            }
    /* alpha = 0: A and B are not read (C = beta * C even when they hold NaN). */
    for (size_t bi = 0; bi < sizeof betas / sizeof betas[0]; bi++) {
        float beta = betas[bi];
        gcase g = {19, 23, 29, HCL_NO_TRANS, HCL_TRANS, 0, 0, 3, 0.0f, beta, beta == 0.0f ? C_NAN : C_RANDOM, true};
        run_gemm(&g);
    }
}

/* k far above m and n (one small output tile, a long reduction: where a kernel splits k), with primes and 2^16 + 1;
 * then with alpha, beta, transposes and padding. */
CONF_TEST(gemm, long_k) {
    static const size_t s[][3] = {{3, 5, 65537}, {7, 7, 100003}, {1, 129, 40961}, {127, 1, 20011}, {1, 1, 262139}};
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++) {
        gcase g = {s[i][0], s[i][1], s[i][2], HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
        run_gemm(&g);
    }
    gcase g1 = {5, 3, 65521, HCL_TRANS, HCL_NO_TRANS, 3, 0, 2, -0.5f, 1.5f, C_RANDOM, false};
    gcase g2 = {9, 2, 30011, HCL_NO_TRANS, HCL_TRANS, 0, 5, 1, 2.0f, -0.25f, C_RANDOM, false};
    gcase g3 = {17, 13, 50021, HCL_TRANS, HCL_TRANS, 1, 1, 0, 0.75f, 1.0f, C_RANDOM, false};
    gcase g4 = {61, 67, 8191, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, -1.0f, 0.5f, C_RANDOM, false};
    run_gemm(&g1);
    run_gemm(&g2);
    run_gemm(&g3);
    run_gemm(&g4);
    /* a few nearly full 128 x 128 tiles of C over a long k (a GPU splits k on its large tiles), every transpose; then
     * nearly full 64 x 128 tiles (63 rows) */
    static const size_t big[][3] = {{120, 128, 4099}, {250, 250, 3001}, {256, 120, 2053}, {100, 250, 2048}};
    for (int t = 0; t < 4; t++) {
        gcase g = {big[t][0],
                   big[t][1],
                   big[t][2],
                   (hcl_transpose)(t >> 1),
                   (hcl_transpose)(t & 1),
                   (size_t)t,
                   3,
                   1,
                   t == 0 ? 1.0f : -0.75f,
                   t == 0 ? 0.0f : 0.5f,
                   t == 0 ? C_NAN : C_RANDOM,
                   false};
        run_gemm(&g);
    }
    for (int t = 0; t < 4; t++) {
        gcase g = {63,        250, 2113,  (hcl_transpose)(t >> 1), (hcl_transpose)(t & 1), 3,
                   (size_t)t, 0,   1.25f, t ? 0.25f : 0.0f,        t ? C_RANDOM : C_NAN,   false};
        run_gemm(&g);
    }
}

/* A short k (1 to 9: where a GPU writes C from a few values of A and B in registers), around 32-row and 256-column
 * blocks, every transpose, padded, with alpha and beta; and with beta 0 over a C of NaN. */
CONF_TEST(gemm, short_k) {
    static const size_t ks[] = {1, 2, 3, 5, 8, 9};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        for (int t = 0; t < 4; t++) {
            gcase g = {65,   257,      ks[i], (hcl_transpose)(t >> 1), (hcl_transpose)(t & 1), 3, 5, 7, 1.5f,
                       0.5f, C_RANDOM, false};
            run_gemm(&g);
        }
        gcase g = {33, 513, ks[i], HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, -0.75f, 0.0f, C_NAN, false};
        run_gemm(&g);
    }
    gcase big = {1000, 1100, 1, HCL_NO_TRANS, HCL_TRANS, 0, 0, 4, 1.0f, 0.0f, C_NAN, false};
    run_gemm(&big);
}

/* A few columns of C (2 to 9) over a longer k (GPU tiles mostly padding, k in slices): rows around blocks of 32,
 * k not a multiple of any slice, A and B plain and transposed, padded, alpha and beta. */
CONF_TEST(gemm, few_columns) {
    static const size_t ns[] = {2, 3, 7, 8, 9};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        gcase g1 = {1000, ns[i], 3001, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
        gcase g2 = {37, ns[i], 2500, HCL_NO_TRANS, HCL_TRANS, 3, 5, 2, -0.5f, 1.5f, C_RANDOM, false};
        gcase g3 = {33, ns[i], 64, HCL_NO_TRANS, HCL_NO_TRANS, 1, 0, 0, 2.0f, 0.0f, C_NAN, false};
        gcase g4 = {70, ns[i], 1500, HCL_TRANS, HCL_NO_TRANS, 0, 3, 0, 1.0f, -1.0f, C_RANDOM, false};
        run_gemm(&g1);
        run_gemm(&g2);
        run_gemm(&g3);
        run_gemm(&g4);
    }
}

/* A C of few rows (GPU: the few-rows kernels, over slices of k) and of few columns (the same on swapped operands):
 * rows around the kernels' row counts (1, 2, 4, 8, 16) and past them (17), n off the 16-byte vectors and over several
 * blocks of every kernel (at most 256 columns), k off the slices (multiples of 64), every transpose, B's rows padded to whole vectors of 4 floats or one past them (no vectors),
 * alpha and beta, and a C of NaN under beta 0. */
CONF_TEST(gemm, few_rows) {
    static const size_t ms[] = {1, 2, 3, 8, 15, 16, 17};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
        for (int t = 0; t < 4; t++)
            for (int odd = 0; odd < 2; odd++) {
                const size_t n = 301, k = 1000, cols_b = t & 1 ? k : n;
                const size_t pad_b = (4 - cols_b % 4) % 4 + (size_t)odd; /* ldb a multiple of 4 floats, or not */
                const int plain = t != 3 && !odd;
                gcase g = {ms[i],
                           n,
                           k,
                           (hcl_transpose)(t >> 1),
                           (hcl_transpose)(t & 1),
                           (size_t)odd,
                           pad_b,
                           2,
                           plain ? 1.0f : -0.75f,
                           plain ? 0.0f : 0.5f,
                           plain ? C_NAN : C_RANDOM,
                           false};
                run_gemm(&g);
            }
    /* a long k over many slices, its last one short; a C wider than a block of every kernel */
    static const size_t long_k[][3] = {{8, 77, 16411}, {16, 301, 4097}, {1, 130, 20000}, {3, 40000, 257}};
    for (size_t s = 0; s < sizeof long_k / sizeof long_k[0]; s++)
        for (int t = 0; t < 4; t++) {
            gcase g = {long_k[s][0],
                       long_k[s][1],
                       long_k[s][2],
                       (hcl_transpose)(t >> 1),
                       (hcl_transpose)(t & 1),
                       0,
                       (size_t)t,
                       1,
                       1.25f,
                       t ? -1.0f : 0.0f,
                       t ? C_RANDOM : C_NAN,
                       false};
            run_gemm(&g);
        }
    /* few columns: C^T = B^T A^T */
    static const size_t cols[][3] = {{1000, 1, 777}, {1003, 3, 1029}, {2000, 16, 640}, {500, 17, 300}};
    for (size_t s = 0; s < sizeof cols / sizeof cols[0]; s++)
        for (int t = 0; t < 4; t++) {
            gcase g = {
                cols[s][0],      cols[s][1], cols[s][2], (hcl_transpose)(t >> 1), (hcl_transpose)(t & 1),   (size_t)t,
                (size_t)(3 - t), 0,          -0.5f,      t & 1 ? 0.0f : 2.0f,     t & 1 ? C_NAN : C_RANDOM, false};
            run_gemm(&g);
        }
}

/* C of 1, 2, 3, 7 and 16 rows, and (on swapped operands) of 1, 7 and 16 columns, 259 wide (two and a bit ranges of a
 * gemv group's columns, off every vector), k from 1 through 63, 64, 65 and primes to 4099 (slices of k, the last one
 * short), every transpose, rows of A and B padded by 0-3 elements (16-byte vectors or not); C = A B over a C of NaN,
 * or alpha and beta. */
CONF_TEST(gemm, gemv) {
    static const size_t mn[][2] = {{1, 259}, {2, 259}, {3, 259}, {7, 259}, {16, 259}, {259, 1}, {259, 7}, {259, 16}};
    static const size_t ks[] = {1, 63, 64, 65, 509, 1000, 4099};
    for (size_t s = 0; s < sizeof mn / sizeof mn[0]; s++)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            for (int t = 0; t < 4; t++) {
                const int scaled = (t + (int)i) % 2 != 0;
                gcase g = {mn[s][0],
                           mn[s][1],
                           ks[i],
                           (hcl_transpose)(t >> 1),
                           (hcl_transpose)(t & 1),
                           (size_t)t,
                           (size_t)(3 - t),
                           (size_t)(s % 2),
                           scaled ? -0.75f : 1.0f,
                           scaled ? 0.5f : 0.0f,
                           scaled ? C_RANDOM : C_NAN,
                           false};
                run_gemm(&g);
            }
}

/* k = 0: C = beta * C; m = 0 or n = 0: nothing happens. */
CONF_TEST(gemm, degenerate) {
    static const float betas[] = {0.0f, 1.0f, 0.5f, -3.0f};
    for (size_t bi = 0; bi < sizeof betas / sizeof betas[0]; bi++)
        for (int t = 0; t < 4; t++) {
            float beta = betas[bi];
            gcase g = {33,
                       65,
                       0,
                       (hcl_transpose)(t & 1),
                       (hcl_transpose)(t >> 1),
                       0,
                       0,
                       2,
                       1.0f,
                       beta,
                       beta == 0.0f ? C_NAN : C_RANDOM,
                       true};
            run_gemm(&g);
            gcase g1 = {1,   1, 0, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 2.0f, beta, beta == 0.0f ? C_NAN : C_RANDOM,
                        true};
            run_gemm(&g1);
        }
    gcase e1 = {0, 7, 5, HCL_NO_TRANS, HCL_NO_TRANS, 0, 0, 0, 1.0f, 0.0f, C_NAN, false};
    gcase e2 = {7, 0, 5, HCL_NO_TRANS, HCL_TRANS, 0, 0, 0, 1.0f, 1.0f, C_RANDOM, false};
    gcase e3 = {0, 0, 0, HCL_TRANS, HCL_TRANS, 0, 0, 0, 1.0f, 1.0f, C_RANDOM, false};
    run_gemm(&e1);
    run_gemm(&e2);
    run_gemm(&e3);
}

CONF_TEST(gemm, bad_args) {
    size_t m = 8, n = 6, k = 5, bytes = 64 * sizeof(float);
    hcl_buffer a = conf_buffer(bytes), b = conf_buffer(bytes), c = conf_buffer(bytes);
    REQUIRE(a && b && c, "buffers");
    float *init = conf_floats(64); /* A and B are read by the one valid call: give them defined values */
    conf_fill_uniform(init, 64, -1.0f, 1.0f);
    REQUIRE(conf_write(a, 0, init, bytes) && conf_write(b, 0, init, bytes), "inputs");
    REQUIRE(conf_poison_buffer(c, 0, bytes), "poison");
    hcl_queue q = conf_queue;
    hcl_transpose N = HCL_NO_TRANS, T = HCL_TRANS;

    CHECK_ST(HCL_SUCCESS, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL));
    REQUIRE(conf_poison_buffer(c, 0, bytes), "poison");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_gemm_f32(q, (hcl_transpose)7, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_gemm_f32(q, N, (hcl_transpose)7, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
             hcl_gemm_f32(q, (hcl_transpose)-1, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL));
    /* Leading dimensions below the minimum. */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, k - 1, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_gemm_f32(q, T, N, m, n, k, 1.0f, a, m - 1, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, k, b, n - 1, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_gemm_f32(q, N, T, m, n, k, 1.0f, a, k, b, k - 1, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n - 1, NULL));
    /* Buffers too small for the shape: 8 x 9 floats of C do not fit in 64. */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_gemm_f32(q, N, N, m, 9, k, 1.0f, a, k, b, 9, 0.0f, c, 9, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_gemm_f32(q, N, N, 13, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_gemm_f32(q, N, N, m, n, 11, 1.0f, a, 11, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, 40, b, n, 0.0f, c, n, NULL));
    /* Shapes whose byte counts overflow size_t: never a success. */
    CHECK_ST2(HCL_ERROR_OUT_OF_RANGE, HCL_ERROR_INVALID_ARGUMENT,
              hcl_gemm_f32(q, N, N, SIZE_MAX / 2, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL));
    CHECK_ST2(HCL_ERROR_OUT_OF_RANGE, HCL_ERROR_INVALID_ARGUMENT,
              hcl_gemm_f32(q, N, N, 2, 2, 2, 1.0f, a, SIZE_MAX / 2, b, 2, 0.0f, c, 2, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_gemm_f32(NULL, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, NULL, k, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, k, NULL, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, NULL, n, NULL));

    hcl_buffer other = conf_other_buffer(bytes);
    REQUIRE(other != NULL, "a buffer on a second open of the device");
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, other, k, b, n, 0.0f, c, n, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_gemm_f32(q, N, N, m, n, k, 1.0f, a, k, b, n, 0.0f, other, n, NULL));

    conf_check_buffer_untouched("gemm: C after failing calls", c, 64);
}
