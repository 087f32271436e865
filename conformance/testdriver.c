/* Test-only driver modules for the loader cases of the conformance suite. One source, one variant per build:
 *   TESTDRV_OK          libhcl-testok.so:         init succeeds, version "testok 1.0", no devices
 *   TESTDRV_BADABI      libhcl-testbadabi.so:     abi_major = HCL_DRIVER_ABI_MAJOR + 1
 *   TESTDRV_NOENTRY     libhcl-testnoentry.so:    exports no hcl_driver_entry
 *   TESTDRV_INITFAIL    libhcl-testinitfail.so:   init fails with HCL_ERROR_VENDOR and TESTDRV_INITFAIL_REASON
 *   TESTDRV_SMALLTABLE  libhcl-testsmalltable.so: a table whose size field is smaller than the ABI's table
 *   TESTDRV_DATAENTRY   libhcl-testdataentry.so:  hcl_driver_entry is data, not a function
 *   TESTDRV_MANYDEVICES libhcl-testmanydevices.so: reports 4294967295 devices and a version text without a NUL
 *   TESTDRV_UNTERMINATED libhcl-testunterminated.so: init fails and fills its reason buffer without a NUL
 *   TESTDRV_OOMONCE     libhcl-testoomonce.so:    the first init fails for want of host memory (HCL_ERROR_OUT_OF_MEMORY
 *                       and TESTDRV_OOM_REASON, as a driver whose device list cannot grow); later ones succeed, with
 *                       one device (whose open fails: nothing below it is implemented)
 *   TESTDRV_TELEMETRY   libhcl-telefake.so (api/telemetry/CMakeLists.txt): three GPUs that cannot be opened, described
 *                       for the telemetry tests: an NVIDIA, an AMD and an Intel one whose UUIDs the fake NVML, ROCm SMI
 *                       and Sysman know; they open, but nothing can be run on them
 * They are built into their own folder, which only the loader tests put on HCL_DRIVER_PATH.
 */
#include "testdriver.h"

#include <hcl/hcl_driver.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static hcl_status t_init(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                         size_t version_size) {
    (void)host;
#if defined(TESTDRV_INITFAIL)
    snprintf(reason, reason_size, "%s", TESTDRV_INITFAIL_REASON);
    (void)version;
    (void)version_size;
    return HCL_ERROR_VENDOR;
#elif defined(TESTDRV_UNTERMINATED)
    memset(reason, TESTDRV_FILL_CHAR, reason_size);
    (void)version;
    (void)version_size;
    return HCL_ERROR_VENDOR;
#elif defined(TESTDRV_MANYDEVICES)
    (void)reason;
    (void)reason_size;
    memset(version, TESTDRV_FILL_CHAR, version_size);
    return HCL_SUCCESS;
#elif defined(TESTDRV_OOMONCE)
    static int calls; /* the loader serialises init */
    if (calls++ == 0) {
        snprintf(reason, reason_size, "%s", TESTDRV_OOM_REASON);
        return HCL_ERROR_OUT_OF_MEMORY;
    }
    snprintf(version, version_size, "%s", TESTDRV_OK_VERSION);
    return HCL_SUCCESS;
#else
    (void)reason;
    (void)reason_size;
    snprintf(version, version_size, "%s", TESTDRV_OK_VERSION);
    return HCL_SUCCESS;
#endif
}

