/* The runtime's entry points (the map's X-macro list, resolved by the kit) and the failure message of a runtime
 * call. Shared by the CUDA and HIP drivers (gpu.h). */
#include "gpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

hcl__gpu_symbols hcl__gpu;
int hcl__gpu_driver_version;
int hcl__gpu_init_pid; /* neither runtime survives fork(): messages in a forked child say so */

/* Every checked signature in the map must be the one the vendor header declares for that exported name. Taking
 * the address of a deprecated declaration is what this check is for, not a use of it. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#define HCL__GPU_CHECK_SIG(ret, name, params)                                                                          \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), ret(*) params),                                     \
                   #name ": signature differs from the vendor header");
#define HCL__GPU_CHECK_SIG_OR(ret, name, old, params) HCL__GPU_CHECK_SIG(ret, name, params)
#define HCL__GPU_NO_CHECK(ret, name, params)
HCL_GPU_SYMBOLS(HCL__GPU_CHECK_SIG, HCL__GPU_CHECK_SIG, HCL__GPU_CHECK_SIG_OR, HCL__GPU_NO_CHECK, HCL__GPU_NO_CHECK)
#undef HCL__GPU_CHECK_SIG
#undef HCL__GPU_CHECK_SIG_OR
#undef HCL__GPU_NO_CHECK
#pragma GCC diagnostic pop

/* The map's list as the kit's symbol table: the _U kinds are resolved like the others (only the header check
 * above skips them). */
#define HCL__GPU_REQ(ret, name, params) HCL_KIT_SYMBOL(hcl__gpu_symbols, name)
#define HCL__GPU_OPT(ret, name, params) HCL_KIT_SYMBOL_OPTIONAL(hcl__gpu_symbols, name)
#define HCL__GPU_REQ_OR(ret, name, old, params) HCL_KIT_SYMBOL_OR(hcl__gpu_symbols, name, old)
static const hcl_kit_symbol g_symbols[] = {
    HCL_GPU_SYMBOLS(HCL__GPU_REQ, HCL__GPU_OPT, HCL__GPU_REQ_OR, HCL__GPU_REQ, HCL__GPU_OPT)};
#undef HCL__GPU_REQ
#undef HCL__GPU_OPT
#undef HCL__GPU_REQ_OR

hcl_status hcl__gpu_resolve(void *library, char *reason, size_t reason_size) {
    return hcl__kit_resolve(library, g_symbols, sizeof g_symbols / sizeof g_symbols[0], &hcl__gpu,
                            HCL_GPU_LIBRARY_LABEL, HCL_GPU_RUNTIME_TOO_OLD, reason, reason_size);
}

/* ---------------------------------------------------------------------------------------------------------
 * Failure messages
 * ------------------------------------------------------------------------------------------------------- */
hcl_status hcl__gpu_status(hcl_gpu_result r) {
    switch (r) {
#define HCL__GPU_CASE(code) case code:
        HCL_GPU_BUILD_ERRORS(HCL__GPU_CASE)
#undef HCL__GPU_CASE
        return HCL_ERROR_BUILD;
#define HCL__GPU_CASE(code) case code:
        HCL_GPU_LOST_ERRORS(HCL__GPU_CASE)
#undef HCL__GPU_CASE
        return HCL_ERROR_DEVICE_LOST;
    case HCL_GPU_SUCCESS: return HCL_SUCCESS;
    case HCL_GPU_ERROR_OUT_OF_MEMORY: return HCL_ERROR_OUT_OF_MEMORY;
    case HCL_GPU_ERROR_NOT_FOUND: return HCL_ERROR_NOT_FOUND;
    default: return HCL_ERROR_VENDOR;
    }
}

hcl_status hcl__gpu_fail(hcl_gpu_result r, const char *call, const char *fmt, ...) {
    char note[192] = "";
    if (hcl__gpu_init_pid && getpid() != hcl__gpu_init_pid)
        snprintf(note, sizeof note,
                 "; note: %s was initialised in process %d before it forked this one (%d), and %s does not "
                 "survive fork()",
                 HCL_GPU_API, hcl__gpu_init_pid, (int)getpid(), HCL_GPU_API);
    va_list ap;
    va_start(ap, fmt);
    hcl_status status = hcl__kit_vendor_fail(hcl__gpu_status(r), call, hcl__gpu_error_name(r), (long long)r,
                                             HCL_KIT_CODE_DECIMAL, note, fmt, ap);
    va_end(ap);
    if (status == HCL_ERROR_DEVICE_LOST) hcl__gpu_lost_note();
    return status;
}
