/* Conversions between float32 and the 16-bit storage types (f16, bf16) on the host: the one implementation behind
 * the public hcl_f32_to_f16 etc. (api/src/dtype.c) and the host built-ins' 16-bit loads and stores.
 *
 * Bit-exact integer code: round to nearest, ties to even; a NaN becomes a quiet NaN with its top fraction bits (as the
 * x86 F16C and AVX-512 BF16 instructions do, both ways); overflow gives infinity; f16 subnormals are kept. The loops
 * over arrays are plain C that gcc vectorises (selects only), except f16 on an x86-64 CPU with F16C (checked at run
 * time): there the instructions convert 8 elements at a time, with the same results bit for bit (the conformance
 * suite's core/conversions compares the two over every f16 pattern and 400000 floats). bf16 needs no instruction:
 * widening is a shift, and its rounding vectorises as integer code. */
#include "hcl_host_kernels.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

static int has_f16c(void) {
    __builtin_cpu_init(); /* idempotent; needed when called before libgcc's constructor has run */
    /* F16C from CPUID (clang 14's __builtin_cpu_supports does not know "f16c"); "avx" also checks the OS saves ymm */
    unsigned a = 0, b = 0, c = 0, d = 0;
    return __builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
}

/* The first n - n % 8 elements through F16C; returns how many were converted. */
__attribute__((target("avx,f16c"))) static size_t widen_f16c(const uint16_t *s, float *d, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(s + i))));
    return i;
}

__attribute__((target("avx,f16c"))) static size_t narrow_f16c(const float *s, uint16_t *d, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(d + i), _mm256_cvtps_ph(_mm256_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
    return i;
}
#else
static int has_f16c(void) { return 0; }
static size_t widen_f16c(const uint16_t *s, float *d, size_t n) { return (void)s, (void)d, (void)n, 0; }
static size_t narrow_f16c(const float *s, uint16_t *d, size_t n) { return (void)s, (void)d, (void)n, 0; }
#endif

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

void hcl__host_widen(hcl_dtype type, const void *src, float *dst, size_t n) {
    const uint16_t *s = src;
    switch (type) {
    case HCL_DTYPE_F16:
        for (size_t i = has_f16c() ? widen_f16c(s, dst, n) : 0; i < n; i++) dst[i] = hcl__f16_to_f32(s[i]);
        break;
    case HCL_DTYPE_BF16:
        for (size_t i = 0; i < n; i++) dst[i] = hcl__bf16_to_f32(s[i]);
        break;
    default: memmove(dst, src, n * sizeof(float)); break;
    }
}

void hcl__host_narrow(hcl_dtype type, const float *src, void *dst, size_t n) {
    uint16_t *d = dst;
    switch (type) {
    case HCL_DTYPE_F16:
        for (size_t i = has_f16c() ? narrow_f16c(src, d, n) : 0; i < n; i++) d[i] = hcl__f32_to_f16(src[i]);
        break;
    case HCL_DTYPE_BF16:
        for (size_t i = 0; i < n; i++) d[i] = hcl__f32_to_bf16(src[i]);
        break;
    default: memmove(dst, src, n * sizeof(float)); break;
    }
}
