/* Element types in the OpenCL C built-ins (OpenCL C 1.2), prepended to every kernels/<op>/<op>.cl at build time.
 *
 * A kernel body takes its elements' type as a constant (HCL_CL_F32, HCL_CL_F16, HCL_CL_BF16: the values of
 * hcl_dtype) that each kernel passes as a literal, so after inlining the loads and stores below compile to the one
 * access of that type: an f32 kernel is the plain float code. Arithmetic is always float. f16 is read and written
 * with vload_half / vstore_half_rte, core OpenCL 1.2 functions that need no cl_khr_fp16 (so every device takes f16
 * buffers); bf16 is a ushort holding the upper half of a float, rounded to nearest even on store (a NaN stays a
 * quiet NaN). Offsets are in elements of the type. On NVIDIA devices of sm_80 and later (HCL_CL_NV_SM, which HCL's
 * OpenCL driver defines) vectors of 16-bit values are rounded by one PTX instruction a pair (HCL_CL_CVT_X2), as the
 * CUDA built-ins do; a NaN then becomes the canonical quiet NaN. */
#ifndef HCL_CL_TYPES_H
#define HCL_CL_TYPES_H

#define HCL_CL_F32 0
#define HCL_CL_F16 1
#define HCL_CL_BF16 2

/* NVIDIA's OpenCL compiler (it defines __NV_CL_C_VERSION) takes inline PTX, and runs a work-group as warps of 32
 * consecutive work-items: there the folds exchange values within a warp through shuffles instead of local memory and
 * barriers (HCL_CL_WARP_SHUFFLE). v of the work-item whose local id differs in the bits of lane_mask; every work-item
 * of the warp must call it. */
#if defined(__NV_CL_C_VERSION)
#define HCL_CL_WARP_SHUFFLE 1
static inline float hcl_cl_shfl_xor(const float v, const uint lane_mask) {
    float r;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(lane_mask));
    return r;
}
/* w, opaque to the compiler: values computed from it before are not reused after (NVIDIA's compiler otherwise keeps
 * registers of floats unpacked from 16-bit words alive instead of unpacking the words again). */
static inline uint4 hcl_cl_opaque4(uint4 w) {
    asm volatile("" : "+r"(w.x), "+r"(w.y), "+r"(w.z), "+r"(w.w));
    return w;
}
#else
static inline uint4 hcl_cl_opaque4(const uint4 w) { return w; }
#endif

#if defined(HCL_CL_WARP_SHUFFLE) && defined(HCL_CL_NV_SM) && HCL_CL_NV_SM >= 80
/* Two floats rounded to nearest even into one word of two 16-bit values of `type`, lo in the low half: one
 * cvt.rn.{f16,bf16}x2.f32 (sm_80 and later), where the integer rounding of bf16 takes about nine instructions a value
 * (H100, NVIDIA's OpenCL, bf16 softmax: 0.88 -> 0.94 of the copy rate at 4096 columns, 0.82 -> 0.91 at 16384). */
