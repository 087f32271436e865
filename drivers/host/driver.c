/* The built-in host CPU driver: its table, init, and the one device (this machine's CPU).
 *
 * Compiled into libhcl; no dependency beyond libc and OpenMP (when the build has it). Memory is malloc'd
 * host memory, every queue is synchronous (see host.h), modules are tables of C functions, and the built-in
 * kernels are the C11 sources in kernels/<name>/<name>.c.
 */
#define _GNU_SOURCE /* sysconf(_SC_NPROCESSORS_ONLN, _SC_PHYS_PAGES) */
#include "host.h"

#include "hcl_host_kernels.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define HCL_HOST_STR2(x) #x
#define HCL_HOST_STR(x) HCL_HOST_STR2(x)
#define HCL_HOST_VERSION                                                                                        \
    HCL_HOST_STR(HCL_VERSION_MAJOR) "." HCL_HOST_STR(HCL_VERSION_MINOR) "." HCL_HOST_STR(HCL_VERSION_PATCH)

/* Used only if a call arrives before init: keeps every failure path safe, the message is dropped. */
static hcl_status hcl_host_no_message(hcl_status status, const char *fmt, ...) {
    (void)fmt;
    return status;
}
static void hcl_host_no_log(hcl_log_level level, const char *driver, const char *fmt, ...) {
    (void)level;
    (void)driver;
    (void)fmt;
}
static const hcl_driver_host hcl_host_fallback_services = {
    .size = sizeof(hcl_driver_host), .set_message = hcl_host_no_message, .log = hcl_host_no_log,
};
const hcl_driver_host *hcl__host_services = &hcl_host_fallback_services;

static hcl_host_device hcl_host_the_device;

uint64_t hcl__host_now_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

size_t hcl__host_round_up(size_t size, size_t align) {
    if (size > SIZE_MAX - (align - 1))
        return 0;
    return (size + align - 1) & ~(align - 1);
}

static void hcl_host_copy_text(char *dst, size_t dst_size, const char *src) {
    size_t len = strlen(src);
    if (len >= dst_size)
        len = dst_size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* The value of the first "key<spaces/tabs>: value" line of /proc/cpuinfo, trimmed; 0 if absent. */
static int hcl_host_cpuinfo(const char *key, char *out, size_t out_size) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return 0;
    char line[1024];
    const size_t key_len = strlen(key);
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, key, key_len) != 0)
            continue;
        const char *p = line + key_len;
        while (*p == ' ' || *p == '\t') ++p;
        if (*p != ':')
            continue;
        ++p;
        while (*p == ' ' || *p == '\t') ++p;
        size_t len = strcspn(p, "\r\n");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) --len;
        if (len == 0)
            continue;
        if (len >= out_size)
            len = out_size - 1;
        memcpy(out, p, len);
        out[len] = '\0';
        found = 1;
    }
    fclose(f);
    return found;
}

/* The CPU's highest clock in MHz: cpufreq's maximum where the kernel exposes it, else /proc/cpuinfo's current
 * "cpu MHz" (what a virtual machine shows), else 0. */
static uint32_t hcl_host_clock_mhz(void) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    if (f != NULL) {
        unsigned long khz = 0;
        const int ok = fscanf(f, "%lu", &khz) == 1;
        fclose(f);
        if (ok && khz > 0)
            return (uint32_t)(khz / 1000);
    }
    char text[64];
    if (hcl_host_cpuinfo("cpu MHz", text, sizeof text)) {
        double mhz = 0.0;
        if (sscanf(text, "%lf", &mhz) == 1 && mhz > 0.0 && mhz < 1e6)
            return (uint32_t)(mhz + 0.5);
    }
    return 0;
}

static void hcl_host_describe(hcl_device_info *info) {
    memset(info, 0, sizeof *info);
    hcl_host_copy_text(info->backend, sizeof info->backend, HCL_HOST_NAME);
    info->index = 0;
    if (!hcl_host_cpuinfo("model name", info->name, sizeof info->name))
        hcl_host_copy_text(info->name, sizeof info->name, "host CPU");
    if (!hcl_host_cpuinfo("vendor_id", info->vendor, sizeof info->vendor))
        hcl_host_copy_text(info->vendor, sizeof info->vendor, "unknown");
    hcl_host_copy_text(info->driver_version, sizeof info->driver_version, "hcl-host " HCL_HOST_VERSION);
    info->type = HCL_DEVICE_TYPE_CPU;

    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    info->compute_units = cores > 0 ? (uint32_t)cores : 1;
    const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page_size > 0)
        info->global_mem_bytes = (uint64_t)pages * (uint64_t)page_size;
    else
        info->global_mem_bytes = (uint64_t)1 << 30; /* sysconf cannot tell: assume a modest 1 GiB */
    info->max_alloc_bytes = info->global_mem_bytes / 2;
    info->max_work_group_size = HCL_HOST_MAX_WORK_GROUP;
    info->local_mem_bytes = HCL_HOST_LOCAL_MEM;
    info->clock_mhz = hcl_host_clock_mhz();
    info->has_uuid = 0;

    char identity[sizeof info->identity];
    const int len = snprintf(identity, sizeof identity, "%s:%s:%s:%u", HCL_HOST_NAME, info->vendor, info->name,
                             info->index);
    if (len < 0)
        identity[0] = '\0';
    hcl_host_copy_text(info->identity, sizeof info->identity, identity);
}

