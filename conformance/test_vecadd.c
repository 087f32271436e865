/* hcl_vecadd_f32 conformance.
 *
 * Tolerance: exact. Inputs are random floats with exponents in [-14, 14], so the float64 sum of two of them is
 * exact and rounding it to float32 gives the correctly rounded float32 sum, which is what c = a + b must be.
 */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define GUARD 7 /* elements after the end of every buffer, which a kernel must not touch */

static float wide_random(void) {
    float m = conf_rand_float(1.0f, 2.0f);
    float x = ldexpf(m, conf_rand_int(-14, 14));
    return (conf_rand_u64() & 1) ? -x : x;
}

enum alias { ALIAS_NONE, ALIAS_C_IS_A, ALIAS_C_IS_B, ALIAS_ALL };
static const char *alias_name[] = {"c, a, b distinct", "c = a", "c = b", "a = b = c"};

static void run_vecadd(size_t n, enum alias alias) {
    size_t len = n + GUARD, bytes = len * sizeof(float);
    float *a = conf_floats(len), *b = conf_floats(len), *c = conf_floats(len);
    double *ref = conf_doubles(len);
    for (size_t i = 0; i < len; i++) {
        a[i] = wide_random();
        b[i] = alias == ALIAS_ALL ? a[i] : wide_random();
    }
    hcl_ts_ref_vecadd(HCL_TS_CONFORMANCE, a, b, n, ref, NULL);

    hcl_buffer ba = conf_buffer(bytes);
    if (!ba || !conf_write(ba, 0, a, bytes)) return;
    hcl_buffer bb = ba, bc = ba;
    if (alias != ALIAS_ALL) {
        bb = conf_buffer(bytes);
        if (!bb || !conf_write(bb, 0, b, bytes)) return;
    }
    if (alias == ALIAS_NONE) {
        bc = conf_buffer(bytes);
        if (!bc || !conf_poison_buffer(bc, 0, bytes)) return;
    } else if (alias == ALIAS_C_IS_B) {
        bc = bb;
    }
    if (!CHECK_RUN(hcl_vecadd_f32(conf_queue, n, ba, bb, bc, NULL))) return;
    if (!conf_read(bc, 0, c, bytes)) return;

    char what[96];
    snprintf(what, sizeof what, "vecadd n=%zu (%s)", n, alias_name[alias]);
    conf_compare(what, c, ref, NULL, n);
    /* Past n: the poison, or the input that was there, unchanged. */
    const float *before = alias == ALIAS_C_IS_B ? b : a;
    if (alias == ALIAS_NONE) {
        snprintf(what, sizeof what, "vecadd n=%zu: guard after c[n]", n);
        conf_check_untouched(what, c + n, GUARD);
    } else {
        CHECK(memcmp(c + n, before + n, GUARD * sizeof(float)) == 0, "vecadd n=%zu (%s): elements past n were changed",
              n, alias_name[alias]);
    }
}

static const size_t sizes[] = {0,    1,    2,    3,    5,    7,    13,   15,    16,    17,    31,    32,    33,   63,
                               64,   65,   127,  128,  129,  255,  256,  257,   511,   512,   513,   1023,  1024, 1025,
                               2047, 2048, 2049, 4095, 4096, 4097, 8191, 10007, 65535, 65536, 65537, 131071};

CONF_TEST(vecadd, sizes) {
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) run_vecadd(sizes[i], ALIAS_NONE);
}

CONF_TEST(vecadd, large) {
    run_vecadd((1u << 22) + 19, ALIAS_NONE);
    run_vecadd((1u << 20) - 1, ALIAS_NONE);
}

CONF_TEST(vecadd, aliasing) {
    static const size_t n[] = {1, 17, 1000, 1025};
    for (size_t i = 0; i < sizeof n / sizeof n[0]; i++) {
        run_vecadd(n[i], ALIAS_C_IS_A);
        run_vecadd(n[i], ALIAS_C_IS_B);
        run_vecadd(n[i], ALIAS_ALL);
    }
}

