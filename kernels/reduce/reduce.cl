/* reduce (OpenCL C 1.2): sum, max or min of in[0..n), deterministic.
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
 * Padding uses the identity (0, -INFINITY, INFINITY); max and min skip NaN as fmax and fmin do. */

#define HCL_REDUCE_ADD(a, b) ((a) + (b))
#define HCL_REDUCE_BLOCK 256

#define HCL_REDUCE_KERNEL(NAME, IDENTITY, COMBINE)                                                                     \
    __kernel void hcl_reduce_##NAME##_f32(__global const float *in, __global float *out, ulong n, ulong chunk,         \
                                          __local float *scratch) {                                                    \
        const size_t lid = get_local_id(0);                                                                            \
        const size_t len = (size_t)n, run = (size_t)chunk;                                                             \
        const size_t step = get_global_size(0) * run;                                                                  \
        float acc = IDENTITY;                                                                                          \
        if (run == 1) { /* float4 loads (buffers start 16-byte aligned), then the scalar tail */                       \
            const size_t items = get_global_size(0), n4 = len / 4;                                                     \
            __global const float4 *in4 = (__global const float4 *)in;                                                  \
            for (size_t i = get_global_id(0); i < n4; i += items) {                                                    \
                const float4 v = in4[i];                                                                               \
                acc = COMBINE(acc, COMBINE(COMBINE(v.x, v.y), COMBINE(v.z, v.w)));                                     \
            }                                                                                                          \
            for (size_t i = n4 * 4 + get_global_id(0); i < len; i += items) acc = COMBINE(acc, in[i]);                 \
        } else {                                                                                                       \
            for (size_t base = get_global_id(0) * run; base < len; base += step) {                                     \
                const size_t end = min(base + run, len);                                                               \
                for (size_t b0 = base; b0 < end; b0 += HCL_REDUCE_BLOCK) {                                             \
                    const size_t e = min(b0 + HCL_REDUCE_BLOCK, end);                                                  \
                    float part = IDENTITY;                                                                             \
                    for (size_t i = b0; i < e; i++) part = COMBINE(part, in[i]);                                       \
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

HCL_REDUCE_KERNEL(sum, 0.0f, HCL_REDUCE_ADD)
HCL_REDUCE_KERNEL(max, -INFINITY, fmax)
HCL_REDUCE_KERNEL(min, INFINITY, fmin)
