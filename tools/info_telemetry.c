/* hcl-info's telemetry: each device's readings and MIG instances in the text and JSON output, and --monitor, a line
 * per device per sample (like nvidia-smi dmon). Everything comes from hcl_telemetry.h; nothing here changes a device
 * setting. */
#define _POSIX_C_SOURCE 200809L
#include "info.h"

#include <hcl/hcl_telemetry.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The text output's label of each field, in hcl_telemetry_field order. */
static const char *const labels[HCL_TELEMETRY_FIELD_COUNT] = {
    "power",       "energy counter", "temperature", "SM clock", "memory clock",    "utilization", "memory utilization",
    "memory used", "memory total",   "power limit", "throttle", "PCIe generation", "PCIe width"};

/* A field's value in its unit, as the text output shows it. */
static void format_value(const hcl_telemetry *t, hcl_telemetry_field f, char *out, size_t size) {
    double v = t->fields[f].value;
    switch (f) {
    case HCL_TELEMETRY_MEMORY_USED:
    case HCL_TELEMETRY_MEMORY_TOTAL: snprintf(out, size, "%.2f GiB (%.0f bytes)", v / 1073741824.0, v); break;
    case HCL_TELEMETRY_THROTTLE:
        snprintf(out, size, "%s (0x%x)", t->throttle_text[0] ? t->throttle_text : "none", (unsigned)v);
        break;
    case HCL_TELEMETRY_ENERGY: snprintf(out, size, "%.3f J", v); break;
    default: snprintf(out, size, "%.15g %s", v, hcl_telemetry_field_unit(f)); break;
    }
}

