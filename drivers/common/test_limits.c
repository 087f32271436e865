/* ctest <backend>-limits: a driver module's launch-limit entries, through its table as the core calls them, on every
 * device the backend has: device_limits (the sub-group width, the grid limits, the dynamic local memory a launch has
 * without opting in) and kernel_max_group of a kernel built from the source given.
 *
 * Usage: hcl-test-limits MODULE KIND FILE KERNEL
 *   MODULE  the driver module (libhcl-<backend>.so)
 *   KIND    the source kind, as hcl_source_kind_name spells it without its prefix (OPENCL_C, HIP_BINARY, ...)
 *   FILE    the source or binary; "-" for a small OpenCL C kernel named hcl_test_limits
 *   KERNEL  the kernel to ask about
 * Exits 77 (skipped, with the reason) when the backend is unavailable here. */
#define _GNU_SOURCE 1
#include "hcl/hcl_driver.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_check.h"
#include "test_host.h"

static int g_failures, g_checks;

static int expect(int ok, const char *what, const char *detail) {
    g_checks++;
    printf("%s %s%s%s\n", ok ? "ok  " : "FAIL", what, detail[0] ? ": " : "", detail);
    if (!ok) g_failures++;
    return ok;
}

static int is_power_of_two(uint64_t v) { return v && !(v & (v - 1)); }

static void test_device(const hcl_driver_table *t, uint32_t index, const hcl_module_source *src, const char *kernel) {
    char what[512], detail[512] = "";
    hcl_device_info info;
    memset(&info, 0, sizeof info);
    void *dev = NULL, *mod = NULL, *k = NULL;
    if (t->device_info(index, &info) != HCL_SUCCESS || t->device_open(index, &dev) != HCL_SUCCESS) {
        expect(0, "device_info / device_open", g_message);
        return;
    }
    hcl_driver_limits lim;
    memset(&lim, 0, sizeof lim);
    snprintf(what, sizeof what, "%s:%u '%s': device_limits", info.backend, index, info.name);
    if (expect(t->device_limits(dev, &lim) == HCL_SUCCESS, what, g_message)) {
        snprintf(detail, sizeof detail, "sub-groups of %u, at most %u x %u x %u groups", lim.subgroup_width,
                 lim.max_groups[0], lim.max_groups[1], lim.max_groups[2]);
        expect(is_power_of_two(lim.subgroup_width) && lim.subgroup_width <= 128, "a sub-group width (1 on a CPU)",
               detail);
        const char *wave = strstr(info.driver_version, "wave"); /* HIP says the width it takes in its version */
        if (wave)
            expect((unsigned)atoi(wave + 4) == lim.subgroup_width, "the sub-group width is the device's wavefront",
                   info.driver_version);
    }
    snprintf(what, sizeof what, "module_create (%s) and kernel_create '%s'", hcl_source_kind_name(src->kind), kernel);
    if (expect(t->module_create(dev, src, 1, &mod) == HCL_SUCCESS && t->kernel_create(mod, kernel, &k) == HCL_SUCCESS,
               what, g_message)) {
        uint64_t max_group = UINT64_MAX;
        snprintf(what, sizeof what, "kernel_max_group of '%s'", kernel);
        if (expect(t->kernel_max_group(k, &max_group) == HCL_SUCCESS, what, g_message)) {
            snprintf(detail, sizeof detail, "%llu work-items, the device's largest group %llu",
                     (unsigned long long)max_group, (unsigned long long)info.max_work_group_size);
            expect(max_group > 0 && max_group <= info.max_work_group_size, "a group size the device has", detail);
        }
    }
    if (k) t->kernel_destroy(k);
    if (mod) t->module_destroy(mod);
    t->device_close(dev);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s MODULE KIND FILE|- KERNEL\n", argv[0]);
        return 2;
    }
    static const char opencl_c[] = "__kernel void hcl_test_limits(__global float *x) { x[get_global_id(0)] = 1.0f; }";
    hcl_module_source src = {HCL_SOURCE_OPENCL_C, opencl_c, sizeof opencl_c - 1, NULL};
    for (int kind = HCL_SOURCE_OPENCL_C; kind <= HCL_SOURCE_HOST_TABLE; kind++)
        if (strcmp(hcl_source_kind_name((hcl_source_kind)kind) + strlen("HCL_SOURCE_"), argv[2]) == 0)
            src.kind = (hcl_source_kind)kind;
    void *data = NULL;
    if (strcmp(argv[3], "-") != 0 && !(data = test_read_file(argv[3], &src.size))) {
        printf("FAIL cannot read %s\n", argv[3]);
        return 1;
    }
    if (data) src.data = data;

    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *sym = lib ? dlsym(lib, HCL_DRIVER_ENTRY_NAME) : NULL;
    hcl_driver_entry_fn entry = NULL;
    memcpy(&entry, &sym, sizeof sym);
    const hcl_driver_table *t = entry ? entry() : NULL;
    if (!t || !HCL_DRIVER_HAS(t, device_limits) || !HCL_DRIVER_HAS(t, kernel_max_group)) {
        printf("FAIL %s: %s\n", argv[1],
               !lib ? dlerror()
                    : "no driver table with device_limits and "
                      "kernel_max_group");
        free(data);
        return 1;
    }
    char reason[2048] = "", version[256] = "";
    hcl_status st = t->init(&g_host, reason, sizeof reason, version, sizeof version);
    if (st == HCL_ERROR_BACKEND_UNAVAILABLE) {
        printf("SKIP %s is unavailable here: %s\n", t->name, reason);
        free(data);
        return 77;
    }
    uint32_t count = 0;
    if (expect(st == HCL_SUCCESS && t->device_count(&count) == HCL_SUCCESS && count > 0, "init and device_count",
               st == HCL_SUCCESS ? "" : reason)) {
        printf("     %s: %u device(s), %s\n", t->name, count, version);
        for (uint32_t i = 0; i < count; i++) test_device(t, i, &src, argv[4]);
    }
    t->shutdown();
    fake_cache_free();
    free(data);
    printf("%s: %d of %d checks failed\n", g_failures ? "FAIL" : "PASS", g_failures, g_checks);
    return g_failures ? 1 : 0;
}
