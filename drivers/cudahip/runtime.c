/* The runtime's entry points (resolved from the map's X-macro list with dlsym) and the failure message of a
 * runtime call. Shared by the CUDA and HIP drivers (gpu.h). */
#define _GNU_SOURCE 1 /* RTLD_*, strnlen under -std=c11 */
#include "gpu.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

hcl__gpu_symbols hcl__gpu;

/* Every checked signature in the map must be the one the vendor header declares for that exported name. Taking
 * the address of a deprecated declaration is what this check is for, not a use of it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define HCL__GPU_CHECK_SIG(ret, name, params)                                                               \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params),                          \
                   #name ": signature differs from the vendor header");
#define HCL__GPU_CHECK_SIG_OR(ret, name, old, params) HCL__GPU_CHECK_SIG(ret, name, params)
#define HCL__GPU_NO_CHECK(ret, name, params)
HCL_GPU_SYMBOLS(HCL__GPU_CHECK_SIG, HCL__GPU_CHECK_SIG, HCL__GPU_CHECK_SIG_OR, HCL__GPU_NO_CHECK, HCL__GPU_NO_CHECK)
#undef HCL__GPU_CHECK_SIG
#undef HCL__GPU_CHECK_SIG_OR
#undef HCL__GPU_NO_CHECK
#pragma GCC diagnostic pop

hcl_status hcl__gpu_resolve(void *library, char *reason, size_t reason_size) {
    hcl__gpu_symbols syms;
    memset(&syms, 0, sizeof syms);
    size_t found = 0, optional_missing = 0;
#define HCL__GPU_RESOLVE_REQ(ret, name, params)                                                             \
    {                                                                                                       \
        void *p = dlsym(library, #name);                                                                    \
        if (!p) {                                                                                           \
            snprintf(reason, reason_size, "%s lacks %s (%s)", HCL_GPU_LIBRARY_LABEL, #name,                 \
                     HCL_GPU_RUNTIME_TOO_OLD);                                                              \
            return HCL_ERROR_BACKEND_UNAVAILABLE;                                                           \
        }                                                                                                   \
        memcpy(&syms.name, &p, sizeof p);                                                                   \
        found++;                                                                                            \
    }
#define HCL__GPU_RESOLVE_OPT(ret, name, params)                                                             \
    {                                                                                                       \
        void *p = dlsym(library, #name);                                                                    \
        if (p) {                                                                                            \
            memcpy(&syms.name, &p, sizeof p);                                                               \
            found++;                                                                                        \
        } else {                                                                                            \
            HCL_GPU_LOG("%s lacks optional %s", HCL_GPU_LIBRARY_LABEL, #name);                              \
            optional_missing++;                                                                             \
        }                                                                                                   \
    }
#define HCL__GPU_RESOLVE_REQ_OR(ret, name, old, params)                                                     \
    {                                                                                                       \
        void *p = dlsym(library, #name);                                                                    \
        if (!p) {                                                                                           \
            p = dlsym(library, old);                                                                        \
            if (p) HCL_GPU_LOG("%s lacks %s: using %s", HCL_GPU_LIBRARY_LABEL, #name, old);                 \
        }                                                                                                   \
        if (!p) {                                                                                           \
            snprintf(reason, reason_size, "%s lacks both %s and %s (%s)", HCL_GPU_LIBRARY_LABEL, #name, old, \
                     HCL_GPU_RUNTIME_TOO_OLD);                                                              \
            return HCL_ERROR_BACKEND_UNAVAILABLE;                                                           \
        }                                                                                                   \
        memcpy(&syms.name, &p, sizeof p);                                                                   \
        found++;                                                                                            \
    }
    HCL_GPU_SYMBOLS(HCL__GPU_RESOLVE_REQ, HCL__GPU_RESOLVE_OPT, HCL__GPU_RESOLVE_REQ_OR, HCL__GPU_RESOLVE_REQ,
                    HCL__GPU_RESOLVE_OPT)
#undef HCL__GPU_RESOLVE_REQ
#undef HCL__GPU_RESOLVE_OPT
#undef HCL__GPU_RESOLVE_REQ_OR
    hcl__gpu = syms;
    HCL_GPU_LOG("resolved %zu %s entry points (%zu optional ones missing)", found, HCL_GPU_API, optional_missing);
    return HCL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * Failure messages
 * ------------------------------------------------------------------------------------------------------- */
static _Thread_local char g_last_failure[12288]; /* the last hcl__gpu_fail text */

hcl_status hcl__gpu_fail(hcl_gpu_result r, const char *call, const char *fmt, ...) {
    char detail[9216]; /* room for a JIT log (module.c) */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    /* "cuMemAlloc_v2" -> "cuMemAlloc": users know the calls by the names the headers document */
    int call_len = (int)strlen(call);
    const char *v = strrchr(call, '_');
    if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9') call_len = (int)(v - call);
    const char *fork_note = "";
    char fork_text[160];
    if (hcl__gpu_init_pid && getpid() != hcl__gpu_init_pid) {
        snprintf(fork_text, sizeof fork_text,
                 "; note: %s was initialised in process %d before it forked this one (%d), and %s does not "
                 "survive fork()",
                 HCL_GPU_API, hcl__gpu_init_pid, (int)getpid(), HCL_GPU_API);
        fork_note = fork_text;
    }
    snprintf(g_last_failure, sizeof g_last_failure, "%.*s: %s (%d) %s%s", call_len, call, hcl__gpu_error_name(r),
             (int)r, detail, fork_note);
    return hcl__gpu_host->set_message(hcl__gpu_status(r), "%s", g_last_failure);
}

const char *hcl__gpu_last_failure(void) { return g_last_failure; }

hcl_status hcl__gpu_oom(const char *what) {
    snprintf(g_last_failure, sizeof g_last_failure, "%s: out of host memory (%s)", HCL_GPU_NAME, what);
    return hcl__gpu_host->set_message(HCL_ERROR_OUT_OF_MEMORY, "%s", g_last_failure);
}
