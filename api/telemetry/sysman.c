/* The Level Zero Sysman source: Intel GPUs through the Level Zero loader's zes* entry points (what xpu-smi reads),
 * initialised with zesInit (spec 1.5; no ZES_ENABLE_SYSMAN needed) and matched by the device UUID that the Level Zero
 * and OpenCL runtimes give. Power comes from the energy counter (Sysman has no power reading of its own). */
#define _GNU_SOURCE 1
#include "core.h"
#include "source.h"
#include "symbols.h"
#include "vendor_sysman.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SYSMAN_SYMBOLS(X, XO)                                                                                          \
    X(zesInit)                                                                                                         \
    X(zesDriverGet)                                                                                                    \
    X(zesDeviceGet)                                                                                                    \
    X(zesDeviceGetProperties)                                                                                          \
    XO(zesDeviceGetCardPowerDomain)                                                                                    \
    XO(zesDeviceEnumPowerDomains)                                                                                      \
    XO(zesPowerGetEnergyCounter)                                                                                       \
    XO(zesPowerGetLimits)                                                                                              \
    XO(zesDeviceEnumFrequencyDomains)                                                                                  \
    XO(zesFrequencyGetProperties)                                                                                      \
    XO(zesFrequencyGetState)                                                                                           \
    XO(zesDeviceEnumTemperatureSensors)                                                                                \
    XO(zesTemperatureGetProperties)                                                                                    \
    XO(zesTemperatureGetState)                                                                                         \
    XO(zesDeviceEnumMemoryModules)                                                                                     \
    XO(zesMemoryGetState)                                                                                              \
    XO(zesDevicePciGetState)

typedef struct sysman_symbols {
    SYSMAN_SYMBOLS(HCL_KIT_SYMBOL_FIELD, HCL_KIT_SYMBOL_FIELD)
} sysman_symbols;
#define SYM(name) HCL_KIT_SYMBOL(sysman_symbols, name)
#define SYM_OPT(name) HCL_KIT_SYMBOL_OPTIONAL(sysman_symbols, name)
static const hcl_kit_symbol symbols[] = {SYSMAN_SYMBOLS(SYM, SYM_OPT)};

#define MAX_DEVICES 32
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_tried, g_ready;
static sysman_symbols g_zes;
static char g_reason[1024];
static struct {
    hcl_zes_device_handle_t handle;
    uint8_t uuid[16];
    char driver_version[64];
    hcl_zes_power_energy_counter_t last; /* the previous energy reading, for power */
} g_dev[MAX_DEVICES];
static uint32_t g_count;

/* Open the loader, zesInit, and list every Sysman device with its UUID, once; 1 when ready, else 0 with g_reason. */
static int sysman_ready(void) {
    pthread_mutex_lock(&g_lock);
    if (!g_tried) {
        g_tried = 1;
        static const char *const names[] = {"libze_loader.so.1", "libze_loader.so"};
        char reason[900] = "";
        hcl_ze_result_t r;
        void *lib =
            hcl__driver_host()->open_library("telemetry", "HCL_SYSMAN_LIBRARY", names, 2, reason, sizeof reason);
        if (!lib) {
            snprintf(g_reason, sizeof g_reason, "Level Zero Sysman: %s", reason);
        } else if (hcl__kit_resolve(lib, symbols, sizeof symbols / sizeof symbols[0], &g_zes, "the Level Zero loader",
                                    "zesInit came with Level Zero 1.5; an older loader has Sysman only through "
                                    "ZES_ENABLE_SYSMAN=1, which HCL does not use",
                                    reason, sizeof reason) != HCL_SUCCESS) {
            snprintf(g_reason, sizeof g_reason, "Level Zero Sysman: %s", reason);
        } else if ((r = g_zes.zesInit(0)) != HCL_ZE_SUCCESS) {
            snprintf(g_reason, sizeof g_reason, "Level Zero Sysman: zesInit failed: 0x%x (no Level Zero GPU driver?)",
                     (unsigned)r);
        } else {
            hcl_zes_driver_handle_t drivers[8];
            uint32_t nd = 8;
            if (g_zes.zesDriverGet(&nd, drivers) != HCL_ZE_SUCCESS) nd = 0;
            for (uint32_t d = 0; d < nd && d < 8; d++) {
                hcl_zes_device_handle_t devs[MAX_DEVICES];
                uint32_t n = MAX_DEVICES;
                if (g_zes.zesDeviceGet(drivers[d], &n, devs) != HCL_ZE_SUCCESS) continue;
                for (uint32_t i = 0; i < n && i < MAX_DEVICES && g_count < MAX_DEVICES; i++) {
                    hcl_zes_device_properties_t p;
                    memset(&p, 0, sizeof p);
                    p.stype = HCL_ZES_STYPE_DEVICE_PROPERTIES;
                    p.core.stype = HCL_ZE_STYPE_DEVICE_PROPERTIES;
                    if (g_zes.zesDeviceGetProperties(devs[i], &p) != HCL_ZE_SUCCESS) continue;
                    g_dev[g_count].handle = devs[i];
                    memcpy(g_dev[g_count].uuid, p.core.uuid, 16);
                    memcpy(g_dev[g_count].driver_version, p.driverVersion, sizeof p.driverVersion);
                    g_dev[g_count].driver_version[sizeof g_dev[0].driver_version - 1] = '\0';
                    g_count++;
                }
            }
            g_ready = 1;
        }
    }
    int ready = g_ready;
    pthread_mutex_unlock(&g_lock);
    return ready;
}

