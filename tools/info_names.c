/* hcl-info's names, shared by its text output (hcl-info.c) and its JSON output (info_json.c): device types, matrix
 * units, selectors (info.h). */
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
