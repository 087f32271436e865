/* hcl_reduce_f32 conformance.
 *
 * max and min: exact. sum of random floats: |out - ref| <= 4 * (sqrt(n) + log2(n) + 1) * 2^-24 * sum|x|,
 * with ref the float64 sum (hcl_ts_ref_reduce). The worst-case bound of a float32 sum is (n-1) u sum|x| for
 * sequential and ceil(log2 n) u sum|x| for pairwise summation; for random data the sequential error grows
 * like sqrt(n), hence the bound. Because that bound cannot see one lost element among millions, every size is
 * also summed over small integers (-2..2), whose float32 partial sums are exact in any order: that sum must
 * be exact. n = 0 gives the identity (0, -inf, +inf). The output buffer is poisoned first; its elements after
 * out[0] must stay poisoned.
 */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define OUT_LEN 4

static const char *op_name(hcl_reduce_op op) {
    return op == HCL_REDUCE_SUM ? "sum" : op == HCL_REDUCE_MAX ? "max" : "min";
}

enum gen { GEN_UNIFORM, GEN_POSITIVE, GEN_NEGATIVE, GEN_INTEGER };
static const char *gen_name[] = {"uniform [-1, 1]", "positive (0, 1]", "negative [-2, -1]", "integers -2..2"};

static void generate(float *x, size_t n, enum gen gen) {
    for (size_t i = 0; i < n; i++) {
        switch (gen) {
        case GEN_UNIFORM: x[i] = conf_rand_float(-1.0f, 1.0f); break;
        case GEN_POSITIVE: x[i] = 1.0f - conf_rand_float(0.0f, 1.0f); break;
        case GEN_NEGATIVE: x[i] = conf_rand_float(-2.0f, -1.0f); break;
        case GEN_INTEGER: x[i] = (float)conf_rand_int(-2, 2); break;
        }
    }
}

/* Run the reduction on x[0..n) and return the result through *out; false when the call failed. */
static bool reduce_on_device(hcl_reduce_op op, const float *x, size_t n, float *out, const char *what) {
    size_t in_bytes = (n ? n : 1) * sizeof(float);
    hcl_buffer bin = conf_buffer(in_bytes), bout = conf_buffer(OUT_LEN * sizeof(float));
    if (!bin || !bout) return false;
    if (n > 0 && !conf_write(bin, 0, x, in_bytes)) return false;
    if (n == 0 && !conf_poison_buffer(bin, 0, in_bytes)) return false; /* must not be read */
    if (!conf_poison_buffer(bout, 0, OUT_LEN * sizeof(float))) return false;
    if (!CHECK_RUN(hcl_reduce_f32(conf_queue, op, n, bin, bout, NULL))) return false;
    float got[OUT_LEN];
    if (!conf_read(bout, 0, got, sizeof got)) return false;
    char g[160];
    snprintf(g, sizeof g, "%s: out[1..3]", what);
    conf_check_untouched(g, got + 1, OUT_LEN - 1);
    CHECK(!hcl_ts_is_poison(got[0]), "%s: out[0] was never written", what);
    *out = got[0];
    return conf_release_buffer(bin) && conf_release_buffer(bout);
}

static void run_reduce(hcl_reduce_op op, size_t n, enum gen gen) {
    float *x = conf_floats(n ? n : 1);
    generate(x, n, gen);
    char what[128];
    snprintf(what, sizeof what, "reduce %s n=%zu, %s", op_name(op), n, gen_name[gen]);
    float got;
    if (!reduce_on_device(op, x, n, &got, what)) return;

    double tol, ref = hcl_ts_ref_reduce(HCL_TS_CONFORMANCE, op, x, n, &tol);
    if (gen == GEN_INTEGER) tol = 0.0; /* partial sums of small integers are exact in any order */
    conf_compare(what, &got, &ref, &tol, 1);
}

static const size_t sizes[] = {1,    2,    3,    5,    7,    13,   15,   16,   17,    31,    32,    33,    63,   64,
                               65,   127,  128,  129,  255,  256,  257,  511,  512,   513,   1023,  1024,  1025, 2047,
                               2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 65535, 65536, 65537, 100003};

CONF_TEST(reduce, identity) {
    static const double ident[] = {0.0, -INFINITY, INFINITY};
    for (int op = 0; op < 3; op++) {
        char what[64];
        snprintf(what, sizeof what, "reduce %s n=0", op_name((hcl_reduce_op)op));
        float got;
        if (!reduce_on_device((hcl_reduce_op)op, NULL, 0, &got, what)) continue;
        conf_compare(what, &got, &ident[op], NULL, 1);
    }
}

CONF_TEST(reduce, sum_sizes) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        run_reduce(HCL_REDUCE_SUM, sizes[i], GEN_UNIFORM);
        run_reduce(HCL_REDUCE_SUM, sizes[i], GEN_INTEGER);
    }
}

CONF_TEST(reduce, sum_large) {
    size_t n = (1u << 22) + 13;
    run_reduce(HCL_REDUCE_SUM, n, GEN_UNIFORM);
    run_reduce(HCL_REDUCE_SUM, n, GEN_POSITIVE);
    run_reduce(HCL_REDUCE_SUM, n, GEN_INTEGER);
    run_reduce(HCL_REDUCE_SUM, (1u << 20) - 3, GEN_INTEGER);
}

