/* The telemetry fields' names, units and bookkeeping (a value, or unknown with the reason; whether it was asked for),
 * which telemetry.c and every source (nvml.c, rocm_smi.c, sysman.c, host.c) fill in through source.h. */
#include "core.h"
#include "source.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void hcl__tele_reset(hcl_telemetry *t, uint32_t fields) {
    memset(t, 0, sizeof *t);
    t->field_count = HCL_TELEMETRY_FIELD_COUNT;
    for (int f = 0; f < HCL_TELEMETRY_FIELD_MAX; f++)
        snprintf(t->fields[f].reason, sizeof t->fields[f].reason, "%s",
                 f >= HCL_TELEMETRY_FIELD_COUNT                 ? "no such field"
                 : (fields && !(fields & HCL_TELEMETRY_BIT(f))) ? not_asked
                                                                : "not read");
}

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
