/* hcl_softmax_f32 conformance.
 *
 * Reference: float64, max-subtracted (hcl_ts_ref_softmax). Tolerance, per element:
 *     |out - ref| <= rtol * |ref| + 4 * FLT_MIN,   rtol = 1e-5 * max(1, sqrt(cols / 256))
 * 1e-5 covers a few ulp of exp and the division; the sum of `cols` float32 terms adds a relative error that
 * grows like sqrt(cols) for sequential summation of random data (log2(cols) for a tree), hence the scaling
 * above 256 columns (1.25e-4 at 40000). The absolute term allows results below FLT_MIN to be flushed to zero.
 * An input of -inf gives exactly 0; a row of only -inf gives NaN (not the poison), and so does a row with a NaN.
 */
#include "common.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GUARD 5

enum gen { GEN_UNIFORM, GEN_LARGE, GEN_NEGINF, GEN_NAN };
static const char *gen_name[] = {"uniform [-10, 10]", "large magnitudes", "with -inf", "with a NaN"};

static void generate(float *x, size_t rows, size_t cols, enum gen gen) {
    for (size_t r = 0; r < rows; r++) {
        float *row = x + r * cols;
        conf_fill_uniform(row, cols, -10.0f, 10.0f);
        if (gen == GEN_LARGE) {
            switch (r % 4) {
            case 0: /* large offsets: softmax is shift invariant, but exp(x) alone overflows */
                for (size_t j = 0; j < cols; j++) row[j] += 1e4f;
                break;
            case 1:
                for (size_t j = 0; j < cols; j++) row[j] -= 1e4f;
                break;
            case 2: { /* a mix of everything, including +-FLT_MAX-sized values */
                static const float pick[] = {3e38f, -3e38f, FLT_MAX, -FLT_MAX, 1e4f, -1e4f, 0.0f, 1.0f};
                for (size_t j = 0; j < cols; j++) row[j] = pick[conf_rand_u64() % 8];
                break;
            }
            default: /* x - max overflows to -inf for the -3e38 entries: they must give 0 */
                for (size_t j = 0; j < cols; j++) row[j] = (conf_rand_u64() & 1) ? 3e38f : -3e38f;
                row[conf_rand_u64() % cols] = 3e38f;
                break;
            }
        } else if (gen == GEN_NAN) {
            /* one NaN a row, which makes the row NaN: alone among -inf in an aligned run of 8 (what one thread or one
             * work-item's vectors hold: the streamed kernels lost it there), among the row's numbers, or with only
             * -inf besides */
            const size_t run = cols < 8 ? cols : 8, at = conf_rand_u64() % (cols / run) * run;
            if (r % 3 == 0)
                for (size_t j = at; j < at + run; j++) row[j] = -INFINITY;
            if (r % 3 == 2)
                for (size_t j = 0; j < cols; j++) row[j] = -INFINITY;
            row[at + conf_rand_u64() % run] = NAN;
        } else if (gen == GEN_NEGINF) {
            if (r % 5 == 4) { /* a row of only -inf: 0/0 */
                for (size_t j = 0; j < cols; j++) row[j] = -INFINITY;
            } else {
                for (size_t j = 0; j < cols; j++)
                    if (conf_rand_u64() % 4 == 0) row[j] = -INFINITY;
                if (r % 5 == 3) row[conf_rand_u64() % cols] = -INFINITY; /* at least one */
                if (r % 5 == 2) {                                        /* all but one */
                    size_t keep = conf_rand_u64() % cols;
                    for (size_t j = 0; j < cols; j++)
                        if (j != keep) row[j] = -INFINITY;
                }
            }
        }
    }
}

