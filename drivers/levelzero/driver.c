/* The Level Zero driver: entry point, driver and device discovery, opening, the table. The top of the driver: it calls
 * down into the other files (the runtime's loading and errors are runtime.c's). The lifecycle, the device list and the
 * library loading are the driver kit's (drivers/common). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------------------------- */
static const char *vendor_name(uint32_t id) {
    switch (id) {
    case 0x8086: return "Intel";
    case 0x10de: return "NVIDIA";
    case 0x1002: return "AMD";
    default: return NULL;
    }
}

/* Intel's runtime encodes driverVersion as major << 24 | minor << 16 | build; others' encodings are opaque. */
static void format_driver_version(char *out, size_t size, uint32_t vendor, uint32_t v, uint32_t api) {
    if (vendor == 0x8086)
        snprintf(out, size, "%u.%u.%u (Level Zero API %u.%u)", v >> 24, (v >> 16) & 0xff, v & 0xffff,
                 ZE_MAJOR_VERSION(api), ZE_MINOR_VERSION(api));
    else
        snprintf(out, size, "%u (0x%08x, Level Zero API %u.%u)", v, v, ZE_MAJOR_VERSION(api), ZE_MINOR_VERSION(api));
}

/* What a kernel writer looks up first (hcl-info): the sub-group size, fp16 and fp64 (the module properties; a runtime
 * that cannot answer leaves them 0, unknown, and the device usable), the group sizes and counts per dimension. */
static void describe_limits(hcl__ze_device_entry *e, const ze_device_compute_properties_t *c) {
    hcl_device_info *info = &e->info;
    info->subgroup_size = e->driver_limits.subgroup_width;
    ze_device_module_properties_t m;
    memset(&m, 0, sizeof m);
    m.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
    if (hcl__ze.zeDeviceGetModuleProperties(e->device, &m) == ZE_RESULT_SUCCESS) {
        info->has_fp16 = m.fp16flags != 0;
        info->has_fp64 = m.fp64flags != 0;
    }
    info->max_work_item_sizes[0] = c->maxGroupSizeX;
    info->max_work_item_sizes[1] = c->maxGroupSizeY;
    info->max_work_item_sizes[2] = c->maxGroupSizeZ;
    info->max_grid_size[0] = c->maxGroupCountX;
    info->max_grid_size[1] = c->maxGroupCountY;
    info->max_grid_size[2] = c->maxGroupCountZ;
}

