/* The catalogue of built-in programs: for each, its candidate sources as this build embedded them (kernels/
 * CMakeLists.txt says which: the CUDA fatbin and the HIP bundle only when nvcc / hipcc were found, the SPIR-V
 * only when the SPIR-V tools were), and its kernel names. */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"

#include <pthread.h>
#include <string.h>

/* The texts (always embedded) and the binaries (when kernels/CMakeLists.txt built them: HCL_KERNELS_HAVE_*). */
#define HCL_EMBEDDED(sym)                                                                                              \
    extern const unsigned char sym[];                                                                                  \
    extern const size_t sym##_size
HCL_EMBEDDED(hcl_kernels_gpu_text); /* every kernels/<op>/<op>.cu as one self-contained CUDA/HIP C text */
HCL_EMBEDDED(hcl_kernel_vecadd_cl);
HCL_EMBEDDED(hcl_kernel_gemm_cl);
HCL_EMBEDDED(hcl_kernel_gemm_xmx_cl);
HCL_EMBEDDED(hcl_kernel_softmax_cl);
HCL_EMBEDDED(hcl_kernel_reduce_cl);
#ifdef HCL_KERNELS_HAVE_FATBIN
HCL_EMBEDDED(hcl_kernels_cuda_fatbin); /* nvcc --fatbin of the text */
#define FATBIN hcl_kernels_cuda_fatbin, &hcl_kernels_cuda_fatbin_size
#else
#define FATBIN NULL, NULL
#endif
#ifdef HCL_KERNELS_HAVE_BUNDLE
HCL_EMBEDDED(hcl_kernels_hip_bundle); /* hipcc --genco of the text */
#define BUNDLE hcl_kernels_hip_bundle, &hcl_kernels_hip_bundle_size
#else
#define BUNDLE NULL, NULL
#endif
#ifdef HCL_KERNELS_HAVE_SPIRV
HCL_EMBEDDED(hcl_kernels_spv_vecadd);
HCL_EMBEDDED(hcl_kernels_spv_gemm16);
HCL_EMBEDDED(hcl_kernels_spv_gemm8);
HCL_EMBEDDED(hcl_kernels_spv_softmax);
HCL_EMBEDDED(hcl_kernels_spv_reduce);
#define SPIRV(name) hcl_kernels_spv_##name, &hcl_kernels_spv_##name##_size
#else
#define SPIRV(name) NULL, NULL
#endif

/* -cl-fast-relaxed-math is deliberately absent: it lets the compiler assume there is no infinity, and softmax and
 * reduce rely on -inf. */
#ifdef HCL_KERNELS_HAVE_VULKAN
HCL_EMBEDDED(hcl_kernels_vk_vk);   /* the f32 kernels of kernels/<op>/<op>.comp, one SPIR-V module */
HCL_EMBEDDED(hcl_kernels_vk_vk16); /* the f16 and bf16 ones */
#define VULKAN(name) hcl_kernels_vk_##name, &hcl_kernels_vk_##name##_size
#else
#define VULKAN(name) NULL, NULL
#endif
#ifdef HCL_KERNELS_HAVE_VK_COOP
HCL_EMBEDDED(hcl_kernels_vk_vk_coop); /* the f16 and bf16 gemm on cooperative matrices (kernels/gemm/gemm_coop.comp) */
#define VULKAN_COOP VULKAN(vk_coop)
#else
#define VULKAN_COOP NULL, NULL /* not built: no glslang new enough (kernels/CMakeLists.txt) */
#endif

#define CL_OPTIONS "-cl-std=CL1.2"

#define PROGRAM(fam, nm, from)                                                                                         \
    { .family = fam, .name = nm, .origin = from }
/* gemm_xmx.cl: f16 and bf16 only (f32 stays with gemm.cl), on devices with the extension */
#define CL_XMX_PROGRAM(nm, from)                                                                                       \
    {                                                                                                                  \
        .family = HCL_KFAMILY_CL, .name = nm, .origin = from,                                                          \
        .device_extension = "cl_intel_subgroup_matrix_multiply_accumulate"                                             \
    }

