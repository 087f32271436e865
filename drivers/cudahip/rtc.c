/* The run-time compiler: NVRTC (CUDA) or hiprtc (HIP), opened on first use only, so a machine with just the GPU
 * driver runs the helper kernels from their embedded binary. Compiles for one device architecture through the
 * on-disk cache. Once loaded it stays loaded: both carry their own C++ runtime, whose process-lifetime allocations
 * would turn into leaks (and its exit handlers into dangling code) if it were unloaded.
 * Shared by the CUDA and HIP drivers (gpu.h). What differs is written out below: the libraries to try, the target
 * option (CUDA: sm_XY when NVRTC knows the architecture, else PTX for compute_XY; HIP: --offload-arch=<gfx
 * target>, or compute_XY on HIP's NVIDIA platform) and what comes out (CUBIN or PTX; a code object, PTX there).
 * This file calls nothing in the GPU runtime itself, so the CI tests link it on a machine without a GPU. */
#define _GNU_SOURCE 1 /* RTLD_*, strnlen under -std=c11 */
#include "gpu.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every signature in the map's list must be the one the compiler's header declares. */
#define HCL__GPU_RTC_CHECK_SIG(ret, name, params)                                                                      \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params),                                     \
                   #name ": signature differs from the compiler's header");
HCL_GPU_RTC_SYMBOLS(HCL__GPU_RTC_CHECK_SIG)
#undef HCL__GPU_RTC_CHECK_SIG

#define RTC(op) g_rtc.HCL_GPU_RTC_SYM_##op

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_state; /* 0 not tried, 1 loaded, -1 failed (g_reason says why) */
static void *g_library;
static hcl__gpu_rtc_symbols g_rtc;
static char g_reason[2048];
static char g_version[64];   /* "NVRTC 13.0" */
static int g_major, g_minor; /* nvrtcVersion / hiprtcVersion */
#if HCL_GPU_CUDA
static int *g_archs; /* real architectures NVRTC can make SASS for, ascending (75, 80, ...) */
static int g_num_archs;
#endif

#define MAX_CANDIDATES 12

/* Where the compiler may be, in order. The environment variable alone when it is set. */
static size_t candidates(const char **out, char (*paths)[512]) {
    const char *override = getenv(HCL_GPU_RTC_ENV);
    size_t count = 0, used_paths = 0;
    if (override && override[0]) {
        out[count++] = override;
        return count;
    }
#if HCL_GPU_CUDA
    out[count++] = "libnvrtc.so.13";
    out[count++] = "libnvrtc.so.12";
    out[count++] = "libnvrtc.so";
    /* a toolkit that is installed but not on the loader path */
    const char *homes[2] = {getenv("CUDA_HOME"), getenv("CUDA_PATH")};
    for (int i = 0; i < 2; i++)
        if (homes[i] && homes[i][0]) {
            snprintf(paths[used_paths], sizeof paths[0], "%s/lib64/libnvrtc.so", homes[i]);
            out[count++] = paths[used_paths++];
        }
    out[count++] = "/usr/local/cuda/lib64/libnvrtc.so";
#else
    /* ROCm 6 and later ship hiprtc as libhiprtc.so.N; ROCm 5 exports it from libamdhip64 itself */
    out[count++] = "libhiprtc.so.7";
    out[count++] = "libhiprtc.so.6";
    out[count++] = "libhiprtc.so";
    out[count++] = "libamdhip64.so.5";
    const char *rocm = getenv("ROCM_PATH");
    const char *roots[2] = {rocm && rocm[0] ? rocm : NULL, "/opt/rocm"};
    for (int i = 0; i < 2; i++)
        if (roots[i]) {
            snprintf(paths[used_paths], sizeof paths[0], "%s/lib/libhiprtc.so", roots[i]);
            out[count++] = paths[used_paths++];
            snprintf(paths[used_paths], sizeof paths[0], "%s/lib/libamdhip64.so", roots[i]);
            out[count++] = paths[used_paths++];
        }
#endif
    return count;
}

#define HCL__GPU_RTC_SYMBOL(ret, name, params) HCL_KIT_SYMBOL(hcl__gpu_rtc_symbols, name)
static const hcl_kit_symbol g_symbols[] = {HCL_GPU_RTC_SYMBOLS(HCL__GPU_RTC_SYMBOL)};
#undef HCL__GPU_RTC_SYMBOL

