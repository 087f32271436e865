/* The Level Zero driver: entry point, loading libze_loader, result names, driver and device discovery, opening. */
#define _GNU_SOURCE 1 /* dlsym under -std=c11 */
#include "internal.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hcl__ze_symbols hcl__ze;
const hcl_driver_host *hcl__ze_host;

static void *g_library;                 /* the dlopen handle of the loader; kept open until the process ends */
static hcl__ze_device_entry *g_devices; /* every root device of every driver, in driver order */
static uint32_t g_device_count;
static int g_initialised;
static char g_version[HCL_NAME_MAX];

/* ---------------------------------------------------------------------------------------------------------
 * Result names (ze_api.h, API 1.4; later versions' codes read as ZE_RESULT_UNKNOWN_CODE with their number)
 * ------------------------------------------------------------------------------------------------------- */
#define HCL_ZE_RESULTS(X)                                  \
    X(ZE_RESULT_SUCCESS)                                   \
    X(ZE_RESULT_NOT_READY)                                 \
    X(ZE_RESULT_ERROR_DEVICE_LOST)                         \
    X(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)                  \
    X(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)                \
    X(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)                \
    X(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)                 \
    X(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)               \
    X(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE)           \
    X(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX)            \
    X(ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE)            \
    X(ZE_RESULT_EXP_ERROR_REMOTE_DEVICE)                   \
    X(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS)            \
    X(ZE_RESULT_ERROR_NOT_AVAILABLE)                       \
    X(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE)              \
    X(ZE_RESULT_WARNING_DROPPED_DATA)                      \
    X(ZE_RESULT_ERROR_UNINITIALIZED)                       \
    X(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)                 \
    X(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)                 \
    X(ZE_RESULT_ERROR_INVALID_ARGUMENT)                    \
    X(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)                 \
    X(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)                \
    X(ZE_RESULT_ERROR_INVALID_NULL_POINTER)                \
    X(ZE_RESULT_ERROR_INVALID_SIZE)                        \
    X(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)                    \
    X(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)               \
    X(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)      \
    X(ZE_RESULT_ERROR_INVALID_ENUMERATION)                 \
    X(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)             \
    X(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)            \
    X(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)               \
    X(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)                 \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)                 \
    X(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)               \
    X(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)        \
    X(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)      \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)       \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)        \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE)      \
    X(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)             \
    X(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)           \
    X(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)                 \
    X(ZE_RESULT_WARNING_ACTION_REQUIRED)                   \
    X(ZE_RESULT_ERROR_UNKNOWN)

const char *hcl__ze_result_name(ze_result_t r) {
    switch (r) {
#define HCL__ZE_RESULT_CASE(name) \
    case name: return #name;
        HCL_ZE_RESULTS(HCL__ZE_RESULT_CASE)
#undef HCL__ZE_RESULT_CASE
    default: break;
    }
    return "ZE_RESULT_UNKNOWN_CODE";
}

static _Thread_local char t_last_failure[2048];

const char *hcl__ze_last_failure(void) { return t_last_failure; }