/* The programs; their sources and kernels are filled in once (fill_sources). */
static hcl_kprogram g_programs[HCL_KPROG_COUNT] = {
    [HCL_KPROG_GPU] = PROGRAM(HCL_KFAMILY_GPU, "gpu", "kernels/*/*.cu (with kernels/hcl_gpu_compat.h)"),
    [HCL_KPROG_CL_VECADD] = PROGRAM(HCL_KFAMILY_CL, "cl-vecadd", "kernels/vecadd/vecadd.cl"),
    [HCL_KPROG_CL_GEMM16] =
        PROGRAM(HCL_KFAMILY_CL, "cl-gemm16", "kernels/gemm/gemm.cl -DHCL_GEMM_WG=16 -DHCL_GEMM_PREFETCH=1"),
    [HCL_KPROG_CL_GEMM8] =
        PROGRAM(HCL_KFAMILY_CL, "cl-gemm8", "kernels/gemm/gemm.cl -DHCL_GEMM_WG=8 -DHCL_GEMM_PREFETCH=0"),
    [HCL_KPROG_CL_SOFTMAX] = PROGRAM(HCL_KFAMILY_CL, "cl-softmax", "kernels/softmax/softmax.cl"),
    [HCL_KPROG_CL_REDUCE] = PROGRAM(HCL_KFAMILY_CL, "cl-reduce", "kernels/reduce/reduce.cl"),
    [HCL_KPROG_CL_GEMM_XMX8] = CL_XMX_PROGRAM("cl-gemm-xmx8", "kernels/gemm/gemm_xmx.cl -DHCL_XMX_SG=8"),
    [HCL_KPROG_CL_GEMM_XMX16] = CL_XMX_PROGRAM("cl-gemm-xmx16", "kernels/gemm/gemm_xmx.cl -DHCL_XMX_SG=16"),
    [HCL_KPROG_HOST] = PROGRAM(HCL_KFAMILY_HOST, "host", "kernels/*/*.c"),
    [HCL_KPROG_VK] = PROGRAM(HCL_KFAMILY_VK, "vk", "kernels/*/*.comp -DHCL_F32"),
    [HCL_KPROG_VK16] = PROGRAM(HCL_KFAMILY_VK, "vk16", "kernels/*/*.comp -DHCL_F16, -DHCL_BF16"),
    [HCL_KPROG_VK_COOP] = PROGRAM(HCL_KFAMILY_VK, "vk-coop", "kernels/gemm/gemm_coop.comp (f16, bf16)"),
};

/* The kernel names, made from the type list (hcl_dtypes.def) where they are typed: every op takes every type, a
 * 16-bit type also the GEMMs whose C is f32 (and, with the extension, the XMX ones). The GPU program's are
 * kernels/gpu_kernels.def and gpu_kernels_tc.def (the matrix-unit GEMMs); the host program's the names in its table. */
static const char *const gpu_kernels[] = {
#define HCL_GPU_KERNEL(name) #name,
#define HCL_GPU_KERNEL_NT(base) #base "_nn", #base "_nt", #base "_tn", #base "_tt",
#include "gpu_kernels.def"
#include "gpu_kernels_tc.def"
#undef HCL_GPU_KERNEL_NT
#undef HCL_GPU_KERNEL
    NULL};