/* Fill a device entry from the device's properties; a failed query makes the device unusable (logged). */
static hcl_status describe_device(hcl__ze_device_entry *e) {
    hcl_status status = HCL_SUCCESS;
    ze_command_queue_group_properties_t *groups = NULL;
    ze_device_memory_properties_t *mems = NULL;
    hcl_device_info *info = &e->info;
    const uint32_t index = info->index;

    ze_device_properties_t p;
    memset(&p, 0, sizeof p);
    /* timerResolution: cycles per second with the 1.2 structure type (exact: Intel's 12 MHz timer is 83.33 ns a
     * tick, which the older type rounds to 83), nanoseconds with the 1.0 type, for drivers older than 1.2 */
    const int hz = e->api_version >= ZE_API_VERSION_1_2;
    p.stype = hz ? ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES_1_2 : ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
    HCL_ZE_CHECK(zeDeviceGetProperties, (e->device, &p), "device %u", index);
    ze_device_compute_properties_t c;
    memset(&c, 0, sizeof c);
    c.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
    HCL_ZE_CHECK(zeDeviceGetComputeProperties, (e->device, &c), "device %u", index);

    uint32_t nmem = 0;
    HCL_ZE_CHECK(zeDeviceGetMemoryProperties, (e->device, &nmem, NULL), "count of device %u", index);
    if (nmem > 0) {
        mems = calloc(nmem, sizeof *mems);
        if (!mems) {
            status = hcl__kit_oom("memory properties");
            goto cleanup;
        }
        for (uint32_t i = 0; i < nmem; i++) mems[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
        HCL_ZE_CHECK(zeDeviceGetMemoryProperties, (e->device, &nmem, mems), "device %u", index);
        for (uint32_t i = 0; i < nmem; i++) info->global_mem_bytes += mems[i].totalSize;
        /* the memory clock (MHz) and bus width (bits) of the first memory that gives both (the core computes the
         * peak bandwidth from them) */
        for (uint32_t i = 0; i < nmem && !info->memory_clock_mhz; i++)
            if (mems[i].maxClockRate && mems[i].maxBusWidth) {
                info->memory_clock_mhz = mems[i].maxClockRate;
                info->memory_bus_width_bits = mems[i].maxBusWidth;
            }
    }

    uint32_t ngroups = 0;
    HCL_ZE_CHECK(zeDeviceGetCommandQueueGroupProperties, (e->device, &ngroups, NULL), "count of device %u", index);
    groups = ngroups ? calloc(ngroups, sizeof *groups) : NULL;
    if (ngroups && !groups) {
        status = hcl__kit_oom("command queue group properties");
        goto cleanup;
    }
    for (uint32_t i = 0; i < ngroups; i++) groups[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    if (ngroups)
        HCL_ZE_CHECK(zeDeviceGetCommandQueueGroupProperties, (e->device, &ngroups, groups), "device %u", index);
    uint32_t ordinal = UINT32_MAX;
    for (uint32_t i = 0; i < ngroups && ordinal == UINT32_MAX; i++)
        if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ordinal = i;
    if (ordinal == UINT32_MAX) {
        status = HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED,
                              "levelzero: device %u '%s' has no compute command "
                              "queue group (%u groups)",
                              index, p.name, ngroups);
        goto cleanup;
    }
    e->compute_ordinal = ordinal;
    e->max_fill_pattern = groups[ordinal].maxMemoryFillPatternSize;

    snprintf(info->name, sizeof info->name, "%.*s", (int)sizeof p.name, p.name);
    e->vendor_id = p.vendorId;
    e->device_id = p.deviceId;
    const char *vn = vendor_name(p.vendorId);
    if (vn)
        snprintf(info->vendor, sizeof info->vendor, "%s", vn);
    else
        snprintf(info->vendor, sizeof info->vendor, "0x%04x", p.vendorId); /* the PCI vendor id */
    format_driver_version(info->driver_version, sizeof info->driver_version, p.vendorId, e->driver_version,
                          e->api_version);
    info->type = p.type == ZE_DEVICE_TYPE_GPU   ? HCL_DEVICE_TYPE_GPU
                 : p.type == ZE_DEVICE_TYPE_CPU ? HCL_DEVICE_TYPE_CPU
                 : (p.type == ZE_DEVICE_TYPE_FPGA || p.type == ZE_DEVICE_TYPE_MCA || p.type == ZE_DEVICE_TYPE_VPU)
                     ? HCL_DEVICE_TYPE_ACCELERATOR
                     : HCL_DEVICE_TYPE_OTHER;
    info->compute_units = p.numSlices * p.numSubslicesPerSlice * p.numEUsPerSubslice; /* EUs */
    info->max_alloc_bytes = p.maxMemAllocSize;
    info->max_work_group_size = c.maxTotalGroupSize;
    info->local_mem_bytes = c.maxSharedLocalMemory;
    info->clock_mhz = p.coreClockRate;
    info->arg_offset_alignment = 1; /* buffer arguments are pointers: any offset is the pointer plus it */
    /* an all-zero UUID (the loader's null driver) identifies nothing: the kit then writes a name identity */
    hcl__kit_device_uuid(info, p.uuid.id);

    e->limits.is_cpu = info->type == HCL_DEVICE_TYPE_CPU;
    e->limits.max_group_size = c.maxTotalGroupSize;
    e->limits.local_mem = c.maxSharedLocalMemory;
    e->limits.max_group_count[0] = c.maxGroupCountX;
    e->limits.max_group_count[1] = c.maxGroupCountY;
    e->limits.max_group_count[2] = c.maxGroupCountZ;
    e->limits.compute_units = info->compute_units;
    /* the compiler picks one of the sub-group sizes per kernel: the smallest is the one a plan can count on */
    uint32_t width = 0;
    for (uint32_t i = 0; i < c.numSubGroupSizes && i < ZE_SUBGROUPSIZE_COUNT; i++)
        if (c.subGroupSizes[i] && (!width || c.subGroupSizes[i] < width)) width = c.subGroupSizes[i];
    e->driver_limits.subgroup_width = width;
    describe_limits(e, &c);
    e->driver_limits.max_groups[0] = c.maxGroupCountX;
    e->driver_limits.max_groups[1] = c.maxGroupCountY;
    e->driver_limits.max_groups[2] = c.maxGroupCountZ;
    e->ns_per_tick = !hz ? (double)p.timerResolution : p.timerResolution ? 1e9 / (double)p.timerResolution : 0.0;
    e->timestamp_mask = p.kernelTimestampValidBits == 0 || p.kernelTimestampValidBits >= 64
                            ? UINT64_MAX
                            : (((uint64_t)1 << p.kernelTimestampValidBits) - 1);
cleanup:
    free(groups);
    free(mems);
    return status;
}

/* Add the devices of one driver. A failure skips the rest of this driver (logged as a warning). */
static hcl_status add_driver(ze_driver_handle_t driver, uint32_t d, char *version, size_t version_size) {
    hcl_status status = HCL_SUCCESS;
    ze_device_handle_t *devs = NULL;
    ze_api_version_t api = 0;
    ze_driver_properties_t dp;
    memset(&dp, 0, sizeof dp);
    dp.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    HCL_ZE_CHECK(zeDriverGetApiVersion, (driver, &api), "driver %u", d);
    HCL_ZE_CHECK(zeDriverGetProperties, (driver, &dp), "driver %u", d);
    if (d == 0)
        snprintf(version, version_size, "Level Zero API %u.%u, driver version %u", ZE_MAJOR_VERSION(api),
                 ZE_MINOR_VERSION(api), dp.driverVersion);
    uint32_t n = 0;
    HCL_ZE_CHECK(zeDeviceGet, (driver, &n, NULL), "count of driver %u", d);
    HCL_ZE_LOG("driver %u: Level Zero API %u.%u, driver version %u, %u device(s)", d, ZE_MAJOR_VERSION(api),
               ZE_MINOR_VERSION(api), dp.driverVersion, n);
    if (n == 0) goto cleanup;
    devs = calloc(n, sizeof *devs);
    if (!devs) {
        status = hcl__kit_oom("device list");
        goto cleanup;
    }
    HCL_ZE_CHECK(zeDeviceGet, (driver, &n, devs), "driver %u", d);
    for (uint32_t i = 0; i < n; i++) {
        hcl__ze_device_entry *e = hcl__kit_device_add();
        if (!e) {
            status = HCL_ERROR_OUT_OF_MEMORY;
            goto cleanup;
        }
        e->driver = driver;
        e->device = devs[i];
        e->api_version = api;
        e->driver_version = dp.driverVersion;
        if (describe_device(e) != HCL_SUCCESS) { /* not kept: the next add takes its place */
            HCL_KIT_WARN("driver %u device %u skipped: %s", d, i, hcl__kit_last_failure());
            continue;
        }
        hcl__kit_device_keep();
        HCL_ZE_LOG("device %u: %s (%s), %u EUs, max group %llu, local %llu bytes, sub-groups of %u, %s", e->info.index,
                   e->info.name, e->info.vendor, e->info.compute_units, (unsigned long long)e->info.max_work_group_size,
                   (unsigned long long)e->info.local_mem_bytes, e->driver_limits.subgroup_width, e->info.identity);
    }
cleanup:
    free(devs);
    return status;
}

/* The kit's start: load the loader, zeInit, then list the root devices of every driver, in driver order. */
static hcl_status start(char *reason, size_t reason_size, char *version, size_t version_size) {
    ze_driver_handle_t *drivers = NULL;
    hcl_status status = hcl__ze_load(reason, reason_size);
    if (status != HCL_SUCCESS) return status;
    /* flags 0: every kind of device (GPU and VPU) */
    ze_result_t r = hcl__ze.zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        snprintf(reason, reason_size, "zeInit: %s (0x%08x)%s", hcl__ze_result_name(r), (unsigned)r,
                 r == ZE_RESULT_ERROR_UNINITIALIZED
                     ? ": the Level Zero loader found no driver (a vendor's Level Zero driver, such as Intel's "
                       "compute runtime, is needed)"
                     : "");
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    uint32_t n = 0;
    r = hcl__ze.zeDriverGet(&n, NULL);
    if (r != ZE_RESULT_SUCCESS || n == 0) {
        if (r != ZE_RESULT_SUCCESS)
            snprintf(reason, reason_size, "zeDriverGet: %s (0x%08x)", hcl__ze_result_name(r), (unsigned)r);
        else
            snprintf(reason, reason_size, "zeDriverGet: no Level Zero driver (0 drivers)");
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    drivers = calloc(n, sizeof *drivers);
    if (!drivers) {
        snprintf(reason, reason_size, "out of host memory listing %u drivers", n);
        return HCL_ERROR_OUT_OF_MEMORY;
    }
    r = hcl__ze.zeDriverGet(&n, drivers);
    if (r != ZE_RESULT_SUCCESS) {
        snprintf(reason, reason_size, "zeDriverGet: %s (0x%08x)", hcl__ze_result_name(r), (unsigned)r);
        status = HCL_ERROR_BACKEND_UNAVAILABLE;
        goto cleanup;
    }
    for (uint32_t d = 0; d < n; d++) {
        hcl_status st = add_driver(drivers[d], d, version, version_size);
        if (st == HCL_ERROR_OUT_OF_MEMORY) {
            snprintf(reason, reason_size, "out of host memory listing the devices of driver %u", d);
            status = st;
            goto cleanup;
        }
        if (st != HCL_SUCCESS) HCL_KIT_WARN("driver %u skipped: %s", d, hcl__kit_last_failure());
    }
cleanup:
    free(drivers);
    return status;
}

HCL_KIT_DRIVER(HCL_ZE_NAME, hcl__ze_device_entry, start);

/* The context is made here, never at init: a process that forks after init must not inherit one. */
static hcl_status ze_device_open(uint32_t index, void **out_device) {
    hcl__ze_device_entry *e = NULL;
    hcl__ze_device *dev = NULL;
    hcl_status status = hcl__kit_device_new(index, sizeof *dev, (void **)&e, (void **)&dev);
    if (status != HCL_SUCCESS) return status;
    dev->entry = e;
    dev->device = e->device;
    atomic_init(&dev->live, 0);
    ze_context_desc_t desc;
    memset(&desc, 0, sizeof desc);
    desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
    HCL_ZE_CHECK(zeContextCreate, (e->driver, &desc, &dev->context), "device %u '%s'", index, e->info.name);
    hcl__ze_events_init(dev);
    hcl__ze_helpers_init(dev);
    HCL_ZE_LOG("device %u '%s': context created", index, e->info.name);
    *out_device = dev;
    return HCL_SUCCESS;
cleanup:
    free(dev);
    return status;
}

static void ze_device_close(void *device) {
    hcl__ze_device *dev = device;
    if (!dev) return;
    hcl__ze_helpers_release(dev);
    hcl__ze_events_release(dev);
    long live = atomic_load(&dev->live);
    if (live != 0)
        HCL_KIT_WARN("device '%s' closed with %ld Level Zero object(s) not destroyed (a driver bug)",
                     dev->entry->info.name, live);
    else
        HCL_ZE_LOG("device '%s' closed: every Level Zero object it made was destroyed", dev->entry->info.name);
    if (dev->context) {
        ze_result_t r = hcl__ze.zeContextDestroy(dev->context);
        if (r != ZE_RESULT_SUCCESS) HCL_KIT_WARN("zeContextDestroy: %s (0x%08x)", hcl__ze_result_name(r), (unsigned)r);
    }
    free(dev);
}

/* Interop: device -> ze_context_handle_t, queue -> ze_command_list_handle_t (an immediate command list), buffer ->
 * the device pointer (HCL keeps ownership). */
static hcl_status ze_get_native(hcl_native_kind kind, void *object, void **out_native) {
    return hcl__kit_get_native(kind, object, offsetof(hcl__ze_device, context), offsetof(hcl__ze_queue, list),
                               out_native);
}

hcl_status hcl__ze_device_limits(void *device, hcl_driver_limits *out) {
    *out = ((const hcl__ze_device *)device)->entry->driver_limits;
    return HCL_SUCCESS;
}

static const hcl_driver_table g_table = {
    HCL_KIT_TABLE_HEAD(HCL_ZE_NAME, ze_device_open, ze_device_close),
    HCL_KIT_TABLE_ENTRIES(hcl__ze) HCL_KIT_TABLE_NATIVE(hcl__ze_host_alloc, hcl__ze_host_free, ze_get_native),
    .kernel_params = hcl__ze_kernel_params,
    .event_query = hcl__ze_event_query,
    .buffer_wrap = hcl__ze_buffer_wrap,
};

HCL_KIT_DRIVER_ENTRY(g_table)
