/* The NVML source: NVIDIA GPUs through libnvidia-ml.so.1 (what nvidia-smi and DCGM read), matched by UUID. */
#include "core.h"
#include "source.h"
#include "symbols.h"
#include "vendor_nvml.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NVML_SYMBOLS(X, XO, XOR)                                                                                       \
    X(nvmlInit_v2)                                                                                                     \
    X(nvmlErrorString)                                                                                                 \
    X(nvmlDeviceGetHandleByUUID)                                                                                       \
    XO(nvmlSystemGetDriverVersion)                                                                                     \
    XO(nvmlDeviceGetPowerUsage)                                                                                        \
    XO(nvmlDeviceGetTotalEnergyConsumption)                                                                            \
    XO(nvmlDeviceGetTemperature)                                                                                       \
    XO(nvmlDeviceGetClockInfo)                                                                                         \
    XO(nvmlDeviceGetUtilizationRates)                                                                                  \
    XO(nvmlDeviceGetMemoryInfo)                                                                                        \
    XO(nvmlDeviceGetEnforcedPowerLimit)                                                                                \
    XOR(nvmlDeviceGetCurrentClocksEventReasons, "nvmlDeviceGetCurrentClocksThrottleReasons")                           \
    XO(nvmlDeviceGetCurrPcieLinkGeneration)                                                                            \
    XO(nvmlDeviceGetCurrPcieLinkWidth)                                                                                 \
    XO(nvmlDeviceGetMigMode)                                                                                           \
    XO(nvmlDeviceGetMaxMigDeviceCount)                                                                                 \
    XO(nvmlDeviceGetMigDeviceHandleByIndex)                                                                            \
    XO(nvmlDeviceGetDeviceHandleFromMigDeviceHandle)                                                                   \
    XO(nvmlDeviceGetName)                                                                                              \
    XO(nvmlDeviceGetUUID)                                                                                              \
    XO(nvmlDeviceGetGpuInstanceId)                                                                                     \
    XO(nvmlDeviceGetComputeInstanceId)                                                                                 \
    XO(nvmlDeviceGetAttributes_v2)

#define FIELD(name) HCL_KIT_SYMBOL_FIELD(name)
#define FIELD_OR(name, old) HCL_KIT_SYMBOL_FIELD(name)
typedef struct nvml_symbols {
    NVML_SYMBOLS(FIELD, FIELD, FIELD_OR)
} nvml_symbols;
#define SYM(name) HCL_KIT_SYMBOL(nvml_symbols, name)
#define SYM_OPT(name) HCL_KIT_SYMBOL_OPTIONAL(nvml_symbols, name)
/* optional with an older name: both missing leaves it NULL */
#define SYM_OPT_OR(name, old) {#name, old, offsetof(nvml_symbols, name), 1},
static const hcl_kit_symbol symbols[] = {NVML_SYMBOLS(SYM, SYM_OPT, SYM_OPT_OR)};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_tried;
static int g_ready;
static nvml_symbols g_nvml;
static char g_reason[1024];
static char g_version[96];

