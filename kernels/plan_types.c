/* Which element types a device computes in and which the built-in GEMM runs on its matrix unit: the plans' decision,
 * made from the hardware facts the device's driver reports (hcl_plan.h: hcl_plan_device_types).
 *
 * A driver says what the hardware is: the backend, the architecture ("sm_90", "gfx90a"), the matrix unit the
 * backend can reach (tensor cores from sm_70, MFMA on gfx908/gfx90a/gfx94x, XMX where OpenCL has
 * cl_intel_subgroup_matrix_multiply_accumulate), half-precision support (has_fp16: cl_khr_fp16) and the sub-group
 * width. Everything type-specific is here, so a new element type changes this file and not the drivers. */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"

#include <stdio.h>
#include <string.h>

#define BIT(t) HCL_TYPE_BIT(HCL_DTYPE_##t)

/* "sm_90", "sm_90a": 90; 0 for another architecture name. */
static unsigned sm_level(const char *arch) {
    unsigned level = 0;
    return sscanf(arch, "sm_%u", &level) == 1 ? level : 0u;
}

/* CUDA: f16 arithmetic from sm_53, bf16 from sm_80. The tensor-core GEMMs (kernels/gemm/gemm_tc.cu) are built for
 * sm_80 and later, where the unit multiplies f16, bf16 and TF32; on sm_70/sm_75 no built-in uses it. */
static void cuda_types(hcl_device_info *info) {
    const unsigned sm = sm_level(info->arch);
    info->native_types = BIT(F32) | (sm >= 53 ? BIT(F16) : 0u) | (sm >= 80 ? BIT(BF16) : 0u);
    info->matrix_types =
        info->matrix_unit == HCL_MATRIX_UNIT_TENSOR_CORE && sm >= 80 ? BIT(F16) | BIT(BF16) | HCL_TYPE_BIT_TF32 : 0u;
}

/* HIP. AMD: every GPU does f16 arithmetic; bf16 instructions from gfx90a (CDNA2) and gfx94x. The MFMA GEMMs
 * (kernels/gemm/gemm_mfma.cu) take f16 and bf16 (bf16_1k) on gfx90a and gfx94x, f16 on gfx908 (its MFMA has no
 * bf16_1k); never TF32 (CDNA3's xf32 is another format). HIP's NVIDIA platform: f16, and bf16 from sm_80; no matrix
 * unit, since the HIP built-ins' matrix GEMM is MFMA's and the tensor-core GEMMs need what HIP has no call for (tensor
 * maps, opting in to shared memory). */
static void hip_types(hcl_device_info *info) {
    const unsigned sm = sm_level(info->arch);
    if (sm) {
        info->native_types = BIT(F32) | BIT(F16) | (sm >= 80 ? BIT(BF16) : 0u);
        info->matrix_unit = HCL_MATRIX_UNIT_NONE;
        info->matrix_types = 0u;
        return;
    }
    const int cdna2 = strncmp(info->arch, "gfx90a", 6) == 0 || strncmp(info->arch, "gfx94", 5) == 0;
    info->native_types = BIT(F32) | BIT(F16) | (cdna2 ? BIT(BF16) : 0u);
    info->matrix_types = info->matrix_unit != HCL_MATRIX_UNIT_MFMA ? 0u : cdna2 ? BIT(F16) | BIT(BF16) : BIT(F16);
}

/* OpenCL C: f16 arithmetic with cl_khr_fp16 (has_fp16); f16 storage works everywhere through vload_half, and no
 * OpenCL 1.2 device computes bf16. The XMX GEMM (kernels/gemm/gemm_xmx.cl) multiplies f16 and bf16 with sub-groups of
 * 8 or 16, the only sizes the extension defines; elsewhere the unit is not used. OpenCL C reaches no other matrix
 * unit (not NVIDIA's tensor cores), so TF32 is refused everywhere. */
static void opencl_types(hcl_device_info *info) {
    info->native_types = BIT(F32) | (info->has_fp16 ? BIT(F16) : 0u);
    if (info->matrix_unit == HCL_MATRIX_UNIT_XMX && (info->subgroup_size == 8 || info->subgroup_size == 16)) {
        info->matrix_types = BIT(F16) | BIT(BF16);
    } else {
        info->matrix_unit = HCL_MATRIX_UNIT_NONE;
        info->matrix_types = 0u;
    }
}

/* Level Zero: float arithmetic; the built-ins take f16 and bf16 buffers through the SPIR-V of the OpenCL C kernels,
 * which use no matrix unit (no XMX kernel in SPIR-V yet), so TF32 is refused. */
static void levelzero_types(hcl_device_info *info) {
    info->native_types = BIT(F32);
    info->matrix_unit = HCL_MATRIX_UNIT_NONE;
    info->matrix_types = 0u;
}

/* The host CPU: float32 arithmetic everywhere, f16 / bf16 arithmetic where the ISA has it (AVX512-FP16, AVX512-BF16;
 * F16C alone converts, it does not compute). The host built-ins widen 16-bit elements and compute in float32 whatever
 * the CPU has, and use no matrix unit (AMX is not used). */
static void host_types(hcl_device_info *info) {
    const unsigned cpu = hcl__host_cpu_features();
    info->native_types =
        BIT(F32) | (cpu & HCL__HOST_CPU_FP16 ? BIT(F16) : 0u) | (cpu & HCL__HOST_CPU_BF16 ? BIT(BF16) : 0u);
    info->matrix_unit = HCL_MATRIX_UNIT_NONE;
    info->matrix_types = 0u;
}

/* Vulkan: the built-ins compute in float32 (16-bit elements widened); the cooperative-matrix GEMM
 * (kernels/gemm/gemm_coop.comp) multiplies f16 and bf16 where the driver enabled VK_KHR_cooperative_matrix for them (it
 * writes matrix_unit TENSOR_CORE and those types), in a build that compiled the kernel (a glslang new enough:
 * kernels/CMakeLists.txt). There is no TF32 kernel, so TF32 is refused. */
static void vulkan_types(hcl_device_info *info) {
    info->native_types = BIT(F32);
#ifdef HCL_KERNELS_HAVE_VK_COOP
    info->matrix_types &= BIT(F16) | BIT(BF16);
#else
    info->matrix_types = 0u;
#endif
    if (info->matrix_unit != HCL_MATRIX_UNIT_TENSOR_CORE) info->matrix_types = 0u;
    if (!info->matrix_types) info->matrix_unit = HCL_MATRIX_UNIT_NONE;
}

void hcl_plan_device_types(hcl_device_info *info) {
    static const struct {
        const char *backend;
        void (*types)(hcl_device_info *);
    } rules[] = {{"cuda", cuda_types},           {"hip", hip_types},       {"opencl", opencl_types},
                 {"levelzero", levelzero_types}, {"vulkan", vulkan_types}, {"host", host_types}};
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strcmp(info->backend, rules[i].backend) == 0) rules[i].types(info);
    if (info->native_types == 0) info->native_types = BIT(F32); /* said nothing: every device computes in f32 */
}
