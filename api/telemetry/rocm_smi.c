/* The ROCm SMI source: AMD GPUs through librocm_smi64.so (what rocm-smi reads), matched by the unique id that HIP's
 * device UUID carries. The entry points and constants below match rocm_smi.h of ROCm 5.x and 6.x (declared here: libhcl
 * includes no vendor header). */
#include "core.h"
#include "source.h"
#include "symbols.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

typedef int rsmi_status_t; /* RSMI_STATUS_SUCCESS 0 */
#define RSMI_STATUS_SUCCESS 0
#define RSMI_TEMP_TYPE_EDGE 0 /* rsmi_temperature_type_t */
#define RSMI_TEMP_CURRENT 0   /* rsmi_temperature_metric_t */
#define RSMI_CLK_TYPE_SYS 0   /* rsmi_clk_type_t */
#define RSMI_CLK_TYPE_MEM 4
#define RSMI_MEM_TYPE_VRAM 0 /* rsmi_memory_type_t */
rsmi_status_t rsmi_init(uint64_t init_flags);
rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **status_string);
rsmi_status_t rsmi_num_monitor_devices(uint32_t *num_devices);
rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv_ind, uint64_t *id);
rsmi_status_t rsmi_dev_power_ave_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *power); /* uW */
rsmi_status_t rsmi_dev_current_socket_power_get(uint32_t dv_ind, uint64_t *socket_power);    /* uW (MI300) */
rsmi_status_t rsmi_dev_energy_count_get(uint32_t dv_ind, uint64_t *power, float *counter_resolution,
                                        uint64_t *timestamp);
rsmi_status_t rsmi_dev_temp_metric_get(uint32_t dv_ind, uint32_t sensor_type, int metric, int64_t *temperature);
rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv_ind, int clk_type, void *f);
rsmi_status_t rsmi_dev_busy_percent_get(uint32_t dv_ind, uint32_t *busy_percent);
rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv_ind, int mem_type, uint64_t *used);
rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv_ind, int mem_type, uint64_t *total);
rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv_ind, uint32_t sensor_ind, uint64_t *cap); /* uW */

#define RSMI_SYMBOLS(X, XO)                                                                                            \
    X(rsmi_init)                                                                                                       \
    X(rsmi_status_string)                                                                                              \
    X(rsmi_num_monitor_devices)                                                                                        \
    X(rsmi_dev_unique_id_get)                                                                                          \
    XO(rsmi_dev_power_ave_get)                                                                                         \
    XO(rsmi_dev_current_socket_power_get)                                                                              \
    XO(rsmi_dev_energy_count_get)                                                                                      \
    XO(rsmi_dev_temp_metric_get)                                                                                       \
    XO(rsmi_dev_gpu_clk_freq_get)                                                                                      \
    XO(rsmi_dev_busy_percent_get)                                                                                      \
    XO(rsmi_dev_memory_usage_get)                                                                                      \
    XO(rsmi_dev_memory_total_get)                                                                                      \
    XO(rsmi_dev_power_cap_get)

typedef struct rsmi_symbols {
    RSMI_SYMBOLS(HCL_KIT_SYMBOL_FIELD, HCL_KIT_SYMBOL_FIELD)
} rsmi_symbols;
#define SYM(name) HCL_KIT_SYMBOL(rsmi_symbols, name)
#define SYM_OPT(name) HCL_KIT_SYMBOL_OPTIONAL(rsmi_symbols, name)
static const hcl_kit_symbol symbols[] = {RSMI_SYMBOLS(SYM, SYM_OPT)};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_tried, g_ready;
static rsmi_symbols g_rsmi;
static char g_reason[1024];

