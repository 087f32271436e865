/* hcl-info --json: the report as one JSON document, schema "hcl-info/1" (docs/hcl-info.md lists every key and its
 * type; ctest tools-hcl-info-json checks them). Numbers the runtime does not give are 0, as in hcl_device_info. */
#include "info.h"

#include <hcl/hcl_comm.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

/* `"key": "value"` with the separator before it. */
static void json_key_string(const char *sep, const char *key, const char *value) {
    printf("%s\"%s\": ", sep, key);
    info_json_string(value);
}

static void json_key_u64(const char *sep, const char *key, uint64_t value) {
    printf("%s\"%s\": %" PRIu64, sep, key, value);
}

static void json_key_bool(const char *sep, const char *key, int value) {
    printf("%s\"%s\": %s", sep, key, value ? "true" : "false");
}

static void json_key_dims(const char *sep, const char *key, const uint64_t v[3]) {
    printf("%s\"%s\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]", sep, key, v[0], v[1], v[2]);
}

/* ["f32", "f16", ...] for a set of type bits (and "tf32" for HCL_TYPE_BIT_TF32). */
static void json_key_types(const char *sep, const char *key, uint32_t bits) {
    printf("%s\"%s\": [", sep, key);
    const char *item_sep = "";
    for (int t = 0; t < HCL_DTYPE_COUNT; t++)
        if (bits & HCL_TYPE_BIT(t)) {
            printf("%s\"%s\"", item_sep, hcl_dtype_name((hcl_dtype)t));
            item_sep = ", ";
        }
    if (bits & HCL_TYPE_BIT_TF32) printf("%s\"tf32\"", item_sep);
    putchar(']');
}

static const char *const FIELD = ",\n      ";

