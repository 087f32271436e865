/* The launch plan of reduce (hcl_plan.h): the sum, max or min of n elements of one type into one float. The launch shape depends on n
 * and the device only, so a reduction's order, and with it the result's bits, is always the same. */
#include "hcl_plan.h"
#include "plan_vk.h"

static int op_index(hcl_reduce_op op) { return op == HCL_REDUCE_MAX ? 1 : op == HCL_REDUCE_MIN ? 2 : 0; }

static const char *op_base(hcl_reduce_op op) {
    static const char *const base[3] = {"hcl_reduce_sum", "hcl_reduce_max", "hcl_reduce_min"};
    return base[op_index(op)];
}

/* ---- GPU (kernels/reduce/reduce.cu): one pass; each block writes a partial, the last block to finish (a ticket
 * counter after the partials) folds them and resets the ticket to 0 ---- */
#define GPU_THREADS 256
#define GPU_MAX_BLOCKS 1024

static hcl_status plan_gpu(hcl_dtype type, hcl_reduce_op op, size_t n, hcl_kplan *out, hcl_klaunch *l) {
    size_t blocks = hcl_min_size(hcl_ceil_div(n, GPU_THREADS * 8), GPU_MAX_BLOCKS);
    int kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_GPU, op_base(op), type);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, blocks ? blocks : 1, GPU_THREADS);
    out->scratch_bytes = GPU_MAX_BLOCKS * sizeof(float) + 256; /* partials, then the ticket */
    out->scratch_zeroed = 1;
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_u64(l, n);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, GPU_MAX_BLOCKS * sizeof(float));
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    return HCL_SUCCESS;
}

/* ---- CL (kernels/reduce/reduce.cl): one launch of a fixed number of groups; each writes a partial, the last to
 * finish (a ticket after the partials) folds them and resets the ticket to 0 ---- */
#define CL_PARTIALS_AT 4096

static hcl_status plan_cl(const hcl_kdevice *dev, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_kplan *out) {
    const int which = hcl_kplan_typed_kernel(out, HCL_KPROG_CL_REDUCE, op_base(op), type);
    if (which < 0) return HCL_ERROR_UNSUPPORTED;
    /* 8 groups per compute unit; 64 when the runtime does not say how many it has */
    size_t max_groups = dev->compute_units ? (size_t)dev->compute_units * 8 : 64;
    max_groups = hcl_min_size(hcl_min_size(max_groups, 1024), hcl_known_or(dev->max_groups[0], UINT32_MAX));
    /* the CPU form (runs of consecutive elements, small groups) on CPUs, the GPU form (vectors) elsewhere, unless
     * HCL_REDUCE_VARIANT forces one */
    const hcl_kvariant v = dev->variant[HCL_KOP_REDUCE];
    const int runs = v == HCL_KVARIANT_REDUCE_RUNS || (v == HCL_KVARIANT_AUTO && dev->is_cpu);
    size_t wg = hcl_pow2_floor((size_t)hcl_kgroup_max(dev, HCL_KPROG_CL_REDUCE, which, runs ? 16 : 256));
    while (wg > 1 && dev->local_mem && wg * sizeof(float) > dev->local_mem) wg /= 2;
    size_t groups = hcl_min_size(hcl_ceil_div(n, wg), max_groups);
    if (groups == 0) groups = 1;
    hcl_status st = hcl_kplan_init(out, 1);
    if (st != HCL_SUCCESS) return st;
    hcl_klaunch *l = &out->launch[0];
    hcl_klaunch_1d(l, HCL_KPROG_CL_REDUCE, which, groups, wg);
    l->shared_bytes = wg * sizeof(float);
    /* the ticket, then the partials at an offset that meets any device's sub-buffer alignment (NVIDIA: 512 bytes) */
    out->scratch_bytes = CL_PARTIALS_AT + max_groups * sizeof(float);
    out->scratch_zeroed = 1;
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, CL_PARTIALS_AT);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, n);
    /* the GPU form: coalesced, chunk 1 (float4 loads); the CPU form: one contiguous run per work-item */
    hcl_klaunch_u64(l, runs ? hcl_ceil_div(n, groups * wg) : 1);
    return HCL_SUCCESS;
}

hcl_status hcl_plan_reduce(const hcl_kdevice *dev, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_kplan *out) {
    const hcl_status st = hcl_kplan_begin(dev, HCL_KOP_REDUCE, out);
    if (st != HCL_SUCCESS) return st;
    if (dev->family == HCL_KFAMILY_CL) return plan_cl(dev, type, op, n, out);
    if (dev->family == HCL_KFAMILY_GPU) return plan_gpu(type, op, n, out, &out->launch[0]);
    if (dev->family == HCL_KFAMILY_VK) return hcl__plan_reduce_vk(dev, type, op, n, out);
    hcl_klaunch *l = &out->launch[0]; /* host (kernels/reduce/reduce.c): the whole call in one work-group */
    const int kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_HOST, "hcl_reduce", type);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_HOST, kernel, 1, 1);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, n);
    hcl_klaunch_u32(l, (uint32_t)op_index(op)); /* HCL__HOST_REDUCE_SUM/MAX/MIN */
    return HCL_SUCCESS;
}