static int rsmi_ready(void) {
    pthread_mutex_lock(&g_lock);
    if (!g_tried) {
        g_tried = 1;
        static const char *const names[] = {"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
                                            "librocm_smi64.so"};
        char reason[900] = "";
        void *lib =
            hcl__driver_host()->open_library("telemetry", "HCL_ROCM_SMI_LIBRARY", names, 4, reason, sizeof reason);
        if (!lib) {
            snprintf(g_reason, sizeof g_reason, "ROCm SMI: %s", reason);
        } else if (hcl__kit_resolve(lib, symbols, sizeof symbols / sizeof symbols[0], &g_rsmi, "ROCm SMI",
                                    "a ROCm SMI older than ROCm 5", reason, sizeof reason) != HCL_SUCCESS) {
            snprintf(g_reason, sizeof g_reason, "ROCm SMI: %s", reason);
        } else {
            rsmi_status_t r = g_rsmi.rsmi_init(0);
            const char *e = NULL;
            if (r != RSMI_STATUS_SUCCESS) {
                g_rsmi.rsmi_status_string(r, &e);
                snprintf(g_reason, sizeof g_reason, "ROCm SMI: rsmi_init failed: %s (%d)", e ? e : "?", r);
            } else {
                g_ready = 1;
            }
        }
    }
    int ready = g_ready;
    pthread_mutex_unlock(&g_lock);
    return ready;
}

static void why_failed(hcl_telemetry *t, hcl_telemetry_field f, const char *call, rsmi_status_t r) {
    const char *e = NULL;
    if (g_rsmi.rsmi_status_string(r, &e) != RSMI_STATUS_SUCCESS) e = NULL;
    hcl__tele_unknown(t, f, "ROCm SMI: %s: %s (%d)", call, e ? e : "?", r);
}

/* HIP on ROCm gives as its UUID the 16 hex digits of ROCm SMI's unique id, as text: find the SMI device of it. */
static int find_device(const hcl_device_info *d, uint32_t *out, char *why, size_t why_size) {
    char text[17];
    if (!d->has_uuid) {
        snprintf(why, why_size, "ROCm SMI: the %s runtime gives no UUID for this device, so it cannot be matched",
                 d->backend);
        return 0;
    }
    memcpy(text, d->uuid, 16);
    text[16] = '\0';
    uint32_t n = 0;
    if (g_rsmi.rsmi_num_monitor_devices(&n) != RSMI_STATUS_SUCCESS) n = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t id = 0;
        char hex[17];
        if (g_rsmi.rsmi_dev_unique_id_get(i, &id) != RSMI_STATUS_SUCCESS) continue;
        snprintf(hex, sizeof hex, "%016" PRIx64, id);
        if (strncasecmp(hex, text, 16) == 0) {
            *out = i;
            return 1;
        }
    }
    snprintf(why, why_size, "ROCm SMI: none of its %u devices has the unique id of this device's UUID", n);
    return 0;
}

/* The current clock of rsmi_frequencies_t, whose layout changed: ROCm 6.1 put a bool (has_deep_sleep) first. The
 * reply is read both ways and the one whose index is in range taken. */
static int clock_mhz(uint32_t dv, int type, double *out) {
    union {
        unsigned char bytes[1024];
        uint64_t align;
    } buf;
    memset(&buf, 0, sizeof buf);
    if (g_rsmi.rsmi_dev_gpu_clk_freq_get(dv, type, &buf) != RSMI_STATUS_SUCCESS) return 0;
    for (int bool_first = 1; bool_first >= 0; bool_first--) {
        uint32_t num, cur;
        size_t at = bool_first ? 4 : 0, freq = bool_first ? 16 : 8;
        memcpy(&num, buf.bytes + at, 4);
        memcpy(&cur, buf.bytes + at + 4, 4);
        if (num >= 1 && num <= 33 && cur < num) {
            uint64_t hz;
            memcpy(&hz, buf.bytes + freq + 8 * cur, 8);
            if (hz) {
                *out = (double)hz / 1e6;
                return 1;
            }
        }
    }
    return 0;
}

