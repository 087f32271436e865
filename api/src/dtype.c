/* Element types on the host: names, sizes and round-to-nearest-even conversions (hcl.h). */
#include "core.h"
#include "hcl_host_kernels.h"
#include "hcl_plan.h"

#include <string.h>

HCL_API const char *hcl_dtype_name(hcl_dtype type) { return hcl_kdtype_name(type); }

HCL_API size_t hcl_dtype_size(hcl_dtype type) { return hcl_kdtype_size(type); }

HCL_API uint16_t hcl_f32_to_f16(float value) { return hcl__f32_to_f16(value); }
HCL_API float hcl_f16_to_f32(uint16_t value) { return hcl__f16_to_f32(value); }
HCL_API uint16_t hcl_f32_to_bf16(float value) { return hcl__f32_to_bf16(value); }
HCL_API float hcl_bf16_to_f32(uint16_t value) { return hcl__bf16_to_f32(value); }

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
    if (src_type == HCL_DTYPE_F32) {
        hcl__host_narrow(dst_type, src, dst, n);
    } else if (dst_type == HCL_DTYPE_F32) {
        hcl__host_widen(src_type, src, dst, n);
    } else { /* f16 <-> bf16 through float32 (exact widening, one rounding) */
        float tmp[256];
        for (size_t i = 0; i < n; i += 256) {
            size_t len = n - i < 256 ? n - i : 256;
            hcl__host_widen(src_type, (const uint16_t *)src + i, tmp, len);
            hcl__host_narrow(dst_type, tmp, (uint16_t *)dst + i, len);
        }
    }
    return HCL_SUCCESS;
}
