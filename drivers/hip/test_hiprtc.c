/* CI test of the HIP driver's hiprtc path, on a machine without an AMD GPU (ctest: hip-hiprtc-compile). hiprtc is
 * a compiler: it needs the HIP runtime library (ROCm 5: hiprtc lives in libamdhip64; ROCm 6+: libhiprtc) but no
 * GPU. Exits 77 (skipped) only when no hiprtc can be loaded, and says why.
 *
 * Links the driver's own run-time compiler code (drivers/cudahip/rtc.c and sources.c, built with HCL_GPU_HIP), the
 * embedded helper source and the core's kernel library (hcl_kernels), then:
 *  1. compiles the driver's helper program (fill.cu with the CUDA/HIP name map, hcl__gpu_helpers_job) the way the
 *     driver does when its bundle has no code object for the GPU, for gfx90a (wave64) and gfx1030 (wave32),
 *     checking it is an AMDGPU ELF with a kernel descriptor for its entry point and the wavefront size in the
 *     metadata;
 *  2. compiles the core's HIP text of the built-in kernels (hcl_kernels_gpu_text, what the core hands the driver as
 *     HCL_SOURCE_HIP_C when the bundle cannot be used) for a full target ID as the runtime reports it
 *     ("gfx90a:sramecc+:xnack-", wave64) and for gfx1030 (wave32), checking a kernel descriptor for every kernel
 *     the catalogue names for the GPU program (hcl_kprogram_get) and the wavefront size of each; wave32 (gfx1030)
 *     for the helper program only, the built-ins' gfx1030 code objects being hipcc's bundle's (hip-kernels-compile);
 *     the text at -O0 (test_rtc.h text_options), left out in the sanitizer build (text_skipped);
 *  3. compiles a user kernel for gfx90a, then again through the driver's disk-cache hook (must hit);
 *  4. checks that a broken kernel gives HCL_ERROR_BUILD with hiprtc's log in the message.
 * (Not asked: a target this hiprtc does not know. ROCm 5.2's crashes in libamd_comgr when given gfx942; the driver
 * only ever asks for the target of a GPU the same ROCm enumerated.)
 * With the argument `nvidia` (ctest hip-cuda-hiprtc, HCL_HIPRTC_LIBRARY the HIP-over-CUDA test library,
 * drivers/hip/cuda) the same for HIP's NVIDIA platform, where hiprtc is NVRTC: the target is "sm_90" as the driver
 * describes an H100/H200 there, which it asks for as compute_90 PTX; 1 and 2 check PTX for that target with an entry
 * for every kernel (the text with NVRTC's fast compile), 4 NVRTC's error name.
 * Prints the time of each compile; exits non-zero on any failure. */
#define _POSIX_C_SOURCE 200809L
#include "gpu.h"
#include "hcl_plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_rtc.h"

/* ---- the core's CUDA/HIP text of the built-in kernels (kernels/CMakeLists.txt) ---- */

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

/* HIP's NVIDIA platform: compile; check the result is PTX for compute_90 with an entry for each entry point. */
static int compile_ptx(const char *label, const hcl__gpu_rtc_job *job, const char *const *entries) {
    size_t size = 0;
    int is_binary = -1;
    double ms = 0;
    char *ptx = compile_timed(label, job, &size, &is_binary, &ms);
    if (!ptx) return 0;
    int ok = strstr(ptx, ".target sm_90") != NULL, kernels = 0;
    if (!ok) printf("FAIL %-48s not PTX for sm_90 (%zu bytes)\n", label, size);
    for (int i = 0; ok && entries && entries[i]; i++, kernels++) {
        char entry[128];
        snprintf(entry, sizeof entry, ".entry %s(", entries[i]);
        if (!strstr(ptx, entry)) {
            printf("FAIL %-48s no %s\n", label, entry);
            ok = 0;
        }
    }
    if (ok)
        printf("ok   %-48s %8.1f ms  %7zu-byte PTX, %d entries\n", label, ms, size, kernels);
    else
        g_failures++;
    free(ptx);
    return ok;
}

