/* hcl_telemetry.h through the public API, on stand-ins (api/telemetry/CMakeLists.txt sets the environment):
 *   fake    the test driver's NVIDIA, AMD and Intel GPUs read through the fake NVML, ROCm SMI and Sysman: every value
 *           exactly, the energy counters advancing, power from Sysman's counter, the throttle bits and text, fields
 *           the library does not support, the MIG instances; a field mask
 *   absent  HCL_NVML_LIBRARY, HCL_ROCM_SMI_LIBRARY and HCL_SYSMAN_LIBRARY name missing files: every field unknown, the reason naming
 *           the file, and nothing fails
 *   host    the host device on a fake /sys and /proc (HCL_TELEMETRY_ROOT, written here): package energy summed over
 *           zones and unfolded across a counter wrap, power from the counter, limit, temperature, clock, memory
 *   off     HCL_TELEMETRY=off: every field says so
 * Exit 0 when every check passed, 1 otherwise. */
#define _GNU_SOURCE 1
#include <hcl/hcl_telemetry.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int g_failed;

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            g_failed = 1;                                                                                              \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                                     \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
        }                                                                                                              \
    } while (0)

static void check_value(const hcl_telemetry *t, hcl_telemetry_field f, double want) {
    const hcl_telemetry_value *v = &t->fields[f];
    CHECK(v->known && fabs(v->value - want) <= 1e-9 * fabs(want), "%s: known %d value %.9g (want %.9g) reason '%s'",
          hcl_telemetry_field_name(f), v->known, v->value, want, v->reason);
}

static void check_unknown(const hcl_telemetry *t, hcl_telemetry_field f, const char *needle) {
    const hcl_telemetry_value *v = &t->fields[f];
    CHECK(!v->known && strstr(v->reason, needle), "%s: known %d reason '%s' (want unknown with '%s')",
          hcl_telemetry_field_name(f), v->known, v->reason, needle);
}

/* The global index of backend:index, or UINT32_MAX. */
static uint32_t find(const char *backend, uint32_t index) {
    uint32_t n = 0;
    if (hcl_device_count(&n) != HCL_SUCCESS) return UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        hcl_device_info d;
        if (hcl_device_get_info_by_index(i, &d) == HCL_SUCCESS && strcmp(d.backend, backend) == 0 && d.index == index)
            return i;
    }
    return UINT32_MAX;
}

static void read_at(uint32_t i, uint32_t fields, hcl_telemetry *t) {
    hcl_status st = hcl_device_get_telemetry_by_index(i, fields, t);
    CHECK(st == HCL_SUCCESS, "device %u: %s: %s", i, hcl_status_name(st), hcl_last_message());
}

