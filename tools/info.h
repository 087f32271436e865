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
/* What the backend's name alone ("opencl", as in HCL_BACKEND=opencl) opens, asked of the library's own selection by
 * opening it (hcl_device_open: its first GPU, else accelerator, else CPU): 1 with the device's selector in out and
 * its type in *out_type, or 0 with why it opens nothing ("HCL_ERROR_...: message") in out. */
int info_bare_device(const char *backend, char *out, size_t out_size, hcl_device_type *out_type);

/* Write the whole report as one JSON document (docs/hcl-info.md gives the schema) to stdout: every backend, the
 * devices (all of them, or only global index `only` when only_one is set) and the default device (skipped, null,
 * when only_one is set). Returns the exit status: 0, or 1 when the library failed to answer. */
int info_print_json(int only_one, uint32_t only);

/* The peer-access matrix of one backend's devices (info_peer.c): direct[i * count + j] is 1 when device i reaches
 * device j's memory directly (hcl_device_peer_access), else 0; error says what failed ("" when every answer came). */
typedef struct info_peer {
    char backend[32];
    uint32_t count;
    int *direct;
    char error[HCL_REASON_MAX + 128];
} info_peer;
/* Open each of the backend's devices and ask every ordered pair; the first failure's status (the matrix is filled
 * all the same, 0 where no answer came). Free with info_peer_free. */
hcl_status info_peer_matrix(const hcl_backend_info *backend, info_peer *out);
void info_peer_free(info_peer *m);
/* The text output's "Peer access" section: a matrix per backend with more than one device. */
void info_print_peer_text(void);

/* A JSON string (quotes, backslashes and control characters escaped) on stdout (info_json.c). */
void info_json_string(const char *s);

/* Telemetry (info_telemetry.c): the block under a device in the text output (its readings, each known or unknown
 * with the reason, and its MIG instances where MIG is on); the device object's "telemetry" and "mig" keys, each
 * after `sep`; and --monitor: every `interval_ms` a line per device (text, or one JSON object per line), `count`
 * samples (0: until interrupted). info_monitor returns the exit status. */
void info_print_telemetry_text(uint32_t index);
void info_json_telemetry(uint32_t index, const char *sep);
int info_monitor(int only_one, uint32_t only, unsigned interval_ms, long count, int json);

/* The text output's "Communication engines" section (info_engines.c). */
void info_print_engines_text(void);

#endif /* HCL_TOOLS_INFO_H */