/* The card's power domain, else the first one; NULL when none. */
static hcl_zes_pwr_handle_t power_domain(hcl_zes_device_handle_t dev) {
    hcl_zes_pwr_handle_t p = NULL;
    if (g_zes.zesDeviceGetCardPowerDomain && g_zes.zesDeviceGetCardPowerDomain(dev, &p) == HCL_ZE_SUCCESS && p)
        return p;
    uint32_t n = 1;
    if (g_zes.zesDeviceEnumPowerDomains && g_zes.zesDeviceEnumPowerDomains(dev, &n, &p) == HCL_ZE_SUCCESS && n >= 1)
        return p;
    return NULL;
}

static uint32_t throttle_bits(uint32_t r) {
    uint32_t bits = 0;
    if (r & (HCL_ZES_THROTTLE_AVE_PWR_CAP | HCL_ZES_THROTTLE_BURST_PWR_CAP | HCL_ZES_THROTTLE_CURRENT_LIMIT))
        bits |= HCL_THROTTLE_POWER;
    if (r & HCL_ZES_THROTTLE_THERMAL_LIMIT) bits |= HCL_THROTTLE_THERMAL;
    if (r & (HCL_ZES_THROTTLE_PSU_ALERT | HCL_ZES_THROTTLE_HW_RANGE)) bits |= HCL_THROTTLE_HARDWARE;
    if (r & HCL_ZES_THROTTLE_SW_RANGE) bits |= HCL_THROTTLE_APPLICATION_CLOCKS;
    if (r & ~0x7fu) bits |= HCL_THROTTLE_OTHER;
    return bits;
}

static void read_power(uint32_t k, hcl_zes_device_handle_t dev, hcl_telemetry *t) {
    hcl_zes_pwr_handle_t p = power_domain(dev);
    hcl_zes_power_energy_counter_t e = {0, 0}, e0;
    hcl_ze_result_t r = -1;
    if (!p || !g_zes.zesPowerGetEnergyCounter || (r = g_zes.zesPowerGetEnergyCounter(p, &e)) != HCL_ZE_SUCCESS) {
        hcl__tele_unknown(t, HCL_TELEMETRY_ENERGY, "Level Zero Sysman: %s",
                          p ? "zesPowerGetEnergyCounter failed" : "the device has no power domain");
        hcl__tele_unknown(t, HCL_TELEMETRY_POWER, "Level Zero Sysman: no energy counter to derive power from");
    } else {
        hcl__tele_set(t, HCL_TELEMETRY_ENERGY, (double)e.energy * 1e-6);
        /* power over the counter's own timestamps: since the previous read when that is 20 ms to 10 s old, else over
         * a 50 ms wait */
        pthread_mutex_lock(&g_lock);
        e0 = g_dev[k].last;
        pthread_mutex_unlock(&g_lock);
        uint64_t age = e.timestamp - e0.timestamp;
        if (hcl__tele_wanted(t, HCL_TELEMETRY_POWER) && (!e0.timestamp || age < 20000 || age > 10000000)) {
            e0 = e;
            usleep(50000);
            if (g_zes.zesPowerGetEnergyCounter(p, &e) != HCL_ZE_SUCCESS) e = e0;
        }
        if (e.timestamp > e0.timestamp && e.energy >= e0.energy)
            hcl__tele_set(t, HCL_TELEMETRY_POWER,
                          (double)(e.energy - e0.energy) / (double)(e.timestamp - e0.timestamp));
        else
            hcl__tele_unknown(t, HCL_TELEMETRY_POWER, "Level Zero Sysman: the energy counter did not advance");
        pthread_mutex_lock(&g_lock);
        g_dev[k].last = e;
        pthread_mutex_unlock(&g_lock);
    }
    hcl_zes_power_sustained_limit_t lim;
    memset(&lim, 0, sizeof lim);
    if (p && g_zes.zesPowerGetLimits && g_zes.zesPowerGetLimits(p, &lim, NULL, NULL) == HCL_ZE_SUCCESS && lim.enabled)
        hcl__tele_set(t, HCL_TELEMETRY_POWER_LIMIT, lim.power * 1e-3);
    else
        hcl__tele_unknown(t, HCL_TELEMETRY_POWER_LIMIT, "Level Zero Sysman: no sustained power limit given");
}