static void json_device(uint32_t global_index, const hcl_device_info *d) {
    char text[64];
    printf("    {\n");
    json_key_u64("      ", "index", global_index);
    info_selector(d, text, sizeof text);
    json_key_string(FIELD, "selector", text);
    json_key_string(FIELD, "backend", d->backend);
    json_key_u64(FIELD, "backend_index", d->index);
    json_key_string(FIELD, "name", d->name);
    json_key_string(FIELD, "vendor", d->vendor);
    json_key_string(FIELD, "driver_version", d->driver_version);
    json_key_string(FIELD, "type", info_type_name(d->type));
    json_key_string(FIELD, "arch", d->arch);
    json_key_u64(FIELD, "compute_units", d->compute_units);
    json_key_u64(FIELD, "global_mem_bytes", d->global_mem_bytes);
    json_key_u64(FIELD, "max_alloc_bytes", d->max_alloc_bytes);
    json_key_u64(FIELD, "max_work_group_size", d->max_work_group_size);
    json_key_dims(FIELD, "max_work_item_sizes", d->max_work_item_sizes);
    json_key_dims(FIELD, "max_grid_size", d->max_grid_size);
    json_key_u64(FIELD, "subgroup_size", d->subgroup_size);
    json_key_u64(FIELD, "local_mem_bytes", d->local_mem_bytes);
    json_key_u64(FIELD, "clock_mhz", d->clock_mhz);
    json_key_u64(FIELD, "memory_clock_mhz", d->memory_clock_mhz);
    json_key_u64(FIELD, "memory_bus_width_bits", d->memory_bus_width_bits);
    json_key_u64(FIELD, "peak_memory_bandwidth", d->peak_memory_bandwidth);
    json_key_u64(FIELD, "l2_cache_bytes", d->l2_cache_bytes);
    json_key_bool(FIELD, "fp16", d->has_fp16);
    json_key_bool(FIELD, "fp64", d->has_fp64);
    json_key_types(FIELD, "native_types", d->native_types);
    json_key_string(FIELD, "matrix_unit", info_matrix_unit_name(d->matrix_unit));
    json_key_types(FIELD, "matrix_types", d->matrix_types);
    if (d->has_uuid) {
        const uint8_t *u = d->uuid;
        snprintf(text, sizeof text, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
                 u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        json_key_string(FIELD, "uuid", text);
    } else {
        printf("%s\"uuid\": null", FIELD);
    }
    json_key_string(FIELD, "identity", d->identity);
    json_key_u64(FIELD, "arg_offset_alignment", d->arg_offset_alignment);
    info_json_telemetry(global_index, FIELD);
    printf("\n    }");
}

/* A JSON array, lead then "key": [...], of an object per index below count_of's count: object(i, open) prints open,
 * the object and its "}" and returns true, or prints nothing and returns false for an index it cannot describe. */
static void json_objects(const char *lead, const char *key, hcl_status (*count_of)(uint32_t *),
                         bool (*object)(uint32_t i, const char *open)) {
    uint32_t count = 0;
    if (count_of(&count) != HCL_SUCCESS) count = 0;
    printf("%s\"%s\": [", lead, key);
    const char *open = "\n    {";
    for (uint32_t i = 0; i < count; i++)
        if (object(i, open)) open = ",\n    {";
    printf("%s]", count ? "\n  " : "");
}

/* An object of the "backends" array. */
static bool json_backend(uint32_t i, const char *open) {
    hcl_backend_info b;
    if (hcl_backend_get_info(i, &b) != HCL_SUCCESS) return false;
    printf("%s", open);
    json_key_string("", "name", b.name);
    json_key_bool(", ", "available", b.available);
    json_key_u64(", ", "device_count", b.device_count);
    json_key_string(", ", "module", b.module_path);
    json_key_string(", ", "version", b.version);
    json_key_string(", ", "reason", b.reason);
    char opens[HCL_REASON_MAX + 64];
    hcl_device_type type;
    if (b.available && b.device_count > 0 && info_bare_device(b.name, opens, sizeof opens, &type))
        json_key_string(", ", "opens", opens);
    else
        printf(", \"opens\": null");
    putchar('}');
    return true;
}

/* An object of the "comm_engines" array: a communication engine, available or with the reason. */
static bool json_comm_engine(uint32_t i, const char *open) {
    hcl_comm_engine_info e;
    if (hcl_comm_engine_get_info(i, &e) != HCL_SUCCESS) return false;
    printf("%s", open);
    json_key_string("", "name", e.name);
    json_key_string(", ", "backends", e.backends);
    json_key_bool(", ", "available", e.available);
    json_key_string(", ", "library", e.library);
    json_key_string(", ", "version", e.version);
    json_key_string(", ", "reason", e.reason);
    putchar('}');
    return true;
}

/* The "default_device" object (selector, name) or null, and "default_device_error" ("" or why none opened). */
static void json_default_device(int skip) {
    hcl_device device = NULL;
    hcl_device_info info;
    hcl_status st = skip ? HCL_SUCCESS : hcl_device_open(NULL, &device);
    char error[HCL_REASON_MAX + 64] = "";
    if (!skip && st == HCL_SUCCESS) st = hcl_device_get_info(device, &info);
    if (!skip && st != HCL_SUCCESS) snprintf(error, sizeof error, "%s: %s", hcl_status_name(st), hcl_last_message());
    if (device) hcl_device_release(device);
    if (skip || st != HCL_SUCCESS) {
        printf(",\n  \"default_device\": null");
    } else {
        char selector[64];
        info_selector(&info, selector, sizeof selector);
        printf(",\n  \"default_device\": {");
        json_key_string("", "selector", selector);
        json_key_string(", ", "name", info.name);
        putchar('}');
    }
    json_key_string(",\n  ", "default_device_error", error);
}

/* "peer_access": for each available backend with more than one device, its selectors and the direct-access matrix
 * (empty with -d). */
static void json_peer_access(int skip) {
    printf(",\n  \"peer_access\": [");
    uint32_t count = 0;
    const char *sep = "\n";
    if (!skip && hcl_backend_count(&count) != HCL_SUCCESS) count = 0;
    for (uint32_t b = 0; !skip && b < count; b++) {
        hcl_backend_info bi;
        if (hcl_backend_get_info(b, &bi) != HCL_SUCCESS || !bi.available || bi.device_count < 2) continue;
        info_peer m;
        info_peer_matrix(&bi, &m);
        printf("%s    {", sep);
        json_key_string("", "backend", bi.name);
        printf(", \"selectors\": [");
        for (uint32_t i = 0; i < m.count; i++) {
            char sel[48];
            snprintf(sel, sizeof sel, "%s:%" PRIu32, bi.name, i);
            printf("%s", i ? ", " : "");
            info_json_string(sel);
        }
        printf("], \"direct\": [");
        for (uint32_t i = 0; i < m.count; i++) {
            printf("%s[", i ? ", " : "");
            for (uint32_t j = 0; j < m.count; j++)
                printf("%s%s", j ? ", " : "", m.direct[(size_t)i * m.count + j] ? "true" : "false");
            printf("]");
        }
        printf("]");
        json_key_string(", ", "error", m.error);
        putchar('}');
        info_peer_free(&m);
        sep = ",\n";
    }
    printf("%s]", sep[0] == ',' ? "\n  " : "");
}

int info_print_json(int only_one, uint32_t only) {
    uint32_t count = 0;
    hcl_status st = hcl_device_count(&count);
    if (st != HCL_SUCCESS) {
        fprintf(stderr, "hcl-info: hcl_device_count failed: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return 1;
    }
    printf("{\n");
    json_key_string("  ", "schema", "hcl-info/1");
    json_key_string(",\n  ", "hcl_version", hcl_version(NULL, NULL, NULL));
    json_key_string(",\n  ", "hcl_info_version", HCL_VERSION_STRING);
    printf(",\n");
    json_objects("  ", "backends", hcl_backend_count, json_backend);
    printf(",\n  \"devices\": [");
    const char *sep = "\n";
    int rc = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (only_one && i != only) continue;
        hcl_device_info info;
        st = hcl_device_get_info_by_index(i, &info);
        if (st != HCL_SUCCESS) {
            fprintf(stderr, "hcl-info: hcl_device_get_info_by_index(%" PRIu32 ") failed: %s: %s\n", i,
                    hcl_status_name(st), hcl_last_message());
            rc = 1;
            continue;
        }
        fputs(sep, stdout);
        json_device(i, &info);
        sep = ",\n";
    }
    printf("%s]", sep[0] == ',' ? "\n  " : "");
    json_peer_access(only_one);
    json_objects(",\n  ", "comm_engines", hcl_comm_engine_count, json_comm_engine);
    json_default_device(only_one);
    printf("\n}\n");
    return rc;
}
