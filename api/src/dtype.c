/* Element types on the host: names, sizes and round-to-nearest-even conversions (hcl.h). */
#include "core.h"

#include <string.h>

HCL_API const char *hcl_dtype_name(hcl_dtype type) {
    switch (type) {
    case HCL_DTYPE_F32: return "f32";
    case HCL_DTYPE_F16: return "f16";
    case HCL_DTYPE_BF16: return "bf16";
    }
    return "?";
}

HCL_API size_t hcl_dtype_size(hcl_dtype type) {
    switch (type) {
    case HCL_DTYPE_F32: return 4;
    case HCL_DTYPE_F16:
    case HCL_DTYPE_BF16: return 2;
    }
    return 0;
}

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

HCL_API uint16_t hcl_f32_to_bf16(float value) {
    uint32_t u = bits_of(value);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u); /* NaN: keep it quiet */
    u += 0x7fffu + ((u >> 16) & 1u);                                               /* to nearest, ties to even */
    return (uint16_t)(u >> 16);
}

HCL_API float hcl_bf16_to_f32(uint16_t value) { return float_of((uint32_t)value << 16); }

HCL_API uint16_t hcl_f32_to_f16(float value) {
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
    if (a < 0x33000000u) return sign; /* below half the smallest subnormal (2^-25): +-0 */
    /* subnormal f16: the value in units of 2^-24, to nearest even */
    uint32_t e = a >> 23, mant = (a & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e; /* 14 .. 24: mant * 2^(e-150) / 2^-24 = mant >> (126 - e) */
    uint32_t q = mant >> shift, rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
}

HCL_API float hcl_f16_to_f32(uint16_t value) {
    uint32_t sign = (uint32_t)(value & 0x8000u) << 16, e = (value >> 10) & 0x1fu, m = value & 0x3ffu;
    if (e == 0x1f) return float_of(sign | 0x7f800000u | (m << 13)); /* inf, NaN */
    if (e != 0) return float_of(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0) return float_of(sign);
    float f = (float)m * 0x1p-24f; /* subnormal: exact in float32 */
    return sign ? -f : f;
}

static float load(hcl_dtype type, const void *src, size_t i) {
    switch (type) {
    case HCL_DTYPE_F16: return hcl_f16_to_f32(((const uint16_t *)src)[i]);
    case HCL_DTYPE_BF16: return hcl_bf16_to_f32(((const uint16_t *)src)[i]);
    default: return ((const float *)src)[i];
    }
}

static void store(hcl_dtype type, void *dst, size_t i, float v) {
    switch (type) {
    case HCL_DTYPE_F16: ((uint16_t *)dst)[i] = hcl_f32_to_f16(v); break;
    case HCL_DTYPE_BF16: ((uint16_t *)dst)[i] = hcl_f32_to_bf16(v); break;
    default: ((float *)dst)[i] = v; break;
    }
}

HCL_API hcl_status hcl_convert(hcl_dtype dst_type, void *dst, hcl_dtype src_type, const void *src, size_t n) {
    if (!hcl_dtype_size(dst_type) || !hcl_dtype_size(src_type))
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_convert: type %d / %d is not an hcl_dtype",
                                (int)dst_type, (int)src_type);
    if (n == 0) return HCL_SUCCESS;
    if (!dst || !src)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_convert: %s is NULL with n = %zu",
                                !dst ? "dst" : "src", n);
    if (dst_type == src_type) {
        if (dst != src) memmove(dst, src, n * hcl_dtype_size(dst_type));
        return HCL_SUCCESS;
    }
    for (size_t i = 0; i < n; i++) store(dst_type, dst, i, load(src_type, src, i));
    return HCL_SUCCESS;
}