int hcl__tele_rsmi_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size) {
    if (!rsmi_ready()) {
        snprintf(why, why_size, "%s", g_reason);
        return 0;
    }
    uint32_t dv = 0;
    if (!find_device(d, &dv, why, why_size)) return 0;
    snprintf(t->source, sizeof t->source, "rocm-smi");
    snprintf(t->detail, sizeof t->detail, "ROCm SMI device %u, matched by unique id", dv);
    uint64_t v = 0;
    rsmi_status_t r = -1;
    if (g_rsmi.rsmi_dev_current_socket_power_get && g_rsmi.rsmi_dev_current_socket_power_get(dv, &v) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_POWER, (double)v * 1e-6);
    else if (g_rsmi.rsmi_dev_power_ave_get && (r = g_rsmi.rsmi_dev_power_ave_get(dv, 0, &v)) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_POWER, (double)v * 1e-6);
    else
        why_failed(t, HCL_TELEMETRY_POWER, "rsmi_dev_power_ave_get", r);
    float resolution = 0;
    uint64_t stamp = 0;
    if (g_rsmi.rsmi_dev_energy_count_get && (r = g_rsmi.rsmi_dev_energy_count_get(dv, &v, &resolution, &stamp)) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_ENERGY, (double)v * (double)resolution * 1e-6); /* counts x uJ */
    else
        why_failed(t, HCL_TELEMETRY_ENERGY, "rsmi_dev_energy_count_get", r);
    int64_t milli = 0;
    if (g_rsmi.rsmi_dev_temp_metric_get &&
        (r = g_rsmi.rsmi_dev_temp_metric_get(dv, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &milli)) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_TEMPERATURE, (double)milli * 1e-3);
    else
        why_failed(t, HCL_TELEMETRY_TEMPERATURE, "rsmi_dev_temp_metric_get", r);
    double mhz = 0;
    if (g_rsmi.rsmi_dev_gpu_clk_freq_get && clock_mhz(dv, RSMI_CLK_TYPE_SYS, &mhz))
        hcl__tele_set(t, HCL_TELEMETRY_CLOCK_SM, mhz);
    else
        hcl__tele_unknown(t, HCL_TELEMETRY_CLOCK_SM, "ROCm SMI: rsmi_dev_gpu_clk_freq_get gave no current clock");
    if (g_rsmi.rsmi_dev_gpu_clk_freq_get && clock_mhz(dv, RSMI_CLK_TYPE_MEM, &mhz))
        hcl__tele_set(t, HCL_TELEMETRY_CLOCK_MEMORY, mhz);
    else
        hcl__tele_unknown(t, HCL_TELEMETRY_CLOCK_MEMORY, "ROCm SMI: rsmi_dev_gpu_clk_freq_get gave no current clock");
    uint32_t pct = 0;
    if (g_rsmi.rsmi_dev_busy_percent_get && (r = g_rsmi.rsmi_dev_busy_percent_get(dv, &pct)) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_UTILIZATION, pct);
    else
        why_failed(t, HCL_TELEMETRY_UTILIZATION, "rsmi_dev_busy_percent_get", r);
    hcl__tele_unknown(t, HCL_TELEMETRY_MEMORY_UTILIZATION, "ROCm SMI: not read by this HCL version");
    if (g_rsmi.rsmi_dev_memory_usage_get && (r = g_rsmi.rsmi_dev_memory_usage_get(dv, RSMI_MEM_TYPE_VRAM, &v)) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_MEMORY_USED, (double)v);
    else
        why_failed(t, HCL_TELEMETRY_MEMORY_USED, "rsmi_dev_memory_usage_get", r);
    if (g_rsmi.rsmi_dev_memory_total_get && (r = g_rsmi.rsmi_dev_memory_total_get(dv, RSMI_MEM_TYPE_VRAM, &v)) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_MEMORY_TOTAL, (double)v);
    else
        why_failed(t, HCL_TELEMETRY_MEMORY_TOTAL, "rsmi_dev_memory_total_get", r);
    if (g_rsmi.rsmi_dev_power_cap_get && (r = g_rsmi.rsmi_dev_power_cap_get(dv, 0, &v)) == 0)
        hcl__tele_set(t, HCL_TELEMETRY_POWER_LIMIT, (double)v * 1e-6);
    else
        why_failed(t, HCL_TELEMETRY_POWER_LIMIT, "rsmi_dev_power_cap_get", r);
    hcl__tele_unknown(t, HCL_TELEMETRY_THROTTLE, "ROCm SMI: throttle status is not read by this HCL version");
    hcl__tele_unknown(t, HCL_TELEMETRY_LINK_GENERATION, "ROCm SMI: the PCIe link is not read by this HCL version");
    hcl__tele_unknown(t, HCL_TELEMETRY_LINK_WIDTH, "ROCm SMI: the PCIe link is not read by this HCL version");
    return 1;
}
