/* Element types of the CUDA/HIP built-ins: f32, f16, bf16 storage with float arithmetic.
 *
 * 16-bit elements are stored as unsigned short inside two distinct structs (so templates tell them apart) and
 * converted here, with no vendor header (NVRTC and hiprtc build the text alone): f16 through the hardware
 * conversion (PTX cvt on CUDA, clang's _Float16 on HIP; both round to nearest even), bf16 with integer code (the
 * upper half of a float, rounded to nearest even, a NaN kept quiet), bit-exact with the host's conversions.
 * hcl_elem<T> gives the loads and stores a kernel body uses: one element, or one 16-byte vector of VEC elements
 * (4 floats or 8 halves; the caller checks the 16-byte alignment). */
#ifndef HCL_GPU_TYPES_H
#define HCL_GPU_TYPES_H

#include "hcl_gpu_compat.h"

struct hcl_f16_t {
    unsigned short bits;
};
struct hcl_bf16_t {
    unsigned short bits;
};

__device__ __forceinline__ float hcl_f16_to_float(unsigned short h) {
#if defined(HCL_GPU_HIP_KERNEL)
    return (float)__builtin_bit_cast(_Float16, h);
#else
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#endif
}

__device__ __forceinline__ unsigned short hcl_float_to_f16(float f) {
#if defined(HCL_GPU_HIP_KERNEL)
    return __builtin_bit_cast(unsigned short, (_Float16)f);
#else
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#endif
}

__device__ __forceinline__ float hcl_bf16_to_float(unsigned short h) {
    return __int_as_float((int)((unsigned)h << 16));
}

/* Round to nearest even: one instruction on NVIDIA sm_80+ (cvt.rn.bf16.f32; a NaN gives the canonical NaN), integer
 * code elsewhere (a NaN keeps its sign and top fraction bits, quieted). */
__device__ __forceinline__ unsigned short hcl_float_to_bf16(float f) {
#if !defined(HCL_GPU_HIP_KERNEL) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    const unsigned u = (unsigned)__float_as_int(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);
    return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
#endif
}

template <typename T> struct hcl_elem;

template <> struct hcl_elem<float> {
    enum { VEC = 4 };
    static __device__ __forceinline__ float ld(const float *p, unsigned long long i) { return p[i]; }
    static __device__ __forceinline__ void st(float *p, unsigned long long i, float v) { p[i] = v; }
    /* the VEC elements of 16 bytes as floats, and back */
    static __device__ __forceinline__ void unpack(uint4 t, float *v) {
        v[0] = __int_as_float((int)t.x), v[1] = __int_as_float((int)t.y), v[2] = __int_as_float((int)t.z),
        v[3] = __int_as_float((int)t.w);
    }
    static __device__ __forceinline__ uint4 pack(const float *v) {
        return make_uint4((unsigned)__float_as_int(v[0]), (unsigned)__float_as_int(v[1]),
                          (unsigned)__float_as_int(v[2]), (unsigned)__float_as_int(v[3]));
    }
    /* elements VEC*i .. VEC*i + VEC-1 */
    static __device__ __forceinline__ void ld_vec(const float *p, unsigned long long i, float *v) {
        unpack(((const uint4 *)p)[i], v);
    }
    static __device__ __forceinline__ void st_vec(float *p, unsigned long long i, const float *v) {
        ((uint4 *)p)[i] = pack(v);
    }
    /* elements 2i and 2i + 1 (8-byte aligned) */
    static __device__ __forceinline__ void ld2(const float *p, unsigned long long i, float *v) {
        const float2 t = ((const float2 *)p)[i];
        v[0] = t.x, v[1] = t.y;
    }
    static __device__ __forceinline__ void st2(float *p, unsigned long long i, float v0, float v1) {
        ((float2 *)p)[i] = make_float2(v0, v1);
    }
};

/* The conversions of a 16-bit format. */
template <typename S> struct hcl_conv16;
/* from2(lo, hi): two floats rounded into one 32-bit word, lo in the low half: one cvt.rn.{f16,bf16}x2.f32 on NVIDIA
 * sm_80+ (the same roundings and NaN as the scalar cvt), the scalar conversions elsewhere. */
