/* reduce (OpenCL C 1.2): sum, max or min of in[0..n) in f32, f16 or bf16 (hcl_cl_types.h), into a float,
 * deterministic.
 *
 * One launch of a fixed number of work-groups (chosen from n and the device only): each group folds its part and
 * writes one partial; the last group to finish (a ticket taken with atomic_inc after a barrier with the global fence) folds the
 * partials in an order fixed by the group count and writes the result, then puts the ticket and the partials back to 0 (the ticket must be
 * 0 before the first launch: the host gives zeroed scratch). No order that depends on timing: the same input on the
 * same device gives the same bits.
 *
 * chunk = 1 (GPU): a grid-stride loop over 16-byte vectors (float4, or 8 16-bit values; the input buffer starts at
 * offset 0, so 16-byte aligned), four loads in flight a work-item, each vector folded pairwise before it joins the
 * work-item's total. chunk > 1 (CPU): each work-item takes runs of `chunk` consecutive elements, combined in blocks
 * of HCL_REDUCE_BLOCK before joining its total. The work-items' totals meet in a tree in local memory (`scratch`: one float per work-item; the
 * work-group size is a power of two): no long chain of float additions, so large sums stay accurate.
 * Padding uses the identity (0, -INFINITY, INFINITY); max and min skip NaN as fmax and fmin do. */
#include "hcl_cl_types.h"

#define HCL_REDUCE_ADD(a, b) ((a) + (b))
#define HCL_REDUCE_BLOCK 256
#define HCL_REDUCE_FOLD4(COMBINE, v) COMBINE(COMBINE((v).x, (v).y), COMBINE((v).z, (v).w))
#define HCL_REDUCE_FOLD8(COMBINE, v) COMBINE(HCL_REDUCE_FOLD4(COMBINE, (v).lo), HCL_REDUCE_FOLD4(COMBINE, (v).hi))

/* Fold `acc` of every work-item in a tree in `scratch`; the result is in scratch[0] after the last barrier. */
#define HCL_REDUCE_TREE(COMBINE, acc)                                                                                  \
    scratch[lid] = (acc);                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                                      \
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {                                                           \
        if (lid < s) scratch[lid] = COMBINE(scratch[lid], scratch[lid + s]);                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                                                  \
    }

#define HCL_REDUCE_KERNEL(NAME, IDENTITY, COMBINE, TYPE)                                                               \
    __kernel void NAME(__global const void *restrict in, __global float *partials, __global volatile uint *ticket,     \
                       __global float *out, ulong n, ulong chunk, __local float *scratch) {                            \
        const size_t lid = get_local_id(0);                                                                            \
        const size_t len = (size_t)n, run = (size_t)chunk;                                                             \
        const size_t step = get_global_size(0) * run;                                                                  \
        float acc = IDENTITY;                                                                                          \
        if (run == 1 && TYPE != HCL_CL_F32) { /* 16-bit: eight elements (16 bytes) per load, four in flight */         \
            const size_t items = get_global_size(0), n8 = len / 8;                                                     \
            size_t i = get_global_id(0);                                                                               \
            for (; i + 3 * items < n8; i += 4 * items) {                                                               \
                const float8 v0 = hcl_load8(in, i, TYPE), v1 = hcl_load8(in, i + items, TYPE);                         \
                const float8 v2 = hcl_load8(in, i + 2 * items, TYPE), v3 = hcl_load8(in, i + 3 * items, TYPE);         \
                acc = COMBINE(acc, HCL_REDUCE_FOLD8(COMBINE, v0));                                                     \
                acc = COMBINE(acc, HCL_REDUCE_FOLD8(COMBINE, v1));                                                     \
                acc = COMBINE(acc, HCL_REDUCE_FOLD8(COMBINE, v2));                                                     \
                acc = COMBINE(acc, HCL_REDUCE_FOLD8(COMBINE, v3));                                                     \
            }                                                                                                          \
            for (; i < n8; i += items) acc = COMBINE(acc, HCL_REDUCE_FOLD8(COMBINE, hcl_load8(in, i, TYPE)));          \
            for (size_t i = n8 * 8 + get_global_id(0); i < len; i += items) acc = COMBINE(acc, hcl_load(in, i, TYPE)); \
        } else if (run == 1) { /* f32: four elements per load (buffers start 16-byte aligned), then the tail */        \
            const size_t items = get_global_size(0), n4 = len / 4;                                                     \
            size_t i = get_global_id(0);                                                                               \
            for (; i + 3 * items < n4; i += 4 * items) {                                                               \
                const float4 v0 = hcl_load4(in, i, TYPE), v1 = hcl_load4(in, i + items, TYPE);                         \
                const float4 v2 = hcl_load4(in, i + 2 * items, TYPE), v3 = hcl_load4(in, i + 3 * items, TYPE);         \
                acc = COMBINE(acc, HCL_REDUCE_FOLD4(COMBINE, v0));                                                     \
                acc = COMBINE(acc, HCL_REDUCE_FOLD4(COMBINE, v1));                                                     \
                acc = COMBINE(acc, HCL_REDUCE_FOLD4(COMBINE, v2));                                                     \
                acc = COMBINE(acc, HCL_REDUCE_FOLD4(COMBINE, v3));                                                     \
            }                                                                                                          \
            for (; i < n4; i += items) acc = COMBINE(acc, HCL_REDUCE_FOLD4(COMBINE, hcl_load4(in, i, TYPE)));          \
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
        HCL_REDUCE_TREE(COMBINE, acc)                                                                                  \
        __local int is_last;                                                                                           \
        if (lid == 0) partials[get_group_id(0)] = scratch[0];                                                          \
        barrier(CLK_GLOBAL_MEM_FENCE); /* the partial is out before the ticket is taken */                             \
        if (lid == 0) is_last = atomic_inc(ticket) == (uint)get_num_groups(0) - 1u;                                    \
        barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                                           \
        if (!is_last) return;                                                                                          \
        /* every group's partial, not a stale copy; four loads in flight a work-item, then the next four */            \
        const __global volatile float *vp = partials;                                                                  \
        const size_t groups = get_num_groups(0), wg = get_local_size(0);                                               \
        float v = IDENTITY;                                                                                            \
        for (size_t i = lid; i < groups; i += 4 * wg) {                                                                \
            const float p0 = vp[i], p1 = i + wg < groups ? vp[i + wg] : IDENTITY;                                      \
            const float p2 = i + 2 * wg < groups ? vp[i + 2 * wg] : IDENTITY;                                          \
            const float p3 = i + 3 * wg < groups ? vp[i + 3 * wg] : IDENTITY;                                          \
            v = COMBINE(v, COMBINE(COMBINE(p0, p1), COMBINE(p2, p3)));                                                 \
        }                                                                                                              \
        for (size_t i = lid; i < groups; i += wg) partials[i] = 0.0f; /* the scratch is left as zeros, as it came */   \
        barrier(CLK_LOCAL_MEM_FENCE);                                 /* scratch[0] was read above */                  \
        HCL_REDUCE_TREE(COMBINE, v)                                                                                    \
        if (lid == 0) {                                                                                                \
            out[0] = scratch[0];                                                                                       \
            *ticket = 0;                                                                                               \
        }                                                                                                              \
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
