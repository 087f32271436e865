/* hcl_telemetry.h's entry points: which source serves a device (the fields' bookkeeping: fields.c). */
#define _GNU_SOURCE 1
#include "core.h"
#include "source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int contains(const char *text, const char *word) { return strcasestr(text, word) != NULL; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Fill `t` for the device `d` describes: every field unknown (or not asked for), then the source that serves it. */
static void read_device(const hcl_device_info *d, uint32_t fields, hcl_telemetry *t) {
    hcl__tele_reset(t, fields);
    t->time_s = now_s();
    char why[512] = "";
    int served = 0;
    const char *off = getenv("HCL_TELEMETRY");
    if (off && (strcmp(off, "off") == 0 || strcmp(off, "0") == 0)) {
        snprintf(why, sizeof why, "telemetry is off (HCL_TELEMETRY=%s)", off);
    } else if (strcmp(d->backend, "cuda") == 0 || contains(d->vendor, "nvidia")) {
        served = hcl__tele_nvml_read(d, t, why, sizeof why);
    } else if (strcmp(d->backend, "hip") == 0 ||
               (d->type == HCL_DEVICE_TYPE_GPU &&
                (contains(d->vendor, "amd") || contains(d->vendor, "advanced micro")))) {
        served = hcl__tele_rsmi_read(d, t, why, sizeof why);
    } else if (d->type == HCL_DEVICE_TYPE_CPU) {
        served = hcl__tele_host_read(d, t, why, sizeof why);
    } else if (contains(d->vendor, "intel") || strcmp(d->backend, "levelzero") == 0) {
        served = hcl__tele_sysman_read(d, t, why, sizeof why);
    } else {
        snprintf(why, sizeof why, "no telemetry source for a %s device of vendor '%.100s'", d->backend, d->vendor);
    }
    if (!served) {
        t->source[0] = '\0';
        t->detail[0] = '\0';
        hcl__kit_appendf(t->detail, sizeof t->detail, "%s", why); /* cut at its size */
        for (int f = 0; f < HCL_TELEMETRY_FIELD_COUNT; f++) hcl__tele_unknown(t, (hcl_telemetry_field)f, "%s", why);
    }
}

HCL_API hcl_status hcl_device_get_telemetry_by_index(uint32_t index, uint32_t fields, hcl_telemetry *out_telemetry) {
    if (!out_telemetry)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_get_telemetry_by_index: out_telemetry is NULL");
    hcl_device_info info;
    hcl_status st = hcl_device_get_info_by_index_v2(index, &info);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, "hcl_device_get_telemetry_by_index");
    hcl_telemetry *t = malloc(sizeof *t); /* written whole or not at all */
    if (!t) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "hcl_device_get_telemetry_by_index: out of host memory");
    read_device(&info, fields, t);
    memcpy(out_telemetry, t, sizeof *t);
    free(t);
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_device_get_telemetry(hcl_device device, hcl_telemetry *out_telemetry) {
    hcl_device_info info;
    hcl_status st = hcl_device_get_info_v2(device, &info);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, "hcl_device_get_telemetry");
    if (!out_telemetry)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_get_telemetry: out_telemetry is NULL");
    hcl_telemetry *t = malloc(sizeof *t);
    if (!t) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "hcl_device_get_telemetry: out of host memory");
    read_device(&info, 0, t);
    memcpy(out_telemetry, t, sizeof *t);
    free(t);
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_device_get_mig_by_index(uint32_t index, hcl_mig_info *out_mig) {
    if (!out_mig) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_get_mig_by_index: out_mig is NULL");
    hcl_device_info info;
    hcl_status st = hcl_device_get_info_by_index_v2(index, &info);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, "hcl_device_get_mig_by_index");
    hcl_mig_info *m = calloc(1, sizeof *m);
    if (!m) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "hcl_device_get_mig_by_index: out of host memory");
    const char *off = getenv("HCL_TELEMETRY");
    if (off && (strcmp(off, "off") == 0 || strcmp(off, "0") == 0))
        snprintf(m->reason, sizeof m->reason, "telemetry is off (HCL_TELEMETRY=%s)", off);
    else if (strcmp(info.backend, "cuda") == 0 || contains(info.vendor, "nvidia"))
        hcl__tele_nvml_mig(&info, m);
    else
        snprintf(m->reason, sizeof m->reason, "MIG is an NVIDIA GPU mode (this is a %s device of '%.100s')",
                 info.backend, info.vendor);
    memcpy(out_mig, m, sizeof *m);
    free(m);
    return HCL_SUCCESS;
}