#if !defined(HCL_GPU_HIP_KERNEL) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define HCL_GPU_CVT_X2(FMT)                                                                                            \
    static __device__ __forceinline__ unsigned from2(float lo, float hi) {                                             \
        unsigned w;                                                                                                    \
        asm("cvt.rn." FMT "x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));                                          \
        return w;                                                                                                      \
    }
#else
#define HCL_GPU_CVT_X2(FMT)                                                                                            \
    static __device__ __forceinline__ unsigned from2(float lo, float hi) {                                             \
        return (unsigned)from(lo) | ((unsigned)from(hi) << 16);                                                        \
    }
#endif
template <> struct hcl_conv16<hcl_f16_t> {
    static __device__ __forceinline__ float to(unsigned short h) { return hcl_f16_to_float(h); }
    static __device__ __forceinline__ unsigned short from(float f) { return hcl_float_to_f16(f); }
    HCL_GPU_CVT_X2("f16")
};
template <> struct hcl_conv16<hcl_bf16_t> {
    static __device__ __forceinline__ float to(unsigned short h) { return hcl_bf16_to_float(h); }
    static __device__ __forceinline__ unsigned short from(float f) { return hcl_float_to_bf16(f); }
    HCL_GPU_CVT_X2("bf16")
};
#undef HCL_GPU_CVT_X2

/* 16-bit storage of format S */
template <typename S> struct hcl_elem16 {
    typedef hcl_conv16<S> cv;
    enum { VEC = 8 };
    static __device__ __forceinline__ float ld(const S *p, unsigned long long i) { return cv::to(p[i].bits); }
    static __device__ __forceinline__ void st(S *p, unsigned long long i, float v) { p[i].bits = cv::from(v); }
    /* the VEC elements of 16 bytes as floats, and back (each rounded once) */
    static __device__ __forceinline__ void unpack(uint4 t, float *v) {
        const unsigned w[4] = {t.x, t.y, t.z, t.w};
#pragma unroll
        for (int q = 0; q < 4; q++) {
            v[2 * q] = cv::to((unsigned short)(w[q] & 0xffffu));
            v[2 * q + 1] = cv::to((unsigned short)(w[q] >> 16));
        }
    }
    static __device__ __forceinline__ uint4 pack(const float *v) {
        unsigned w[4];
#pragma unroll
        for (int q = 0; q < 4; q++) w[q] = cv::from2(v[2 * q], v[2 * q + 1]);
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
    static __device__ __forceinline__ void ld_vec(const S *p, unsigned long long i, float *v) {
        unpack(((const uint4 *)p)[i], v);
    }
    static __device__ __forceinline__ void st_vec(S *p, unsigned long long i, const float *v) {
        ((uint4 *)p)[i] = pack(v);
    }
    /* elements 2i and 2i + 1 (4-byte aligned): one 32-bit access */
    static __device__ __forceinline__ void ld2(const S *p, unsigned long long i, float *v) {
        const unsigned w = ((const unsigned *)(const void *)p)[i];
        v[0] = cv::to((unsigned short)(w & 0xffffu));
        v[1] = cv::to((unsigned short)(w >> 16));
    }
    static __device__ __forceinline__ void st2(S *p, unsigned long long i, float v0, float v1) {
        ((unsigned *)(void *)p)[i] = cv::from2(v0, v1);
    }
};
template <> struct hcl_elem<hcl_f16_t> : hcl_elem16<hcl_f16_t> {};
template <> struct hcl_elem<hcl_bf16_t> : hcl_elem16<hcl_bf16_t> {};

/* Whether p is 16-byte aligned (a vector access needs it). */
__device__ __forceinline__ bool hcl_aligned16(const void *p) { return ((unsigned long long)p & 15ull) == 0; }

/* Tile `tile` of a grid of tiles_m x tiles_n tiles (in row-major numbering), visited instead in groups of `group` tile
 * rows, column by column, so that the blocks at work at one time share rows of A and columns of B in L2 (the gemm
 * kernels): its tile row *tm and tile column *tn. */
template <typename I>
__device__ __forceinline__ void hcl_tile_grouped(I tile, I tiles_m, I tiles_n, I group, I *tm, I *tn) {
    const I per = group * tiles_n, first = tile / per * group, rows = tiles_m - first < group ? tiles_m - first : group,
            in = tile % per;
    *tm = first + in % rows;
    *tn = in / rows;
}

/* A kernel a plan launches early (hcl_klaunch.waits_in_device: CUDA's programmatic dependent launch) begins with this
 * wait: until the kernel before it on the queue has ended and its writes are visible. Launched the usual way, it
 * returns at once. */
__device__ __forceinline__ void hcl_gpu_wait_previous() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(HCL_GPU_HIP_KERNEL)
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
/* The kernel after this one on the queue, where it is launched early, may begin now (it still waits, with
 * hcl_gpu_wait_previous, for this one to end before it reads what this one writes). */
__device__ __forceinline__ void hcl_gpu_launch_next() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(HCL_GPU_HIP_KERNEL)
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* The three instantiations of a kernel body: NAME_f32, NAME_f16, NAME_bf16 (X(suffix, type) per type). */
#define HCL_GPU_TYPES(X) X(f32, float) X(f16, hcl_f16_t) X(bf16, hcl_bf16_t)

#endif /* HCL_GPU_TYPES_H */