static void test_fake(void) {
    uint32_t nv = find("telefake", 0), amd = find("telefake", 1), intel = find("telefake", 2);
    CHECK(nv != UINT32_MAX && amd != UINT32_MAX && intel != UINT32_MAX, "the test driver's devices are not listed");
    if (g_failed) return;
    hcl_telemetry t;
    read_at(nv, 0, &t);
    CHECK(strcmp(t.source, "nvml") == 0, "source '%s'", t.source);
    CHECK(strstr(t.detail, "GPU-01234567-89ab-cdef-0123-456789abcdef") && strstr(t.detail, "999.99"), "detail '%s'",
          t.detail);
    CHECK(t.field_count == HCL_TELEMETRY_FIELD_COUNT, "field_count %u", t.field_count);
    check_value(&t, HCL_TELEMETRY_POWER, 123.456);
    check_value(&t, HCL_TELEMETRY_ENERGY, 5000.0);
    check_value(&t, HCL_TELEMETRY_TEMPERATURE, 47);
    check_value(&t, HCL_TELEMETRY_CLOCK_SM, 1980);
    check_value(&t, HCL_TELEMETRY_CLOCK_MEMORY, 2619);
    check_value(&t, HCL_TELEMETRY_UTILIZATION, 87);
    check_value(&t, HCL_TELEMETRY_MEMORY_UTILIZATION, 45);
    check_value(&t, HCL_TELEMETRY_MEMORY_USED, 1073741824.0);
    check_value(&t, HCL_TELEMETRY_MEMORY_TOTAL, 85899345920.0);
    check_value(&t, HCL_TELEMETRY_POWER_LIMIT, 700);
    check_value(&t, HCL_TELEMETRY_THROTTLE, HCL_THROTTLE_POWER | HCL_THROTTLE_THERMAL);
    CHECK(strcmp(t.throttle_text, "power cap, thermal") == 0, "throttle_text '%s'", t.throttle_text);
    check_unknown(&t, HCL_TELEMETRY_LINK_GENERATION, "nvmlDeviceGetCurrPcieLinkGeneration: Not Supported (3)");
    check_value(&t, HCL_TELEMETRY_LINK_WIDTH, 16);
    for (int f = HCL_TELEMETRY_FIELD_COUNT; f < HCL_TELEMETRY_FIELD_MAX; f++)
        CHECK(!t.fields[f].known, "slot %d past the fields is known", f);
    /* the counter advances; a mask reads only what it names */
    double t0 = t.time_s;
    read_at(nv, HCL_TELEMETRY_BIT(HCL_TELEMETRY_ENERGY) | HCL_TELEMETRY_BIT(HCL_TELEMETRY_CLOCK_SM), &t);
    check_value(&t, HCL_TELEMETRY_ENERGY, 5001.0);
    check_value(&t, HCL_TELEMETRY_CLOCK_SM, 1980);
    check_unknown(&t, HCL_TELEMETRY_POWER, "not asked for");
    CHECK(t.time_s >= t0, "time went back: %f < %f", t.time_s, t0);

    hcl_mig_info m;
    CHECK(hcl_device_get_mig_by_index(nv, &m) == HCL_SUCCESS, "%s", hcl_last_message());
    CHECK(m.known && m.enabled && m.pending && m.count == 2, "mig known %d enabled %d pending %d count %u reason '%s'",
          m.known, m.enabled, m.pending, m.count, m.reason);
    if (m.count == 2) {
        CHECK(strcmp(m.instances[0].name, "NVIDIA H100 80GB HBM3 MIG 1g.10gb") == 0, "'%s'", m.instances[0].name);
        CHECK(strcmp(m.instances[1].uuid, "MIG-aaaaaaaa-bbbb-cccc-dddd-000000000002") == 0, "'%s'",
              m.instances[1].uuid);
        CHECK(m.instances[0].gpu_instance == 9 && m.instances[1].gpu_instance == 2, "gi %u %u",
              m.instances[0].gpu_instance, m.instances[1].gpu_instance);
        CHECK(m.instances[1].multiprocessors == 60 && m.instances[1].slices == 3 &&
                  m.instances[1].memory_bytes == 40192ull << 20,
              "sm %u slices %u memory %llu", m.instances[1].multiprocessors, m.instances[1].slices,
              (unsigned long long)m.instances[1].memory_bytes);
    }
    CHECK(hcl_device_get_mig_by_index(amd, &m) == HCL_SUCCESS && !m.known && strstr(m.reason, "NVIDIA"), "'%s'",
          m.reason);

    read_at(amd, 0, &t);
    CHECK(strcmp(t.source, "rocm-smi") == 0, "source '%s' detail '%s'", t.source, t.detail);
    check_value(&t, HCL_TELEMETRY_POWER, 250);
    check_value(&t, HCL_TELEMETRY_ENERGY, 1000000.0 * 15.25 * 1e-6);
    check_value(&t, HCL_TELEMETRY_TEMPERATURE, 55);
    check_value(&t, HCL_TELEMETRY_CLOCK_SM, 1700);
    check_value(&t, HCL_TELEMETRY_CLOCK_MEMORY, 1600);
    check_value(&t, HCL_TELEMETRY_UTILIZATION, 93);
    check_value(&t, HCL_TELEMETRY_MEMORY_USED, 2.0 * (1 << 30));
    check_value(&t, HCL_TELEMETRY_MEMORY_TOTAL, 64.0 * (1 << 30));
    check_unknown(&t, HCL_TELEMETRY_POWER_LIMIT, "rsmi_dev_power_cap_get: RSMI_STATUS_NOT_SUPPORTED");
    read_at(amd, HCL_TELEMETRY_BIT(HCL_TELEMETRY_ENERGY), &t);
    check_value(&t, HCL_TELEMETRY_ENERGY, 2000000.0 * 15.25 * 1e-6);

    read_at(intel, 0, &t);
    CHECK(strcmp(t.source, "sysman") == 0 && strstr(t.detail, "1.3.99999 (fake)") && strstr(t.detail, "device 1"),
          "source '%s' detail '%s'", t.source, t.detail);
    check_value(&t, HCL_TELEMETRY_ENERGY, 1000.0);
    check_value(&t, HCL_TELEMETRY_POWER, 20.0); /* 2 J over the counter's own 100 ms */
    check_value(&t, HCL_TELEMETRY_POWER_LIMIT, 300);
    check_value(&t, HCL_TELEMETRY_CLOCK_SM, 1450);
    check_value(&t, HCL_TELEMETRY_CLOCK_MEMORY, 1200);
    check_value(&t, HCL_TELEMETRY_THROTTLE, HCL_THROTTLE_POWER | HCL_THROTTLE_THERMAL);
    check_value(&t, HCL_TELEMETRY_TEMPERATURE, 61.5);
    check_value(&t, HCL_TELEMETRY_MEMORY_USED, 4.0 * (1 << 30));
    check_value(&t, HCL_TELEMETRY_MEMORY_TOTAL, 64.0 * (1 << 30));
    check_value(&t, HCL_TELEMETRY_LINK_GENERATION, 4);
    check_unknown(&t, HCL_TELEMETRY_LINK_WIDTH, "link width is not known");
    check_unknown(&t, HCL_TELEMETRY_UTILIZATION, "Sysman");
    read_at(intel, HCL_TELEMETRY_BIT(HCL_TELEMETRY_ENERGY) | HCL_TELEMETRY_BIT(HCL_TELEMETRY_POWER), &t);
    check_value(&t, HCL_TELEMETRY_ENERGY, 1004.0); /* no wait this time: the previous read is 100 ms old */
    check_value(&t, HCL_TELEMETRY_POWER, 20.0);
}