/* Open and initialise NVML once; 1 when ready, else 0 with g_reason. */
static int nvml_ready(void) {
    pthread_mutex_lock(&g_lock);
    if (!g_tried) {
        g_tried = 1;
        static const char *const names[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
        char reason[900] = "";
        void *lib = hcl__driver_host()->open_library("telemetry", "HCL_NVML_LIBRARY", names, 2, reason, sizeof reason);
        if (!lib) {
            snprintf(g_reason, sizeof g_reason, "NVML: %s", reason);
        } else if (hcl__kit_resolve(lib, symbols, sizeof symbols / sizeof symbols[0], &g_nvml, "NVML",
                                    "an NVML older than driver 450", reason, sizeof reason) != HCL_SUCCESS) {
            snprintf(g_reason, sizeof g_reason, "NVML: %s", reason);
        } else {
            nvmlReturn_t r = g_nvml.nvmlInit_v2();
            if (r != NVML_SUCCESS) {
                const char *e = g_nvml.nvmlErrorString(r);
                snprintf(g_reason, sizeof g_reason, "NVML: nvmlInit_v2 failed: %s (%d)", e ? e : "?", r);
            } else {
                g_ready = 1;
                if (!g_nvml.nvmlSystemGetDriverVersion ||
                    g_nvml.nvmlSystemGetDriverVersion(g_version, sizeof g_version) != NVML_SUCCESS)
                    snprintf(g_version, sizeof g_version, "(driver version not given)");
                hcl__log(HCL_LOG_DEBUG, "telemetry", "NVML ready, driver %s", g_version);
            }
        }
    }
    int ready = g_ready;
    pthread_mutex_unlock(&g_lock);
    return ready;
}

/* "NVML: Not Supported (3)" for a failed call. */
static void why_failed(hcl_telemetry *t, hcl_telemetry_field f, const char *call, nvmlReturn_t r) {
    const char *e = g_nvml.nvmlErrorString(r);
    hcl__tele_unknown(t, f, "NVML: %s: %s (%d)", call, e ? e : "?", r);
}

/* The UUID as NVML writes it, with the given prefix ("GPU-" or "MIG-"). */
static void uuid_text(const uint8_t *u, const char *prefix, char *out, size_t size) {
    snprintf(out, size, "%s%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", prefix, u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* NVML's handle of the device: by its UUID as a GPU, else as a MIG device; 0 with why. */
static int find_handle(const hcl_device_info *d, nvmlDevice_t *out, char *uuid, size_t uuid_size, char *why,
                       size_t why_size) {
    if (!d->has_uuid) {
        snprintf(why, why_size, "NVML: the %s runtime gives no UUID for this device, so it cannot be matched",
                 d->backend);
        return 0;
    }
    nvmlReturn_t r = NVML_ERROR_NOT_FOUND;
    static const char *const prefixes[] = {"GPU-", "MIG-"};
    for (int i = 0; i < 2 && r != NVML_SUCCESS; i++) {
        uuid_text(d->uuid, prefixes[i], uuid, uuid_size);
        r = g_nvml.nvmlDeviceGetHandleByUUID(uuid, out);
    }
    if (r != NVML_SUCCESS) {
        const char *e = g_nvml.nvmlErrorString(r);
        uuid_text(d->uuid, "GPU-", uuid, uuid_size);
        snprintf(why, why_size, "NVML: no device of UUID %s (nvmlDeviceGetHandleByUUID: %s (%d))", uuid, e ? e : "?",
                 r);
        return 0;
    }
    return 1;
}

static uint32_t throttle_bits(unsigned long long r) {
    uint32_t bits = 0;
    if (r & NVML_CLOCKS_EVENT_GPU_IDLE) bits |= HCL_THROTTLE_IDLE;
    if (r & (NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS | NVML_CLOCKS_EVENT_DISPLAY_CLOCKS))
        bits |= HCL_THROTTLE_APPLICATION_CLOCKS;
    if (r & NVML_CLOCKS_EVENT_SW_POWER_CAP) bits |= HCL_THROTTLE_POWER;
    if (r & (NVML_CLOCKS_EVENT_SW_THERMAL | NVML_CLOCKS_EVENT_HW_THERMAL)) bits |= HCL_THROTTLE_THERMAL;
    if (r & (NVML_CLOCKS_EVENT_HW_SLOWDOWN | NVML_CLOCKS_EVENT_HW_POWER_BRAKE)) bits |= HCL_THROTTLE_HARDWARE;
    if (r & ~(NVML_CLOCKS_EVENT_GPU_IDLE | NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS | NVML_CLOCKS_EVENT_DISPLAY_CLOCKS |
              NVML_CLOCKS_EVENT_SW_POWER_CAP | NVML_CLOCKS_EVENT_SW_THERMAL | NVML_CLOCKS_EVENT_HW_THERMAL |
              NVML_CLOCKS_EVENT_HW_SLOWDOWN | NVML_CLOCKS_EVENT_HW_POWER_BRAKE))
        bits |= HCL_THROTTLE_OTHER;
    return bits;
}

#define ABSENT(t, f, name) hcl__tele_unknown(t, f, "NVML: this libnvidia-ml lacks %s", name)
/* Call an optional entry point into a field: absent, failed, or the value scaled. */
#define READ_UINT(t, f, fn, scale, ...)                                                                                \
    do {                                                                                                               \
        if (!hcl__tele_wanted(t, f)) break;                                                                            \
        if (!g_nvml.fn) {                                                                                              \
            ABSENT(t, f, #fn);                                                                                         \
            break;                                                                                                     \
        }                                                                                                              \
        unsigned int v_ = 0;                                                                                           \
        nvmlReturn_t r_ = g_nvml.fn(__VA_ARGS__, &v_);                                                                 \
        if (r_ == NVML_SUCCESS)                                                                                        \
            hcl__tele_set(t, f, (double)v_ *(scale));                                                                  \
        else                                                                                                           \
            why_failed(t, f, #fn, r_);                                                                                 \
    } while (0)

int hcl__tele_nvml_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size) {
    if (!nvml_ready()) {
        snprintf(why, why_size, "%s", g_reason);
        return 0;
    }
    nvmlDevice_t dev = NULL, board = NULL;
    char uuid[96];
    if (!find_handle(d, &dev, uuid, sizeof uuid, why, why_size)) return 0;
    /* a MIG device has no power, energy, clock or link readings of its own: they are its GPU's */
    board = dev;
    int mig = strncmp(uuid, "MIG-", 4) == 0;
    if (mig && g_nvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle &&
        g_nvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(dev, &board) != NVML_SUCCESS)
        board = dev;
    snprintf(t->source, sizeof t->source, "nvml");
    t->detail[0] = '\0';
    hcl__kit_appendf(t->detail, sizeof t->detail, "NVML, driver %s; %s by UUID%s", g_version, uuid,
                     mig ? " (a MIG device: power, energy, clocks, temperature and link are its whole GPU's)" : "");
    READ_UINT(t, HCL_TELEMETRY_POWER, nvmlDeviceGetPowerUsage, 1e-3, board);
    if (hcl__tele_wanted(t, HCL_TELEMETRY_ENERGY)) {
        unsigned long long mj = 0;
        nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
        if (!g_nvml.nvmlDeviceGetTotalEnergyConsumption)
            ABSENT(t, HCL_TELEMETRY_ENERGY, "nvmlDeviceGetTotalEnergyConsumption");
        else if ((r = g_nvml.nvmlDeviceGetTotalEnergyConsumption(board, &mj)) == NVML_SUCCESS)
            hcl__tele_set(t, HCL_TELEMETRY_ENERGY, (double)mj * 1e-3);
        else
            why_failed(t, HCL_TELEMETRY_ENERGY, "nvmlDeviceGetTotalEnergyConsumption", r);
    }
    READ_UINT(t, HCL_TELEMETRY_TEMPERATURE, nvmlDeviceGetTemperature, 1.0, board, NVML_TEMPERATURE_GPU);
    READ_UINT(t, HCL_TELEMETRY_CLOCK_SM, nvmlDeviceGetClockInfo, 1.0, board, NVML_CLOCK_SM);
    READ_UINT(t, HCL_TELEMETRY_CLOCK_MEMORY, nvmlDeviceGetClockInfo, 1.0, board, NVML_CLOCK_MEM);
    READ_UINT(t, HCL_TELEMETRY_POWER_LIMIT, nvmlDeviceGetEnforcedPowerLimit, 1e-3, board);
    READ_UINT(t, HCL_TELEMETRY_LINK_GENERATION, nvmlDeviceGetCurrPcieLinkGeneration, 1.0, board);
    READ_UINT(t, HCL_TELEMETRY_LINK_WIDTH, nvmlDeviceGetCurrPcieLinkWidth, 1.0, board);
    if (hcl__tele_wanted(t, HCL_TELEMETRY_UTILIZATION) || hcl__tele_wanted(t, HCL_TELEMETRY_MEMORY_UTILIZATION)) {
        nvmlUtilization_t u = {0, 0};
        nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
        if (!g_nvml.nvmlDeviceGetUtilizationRates) {
            ABSENT(t, HCL_TELEMETRY_UTILIZATION, "nvmlDeviceGetUtilizationRates");
            ABSENT(t, HCL_TELEMETRY_MEMORY_UTILIZATION, "nvmlDeviceGetUtilizationRates");
        } else if ((r = g_nvml.nvmlDeviceGetUtilizationRates(dev, &u)) == NVML_SUCCESS) {
            hcl__tele_set(t, HCL_TELEMETRY_UTILIZATION, u.gpu);
            hcl__tele_set(t, HCL_TELEMETRY_MEMORY_UTILIZATION, u.memory);
        } else {
            why_failed(t, HCL_TELEMETRY_UTILIZATION, "nvmlDeviceGetUtilizationRates", r);
            why_failed(t, HCL_TELEMETRY_MEMORY_UTILIZATION, "nvmlDeviceGetUtilizationRates", r);
        }
    }
    if (hcl__tele_wanted(t, HCL_TELEMETRY_MEMORY_USED) || hcl__tele_wanted(t, HCL_TELEMETRY_MEMORY_TOTAL)) {
        nvmlMemory_t m = {0, 0, 0};
        nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
        if (!g_nvml.nvmlDeviceGetMemoryInfo) {
            ABSENT(t, HCL_TELEMETRY_MEMORY_USED, "nvmlDeviceGetMemoryInfo");
            ABSENT(t, HCL_TELEMETRY_MEMORY_TOTAL, "nvmlDeviceGetMemoryInfo");
        } else if ((r = g_nvml.nvmlDeviceGetMemoryInfo(dev, &m)) == NVML_SUCCESS) {
            hcl__tele_set(t, HCL_TELEMETRY_MEMORY_USED, (double)m.used);
            hcl__tele_set(t, HCL_TELEMETRY_MEMORY_TOTAL, (double)m.total);
        } else {
            why_failed(t, HCL_TELEMETRY_MEMORY_USED, "nvmlDeviceGetMemoryInfo", r);
            why_failed(t, HCL_TELEMETRY_MEMORY_TOTAL, "nvmlDeviceGetMemoryInfo", r);
        }
    }
    if (hcl__tele_wanted(t, HCL_TELEMETRY_THROTTLE)) {
        unsigned long long reasons = 0;
        nvmlReturn_t r = NVML_ERROR_NOT_SUPPORTED;
        if (!g_nvml.nvmlDeviceGetCurrentClocksEventReasons) {
            ABSENT(t, HCL_TELEMETRY_THROTTLE, "nvmlDeviceGetCurrentClocksEventReasons");
        } else if ((r = g_nvml.nvmlDeviceGetCurrentClocksEventReasons(board, &reasons)) == NVML_SUCCESS) {
            uint32_t bits = throttle_bits(reasons);
            hcl__tele_set(t, HCL_TELEMETRY_THROTTLE, bits);
            hcl__tele_throttle_text(t, bits);
        } else {
            why_failed(t, HCL_TELEMETRY_THROTTLE, "nvmlDeviceGetCurrentClocksEventReasons", r);
        }
    }
    return 1;
}

/* One MIG device into an instance entry. */
static void mig_instance(nvmlDevice_t mig, hcl_mig_instance *out) {
    memset(out, 0, sizeof *out);
    if (g_nvml.nvmlDeviceGetName && g_nvml.nvmlDeviceGetName(mig, out->name, sizeof out->name) != NVML_SUCCESS)
        out->name[0] = '\0';
    if (g_nvml.nvmlDeviceGetUUID && g_nvml.nvmlDeviceGetUUID(mig, out->uuid, sizeof out->uuid) != NVML_SUCCESS)
        out->uuid[0] = '\0';
    unsigned int id = 0;
    if (g_nvml.nvmlDeviceGetGpuInstanceId && g_nvml.nvmlDeviceGetGpuInstanceId(mig, &id) == NVML_SUCCESS)
        out->gpu_instance = id;
    if (g_nvml.nvmlDeviceGetComputeInstanceId && g_nvml.nvmlDeviceGetComputeInstanceId(mig, &id) == NVML_SUCCESS)
        out->compute_instance = id;
    nvmlDeviceAttributes_t a;
    memset(&a, 0, sizeof a);
    if (g_nvml.nvmlDeviceGetAttributes_v2 && g_nvml.nvmlDeviceGetAttributes_v2(mig, &a) == NVML_SUCCESS) {
        out->multiprocessors = a.multiprocessorCount;
        out->slices = a.gpuInstanceSliceCount;
        out->memory_bytes = a.memorySizeMB * 1024ull * 1024ull;
    }
    nvmlMemory_t m = {0, 0, 0};
    if (!out->memory_bytes && g_nvml.nvmlDeviceGetMemoryInfo && g_nvml.nvmlDeviceGetMemoryInfo(mig, &m) == NVML_SUCCESS)
        out->memory_bytes = m.total;
}

int hcl__tele_nvml_mig(const hcl_device_info *d, hcl_mig_info *m) {
    if (!nvml_ready()) {
        m->reason[0] = '\0';
        hcl__kit_appendf(m->reason, sizeof m->reason, "%s", g_reason);
        return 0;
    }
    nvmlDevice_t dev = NULL, gpu = NULL;
    char uuid[96];
    if (!find_handle(d, &dev, uuid, sizeof uuid, m->reason, sizeof m->reason)) return 0;
    gpu = dev;
    if (strncmp(uuid, "MIG-", 4) == 0 &&
        (!g_nvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle ||
         g_nvml.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(dev, &gpu) != NVML_SUCCESS)) {
        snprintf(m->reason, sizeof m->reason, "NVML: the GPU of MIG device %s is not found", uuid);
        return 0;
    }
    if (!g_nvml.nvmlDeviceGetMigMode) {
        snprintf(m->reason, sizeof m->reason, "NVML: this libnvidia-ml lacks nvmlDeviceGetMigMode");
        return 0;
    }
    unsigned int current = 0, pending = 0;
    nvmlReturn_t r = g_nvml.nvmlDeviceGetMigMode(gpu, &current, &pending);
    if (r != NVML_SUCCESS) {
        const char *e = g_nvml.nvmlErrorString(r);
        snprintf(m->reason, sizeof m->reason, "NVML: nvmlDeviceGetMigMode: %s (%d)%s", e ? e : "?", r,
                 r == NVML_ERROR_NOT_SUPPORTED ? ": the GPU has no MIG" : "");
        return 0;
    }
    m->known = 1;
    m->enabled = current == NVML_DEVICE_MIG_ENABLE;
    m->pending = pending == NVML_DEVICE_MIG_ENABLE;
    unsigned int max = 0;
    if (!m->enabled || !g_nvml.nvmlDeviceGetMaxMigDeviceCount || !g_nvml.nvmlDeviceGetMigDeviceHandleByIndex ||
        g_nvml.nvmlDeviceGetMaxMigDeviceCount(gpu, &max) != NVML_SUCCESS)
        return 1;
    for (unsigned int i = 0; i < max && m->count < HCL_MIG_MAX; i++) {
        nvmlDevice_t mig = NULL;
        if (g_nvml.nvmlDeviceGetMigDeviceHandleByIndex(gpu, i, &mig) != NVML_SUCCESS) continue; /* an empty slot */
        mig_instance(mig, &m->instances[m->count++]);
    }
    return 1;
}
