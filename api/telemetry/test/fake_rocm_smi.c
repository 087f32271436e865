/* A stand-in for librocm_smi64.so, built only for the tests (HCL_ROCM_SMI_LIBRARY names it): two devices, the second
 * of unique id 0xc0ffee01 (the test driver's AMD GPU), with scripted readings; clocks in the ROCm 5 layout of
 * rsmi_frequencies_t. No rsmi_dev_current_socket_power_get, so the source takes rsmi_dev_power_ave_get. */
#include <stdint.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define BAD 1           /* RSMI_STATUS_INVALID_ARGS */
#define NOT_SUPPORTED 2 /* RSMI_STATUS_NOT_SUPPORTED */

static int g_init;
static uint64_t g_energy = 1000000;

EXPORT int rsmi_init(uint64_t flags) {
    (void)flags;
    g_init = 1;
    return 0;
}
EXPORT int rsmi_status_string(int status, const char **text) {
    *text = status == 0               ? "RSMI_STATUS_SUCCESS"
            : status == NOT_SUPPORTED ? "RSMI_STATUS_NOT_SUPPORTED"
                                      : "RSMI_STATUS_INVALID_ARGS";
    return 0;
}
EXPORT int rsmi_num_monitor_devices(uint32_t *n) {
    *n = 2;
    return g_init ? 0 : BAD;
}
EXPORT int rsmi_dev_unique_id_get(uint32_t dv, uint64_t *id) {
    if (dv >= 2) return BAD;
    *id = dv == 0 ? 0x1234ull : 0xc0ffee01ull;
    return 0;
}
EXPORT int rsmi_dev_power_ave_get(uint32_t dv, uint32_t sensor, uint64_t *uw) {
    if (dv != 1 || sensor != 0) return BAD;
    *uw = 250000000ull;
    return 0;
}
EXPORT int rsmi_dev_energy_count_get(uint32_t dv, uint64_t *count, float *resolution, uint64_t *stamp) {
    if (dv != 1) return BAD;
    *count = g_energy;
    g_energy += 1000000;
    *resolution = 15.25f; /* uJ per count */
    *stamp = 42;
    return 0;
}
EXPORT int rsmi_dev_temp_metric_get(uint32_t dv, uint32_t type, int metric, int64_t *milli) {
    if (dv != 1 || type != 0 || metric != 0) return BAD;
    *milli = 55000;
    return 0;
}
EXPORT int rsmi_dev_gpu_clk_freq_get(uint32_t dv, int type, void *f) {
    if (dv != 1) return BAD;
    struct {
        uint32_t num_supported, current;
        uint64_t frequency[32];
    } r;
    memset(&r, 0, sizeof r);
    r.num_supported = 3;
    r.current = 2;
    r.frequency[0] = 500000000ull;
    r.frequency[1] = type == 4 ? 1200000000ull : 1000000000ull;
    r.frequency[2] = type == 4 ? 1600000000ull : 1700000000ull;
    memcpy(f, &r, sizeof r);
    return 0;
}
EXPORT int rsmi_dev_busy_percent_get(uint32_t dv, uint32_t *pct) {
    if (dv != 1) return BAD;
    *pct = 93;
    return 0;
}
EXPORT int rsmi_dev_memory_usage_get(uint32_t dv, int type, uint64_t *used) {
    if (dv != 1 || type != 0) return BAD;
    *used = 2ull << 30;
    return 0;
}
EXPORT int rsmi_dev_memory_total_get(uint32_t dv, int type, uint64_t *total) {
    if (dv != 1 || type != 0) return BAD;
    *total = 64ull << 30;
    return 0;
}
EXPORT int rsmi_dev_power_cap_get(uint32_t dv, uint32_t sensor, uint64_t *uw) {
    (void)sensor;
    (void)uw;
    return dv == 1 ? NOT_SUPPORTED : BAD;
}
