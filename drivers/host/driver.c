/* The built-in host CPU driver: its table, init, and the one device (this machine's CPU).
 *
 * Compiled into libhcl; no dependency beyond libc and OpenMP (when the build has it). Memory is malloc'd
 * host memory, every queue is synchronous (see host.h), modules are tables of C functions, and the built-in
 * kernels are the C11 sources in kernels/<name>/<name>.c.
 */
#define _GNU_SOURCE /* sysconf(_SC_NPROCESSORS_ONLN, _SC_PHYS_PAGES) */
#include "host.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define HCL_HOST_STR2(x) #x
#define HCL_HOST_STR(x) HCL_HOST_STR2(x)
#define HCL_HOST_VERSION                                                                                               \
    HCL_HOST_STR(HCL_VERSION_MAJOR) "." HCL_HOST_STR(HCL_VERSION_MINOR) "." HCL_HOST_STR(HCL_VERSION_PATCH)

uint64_t hcl__host_now_ns(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

size_t hcl__host_round_up(size_t size, size_t align) {
    if (size > SIZE_MAX - (align - 1)) return 0;
    return (size + align - 1) & ~(align - 1);
}

static void hcl_host_copy_text(char *dst, size_t dst_size, const char *src) {
    size_t len = strlen(src);
    if (len >= dst_size) len = dst_size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* The value of the first "key<spaces/tabs>: value" line of /proc/cpuinfo, trimmed; 0 if absent. */
static int hcl_host_cpuinfo(const char *key, char *out, size_t out_size) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) return 0;
    char line[1024];
    const size_t key_len = strlen(key);
    int found = 0;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, key, key_len) != 0) continue;
        const char *p = line + key_len;
        while (*p == ' ' || *p == '\t') ++p;
        if (*p != ':') continue;
        ++p;
        while (*p == ' ' || *p == '\t') ++p;
        size_t len = strcspn(p, "\r\n");
        while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) --len;
        if (len == 0) continue;
        if (len >= out_size) len = out_size - 1;
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
        if (ok && khz > 0) return (uint32_t)(khz / 1000);
    }
    char text[64];
    if (hcl_host_cpuinfo("cpu MHz", text, sizeof text)) {
        double mhz = 0.0;
        if (sscanf(text, "%lf", &mhz) == 1 && mhz > 0.0 && mhz < 1e6) return (uint32_t)(mhz + 0.5);
    }
    return 0;
}

/* The architecture; which types the CPU computes in is the plans' decision from its features (kernels/plan_types.c). */
static void hcl_host_arch(hcl_device_info *info) {
#if defined(__x86_64__)
    hcl_host_copy_text(info->arch, sizeof info->arch, "x86-64");
#elif defined(__aarch64__)
    hcl_host_copy_text(info->arch, sizeof info->arch, "aarch64");
#endif
}

/* The CPU's L2 cache in bytes (one core's): glibc's sysconf, else sysfs's cache index whose level is 2; 0 if
 * neither says. */
