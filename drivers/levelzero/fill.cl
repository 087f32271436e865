/* fill (OpenCL C 1.2, built into SPIR-V for the Level Zero driver): a repeated pattern of up to 128 bytes, for
 * the pattern sizes that zeCommandListAppendMemoryFill does not take on a device (its
 * maxMemoryFillPatternSize), and for markers.
 *
 * The pattern arrives by value as two uint16 vectors (128 bytes: vectors pass by value everywhere, where a
 * struct argument would need the by-value pointer convention). `period` is the pattern's length in words
 * (hcl_fill_u32: 4-byte patterns and longer, dst 4-byte aligned) or in bytes (hcl_fill_u8: patterns of 1 and 2
 * bytes). The host passes dst at the fill's start, so element i takes pattern element i % period.
 * Grid-stride loops, so any grid covers any count. */

__kernel void hcl_fill_u32(__global uint *dst, ulong count, uint16 lo, uint16 hi, uint period) {
    uint w[32];
    vstore16(lo, 0, w);
    vstore16(hi, 1, w);
    const size_t n = (size_t)count, stride = get_global_size(0);
    for (size_t i = get_global_id(0); i < n; i += stride) dst[i] = w[i % period];
}

__kernel void hcl_fill_u8(__global uchar *dst, ulong count, uint16 lo, uint16 hi, uint period) {
    uint w[32];
    vstore16(lo, 0, w);
    vstore16(hi, 1, w);
    const uchar *b = (const uchar *)w;
    const size_t n = (size_t)count, stride = get_global_size(0);
    for (size_t i = get_global_id(0); i < n; i += stride) dst[i] = b[i % period];
}