static void run_softmax(size_t rows, size_t cols, enum gen gen, bool in_place) {
    size_t n = rows * cols, len = n + GUARD, bytes = len * sizeof(float);
    float *x = conf_floats(len), *y = conf_floats(len);
    double *ref = conf_doubles(n ? n : 1), *tol = conf_doubles(n ? n : 1);
    generate(x, rows, cols, gen);
    for (size_t i = n; i < len; i++) x[i] = hcl_ts_poison();
    hcl_ts_ref_softmax(HCL_TS_CONFORMANCE, x, rows, cols, ref, tol);

    hcl_buffer bin = conf_buffer(bytes), bout = bin;
    if (!bin || !conf_write(bin, 0, x, bytes)) return;
    if (!in_place) {
        bout = conf_buffer(bytes);
        if (!bout || !conf_poison_buffer(bout, 0, bytes)) return;
    }
    if (!CHECK_RUN(hcl_softmax_f32(conf_queue, rows, cols, bin, bout, NULL))) return;
    if (!conf_read(bout, 0, y, bytes)) return;

    char what[128];
    snprintf(what, sizeof what, "softmax rows=%zu cols=%zu, %s%s", rows, cols, gen_name[gen],
             in_place ? ", in place" : "");
    if (n > 0 && in_place) {
        conf_compare(what, y, ref, tol, n);
    } else if (n > 0) {
        conf_compare(what, y, ref, tol, n);
        /* The input is left as it was. */
        float *x2 = conf_floats(len);
        if (conf_read(bin, 0, x2, bytes)) CHECK(memcmp(x, x2, bytes) == 0, "%s: the input buffer was changed", what);
    }
    if (n == 0 && in_place) {
        CHECK(memcmp(x, y, bytes) == 0, "%s: an empty softmax changed its buffer", what);
    } else {
        char g[160];
        snprintf(g, sizeof g, "%s: %s", what, n == 0 ? "output of an empty softmax" : "guard after the output");
        conf_check_untouched(g, y + n, n == 0 ? len : GUARD);
    }
}

static const size_t boundary_cols[] = {1,   2,    3,    5,    7,    15,   16,   17,   31,   32,  33,
                                       63,  64,   65,   127,  128,  129,  255,  256,  257,  511, 512,
                                       513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097};

/* run_softmax of each shape {rows, cols} of a table, or of rows x each column count of a table. */
static void run_shapes(const size_t (*shapes)[2], size_t count, enum gen gen, bool in_place) {
    for (size_t i = 0; i < count; i++) run_softmax(shapes[i][0], shapes[i][1], gen, in_place);
}
static void run_cols(size_t rows, const size_t *cols, size_t count, enum gen gen) {
    for (size_t i = 0; i < count; i++) run_softmax(rows, cols[i], gen, false);
}
#define RUN_SHAPES(table, gen, in_place) run_shapes(table, sizeof table / sizeof table[0], gen, in_place)
#define RUN_COLS(rows, table, gen) run_cols(rows, table, sizeof table / sizeof table[0], gen)

CONF_TEST(softmax, shapes) {
    RUN_COLS(3, boundary_cols, GEN_UNIFORM);
    /* then more short rows of whole vectors than a GPU runs groups or warps at once (H100: 132 SMs of at most 32
     * groups of 32 work-items), in place too; and empty calls */
    static const size_t s[][2] = {{1, 1},      {7, 1},     {1, 2},     {2, 3},     {5, 7},     {13, 11},
                                  {1000, 33},  {2049, 17}, {17, 2049}, {3, 10007}, {65537, 3}, {100003, 1},
                                  {20000, 64}, {0, 5},     {5, 0},     {0, 0}};
    RUN_SHAPES(s, GEN_UNIFORM, false);
    run_softmax(9001, 256, GEN_UNIFORM, true);
}

/* Long rows; the GPU plan's edges: a block a row of 32 values a thread up to 32768 columns (1024 threads; 300 rows of
 * 16384), clusters of 2, 4 and 8 blocks on sm_90 above, and past 262144 the streamed kernel; rows shared by several
 * work-groups (OpenCL on a GPU, above 16384 columns of whole vectors; Vulkan on a GPU, above 32768): parts of only -inf
 * beside a finite one, rows of only -inf, large magnitudes, in place, a NaN in one part (a NaN among -inf, or in a row
 * of -inf besides) at 98332 columns (Vulkan: 4 work-groups a row, the last one 16-byte word short); more rows than the
 * device runs clusters at once (H100: 15 of 8 blocks at 262144 columns, tens of 4 at 65536): a cluster takes an equal
 * share of the rows, some one more than others. */
