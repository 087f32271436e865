/* The host source: the CPU's package energy and power from Linux powercap (intel-rapl, also on AMD Zen), its
 * temperature from hwmon (coretemp, k10temp, zenpower), its clock from cpufreq and memory from /proc/meminfo. Under
 * HCL_TELEMETRY_ROOT (tests) every path is read below that folder instead of /. */
#define _GNU_SOURCE 1
#include "core.h"
#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* snprintf whose cut text is expected (paths and reasons are bounded by their buffers). */
static void put(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void put(char *buf, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

/* The first line of a file as a number; 0 with why when it cannot be read. */
static int read_number(const char *path, double *out, char *why, size_t why_size) {
    FILE *f = fopen(path, "r");
    if (!f) {
        if (why) put(why, why_size, "%s: %s", path, strerror(errno));
        return 0;
    }
    char line[128];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    char *end = NULL;
    if (ok) *out = strtod(line, &end);
    if (!ok || end == line) {
        if (why) put(why, why_size, "%s: not a number", path);
        return 0;
    }
    return 1;
}

static int read_text(const char *path, char *out, size_t size) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(out, (int)size, f) != NULL;
    fclose(f);
    if (ok) out[strcspn(out, "\n")] = '\0';
    return ok;
}

/* The package zones' counters, summed, with their wraps (max_energy_range_uj) unfolded across calls. */
#define MAX_ZONES 16
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char name[64];
    double last_uj, total_uj;
    int seen;
} g_zones[MAX_ZONES];
static double g_last_energy_j = -1, g_last_time_s;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sum of the package zones' energy in J (unfolded), their power limit in W; number of zones read, 0 with why. */
static int powercap_read(double *out_j, double *out_limit_w, int *limit_known, char *why, size_t why_size) {
    char dir[512], path[700];
    put(dir, sizeof dir, "%s/sys/class/powercap", hcl__tele_root());
    DIR *dp = opendir(dir);
    if (!dp) {
        put(why, why_size, "powercap: %s: %s (no RAPL here, or not in this container)", dir, strerror(errno));
        return 0;
    }
    int zones = 0;
    double total = 0, limit = 0;
    *limit_known = 0;
    char failed[300] = "";
    pthread_mutex_lock(&g_lock);
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        /* top-level zones only: intel-rapl:0, intel-rapl:1 (not intel-rapl:0:0, a part of package 0) */
        if (strncmp(e->d_name, "intel-rapl:", 11) != 0 || strchr(e->d_name + 11, ':')) continue;
        double uj = 0, range = 0, lim = 0;
        put(path, sizeof path, "%s/%s/energy_uj", dir, e->d_name);
        if (!read_number(path, &uj, failed, sizeof failed)) continue;
        put(path, sizeof path, "%s/%s/max_energy_range_uj", dir, e->d_name);
        if (!read_number(path, &range, NULL, 0)) range = 0;
        put(path, sizeof path, "%s/%s/constraint_0_power_limit_uw", dir, e->d_name);
        if (read_number(path, &lim, NULL, 0)) {
            limit += lim * 1e-6;
            *limit_known = 1;
        }
        int z = 0;
        while (z < MAX_ZONES && g_zones[z].seen && strcmp(g_zones[z].name, e->d_name) != 0) z++;
        if (z == MAX_ZONES) continue;
        if (!g_zones[z].seen) {
            g_zones[z].seen = 1;
            put(g_zones[z].name, sizeof g_zones[z].name, "%s", e->d_name);
            g_zones[z].total_uj = uj;
        } else {
            double step = uj - g_zones[z].last_uj;
            if (step < 0 && range > 0) step += range; /* the counter wrapped */
            if (step > 0) g_zones[z].total_uj += step;
        }
        g_zones[z].last_uj = uj;
        total += g_zones[z].total_uj;
        zones++;
    }
    pthread_mutex_unlock(&g_lock);
    closedir(dp);
    if (!zones) {
        put(why, why_size, "powercap: no readable package zone under %s%s%s", dir, failed[0] ? ": " : "", failed);
        return 0;
    }
    *out_j = total * 1e-6;
    *out_limit_w = limit;
    return zones;
}

/* The package temperature from the first hwmon of a CPU driver, in degrees C; 0 with why. */
static int hwmon_temperature(double *out, char *why, size_t why_size) {
    char dir[512], path[700], name[64];
    put(dir, sizeof dir, "%s/sys/class/hwmon", hcl__tele_root());
    DIR *dp = opendir(dir);
    if (!dp) {
        put(why, why_size, "hwmon: %s: %s", dir, strerror(errno));
        return 0;
    }
    struct dirent *e;
    int found = 0;
    put(why, why_size, "hwmon: no coretemp, k10temp or zenpower sensor under %s", dir);
    while (!found && (e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.') continue;
        put(path, sizeof path, "%s/%s/name", dir, e->d_name);
        if (!read_text(path, name, sizeof name)) continue;
        if (strcmp(name, "coretemp") && strcmp(name, "k10temp") && strcmp(name, "zenpower")) continue;
        double milli = 0;
        put(path, sizeof path, "%s/%s/temp1_input", dir, e->d_name);
        if (read_number(path, &milli, why, why_size)) {
            *out = milli * 1e-3;
            found = 1;
        }
    }
    closedir(dp);
    return found;
}

/* The mean current clock over the CPUs cpufreq lists, in MHz; 0 with why. */
static int cpufreq_mhz(double *out, char *why, size_t why_size) {
    char path[600];
    double sum = 0;
    int n = 0;
    for (int cpu = 0; cpu < 4096; cpu++) {
        double khz = 0;
        put(path, sizeof path, "%s/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", hcl__tele_root(), cpu);
        if (!read_number(path, &khz, n ? NULL : why, why_size)) break;
        sum += khz / 1e3;
        n++;
    }
    if (n) *out = sum / n;
    return n > 0;
}

/* MemTotal and MemAvailable of /proc/meminfo in bytes. */
static int meminfo(double *total, double *used, char *why, size_t why_size) {
    char path[600], line[256];
    put(path, sizeof path, "%s/proc/meminfo", hcl__tele_root());
    FILE *f = fopen(path, "r");
    if (!f) {
        put(why, why_size, "%s: %s", path, strerror(errno));
        return 0;
    }
    double t = -1, avail = -1, kb;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemTotal: %lf kB", &kb) == 1) t = kb * 1024;
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1) avail = kb * 1024;
    }
    fclose(f);
    if (t < 0 || avail < 0) {
        put(why, why_size, "%s: no MemTotal or MemAvailable line", path);
        return 0;
    }
    *total = t;
    *used = t - avail;
    return 1;
}

