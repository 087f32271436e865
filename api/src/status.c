/* Status names and texts (from the one X-macro list in hcl.h) and the thread-local message. */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define HCL__MESSAGE_MAX 4096
static _Thread_local char tls_message[HCL__MESSAGE_MAX];

HCL_API const char *hcl_status_name(hcl_status status) {
    switch (status) {
#define HCL__STATUS_NAME(name, value, text)                                                                            \
    case HCL_##name: return "HCL_" #name;
        HCL_STATUS_MAP(HCL__STATUS_NAME)
#undef HCL__STATUS_NAME
    }
    return "HCL_STATUS_UNKNOWN";
}

HCL_API const char *hcl_status_text(hcl_status status) {
    switch (status) {
#define HCL__STATUS_TEXT(name, value, text)                                                                            \
    case HCL_##name: return text;
        HCL_STATUS_MAP(HCL__STATUS_TEXT)
#undef HCL__STATUS_TEXT
    }
    return "unknown status";
}

HCL_API const char *hcl_last_message(void) { return tls_message; }

hcl_status hcl__set_message(hcl_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tls_message, sizeof tls_message, fmt, ap);
    va_end(ap);
    hcl__log(HCL_LOG_DEBUG, "core", "%s: %s", hcl_status_name(status), tls_message);
    return status;
}

hcl_status hcl__prefix_message(hcl_status status, const char *fn) {
    if (status == HCL_SUCCESS) return status; /* a success leaves the message as it was */
    char copy[HCL__MESSAGE_MAX];
    memcpy(copy, tls_message, sizeof copy);
    if (copy[0] == '\0')
        snprintf(tls_message, sizeof tls_message, "%s: %s", fn, hcl_status_text(status));
    else
        snprintf(tls_message, sizeof tls_message, "%s: %.*s", fn, (int)(sizeof copy - 64), copy);
    return status;
}