/* Everything else: no devices, so nothing below init and device_count is ever reached through the API. */
static void t_shutdown(void) {}
static hcl_status t_device_count(uint32_t *out_count) {
#if defined(TESTDRV_MANYDEVICES)
    *out_count = UINT32_MAX;
    return HCL_SUCCESS;
#elif defined(TESTDRV_OOMONCE)
    *out_count = 1;
    return HCL_SUCCESS;
#elif defined(TESTDRV_TELEMETRY)
    *out_count = 3;
    return HCL_SUCCESS;
#endif
    *out_count = 0;
    return HCL_SUCCESS;
}
static hcl_status t_device_info(uint32_t index, hcl_device_info *out_info) {
#if defined(TESTDRV_TELEMETRY)
    static const uint8_t nvidia_uuid[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                            0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    static const char *const vendors[3] = {"NVIDIA Corporation", "Advanced Micro Devices, Inc.",
                                           "Intel(R) Corporation"};
    if (index >= 3) return HCL_ERROR_DEVICE_NOT_FOUND;
    memset(out_info, 0, sizeof *out_info);
    snprintf(out_info->backend, sizeof out_info->backend, "%s", TESTDRV_NAME);
    out_info->index = index;
    snprintf(out_info->name, sizeof out_info->name, "telemetry test GPU %u", index);
    snprintf(out_info->vendor, sizeof out_info->vendor, "%s", vendors[index]);
    out_info->type = HCL_DEVICE_TYPE_GPU;
    out_info->has_uuid = 1;
    if (index == 0) memcpy(out_info->uuid, nvidia_uuid, 16);
    if (index == 2) memcpy(out_info->uuid, "hcl-intel-gpu-02", 16);
    if (index == 1) memcpy(out_info->uuid, "00000000c0ffee01", 16); /* HIP's UUID: ROCm SMI's unique id as text */
    snprintf(out_info->identity, sizeof out_info->identity, "%s:%u", TESTDRV_NAME, index);
    return HCL_SUCCESS;
#else
    (void)index;
    (void)out_info;
    return HCL_ERROR_DEVICE_NOT_FOUND;
#endif
}
static hcl_status t_device_open(uint32_t index, void **out_device) {
#if defined(TESTDRV_TELEMETRY)
    static int devices[3]; /* opens (hcl-info -d), though nothing can be run on it */
    if (index >= 3) return HCL_ERROR_DEVICE_NOT_FOUND;
    *out_device = &devices[index];
    return HCL_SUCCESS;
#else
    (void)index;
    (void)out_device;
    return HCL_ERROR_DEVICE_NOT_FOUND;
#endif
}
static void t_void(void *p) { (void)p; }
static void t_buffer_free(void *device, void *mem) {
    (void)device;
    (void)mem;
}
static hcl_status t_create(void *parent, void **out) {
    (void)parent;
    (void)out;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_finish(void *queue) {
    (void)queue;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue, (void)num_wait, (void)wait, (void)out_event;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_alloc(void *device, size_t size, void **out_mem) {
    (void)device, (void)size, (void)out_mem;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                          uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue, (void)mem, (void)offset, (void)size, (void)src, (void)blocking, (void)num_wait, (void)wait;
    (void)out_event;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking, uint32_t num_wait,
                         void *const *wait, void **out_event) {
    (void)queue, (void)mem, (void)offset, (void)size, (void)dst, (void)blocking, (void)num_wait, (void)wait;
    (void)out_event;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                         int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue, (void)dst, (void)dst_offset, (void)src, (void)src_offset, (void)size, (void)blocking;
    (void)num_wait, (void)wait, (void)out_event;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern, size_t pattern_size,
                         int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue, (void)mem, (void)offset, (void)size, (void)pattern, (void)pattern_size, (void)blocking;
    (void)num_wait, (void)wait, (void)out_event;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_event_wait(void *event) {
    (void)event;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_elapsed(void *start, void *end, double *out_seconds) {
    (void)start, (void)end, (void)out_seconds;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_module_create(void *device, const hcl_module_source *sources, uint32_t count, void **out) {
    (void)device, (void)sources, (void)count, (void)out;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_kernel_create(void *module, const char *name, void **out) {
    (void)module, (void)name, (void)out;
    return HCL_ERROR_UNSUPPORTED;
}
static hcl_status t_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                           uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                           void **out_event) {
    (void)queue, (void)kernel, (void)grid, (void)block, (void)shared_bytes, (void)num_args, (void)args;
    (void)num_wait, (void)wait, (void)out_event;
    return HCL_ERROR_UNSUPPORTED;
}
static const hcl_driver_table table = {
#if defined(TESTDRV_SMALLTABLE)
    .size = (uint32_t)offsetof(hcl_driver_table, device_count),
#else
    .size = sizeof(hcl_driver_table),
#endif
#if defined(TESTDRV_BADABI)
    .abi_major = HCL_DRIVER_ABI_MAJOR + 1,
#else
    .abi_major = HCL_DRIVER_ABI_MAJOR,
#endif
    .abi_minor = HCL_DRIVER_ABI_MINOR,
    .name = TESTDRV_NAME,
    .init = t_init,
    .shutdown = t_shutdown,
    .device_count = t_device_count,
    .device_info = t_device_info,
    .device_open = t_device_open,
    .device_close = t_void,
    .queue_create = t_create,
    .queue_destroy = t_void,
    .queue_finish = t_finish,
    .queue_marker = t_marker,
    .buffer_alloc = t_alloc,
    .buffer_free = t_buffer_free,
    .buffer_write = t_write,
    .buffer_read = t_read,
    .buffer_copy = t_copy,
    .buffer_fill = t_fill,
    .event_wait = t_event_wait,
    .event_release = t_void,
    .event_elapsed = t_elapsed,
    .module_create = t_module_create,
    .module_destroy = t_void,
    .kernel_create = t_kernel_create,
    .kernel_destroy = t_void,
    .kernel_launch = t_launch,
};

#if defined(TESTDRV_NOENTRY)
/* Close to the real name, so the module is not empty and only the entry point is missing. */
EXPORT const hcl_driver_table *hcl_driver_entry_missing(void) { return &table; }
#elif defined(TESTDRV_DATAENTRY)
/* The entry point's name on data (a pointer to the table, in a data segment): calling it would crash. */
EXPORT const hcl_driver_table *const hcl_driver_entry = &table;
#else
EXPORT const hcl_driver_table *hcl_driver_entry(void) { return &table; }
#endif
