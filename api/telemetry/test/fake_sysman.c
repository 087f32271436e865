/* A stand-in for the Level Zero loader's Sysman entry points (libze_loader.so.1), built only for the tests
 * (HCL_SYSMAN_LIBRARY names it): one driver with two devices, the second of the test driver's Intel GPU UUID
 * ("hcl-intel-gpu-02"), with scripted readings: an energy counter that advances 2 J and 100 ms of its own timestamp a
 * read (20 W), a GPU and a memory frequency domain, a board and a GPU temperature sensor, two memory modules, a PCIe
 * link of unknown width (-1). */
#include "vendor_sysman.h"

#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define BAD 0x78000004 /* ZE_RESULT_ERROR_INVALID_ARGUMENT */

static int g_init;
static struct hcl_zes_device_s { int index; } g_devs[2] = {{0}, {1}};
static struct hcl_zes_pwr_s { int x; } g_pwr;
static struct hcl_zes_freq_s { int type; } g_freq[2] = {{HCL_ZES_FREQ_DOMAIN_GPU}, {HCL_ZES_FREQ_DOMAIN_MEMORY}};
static struct hcl_zes_temp_s {
    int type;
    double c;
} g_temp[2] = {{0 /* ZES_TEMP_SENSORS_GLOBAL */, 70.0}, {HCL_ZES_TEMP_SENSORS_GPU, 61.5}};
static struct hcl_zes_mem_s { int x; } g_mem[2];
static uint64_t g_energy = 1000000000ull, g_stamp = 5000000ull;

/* count/handles enumeration as Level Zero does it: *count 0 asks for the number */
#define ENUM(count, out, array, n)                                                                                     \
    do {                                                                                                               \
        if (*(count) == 0 || !(out)) {                                                                                 \
            *(count) = (n);                                                                                            \
            return 0;                                                                                                  \
        }                                                                                                              \
        uint32_t k_ = *(count) < (n) ? *(count) : (n);                                                                 \
        for (uint32_t i_ = 0; i_ < k_; i_++) (out)[i_] = &(array)[i_];                                                 \
        *(count) = k_;                                                                                                 \
        return 0;                                                                                                      \
    } while (0)

