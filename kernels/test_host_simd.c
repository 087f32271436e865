/* kernels-host-simd: the host's 16-bit kernels (vecadd, reduce, softmax) and conversions at every vector level this
 * CPU runs (AVX-512F, AVX2 + F16C, none: hcl__host_isa_force), bit for bit against what the scalar code defines:
 *   conversions: the scalar hcl__f16_to_f32 etc., over every 16-bit pattern and floats with ties, subnormals, NaN;
 *   vecadd: each element widened, added in float, rounded once (c distinct, c = a, c = b, a = b = c);
 *   reduce: hcl__host_reduce_f32 of the widened values (the same lanes in the same order);
 *   softmax: hcl__host_softmax_f32 of the widened values, each result rounded once (with and without scratch).
 * Lengths around the vector widths, the 16-bit chunks and pieces and the parallel threshold. A level the CPU lacks is
 * reported as skipped. The float64-reference checks of the same kernels are the conformance suite's (types). */
#include "hcl_host_simd.h"
#include "hcl_testsupport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const hcl_dtype types[] = {HCL_DTYPE_F16, HCL_DTYPE_BF16};
static const char *type_name(hcl_dtype t) { return t == HCL_DTYPE_F16 ? "f16" : "bf16"; }
static uint64_t rng;

static uint16_t *random16(hcl_dtype t, size_t n, float lo, float hi) {
    uint16_t *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        const float f = hcl_ts_rand_float(&rng, lo, hi);
        x[i] = t == HCL_DTYPE_F16 ? hcl__f32_to_f16(f) : hcl__f32_to_bf16(f);
    }
    if (n > 40) x[3] = t == HCL_DTYPE_F16 ? 0x7e00u : 0x7fc0u, x[37] = t == HCL_DTYPE_F16 ? 0xfc00u : 0xff80u;
    return x;
}

static float widen1(hcl_dtype t, uint16_t v) { return t == HCL_DTYPE_F16 ? hcl__f16_to_f32(v) : hcl__bf16_to_f32(v); }
static uint16_t narrow1(hcl_dtype t, float f) { return t == HCL_DTYPE_F16 ? hcl__f32_to_f16(f) : hcl__f32_to_bf16(f); }

static void conversions(const char *lv) {
    enum { N = 65536 + 33 };
    uint16_t *pat = malloc(N * sizeof *pat), *nar = malloc(N * sizeof *nar);
    float *wid = malloc(N * sizeof *wid), *xs = malloc(N * sizeof *xs);
    for (uint32_t i = 0; i < N; i++) {
        pat[i] = (uint16_t)i;
        uint32_t u = (uint32_t)hcl_ts_splitmix64(&rng);
        const uint32_t kind = i % 5; /* 16-bit ties, float32 subnormals, infinities and NaN payloads, anything */
        u = kind == 0   ? (u & ~0xffffu) | 0x8000u
            : kind == 1 ? (u & ~0x1fffu) | 0x1000u
            : kind == 2 ? u & 0x807fffffu
            : kind == 3 ? (u & 0x807fffffu) | 0x7f800000u
                        : u;
        memcpy(&xs[i], &u, sizeof u);
    }
    for (size_t ti = 0; ti < 2; ti++) {
        const hcl_dtype t = types[ti];
        size_t wrong = 0;
        for (size_t len = N - 17; len <= N; len++) {
            hcl__host_widen(t, pat, wid, len);
            for (size_t i = 0; i < len; i++) {
                const float s = widen1(t, pat[i]);
                wrong += memcmp(&s, &wid[i], sizeof s) != 0;
            }
            hcl__host_narrow(t, xs, nar, len);
            for (size_t i = 0; i < len; i++) wrong += nar[i] != narrow1(t, xs[i]);
        }
        HCL_TS_CHECK(wrong == 0, "%s: %s conversions: %zu elements differ from the scalar ones", lv, type_name(t),
                     wrong);
    }
    free(pat), free(nar), free(wid), free(xs);
}

static void vecadd(const char *lv) {
    static const size_t sizes[] = {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 255, 256, 257, 4099, 32768 + 13, 100003};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int alias = 0; alias < 4; alias++) { /* c distinct, c = a, c = b, a = b = c */
                const hcl_dtype t = types[ti];
                const size_t n = sizes[si];
                uint16_t *a = random16(t, n + 1, -100.0f, 100.0f), *b = random16(t, n + 1, -100.0f, 100.0f);
                uint16_t *c = malloc((n + 1) * sizeof *c), *want = malloc((n + 1) * sizeof *want);
                if (alias == 3) memcpy(b, a, (n + 1) * sizeof *a);
                for (size_t i = 0; i < n; i++) want[i] = narrow1(t, widen1(t, a[i]) + widen1(t, b[i]));
                for (size_t i = 0; i <= n; i++) c[i] = 0xdead;
                uint16_t *pa = a, *pb = alias == 3 ? a : b, *pc = alias == 0 ? c : alias == 2 ? b : a;
                uint64_t n64 = n;
                void *args[] = {&pa, &pb, &pc, &n64};
                (t == HCL_DTYPE_F16 ? hcl__host_vecadd_f16_kernel : hcl__host_vecadd_bf16_kernel)(NULL, args);
                size_t wrong = 0;
                for (size_t i = 0; i < n; i++) wrong += pc[i] != want[i];
                HCL_TS_CHECK(wrong == 0, "%s: vecadd %s n=%zu alias %d: %zu elements wrong", lv, type_name(t), n, alias,
                             wrong);
                HCL_TS_CHECK(alias != 0 || c[n] == 0xdead, "%s: vecadd %s n=%zu wrote past the end", lv, type_name(t),
                             n);
                free(a), free(b), free(c), free(want);
            }
}