int hcl__tele_host_read(const hcl_device_info *d, hcl_telemetry *t, char *why, size_t why_size) {
    (void)d;
    (void)why;
    (void)why_size;
    char reason[600];
    double v = 0, limit = 0, total = 0, used = 0;
    int limit_known = 0;
    put(t->source, sizeof t->source, "powercap+hwmon");
    put(t->detail, sizeof t->detail, "Linux powercap (RAPL), hwmon, cpufreq, meminfo under %s/",
        hcl__tele_root()[0] ? hcl__tele_root() : "");
    int zones = powercap_read(&v, &limit, &limit_known, reason, sizeof reason);
    if (zones) {
        double now = now_s();
        hcl__tele_set(t, HCL_TELEMETRY_ENERGY, v);
        /* power from the counter: over the time since the last read when that is 20 ms to 10 s old, else over a
         * 50 ms wait now (RAPL has no power reading of its own) */
        pthread_mutex_lock(&g_lock);
        double e0 = g_last_energy_j, t0 = g_last_time_s;
        pthread_mutex_unlock(&g_lock);
        if (hcl__tele_wanted(t, HCL_TELEMETRY_POWER) && (e0 < 0 || now - t0 < 0.02 || now - t0 > 10)) {
            e0 = v;
            t0 = now;
            usleep(50000);
            double l2 = 0;
            int k2 = 0;
            if (powercap_read(&v, &l2, &k2, reason, sizeof reason)) now = now_s();
        }
        if (now > t0 && v >= e0) hcl__tele_set(t, HCL_TELEMETRY_POWER, (v - e0) / (now - t0));
        pthread_mutex_lock(&g_lock);
        g_last_energy_j = v;
        g_last_time_s = now;
        pthread_mutex_unlock(&g_lock);
        if (limit_known)
            hcl__tele_set(t, HCL_TELEMETRY_POWER_LIMIT, limit);
        else
            hcl__tele_unknown(t, HCL_TELEMETRY_POWER_LIMIT, "powercap: no constraint_0_power_limit_uw");
    } else {
        hcl__tele_unknown(t, HCL_TELEMETRY_ENERGY, "%s", reason);
        hcl__tele_unknown(t, HCL_TELEMETRY_POWER, "%s", reason);
        hcl__tele_unknown(t, HCL_TELEMETRY_POWER_LIMIT, "%s", reason);
    }
    if (hwmon_temperature(&v, reason, sizeof reason))
        hcl__tele_set(t, HCL_TELEMETRY_TEMPERATURE, v);
    else
        hcl__tele_unknown(t, HCL_TELEMETRY_TEMPERATURE, "%s", reason);
    if (cpufreq_mhz(&v, reason, sizeof reason))
        hcl__tele_set(t, HCL_TELEMETRY_CLOCK_SM, v);
    else
        hcl__tele_unknown(t, HCL_TELEMETRY_CLOCK_SM, "cpufreq: %s", reason);
    hcl__tele_unknown(t, HCL_TELEMETRY_CLOCK_MEMORY, "the host's memory clock is not read (no sysfs source)");
    hcl__tele_unknown(t, HCL_TELEMETRY_UTILIZATION, "CPU utilization is not read by this HCL version");
    hcl__tele_unknown(t, HCL_TELEMETRY_MEMORY_UTILIZATION, "no source for a CPU's memory bandwidth use");
    if (meminfo(&total, &used, reason, sizeof reason)) {
        hcl__tele_set(t, HCL_TELEMETRY_MEMORY_USED, used);
        hcl__tele_set(t, HCL_TELEMETRY_MEMORY_TOTAL, total);
    } else {
        hcl__tele_unknown(t, HCL_TELEMETRY_MEMORY_USED, "%s", reason);
        hcl__tele_unknown(t, HCL_TELEMETRY_MEMORY_TOTAL, "%s", reason);
    }
    hcl__tele_unknown(t, HCL_TELEMETRY_THROTTLE, "no source for a CPU's throttle reasons");
    hcl__tele_unknown(t, HCL_TELEMETRY_LINK_GENERATION, "a CPU has no PCIe link of its own");
    hcl__tele_unknown(t, HCL_TELEMETRY_LINK_WIDTH, "a CPU has no PCIe link of its own");
    return 1;
}
