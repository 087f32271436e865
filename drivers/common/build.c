/* The driver kit's help for drivers that build programs: the on-disk cache key, the build-failure message, and the
 * check of a launch's argument count against the parameters its kernel declares. */
#include "kit.h"

#include <stdio.h>
#include <string.h>

/* The build log goes into the message; its head names the first error. */
#define HCL_KIT_BUILD_LOG_MAX 1200

char *hcl__kit_cache_key(const void *payload, size_t payload_size, size_t *out_size, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    const int head = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *key = head < 0 ? NULL : malloc((size_t)head + payload_size + 1);
    if (key) {
        vsnprintf(key, (size_t)head + 1, fmt, again);
        memcpy(key + head, payload, payload_size);
        key[(size_t)head + payload_size] = '\0';
        *out_size = (size_t)head + payload_size;
    }
    va_end(again);
    return key;
}

hcl_status hcl__kit_build_failed(const char *log, const char *fmt, ...) {
    char detail[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    const size_t n = log ? strlen(log) : 0;
    const int cut = n > HCL_KIT_BUILD_LOG_MAX;
    return HCL_KIT_FAIL(HCL_ERROR_BUILD, "%s; build log%s:\n%.*s%s", detail, cut ? " (truncated)" : "",
                        (int)(cut ? HCL_KIT_BUILD_LOG_MAX : n), log ? log : "", cut ? "\n..." : "");
}

hcl_status hcl__kit_launch_arity(const char *name, uint32_t declared, uint32_t num_args, size_t shared_bytes) {
    const uint32_t given = num_args + (shared_bytes > 0 ? 1 : 0);
    if (declared == UINT32_MAX || given == declared) return HCL_SUCCESS;
    return HCL_KIT_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                        "%s: kernel '%s' declares %u parameters; the launch gives %u argument(s)%s", hcl__kit_name,
                        name, (unsigned)declared, (unsigned)num_args,
                        shared_bytes > 0 ? " plus one __local parameter for the dynamic local memory" : "");
}
