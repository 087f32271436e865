/* The driver kit's device list and lifecycle: init, shutdown, device_count, device_info. */
#include "kit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *g_entries; /* g_capacity entries of hcl__kit_driver.entry_size bytes */
static uint32_t g_count, g_capacity;
static int g_started;
static char g_version[HCL_NAME_MAX];

static hcl_device_info *info_of(void *entry) {
    return (hcl_device_info *)((unsigned char *)entry + hcl__kit_driver.info_offset);
}

static void forget_devices(void) {
    free(g_entries);
    g_entries = NULL;
    g_count = g_capacity = 0;
}

hcl_status hcl__kit_init(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                         size_t version_size) {
    if (host) hcl__kit_host = host;
    hcl__kit_name = hcl__kit_driver.name;
    if (reason && reason_size) reason[0] = '\0';
    if (version && version_size) version[0] = '\0';
    if (!g_started) {
        char ignored[8];
        if (!reason || !reason_size) reason = ignored, reason_size = sizeof ignored;
        forget_devices();
        g_version[0] = '\0';
        hcl_status status = hcl__kit_driver.start(reason, reason_size, g_version, sizeof g_version);
        if (status != HCL_SUCCESS) { /* the version, when start found it, still says which runtime refused */
            forget_devices();
            HCL_KIT_LOG("unavailable: %s", reason);
            if (version && version_size) snprintf(version, version_size, "%s", g_version);
            return status;
        }
        HCL_KIT_LOG("ready: %u device(s), %s", g_count, g_version);
        g_started = 1;
    }
    if (version && version_size) snprintf(version, version_size, "%s", g_version);
    return HCL_SUCCESS;
}

void hcl__kit_shutdown(void) {
    forget_devices();
    g_started = 0;
}

hcl_status hcl__kit_device_count(uint32_t *out_count) {
    *out_count = g_count;
    return HCL_SUCCESS;
}

hcl_status hcl__kit_device_info(uint32_t index, hcl_device_info *out_info) {
    void *entry = NULL;
    hcl_status status = hcl__kit_device_find(index, &entry);
    if (status == HCL_SUCCESS) *out_info = *info_of(entry);
    return status;
}

void *hcl__kit_device_add(void) {
    const size_t size = hcl__kit_driver.entry_size;
    if (g_count == g_capacity) {
        uint32_t capacity = g_capacity ? 2 * g_capacity : 4;
        unsigned char *grown = realloc(g_entries, (size_t)capacity * size);
        if (!grown) {
            hcl__kit_oom("device list");
            return NULL;
        }
        g_entries = grown;
        g_capacity = capacity;
    }
    void *entry = g_entries + (size_t)g_count * size;
    memset(entry, 0, size);
    hcl_device_info *info = info_of(entry);
    snprintf(info->backend, sizeof info->backend, "%s", hcl__kit_driver.name);
    info->index = g_count;
    return entry;
}

void hcl__kit_device_keep(void) {
    hcl_device_info *info = info_of(g_entries + (size_t)g_count * hcl__kit_driver.entry_size);
    if (!info->identity[0]) hcl__kit_identity(info, NULL);
    g_count++;
}

void *hcl__kit_device_entry(uint32_t index) {
    return index < g_count ? g_entries + (size_t)index * hcl__kit_driver.entry_size : NULL;
}

hcl_status hcl__kit_device_find(uint32_t index, void **out_entry) {
    if (index >= g_count)
        return HCL_KIT_FAIL(HCL_ERROR_DEVICE_NOT_FOUND, "%s: device %u of %u", hcl__kit_name, index, g_count);
    *out_entry = hcl__kit_device_entry(index);
    return HCL_SUCCESS;
}

uint32_t hcl__kit_devices(void) { return g_count; }

hcl_status hcl__kit_device_new(uint32_t index, size_t device_size, void **out_entry, void **out_device) {
    hcl_status status = hcl__kit_device_find(index, out_entry);
    if (status != HCL_SUCCESS) return status;
    *out_device = calloc(1, device_size);
    return *out_device ? HCL_SUCCESS : hcl__kit_oom("device");
}

hcl_status hcl__kit_get_native(hcl_native_kind kind, void *object, size_t device_offset, size_t queue_offset,
                               void **out_native) {
    switch (kind) {
    case HCL_NATIVE_DEVICE: memcpy(out_native, (char *)object + device_offset, sizeof *out_native); return HCL_SUCCESS;
    case HCL_NATIVE_QUEUE: memcpy(out_native, (char *)object + queue_offset, sizeof *out_native); return HCL_SUCCESS;
    case HCL_NATIVE_BUFFER: *out_native = object; return HCL_SUCCESS;
    }
    return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "%s: no native object of kind %d", hcl__kit_name, (int)kind);
}
