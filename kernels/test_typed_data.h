/* Typed data for the tests that run the built-ins' plans on PoCL (test_gemm_xmx.c, test_spirv_roundtrip.c): inputs
 * drawn as floats and rounded to the element type (so the float64 reference sees the stored values), and outputs
 * poisoned, a 16-bit element with a NaN of a payload no kernel makes (0x7d5a f16, 0x7f9a bf16, as
 * conformance/test_types.c), an f32 one with the suite's poison (hcl_testsupport.h). Static functions: each test
 * program takes what it uses. */
#ifndef HCL_TEST_TYPED_DATA_H
#define HCL_TEST_TYPED_DATA_H

#include "hcl_host_kernels.h"
#include "hcl_plan.h" /* hcl_kgemm */
#include "hcl_testsupport.h"
#include "hcl_testsupport_cl.h" /* hcl_ts_alloc */

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The bytes of one element of t (f32, f16, bf16). */
static inline size_t hcl_test_esize(hcl_dtype t) { return t == HCL_DTYPE_F32 ? 4 : 2; }

/* x[0..n) rounded to t in place; returns the bytes to upload (malloc'd). */
static inline void *hcl_test_to_type(hcl_dtype t, float *x, size_t n) {
    void *raw = hcl_ts_alloc(n * hcl_test_esize(t) + 4);
    hcl__host_narrow(t, x, raw, n);
    hcl__host_widen(t, raw, x, n);
    return raw;
}

/* Element i of the t array at raw made the poison. */
static inline void hcl_test_poison_at(hcl_dtype t, void *raw, size_t i) {
    if (t == HCL_DTYPE_F32)
        ((float *)raw)[i] = hcl_ts_poison();
    else
        ((uint16_t *)raw)[i] = t == HCL_DTYPE_F16 ? 0x7d5a : 0x7f9a;
}

/* Whether element i of the t array at raw is the poison (never written). */
static inline int hcl_test_is_poisoned(hcl_dtype t, const void *raw, size_t i) {
    if (t == HCL_DTYPE_F32) return hcl_ts_is_poison(((const float *)raw)[i]);
    return ((const uint16_t *)raw)[i] == (t == HCL_DTYPE_F16 ? 0x7d5a : 0x7f9a);
}

/* n poisoned elements of t (malloc'd). */
static inline void *hcl_test_poisoned(hcl_dtype t, size_t n) {
    void *raw = hcl_ts_alloc(n * hcl_test_esize(t) + 4);
    for (size_t i = 0; i < n; i++) hcl_test_poison_at(t, raw, i);
    return raw;
}

/* The m x n matrix C, its rows ldc apart, into got, rows n apart. */
static inline void hcl_test_unpad(const float *c, size_t ldc, size_t m, size_t n, float *got) {
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++) got[i * n + j] = c[i * ldc + j];
}

/* How many elements of the padding of C (len elements of t, rows ldc apart, n of them used) are no longer the
 * poison: a kernel wrote past its columns. */
static inline size_t hcl_test_padding_written(hcl_dtype t, const void *raw, size_t len, size_t ldc, size_t n) {
    size_t written = 0;
    for (size_t i = 0; i < len; i++)
        if (i % ldc >= n && !hcl_test_is_poisoned(t, raw, i)) written++;
    return written;
}

/* A gemm run's data for the shapes and types of g: A, B and the first C (c0) drawn in [-1, 1) from rng (C all NaN
 * with c_nan) and rounded to their types; ra, rb and rc the bytes to upload, C's ldc padding poisoned (it must keep
 * the poison) and, when beta is 0, all of C (C is not read: an unwritten element fails); ma, mb and mc their buffers on
 * cl; c for C read back as floats, got for its m x n values, ref and tol for the reference. */
typedef struct hcl_test_gemm_data {
    size_t len_a, len_b, len_c; /* elements, the padding included */
    float *a, *b, *c0, *c, *got;
    double *ref, *tol;
    void *ra, *rb, *rc;
    cl_mem ma, mb, mc;
} hcl_test_gemm_data;

