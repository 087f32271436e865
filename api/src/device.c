/* Backends and devices: the public calls, validated here before any driver is called. Devices are reference
 * counted (hcl__device_ref/unref, lifetime.c) so that every child object keeps its device alive until it is released;
 * the last reference runs the close that hcl_device_open left in the device. */
#include "core.h"
#include "hcl_plan.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void load_all(void) {
    for (uint32_t i = 0; i < hcl__backend_total(); i++) hcl__backend_load(hcl__backend_at(i));
}

HCL_API hcl_status hcl_backend_count(uint32_t *out_count) {
    if (!out_count) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_backend_count: out_count is NULL");
    load_all();
    *out_count = hcl__backend_total();
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_backend_get_info(uint32_t index, hcl_backend_info *out_info) {
    if (!out_info) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_backend_get_info: out_info is NULL");
    hcl__backend *b = hcl__backend_at(index);
    if (!b)
        return hcl__set_message(HCL_ERROR_DEVICE_NOT_FOUND, "hcl_backend_get_info: index %u >= backend count %u", index,
                                hcl__backend_total());
    hcl__backend_load(b);
    memset(out_info, 0, sizeof *out_info);
    snprintf(out_info->name, sizeof out_info->name, "%s", b->name);
    out_info->available = b->available;
    out_info->device_count = b->available ? b->device_count : 0;
    snprintf(out_info->module_path, sizeof out_info->module_path, "%s", b->module_path);
    snprintf(out_info->version, sizeof out_info->version, "%s", b->version);
    snprintf(out_info->reason, sizeof out_info->reason, "%s", b->available ? "" : b->reason);
    return HCL_SUCCESS;
}

/* The fields of HCL 0.1.0's hcl_device_info: what the unsuffixed symbols, which binaries built against that header
 * call, write (hcl.h: hcl_device_get_info_by_index). */
#define DEVICE_INFO_0_1_SIZE offsetof(hcl_device_info, subgroup_size)

/* Fill in the fields the core owns, whatever the driver wrote, and those it derives from the driver's. */
static hcl_status device_info(hcl__backend *b, uint32_t index, hcl_device_info *out) {
    /* A driver writes the hcl_device_info of the header it was built with: an older one a prefix (the rest stays 0,
     * "unknown"), a newer one more than this struct, which lands in `room` and is dropped. */
    union {
        hcl_device_info info;
        unsigned char room[sizeof(hcl_device_info) + 1024];
    } written;
    memset(&written, 0, sizeof written);
    hcl_status st = b->drv->device_info(index, &written.info);
    if (st != HCL_SUCCESS) return st;
    hcl_device_info info = written.info;
    snprintf(info.backend, sizeof info.backend, "%s", b->name);
    hcl_plan_device_types(&info); /* the types the built-ins use, from the hardware facts the driver wrote */
    if (info.native_types & HCL_TYPE_BIT(HCL_DTYPE_F16)) info.has_fp16 = 1;
    if (info.peak_memory_bandwidth == 0 && info.memory_clock_mhz && info.memory_bus_width_bits)
        info.peak_memory_bandwidth = 2ull * info.memory_clock_mhz * 1000000ull * (info.memory_bus_width_bits / 8u);
    info.index = index;
    if (info.arg_offset_alignment == 0) info.arg_offset_alignment = 1;
    if (info.has_uuid) {
        char *p = info.identity;
        p += sprintf(p, "uuid:");
        for (int i = 0; i < 16; i++) p += sprintf(p, "%02x", info.uuid[i]);
    } else if (!info.identity[0]) {
        snprintf(info.identity, sizeof info.identity, "%.12s:%.20s:%.30s:%u", b->name, info.vendor, info.name, index);
    }
    *out = info;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_device_count(uint32_t *out_count) {
    if (!out_count) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_count: out_count is NULL");
    load_all();
    uint32_t total = 0;
    for (uint32_t i = 0; i < hcl__backend_total(); i++)
        if (hcl__backend_at(i)->available) total += hcl__backend_at(i)->device_count;
    *out_count = total;
    return HCL_SUCCESS;
}

/* Both forms of hcl_device_get_info_by_index: `size` bytes of the info (the whole struct, or 0.1.0's fields). */
static hcl_status info_by_index(uint32_t index, hcl_device_info *out_info, size_t size) {
    if (!out_info)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_get_info_by_index: out_info is NULL");
    load_all();
    uint32_t base = 0;
    for (uint32_t i = 0; i < hcl__backend_total(); i++) {
        hcl__backend *b = hcl__backend_at(i);
        if (!b->available) continue;
        if (index < base + b->device_count) {
            hcl_device_info info;
            hcl_status st = device_info(b, index - base, &info);
            if (st == HCL_SUCCESS) memcpy(out_info, &info, size);
            return hcl__prefix_message(st, "hcl_device_get_info_by_index");
        }
        base += b->device_count;
    }
    return hcl__set_message(HCL_ERROR_DEVICE_NOT_FOUND, "hcl_device_get_info_by_index: index %u >= device count %u",
                            index, base);
}

HCL_API hcl_status hcl_device_get_info_by_index_v2(uint32_t index, hcl_device_info *out_info) {
    return info_by_index(index, out_info, sizeof *out_info);
}

/* The device's close (hcl__device.close), run by the last hcl__device_unref: what the device's files attached to it
 * goes first, then the driver's device. */
static void device_close(hcl__device *dev) {
    hcl__builtins_release(dev);
    hcl__peer_fini(dev);
    dev->drv->device_close(dev->native);
    hcl__host_memory_fini(dev);
    free(dev);
}

static void device_unref_object(void *object) { hcl__device_unref(object); }

static hcl_status device_open(const char *selector, hcl_device *out_device) {
    if (!out_device) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_open: out_device is NULL");
    hcl__backend *b;
    uint32_t index;
    hcl_status st = hcl__select(selector, &b, &index);
    if (st != HCL_SUCCESS) return st;
    hcl__device *dev = calloc(1, sizeof *dev);
    if (!dev) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "hcl_device_open: out of host memory");
    dev->backend = b;
    dev->drv = b->drv;
    dev->index = index;
    if ((st = device_info(b, index, &dev->info)) != HCL_SUCCESS ||
        (st = b->drv->device_open(index, &dev->native)) != HCL_SUCCESS) {
        free(dev);
        return hcl__prefix_message(st, "hcl_device_open");
    }
    dev->close = device_close;
    atomic_init(&dev->refs, 1);
    hcl__host_memory_init(dev);
    hcl__peer_init(dev);
    hcl__log(HCL_LOG_INFO, "core", "opened %s:%u (%s)", b->name, index, dev->info.name);
    return hcl__publish(HCL__H_DEVICE, dev, device_unref_object, (void **)out_device, "hcl_device_open");
}

HCL_API hcl_status hcl_device_open(const char *selector, hcl_device *out_device) {
    HCL__TRACED("hcl_device_open", device_open(selector, out_device), "selector", selector ? selector : "", NULL);
}

HCL_API hcl_status hcl_device_release(hcl_device device) {
    return hcl__release(device, HCL__H_DEVICE, device_unref_object, "hcl_device_release", "device");
}

HCL_API hcl_status hcl_device_get_info_v2(hcl_device device, hcl_device_info *out_info) {
    return hcl__get(device, HCL__H_DEVICE, offsetof(hcl__device, info), sizeof *out_info, out_info,
                    "hcl_device_get_info", "device", "out_info");
}

/* The symbols of HCL 0.1.0, for binaries built against its header: they write only the fields it declared. */
#undef hcl_device_get_info_by_index
#undef hcl_device_get_info
HCL_API hcl_status hcl_device_get_info_by_index(uint32_t index, hcl_device_info *out_info);
HCL_API hcl_status hcl_device_get_info(hcl_device device, hcl_device_info *out_info);

HCL_API hcl_status hcl_device_get_info_by_index(uint32_t index, hcl_device_info *out_info) {
    return info_by_index(index, out_info, DEVICE_INFO_0_1_SIZE);
}

HCL_API hcl_status hcl_device_get_info(hcl_device device, hcl_device_info *out_info) {
    return hcl__get(device, HCL__H_DEVICE, offsetof(hcl__device, info), DEVICE_INFO_0_1_SIZE, out_info,
                    "hcl_device_get_info", "device", "out_info");
}
