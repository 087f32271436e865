/* NVRTC: opened on first use only, so a machine with just the NVIDIA driver runs every built-in kernel from the
 * embedded fatbin. Compiles CUDA C++ for one device architecture through the on-disk cache. Once loaded it stays
 * loaded: NVRTC carries its own C++ runtime, whose process-lifetime allocations would turn into leaks (and its
 * exit handlers into dangling code) if it were unloaded.
 * This file calls nothing in libcuda, so the CI test (test_nvrtc.c) links it on a machine without a GPU. */
#define _GNU_SOURCE 1 /* RTLD_*, strnlen under -std=c11 */
#include "internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every signature in symbols.h must be the one nvrtc.h declares. */
#define HCL__NVRTC_CHECK_SIG(ret, name, params)                                                              \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params),                           \
                   #name ": signature differs from nvrtc.h");
HCL_NVRTC_SYMBOLS(HCL__NVRTC_CHECK_SIG)
#undef HCL__NVRTC_CHECK_SIG

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_state;                 /* 0 not tried, 1 loaded, -1 failed (g_reason says why) */
static void *g_library;
static hcl__nvrtc_symbols g_nv;
static char g_reason[1536];
static int g_major, g_minor;        /* nvrtcVersion */
static int *g_archs;                /* real architectures NVRTC can make SASS for, ascending (75, 80, ...) */
static int g_num_archs;