static hcl_status hcl_host_init(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                                size_t version_size) {
    if (host != NULL)
        hcl__host_services = host;
    hcl_host_describe(&hcl_host_the_device.info);
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    const char *parallel = "OpenMP " HCL_HOST_STR(_OPENMP);
#else
    const char *parallel = "serial (built without OpenMP)";
#endif
    if (version != NULL && version_size > 0) {
        const int len = snprintf(version, version_size, "hcl-host %s, %s, %d threads, gemm %s", HCL_HOST_VERSION,
                                 parallel, threads, hcl__host_gemm_isa());
        if (len < 0)
            version[0] = '\0';
    }
    if (reason != NULL && reason_size > 0)
        reason[0] = '\0';
    if (hcl__host_services->log != NULL)
        hcl__host_services->log(HCL_LOG_DEBUG, HCL_HOST_NAME, "device \"%s\" (%s), %u cores, %d threads, gemm %s",
                                hcl_host_the_device.info.name, hcl_host_the_device.info.vendor,
                                hcl_host_the_device.info.compute_units, threads, hcl__host_gemm_isa());
    return HCL_SUCCESS;
}

static void hcl_host_shutdown(void) {
}

static hcl_status hcl_host_device_count(uint32_t *out_count) {
    *out_count = 1;
    return HCL_SUCCESS;
}

static hcl_status hcl_host_device_info(uint32_t index, hcl_device_info *out_info) {
    if (index != 0)
        return HCL_HOST_FAIL(HCL_ERROR_DEVICE_NOT_FOUND, "host: device %u does not exist (the host has 1)", index);
    *out_info = hcl_host_the_device.info;
    return HCL_SUCCESS;
}

/* The device is one static description: opening hands it out, closing has nothing to free. */
static hcl_status hcl_host_device_open(uint32_t index, void **out_device) {
    if (index != 0)
        return HCL_HOST_FAIL(HCL_ERROR_DEVICE_NOT_FOUND, "host: device %u does not exist (the host has 1)", index);
    *out_device = &hcl_host_the_device;
    return HCL_SUCCESS;
}

static void hcl_host_device_close(void *device) {
    (void)device;
}

/* Buffers are plain host memory, so a buffer's native object is its data pointer; there is no vendor device or
 * queue behind the host driver. */
static hcl_status hcl_host_get_native(hcl_native_kind kind, void *object, void **out_native) {
    if (kind != HCL_NATIVE_BUFFER)
        return HCL_HOST_FAIL(HCL_ERROR_UNSUPPORTED, "host: a %s has no native object (only buffers do: their data pointer)",
                             kind == HCL_NATIVE_DEVICE ? "device" : "queue");
    *out_native = object;
    return HCL_SUCCESS;
}

static const hcl_driver_table hcl_host_table = {
    .size = sizeof(hcl_driver_table),
    .abi_major = HCL_DRIVER_ABI_MAJOR,
    .abi_minor = HCL_DRIVER_ABI_MINOR,
    .name = HCL_HOST_NAME,
    .init = hcl_host_init,
    .shutdown = hcl_host_shutdown,
    .device_count = hcl_host_device_count,
    .device_info = hcl_host_device_info,
    .device_open = hcl_host_device_open,
    .device_close = hcl_host_device_close,
    .queue_create = hcl__host_queue_create,
    .queue_destroy = hcl__host_queue_destroy,
    .queue_finish = hcl__host_queue_finish,
    .queue_marker = hcl__host_queue_marker,
    .buffer_alloc = hcl__host_buffer_alloc,
    .buffer_free = hcl__host_buffer_free,
    .buffer_write = hcl__host_buffer_write,
    .buffer_read = hcl__host_buffer_read,
    .buffer_copy = hcl__host_buffer_copy,
    .buffer_fill = hcl__host_buffer_fill,
    .event_wait = hcl__host_event_wait,
    .event_release = hcl__host_event_release,
    .event_elapsed = hcl__host_event_elapsed,
    .module_create = hcl__host_module_create,
    .module_destroy = hcl__host_module_destroy,
    .kernel_create = hcl__host_kernel_create,
    .kernel_destroy = hcl__host_kernel_destroy,
    .kernel_launch = hcl__host_kernel_launch,
    .host_alloc = NULL, /* the core's aligned memory is already what the host driver would give */
    .host_free = NULL,
    .get_native = hcl_host_get_native,
};

const hcl_driver_table *hcl__host_driver_table(void) {
    return &hcl_host_table;
}