static hcl_status open_locked(void) {
    const char *names[MAX_CANDIDATES];
    char paths[4][512];
    size_t count = candidates(names, paths);
    const char *create_name = HCL_GPU_CUDA ? "nvrtcCreateProgram" : "hiprtcCreateProgram";
    g_reason[0] = '\0';
    for (size_t i = 0; i < count && !g_library; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *e = dlerror();
            HCL_GPU_LOG("dlopen %s: %s", names[i], e ? e : "failed");
            hcl__kit_appendf(g_reason, sizeof g_reason, "%s%s", g_reason[0] ? "; " : "", e ? e : names[i]);
            continue;
        }
        if (!dlsym(h, create_name)) {
            /* a GPU runtime without the compiler (libamdhip64 of ROCm 6+): not closed, since its constructors ran
             * and unloading such a library is not safe */
            HCL_GPU_LOG("dlopen %s: loaded, but it has no %s", names[i], create_name);
            hcl__kit_appendf(g_reason, sizeof g_reason, "%s%s has no %s", g_reason[0] ? "; " : "", names[i],
                             create_name);
            continue;
        }
        HCL_GPU_LOG("dlopen %s: loaded", names[i]);
        g_library = h;
    }
    if (!g_library) {
        hcl__kit_appendf(g_reason, sizeof g_reason, " (tried: ");
        for (size_t i = 0; i < count; i++) hcl__kit_appendf(g_reason, sizeof g_reason, "%s%s", i ? ", " : "", names[i]);
        const char *override = getenv(HCL_GPU_RTC_ENV);
        hcl__kit_appendf(g_reason, sizeof g_reason, "%s)", override && override[0] ? ", from " HCL_GPU_RTC_ENV : "");
        return HCL_ERROR_UNSUPPORTED;
    }
    hcl__gpu_rtc_symbols syms;
    memset(&syms, 0, sizeof syms);
    if (hcl__kit_resolve(g_library, g_symbols, sizeof g_symbols / sizeof g_symbols[0], &syms, HCL_GPU_RTC_NAME,
                         HCL_GPU_RTC_TOO_OLD, g_reason, sizeof g_reason) != HCL_SUCCESS)
        goto fail;
    if (syms.HCL_GPU_RTC_SYM_Version(&g_major, &g_minor) != HCL_GPU_RTC_SUCCESS) g_major = g_minor = 0;
#if HCL_GPU_CUDA
    int n = 0;
    if (syms.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || !(g_archs = calloc((size_t)n, sizeof(int))) ||
        syms.nvrtcGetSupportedArchs(g_archs) != NVRTC_SUCCESS) {
        snprintf(g_reason, sizeof g_reason, "libnvrtc %d.%d: cannot list its supported architectures", g_major,
                 g_minor);
        goto fail;
    }
    g_num_archs = n;
    HCL_GPU_LOG("NVRTC %d.%d: sm_%d .. sm_%d", g_major, g_minor, g_archs[0], g_archs[n - 1]);
#else
    HCL_GPU_LOG("hiprtc %d.%d", g_major, g_minor);
#endif
    snprintf(g_version, sizeof g_version, "%s %d.%d", HCL_GPU_RTC_NAME, g_major, g_minor);
    g_rtc = syms;
    return HCL_SUCCESS;
fail:
#if HCL_GPU_CUDA
    free(g_archs);
    g_archs = NULL;
#endif
    dlclose(g_library);
    g_library = NULL;
    return HCL_ERROR_UNSUPPORTED;
}

hcl_status hcl__gpu_rtc_open(void) {
    pthread_mutex_lock(&g_lock);
    if (g_state == 0) g_state = open_locked() == HCL_SUCCESS ? 1 : -1;
    int state = g_state;
    pthread_mutex_unlock(&g_lock);
    if (state == 1) return HCL_SUCCESS;
    return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "%s: %s is not available: %s", HCL_GPU_NAME, HCL_GPU_RTC_NAME, g_reason);
}

const char *hcl__gpu_rtc_reason(void) {
    pthread_mutex_lock(&g_lock);
    const char *r = g_state == -1 ? g_reason : "";
    pthread_mutex_unlock(&g_lock);
    return r;
}

const char *hcl__gpu_rtc_version(void) {
    pthread_mutex_lock(&g_lock);
    const char *v = g_state == 1 ? g_version : "";
    pthread_mutex_unlock(&g_lock);
    return v;
}

