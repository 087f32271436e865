/* Typed data for the tests that run the built-ins' plans on PoCL (test_gemm_xmx.c, test_spirv_roundtrip.c): inputs
 * drawn as floats and rounded to the element type (so the float64 reference sees the stored values), and outputs
 * poisoned, a 16-bit element with a NaN of a payload no kernel makes (0x7d5a f16, 0x7f9a bf16, as
 * conformance/test_types.c), an f32 one with the suite's poison (hcl_testsupport.h). Static functions: each test
 * program takes what it uses. */
#ifndef HCL_TEST_TYPED_DATA_H
#define HCL_TEST_TYPED_DATA_H

#include "hcl_host_kernels.h"
#include "hcl_testsupport.h"
#include "hcl_testsupport_cl.h" /* hcl_ts_alloc */

#include <stdint.h>

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

#endif /* HCL_TEST_TYPED_DATA_H */