hcl_status hcl__ze_fail(ze_result_t r, const char *fn, const char *fmt, ...) {
    char detail[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    hcl_status status = HCL_ERROR_VENDOR;
    switch (r) {
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: status = HCL_ERROR_OUT_OF_MEMORY; break;
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
    case ZE_RESULT_ERROR_MODULE_LINK_FAILURE:
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY: status = HCL_ERROR_BUILD; break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME: status = HCL_ERROR_NOT_FOUND; break;
    default: break;
    }
    snprintf(t_last_failure, sizeof t_last_failure, "%s: %s (0x%08x); %s", fn, hcl__ze_result_name(r), (unsigned)r,
             detail);
    return hcl__ze_host->set_message(status, "%s", t_last_failure);
}

hcl_status hcl__ze_oom(const char *what) {
    return hcl__ze_host->set_message(HCL_ERROR_OUT_OF_MEMORY, "levelzero: out of host memory (%s)", what);
}

/* ---------------------------------------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------------------------------------- */
static hcl_status resolve_symbols(char *reason, size_t reason_size) {
    hcl__ze_symbols syms;
    memset(&syms, 0, sizeof syms);
#define HCL__ZE_SYM_RESOLVE(name)                                                                           \
    {                                                                                                       \
        void *p = dlsym(g_library, #name);                                                                  \
        if (!p) {                                                                                           \
            snprintf(reason, reason_size, "the Level Zero loader lacks %s (a Level Zero 1.0 loader is needed)", \
                     #name);                                                                                \
            return HCL_ERROR_BACKEND_UNAVAILABLE;                                                           \
        }                                                                                                   \
        memcpy(&syms.name, &p, sizeof p);                                                                   \
    }
    HCL_ZE_SYMBOLS(HCL__ZE_SYM_RESOLVE)
#undef HCL__ZE_SYM_RESOLVE
    hcl__ze = syms;
    HCL_ZE_LOG("resolved %zu Level Zero entry points", sizeof syms / sizeof(void (*)(void)));
    return HCL_SUCCESS;
}

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

/* Fill a device entry from the device's properties; a failed query makes the device unusable (logged). */
static hcl_status describe_device(hcl__ze_device_entry *e, uint32_t index) {
    hcl_status status = HCL_SUCCESS;
    ze_command_queue_group_properties_t *groups = NULL;
    ze_device_memory_properties_t *mems = NULL;
    hcl_device_info *info = &e->info;
    memset(info, 0, sizeof *info);
    snprintf(info->backend, sizeof info->backend, "%s", HCL_ZE_NAME);
    info->index = index;

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
            status = hcl__ze_oom("memory properties");
            goto cleanup;
        }
        for (uint32_t i = 0; i < nmem; i++) mems[i].stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES;
        HCL_ZE_CHECK(zeDeviceGetMemoryProperties, (e->device, &nmem, mems), "device %u", index);
        for (uint32_t i = 0; i < nmem; i++) info->global_mem_bytes += mems[i].totalSize;
    }

    uint32_t ngroups = 0;
    HCL_ZE_CHECK(zeDeviceGetCommandQueueGroupProperties, (e->device, &ngroups, NULL), "count of device %u", index);
    groups = ngroups ? calloc(ngroups, sizeof *groups) : NULL;
    if (ngroups && !groups) {
        status = hcl__ze_oom("command queue group properties");
        goto cleanup;
    }
    for (uint32_t i = 0; i < ngroups; i++) groups[i].stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
    if (ngroups) HCL_ZE_CHECK(zeDeviceGetCommandQueueGroupProperties, (e->device, &ngroups, groups), "device %u", index);
    uint32_t ordinal = UINT32_MAX;
    for (uint32_t i = 0; i < ngroups && ordinal == UINT32_MAX; i++)
        if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) ordinal = i;
    if (ordinal == UINT32_MAX) {
        status = hcl__ze_host->set_message(HCL_ERROR_UNSUPPORTED, "levelzero: device %u '%s' has no compute command "
                                           "queue group (%u groups)", index, p.name, ngroups);
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
    int any = 0;
    for (int i = 0; i < 16; i++) any |= p.uuid.id[i];
    if (any) { /* an all-zero UUID (the loader's null driver) identifies nothing */
        info->has_uuid = 1;
        memcpy(info->uuid, p.uuid.id, 16);
        char *q = info->identity;
        q += snprintf(q, sizeof info->identity, "uuid:");
        for (int i = 0; i < 16; i++) q += snprintf(q, 3, "%02x", info->uuid[i]);
    } else {
        snprintf(info->identity, sizeof info->identity, "%s:%.24s:%.32s:%u", HCL_ZE_NAME, info->vendor, info->name,
                 index);
    }

    e->limits.is_cpu = info->type == HCL_DEVICE_TYPE_CPU;
    e->limits.max_group_size = c.maxTotalGroupSize;
    e->limits.local_mem = c.maxSharedLocalMemory;
    e->limits.max_group_count[0] = c.maxGroupCountX;
    e->limits.max_group_count[1] = c.maxGroupCountY;
    e->limits.max_group_count[2] = c.maxGroupCountZ;
    e->limits.compute_units = info->compute_units;
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
static hcl_status add_driver(ze_driver_handle_t driver, uint32_t d) {
    hcl_status status = HCL_SUCCESS;
    ze_device_handle_t *devs = NULL;
    ze_api_version_t api = 0;
    ze_driver_properties_t dp;
    memset(&dp, 0, sizeof dp);
    dp.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
    HCL_ZE_CHECK(zeDriverGetApiVersion, (driver, &api), "driver %u", d);
    HCL_ZE_CHECK(zeDriverGetProperties, (driver, &dp), "driver %u", d);
    if (d == 0)
        snprintf(g_version, sizeof g_version, "Level Zero API %u.%u, driver version %u", ZE_MAJOR_VERSION(api),
                 ZE_MINOR_VERSION(api), dp.driverVersion);
    uint32_t n = 0;
    HCL_ZE_CHECK(zeDeviceGet, (driver, &n, NULL), "count of driver %u", d);
    HCL_ZE_LOG("driver %u: Level Zero API %u.%u, driver version %u, %u device(s)", d, ZE_MAJOR_VERSION(api),
               ZE_MINOR_VERSION(api), dp.driverVersion, n);
    if (n == 0) goto cleanup;
    devs = calloc(n, sizeof *devs);
    hcl__ze_device_entry *grown = realloc(g_devices, (g_device_count + n) * sizeof *grown);
    if (grown) g_devices = grown;
    if (!devs || !grown) {
        status = hcl__ze_oom("device list");
        goto cleanup;
    }
    HCL_ZE_CHECK(zeDeviceGet, (driver, &n, devs), "driver %u", d);
    for (uint32_t i = 0; i < n; i++) {
        hcl__ze_device_entry *e = &g_devices[g_device_count];
        memset(e, 0, sizeof *e);
        e->driver = driver;
        e->device = devs[i];
        e->api_version = api;
        e->driver_version = dp.driverVersion;
        if (describe_device(e, g_device_count) != HCL_SUCCESS) {
            hcl__ze_host->log(HCL_LOG_WARN, HCL_ZE_NAME, "driver %u device %u skipped: %s", d, i,
                              hcl__ze_last_failure());
            continue;
        }
        HCL_ZE_LOG("device %u: %s (%s), %u EUs, max group %llu, local %llu bytes, %s", g_device_count, e->info.name,
                   e->info.vendor, e->info.compute_units, (unsigned long long)e->info.max_work_group_size,
                   (unsigned long long)e->info.local_mem_bytes, e->info.identity);
        g_device_count++;
    }
cleanup:
    free(devs);
    return status;
}

static hcl_status discover(char *reason, size_t reason_size) {
    hcl_status status = HCL_SUCCESS;
    ze_driver_handle_t *drivers = NULL;
    /* flags 0: every kind of device (GPU and VPU) */
    ze_result_t r = hcl__ze.zeInit(0);
    if (r != ZE_RESULT_SUCCESS) {
        snprintf(reason, reason_size, "zeInit: %s (0x%08x)%s", hcl__ze_result_name(r), (unsigned)r,
                 r == ZE_RESULT_ERROR_UNINITIALIZED
                     ? ": the Level Zero loader found no driver (a vendor's Level Zero driver, such as Intel's "
                       "compute runtime, is needed)"
                     : "");
        HCL_ZE_LOG("%s", reason);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    uint32_t n = 0;
    r = hcl__ze.zeDriverGet(&n, NULL);
    if (r != ZE_RESULT_SUCCESS || n == 0) {
        if (r != ZE_RESULT_SUCCESS)
            snprintf(reason, reason_size, "zeDriverGet: %s (0x%08x)", hcl__ze_result_name(r), (unsigned)r);
        else
            snprintf(reason, reason_size, "zeDriverGet: no Level Zero driver (0 drivers)");
        HCL_ZE_LOG("%s", reason);
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
        hcl_status st = add_driver(drivers[d], d);
        if (st == HCL_ERROR_OUT_OF_MEMORY) {
            snprintf(reason, reason_size, "out of host memory listing the devices of driver %u", d);
            status = st;
            goto cleanup;
        }
        if (st != HCL_SUCCESS)
            hcl__ze_host->log(HCL_LOG_WARN, HCL_ZE_NAME, "driver %u skipped: %s", d, hcl__ze_last_failure());
    }
cleanup:
    free(drivers);
    return status;
}

static void forget_devices(void) {
    free(g_devices);
    g_devices = NULL;
    g_device_count = 0;
}

static hcl_status ze_init_driver(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                                 size_t version_size) {
    hcl__ze_host = host;
    if (reason && reason_size) reason[0] = '\0';
    if (version && version_size) version[0] = '\0';
    if (g_initialised) {
        if (version && version_size) snprintf(version, version_size, "%s", g_version);
        return HCL_SUCCESS;
    }
    hcl_status status = HCL_SUCCESS;
    if (!g_library) {
        if (!HCL_DRIVER_HOST_HAS(host, open_library)) {
            snprintf(reason, reason_size, "the HCL core is older than this driver (it offers no open_library)");
            return HCL_ERROR_DRIVER_VERSION;
        }
        /* HCL_LEVELZERO_LIBRARY alone when it is set, else the loader's soname, then the development name. */
        static const char *const names[] = {"libze_loader.so.1", "libze_loader.so"};
        g_library = host->open_library(HCL_ZE_NAME, "HCL_LEVELZERO_LIBRARY", names, 2, reason, reason_size);
        if (!g_library) return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    status = resolve_symbols(reason, reason_size);
    if (status != HCL_SUCCESS) return status;
    status = discover(reason, reason_size);
    if (status != HCL_SUCCESS) {
        forget_devices();
        return status;
    }
    if (version && version_size) snprintf(version, version_size, "%s", g_version);
    HCL_ZE_LOG("ready: %u device(s), %s", g_device_count, g_version);
    g_initialised = 1;
    return HCL_SUCCESS;
}

/* The loader stays loaded: runtimes keep threads and exit handlers that must not outlive their code. */
static void ze_shutdown(void) {
    forget_devices();
    g_initialised = 0;
}

const hcl__ze_device_entry *hcl__ze_device_entry_get(uint32_t index) {
    return index < g_device_count ? &g_devices[index] : NULL;
}

static hcl_status ze_device_count(uint32_t *out_count) {
    *out_count = g_device_count;
    return HCL_SUCCESS;
}

static hcl_status ze_device_info(uint32_t index, hcl_device_info *out_info) {
    if (index >= g_device_count)
        return hcl__ze_host->set_message(HCL_ERROR_DEVICE_NOT_FOUND, "levelzero: device %u of %u", index,
                                         g_device_count);
    *out_info = g_devices[index].info;
    return HCL_SUCCESS;
}

/* The context is made here, never at init: a process that forks after init must not inherit one. */
static hcl_status ze_device_open(uint32_t index, void **out_device) {
    hcl_status status = HCL_SUCCESS;
    if (index >= g_device_count)
        return hcl__ze_host->set_message(HCL_ERROR_DEVICE_NOT_FOUND, "levelzero: device %u of %u", index,
                                         g_device_count);
    const hcl__ze_device_entry *e = &g_devices[index];
    hcl__ze_device *dev = calloc(1, sizeof *dev);
    if (!dev) return hcl__ze_oom("device");
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
        hcl__ze_host->log(HCL_LOG_WARN, HCL_ZE_NAME,
                          "device '%s' closed with %ld Level Zero object(s) not destroyed (a driver bug)",
                          dev->entry->info.name, live);
    else
        HCL_ZE_LOG("device '%s' closed: every Level Zero object it made was destroyed", dev->entry->info.name);
    if (dev->context) {
        ze_result_t r = hcl__ze.zeContextDestroy(dev->context);
        if (r != ZE_RESULT_SUCCESS)
            hcl__ze_host->log(HCL_LOG_WARN, HCL_ZE_NAME, "zeContextDestroy: %s (0x%08x)", hcl__ze_result_name(r),
                              (unsigned)r);
    }
    free(dev);
}

/* Interop: device -> ze_context_handle_t, queue -> ze_command_list_handle_t (an immediate command list), buffer ->
 * the device pointer (HCL keeps ownership). */
static hcl_status ze_get_native(hcl_native_kind kind, void *object, void **out_native) {
    switch (kind) {
    case HCL_NATIVE_DEVICE: *out_native = ((hcl__ze_device *)object)->context; return HCL_SUCCESS;
    case HCL_NATIVE_QUEUE: *out_native = ((hcl__ze_queue *)object)->list; return HCL_SUCCESS;
    case HCL_NATIVE_BUFFER: *out_native = object; return HCL_SUCCESS;
    }
    return hcl__ze_host->set_message(HCL_ERROR_UNSUPPORTED, "levelzero: no native object of kind %d", (int)kind);
}

static const hcl_driver_table g_table = {
    .size = sizeof(hcl_driver_table),
    .abi_major = HCL_DRIVER_ABI_MAJOR,
    .abi_minor = HCL_DRIVER_ABI_MINOR,
    .name = HCL_ZE_NAME,
    .init = ze_init_driver,
    .shutdown = ze_shutdown,
    .device_count = ze_device_count,
    .device_info = ze_device_info,
    .device_open = ze_device_open,
    .device_close = ze_device_close,
    .queue_create = hcl__ze_queue_create,
    .queue_destroy = hcl__ze_queue_destroy,
    .queue_finish = hcl__ze_queue_finish,
    .queue_marker = hcl__ze_queue_marker,
    .buffer_alloc = hcl__ze_buffer_alloc,
    .buffer_free = hcl__ze_buffer_free,
    .buffer_write = hcl__ze_buffer_write,
    .buffer_read = hcl__ze_buffer_read,
    .buffer_copy = hcl__ze_buffer_copy,
    .buffer_fill = hcl__ze_buffer_fill,
    .event_wait = hcl__ze_event_wait,
    .event_release = hcl__ze_event_release,
    .event_elapsed = hcl__ze_event_elapsed,
    .module_create = hcl__ze_module_create,
    .module_destroy = hcl__ze_module_destroy,
    .kernel_create = hcl__ze_kernel_create,
    .kernel_destroy = hcl__ze_kernel_destroy,
    .kernel_launch = hcl__ze_kernel_launch,
    .host_alloc = hcl__ze_host_alloc,
    .host_free = hcl__ze_host_free,
    .get_native = ze_get_native,
};

__attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void);
__attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void) { return &g_table; }