/* The NVIDIA platform's run (see the top): the same programs for "sm_90", as PTX. */
static void run_nvidia(void) {
    static const char *const helper_entries[] = {"hcl_fill_u64", NULL};
    hcl__gpu_rtc_job helpers;
    hcl__gpu_helpers_job(&helpers);
    helpers.driver_version = 13000; /* hipRuntimeGetVersion there: CUDA's */
    helpers.arch = "sm_90";
    compile_ptx("helpers (fill.cu) -> sm_90 (compute_90 PTX)", &helpers, helper_entries);
    const char *entries[HCL_KPROG_MAX_KERNELS + 1];
    hcl__gpu_rtc_job all = builtin_text_job("hcl_kernels_gpu.hip", entries);
    all.driver_version = 13000;
    all.arch = "sm_90";
    all.options = text_options(1);
    printf("the built-in text's options: %s\n", all.options ? all.options : "the driver's alone (NVRTC before 12.8)");
    if (!text_skipped("built-in text -> sm_90 (compute_90 PTX)"))
        compile_ptx("built-in text -> sm_90 (compute_90 PTX)", &all, entries);
    hcl__gpu_rtc_job user = {.options = "-DUNUSED=1", .arch = "sm_90", .driver_version = 13000};
    test_user_and_broken(compile_ptx, user, "hip", "sm_90", "NVRTC_ERROR_COMPILATION");
}

/* The verdict: PASS or FAIL with the count, as the exit status. */
static int finish(void) {
    fake_cache_free();
    printf("%s: %d failure(s)\n", g_failures ? "FAIL" : "PASS", g_failures);
    return g_failures ? 1 : 0;
}

int main(int argc, char **argv) {
    const int nvidia = argc > 1 && strcmp(argv[1], "nvidia") == 0;
    if (test_rtc_open() != HCL_SUCCESS) {
        printf("skip: hiprtc could not be loaded: %s\n", g_message);
        return 77;
    }
    printf("%s\n", hcl__gpu_rtc_version());
    if (nvidia) {
        run_nvidia();
        return finish();
    }

    /* 1. the helper program, as the driver builds it without a usable bundle */
    static const char *const helper_entries[] = {"hcl_fill_u64", NULL};
    hcl__gpu_rtc_job helpers;
    hcl__gpu_helpers_job(&helpers);
    helpers.driver_version = 50221153;
    helpers.arch = "gfx90a";
    compile("helpers (fill.cu) -> gfx90a", &helpers, helper_entries, 64);
    helpers.arch = "gfx1030";
    compile("helpers (fill.cu) -> gfx1030 (RDNA2, wave32)", &helpers, helper_entries, 32);

    /* 2. the core's text of the built-in kernels, every kernel of the catalogue's GPU program in it */
    const char *entries[HCL_KPROG_MAX_KERNELS + 1];
    hcl__gpu_rtc_job all = builtin_text_job("hcl_kernels_gpu.hip", entries);
    all.driver_version = 50221153;
    all.arch = "gfx90a:sramecc+:xnack-";
    all.options = text_options(0);
    printf("the built-in text's options: %s\n", all.options);
    if (!text_skipped("built-in text -> gfx90a:sramecc+:xnack- (MI200)"))
        compile("built-in text -> gfx90a:sramecc+:xnack- (MI200)", &all, entries, 64);
    /* (wave32: the helper program above; every built-in kernel for gfx1030 is in the bundle hipcc builds, which
     * ctest hip-kernels-compile checks: the text's second target here took 50 s of a 2-core CI machine) */

    /* 3. a user kernel, then the same again from the cache; 4. a build error */
    hcl__gpu_rtc_job user = {.options = "-DUNUSED=1", .arch = "gfx90a", .driver_version = 50221153};
    test_user_and_broken(compile_wave64, user, "hip", "gfx90a", "HIPRTC_ERROR_COMPILATION");

    return finish();
}