#define CL_NT(t) "hcl_gemm_nn_" t, "hcl_gemm_nt_" t, "hcl_gemm_tn_" t, "hcl_gemm_tt_" t,
/* the few-rows kernels: a CPU's in the program of 8 x 8 work-groups (rows), a GPU's in that of 16 x 16 (rowsk) */
#define CL_ROWS(r, t) "hcl_gemm_" r "4_n_" t, "hcl_gemm_" r "4_t_" t, "hcl_gemm_" r "16_n_" t, "hcl_gemm_" r "16_t_" t,
#define CL_GEMM16_4(t) CL_NT(#t) CL_ROWS("rowsk", #t)
#define CL_GEMM16_2(t)                                                                                                 \
    CL_NT(#t)                                                                                                          \
    CL_NT(#t "_f32")                                                                                                   \
    CL_ROWS("rowsk", #t) CL_ROWS("rowsk", #t "_f32") "hcl_gemm_rowsk4w_n_" #t, "hcl_gemm_rowsk4w_n_" #t "_f32",
#define CL_GEMM8_4(t) CL_NT(#t) CL_ROWS("rows", #t)
#define CL_GEMM8_2(t) CL_NT(#t) CL_NT(#t "_f32") CL_ROWS("rows", #t) CL_ROWS("rows", #t "_f32")
#define CL_XMX_4(t)
#define CL_XMX_2(t) CL_NT(#t) CL_NT(#t "_f32")
static const char *const cl_vecadd[] = {
#define HCL_DTYPE(id, t, bytes) "hcl_vecadd_" #t,
#include "hcl_dtypes.def"
#undef HCL_DTYPE
    NULL};
static const char *const cl_gemm16[] = {
#define HCL_DTYPE(id, t, bytes) CL_GEMM16_##bytes(t)
#include "hcl_dtypes.def"
#undef HCL_DTYPE
    NULL};
static const char *const cl_gemm8[] = {
#define HCL_DTYPE(id, t, bytes) CL_GEMM8_##bytes(t)
#include "hcl_dtypes.def"
#undef HCL_DTYPE
    NULL};
static const char *const cl_gemm_xmx[] = {
#define HCL_DTYPE(id, t, bytes) CL_XMX_##bytes(t)
#include "hcl_dtypes.def"
#undef HCL_DTYPE
    NULL};
static const char *const cl_softmax[] = {
#define HCL_DTYPE(id, t, bytes)                                                                                        \
    "hcl_softmax_" #t, "hcl_softmax_cached_" #t, "hcl_softmax_cached64_" #t, "hcl_softmax_parts_" #t,                  \
        "hcl_softmax_rows_" #t, "hcl_softmax_rows8_" #t,
#include "hcl_dtypes.def"
#undef HCL_DTYPE
    NULL};
static const char *const cl_reduce[] = {
#define HCL_DTYPE(id, t, bytes) "hcl_reduce_sum_" #t, "hcl_reduce_max_" #t, "hcl_reduce_min_" #t,
#include "hcl_dtypes.def"
#undef HCL_DTYPE
    NULL};
/* the entry points kernels/CMakeLists.txt gives the Vulkan modules; the gemv kernels' for one type and C suffix */
#define VK_GEMV(t, c)                                                                                                  \
    "hcl_gemm_gemv_n1_" t c, "hcl_gemm_gemv_t1_" t c, "hcl_gemm_gemv_n2_" t c, "hcl_gemm_gemv_t2_" t c,                \
        "hcl_gemm_gemv_n4_" t c, "hcl_gemm_gemv_t4_" t c, "hcl_gemm_gemv_n8_" t c, "hcl_gemm_gemv_t8_" t c,            \
        "hcl_gemm_gemv_n16_" t c, "hcl_gemm_gemv_t16_" t c,
static const char *const vk_kernels[] = {"hcl_vecadd_f32",           "hcl_gemm_f32",
                                         "hcl_gemm_128x64_f32",      "hcl_gemm_128_f32",
                                         "hcl_gemm_dot_f32",         "hcl_gemm_splitk_rows_f32",
                                         "hcl_gemm_splitk_cols_f32", "hcl_gemm_splitk_tile_f32",
                                         "hcl_softmax_f32",          "hcl_softmax_rows_f32",
                                         "hcl_softmax_parts_f32",    "hcl_reduce_sum_f32",
                                         "hcl_reduce_max_f32",       "hcl_reduce_min_f32",
                                         VK_GEMV("f32", "") NULL};
static const char *const vk16_kernels[] = {
#define VK16(t)                                                                                                        \
    "hcl_vecadd_" t, "hcl_gemm_" t, "hcl_gemm_" t "_f32", "hcl_gemm_128x64_" t, "hcl_gemm_128x64_" t "_f32",           \
        "hcl_gemm_128_" t, "hcl_gemm_128_" t "_f32", "hcl_gemm_dot_" t, "hcl_gemm_dot_" t "_f32", "hcl_softmax_" t,    \
        "hcl_gemm_splitk_rows_" t, "hcl_gemm_splitk_rows_" t "_f32", "hcl_gemm_splitk_cols_" t,                        \
        "hcl_gemm_splitk_cols_" t "_f32", "hcl_gemm_splitk_tile_" t, "hcl_gemm_splitk_tile_" t "_f32",                 \
        "hcl_softmax_rows_" t, "hcl_softmax_parts_" t, "hcl_reduce_sum_" t, "hcl_reduce_max_" t, "hcl_reduce_min_" t,  \
        VK_GEMV(t, "") VK_GEMV(t, "_f32")
    VK16("f16") VK16("bf16")
#undef VK16
#undef VK_GEMV
        NULL};
/* hcl_gemm_coop[64]_<ab>_<t>[_f32]: a kernel per transposition ab */
#define VK_COOP_AB(ab, t)                                                                                              \
    "hcl_gemm_coop_" ab "_" t, "hcl_gemm_coop_" ab "_" t "_f32", "hcl_gemm_coop64_" ab "_" t,                          \
        "hcl_gemm_coop64_" ab "_" t "_f32",
#define VK_COOP(t) VK_COOP_AB("nn", t) VK_COOP_AB("tn", t) VK_COOP_AB("nt", t) VK_COOP_AB("tt", t)
static const char *const vk_coop_kernels[] = {VK_COOP("f16") VK_COOP("bf16") NULL};
#undef VK_COOP
#undef VK_COOP_AB
static const char *const *const g_kernel_names[HCL_KPROG_COUNT] = {
    [HCL_KPROG_VK] = vk_kernels,
    [HCL_KPROG_VK16] = vk16_kernels,
    [HCL_KPROG_VK_COOP] = vk_coop_kernels,
    [HCL_KPROG_GPU] = gpu_kernels,
    [HCL_KPROG_CL_VECADD] = cl_vecadd,
    [HCL_KPROG_CL_GEMM16] = cl_gemm16,
    [HCL_KPROG_CL_GEMM8] = cl_gemm8,
    [HCL_KPROG_CL_SOFTMAX] = cl_softmax,
    [HCL_KPROG_CL_REDUCE] = cl_reduce,
    [HCL_KPROG_CL_GEMM_XMX8] = cl_gemm_xmx,
    [HCL_KPROG_CL_GEMM_XMX16] = cl_gemm_xmx,
};
_Static_assert(sizeof gpu_kernels / sizeof gpu_kernels[0] - 1 <= HCL_KPROG_MAX_KERNELS,
               "the GPU program has more kernels than HCL_KPROG_MAX_KERNELS (hcl_plan.h)");

static void add(hcl_kprog prog, hcl_source_kind kind, const unsigned char *data, const size_t *size,
                const char *options) {
    hcl_kprogram *p = &g_programs[prog];
    if (data && size && p->num_sources < HCL_KPROG_MAX_SOURCES)
        p->sources[p->num_sources++] = (hcl_module_source){kind, data, *size, options};
}

/* Binaries before the texts they were built from: a binary that does not load on a device (no code for its
 * architecture, a driver too old for it) falls back to compiling the text there. */
static void fill_sources(void) {
    for (int p = 0; p < HCL_KPROG_COUNT; p++)
        for (const char *const *name = g_kernel_names[p];
             name && *name && g_programs[p].num_kernels < HCL_KPROG_MAX_KERNELS; name++)
            g_programs[p].kernels[g_programs[p].num_kernels++] = *name;
    for (size_t i = 0; i < hcl__host_table_count && i < HCL_KPROG_MAX_KERNELS; i++)
        g_programs[HCL_KPROG_HOST].kernels[g_programs[HCL_KPROG_HOST].num_kernels++] = hcl__host_table[i].name;
    add(HCL_KPROG_GPU, HCL_SOURCE_CUDA_BINARY, FATBIN, NULL);
    add(HCL_KPROG_GPU, HCL_SOURCE_CUDA_C, hcl_kernels_gpu_text, &hcl_kernels_gpu_text_size, NULL);
    add(HCL_KPROG_GPU, HCL_SOURCE_HIP_BINARY, BUNDLE, NULL);
    add(HCL_KPROG_GPU, HCL_SOURCE_HIP_C, hcl_kernels_gpu_text, &hcl_kernels_gpu_text_size, NULL);
    static const struct {
        hcl_kprog prog;
        const unsigned char *text;
        const size_t *text_size;
        const unsigned char *spirv;
        const size_t *spirv_size;
        const char *options;
    } cl[] = {
        {HCL_KPROG_CL_VECADD, hcl_kernel_vecadd_cl, &hcl_kernel_vecadd_cl_size, SPIRV(vecadd), CL_OPTIONS},
        {HCL_KPROG_CL_GEMM16, hcl_kernel_gemm_cl, &hcl_kernel_gemm_cl_size, SPIRV(gemm16),
         CL_OPTIONS " -DHCL_GEMM_WG=16 -DHCL_GEMM_PREFETCH=1"},
        {HCL_KPROG_CL_GEMM8, hcl_kernel_gemm_cl, &hcl_kernel_gemm_cl_size, SPIRV(gemm8),
         CL_OPTIONS " -DHCL_GEMM_WG=8 -DHCL_GEMM_PREFETCH=0"},
        {HCL_KPROG_CL_SOFTMAX, hcl_kernel_softmax_cl, &hcl_kernel_softmax_cl_size, SPIRV(softmax), CL_OPTIONS},
        {HCL_KPROG_CL_REDUCE, hcl_kernel_reduce_cl, &hcl_kernel_reduce_cl_size, SPIRV(reduce), CL_OPTIONS},
        /* no SPIR-V: Level Zero reports no matrix unit yet (docs/backends.md) */
        {HCL_KPROG_CL_GEMM_XMX8, hcl_kernel_gemm_xmx_cl, &hcl_kernel_gemm_xmx_cl_size, NULL, NULL,
         CL_OPTIONS " -DHCL_XMX_SG=8"},
        {HCL_KPROG_CL_GEMM_XMX16, hcl_kernel_gemm_xmx_cl, &hcl_kernel_gemm_xmx_cl_size, NULL, NULL,
         CL_OPTIONS " -DHCL_XMX_SG=16"},
    };
    for (size_t i = 0; i < sizeof cl / sizeof cl[0]; i++) {
        add(cl[i].prog, HCL_SOURCE_OPENCL_C, cl[i].text, cl[i].text_size, cl[i].options);
        add(cl[i].prog, HCL_SOURCE_SPIRV, cl[i].spirv, cl[i].spirv_size, NULL);
    }
    add(HCL_KPROG_VK, HCL_SOURCE_SPIRV_VULKAN, VULKAN(vk), NULL);
    add(HCL_KPROG_VK16, HCL_SOURCE_SPIRV_VULKAN, VULKAN(vk16), NULL);
    add(HCL_KPROG_VK_COOP, HCL_SOURCE_SPIRV_VULKAN, VULKAN_COOP, NULL);
    add(HCL_KPROG_HOST, HCL_SOURCE_HOST_TABLE, (const unsigned char *)hcl__host_table, &hcl__host_table_count, NULL);
}

const hcl_kprogram *hcl_kprogram_get(hcl_kprog prog) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, fill_sources);
    return prog >= 0 && prog < HCL_KPROG_COUNT ? &g_programs[prog] : NULL;
}

int hcl_kprogram_kernel(hcl_kprog prog, const char *name) {
    const hcl_kprogram *p = hcl_kprogram_get(prog);
    for (uint32_t i = 0; p && i < p->num_kernels; i++)
        if (strcmp(p->kernels[i], name) == 0) return (int)i;
    return -1;
}
