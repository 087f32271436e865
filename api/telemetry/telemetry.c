/* hcl_telemetry.h's entry points: which source serves a device, and the fields' bookkeeping. */
#define _GNU_SOURCE 1
#include "core.h"
#include "source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const field_names[] = {
#define NAME(e, name, unit) name,
    HCL_TELEMETRY_FIELDS(NAME)
#undef NAME
};
static const char *const field_units[] = {
#define UNIT(e, name, unit) unit,
    HCL_TELEMETRY_FIELDS(UNIT)
#undef UNIT
};

HCL_API const char *hcl_telemetry_field_name(hcl_telemetry_field field) {
    return (unsigned)field < HCL_TELEMETRY_FIELD_COUNT ? field_names[field] : NULL;
}

HCL_API const char *hcl_telemetry_field_unit(hcl_telemetry_field field) {
    return (unsigned)field < HCL_TELEMETRY_FIELD_COUNT ? field_units[field] : NULL;
}

/* The "asked for" marks live in the reason of fields not yet read: a field not asked for says so. */
static const char not_asked[] = "not asked for";

int hcl__tele_wanted(const hcl_telemetry *t, hcl_telemetry_field f) {
    return strcmp(t->fields[f].reason, not_asked) != 0;
}

void hcl__tele_set(hcl_telemetry *t, hcl_telemetry_field f, double value) {
    if (!hcl__tele_wanted(t, f)) return;
    t->fields[f].known = 1;
    t->fields[f].value = value;
    t->fields[f].reason[0] = '\0';
}

void hcl__tele_unknown(hcl_telemetry *t, hcl_telemetry_field f, const char *fmt, ...) {
    if (!hcl__tele_wanted(t, f)) return;
    t->fields[f].known = 0;
    t->fields[f].value = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->fields[f].reason, sizeof t->fields[f].reason, fmt, ap);
    va_end(ap);
}

void hcl__tele_throttle_text(hcl_telemetry *t, uint32_t bits) {
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{HCL_THROTTLE_IDLE, "idle"},         {HCL_THROTTLE_APPLICATION_CLOCKS, "application clocks"},
                 {HCL_THROTTLE_POWER, "power cap"},   {HCL_THROTTLE_THERMAL, "thermal"},
                 {HCL_THROTTLE_HARDWARE, "hardware"}, {HCL_THROTTLE_OTHER, "other"}};
    t->throttle_text[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (bits & names[i].bit)
            hcl__kit_appendf(t->throttle_text, sizeof t->throttle_text, "%s%s", t->throttle_text[0] ? ", " : "",
                             names[i].name);
}

const char *hcl__tele_root(void) {
    const char *root = getenv("HCL_TELEMETRY_ROOT");
    return root ? root : "";
}

static int contains(const char *text, const char *word) { return strcasestr(text, word) != NULL; }

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Fill `t` for the device `d` describes: every field unknown (or not asked for), then the source that serves it. */
static void read_device(const hcl_device_info *d, uint32_t fields, hcl_telemetry *t) {
    memset(t, 0, sizeof *t);
    t->field_count = HCL_TELEMETRY_FIELD_COUNT;
    for (int f = 0; f < HCL_TELEMETRY_FIELD_MAX; f++)
        snprintf(t->fields[f].reason, sizeof t->fields[f].reason, "%s",
                 f >= HCL_TELEMETRY_FIELD_COUNT                 ? "no such field"
                 : (fields && !(fields & HCL_TELEMETRY_BIT(f))) ? not_asked
                                                                : "not read");
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