static uint64_t hcl_host_l2_bytes(void) {
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long size = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (size > 0) return (uint64_t)size;
#endif
    for (int i = 0; i < 8; i++) {
        char path[96], text[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (f == NULL) break;
        const int level2 = fgets(text, sizeof text, f) != NULL && atoi(text) == 2;
        fclose(f);
        if (!level2) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r")) == NULL) break;
        unsigned long kib = 0;
        const int ok = fscanf(f, "%luK", &kib) == 1;
        fclose(f);
        return ok ? (uint64_t)kib * 1024u : 0;
    }
    return 0;
}

/* What a kernel writer looks up (hcl-info): a work-group runs as a loop (sub-group 1), the CPU does double precision,
 * a block of up to HCL_HOST_MAX_WORK_GROUP work-items in any shape, up to UINT32_MAX groups per dimension (as
 * device_limits says); the memory clock and bus width stay 0 (unknown: the OS does not say). */
static void hcl_host_limits(hcl_device_info *info) {
    info->subgroup_size = 1;
    info->has_fp64 = 1;
    for (int i = 0; i < 3; i++) {
        info->max_work_item_sizes[i] = HCL_HOST_MAX_WORK_GROUP;
        info->max_grid_size[i] = UINT32_MAX;
    }
    info->l2_cache_bytes = hcl_host_l2_bytes();
}

/* The machine's CPU: backend and index are the kit's, the identity too ("host:<vendor>:<model>:0"). */
static void hcl_host_describe(hcl_device_info *info) {
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
    hcl_host_arch(info);
    hcl_host_limits(info);
}

/* The kit's start: one device, this machine's CPU. */
static hcl_status hcl_host_start(char *reason, size_t reason_size, char *version, size_t version_size) {
    (void)reason, (void)reason_size; /* it always starts */
    hcl_host_device *device = hcl__kit_device_add();
    if (device == NULL) return HCL_ERROR_OUT_OF_MEMORY;
    hcl_host_describe(&device->info);
    hcl__kit_device_keep();
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    const char *parallel = "OpenMP " HCL_HOST_STR(_OPENMP);
#else
    const char *parallel = "serial (built without OpenMP)";
#endif
    if (version != NULL && version_size > 0) {
        const int len =
            snprintf(version, version_size, "hcl-host %s, %s, %d threads", HCL_HOST_VERSION, parallel, threads);
        if (len < 0) version[0] = '\0';
    }
    HCL_KIT_LOG("device \"%s\" (%s), %u cores, %d threads", device->info.name, device->info.vendor,
                device->info.compute_units, threads);
    return HCL_SUCCESS;
}

HCL_KIT_DRIVER(HCL_HOST_NAME, hcl_host_device, hcl_host_start);

/* The device is the kit's description of it: opening hands it out, closing has nothing to free. */
static hcl_status hcl_host_device_open(uint32_t index, void **out_device) {
    return hcl__kit_device_find(index, out_device);
}

static void hcl_host_device_close(void *device) { (void)device; }

/* Buffers are plain host memory, so a buffer's native object is its data pointer; there is no vendor device or
 * queue behind the host driver. */
static hcl_status hcl_host_get_native(hcl_native_kind kind, void *object, void **out_native) {
    if (kind != HCL_NATIVE_BUFFER)
        return HCL_HOST_FAIL(HCL_ERROR_UNSUPPORTED,
                             "host: a %s has no native object (only buffers do: their data pointer)",
                             kind == HCL_NATIVE_DEVICE ? "device" : "queue");
    *out_native = object;
    return HCL_SUCCESS;
}

/* A wrapped buffer is the application's host memory as it is: a host buffer's native object is its data pointer,
 * and the runtime has nothing that could check it. */
static hcl_status hcl_host_buffer_wrap(void *device, void *native, size_t size, void **out_mem) {
    (void)device;
    (void)size;
    *out_mem = native;
    return HCL_SUCCESS;
}

/* A CPU runs a work-group's work-items as a loop (a sub-group of 1); groups are counted in 32 bits. */
hcl_status hcl__host_device_limits(void *device, hcl_driver_limits *out) {
    (void)device;
    out->subgroup_width = 1;
    out->max_groups[0] = out->max_groups[1] = out->max_groups[2] = UINT32_MAX;
    return HCL_SUCCESS;
}

static const hcl_driver_table hcl_host_table = {
    HCL_KIT_TABLE_HEAD(HCL_HOST_NAME, hcl_host_device_open, hcl_host_device_close),
    HCL_KIT_TABLE_ENTRIES(hcl__host)
    /* the core's aligned memory is already what the host driver would give */
    HCL_KIT_TABLE_NATIVE(NULL, NULL, hcl_host_get_native),
    .event_query = hcl__host_event_query,
    .buffer_wrap = hcl_host_buffer_wrap,
};

const hcl_driver_table *hcl__host_driver_table(void) { return &hcl_host_table; }
