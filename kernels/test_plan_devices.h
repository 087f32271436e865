/* The devices and shapes the plan tests (test_plan_gpu.c, test_plan_variants.c, test_plan_xmx.c) plan for without a
 * device, and the PoCL tests (test_gemm_xmx.c, test_spirv_roundtrip.c) run their plans for: hcl_kdevice values as the
 * core would describe an H100 / H200 (sm_90), an sm_80 part, AMD GPUs, NVIDIA's OpenCL on the H100, PoCL on a CPU and
 * OpenCL GPUs with or without Intel's matrix unit, Vulkan's GPU (the H200 on NVIDIA's driver) and CPU (lavapipe). Static functions: each test program takes what it uses. */
#ifndef HCL_TEST_PLAN_DEVICES_H
#define HCL_TEST_PLAN_DEVICES_H

#include "hcl_plan.h"

#include <string.h>

/* An NVIDIA GPU of compute capability `arch` (90: the H100 / H200) with tensor cores, as the CUDA driver reports it. */
static inline hcl_kdevice hcl_test_gpu(uint32_t arch) {
    hcl_kdevice d;
    memset(&d, 0, sizeof d);
    d.family = HCL_KFAMILY_GPU;
    d.compute_units = 132;
    d.subgroup_width = 32;
    d.max_group_size = 1024;
    d.local_mem = 232448; /* H100: 227 KiB a block after opting in */
    d.max_groups[0] = 2147483647u;
    d.max_groups[1] = d.max_groups[2] = 65535;
    d.arch_level = arch;
    d.matrix_unit = HCL_MATRIX_UNIT_TENSOR_CORE;
    d.matrix_types = HCL_TYPE_BIT(HCL_DTYPE_F16) | HCL_TYPE_BIT(HCL_DTYPE_BF16) | HCL_TYPE_BIT_TF32;
    return d;
}

/* An AMD GPU as the HIP driver describes it (drivers/hip/driver.c): 64-lane wavefronts, 64 KiB of LDS, MFMA with the
 * matrix types of its target ("gfx90a", "gfx940": f16 and bf16; "gfx908": f16; others none). */
static inline hcl_kdevice hcl_test_amd(const char *target) {
    hcl_kdevice d = hcl_test_gpu(0);
    const int cdna2 = strcmp(target, "gfx90a") == 0 || strncmp(target, "gfx94", 5) == 0;
    d.compute_units = cdna2 ? 104 : 120;
    d.subgroup_width = strncmp(target, "gfx1", 4) == 0 ? 32 : 64;
    d.local_mem = 65536;
    d.max_groups[1] = d.max_groups[2] = 2147483647u; /* HIP reports the grid limits of each dimension as INT_MAX */
    d.matrix_unit = cdna2 || strcmp(target, "gfx908") == 0 ? HCL_MATRIX_UNIT_MFMA : HCL_MATRIX_UNIT_NONE;
    d.matrix_types = cdna2 ? HCL_TYPE_BIT(HCL_DTYPE_F16) | HCL_TYPE_BIT(HCL_DTYPE_BF16)
                     : d.matrix_unit == HCL_MATRIX_UNIT_MFMA ? HCL_TYPE_BIT(HCL_DTYPE_F16)
                                                             : 0u;
    return d;
}

/* NVIDIA's OpenCL reports 256 work-items for the built-in kernels (CL_KERNEL_WORK_GROUP_SIZE). */
static inline uint64_t hcl_test_cl_kernel_max_group(const hcl_kdevice *dev, hcl_kprog prog, int kernel) {
    (void)dev, (void)prog, (void)kernel;
    return 256;
}

/* An OpenCL GPU like the H100 through NVIDIA's OpenCL (132 compute units, groups of up to 256 for every kernel). */
static inline hcl_kdevice hcl_test_cl_gpu(void) {
    hcl_kdevice d = hcl_test_gpu(0);
    d.family = HCL_KFAMILY_CL;
    d.local_mem = 49152;
    d.max_groups[0] = d.max_groups[1] = d.max_groups[2] = 4294967295u;
    d.matrix_unit = HCL_MATRIX_UNIT_NONE;
    d.matrix_types = 0;
    d.kernel_max_group = hcl_test_cl_kernel_max_group;
    return d;
}

