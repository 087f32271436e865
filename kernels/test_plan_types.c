/* kernels-plan-types: the types each backend's devices compute in and multiply on their matrix unit
 * (hcl_plan_device_types, kernels/plan_types.c) from the hardware facts a driver reports, for architectures no
 * machine here has (AMD CDNA and RDNA, Intel XMX, NVIDIA before sm_80): the table of what the drivers decided
 * before the decision moved out of them. Checked without a device. Exit status: 0 when every check passed, 1
 * otherwise (each failure printed). */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"
#include "hcl_testsupport.h"

#include <stdio.h>
#include <string.h>

#define F32 HCL_TYPE_BIT(HCL_DTYPE_F32)
#define F16 HCL_TYPE_BIT(HCL_DTYPE_F16)
#define BF16 HCL_TYPE_BIT(HCL_DTYPE_BF16)
#define TF32 HCL_TYPE_BIT_TF32
#define NONE HCL_MATRIX_UNIT_NONE
#define TC HCL_MATRIX_UNIT_TENSOR_CORE
#define MFMA HCL_MATRIX_UNIT_MFMA
#define XMX HCL_MATRIX_UNIT_XMX

int main(void) {
    const unsigned cpu = hcl__host_cpu_features();
    const uint32_t host = F32 | (cpu & HCL__HOST_CPU_FP16 ? F16 : 0u) | (cpu & HCL__HOST_CPU_BF16 ? BF16 : 0u);
    static const uint32_t poison = 0xdead0000u; /* what an out-of-tree driver wrote */
    const struct {
        const char *backend, *arch;
        hcl_matrix_unit unit; /* as the driver reports it */
        uint32_t has_fp16, subgroup;
        uint32_t native, matrix; /* expected */
        hcl_matrix_unit used;    /* expected matrix_unit */
    } cases[] = {
        {"cuda", "sm_52", NONE, 0, 32, F32, 0, NONE},
        {"cuda", "sm_61", NONE, 0, 32, F32 | F16, 0, NONE},
        {"cuda", "sm_75", TC, 0, 32, F32 | F16, 0, TC}, /* tensor cores, no built-in GEMM for them before sm_80 */
        {"cuda", "sm_80", TC, 0, 32, F32 | F16 | BF16, F16 | BF16 | TF32, TC},
        {"cuda", "sm_90", TC, 0, 32, F32 | F16 | BF16, F16 | BF16 | TF32, TC},
        {"hip", "gfx908", MFMA, 0, 64, F32 | F16, F16, MFMA},
        {"hip", "gfx90a", MFMA, 0, 64, F32 | F16 | BF16, F16 | BF16, MFMA},
        {"hip", "gfx942", MFMA, 0, 64, F32 | F16 | BF16, F16 | BF16, MFMA},
        {"hip", "gfx1100", NONE, 0, 32, F32 | F16, 0, NONE},
        {"hip", "sm_75", TC, 0, 32, F32 | F16, 0, NONE}, /* HIP's NVIDIA platform: no matrix unit used */
        {"hip", "sm_90", TC, 0, 32, F32 | F16 | BF16, 0, NONE},
        {"opencl", "", NONE, 0, 8, F32, 0, NONE},
        {"opencl", "sm_90", NONE, 1, 32, F32 | F16, 0, NONE}, /* OpenCL C on an NVIDIA GPU: no bf16 arithmetic */
        {"opencl", "", XMX, 1, 8, F32 | F16, F16 | BF16, XMX},
        {"opencl", "", XMX, 1, 16, F32 | F16, F16 | BF16, XMX},
        {"opencl", "", XMX, 1, 32, F32 | F16, 0, NONE}, /* the extension defines sub-groups of 8 and 16 only */
        {"levelzero", "", NONE, 1, 16, F32, 0, NONE},
        {"host", "x86-64", NONE, 0, 1, host, 0, NONE},
        {"testdriver", "sm_90", TC, 0, 32, poison, poison, TC}, /* a backend the plans do not know: as written */
        {"wrapped", "x86-64", NONE, 0, 1, F32, 0, NONE},        /* ... and f32 where it wrote no native type */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcl_device_info info;
        memset(&info, 0, sizeof info);
        snprintf(info.backend, sizeof info.backend, "%s", cases[i].backend);
        snprintf(info.arch, sizeof info.arch, "%s", cases[i].arch);
        info.matrix_unit = cases[i].unit;
        info.has_fp16 = cases[i].has_fp16;
        info.subgroup_size = cases[i].subgroup;
        info.native_types = info.matrix_types = strcmp(cases[i].backend, "wrapped") == 0 ? 0u : poison;
        hcl_plan_device_types(&info);
        HCL_TS_CHECK(
            info.native_types == cases[i].native && info.matrix_types == cases[i].matrix &&
                info.matrix_unit == cases[i].used,
            "%s %s (unit %d, fp16 %u, sub-group %u): native 0x%x, matrix 0x%x, unit %d; expected 0x%x, 0x%x, %d",
            cases[i].backend, cases[i].arch, (int)cases[i].unit, cases[i].has_fp16, cases[i].subgroup,
            info.native_types, info.matrix_types, (int)info.matrix_unit, cases[i].native, cases[i].matrix,
            (int)cases[i].used);
    }
    printf("host CPU: native types 0x%x\n%s: %d of %d checks failed\n", host, hcl_ts_failures() ? "FAIL" : "PASS",
           hcl_ts_failures(), hcl_ts_checks());
    return hcl_ts_failures() ? 1 : 0;
}
