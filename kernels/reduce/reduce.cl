/* reduce (OpenCL C 1.2): sum, max or min of in[0..n) in f32, f16 or bf16 (hcl_cl_types.h), into floats,
 * deterministic.
 *
 * One kernel per operation, used for both passes of a fixed-shape reduction: the first pass runs a fixed
 * number of work-groups (chosen from n and the device only) and writes one partial per group; the second pass
 * is the same kernel with one work-group over the partials. No atomics, no order that depends on timing: the
 * same input on the same device gives the same bits.
 *
 * chunk = 1 (GPU): a grid-stride loop over float4s (the input buffer starts at offset 0, so 16-byte aligned),
 * each float4 folded pairwise before it joins the work-item's total. chunk > 1 (CPU): each work-item takes runs
 * of `chunk` consecutive elements, combined in blocks of HCL_REDUCE_BLOCK before joining its total. The
 * work-items' totals meet in a tree in local memory (`scratch`: one float per work-item; the work-group size
 * is a power of two): no long chain of float additions, so large sums stay accurate.
 * Padding uses the identity (0, -INFINITY, INFINITY); max and min skip NaN as fmax and fmin do. The partials and
 * the result are float whatever the input type: the second pass is the f32 kernel over the partials. */
#include "hcl_cl_types.h"

#define HCL_REDUCE_ADD(a, b) ((a) + (b))
#define HCL_REDUCE_BLOCK 256

#define HCL_REDUCE_KERNEL(NAME, IDENTITY, COMBINE, TYPE)                                                               \
    __kernel void NAME(__global const void *in, __global float *out, ulong n, ulong chunk, __local float *scratch) {   \
        const size_t lid = get_local_id(0);                                                                            \
        const size_t len = (size_t)n, run = (size_t)chunk;                                                             \
        const size_t step = get_global_size(0) * run;                                                                  \
        float acc = IDENTITY;                                                                                          \
        if (run == 1) { /* four elements per load (buffers start 16-byte aligned), then the scalar tail */             \
            const size_t items = get_global_size(0), n4 = len / 4;                                                     \
            for (size_t i = get_global_id(0); i < n4; i += items) {                                                    \
                const float4 v = hcl_load4(in, i, TYPE);                                                               \
                acc = COMBINE(acc, COMBINE(COMBINE(v.x, v.y), COMBINE(v.z, v.w)));                                     \
            }                                                                                                          \
            for (size_t i = n4 * 4 + get_global_id(0); i < len; i += items) acc = COMBINE(acc, hcl_load(in, i, TYPE)); \
        } else {                                                                                                       \
            for (size_t base = get_global_id(0) * run; base < len; base += step) {                                     \
                const size_t end = min(base + run, len);                                                               \
                for (size_t b0 = base; b0 < end; b0 += HCL_REDUCE_BLOCK) {                                             \
                    const size_t e = min(b0 + HCL_REDUCE_BLOCK, end);                                                  \
                    float part = IDENTITY;                                                                             \
                    for (size_t i = b0; i < e; i++) part = COMBINE(part, hcl_load(in, i, TYPE));                       \
                    acc = COMBINE(acc, part);                                                                          \
                }                                                                                                      \
            }                                                                                                          \
        }                                                                                                              \
        scratch[lid] = acc;                                                                                            \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
        for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {                                                       \
            if (lid < s) scratch[lid] = COMBINE(scratch[lid], scratch[lid + s]);                                       \
            barrier(CLK_LOCAL_MEM_FENCE);                                                                              \
        }                                                                                                              \
        if (lid == 0) out[get_group_id(0)] = scratch[0];                                                               \
    }

HCL_REDUCE_KERNEL(hcl_reduce_sum_f32, 0.0f, HCL_REDUCE_ADD, HCL_CL_F32)
HCL_REDUCE_KERNEL(hcl_reduce_max_f32, -INFINITY, fmax, HCL_CL_F32)
HCL_REDUCE_KERNEL(hcl_reduce_min_f32, INFINITY, fmin, HCL_CL_F32)
HCL_REDUCE_KERNEL(hcl_reduce_sum_f16, 0.0f, HCL_REDUCE_ADD, HCL_CL_F16)
HCL_REDUCE_KERNEL(hcl_reduce_max_f16, -INFINITY, fmax, HCL_CL_F16)
HCL_REDUCE_KERNEL(hcl_reduce_min_f16, INFINITY, fmin, HCL_CL_F16)
HCL_REDUCE_KERNEL(hcl_reduce_sum_bf16, 0.0f, HCL_REDUCE_ADD, HCL_CL_BF16)
HCL_REDUCE_KERNEL(hcl_reduce_max_bf16, -INFINITY, fmax, HCL_CL_BF16)
HCL_REDUCE_KERNEL(hcl_reduce_min_bf16, INFINITY, fmin, HCL_CL_BF16)