static void reduce(const char *lv) {
    static const size_t sizes[] = {1, 15, 16, 17, 31, 32, 33, 2047, 2048, 2049, 16384 + 17, 65536, 1000003};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (uint32_t op = 0; op < 3; op++) {
                const hcl_dtype t = types[ti];
                const size_t n = sizes[si];
                uint16_t *x = random16(t, n, -1.0f, 1.0f);
                float *w = malloc(n * sizeof *w), got = 0.0f, want = 0.0f;
                hcl__host_widen(t, x, w, n);
                (void)hcl__host_reduce_f32((int)op, n, w, &want);
                uint64_t n64 = n;
                void *px = x, *pout = &got;
                void *args[] = {&px, &pout, &n64, &op};
                (t == HCL_DTYPE_F16 ? hcl__host_reduce_f16_kernel : hcl__host_reduce_bf16_kernel)(NULL, args);
                HCL_TS_CHECK(memcmp(&got, &want, sizeof got) == 0,
                             "%s: reduce %s op %u n=%zu: %a, the float32 reduction of the same values gives %a", lv,
                             type_name(t), op, n, (double)got, (double)want);
                free(x), free(w);
            }
}

static void softmax(const char *lv) {
    static const size_t shapes[][2] = {{1, 1},    {3, 17},        {5, 4095}, {2, 4096}, {3, 4097},
                                       {2, 8193}, {2, 12289 + 5}, {5, 8193}, {300, 129}};
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
            for (int mode = 0; mode < 6; mode++) { /* in place or not; no scratch, a row per thread, one row */
                const int in_place = mode & 1, with_scratch = mode >> 1;
                const hcl_dtype t = types[ti];
                const size_t rows = shapes[si][0], cols = shapes[si][1], n = rows * cols;
                uint16_t *x = random16(t, n, -8.0f, 8.0f), *y = malloc(n * sizeof *y), *want = malloc(n * sizeof *y);
                float *w = malloc(n * sizeof *w);
                hcl__host_widen(t, x, w, n);
                hcl__host_softmax_f32(rows, cols, w, w);
                for (size_t i = 0; i < n; i++) want[i] = narrow1(t, w[i]);
                uint16_t *out = in_place ? x : y;
                uint64_t r64 = rows, c64 = cols,
                         sbytes = with_scratch == 1   ? hcl__host_softmax_scratch_bytes(t, rows, cols)
                                  : with_scratch == 2 ? cols * sizeof(float)
                                                      : 0;
                void *pi = x, *po = out, *scratch = sbytes ? malloc(sbytes) : NULL;
                void *args[] = {&pi, &po, &r64, &c64, &scratch, &sbytes};
                (t == HCL_DTYPE_F16 ? hcl__host_softmax_f16_kernel : hcl__host_softmax_bf16_kernel)(NULL, args);
                free(scratch);
                size_t wrong = 0;
                for (size_t i = 0; i < n; i++) wrong += out[i] != want[i];
                HCL_TS_CHECK(wrong == 0, "%s: softmax %s %zu x %zu%s%s: %zu elements differ from the float32 softmax",
                             lv, type_name(t), rows, cols, in_place ? " in place" : "",
                             with_scratch == 1   ? " with scratch"
                             : with_scratch == 2 ? " with one scratch row"
                                                 : "",
                             wrong);
                free(x), free(y), free(want), free(w);
            }
}

int main(void) {
    const uint64_t seed = hcl_ts_seed();
    printf("kernels-host-simd: seed %llu (HCL_SEED to repeat)\n", (unsigned long long)seed);
    for (int level = HCL__HOST_ISA_GENERIC; level <= HCL__HOST_ISA_AVX512; level++) {
        if (hcl__host_isa_force(level) != 0) {
            printf("  %s: skipped (this CPU does not run it)\n", hcl__host_isa_name(level));
            continue;
        }
        rng = seed;
        const int before = hcl_ts_failures();
        conversions(hcl__host_isa_name(level));
        vecadd(hcl__host_isa_name(level));
        reduce(hcl__host_isa_name(level));
        softmax(hcl__host_isa_name(level));
        printf("  %s: %s\n", hcl__host_isa_name(level), hcl_ts_failures() == before ? "passed" : "FAILED");
    }
    (void)hcl__host_isa_force(-1);
    const int failures = hcl_ts_failures();
    printf("kernels-host-simd: %s (%d failure%s)\n", failures ? "FAILED" : "passed", failures,
           failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