static void test_absent(void) {
    uint32_t nv = find("telefake", 0), amd = find("telefake", 1);
    CHECK(nv != UINT32_MAX && amd != UINT32_MAX, "the test driver's devices are not listed");
    if (g_failed) return;
    hcl_telemetry t;
    read_at(nv, 0, &t);
    CHECK(t.source[0] == '\0' && strstr(t.detail, "/nonexistent/libnvidia-ml-hcl-test.so.1"), "detail '%s'", t.detail);
    for (int f = 0; f < HCL_TELEMETRY_FIELD_COUNT; f++)
        check_unknown(&t, (hcl_telemetry_field)f, "NVML: /nonexistent/libnvidia-ml-hcl-test.so.1");
    read_at(amd, 0, &t);
    check_unknown(&t, HCL_TELEMETRY_ENERGY, "ROCm SMI: /nonexistent/librocm_smi64-hcl-test.so");
    read_at(find("telefake", 2), 0, &t);
    check_unknown(&t, HCL_TELEMETRY_CLOCK_SM, "Level Zero Sysman: /nonexistent/libze_loader-hcl-test.so.1");
    hcl_mig_info m;
    CHECK(hcl_device_get_mig_by_index(nv, &m) == HCL_SUCCESS && !m.known && strstr(m.reason, "nonexistent"), "'%s'",
          m.reason);
    /* arguments */
    CHECK(hcl_device_get_telemetry_by_index(nv, 0, NULL) == HCL_ERROR_INVALID_ARGUMENT, "NULL out");
    CHECK(hcl_device_get_telemetry_by_index(100000, 0, &t) == HCL_ERROR_DEVICE_NOT_FOUND, "index out of range");
    CHECK(hcl_device_get_mig_by_index(nv, NULL) == HCL_ERROR_INVALID_ARGUMENT, "NULL out");
    CHECK(hcl_device_get_telemetry(NULL, &t) == HCL_ERROR_INVALID_HANDLE, "NULL handle");
    CHECK(hcl_telemetry_field_name(HCL_TELEMETRY_FIELD_COUNT) == NULL, "name past the end");
    CHECK(strcmp(hcl_telemetry_field_name(HCL_TELEMETRY_ENERGY), "energy_j") == 0, "energy's name");
    CHECK(strcmp(hcl_telemetry_field_unit(HCL_TELEMETRY_CLOCK_SM), "MHz") == 0, "clock's unit");
}