EXPORT hcl_ze_result_t zesInit(uint32_t flags) {
    (void)flags;
    g_init = 1;
    return 0;
}
EXPORT hcl_ze_result_t zesDriverGet(uint32_t *count, hcl_zes_driver_handle_t *drivers) {
    if (!g_init) return 0x78000001; /* ZE_RESULT_ERROR_UNINITIALIZED */
    if (*count == 0 || !drivers) {
        *count = 1;
        return 0;
    }
    drivers[0] = (hcl_zes_driver_handle_t)&g_init;
    *count = 1;
    return 0;
}
EXPORT hcl_ze_result_t zesDeviceGet(hcl_zes_driver_handle_t d, uint32_t *count, hcl_zes_device_handle_t *devs) {
    if ((void *)d != &g_init) return BAD;
    ENUM(count, devs, g_devs, 2);
}
EXPORT hcl_ze_result_t zesDeviceGetProperties(hcl_zes_device_handle_t d, hcl_zes_device_properties_t *p) {
    if (d != &g_devs[0] && d != &g_devs[1]) return BAD;
    if (p->stype != HCL_ZES_STYPE_DEVICE_PROPERTIES) return BAD;
    memcpy(p->core.uuid, d == &g_devs[1] ? "hcl-intel-gpu-02" : "some-other-gpu-x", 16);
    strcpy(p->driverVersion, "1.3.99999 (fake)");
    strcpy(p->core.name, "Intel(R) Data Center GPU Max 1100 (fake)");
    return 0;
}
EXPORT hcl_ze_result_t zesDeviceGetCardPowerDomain(hcl_zes_device_handle_t d, hcl_zes_pwr_handle_t *p) {
    if (d != &g_devs[1]) return HCL_ZE_ERROR_UNSUPPORTED_FEATURE;
    *p = &g_pwr;
    return 0;
}
EXPORT hcl_ze_result_t zesPowerGetEnergyCounter(hcl_zes_pwr_handle_t p, hcl_zes_power_energy_counter_t *e) {
    if (p != &g_pwr) return BAD;
    e->energy = g_energy;
    e->timestamp = g_stamp;
    g_energy += 2000000; /* 2 J */
    g_stamp += 100000;   /* 100 ms */
    return 0;
}
EXPORT hcl_ze_result_t zesPowerGetLimits(hcl_zes_pwr_handle_t p, hcl_zes_power_sustained_limit_t *s, void *b, void *k) {
    (void)b;
    (void)k;
    if (p != &g_pwr) return BAD;
    if (s) {
        s->enabled = 1;
        s->power = 300000;
        s->interval = 28000;
    }
    return 0;
}
EXPORT hcl_ze_result_t zesDeviceEnumFrequencyDomains(hcl_zes_device_handle_t d, uint32_t *count,
                                                     hcl_zes_freq_handle_t *out) {
    if (d != &g_devs[1]) return BAD;
    ENUM(count, out, g_freq, 2);
}
EXPORT hcl_ze_result_t zesFrequencyGetProperties(hcl_zes_freq_handle_t f, hcl_zes_freq_properties_t *p) {
    if (p->stype != HCL_ZES_STYPE_FREQ_PROPERTIES) return BAD;
    p->type = f->type;
    p->min = 300;
    p->max = f->type == HCL_ZES_FREQ_DOMAIN_GPU ? 1550 : 1200;
    return 0;
}
EXPORT hcl_ze_result_t zesFrequencyGetState(hcl_zes_freq_handle_t f, hcl_zes_freq_state_t *s) {
    if (s->stype != HCL_ZES_STYPE_FREQ_STATE) return BAD;
    s->actual = f->type == HCL_ZES_FREQ_DOMAIN_GPU ? 1450 : 1200;
    s->throttleReasons =
        f->type == HCL_ZES_FREQ_DOMAIN_GPU ? HCL_ZES_THROTTLE_AVE_PWR_CAP | HCL_ZES_THROTTLE_THERMAL_LIMIT : 0;
    return 0;
}
EXPORT hcl_ze_result_t zesDeviceEnumTemperatureSensors(hcl_zes_device_handle_t d, uint32_t *count,
                                                       hcl_zes_temp_handle_t *out) {
    if (d != &g_devs[1]) return BAD;
    ENUM(count, out, g_temp, 2);
}
EXPORT hcl_ze_result_t zesTemperatureGetProperties(hcl_zes_temp_handle_t t, hcl_zes_temp_properties_t *p) {
    if (p->stype != HCL_ZES_STYPE_TEMP_PROPERTIES) return BAD;
    p->type = t->type;
    return 0;
}
EXPORT hcl_ze_result_t zesTemperatureGetState(hcl_zes_temp_handle_t t, double *c) {
    *c = t->c;
    return 0;
}
EXPORT hcl_ze_result_t zesDeviceEnumMemoryModules(hcl_zes_device_handle_t d, uint32_t *count,
                                                  hcl_zes_mem_handle_t *out) {
    if (d != &g_devs[1]) return BAD;
    ENUM(count, out, g_mem, 2);
}
EXPORT hcl_ze_result_t zesMemoryGetState(hcl_zes_mem_handle_t m, hcl_zes_mem_state_t *s) {
    (void)m;
    if (s->stype != HCL_ZES_STYPE_MEM_STATE) return BAD;
    s->size = 32ull << 30;
    s->free = 30ull << 30;
    return 0;
}
EXPORT hcl_ze_result_t zesDevicePciGetState(hcl_zes_device_handle_t d, hcl_zes_pci_state_t *s) {
    if (d != &g_devs[1] || s->stype != HCL_ZES_STYPE_PCI_STATE) return BAD;
    s->speed.gen = 4;
    s->speed.width = -1;
    s->speed.maxBandwidth = -1;
    return 0;
}