/* Split options at blanks; "double quotes" group a token. Returns a malloc'd argv over a malloc'd copy. */
static int split_options(const char *options, char **out_copy, const char ***out_argv, int *out_argc) {
    *out_copy = NULL;
    *out_argv = NULL;
    *out_argc = 0;
    if (!options) return 0;
    size_t len = strlen(options);
    char *copy = malloc(len + 1);
    const char **argv = malloc((len / 2 + 2) * sizeof *argv);
    if (!copy || !argv) {
        free(copy);
        free(argv);
        return -1;
    }
    int argc = 0;
    const char *s = options;
    char *w = copy;
    while (*s) {
        while (*s && isspace((unsigned char)*s)) s++;
        if (!*s) break;
        argv[argc++] = w;
        int quoted = 0;
        while (*s && (quoted || !isspace((unsigned char)*s))) {
            if (*s == '"')
                quoted = !quoted;
            else
                *w++ = *s;
            s++;
        }
        *w++ = '\0';
    }
    *out_copy = copy;
    *out_argv = argv;
    *out_argc = argc;
    return 0;
}

/* Whether a user option names the target itself (then the driver adds none). */
static int names_arch(const char *opt) {
#if HCL_GPU_CUDA
    return strncmp(opt, "-arch", 5) == 0 || strncmp(opt, "--gpu-architecture", 18) == 0;
#else
    return strncmp(opt, "--offload-arch", 14) == 0 || strncmp(opt, "-offload-arch", 13) == 0 ||
           strncmp(opt, "--gpu-architecture", 18) == 0 || strncmp(opt, "-arch", 5) == 0;
#endif
}

#if HCL_GPU_CUDA
/* The -arch option for a device: SASS when NVRTC knows the architecture, else PTX of the newest virtual
 * architecture not above the device (the driver JIT-compiles it). sm_90 devices get sm_90a, the arch-specific code
 * that has wgmma (it runs on every sm_90 device; the built-in Hopper gemm needs it). */
static hcl_status pick_target(const hcl__gpu_rtc_job *job, char *opt, size_t opt_size) {
    int arch = job->arch, best = 0;
    for (int i = 0; i < g_num_archs; i++) {
        if (g_archs[i] == arch) {
            snprintf(opt, opt_size, "--gpu-architecture=sm_%d%s", arch, arch == 90 ? "a" : "");
            return HCL_SUCCESS;
        }
        if (g_archs[i] < arch && g_archs[i] > best) best = g_archs[i];
    }
    if (best) {
        snprintf(opt, opt_size, "--gpu-architecture=compute_%d", best);
        return HCL_SUCCESS;
    }
    return HCL_KIT_FAIL(HCL_ERROR_BUILD, "cuda: NVRTC %d.%d cannot target sm_%d (it knows sm_%d to sm_%d)", g_major,
                        g_minor, arch, g_archs[0], g_archs[g_num_archs - 1]);
}
#else
/* --offload-arch=<the device's target ID>: hiprtc builds a code object for exactly that target, features
 * (sramecc, xnack) included. Whether this hiprtc knows the target shows when it compiles. On HIP's NVIDIA platform
 * (a target "sm_XY", driver.c) hiprtc is NVRTC, whose hiprtcGetCode gives PTX: --gpu-architecture=compute_XY, the
 * virtual architecture, which always has PTX; the CUDA driver compiles it for the GPU when the module loads. */
static hcl_status pick_target(const hcl__gpu_rtc_job *job, char *opt, size_t opt_size) {
    unsigned level = 0;
    if (job->arch && sscanf(job->arch, "sm_%u", &level) == 1) {
        snprintf(opt, opt_size, "--gpu-architecture=compute_%u", level);
        return HCL_SUCCESS;
    }
    if (!job->arch || !job->arch[0])
        return HCL_KIT_FAIL(HCL_ERROR_BUILD, "hip: the device's gfx target is unknown (the runtime did not report "
                                             "gcnArchName), so hiprtc cannot be told what to build for; pass "
                                             "--offload-arch=gfx... in the build options");
    int n = snprintf(opt, opt_size, "--offload-arch=%s", job->arch);
    if (n < 0 || (size_t)n >= opt_size)
        return HCL_KIT_FAIL(HCL_ERROR_BUILD, "hip: gfx target name too long: %s", job->arch);
    return HCL_SUCCESS;
}
#endif

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Key: everything the result depends on; the core adds the HCL version and hashes it. */
static char *cache_key(const hcl__gpu_rtc_job *job, const char *target, size_t *out_size) {
    char head[1024];
    int n = snprintf(head, sizeof head, "%s %d.%d\ndriver %d\ntarget %s\noptions %s\nname %s\nheaders %d\n",
                     HCL_GPU_RTC_KEY, g_major, g_minor, job->driver_version, target ? target : "(user)",
                     job->options ? job->options : "", job->name, job->num_headers);
    if (n < 0 || (size_t)n >= sizeof head) return NULL;
    size_t size = (size_t)n + job->source_size;
    for (int i = 0; i < job->num_headers; i++) size += strlen(job->include_names[i]) + 1 + strlen(job->headers[i]) + 1;
    char *key = malloc(size);
    if (!key) return NULL;
    char *p = key;
    memcpy(p, head, (size_t)n);
    p += n;
    for (int i = 0; i < job->num_headers; i++) {
        size_t a = strlen(job->include_names[i]) + 1, b = strlen(job->headers[i]) + 1;
        memcpy(p, job->include_names[i], a);
        p += a;
        memcpy(p, job->headers[i], b);
        p += b;
    }
    memcpy(p, job->source, job->source_size);
    *out_size = size;
    return key;
}

