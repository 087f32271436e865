/* CI test of the HIP driver's hiprtc path, on a machine without an AMD GPU (ctest: hip-hiprtc-compile). hiprtc is
 * a compiler: it needs the HIP runtime library (ROCm 5: hiprtc lives in libamdhip64; ROCm 6+: libhiprtc) but no
 * GPU. Exits 77 (skipped) only when no hiprtc can be loaded, and says why.
 *
 * Links the driver's own run-time compiler code (drivers/cudahip/rtc.c and sources.c, built with HCL_GPU_HIP) and
 * the embedded kernel sources, then:
 *  1. compiles each built-in kernel alone (its .hip, which includes the CUDA source, with the CUDA/HIP name map)
 *     to a gfx90a code object and checks it is an AMDGPU ELF with a kernel descriptor per entry point;
 *  2. compiles the built-ins program the way the driver does when the bundle has no code object for the GPU
 *     (builtins.hip with the kernels as headers) for a full target ID as the runtime reports it
 *     ("gfx90a:sramecc+:xnack-", wave64) and for gfx1030 (wave32), checking the wavefront size in the metadata;
 *  3. compiles a user kernel for gfx90a, then again through the driver's disk-cache hook (must hit);
 *  4. checks that a broken kernel gives HCL_ERROR_BUILD with hiprtc's log in the message.
 * (Not asked: a target this hiprtc does not know. ROCm 5.2's crashes in libamd_comgr when given gfx942; the driver
 * only ever asks for the target of a GPU the same ROCm enumerated.)
 * Prints the time of each compile; exits non-zero on any failure. */
#define _POSIX_C_SOURCE 200809L
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rtc.h"

/* ---- the embedded sources (drivers/hip/CMakeLists.txt) ---- */
extern const unsigned char hcl_gpu_src_compat[], hcl_gpu_src_vecadd[], hcl_gpu_src_gemm[], hcl_gpu_src_softmax[],
    hcl_gpu_src_reduce[], hcl_gpu_src_fill[], hcl_gpu_src_vecadd_hip[], hcl_gpu_src_gemm_hip[],
    hcl_gpu_src_softmax_hip[], hcl_gpu_src_reduce_hip[];
extern const size_t hcl_gpu_src_fill_size, hcl_gpu_src_vecadd_hip_size, hcl_gpu_src_gemm_hip_size,
    hcl_gpu_src_softmax_hip_size, hcl_gpu_src_reduce_hip_size;

static const unsigned char *find(const unsigned char *hay, size_t hay_size, const void *needle, size_t size) {
    for (size_t i = 0; i + size <= hay_size; i++)
        if (memcmp(hay + i, needle, size) == 0) return hay + i;
    return NULL;
}

/* Every ".wavefront_size" of the code object's metadata (a msgpack fixstr key, then a positive fixint) equals
 * `want`; returns how many kernels were seen, or -1 on a mismatch. */
static int wave_sizes(const unsigned char *obj, size_t size, unsigned want) {
    static const char key[] = "\xaf.wavefront_size";
    int n = 0;
    for (size_t off = 0;;) {
        const unsigned char *hit = find(obj + off, size - off, key, sizeof key - 1);
        if (!hit || hit + sizeof key - 1 >= obj + size) return n;
        if (hit[sizeof key - 1] != want) return -1;
        n++;
        off = (size_t)(hit - obj) + sizeof key;
    }
}

/* Compile; check the result is an AMDGPU code object with a descriptor for each entry point and, when wave is not
 * 0, that every kernel has that wavefront size. */
static int compile(const char *label, const hcl__gpu_rtc_job *job, const char *const *entries, unsigned wave) {
    size_t size = 0;
    int is_binary = -1;
    double ms = 0;
    void *image = compile_timed(label, job, &size, &is_binary, &ms);
    if (!image) return 0;
    const unsigned char *obj = image;
    int ok = 1;
    uint16_t machine = 0;
    if (size >= 64) memcpy(&machine, obj + 18, 2);
    if (!is_binary || size < 64 || memcmp(obj, "\177ELF", 4) != 0 || machine != 224) {
        printf("FAIL %-48s not an AMDGPU ELF code object (%zu bytes)\n", label, size);
        ok = 0;
    }
    for (int i = 0; ok && entries && entries[i]; i++) {
        char sym[96];
        int n = snprintf(sym, sizeof sym, "%s.kd", entries[i]);
        if (!find(obj, size, sym, (size_t)n + 1)) {
            printf("FAIL %-48s no kernel descriptor %s\n", label, sym);
            ok = 0;
        }
    }
    int kernels = ok && wave ? wave_sizes(obj, size, wave) : 0;
    if (ok && wave && kernels <= 0) {
        printf("FAIL %-48s not every kernel is wave%u\n", label, wave);
        ok = 0;
    }
    if (ok) {
        char extra[48] = "";
        if (wave) snprintf(extra, sizeof extra, ", %d kernels wave%u", kernels, wave);
        printf("ok   %-48s %8.1f ms  %7zu-byte code object%s\n", label, ms, size, extra);
    } else {
        g_failures++;
    }
    free(image);
    return ok;
}

