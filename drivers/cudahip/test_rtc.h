/* Test support shared by the CUDA and HIP run-time-compiler tests (test_nvrtc.c, test_hiprtc.c): the core's services
 * faked (drivers/common/test_host.h), a clock, and the checks both tests make of
 * a user kernel (compiled, then the same again from the cache) and of a broken one (HCL_ERROR_BUILD with the
 * compiler's log in the message). Include it in exactly one file of a test. */
#ifndef HCL_CUDAHIP_TEST_RTC_H
#define HCL_CUDAHIP_TEST_RTC_H

#include "gpu.h"
#include "hcl_plan.h"
#include "test_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int g_failures;

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The test's start: the faked core services for the driver's code (debug lines with HCL_LOG=debug), then the
 * compiler, opened as the driver opens it. */
static hcl_status test_rtc_open(void) {
    hcl__kit_host = &g_host;
    hcl__kit_name = HCL_GPU_NAME;
    g_debug = getenv("HCL_LOG") && strcmp(getenv("HCL_LOG"), "debug") == 0;
    return hcl__gpu_rtc_open();
}

/* Whether the built-in text's compiles are left out (ctest sets HCL_RTC_TEST_NO_TEXT=1 in the sanitizer build: they
 * run the same driver code as the helper program's compile, which stays, and the compiler's own allocations under the
 * sanitizer's allocator took 96 s of a 2-core CI machine for one target; the plain build compiles every target).
 * Prints the compile left out under `skipped`, so the log says so. */
static int text_skipped(const char *skipped) {
    const char *e = getenv("HCL_RTC_TEST_NO_TEXT");
    if (!e || strcmp(e, "1") != 0) return 0;
    printf("skip %-48s HCL_RTC_TEST_NO_TEXT=1 (sanitizer build): the plain build compiles it\n", skipped);
    return 1;
}

/* The options of the built-in text's compiles: the compiler's optimiser at its least, NVRTC's --Ofast-compile=max
 * (NVRTC 12.8 and later; the version is the last word of hcl__gpu_rtc_version) or clang's -O0 (AMD's hiprtc). These
 * compiles check that the text builds under the run-time compiler with every kernel of the catalogue an entry; the
 * optimised build of the same text is nvcc's fatbin and hipcc's bundle at build time, and the helper program and the
 * user kernels here compile with the driver's options alone. On a 2-core machine: compute_90a PTX 84 s -> 4 s,
 * compute_75 30 s -> 2 s, gfx90a 96 s -> 15 s. Returns NULL (no option) for an NVRTC older than 12.8. */
static const char *text_options(int nvrtc) {
    if (!nvrtc) return "-O0";
    const char *v = strrchr(hcl__gpu_rtc_version(), ' ');
    int major = 0, minor = 0;
    if (!v || sscanf(v, "%d.%d", &major, &minor) != 2) return NULL;
    return major > 12 || (major == 12 && minor >= 8) ? "--Ofast-compile=max" : NULL;
}

/* Compile `job` and time it: the image (free() it), or NULL with the failure printed under `label` and counted. */
static void *compile_timed(const char *label, const hcl__gpu_rtc_job *job, size_t *out_size, int *out_is_binary,
                           double *out_ms) {
    void *image = NULL;
    *out_size = 0;
    *out_is_binary = -1;
    g_message[0] = '\0';
    const double t0 = now_ms();
    hcl__gpu_rtc_job j = *job; /* the compile notes where the image came from in its job */
    hcl_status st = hcl__gpu_rtc_compile(&j, &image, out_size, out_is_binary);
    *out_ms = now_ms() - t0;
    if (st == HCL_SUCCESS) return image;
    printf("FAIL %-48s status %d: %s\n", label, (int)st, g_message);
    g_failures++;
    return NULL;
}

/* A test's compile check: compile `job`, check the image has `entries`, print ok or FAIL under `label` (a failure
 * counts in g_failures); returns whether it passed. */
typedef int (*test_compile_fn)(const char *label, const hcl__gpu_rtc_job *job, const char *const *entries);

/* A user kernel compiled for `target` (the job's arch, options and driver version), then the same again, which
 * must come from the cache; then a broken kernel, which must give HCL_ERROR_BUILD with the compiler's own error
 * name (`rtc_error`) and its log in the message. `ext` is the source's extension ("cu", "hip"). */
static void test_user_and_broken(test_compile_fn compile, hcl__gpu_rtc_job target, const char *ext,
                                 const char *target_label, const char *rtc_error) {
    static const char user[] =
        "extern \"C\" __global__ void saxpy(float a, const float *x, float *y, unsigned long long n) {\n"
        "    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n"
        "    if (i < n) y[i] = a * x[i] + y[i];\n"
        "}\n";
    static const char *const user_entries[] = {"saxpy", NULL};
    char name[32], label[96];
    hcl__gpu_rtc_job uj = target;
    snprintf(name, sizeof name, "user.%s", ext);
    uj.source = user;
    uj.source_size = sizeof user - 1;
    uj.name = name;
    int stores = g_cache_stores;
    snprintf(label, sizeof label, "user saxpy -> %s", target_label);
    compile(label, &uj, user_entries);
    int hits = g_cache_hits;
    compile("user saxpy again (disk cache)", &uj, user_entries);
    if (g_cache_stores != stores + 1 || g_cache_hits != hits + 1) {
        printf("FAIL cache: %d store(s), %d hit(s); wanted 1 and 1\n", g_cache_stores - stores, g_cache_hits - hits);
        g_failures++;
    } else {
        printf("ok   %-48s stored once, hit once\n", "compile cache");
    }

    static const char broken[] = "extern \"C\" __global__ void broken(float *x) { x[0] = undeclared_thing; }\n";
    hcl__gpu_rtc_job bj = target;
    snprintf(name, sizeof name, "broken.%s", ext);
    bj.source = broken;
    bj.source_size = sizeof broken - 1;
    bj.name = name;
    bj.options = NULL;
    void *image = NULL;
    size_t size = 0;
    int is_binary = 0;
    g_message[0] = '\0';
    hcl_status st = hcl__gpu_rtc_compile(&bj, &image, &size, &is_binary);
    if (st == HCL_ERROR_BUILD && strstr(g_message, "undeclared_thing") && strstr(g_message, rtc_error)) {
        printf("ok   %-48s HCL_ERROR_BUILD, message starts: %.*s\n", "broken kernel -> build error",
               (int)strcspn(g_message, "\n"), g_message);
    } else {
        printf("FAIL broken kernel: status %d, message: %s\n", (int)st, g_message);
        g_failures++;
    }
    free(image);
}

/* The core's CUDA/HIP text of the built-in kernels (kernels/CMakeLists.txt, in the hcl_kernels library) as a job
 * named `name`, and in `entries` (HCL_KPROG_MAX_KERNELS + 1 slots) the kernels the catalogue expects of it. */
extern const unsigned char hcl_kernels_gpu_text[];
extern const size_t hcl_kernels_gpu_text_size;
static inline hcl__gpu_rtc_job builtin_text_job(const char *name, const char **entries) {
    const hcl_kprogram *gpu = hcl_kprogram_get(HCL_KPROG_GPU);
    for (uint32_t i = 0; i < gpu->num_kernels; i++) entries[i] = gpu->kernels[i];
    entries[gpu->num_kernels] = NULL;
    return (hcl__gpu_rtc_job){
        .source = (const char *)hcl_kernels_gpu_text, .source_size = hcl_kernels_gpu_text_size, .name = name};
}

#endif /* HCL_CUDAHIP_TEST_RTC_H */
