/* hcl-info's names, shared by its text output (hcl-info.c) and its JSON output (info_json.c, info_telemetry.c):
 * device types, matrix units, selectors, the device a backend's name alone opens, and JSON strings (info.h). */
#include "info.h"

#include <inttypes.h>
#include <stdio.h>

const char *info_type_name(hcl_device_type t) {
    switch (t) {
    case HCL_DEVICE_TYPE_CPU: return "CPU";
    case HCL_DEVICE_TYPE_GPU: return "GPU";
    case HCL_DEVICE_TYPE_ACCELERATOR: return "accelerator";
    case HCL_DEVICE_TYPE_OTHER: return "other";
    }
    return "unknown";
}

const char *info_matrix_unit_name(hcl_matrix_unit u) {
    switch (u) {
    case HCL_MATRIX_UNIT_NONE: return "none";
    case HCL_MATRIX_UNIT_TENSOR_CORE: return "tensor cores";
    case HCL_MATRIX_UNIT_MFMA: return "matrix cores (MFMA)";
    case HCL_MATRIX_UNIT_XMX: return "XMX";
    }
    return "unknown";
}

void info_selector(const hcl_device_info *d, char *out, size_t out_size) {
    snprintf(out, out_size, "%s:%" PRIu32, d->backend, d->index);
}

int info_bare_device(const char *backend, char *out, size_t out_size, hcl_device_type *out_type) {
    hcl_device device = NULL;
    hcl_device_info info;
    hcl_status st = hcl_device_open(backend, &device);
    if (st == HCL_SUCCESS) st = hcl_device_get_info(device, &info);
    if (st == HCL_SUCCESS) {
        info_selector(&info, out, out_size);
        *out_type = info.type;
    } else {
        snprintf(out, out_size, "%s: %s", hcl_status_name(st), hcl_last_message());
    }
    if (device) hcl_device_release(device);
    return st == HCL_SUCCESS;
}

/* A JSON string: quotes, backslashes and control characters escaped; other bytes (UTF-8) as they are. */
void info_json_string(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        default:
            if (*p < 0x20)
                printf("\\u%04x", *p);
            else
                putchar(*p);
        }
    }
    putchar('"');
}
