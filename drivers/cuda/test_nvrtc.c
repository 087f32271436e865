/* CI test of the CUDA driver's NVRTC path, on a machine without a GPU (ctest: cuda-nvrtc-compile).
 *
 * Links the driver's own run-time compiler code (drivers/cudahip/rtc.c and sources.c, built with HCL_GPU_CUDA) and
 * the embedded kernel sources, then:
 *  1. compiles each built-in kernel source alone (with the CUDA/HIP name map, hcl_gpu_compat.h, as its one header)
 *     to PTX (compute_75) and checks its entry points are there;
 *  2. compiles the built-ins program the way the driver does when the fatbin cannot be used (builtins.cu with the
 *     kernels as headers, hcl__gpu_builtins_job) for sm_90 (CUBIN) and for an architecture NVRTC does not know
 *     (PTX fallback);
 *  3. compiles a user kernel to PTX, then again through the driver's disk-cache hook (must hit);
 *  4. checks that a broken kernel gives HCL_ERROR_BUILD with NVRTC's log in the message.
 * Prints the time of each compile; exits non-zero on any failure. */
#define _POSIX_C_SOURCE 200809L
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rtc.h"

/* ---- the embedded sources (drivers/cuda/CMakeLists.txt) ---- */
extern const unsigned char hcl_gpu_src_compat[], hcl_gpu_src_vecadd[], hcl_gpu_src_gemm[], hcl_gpu_src_softmax[],
    hcl_gpu_src_reduce[], hcl_gpu_src_fill[];
extern const size_t hcl_gpu_src_vecadd_size, hcl_gpu_src_gemm_size, hcl_gpu_src_softmax_size,
    hcl_gpu_src_reduce_size, hcl_gpu_src_fill_size;

/* Compile; check the image kind and, for PTX, that each expected entry point is in it. */
static int compile(const char *label, const hcl__gpu_rtc_job *job, int want_cubin, const char *const *entries) {
    size_t size = 0;
    int is_cubin = -1;
    double ms = 0;
    void *image = compile_timed(label, job, &size, &is_cubin, &ms);
    if (!image) return 0;
    int ok = 1;
    if (want_cubin >= 0 && is_cubin != want_cubin) {
        printf("FAIL %-48s got %s, wanted %s\n", label, is_cubin ? "CUBIN" : "PTX", want_cubin ? "CUBIN" : "PTX");
        ok = 0;
    }
    if (is_cubin && (size < 4 || memcmp(image, "\177ELF", 4) != 0)) {
        printf("FAIL %-48s CUBIN is not an ELF image\n", label);
        ok = 0;
    }
    for (int i = 0; ok && !is_cubin && entries && entries[i]; i++) {
        char needle[128];
        snprintf(needle, sizeof needle, ".entry %s(", entries[i]);
        if (!strstr(image, needle)) {
            printf("FAIL %-48s PTX lacks entry %s\n", label, entries[i]);
            ok = 0;
        }
    }
    if (ok) printf("ok   %-48s %8.1f ms  %7zu-byte %s\n", label, ms, size, is_cubin ? "CUBIN" : "PTX");
    else g_failures++;
    free(image);
    return ok;
}

static int compile_ptx(const char *label, const hcl__gpu_rtc_job *job, const char *const *entries) {
    return compile(label, job, 0, entries);
}

int main(void) {
    if (test_rtc_open() != HCL_SUCCESS) {
        printf("FAIL NVRTC did not load: %s\n", g_message);
        return 1;
    }

    const struct {
        const char *name;
        const unsigned char *src;
        size_t size;
        const char *const *entries;
    } kernels[] = {
        {"vecadd.cu", hcl_gpu_src_vecadd, hcl_gpu_src_vecadd_size, g_vecadd_entries},
        {"gemm.cu", hcl_gpu_src_gemm, hcl_gpu_src_gemm_size, g_gemm_entries},
        {"softmax.cu", hcl_gpu_src_softmax, hcl_gpu_src_softmax_size, g_softmax_entries},
        {"reduce.cu", hcl_gpu_src_reduce, hcl_gpu_src_reduce_size, g_reduce_entries},
        {"fill.cu", hcl_gpu_src_fill, hcl_gpu_src_fill_size, g_fill_entries},
    };

    /* 1. each kernel alone, to PTX, with the name map as its one header */
    const char *compat[] = {(const char *)hcl_gpu_src_compat};
    const char *compat_name[] = {"hcl_gpu_compat.h"};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        hcl__gpu_rtc_job job = {.source = (const char *)kernels[i].src, .source_size = kernels[i].size,
                                .name = kernels[i].name, .num_headers = 1, .headers = compat,
                                .include_names = compat_name, .options = "-arch=compute_75", .arch = 75};
        char label[96];
        snprintf(label, sizeof label, "%s -> PTX compute_75", kernels[i].name);
        compile(label, &job, 0, kernels[i].entries);
    }

    /* 2. the built-ins program as the driver builds it without a usable fatbin */
    hcl__gpu_rtc_job all;
    hcl__gpu_builtins_job(&all);
    all.arch = 90;
    all.driver_version = 13000;
    compile("builtins.cu -> sm_90 (H100)", &all, 1, NULL);
    all.arch = 95; /* not a real architecture: the newest virtual one below it, as PTX */
    static const char *const some_entries[] = {"hcl_vecadd_f32", "hcl_gemm_f32_128_nn", "hcl_softmax_block_f32",
                                               "hcl_reduce_sum_f32", "hcl_fill_u64", NULL};
    compile("builtins.cu -> sm_95 (unknown: PTX fallback)", &all, 0, some_entries);

    /* 3. a user kernel, to PTX, then the same again from the cache; 4. a build error */
    hcl__gpu_rtc_job user = {.options = "--gpu-architecture=compute_80 -DUNUSED=1", .arch = 80,
                             .driver_version = 13000};
    test_user_and_broken(compile_ptx, user, "cu", "PTX compute_80", "NVRTC_ERROR_COMPILATION");

    fake_cache_free();
    printf("%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}