CONF_TEST(softmax, wide_rows) {
    static const size_t uniform[][2] = {{1, 40000},   {3, 39999},   {300, 16384}, {3, 16383},  {3, 16385},
                                        {2, 65536},   {2, 65537},   {1, 131073},  {1, 262144}, {1, 262145},
                                        {100, 65536}, {40, 262144}, {3, 32768},   {3, 32767},  {3, 32772}};
    static const size_t neg_inf[][2] = {{2, 32769}, {2, 131073}, {5, 65536}, {5, 98332}};
    static const size_t nan[][2] = {{6, 98332}};
    static const size_t large[][2] = {{2, 32768}, {4, 65536}};
    static const size_t in_place[][2] = {{2, 65537}, {2, 262144}};
    RUN_SHAPES(uniform, GEN_UNIFORM, false);
    RUN_SHAPES(neg_inf, GEN_NEGINF, false);
    RUN_SHAPES(nan, GEN_NAN, false);
    RUN_SHAPES(large, GEN_LARGE, false);
    RUN_SHAPES(in_place, GEN_UNIFORM, true);
}

CONF_TEST(softmax, large_magnitudes) {
    static const size_t cols[] = {1, 2, 3, 16, 17, 255, 256, 257, 1025, 4097};
    RUN_COLS(8, cols, GEN_LARGE);
}

CONF_TEST(softmax, neg_infinity) {
    static const size_t cols[] = {1, 2, 3, 16, 17, 64, 129, 1024, 1025, 4097};
    RUN_COLS(10, cols, GEN_NEGINF);
}

CONF_TEST(softmax, nan) {
    static const size_t cols[] = {1, 3, 7, 8, 31, 64, 257, 1025, 4096, 20000, 70000};
    RUN_COLS(12, cols, GEN_NAN);
}

CONF_TEST(softmax, in_place) {
    static const size_t s[][2] = {{1, 1}, {3, 17}, {4, 256}, {2, 1025}, {33, 129}, {2, 40000}, {0, 4}};
    RUN_SHAPES(s, GEN_UNIFORM, true);
    run_softmax(10, 33, GEN_NEGINF, true);
    run_softmax(8, 65, GEN_LARGE, true);
}

CONF_TEST(softmax, bad_args) {
    size_t bytes = 64 * sizeof(float);
    hcl_buffer in = conf_buffer(bytes), out = conf_buffer(bytes);
    REQUIRE(in && out, "buffers");
    REQUIRE(conf_poison_buffer(out, 0, bytes), "poison");
    float ones[64];
    for (int i = 0; i < 64; i++) ones[i] = 1.0f;
    REQUIRE(conf_write(in, 0, ones, bytes), "input");

    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_softmax_f32(NULL, 8, 8, in, out, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_softmax_f32(conf_queue, 8, 8, NULL, out, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_softmax_f32(conf_queue, 8, 8, in, NULL, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_softmax_f32(conf_queue, 8, 9, in, out, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_softmax_f32(conf_queue, 65, 1, in, out, NULL));
    CHECK_ST2(HCL_ERROR_OUT_OF_RANGE, HCL_ERROR_INVALID_ARGUMENT,
              hcl_softmax_f32(conf_queue, SIZE_MAX / 2, 4, in, out, NULL));
    CHECK_ST2(HCL_ERROR_OUT_OF_RANGE, HCL_ERROR_INVALID_ARGUMENT,
              hcl_softmax_f32(conf_queue, (SIZE_MAX / 16) + 1, 4, in, out, NULL));

    hcl_buffer dead = conf_dead_buffer(bytes), other = conf_other_buffer(bytes);
    REQUIRE(dead && other, "a released buffer and one on a second open of the device");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_softmax_f32(conf_queue, 8, 8, dead, out, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_softmax_f32(conf_queue, 8, 8, other, out, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_softmax_f32(conf_queue, 8, 8, in, other, NULL));

    conf_check_buffer_untouched("softmax: output after failing calls", out, 64);
}
