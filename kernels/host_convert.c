/* Conversions between float32 and the 16-bit storage types (f16, bf16) on the host: the one implementation behind
 * the public hcl_f32_to_f16 etc. (api/src/dtype.c) and the host built-ins' 16-bit loads and stores.
 *
 * Bit-exact integer code: round to nearest, ties to even; a NaN becomes a quiet NaN with its top fraction bits (as the
 * x86 F16C and AVX-512 BF16 instructions do, both ways); overflow gives infinity; f16 subnormals are kept. The array
 * loops run the vector loads and stores of hcl_host_simd.h at hcl__host_isa's level (AVX-512F, AVX2 + F16C) and
 * these scalar functions elsewhere and for the tails; every path gives the same bits (the conformance suite's
 * core/conversions compares the arrays with the scalar functions over every 16-bit pattern, 400000 floats and ties,
 * subnormals and NaN payloads, at lengths that leave every tail). */
#include "hcl_host_kernels.h"
#include "hcl_host_simd.h"

#include <string.h>

static inline uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t hcl__f32_to_bf16(float value) {
    uint32_t u = bits_of(value);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u); /* NaN: keep it quiet */
    u += 0x7fffu + ((u >> 16) & 1u);                                             /* to nearest, ties to even */
    return (uint16_t)(u >> 16);
}

float hcl__bf16_to_f32(uint16_t value) { return float_of((uint32_t)value << 16); }

uint16_t hcl__f32_to_f16(float value) {
    uint32_t u = bits_of(value);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu)); /* NaN, quiet */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to 65536 or above (or is inf): inf */
    if (a >= 0x38800000u) {                                  /* normal f16: drop 13 bits, to nearest even */
        uint32_t r = a - 0x38000000u;                        /* rebias the exponent from 127 to 15 */
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(sign | (r >> 13));
    }
    if (a < 0x33000000u) return sign; /* at most half the smallest subnormal (2^-25): +-0 */
    /* subnormal f16: the value in units of 2^-24, to nearest even */
    uint32_t e = a >> 23, mant = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e; /* 14 .. 24: mant * 2^(e-150) / 2^-24 = mant >> (126 - e) */
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
}

float hcl__f16_to_f32(uint16_t value) {
    uint32_t sign = (uint32_t)(value & 0x8000u) << 16, e = (value >> 10) & 0x1fu, m = value & 0x3ffu;
    if (e == 0x1f) return float_of(sign | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0u)); /* inf; NaN, quiet */
    if (e != 0) return float_of(sign | ((e + 112u) << 23) | (m << 13));
    float f = (float)m * 0x1p-24f; /* subnormal or zero: exact in float32 */
    return sign ? -f : f;
}

/* The vector loops convert the first n - n % width elements and return how many they converted; the scalar functions
 * do the rest. */
typedef struct vector_loops {
    size_t (*widen)(hcl_dtype t, const uint16_t *s, float *d, size_t n);
    size_t (*narrow)(hcl_dtype t, const float *s, uint16_t *d, size_t n);
} vector_loops;

static size_t widen_none(hcl_dtype t, const uint16_t *s, float *d, size_t n) {
    return (void)t, (void)s, (void)d, (void)n, 0;
}
static size_t narrow_none(hcl_dtype t, const float *s, uint16_t *d, size_t n) {
    return (void)t, (void)s, (void)d, (void)n, 0;
}

#ifdef HCL_HOST_SIMD_X86
#define HCL_CONVERT_LOOPS(isa, attr, width, load16, store16, loadf, storef)                                            \
    attr static size_t widen_##isa(hcl_dtype t, const uint16_t *s, float *d, size_t n) {                               \
        size_t i = 0;                                                                                                  \
        for (; i + width <= n; i += width) storef(d + i, load16(t, s + i));                                            \
        return i;                                                                                                      \
    }                                                                                                                  \
    attr static size_t narrow_##isa(hcl_dtype t, const float *s, uint16_t *d, size_t n) {                              \
        size_t i = 0;                                                                                                  \
        for (; i + width <= n; i += width) store16(t, d + i, loadf(s + i));                                            \
        return i;                                                                                                      \
    }
HCL_CONVERT_LOOPS(avx512, HCL_HOST_AVX512, 16, hcl__load16_avx512, hcl__store16_avx512, _mm512_loadu_ps,
                  _mm512_storeu_ps)
HCL_CONVERT_LOOPS(avx2, HCL_HOST_AVX2, 8, hcl__load8_avx2, hcl__store8_avx2, _mm256_loadu_ps, _mm256_storeu_ps)
static const vector_loops loops[] = {
    {widen_none, narrow_none}, {widen_avx2, narrow_avx2}, {widen_avx512, narrow_avx512}};
#else
static const vector_loops loops[] = {{widen_none, narrow_none}};
#endif

void hcl__host_widen(hcl_dtype type, const void *src, float *dst, size_t n) {
    const uint16_t *s = src;
    switch (type) {
    case HCL_DTYPE_F16:
        for (size_t i = loops[hcl__host_isa()].widen(type, s, dst, n); i < n; i++) dst[i] = hcl__f16_to_f32(s[i]);
        break;
    case HCL_DTYPE_BF16:
        for (size_t i = loops[hcl__host_isa()].widen(type, s, dst, n); i < n; i++) dst[i] = hcl__bf16_to_f32(s[i]);
        break;
    default: memmove(dst, src, n * sizeof(float)); break;
    }
}

void hcl__host_narrow(hcl_dtype type, const float *src, void *dst, size_t n) {
    uint16_t *d = dst;
    switch (type) {
    case HCL_DTYPE_F16:
        for (size_t i = loops[hcl__host_isa()].narrow(type, src, d, n); i < n; i++) d[i] = hcl__f32_to_f16(src[i]);
        break;
    case HCL_DTYPE_BF16:
        for (size_t i = loops[hcl__host_isa()].narrow(type, src, d, n); i < n; i++) d[i] = hcl__f32_to_bf16(src[i]);
        break;
    default: memmove(dst, src, n * sizeof(float)); break;
    }
}