static hcl_status rtc_fail(hcl_gpu_rtc_result r, const char *call, const hcl__gpu_rtc_job *job, const char *target,
                           const char *log) {
    return HCL_KIT_FAIL(HCL_ERROR_BUILD, "%s: %s (%d) building '%s' for %s with %s %d.%d%s%s", call,
                        RTC(GetErrorString)(r), (int)r, job->name, target ? target : "(user target)", HCL_GPU_RTC_NAME,
                        g_major, g_minor, log && log[0] ? ":\n" : "", log ? log : "");
}

/* The cache entry is 1 byte of kind, then the image: 'C' cubin, 'P' PTX (CUDA), 'O' code object (HIP). */
hcl_status hcl__gpu_rtc_compile(hcl__gpu_rtc_job *job, void **out_image, size_t *out_size, int *out_is_binary) {
    hcl_status st = hcl__gpu_rtc_open();
    if (st != HCL_SUCCESS) return st;

    char *opt_copy = NULL, *source = NULL, *key = NULL, *log = NULL, *image = NULL;
    const char **user_argv = NULL, **argv = NULL;
    int user_argc = 0;
    hcl_gpu_rtc_program prog = NULL;
    size_t key_size = 0;
    char target_opt[300];
    const char *target = NULL;

    if (split_options(job->options, &opt_copy, &user_argv, &user_argc) != 0) {
        st = HCL_KIT_FAIL(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory (%s options)", HCL_GPU_NAME,
                          HCL_GPU_RTC_NAME);
        goto cleanup;
    }
    int user_arch = 0;
    for (int i = 0; i < user_argc; i++) user_arch |= names_arch(user_argv[i]);
    if (!user_arch) {
        if ((st = pick_target(job, target_opt, sizeof target_opt)) != HCL_SUCCESS) goto cleanup;
        target = target_opt;
    }

    key = cache_key(job, target, &key_size);
    job->from_cache = 0;
    if (key && job->evict_cached && HCL_DRIVER_HOST_HAS(hcl__kit_host, cache_evict))
        hcl__kit_host->cache_evict(HCL_GPU_NAME, key, key_size);
    if (key && !job->evict_cached && hcl__kit_host->cache_load) {
        size_t got = 0;
        unsigned char *hit = hcl__kit_host->cache_load(HCL_GPU_NAME, key, key_size, &got);
        int kind_ok = hit && got > 1 && (HCL_GPU_CUDA ? (hit[0] == 'C' || hit[0] == 'P') : hit[0] == 'O');
        if (kind_ok) {
            image = malloc(got); /* PTX gets a NUL after it */
            if (image) {
                memcpy(image, hit + 1, got - 1);
                image[got - 1] = '\0';
                *out_is_binary = hit[0] != 'P';
                *out_size = got - 1;
                *out_image = image;
                image = NULL;
                free(hit);
                job->from_cache = 1;
                HCL_GPU_LOG("%s cache hit: '%s' for %s (%zu bytes)", HCL_GPU_RTC_NAME, job->name,
                            target ? target : "(user)", got - 1);
                goto cleanup;
            }
        }
        free(hit);
    }

    source = malloc(job->source_size + 1); /* a source may come without its NUL */
    argv = malloc((size_t)(user_argc + 1) * sizeof *argv);
    if (!source || !argv) {
        st =
            HCL_KIT_FAIL(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory (%s source)", HCL_GPU_NAME, HCL_GPU_RTC_NAME);
        goto cleanup;
    }
    memcpy(source, job->source, job->source_size);
    source[job->source_size] = '\0';
    int argc = 0;
    if (target) argv[argc++] = target;
    for (int i = 0; i < user_argc; i++) argv[argc++] = user_argv[i];

    double t0 = now_ms();
    hcl_gpu_rtc_result r = RTC(CreateProgram)(&prog, source, job->name, job->num_headers, (const char **)job->headers,
                                              (const char **)job->include_names);
    if (r != HCL_GPU_RTC_SUCCESS) {
        prog = NULL;
        st = rtc_fail(r, HCL_GPU_CUDA ? "nvrtcCreateProgram" : "hiprtcCreateProgram", job, target, NULL);
        goto cleanup;
    }
    r = RTC(CompileProgram)(prog, argc, argv);
    size_t log_size = 0;
    if (RTC(GetProgramLogSize)(prog, &log_size) == HCL_GPU_RTC_SUCCESS && log_size > 1 &&
        (log = malloc(log_size + 1)) != NULL) {
        if (RTC(GetProgramLog)(prog, log) != HCL_GPU_RTC_SUCCESS) log[0] = '\0';
        log[log_size] = '\0';
    }
    if (r != HCL_GPU_RTC_SUCCESS) {
        st = rtc_fail(r, HCL_GPU_CUDA ? "nvrtcCompileProgram" : "hiprtcCompileProgram", job, target, log);
        goto cleanup;
    }
    if (log && log[0]) HCL_GPU_LOG("%s log for '%s':\n%s", HCL_GPU_RTC_NAME, job->name, log);
    size_t size = 0;
    char kind;
#if HCL_GPU_CUDA
    size_t cubin_size = 0;
    int is_cubin = g_rtc.nvrtcGetCUBINSize(prog, &cubin_size) == NVRTC_SUCCESS && cubin_size > 0;
    kind = is_cubin ? 'C' : 'P';
    if (is_cubin) {
        size = cubin_size;
    } else if ((r = g_rtc.nvrtcGetPTXSize(prog, &size)) != NVRTC_SUCCESS) {
        st = rtc_fail(r, "nvrtcGetPTXSize", job, target, NULL);
        goto cleanup;
    }
#else
    kind = 'O';
    if ((r = g_rtc.hiprtcGetCodeSize(prog, &size)) != HIPRTC_SUCCESS || size == 0) {
        st = r != HIPRTC_SUCCESS ? rtc_fail(r, "hiprtcGetCodeSize", job, target, NULL)
                                 : HCL_KIT_FAIL(HCL_ERROR_BUILD, "hiprtc returned an empty code object for '%s' (%s)",
                                                job->name, target ? target : "user target");
        goto cleanup;
    }
#endif
    image = malloc(size + 2); /* kind byte for the cache, and room for a NUL */
    if (!image) {
        st = HCL_KIT_FAIL(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory (%zu-byte image)", HCL_GPU_NAME, size);
        goto cleanup;
    }
    image[0] = kind;
#if HCL_GPU_CUDA
    r = is_cubin ? g_rtc.nvrtcGetCUBIN(prog, image + 1) : g_rtc.nvrtcGetPTX(prog, image + 1);
    if (r != NVRTC_SUCCESS) {
        st = rtc_fail(r, is_cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", job, target, NULL);
        goto cleanup;
    }
#else
    if ((r = g_rtc.hiprtcGetCode(prog, image + 1)) != HIPRTC_SUCCESS) {
        st = rtc_fail(r, "hiprtcGetCode", job, target, NULL);
        goto cleanup;
    }
#endif
    image[size + 1] = '\0';
    HCL_GPU_LOG("%s compiled '%s' for %s: %zu-byte %s in %.1f ms", HCL_GPU_RTC_NAME, job->name,
                target ? target : "(user target)", size,
                kind == 'C'   ? "CUBIN"
                : kind == 'P' ? "PTX"
                              : "code object",
                now_ms() - t0);
    if (key && hcl__kit_host->cache_store) hcl__kit_host->cache_store(HCL_GPU_NAME, key, key_size, image, size + 1);
    memmove(image, image + 1, size + 1); /* drop the kind byte; the NUL follows the image */
    *out_image = image;
    *out_size = size;
    *out_is_binary = kind != 'P';
    image = NULL;
    st = HCL_SUCCESS;
cleanup:
    if (prog) RTC(DestroyProgram)(&prog);
    free(image);
    free(log);
    free(argv);
    free(source);
    free(key);
    free(user_argv);
    free(opt_copy);
    return st;
}
