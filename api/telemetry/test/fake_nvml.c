/* A stand-in for libnvidia-ml.so.1, built only for the tests (HCL_NVML_LIBRARY names it): one H100-like GPU of UUID
 * GPU-01234567-89ab-cdef-0123-456789abcdef with scripted readings, an energy counter that advances 1000 mJ a read,
 * MIG mode on with two instances in slots 0 and 2, and the throttle reasons under the older export name only
 * (nvmlDeviceGetCurrentClocksThrottleReasons), so the source's fallback is taken. */
#include "vendor_nvml.h"

#include <stdio.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static struct nvmlDevice_st { int slot; /* -1: the GPU; else its MIG slot */ } g_gpu = {-1}, g_mig[2] = {{0}, {2}};
static const char g_uuid[] = "GPU-01234567-89ab-cdef-0123-456789abcdef";
static int g_inits;
static unsigned long long g_energy_mj = 5000000ull;

#define DEV_CHECK(d)                                                                                                   \
    do {                                                                                                               \
        if (!g_inits) return 1;                                              /* NVML_ERROR_UNINITIALIZED */            \
        if ((d) != &g_gpu && (d) != &g_mig[0] && (d) != &g_mig[1]) return 2; /* NVML_ERROR_INVALID_ARGUMENT */         \
    } while (0)

EXPORT nvmlReturn_t nvmlInit_v2(void) {
    g_inits++;
    return NVML_SUCCESS;
}
EXPORT const char *nvmlErrorString(nvmlReturn_t r) {
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    default: return "Unknown Error";
    }
}
EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *v, unsigned int n) {
    snprintf(v, n, "999.99 (fake)");
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *out) {
    if (!g_inits) return 1;
    if (strcmp(uuid, g_uuid) != 0) return NVML_ERROR_NOT_FOUND;
    *out = &g_gpu;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *mw) {
    DEV_CHECK(d);
    *mw = 123456;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *mj) {
    DEV_CHECK(d);
    *mj = g_energy_mj;
    g_energy_mj += 1000;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *c) {
    DEV_CHECK(d);
    if (sensor != NVML_TEMPERATURE_GPU) return 2;
    *c = 47;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned int *mhz) {
    DEV_CHECK(d);
    if (type == NVML_CLOCK_SM)
        *mhz = 1980;
    else if (type == NVML_CLOCK_MEM)
        *mhz = 2619;
    else
        return 2;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) {
    DEV_CHECK(d);
    u->gpu = 87;
    u->memory = 45;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    DEV_CHECK(d);
    m->total = d == &g_gpu ? 85899345920ull : 10ull << 30;
    m->used = d == &g_gpu ? 1073741824ull : 1ull << 20;
    m->free = m->total - m->used;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *mw) {
    DEV_CHECK(d);
    *mw = 700000;
    return NVML_SUCCESS;
}
/* The older name only: the source must fall back to it. Power cap and hardware thermal slowdown. */
EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *r) {
    DEV_CHECK(d);
    *r = NVML_CLOCKS_EVENT_SW_POWER_CAP | NVML_CLOCKS_EVENT_HW_THERMAL;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *g) {
    DEV_CHECK(d);
    (void)g;
    return NVML_ERROR_NOT_SUPPORTED; /* the "unknown with the reason" path */
}
EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *w) {
    DEV_CHECK(d);
    *w = 16;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *cur, unsigned int *pend) {
    DEV_CHECK(d);
    if (d != &g_gpu) return 2;
    *cur = NVML_DEVICE_MIG_ENABLE;
    *pend = NVML_DEVICE_MIG_ENABLE;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n) {
    DEV_CHECK(d);
    *n = 7;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int i, nvmlDevice_t *out) {
    DEV_CHECK(d);
    if (d != &g_gpu || i >= 7) return 2;
    if (i != 0 && i != 2) return NVML_ERROR_NOT_FOUND;
    *out = &g_mig[i == 0 ? 0 : 1];
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t d, nvmlDevice_t *out) {
    DEV_CHECK(d);
    if (d == &g_gpu) return 2;
    *out = &g_gpu;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int n) {
    DEV_CHECK(d);
    snprintf(name, n, "NVIDIA H100 80GB HBM3%s", d == &g_gpu ? "" : d->slot == 0 ? " MIG 1g.10gb" : " MIG 3g.40gb");
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int n) {
    DEV_CHECK(d);
    if (d == &g_gpu)
        snprintf(uuid, n, "%s", g_uuid);
    else
        snprintf(uuid, n, "MIG-aaaaaaaa-bbbb-cccc-dddd-00000000000%d", d->slot);
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
    DEV_CHECK(d);
    if (d == &g_gpu) return 2;
    *id = d->slot == 0 ? 9 : 2;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
    DEV_CHECK(d);
    if (d == &g_gpu) return 2;
    *id = 0;
    return NVML_SUCCESS;
}
EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *a) {
    DEV_CHECK(d);
    memset(a, 0, sizeof *a);
    a->multiprocessorCount = d == &g_gpu ? 132 : d->slot == 0 ? 16 : 60;
    a->gpuInstanceSliceCount = d == &g_gpu ? 7 : d->slot == 0 ? 1 : 3;
    a->memorySizeMB = d == &g_gpu ? 81559 : d->slot == 0 ? 9856 : 40192;
    return NVML_SUCCESS;
}