static void append(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void append(char *buf, size_t size, const char *fmt, ...) {
    size_t used = strnlen(buf, size);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

static hcl_status open_locked(void) {
    const char *override = getenv("HCL_NVRTC_LIBRARY");
    const char *candidates[8];
    char home_paths[2][512];
    size_t count = 0;
    if (override && override[0]) {
        candidates[count++] = override;
    } else {
        candidates[count++] = "libnvrtc.so.13";
        candidates[count++] = "libnvrtc.so.12";
        candidates[count++] = "libnvrtc.so";
        /* a toolkit that is installed but not on the loader path */
        const char *homes[2] = {getenv("CUDA_HOME"), getenv("CUDA_PATH")};
        for (int i = 0; i < 2; i++)
            if (homes[i] && homes[i][0]) {
                snprintf(home_paths[i], sizeof home_paths[i], "%s/lib64/libnvrtc.so", homes[i]);
                candidates[count++] = home_paths[i];
            }
        candidates[count++] = "/usr/local/cuda/lib64/libnvrtc.so";
    }
    g_reason[0] = '\0';
    for (size_t i = 0; i < count && !g_library; i++) {
        g_library = dlopen(candidates[i], RTLD_NOW | RTLD_LOCAL);
        if (g_library) {
            HCL_CU_LOG("dlopen %s: loaded", candidates[i]);
            break;
        }
        const char *e = dlerror();
        HCL_CU_LOG("dlopen %s: %s", candidates[i], e ? e : "failed");
        append(g_reason, sizeof g_reason, "%s%s", i ? "; " : "", e ? e : candidates[i]);
    }
    if (!g_library) {
        append(g_reason, sizeof g_reason, " (tried: ");
        for (size_t i = 0; i < count; i++) append(g_reason, sizeof g_reason, "%s%s", i ? ", " : "", candidates[i]);
        append(g_reason, sizeof g_reason, "%s)", override && override[0] ? ", from HCL_NVRTC_LIBRARY" : "");
        return HCL_ERROR_UNSUPPORTED;
    }
    hcl__nvrtc_symbols syms;
    memset(&syms, 0, sizeof syms);
#define HCL__NVRTC_RESOLVE(ret, name, params)                                                                \
    {                                                                                                       \
        void *p = dlsym(g_library, #name);                                                                  \
        if (!p) {                                                                                           \
            snprintf(g_reason, sizeof g_reason, "libnvrtc lacks %s (NVRTC 11.2 or later is needed)", #name);  \
            goto fail;                                                                                      \
        }                                                                                                   \
        memcpy(&syms.name, &p, sizeof p);                                                                   \
    }
    HCL_NVRTC_SYMBOLS(HCL__NVRTC_RESOLVE)
#undef HCL__NVRTC_RESOLVE
    if (syms.nvrtcVersion(&g_major, &g_minor) != NVRTC_SUCCESS) g_major = g_minor = 0;
    int n = 0;
    if (syms.nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || !(g_archs = calloc((size_t)n, sizeof(int))) ||
        syms.nvrtcGetSupportedArchs(g_archs) != NVRTC_SUCCESS) {
        snprintf(g_reason, sizeof g_reason, "libnvrtc %d.%d: cannot list its supported architectures", g_major,
                 g_minor);
        goto fail;
    }
    g_num_archs = n;
    g_nv = syms;
    HCL_CU_LOG("NVRTC %d.%d: sm_%d .. sm_%d", g_major, g_minor, g_archs[0], g_archs[n - 1]);
    return HCL_SUCCESS;
fail:
    free(g_archs);
    g_archs = NULL;
    dlclose(g_library);
    g_library = NULL;
    return HCL_ERROR_UNSUPPORTED;
}

hcl_status hcl__cu_nvrtc_open(void) {
    pthread_mutex_lock(&g_lock);
    if (g_state == 0) g_state = open_locked() == HCL_SUCCESS ? 1 : -1;
    int state = g_state;
    pthread_mutex_unlock(&g_lock);
    if (state == 1) return HCL_SUCCESS;
    return hcl__cu_host->set_message(HCL_ERROR_UNSUPPORTED, "cuda: NVRTC is not available: %s", g_reason);
}

const char *hcl__cu_nvrtc_reason(void) {
    pthread_mutex_lock(&g_lock);
    const char *r = g_state == -1 ? g_reason : "";
    pthread_mutex_unlock(&g_lock);
    return r;
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

static int names_arch(const char *opt) {
    return strncmp(opt, "-arch", 5) == 0 || strncmp(opt, "--gpu-architecture", 18) == 0;
}

/* The -arch option for a device: SASS when NVRTC knows the architecture, else PTX of the newest virtual
 * architecture not above the device (the driver JIT-compiles it). */
static hcl_status pick_target(int arch, char *opt, size_t opt_size) {
    int best = 0;
    for (int i = 0; i < g_num_archs; i++) {
        if (g_archs[i] == arch) {
            snprintf(opt, opt_size, "--gpu-architecture=sm_%d", arch);
            return HCL_SUCCESS;
        }
        if (g_archs[i] < arch && g_archs[i] > best) best = g_archs[i];
    }
    if (best) {
        snprintf(opt, opt_size, "--gpu-architecture=compute_%d", best);
        return HCL_SUCCESS;
    }
    return hcl__cu_host->set_message(HCL_ERROR_BUILD, "cuda: NVRTC %d.%d cannot target sm_%d (it knows sm_%d to sm_%d)",
                                     g_major, g_minor, arch, g_archs[0], g_archs[g_num_archs - 1]);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Key: everything the result depends on; the core adds the HCL version and hashes it. */
static char *cache_key(const hcl__cu_nvrtc_job *job, const char *target, size_t *out_size) {
    char head[1024];
    int n = snprintf(head, sizeof head, "nvrtc %d.%d\ndriver %d\ntarget %s\noptions %s\nname %s\nheaders %d\n",
                     g_major, g_minor, job->driver_version, target ? target : "(user)",
                     job->options ? job->options : "", job->name, job->num_headers);
    if (n < 0 || (size_t)n >= sizeof head) return NULL;
    size_t size = (size_t)n + job->source_size;
    for (int i = 0; i < job->num_headers; i++)
        size += strlen(job->include_names[i]) + 1 + strlen(job->headers[i]) + 1;
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

static hcl_status nvrtc_fail(nvrtcResult r, const char *call, const hcl__cu_nvrtc_job *job, const char *target,
                             const char *log) {
    return hcl__cu_host->set_message(HCL_ERROR_BUILD, "%s: %s (%d) building '%s' for %s with NVRTC %d.%d%s%s", call,
                                     g_nv.nvrtcGetErrorString(r), (int)r, job->name, target ? target : "(user -arch)",
                                     g_major, g_minor, log && log[0] ? ":\n" : "", log ? log : "");
}

hcl_status hcl__cu_nvrtc_compile(const hcl__cu_nvrtc_job *job, void **out_image, size_t *out_size,
                                 int *out_is_cubin) {
    hcl_status st = hcl__cu_nvrtc_open();
    if (st != HCL_SUCCESS) return st;

    char *opt_copy = NULL, *source = NULL, *key = NULL, *log = NULL, *image = NULL;
    const char **user_argv = NULL, **argv = NULL;
    int user_argc = 0;
    nvrtcProgram prog = NULL;
    size_t key_size = 0;
    char target_opt[64];
    const char *target = NULL;

    if (split_options(job->options, &opt_copy, &user_argv, &user_argc) != 0) {
        st = hcl__cu_host->set_message(HCL_ERROR_OUT_OF_MEMORY, "cuda: out of host memory (NVRTC options)");
        goto cleanup;
    }
    int user_arch = 0;
    for (int i = 0; i < user_argc; i++) user_arch |= names_arch(user_argv[i]);
    if (!user_arch) {
        if ((st = pick_target(job->arch, target_opt, sizeof target_opt)) != HCL_SUCCESS) goto cleanup;
        target = target_opt;
    }

    /* the disk cache: 1 byte of kind ('C' cubin, 'P' ptx) then the image */
    key = cache_key(job, target, &key_size);
    if (key && hcl__cu_host->cache_load) {
        size_t got = 0;
        unsigned char *hit = hcl__cu_host->cache_load(HCL_CU_NAME, key, key_size, &got);
        if (hit && got > 1 && (hit[0] == 'C' || hit[0] == 'P')) {
            image = malloc(got); /* PTX gets a NUL after it */
            if (image) {
                memcpy(image, hit + 1, got - 1);
                image[got - 1] = '\0';
                *out_is_cubin = hit[0] == 'C';
                *out_size = got - 1;
                *out_image = image;
                image = NULL;
                free(hit);
                HCL_CU_LOG("NVRTC cache hit: '%s' for %s (%zu bytes)", job->name, target ? target : "(user)", got - 1);
                goto cleanup;
            }
        }
        free(hit);
    }

    source = malloc(job->source_size + 1); /* a source may come without its NUL */
    argv = malloc((size_t)(user_argc + 1) * sizeof *argv);
    if (!source || !argv) {
        st = hcl__cu_host->set_message(HCL_ERROR_OUT_OF_MEMORY, "cuda: out of host memory (NVRTC source)");
        goto cleanup;
    }
    memcpy(source, job->source, job->source_size);
    source[job->source_size] = '\0';
    int argc = 0;
    if (target) argv[argc++] = target;
    for (int i = 0; i < user_argc; i++) argv[argc++] = user_argv[i];

    double t0 = now_ms();
    nvrtcResult r = g_nv.nvrtcCreateProgram(&prog, source, job->name, job->num_headers, job->headers,
                                            job->include_names);
    if (r != NVRTC_SUCCESS) {
        prog = NULL;
        st = nvrtc_fail(r, "nvrtcCreateProgram", job, target, NULL);
        goto cleanup;
    }
    r = g_nv.nvrtcCompileProgram(prog, argc, argv);
    size_t log_size = 0;
    if (g_nv.nvrtcGetProgramLogSize(prog, &log_size) == NVRTC_SUCCESS && log_size > 1 &&
        (log = malloc(log_size + 1)) != NULL) {
        if (g_nv.nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = '\0';
        log[log_size] = '\0';
    }
    if (r != NVRTC_SUCCESS) {
        st = nvrtc_fail(r, "nvrtcCompileProgram", job, target, log);
        goto cleanup;
    }
    if (log && log[0]) HCL_CU_LOG("NVRTC log for '%s':\n%s", job->name, log);
    size_t cubin_size = 0, size = 0;
    int is_cubin = g_nv.nvrtcGetCUBINSize(prog, &cubin_size) == NVRTC_SUCCESS && cubin_size > 0;
    if (is_cubin) {
        size = cubin_size;
    } else if ((r = g_nv.nvrtcGetPTXSize(prog, &size)) != NVRTC_SUCCESS) {
        st = nvrtc_fail(r, "nvrtcGetPTXSize", job, target, NULL);
        goto cleanup;
    }
    image = malloc(size + 2); /* kind byte for the cache, and room for a NUL */
    if (!image) {
        st = hcl__cu_host->set_message(HCL_ERROR_OUT_OF_MEMORY, "cuda: out of host memory (%zu-byte image)", size);
        goto cleanup;
    }
    image[0] = is_cubin ? 'C' : 'P';
    r = is_cubin ? g_nv.nvrtcGetCUBIN(prog, image + 1) : g_nv.nvrtcGetPTX(prog, image + 1);
    if (r != NVRTC_SUCCESS) {
        st = nvrtc_fail(r, is_cubin ? "nvrtcGetCUBIN" : "nvrtcGetPTX", job, target, NULL);
        goto cleanup;
    }
    image[size + 1] = '\0';
    HCL_CU_LOG("NVRTC compiled '%s' for %s: %zu-byte %s in %.1f ms", job->name, target ? target : "(user -arch)",
               size, is_cubin ? "CUBIN" : "PTX", now_ms() - t0);
    if (key && hcl__cu_host->cache_store) hcl__cu_host->cache_store(HCL_CU_NAME, key, key_size, image, size + 1);
    memmove(image, image + 1, size + 1); /* drop the kind byte; the NUL follows the image */
    *out_image = image;
    *out_size = size;
    *out_is_cubin = is_cubin;
    image = NULL;
    st = HCL_SUCCESS;
cleanup:
    if (prog) g_nv.nvrtcDestroyProgram(&prog);
    free(image);
    free(log);
    free(argv);
    free(source);
    free(key);
    free(user_argv);
    free(opt_copy);
    return st;
}
