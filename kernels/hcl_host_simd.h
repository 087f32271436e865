/* 16-bit elements (f16, bf16) loaded as float32 vectors and float32 vectors stored as 16-bit elements, on x86-64:
 * the one place the host writes these conversions as vector code. host_convert.c's array loops (hcl__host_widen,
 * hcl__host_narrow) are made of them, and so are the fused loops of the host's 16-bit vecadd and reduce, which convert
 * in registers: through a buffer, the stores and reloads cost a third of the memory rate.
 *
 * Same bits as the scalar hcl__f16_to_f32 etc. (hcl_host_kernels.h): f16 through the conversion instructions (round to
 * nearest even; a NaN stays a NaN, quiet, with its top fraction bits); bf16 widening is a shift, and its rounding is
 * the scalar function's integer arithmetic lane by lane (not AVX-512 BF16's vcvtneps2bf16, which flushes float32
 * subnormals to zero).
 *
 * Only where HCL_HOST_SIMD_X86 is defined (x86-64 with GCC or clang). Each function is compiled for its instruction
 * set (HCL_HOST_AVX512: AVX-512F, 16 lanes; HCL_HOST_AVX2: AVX2 + F16C, 8 lanes) and inlines only into functions
 * compiled for it, which run only where hcl__host_isa() is at that level. */
#ifndef HCL_HOST_SIMD_H
#define HCL_HOST_SIMD_H

#include "hcl_host_kernels.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define HCL_HOST_SIMD_X86 1
#include <immintrin.h>

#define HCL_HOST_AVX2 __attribute__((target("avx2,f16c")))
#define HCL_HOST_AVX512 __attribute__((target("avx512f")))

/* 16 elements of type t at p, as floats. */
HCL_HOST_AVX512 static inline __m512 hcl__load16_avx512(hcl_dtype t, const uint16_t *p) {
    const __m256i h = _mm256_loadu_si256((const __m256i *)p);
    if (t == HCL_DTYPE_F16) return _mm512_cvtph_ps(h);
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}

/* 16 floats rounded to type t at p. */
HCL_HOST_AVX512 static inline void hcl__store16_avx512(hcl_dtype t, uint16_t *p, __m512 v) {
    if (t == HCL_DTYPE_F16) {
        _mm256_storeu_si256((__m256i *)p, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        return;
    }
    const __m512i u = _mm512_castps_si512(v), hi = _mm512_srli_epi32(u, 16);
    const __mmask16 nan =
        _mm512_cmpgt_epu32_mask(_mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
    const __m512i bias = _mm512_add_epi32(_mm512_set1_epi32(0x7fff), _mm512_and_si512(hi, _mm512_set1_epi32(1)));
    const __m512i rounded = _mm512_srli_epi32(_mm512_add_epi32(u, bias), 16);
    const __m512i r = _mm512_mask_mov_epi32(rounded, nan, _mm512_or_si512(hi, _mm512_set1_epi32(0x40)));
    _mm256_storeu_si256((__m256i *)p, _mm512_cvtepi32_epi16(r));
}

/* 8 elements of type t at p, as floats. */
HCL_HOST_AVX2 static inline __m256 hcl__load8_avx2(hcl_dtype t, const uint16_t *p) {
    const __m128i h = _mm_loadu_si128((const __m128i *)p);
    if (t == HCL_DTYPE_F16) return _mm256_cvtph_ps(h);
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

/* 8 floats rounded to type t at p. The NaN test compares as signed, right because both sides are below 2^31. */
HCL_HOST_AVX2 static inline void hcl__store8_avx2(hcl_dtype t, uint16_t *p, __m256 v) {
    if (t == HCL_DTYPE_F16) {
        _mm_storeu_si128((__m128i *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        return;
    }
    const __m256i u = _mm256_castps_si256(v), hi = _mm256_srli_epi32(u, 16);
    const __m256i nan =
        _mm256_cmpgt_epi32(_mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    const __m256i bias = _mm256_add_epi32(_mm256_set1_epi32(0x7fff), _mm256_and_si256(hi, _mm256_set1_epi32(1)));
    const __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(u, bias), 16);
    const __m256i r = _mm256_blendv_epi8(rounded, _mm256_or_si256(hi, _mm256_set1_epi32(0x40)), nan);
    /* every lane is below 2^16, so the unsigned saturating pack only narrows */
    _mm_storeu_si128((__m128i *)p, _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
}
#endif

#endif /* HCL_HOST_SIMD_H */