#define HCL_CL_CVT_X2 1
static inline uint hcl_cl_cvt_x2(const float lo, const float hi, const int type) {
    uint r;
    if (type == HCL_CL_F16)
        asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    else
        asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
#endif

static inline float hcl_load(__global const void *p, size_t i, const int type) {
    if (type == HCL_CL_F16) return vload_half(i, (__global const half *)p);
    if (type == HCL_CL_BF16) return as_float((uint)((__global const ushort *)p)[i] << 16);
    return ((__global const float *)p)[i];
}

static inline ushort hcl_bf16_rne(const float v) {
    const uint u = as_uint(v);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (ushort)((u >> 16) | 0x40u);
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline void hcl_store(__global void *p, size_t i, const float v, const int type) {
    if (type == HCL_CL_F16)
        vstore_half_rte(v, i, (__global half *)p);
    else if (type == HCL_CL_BF16)
        ((__global ushort *)p)[i] = hcl_bf16_rne(v);
    else
        ((__global float *)p)[i] = v;
}

/* p[i] = alpha * v + beta * p[i], rounded once to `type`; with beta 0, p[i] is not read (BLAS: NaN there does not
 * propagate). The gemm kernels' stores of C. */
static inline void hcl_store_scaled(__global void *p, size_t i, const float v, const float alpha, const float beta,
                                    const int type) {
    float out = alpha * v;
    if (beta != 0.0f) out = fma(beta, hcl_load(p, i, type), out);
    hcl_store(p, i, out, type);
}

/* 16-bit vectors move as whole aligned words: one 8- or 16-byte load or store, widened or narrowed in registers
 * (vload4 / vstore4 of ushort, and vload_half4 from global memory, may only assume 2-byte alignment, and NVIDIA's
 * OpenCL then moves each element on its own: H100, 16-bit reduce at 2^25 elements 0.80-0.81 of the copy rate against
 * 0.85-0.87 so, vecadd 0.99-1.00 against 1.03-1.05). f16 goes through vload_half / vstore_half_rte on private memory
 * (core OpenCL 1.2, no cl_khr_fp16); bf16 elements are the halves of each word, element 0 in the low half. */
static inline float2 hcl_bf16x2(const uint w) { return (float2)(as_float(w << 16), as_float(w & 0xffff0000u)); }

static inline uint2 hcl_bf16x4_rne(const float4 v) {
    const uint4 u = as_uint4(v);
    const uint4 rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16, quiet = (u >> 16) | 0x40u;
    const uint4 h = select(rounded, quiet, (u & 0x7fffffffu) > 0x7f800000u);
    return (uint2)(h.x | (h.y << 16), h.z | (h.w << 16));
}

/* Four consecutive elements from element 4 * i (the buffers start 16-byte aligned). */
static inline float4 hcl_load4(__global const void *p, size_t i, const int type) {
    if (type == HCL_CL_F32) return ((__global const float4 *)p)[i];
    const uint2 w = ((__global const uint2 *)p)[i];
    if (type == HCL_CL_F16) return vload_half4(0, (const __private half *)&w);
    return (float4)(hcl_bf16x2(w.x), hcl_bf16x2(w.y));
}

/* The eight elements of a 16-byte word of a 16-bit type, as memory holds them. */
static inline float8 hcl_unpack8(const uint4 w, const int type) {
    if (type == HCL_CL_F16) return vload_half8(0, (const __private half *)&w);
    return (float8)(hcl_bf16x2(w.x), hcl_bf16x2(w.y), hcl_bf16x2(w.z), hcl_bf16x2(w.w));
}

/* Eight consecutive elements from element 8 * i: one 16-byte load for the 16-bit types. */
static inline float8 hcl_load8(__global const void *p, size_t i, const int type) {
    if (type == HCL_CL_F32) return vload8(i, (__global const float *)p);
    return hcl_unpack8(((__global const uint4 *)p)[i], type);
}

/* Four floats as four 16-bit values of `type` in two words (element 0 in the low half of .x), rounded to nearest
 * even. */
static inline uint2 hcl_pack4(const float4 v, const int type) {
#ifdef HCL_CL_CVT_X2
    return (uint2)(hcl_cl_cvt_x2(v.x, v.y, type), hcl_cl_cvt_x2(v.z, v.w, type));
#else
    if (type == HCL_CL_BF16) return hcl_bf16x4_rne(v);
    uint2 w;
    vstore_half4_rte(v, 0, (__private half *)&w);
    return w;
#endif
}

static inline void hcl_store4(__global void *p, size_t i, const float4 v, const int type) {
    if (type == HCL_CL_F32)
        ((__global float4 *)p)[i] = v;
    else
        ((__global uint2 *)p)[i] = hcl_pack4(v, type);
}

/* Eight consecutive elements to element 8 * i: one 16-byte store for the 16-bit types. */
static inline void hcl_store8(__global void *p, size_t i, const float8 v, const int type) {
    if (type == HCL_CL_F32)
        vstore8(v, i, (__global float *)p);
    else
        ((__global uint4 *)p)[i] = (uint4)(hcl_pack4(v.lo, type), hcl_pack4(v.hi, type));
}

/* Eight consecutive elements from element e, wherever it lies (an element's alignment only: a row of any length,
 * read by one work-item as a CPU runs it). 16-bit values move as ushort8 (PoCL 3.1 compiles vload_half8 from global
 * memory to an aligned 16-byte load, which faults at an odd element). */
static inline float8 hcl_load8_at(__global const void *p, size_t e, const int type) {
    if (type == HCL_CL_F32) return vload8(0, (__global const float *)p + e);
    const ushort8 h = vload8(0, (__global const ushort *)p + e);
    if (type == HCL_CL_F16) return vload_half8(0, (const __private half *)&h);
    return as_float8(convert_uint8(h) << 16);
}

/* Eight consecutive elements to element e, wherever it lies, each rounded once to nearest even. */
static inline void hcl_store8_at(__global void *p, size_t e, const float8 v, const int type) {
    if (type == HCL_CL_F32)
        vstore8(v, 0, (__global float *)p + e);
    else
        vstore8(as_ushort8((uint4)(hcl_pack4(v.lo, type), hcl_pack4(v.hi, type))), 0, (__global ushort *)p + e);
}

#endif /* HCL_CL_TYPES_H */