static void write_file(const char *root, const char *rel, const char *text) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void test_host(void) {
    const char *root = getenv("HCL_TELEMETRY_ROOT");
    CHECK(root && root[0], "HCL_TELEMETRY_ROOT is not set");
    if (g_failed) return;
    mkdir(root, 0755);
    write_file(root, "sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
    write_file(root, "sys/class/powercap/intel-rapl:0/max_energy_range_uj", "4000000\n");
    write_file(root, "sys/class/powercap/intel-rapl:0/constraint_0_power_limit_uw", "125000000\n");
    write_file(root, "sys/class/powercap/intel-rapl:1/energy_uj", "500000\n");
    write_file(root, "sys/class/powercap/intel-rapl:1/constraint_0_power_limit_uw", "125000000\n");
    write_file(root, "sys/class/powercap/intel-rapl:0:0/energy_uj", "99999999\n"); /* a sub-zone: not summed */
    write_file(root, "sys/class/hwmon/hwmon0/name", "nvme\n");
    write_file(root, "sys/class/hwmon/hwmon0/temp1_input", "30000\n");
    write_file(root, "sys/class/hwmon/hwmon1/name", "k10temp\n");
    write_file(root, "sys/class/hwmon/hwmon1/temp1_input", "61500\n");
    write_file(root, "sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "3000000\n");
    write_file(root, "sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "2000000\n");
    write_file(root, "proc/meminfo", "MemTotal:       16384 kB\nMemFree:  1 kB\nMemAvailable:    4096 kB\n");
    uint32_t host = find("host", 0);
    CHECK(host != UINT32_MAX, "no host device");
    if (g_failed) return;
    hcl_telemetry t;
    read_at(host, 0, &t);
    CHECK(strcmp(t.source, "powercap+hwmon") == 0, "source '%s'", t.source);
    check_value(&t, HCL_TELEMETRY_ENERGY, 1.5);
    check_value(&t, HCL_TELEMETRY_POWER, 0); /* the counters did not move during its 50 ms wait */
    check_value(&t, HCL_TELEMETRY_POWER_LIMIT, 250);
    check_value(&t, HCL_TELEMETRY_TEMPERATURE, 61.5);
    check_value(&t, HCL_TELEMETRY_CLOCK_SM, 2500);
    check_value(&t, HCL_TELEMETRY_MEMORY_TOTAL, 16384.0 * 1024);
    check_value(&t, HCL_TELEMETRY_MEMORY_USED, 12288.0 * 1024);
    check_unknown(&t, HCL_TELEMETRY_LINK_WIDTH, "no PCIe link");
    usleep(100000);
    write_file(root, "sys/class/powercap/intel-rapl:0/energy_uj", "3000000\n");
    read_at(host, 0, &t);
    check_value(&t, HCL_TELEMETRY_ENERGY, 3.5);
    CHECK(t.fields[HCL_TELEMETRY_POWER].known && t.fields[HCL_TELEMETRY_POWER].value > 1.0 &&
              t.fields[HCL_TELEMETRY_POWER].value < 20.0,
          "power %f W over about 0.1 s (2 J)", t.fields[HCL_TELEMETRY_POWER].value);
    write_file(root, "sys/class/powercap/intel-rapl:0/energy_uj", "500000\n"); /* wrapped at 4 J */
    read_at(host, HCL_TELEMETRY_BIT(HCL_TELEMETRY_ENERGY), &t);
    check_value(&t, HCL_TELEMETRY_ENERGY, 5.0);
    /* no powercap at all: unknown with the reason, the rest still read */
    char gone[1200];
    snprintf(gone, sizeof gone, "%s/sys/class/powercap-gone", root);
    char here[1200];
    snprintf(here, sizeof here, "%s/sys/class/powercap", root);
    CHECK(rename(here, gone) == 0, "rename");
    read_at(host, 0, &t);
    check_unknown(&t, HCL_TELEMETRY_ENERGY, "powercap: ");
    check_value(&t, HCL_TELEMETRY_TEMPERATURE, 61.5);
}

static void test_off(void) {
    uint32_t host = find("host", 0);
    hcl_telemetry t;
    read_at(host, 0, &t);
    CHECK(t.source[0] == '\0', "source '%s'", t.source);
    check_unknown(&t, HCL_TELEMETRY_POWER, "HCL_TELEMETRY=off");
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "fake") == 0)
        test_fake();
    else if (strcmp(mode, "absent") == 0)
        test_absent();
    else if (strcmp(mode, "host") == 0)
        test_host();
    else if (strcmp(mode, "off") == 0)
        test_off();
    else {
        fprintf(stderr, "usage: hcl-test-telemetry fake|absent|host|off\n");
        return 2;
    }
    printf("%s: %s\n", mode, g_failed ? "FAILED" : "passed");
    return g_failed;
}