static void read_clocks(hcl_zes_device_handle_t dev, hcl_telemetry *t) {
    hcl_zes_freq_handle_t f[8];
    uint32_t n = 8;
    int gpu = 0, mem = 0;
    if (g_zes.zesDeviceEnumFrequencyDomains && g_zes.zesFrequencyGetProperties && g_zes.zesFrequencyGetState &&
        g_zes.zesDeviceEnumFrequencyDomains(dev, &n, f) == HCL_ZE_SUCCESS)
        for (uint32_t i = 0; i < n && i < 8; i++) {
            hcl_zes_freq_properties_t p;
            hcl_zes_freq_state_t s;
            memset(&p, 0, sizeof p);
            memset(&s, 0, sizeof s);
            p.stype = HCL_ZES_STYPE_FREQ_PROPERTIES;
            s.stype = HCL_ZES_STYPE_FREQ_STATE;
            if (g_zes.zesFrequencyGetProperties(f[i], &p) != HCL_ZE_SUCCESS ||
                g_zes.zesFrequencyGetState(f[i], &s) != HCL_ZE_SUCCESS || s.actual <= 0)
                continue;
            if (p.type == HCL_ZES_FREQ_DOMAIN_GPU && !gpu) {
                gpu = 1;
                hcl__tele_set(t, HCL_TELEMETRY_CLOCK_SM, s.actual);
                uint32_t bits = throttle_bits(s.throttleReasons);
                hcl__tele_set(t, HCL_TELEMETRY_THROTTLE, bits);
                hcl__tele_throttle_text(t, bits);
            } else if (p.type == HCL_ZES_FREQ_DOMAIN_MEMORY && !mem) {
                mem = 1;
                hcl__tele_set(t, HCL_TELEMETRY_CLOCK_MEMORY, s.actual);
            }
        }
    if (!gpu) {
        hcl__tele_unknown(t, HCL_TELEMETRY_CLOCK_SM, "Level Zero Sysman: no GPU frequency domain reported");
        hcl__tele_unknown(t, HCL_TELEMETRY_THROTTLE, "Level Zero Sysman: no GPU frequency domain reported");
    }
    if (!mem)
        hcl__tele_unknown(t, HCL_TELEMETRY_CLOCK_MEMORY, "Level Zero Sysman: no memory frequency domain reported");
}

static void read_temperature(hcl_zes_device_handle_t dev, hcl_telemetry *t) {
    hcl_zes_temp_handle_t h[16];
    uint32_t n = 16;
    if (g_zes.zesDeviceEnumTemperatureSensors && g_zes.zesTemperatureGetProperties && g_zes.zesTemperatureGetState &&
        g_zes.zesDeviceEnumTemperatureSensors(dev, &n, h) == HCL_ZE_SUCCESS)
        for (uint32_t i = 0; i < n && i < 16; i++) {
            hcl_zes_temp_properties_t p;
            memset(&p, 0, sizeof p);
            p.stype = HCL_ZES_STYPE_TEMP_PROPERTIES;
            double c = 0;
            if (g_zes.zesTemperatureGetProperties(h[i], &p) == HCL_ZE_SUCCESS && p.type == HCL_ZES_TEMP_SENSORS_GPU &&
                g_zes.zesTemperatureGetState(h[i], &c) == HCL_ZE_SUCCESS) {
                hcl__tele_set(t, HCL_TELEMETRY_TEMPERATURE, c);
                return;
            }
        }
    hcl__tele_unknown(t, HCL_TELEMETRY_TEMPERATURE, "Level Zero Sysman: no GPU temperature sensor reported");
}

