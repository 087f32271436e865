/* CI test of the CUDA driver's NVRTC path, on a machine without a GPU (ctest: cuda-nvrtc-compile).
 *
 * Links the driver's own run-time compiler code (drivers/cudahip/rtc.c and sources.c, built with HCL_GPU_CUDA), the
 * embedded helper source and the core's kernel library (hcl_kernels), then:
 *  1. compiles the driver's helper program (fill.cu with the CUDA/HIP name map, hcl__gpu_helpers_job) the way the
 *     driver does when its fatbin cannot be used: to PTX (compute_75) checking its entry point, and for sm_90
 *     (CUBIN);
 *  2. compiles the core's CUDA text of the built-in kernels (hcl_kernels_gpu_text, what the core hands the driver
 *     as HCL_SOURCE_CUDA_C when the fatbin cannot be used) to PTX (compute_75), checking that every kernel the
 *     catalogue names for the GPU program (hcl_kprogram_get) is an entry, then to PTX for compute_90a (the Hopper
 *     kernels too), both with the optimiser at its least (test_rtc.h text_options) and left out in the sanitizer
 *     build (text_skipped); the helper program again for an architecture NVRTC does not know (PTX fallback);
 *  3. compiles a user kernel to PTX, then again through the driver's disk-cache hook (must hit);
 *  4. checks that a broken kernel gives HCL_ERROR_BUILD with NVRTC's log in the message.
 * Prints the time of each compile; exits non-zero on any failure. */
#define _POSIX_C_SOURCE 200809L
#include "gpu.h"
#include "hcl_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rtc.h"

/* ---- the core's CUDA/HIP text of the built-in kernels (kernels/CMakeLists.txt) ---- */

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
    if (ok)
        printf("ok   %-48s %8.1f ms  %7zu-byte %s\n", label, ms, size, is_cubin ? "CUBIN" : "PTX");
    else
        g_failures++;
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

    /* 1. the helper program, as the driver builds it without a usable fatbin */
    static const char *const helper_entries[] = {"hcl_fill_u64", NULL};
    hcl__gpu_rtc_job helpers;
    hcl__gpu_helpers_job(&helpers);
    helpers.options = "-arch=compute_75";
    helpers.arch = 75;
    compile("helpers (fill.cu) -> PTX compute_75", &helpers, 0, helper_entries);
    hcl__gpu_helpers_job(&helpers);
    helpers.arch = 90;
    helpers.driver_version = 13000;
    compile("helpers (fill.cu) -> sm_90 (H100)", &helpers, 1, NULL);

    /* 2. the core's text of the built-in kernels, every kernel of the catalogue's GPU program an entry */
    const char *entries[HCL_KPROG_MAX_KERNELS + 1];
    hcl__gpu_rtc_job all = builtin_text_job("hcl_kernels_gpu.cu", entries);
    char options[96];
    const char *fast = text_options(1);
    printf("the built-in text's options: %s\n", fast ? fast : "the driver's alone (NVRTC before 12.8)");
    snprintf(options, sizeof options, "-arch=compute_75%s%s", fast ? " " : "", fast ? fast : "");
    all.options = options;
    all.arch = 75;
    char label[96];
    snprintf(label, sizeof label, "built-in text -> PTX compute_75 (%u kernels)",
             hcl_kprogram_get(HCL_KPROG_GPU)->num_kernels);
    if (!text_skipped(label)) compile(label, &all, 0, entries);
    /* sm_90a's kernels (wgmma, TMA) to PTX: NVRTC's front end and NVVM on them; the CUBIN path (ptxas inside NVRTC)
     * is the helper program's above, and nvcc's build assembles the same text for sm_90a (66 s of a 2-core CI machine
     * here, as a CUBIN) */
    snprintf(options, sizeof options, "-arch=compute_90a%s%s", fast ? " " : "", fast ? fast : "");
    all.arch = 90;
    all.driver_version = 13000;
    snprintf(label, sizeof label, "built-in text -> PTX compute_90a (%u kernels)",
             hcl_kprogram_get(HCL_KPROG_GPU)->num_kernels);
    if (!text_skipped(label)) compile(label, &all, 0, entries);
    hcl__gpu_helpers_job(&helpers);
    helpers.arch = 95; /* not a real architecture: the newest virtual one below it, as PTX */
    helpers.driver_version = 13000;
    compile("helpers (fill.cu) -> sm_95 (unknown: PTX fallback)", &helpers, 0, helper_entries);

    /* 3. a user kernel, to PTX, then the same again from the cache; 4. a build error */
    hcl__gpu_rtc_job user = {
        .options = "--gpu-architecture=compute_80 -DUNUSED=1", .arch = 80, .driver_version = 13000};
    test_user_and_broken(compile_ptx, user, "cu", "PTX compute_80", "NVRTC_ERROR_COMPILATION");

    fake_cache_free();
    printf("%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}