/* PoCL 3.1 on a 2-core CPU: groups of up to 4096, 4 MiB of local memory, no sub-groups. */
static inline hcl_kdevice hcl_test_pocl(void) {
    hcl_kdevice d = hcl_test_cl_gpu();
    d.is_cpu = 1;
    d.compute_units = 2;
    d.subgroup_width = 0;
    d.max_group_size = 4096;
    d.local_mem = 4194304;
    d.kernel_max_group = NULL; /* unknown: the device's limit */
    return d;
}

/* An OpenCL GPU with sub-groups of `sg` and `cus` compute units, groups of up to 1024 and 64 KiB of local memory, f32
 * and f16 native: with xmx, Intel's matrix unit for f16 and bf16 (as drivers/opencl/driver.c reports a device with
 * cl_intel_subgroup_matrix_multiply_accumulate), else no matrix unit. */
static inline hcl_kdevice hcl_test_cl_subgroup_gpu(int xmx, uint32_t sg, uint32_t cus) {
    hcl_kdevice d;
    memset(&d, 0, sizeof d);
    d.family = HCL_KFAMILY_CL;
    d.compute_units = cus;
    d.subgroup_width = sg;
    d.max_group_size = 1024;
    d.local_mem = 65536;
    d.native_types = HCL_TYPE_BIT(HCL_DTYPE_F32) | HCL_TYPE_BIT(HCL_DTYPE_F16);
    d.matrix_unit = xmx ? HCL_MATRIX_UNIT_XMX : HCL_MATRIX_UNIT_NONE;
    d.matrix_types = xmx ? HCL_TYPE_BIT(HCL_DTYPE_F16) | HCL_TYPE_BIT(HCL_DTYPE_BF16) : 0;
    return d;
}

/* A Vulkan device as drivers/vulkan/driver.c reports it: the H200 on NVIDIA's driver (132 SMs, sub-groups of 32), or
 * with `cpu` lavapipe on 2 cores (sub-group width 1, as a CPU device reports it); groups of up to 1024, 65535 groups
 * a dimension. */
static inline hcl_kdevice hcl_test_vk(int cpu) {
    hcl_kdevice d;
    memset(&d, 0, sizeof d);
    d.family = HCL_KFAMILY_VK;
    d.is_cpu = cpu;
    d.compute_units = cpu ? 2 : 132;
    d.subgroup_width = cpu ? 1 : 32;
    d.max_group_size = 1024;
    d.local_mem = cpu ? 32768 : 49152;
    d.max_groups[0] = d.max_groups[1] = d.max_groups[2] = 65535;
    return d;
}

/* A gemm call: A m x k (k x m when ta), B k x n (n x k when tb), rows padded by `pad`, C = A B. */
static inline hcl_kgemm hcl_test_gemm(hcl_dtype ab, hcl_dtype c, hcl_compute compute, int ta, int tb, size_t m,
                                      size_t n, size_t k, size_t pad) {
    hcl_kgemm g;
    memset(&g, 0, sizeof g);
    g.trans_a = ta ? HCL_TRANS : HCL_NO_TRANS;
    g.trans_b = tb ? HCL_TRANS : HCL_NO_TRANS;
    g.m = m, g.n = n, g.k = k;
    g.alpha = 1.0f, g.beta = 0.0f;
    g.lda = (ta ? m : k) + pad, g.ldb = (tb ? k : n) + pad, g.ldc = n + pad;
    g.ab_type = ab, g.c_type = c, g.compute = compute;
    return g;
}

/* C = alpha A B + beta C in float32, rows padded by `pad` (hcl_test_gemm), a leading dimension of 0 (k = 0 without
 * padding) made 1, as BLAS requires: the calls the PoCL tests run. */
static inline hcl_kgemm hcl_test_gemm_run(hcl_dtype ab, hcl_dtype c, int ta, int tb, size_t m, size_t n, size_t k,
                                          float alpha, float beta, size_t pad) {
    hcl_kgemm g = hcl_test_gemm(ab, c, HCL_COMPUTE_F32, ta, tb, m, n, k, pad);
    g.alpha = alpha, g.beta = beta;
    if (g.lda == 0) g.lda = 1;
    if (g.ldb == 0) g.ldb = 1;
    return g;
}

/* The name of the kernel a launch runs. */
static inline const char *hcl_test_kernel_name(const hcl_klaunch *l) {
    return hcl_kprogram_get(l->prog)->kernels[l->kernel];
}

#endif /* HCL_TEST_PLAN_DEVICES_H */