static void read_memory(hcl_zes_device_handle_t dev, hcl_telemetry *t) {
    hcl_zes_mem_handle_t h[16];
    uint32_t n = 16;
    double size = 0, used = 0;
    int any = 0;
    if (g_zes.zesDeviceEnumMemoryModules && g_zes.zesMemoryGetState &&
        g_zes.zesDeviceEnumMemoryModules(dev, &n, h) == HCL_ZE_SUCCESS)
        for (uint32_t i = 0; i < n && i < 16; i++) {
            hcl_zes_mem_state_t s;
            memset(&s, 0, sizeof s);
            s.stype = HCL_ZES_STYPE_MEM_STATE;
            if (g_zes.zesMemoryGetState(h[i], &s) != HCL_ZE_SUCCESS) continue;
            size += (double)s.size;
            used += (double)(s.size - s.free);
            any = 1;
        }
    if (any) {
        hcl__tele_set(t, HCL_TELEMETRY_MEMORY_USED, used);
        hcl__tele_set(t, HCL_TELEMETRY_MEMORY_TOTAL, size);
    } else {
        hcl__tele_unknown(t, HCL_TELEMETRY_MEMORY_USED, "Level Zero Sysman: no memory module reported");
        hcl__tele_unknown(t, HCL_TELEMETRY_MEMORY_TOTAL, "Level Zero Sysman: no memory module reported");
    }
}

int hcl__tele_sysman_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size) {
    if (!sysman_ready()) {
        snprintf(why, why_size, "%s", g_reason);
        return 0;
    }
    if (!d->has_uuid) {
        snprintf(why, why_size,
                 "Level Zero Sysman: the %s runtime gives no UUID for this device, so it cannot be matched",
                 d->backend);
        return 0;
    }
    uint32_t k = 0;
    while (k < g_count && memcmp(g_dev[k].uuid, d->uuid, 16) != 0) k++;
    if (k == g_count) {
        snprintf(why, why_size, "Level Zero Sysman: none of its %u devices has this device's UUID", g_count);
        return 0;
    }
    hcl_zes_device_handle_t dev = g_dev[k].handle;
    snprintf(t->source, sizeof t->source, "sysman");
    t->detail[0] = '\0';
    hcl__kit_appendf(t->detail, sizeof t->detail, "Level Zero Sysman, driver %s; device %u by UUID",
                     g_dev[k].driver_version[0] ? g_dev[k].driver_version : "(version not given)", k);
    read_power(k, dev, t);
    read_clocks(dev, t);
    read_temperature(dev, t);
    read_memory(dev, t);
    hcl__tele_unknown(t, HCL_TELEMETRY_UTILIZATION, "Level Zero Sysman: engine activity is not read by this version");
    hcl__tele_unknown(t, HCL_TELEMETRY_MEMORY_UTILIZATION, "Level Zero Sysman: memory bandwidth is not read");
    hcl_zes_pci_state_t pci;
    memset(&pci, 0, sizeof pci);
    pci.stype = HCL_ZES_STYPE_PCI_STATE;
    if (g_zes.zesDevicePciGetState && g_zes.zesDevicePciGetState(dev, &pci) == HCL_ZE_SUCCESS && pci.speed.gen > 0) {
        hcl__tele_set(t, HCL_TELEMETRY_LINK_GENERATION, pci.speed.gen);
        if (pci.speed.width > 0)
            hcl__tele_set(t, HCL_TELEMETRY_LINK_WIDTH, pci.speed.width);
        else
            hcl__tele_unknown(t, HCL_TELEMETRY_LINK_WIDTH, "Level Zero Sysman: the link width is not known (-1)");
    } else {
        hcl__tele_unknown(t, HCL_TELEMETRY_LINK_GENERATION, "Level Zero Sysman: zesDevicePciGetState gave no speed");
        hcl__tele_unknown(t, HCL_TELEMETRY_LINK_WIDTH, "Level Zero Sysman: zesDevicePciGetState gave no speed");
    }
    return 1;
}