CONF_TEST(reduce, max_min_sizes) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        run_reduce(HCL_REDUCE_MAX, sizes[i], GEN_UNIFORM);
        run_reduce(HCL_REDUCE_MIN, sizes[i], GEN_UNIFORM);
        run_reduce(HCL_REDUCE_MAX, sizes[i], GEN_NEGATIVE); /* an accumulator started at 0 shows here */
        run_reduce(HCL_REDUCE_MIN, sizes[i], GEN_POSITIVE);
    }
    run_reduce(HCL_REDUCE_MAX, (1u << 22) + 13, GEN_NEGATIVE);
    run_reduce(HCL_REDUCE_MIN, (1u << 22) + 13, GEN_POSITIVE);
}

/* The extreme at the first, the last and a middle element. */
CONF_TEST(reduce, extreme_position) {
    static const size_t ns[] = {1, 2, 17, 256, 1025, 65537, (1u << 22) + 13};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        size_t n = ns[i];
        float *x = conf_floats(n);
        size_t pos[3] = {0, n - 1, n / 2};
        for (int p = 0; p < 3; p++)
            for (int op = HCL_REDUCE_MAX; op <= HCL_REDUCE_MIN; op++) {
                conf_fill_uniform(x, n, -1.0f, 1.0f);
                double want = op == HCL_REDUCE_MAX ? 5.0 : -5.0;
                x[pos[p]] = (float)want;
                char what[96];
                snprintf(what, sizeof what, "reduce %s n=%zu, extreme at %zu", op_name((hcl_reduce_op)op), n, pos[p]);
                float got;
                if (reduce_on_device((hcl_reduce_op)op, x, n, &got, what)) conf_compare(what, &got, &want, NULL, 1);
            }
    }
}

CONF_TEST(reduce, infinities) {
    size_t n = 1000;
    float *x = conf_floats(n);
    struct {
        hcl_reduce_op op;
        float fill, special;
        double want;
        const char *what;
    } cases[] = {
        {HCL_REDUCE_MAX, -INFINITY, -INFINITY, -INFINITY, "max of all -inf"},
        {HCL_REDUCE_MIN, INFINITY, INFINITY, INFINITY, "min of all +inf"},
        {HCL_REDUCE_MAX, -1.0f, INFINITY, INFINITY, "max with one +inf"},
        {HCL_REDUCE_MIN, 1.0f, -INFINITY, -INFINITY, "min with one -inf"},
        {HCL_REDUCE_SUM, 1.0f, INFINITY, INFINITY, "sum with one +inf"},
        {HCL_REDUCE_SUM, -1.0f, -INFINITY, -INFINITY, "sum with one -inf"},
        {HCL_REDUCE_MAX, -3e38f, -3.4e38f, -3e38f, "max of huge negatives"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        for (size_t i = 0; i < n; i++) x[i] = cases[c].fill;
        x[conf_rand_u64() % n] = cases[c].special;
        float got;
        if (reduce_on_device(cases[c].op, x, n, &got, cases[c].what))
            conf_compare(cases[c].what, &got, &cases[c].want, NULL, 1);
    }
}

/* The same inputs give the same bits (documented for hcl_reduce_f32). */
CONF_TEST(reduce, deterministic) {
    size_t n = (1u << 22) + 13, bytes = n * sizeof(float);
    float *x = conf_floats(n);
    generate(x, n, GEN_UNIFORM);
    hcl_buffer bin = conf_buffer(bytes), bout = conf_buffer(OUT_LEN * sizeof(float));
    REQUIRE(bin && bout && conf_write(bin, 0, x, bytes), "input");
    for (int op = 0; op < 3; op++) {
        uint32_t bits[3];
        for (int rep = 0; rep < 3; rep++) {
            float got[OUT_LEN];
            REQUIRE(conf_poison_buffer(bout, 0, sizeof got), "poison");
            if (!CHECK_RUN(hcl_reduce_f32(conf_queue, (hcl_reduce_op)op, n, bin, bout, NULL))) return;
            REQUIRE(conf_read(bout, 0, got, sizeof got), "read");
            bits[rep] = hcl_ts_f32_bits(got[0]);
        }
        CHECK(bits[0] == bits[1] && bits[1] == bits[2], "reduce %s n=%zu: three runs gave 0x%08x 0x%08x 0x%08x",
              op_name((hcl_reduce_op)op), n, bits[0], bits[1], bits[2]);
    }
}

CONF_TEST(reduce, bad_args) {
    size_t n = 64, bytes = n * sizeof(float);
    hcl_buffer in = conf_buffer(bytes), out = conf_buffer(OUT_LEN * sizeof(float)), tiny = conf_buffer(2);
    REQUIRE(in && out && tiny, "buffers");
    REQUIRE(conf_poison_buffer(out, 0, OUT_LEN * sizeof(float)), "poison");

    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_reduce_f32(conf_queue, (hcl_reduce_op)9, n, in, out, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_reduce_f32(conf_queue, (hcl_reduce_op)-1, n, in, out, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_reduce_f32(conf_queue, (hcl_reduce_op)3, n, in, out, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, n + 1, in, out, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, SIZE_MAX / 4 + 2, in, out, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_reduce_f32(conf_queue, HCL_REDUCE_MAX, n, in, tiny, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_reduce_f32(NULL, HCL_REDUCE_SUM, n, in, out, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, n, NULL, out, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, n, in, NULL, NULL));

    hcl_buffer dead = conf_dead_buffer(bytes), other = conf_other_buffer(bytes);
    REQUIRE(dead && other, "a released buffer and one on a second open of the device");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, n, dead, out, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, n, in, dead, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, n, other, out, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_reduce_f32(conf_queue, HCL_REDUCE_SUM, n, in, other, NULL));

    conf_check_buffer_untouched("reduce: output after failing calls", out, OUT_LEN);
}
