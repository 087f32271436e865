/* The driver kit's failure messages and the core's services as the driver sees them. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "check.h"

#include <stdio.h>
#include <string.h>

/* Until init: messages and logs are dropped, so every failure path is safe even before the core called in. */
static hcl_status no_message(hcl_status status, const char *fmt, ...) {
    (void)fmt;
    return status;
}

static void no_log(hcl_log_level level, const char *driver, const char *fmt, ...) {
    (void)level, (void)driver, (void)fmt;
}

static const hcl_driver_host g_no_host = {
    .size = sizeof(hcl_driver_host),
    .set_message = no_message,
    .log = no_log,
};

const hcl_driver_host *hcl__kit_host = &g_no_host;
const char *hcl__kit_name = "hcl";

static _Thread_local char t_last_failure[12288]; /* room for a JIT or build log in the detail */

const char *hcl__kit_last_failure(void) { return t_last_failure; }

hcl_status hcl__kit_vendor_fail(hcl_status status, const char *call, const char *name, long long code,
                                hcl_kit_code_format format, const char *note, const char *fmt, va_list ap) {
    char detail[9216];
    vsnprintf(detail, sizeof detail, fmt, ap);
    int call_len = (int)strlen(call);
    const char *v = strrchr(call, '_');
    if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9') call_len = (int)(v - call);
    char code_text[32];
    if (format == HCL_KIT_CODE_HEX)
        snprintf(code_text, sizeof code_text, "0x%08llx", (unsigned long long)code & 0xffffffffull);
    else
        snprintf(code_text, sizeof code_text, "%lld", code);
    snprintf(t_last_failure, sizeof t_last_failure, "%.*s: %s (%s); %s%s", call_len, call, name, code_text, detail,
             note ? note : "");
    return hcl__kit_host->set_message(status, "%s", t_last_failure);
}

hcl_status hcl__kit_oom(const char *what) {
    snprintf(t_last_failure, sizeof t_last_failure, "%s: out of host memory (%s)", hcl__kit_name, what);
    return hcl__kit_host->set_message(HCL_ERROR_OUT_OF_MEMORY, "%s", t_last_failure);
}

#ifdef HCL_FAULT_INJECTION
/* The kit's default injected code; a driver whose vendor has an out-of-memory code defines its own. */
__attribute__((weak)) const long long hcl__kit_fault_code = 2;
#endif

void hcl__kit_appendf(char *buf, size_t size, const char *fmt, ...) {
    const size_t used = strnlen(buf, size);
    if (used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}
