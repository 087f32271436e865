/* hcl-info's parts: the text output and the option handling (hcl-info.c) and the JSON output (info_json.c), which
 * describe the same backends and devices with the same names (info_names.c). */
#ifndef HCL_TOOLS_INFO_H
#define HCL_TOOLS_INFO_H

#include <hcl/hcl.h>

#include <stddef.h>
#include <stdint.h>

/* "CPU", "GPU", "accelerator", "other"; "unknown" for a value not in the enum. */
const char *info_type_name(hcl_device_type type);
/* The matrix unit in words: "none", "tensor cores", "matrix cores (MFMA)", "XMX". */
const char *info_matrix_unit_name(hcl_matrix_unit unit);
/* The selector that opens the device: "<backend>:<index>" ("opencl:0"). */
void info_selector(const hcl_device_info *d, char *out, size_t out_size);

/* Write the whole report as one JSON document (docs/hcl-info.md gives the schema) to stdout: every backend, the
 * devices (all of them, or only global index `only` when only_one is set) and the default device (skipped, null,
 * when only_one is set). Returns the exit status: 0, or 1 when the library failed to answer. */
int info_print_json(int only_one, uint32_t only);

#endif /* HCL_TOOLS_INFO_H */