static int compile_wave64(const char *label, const hcl__gpu_rtc_job *job, const char *const *entries) {
    return compile(label, job, entries, 64);
}

int main(void) {
    if (test_rtc_open() != HCL_SUCCESS) {
        printf("skip: hiprtc could not be loaded: %s\n", g_message);
        return 77;
    }
    printf("%s\n", hcl__gpu_rtc_version());

    const struct {
        const char *name;
        const unsigned char *src;
        size_t size;
        const unsigned char *cuda_src; /* the .cu the .hip includes (NULL for fill.cu) */
        const char *cuda_name;
        const char *const *entries;
    } kernels[] = {
        {"vecadd.hip", hcl_gpu_src_vecadd_hip, hcl_gpu_src_vecadd_hip_size, hcl_gpu_src_vecadd, "vecadd/vecadd.cu",
         g_vecadd_entries},
        {"gemm.hip", hcl_gpu_src_gemm_hip, hcl_gpu_src_gemm_hip_size, hcl_gpu_src_gemm, "gemm/gemm.cu", g_gemm_entries},
        {"softmax.hip", hcl_gpu_src_softmax_hip, hcl_gpu_src_softmax_hip_size, hcl_gpu_src_softmax,
         "softmax/softmax.cu", g_softmax_entries},
        {"reduce.hip", hcl_gpu_src_reduce_hip, hcl_gpu_src_reduce_hip_size, hcl_gpu_src_reduce, "reduce/reduce.cu",
         g_reduce_entries},
        {"fill.cu", hcl_gpu_src_fill, hcl_gpu_src_fill_size, NULL, NULL, g_fill_entries},
    };

    /* 1. each kernel alone, with the name map (and the CUDA source a .hip includes) as headers */
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        const char *headers[2] = {(const char *)hcl_gpu_src_compat, (const char *)kernels[i].cuda_src};
        const char *names[2] = {"hcl_gpu_compat.h", kernels[i].cuda_name};
        hcl__gpu_rtc_job job = {.source = (const char *)kernels[i].src, .source_size = kernels[i].size,
                                .name = kernels[i].name, .num_headers = kernels[i].cuda_src ? 2 : 1,
                                .headers = headers, .include_names = names, .arch = "gfx90a"};
        char label[96];
        snprintf(label, sizeof label, "%s -> gfx90a", kernels[i].name);
        compile(label, &job, kernels[i].entries, 64);
    }

    /* 2. the built-ins program as the driver builds it without a usable bundle */
    static const char *const all_entries[] = {"hcl_vecadd_f32", "hcl_gemm_f32_128_nn", "hcl_gemm_f32_64_tt",
                                              "hcl_gemm_scale_f32", "hcl_softmax_warp32_f32",
                                              "hcl_softmax_block_staged_f32", "hcl_softmax_block_f32",
                                              "hcl_reduce_sum_f32", "hcl_reduce_min_f32", "hcl_fill_u64", NULL};
    hcl__gpu_rtc_job all;
    hcl__gpu_builtins_job(&all);
    all.driver_version = 50221153;
    all.arch = "gfx90a:sramecc+:xnack-";
    compile("builtins.hip -> gfx90a:sramecc+:xnack- (MI200)", &all, all_entries, 64);
    all.arch = "gfx1030";
    compile("builtins.hip -> gfx1030 (RDNA2, wave32)", &all, all_entries, 32);

    /* 3. a user kernel, then the same again from the cache; 4. a build error */
    hcl__gpu_rtc_job user = {.options = "-DUNUSED=1", .arch = "gfx90a", .driver_version = 50221153};
    test_user_and_broken(compile_wave64, user, "hip", "gfx90a", "HIPRTC_ERROR_COMPILATION");

    fake_cache_free();
    printf("%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}