/* The data drawn; then, when the buffers are made and written, true (a failure is counted on cl when not). */
static inline bool hcl_test_gemm_data_init(hcl_test_gemm_data *d, const hcl_kgemm *g, uint64_t *rng, int c_nan,
                                           hcl_ts_cl *cl) {
    const size_t mn = g->m * g->n, ea = hcl_test_esize(g->ab_type), ec = hcl_test_esize(g->c_type);
    d->len_a = (g->trans_a ? g->k : g->m) * g->lda;
    d->len_b = (g->trans_b ? g->n : g->k) * g->ldb;
    d->len_c = g->m * g->ldc;
    d->a = hcl_ts_alloc(d->len_a * 4), d->b = hcl_ts_alloc(d->len_b * 4), d->c0 = hcl_ts_alloc(d->len_c * 4);
    d->c = hcl_ts_alloc(d->len_c * 4), d->got = hcl_ts_alloc(mn * 4);
    d->ref = hcl_ts_alloc(mn * 8), d->tol = hcl_ts_alloc(mn * 8);
    for (size_t i = 0; i < d->len_a; i++) d->a[i] = hcl_ts_rand_float(rng, -1, 1);
    for (size_t i = 0; i < d->len_b; i++) d->b[i] = hcl_ts_rand_float(rng, -1, 1);
    for (size_t i = 0; i < d->len_c; i++) d->c0[i] = c_nan ? NAN : hcl_ts_rand_float(rng, -1, 1);
    d->ra = hcl_test_to_type(g->ab_type, d->a, d->len_a);
    d->rb = hcl_test_to_type(g->ab_type, d->b, d->len_b);
    d->rc = hcl_test_to_type(g->c_type, d->c0, d->len_c);
    for (size_t i = 0; i < d->len_c; i++)
        if (g->beta == 0.0f || i % g->ldc >= g->n) hcl_test_poison_at(g->c_type, d->rc, i);
    d->ma = hcl_ts_cl_buffer(cl, d->len_a * ea), d->mb = hcl_ts_cl_buffer(cl, d->len_b * ea);
    d->mc = hcl_ts_cl_buffer(cl, d->len_c * ec);
    return d->ma && d->mb && d->mc && hcl_ts_cl_write(cl, d->ma, d->ra, d->len_a * ea) &&
           hcl_ts_cl_write(cl, d->mb, d->rb, d->len_b * ea) && hcl_ts_cl_write(cl, d->mc, d->rc, d->len_c * ec);
}

/* C read back into rc and c, its m x n values into got; false (a failure counted on cl) when the read fails. */
static inline bool hcl_test_gemm_data_read(hcl_test_gemm_data *d, const hcl_kgemm *g, hcl_ts_cl *cl) {
    if (!hcl_ts_cl_read(cl, d->mc, d->rc, d->len_c * hcl_test_esize(g->c_type))) return false;
    hcl__host_widen(g->c_type, d->rc, d->c, d->len_c);
    hcl_test_unpad(d->c, g->ldc, g->m, g->n, d->got);
    return true;
}

/* A failure on cl when the kernel wrote into C's ldc padding. */
static inline void hcl_test_gemm_data_check_padding(const hcl_test_gemm_data *d, const hcl_kgemm *g, hcl_ts_cl *cl,
                                                    const char *what) {
    const size_t touched = hcl_test_padding_written(g->c_type, d->rc, d->len_c, g->ldc, g->n);
    if (touched) hcl_ts_cl_fail(cl, "%s: %zu elements of the ldc padding were written", what, touched);
}

static inline void hcl_test_gemm_data_free(hcl_test_gemm_data *d) {
    if (d->ma) clReleaseMemObject(d->ma);
    if (d->mb) clReleaseMemObject(d->mb);
    if (d->mc) clReleaseMemObject(d->mc);
    free(d->a), free(d->b), free(d->c0), free(d->c), free(d->got), free(d->ref), free(d->tol);
    free(d->ra), free(d->rb), free(d->rc);
}

#endif /* HCL_TEST_TYPED_DATA_H */