/* The same result twice, and an event that measures it. */
CONF_TEST(vecadd, event_and_repeat) {
    size_t n = 100003, bytes = n * sizeof(float);
    float *a = conf_floats(n), *b = conf_floats(n), *c1 = conf_floats(n), *c2 = conf_floats(n);
    for (size_t i = 0; i < n; i++) {
        a[i] = wide_random();
        b[i] = wide_random();
    }
    hcl_buffer ba = conf_buffer(bytes), bb = conf_buffer(bytes), bc = conf_buffer(bytes);
    REQUIRE(ba && bb && bc, "buffers");
    REQUIRE(conf_write(ba, 0, a, bytes) && conf_write(bb, 0, b, bytes), "inputs");
    for (int rep = 0; rep < 2; rep++) {
        REQUIRE(conf_poison_buffer(bc, 0, bytes), "poison");
        hcl_event ev = NULL;
        REQUIRE_OK(hcl_vecadd_f32(conf_queue, n, ba, bb, bc, &ev));
        REQUIRE(ev != NULL, "hcl_vecadd_f32 returned success but no event");
        conf_track_event(ev);
        CHECK_ST(HCL_SUCCESS, hcl_event_wait(ev));
        double s = -1.0;
        if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(ev, ev, &s)))
            CHECK(s >= 0.0 && isfinite(s), "hcl_event_elapsed of a vecadd gave %g s", s);
        REQUIRE(conf_read(bc, 0, rep ? c2 : c1, bytes), "read");
    }
    double *ref = conf_doubles(n);
    hcl_ts_ref_vecadd(HCL_TS_CONFORMANCE, a, b, n, ref, NULL);
    conf_compare("vecadd n=100003 (first run)", c1, ref, NULL, n);
    CHECK(memcmp(c1, c2, bytes) == 0, "vecadd: two runs on the same inputs gave different bits");
}

CONF_TEST(vecadd, bad_args) {
    size_t n = 64, bytes = n * sizeof(float);
    hcl_buffer a = conf_buffer(bytes), b = conf_buffer(bytes), c = conf_buffer(bytes);
    hcl_buffer small = conf_buffer(bytes - sizeof(float));
    REQUIRE(a && b && c && small, "buffers");
    REQUIRE(conf_poison_buffer(c, 0, bytes), "poison");

    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_vecadd_f32(NULL, n, a, b, c, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_vecadd_f32(conf_queue, n, NULL, b, c, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_vecadd_f32(conf_queue, n, a, NULL, c, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_vecadd_f32(conf_queue, n, a, b, NULL, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_vecadd_f32(conf_queue, n, small, b, c, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_vecadd_f32(conf_queue, n, a, small, c, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_vecadd_f32(conf_queue, n, a, b, small, NULL));
    /* n * 4 wraps around to a small number: still far beyond the buffer. */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_vecadd_f32(conf_queue, SIZE_MAX / 4 + 2, a, b, c, NULL));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_vecadd_f32(conf_queue, SIZE_MAX, a, b, c, NULL));

    hcl_buffer dead = conf_dead_buffer(bytes);
    REQUIRE(dead != NULL, "a released buffer");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_vecadd_f32(conf_queue, n, dead, b, c, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_vecadd_f32(conf_queue, n, a, b, dead, NULL));

    hcl_device d2 = conf_open_again();
    REQUIRE(d2 != NULL, "second device");
    hcl_buffer other = conf_buffer_on(d2, bytes);
    hcl_queue q2 = conf_queue_on(d2);
    REQUIRE(other && q2, "objects on the second device");
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_vecadd_f32(conf_queue, n, other, b, c, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_vecadd_f32(conf_queue, n, a, b, other, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_vecadd_f32(q2, n, a, b, c, NULL));

    /* None of the failing calls wrote anything. */
    conf_check_buffer_untouched("vecadd: c after failing calls", c, n);
}