void info_print_telemetry_text(uint32_t index) {
    hcl_telemetry t;
    hcl_status st = hcl_device_get_telemetry_by_index(index, 0, &t);
    if (st != HCL_SUCCESS) {
        printf("        telemetry:           failed: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return;
    }
    if (!t.source[0]) {
        printf("        telemetry:           none: %s\n", t.detail);
    } else {
        printf("        telemetry:           %s (%s)\n", t.source, t.detail);
        for (int f = 0; f < HCL_TELEMETRY_FIELD_COUNT; f++) {
            char value[256];
            if (t.fields[f].known)
                format_value(&t, (hcl_telemetry_field)f, value, sizeof value);
            else
                snprintf(value, sizeof value, "unknown: %s", t.fields[f].reason);
            printf("          %-19s%s\n", labels[f], value);
        }
    }
    hcl_mig_info m;
    if (hcl_device_get_mig_by_index(index, &m) != HCL_SUCCESS || !m.known) return; /* not an NVIDIA GPU, or no MIG */
    printf("        MIG mode:            %s%s", m.enabled ? "enabled" : "disabled",
           m.pending != m.enabled ? (m.pending ? " (enabled after the next reset)" : " (disabled after the next reset)")
                                  : "");
    printf(m.enabled ? ", %" PRIu32 " instance%s\n" : "\n", m.count, m.count == 1 ? "" : "s");
    for (uint32_t i = 0; i < m.count; i++) {
        const hcl_mig_instance *x = &m.instances[i];
        printf("          GPU instance %" PRIu32 " / compute instance %" PRIu32 ": %s, %" PRIu32 " SMs, %" PRIu32
               " slice%s, %.2f GiB, %s\n",
               x->gpu_instance, x->compute_instance, x->name, x->multiprocessors, x->slices, x->slices == 1 ? "" : "s",
               (double)x->memory_bytes / 1073741824.0, x->uuid);
    }
}

/* A number, or null when unknown. */
static void json_number(const hcl_telemetry *t, hcl_telemetry_field f) {
    if (t->fields[f].known)
        printf("%.15g", t->fields[f].value);
    else
        printf("null");
}

void info_json_telemetry(uint32_t index, const char *sep) {
    hcl_telemetry t;
    hcl_status st = hcl_device_get_telemetry_by_index(index, 0, &t);
    printf("%s\"telemetry\": {\"source\": ", sep);
    info_json_string(st == HCL_SUCCESS ? t.source : "");
    printf(", \"detail\": ");
    info_json_string(st == HCL_SUCCESS ? t.detail : hcl_last_message());
    printf(", \"throttle_text\": ");
    info_json_string(st == HCL_SUCCESS ? t.throttle_text : "");
    printf(", \"fields\": {");
    for (int f = 0; st == HCL_SUCCESS && f < HCL_TELEMETRY_FIELD_COUNT; f++) {
        printf("%s\"%s\": {\"value\": ", f ? ", " : "", hcl_telemetry_field_name((hcl_telemetry_field)f));
        json_number(&t, (hcl_telemetry_field)f);
        printf(", \"reason\": ");
        info_json_string(t.fields[f].known ? "" : t.fields[f].reason);
        printf("}");
    }
    printf("}}");
    hcl_mig_info m;
    if (hcl_device_get_mig_by_index(index, &m) != HCL_SUCCESS) {
        memset(&m, 0, sizeof m);
        snprintf(m.reason, sizeof m.reason, "%s", hcl_last_message());
    }
    printf("%s\"mig\": {\"known\": %s, \"enabled\": %s, \"pending\": %s, \"reason\": ", sep, m.known ? "true" : "false",
           m.enabled ? "true" : "false", m.pending ? "true" : "false");
    info_json_string(m.known ? "" : m.reason);
    printf(", \"instances\": [");
    for (uint32_t i = 0; i < m.count; i++) {
        const hcl_mig_instance *x = &m.instances[i];
        printf("%s{\"name\": ", i ? ", " : "");
        info_json_string(x->name);
        printf(", \"uuid\": ");
        info_json_string(x->uuid);
        printf(", \"gpu_instance\": %" PRIu32 ", \"compute_instance\": %" PRIu32 ", \"multiprocessors\": %" PRIu32
               ", \"slices\": %" PRIu32 ", \"memory_bytes\": %" PRIu64 "}",
               x->gpu_instance, x->compute_instance, x->multiprocessors, x->slices, x->memory_bytes);
    }
    printf("]}");
}

/* The fields a monitor line shows. */
static const hcl_telemetry_field monitor_fields[] = {
    HCL_TELEMETRY_POWER,        HCL_TELEMETRY_ENERGY,      HCL_TELEMETRY_TEMPERATURE, HCL_TELEMETRY_CLOCK_SM,
    HCL_TELEMETRY_CLOCK_MEMORY, HCL_TELEMETRY_UTILIZATION, HCL_TELEMETRY_MEMORY_USED, HCL_TELEMETRY_THROTTLE};
#define MONITOR_COUNT (sizeof monitor_fields / sizeof monitor_fields[0])

/* A value of a monitor line in `width` columns, "-" when unknown. */
static void monitor_cell(const hcl_telemetry *t, hcl_telemetry_field f, int width) {
    if (!t->fields[f].known) {
        printf(" %*s", width, "-");
    } else if (f == HCL_TELEMETRY_MEMORY_USED) {
        printf(" %*.0f", width, t->fields[f].value / 1048576.0);
    } else if (f == HCL_TELEMETRY_THROTTLE) {
        unsigned bits = (unsigned)t->fields[f].value;
        printf(" %*s", width, bits & HCL_THROTTLE_SLOWDOWN ? "SLOW" : bits ? "idle" : "none");
    } else if (f == HCL_TELEMETRY_ENERGY || f == HCL_TELEMETRY_POWER) {
        printf(" %*.1f", width, t->fields[f].value);
    } else {
        printf(" %*.0f", width, t->fields[f].value);
    }
}

int info_monitor(int only_one, uint32_t only, unsigned interval_ms, long count, int json) {
    uint32_t n = 0;
    hcl_status st = hcl_device_count(&n);
    if (st != HCL_SUCCESS) {
        fprintf(stderr, "hcl-info: hcl_device_count failed: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return 1;
    }
    /* each physical device once: a GPU seen through two backends (CUDA and OpenCL) is read through the first */
    uint32_t pick[256];
    char selectors[256][48], identities[256][80];
    uint32_t picked = 0;
    for (uint32_t i = 0; i < n && picked < 256; i++) {
        hcl_device_info d;
        if ((only_one && i != only) || hcl_device_get_info_by_index(i, &d) != HCL_SUCCESS) continue;
        int seen = 0;
        for (uint32_t j = 0; j < i && d.has_uuid && !only_one; j++) {
            hcl_device_info e;
            if (hcl_device_get_info_by_index(j, &e) == HCL_SUCCESS && e.has_uuid && memcmp(e.uuid, d.uuid, 16) == 0)
                seen = 1;
        }
        if (seen) continue;
        info_selector(&d, selectors[picked], sizeof selectors[picked]);
        snprintf(identities[picked], sizeof identities[picked], "%s", d.identity);
        pick[picked++] = i;
    }
    uint32_t mask = 0;
    for (size_t k = 0; k < MONITOR_COUNT; k++) mask |= HCL_TELEMETRY_BIT(monitor_fields[k]);
    if (!json)
        printf("# %9s %-12s %7s %11s %5s %6s %6s %4s %8s %4s\n", "time_s", "device", "power_W", "energy_J", "temp",
               "sm_MHz", "mem_MHz", "util", "used_MiB", "thr");
    struct timespec start, wall;
    clock_gettime(CLOCK_MONOTONIC, &start);
    clock_gettime(CLOCK_REALTIME, &wall); /* unix_time of a reading: its monotonic time + this offset */
    double unix_offset =
        ((double)wall.tv_sec + (double)wall.tv_nsec * 1e-9) - ((double)start.tv_sec + (double)start.tv_nsec * 1e-9);
    for (long s = 0; count <= 0 || s < count; s++) {
        for (uint32_t p = 0; p < picked; p++) {
            hcl_telemetry t;
            if (hcl_device_get_telemetry_by_index(pick[p], mask, &t) != HCL_SUCCESS) continue;
            double at = t.time_s - ((double)start.tv_sec + (double)start.tv_nsec * 1e-9);
            if (json) {
                printf("{\"schema\": \"hcl-info-monitor/1\", \"time_s\": %.3f, \"unix_time\": %.3f, \"index\": %" PRIu32
                       ", \"selector\": ",
                       at, t.time_s + unix_offset, pick[p]);
                info_json_string(selectors[p]);
                printf(", \"identity\": ");
                info_json_string(identities[p]);
                printf(", \"source\": ");
                info_json_string(t.source);
                for (size_t k = 0; k < MONITOR_COUNT; k++) {
                    printf(", \"%s\": ", hcl_telemetry_field_name(monitor_fields[k]));
                    json_number(&t, monitor_fields[k]);
                }
                printf(", \"throttle_text\": ");
                info_json_string(t.throttle_text);
                printf("}\n");
            } else {
                printf("  %9.3f %-12s", at, selectors[p]);
                static const int widths[MONITOR_COUNT] = {7, 11, 5, 6, 6, 4, 8, 4};
                for (size_t k = 0; k < MONITOR_COUNT; k++) monitor_cell(&t, monitor_fields[k], widths[k]);
                printf("\n");
            }
        }
        fflush(stdout);
        if (count > 0 && s + 1 >= count) break;
        /* the next sample at start + (s + 1) x interval, so slow reads do not stretch the period */
        struct timespec next = start;
        long long ns = (long long)(s + 1) * interval_ms * 1000000ll + next.tv_nsec;
        next.tv_sec += (time_t)(ns / 1000000000ll);
        next.tv_nsec = (long)(ns % 1000000000ll);
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) != 0) {
        }
    }
    return 0;
}
