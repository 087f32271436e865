// A and B of the Vulkan gemm kernels (gemm.comp, gemm_splitk.comp) read 4 consecutive elements of the stored matrix at
// a time: the same bindings as A and B (0 and 1) seen as arrays of 4-element vectors (T4, widened to floats by LOAD4),
// and load_a4 / load_b4, elements (r, c .. c + 3) of the stored matrix (row-major, leading dimension p.lda / p.ldb) as
// floats, zero where r >= rows or a column >= cols: one vector read where the leading dimension is a multiple of 4 (c
// is) and all 4 are inside. The including shader declares T, LOAD, the bindings of A and B and the push constants.
#if defined(HCL_F32)
#define T4 vec4
#define LOAD4(x) (x)
#elif defined(HCL_F16)
#define T4 f16vec4
#define LOAD4(x) vec4(x)
#else
#define T4 u16vec4
#define LOAD4(x) uintBitsToFloat(uvec4(x) << 16)
#endif
layout(std430, set = 0, binding = 0) readonly buffer A4 { T4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer B4 { T4 b4[]; };

#define HCL_GEMM_LOAD4(name, buf, buf4, ld)                                                                            \
    vec4 name(uint r, uint c, uint rows, uint cols) {                                                                  \
        vec4 v = vec4(0.0);                                                                                            \
        if (r >= rows) return v;                                                                                       \
        const uint at = r * ld + c;                                                                                    \
        if ((ld & 3u) == 0u && c + 3u < cols) return LOAD4(buf4[at >> 2]);                                            \
        for (uint q = 0u; q < 4u; q++)                                                                                 \
            if (c + q < cols) v[q] = LOAD(buf[at + q]);                                                                \
        return v;                                                                                                      \
    }
HCL_GEMM_LOAD4(load_a4, a, a4, p.lda)
HCL_GEMM_LOAD4(load_b4, b, b4, p.ldb)
#undef HCL_GEMM_LOAD4
