/* The telemetry sources behind hcl_telemetry.h (telemetry.c dispatches; one file per source). Each source opens its
 * library on first use (the core's open_library: the usual names, or its override variable) and resolves it through
 * the driver kit's symbol table (hcl__kit_resolve), so libhcl links no vendor library. */
#ifndef HCL_TELEMETRY_SOURCE_H
#define HCL_TELEMETRY_SOURCE_H

#include "check.h" /* hcl__kit_appendf */
#include "hcl/hcl_telemetry.h"

#include <stddef.h>
#include <stdint.h>

#define HCL__HIDDEN_T __attribute__((visibility("hidden")))

/* A field read: known with value. */
/* `t` emptied: every field "not read", or "not asked for" where `fields` (HCL_TELEMETRY_BIT of each; 0: all) leaves
 * it out, "no such field" past the list (fields.c). */
HCL__HIDDEN_T void hcl__tele_reset(hcl_telemetry *t, uint32_t fields);
HCL__HIDDEN_T void hcl__tele_set(hcl_telemetry *t, hcl_telemetry_field f, double value);
/* A field not read: unknown with the reason (printf-style); a field not asked for keeps "not asked for". */
HCL__HIDDEN_T void hcl__tele_unknown(hcl_telemetry *t, hcl_telemetry_field f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 1 when field f was asked for. */
HCL__HIDDEN_T int hcl__tele_wanted(const hcl_telemetry *t, hcl_telemetry_field f);
/* The throttle bits in words into t->throttle_text. */
HCL__HIDDEN_T void hcl__tele_throttle_text(hcl_telemetry *t, uint32_t bits);

/* Each source's read: 1 when it serves the device (t->source, t->detail and the fields it knows are filled), 0 when
 * it does not, with why in `why` (the library missing, no device of that UUID). */
HCL__HIDDEN_T int hcl__tele_nvml_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size);
HCL__HIDDEN_T int hcl__tele_nvml_mig(const hcl_device_info *d, hcl_mig_info *m);
HCL__HIDDEN_T int hcl__tele_rsmi_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size);
HCL__HIDDEN_T int hcl__tele_sysman_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size);
HCL__HIDDEN_T int hcl__tele_host_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size);
/* The folder that stands for / (HCL_TELEMETRY_ROOT, tests), "" for the real one. */
HCL__HIDDEN_T const char *hcl__tele_root(void);

#endif /* HCL_TELEMETRY_SOURCE_H */
