/* Test support for tests that run a driver's code without the core (the run-time compiler tests of CUDA and HIP,
 * which link the driver's rtc.c, and the Level Zero null-driver flow, which calls the module's table): the core's
 * services faked. Messages go into g_message; log lines to g_log_hook when a test sets one, else to stderr (debug
 * lines only with g_debug); the cache is one entry in memory (enough to check that a key is stable and the payload
 * round-trips); open_library is a plain dlopen of the override, else of the names in order. Include it in exactly
 * one file of a test. */
#ifndef HCL_DRIVERS_COMMON_TEST_HOST_H
#define HCL_DRIVERS_COMMON_TEST_HOST_H

#include "hcl/hcl_driver.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_message[65536];
static int g_debug;
static void (*g_log_hook)(hcl_log_level level, const char *driver, const char *line);
static void *g_cache_key, *g_cache_data;
static size_t g_cache_key_size, g_cache_data_size;
static int g_cache_hits, g_cache_stores;

static hcl_status fake_set_message(hcl_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    return status;
}

static void fake_log(hcl_log_level level, const char *driver, const char *fmt, ...) {
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (g_log_hook)
        g_log_hook(level, driver, line);
    else if (g_debug || level <= HCL_LOG_WARN)
        fprintf(stderr, "hcl[%s] %s\n", driver, line);
}

static void *fake_cache_load(const char *driver, const void *key, size_t key_size, size_t *out_size) {
    (void)driver;
    if (!g_cache_key || key_size != g_cache_key_size || memcmp(key, g_cache_key, key_size) != 0) return NULL;
    void *copy = malloc(g_cache_data_size);
    if (!copy) return NULL;
    memcpy(copy, g_cache_data, g_cache_data_size);
    *out_size = g_cache_data_size;
    g_cache_hits++;
    return copy;
}

static void fake_cache_store(const char *driver, const void *key, size_t key_size, const void *data, size_t size) {
    (void)driver;
    free(g_cache_key);
    free(g_cache_data);
    g_cache_key = malloc(key_size);
    g_cache_data = malloc(size);
    if (!g_cache_key || !g_cache_data) {
        free(g_cache_key);
        free(g_cache_data);
        g_cache_key = g_cache_data = NULL;
        return;
    }
    memcpy(g_cache_key, key, key_size);
    memcpy(g_cache_data, data, size);
    g_cache_key_size = key_size;
    g_cache_data_size = size;
    g_cache_stores++;
}

/* The core's open_library, reduced to what a test needs: the override variable, else the names in order. */
static void *fake_open_library(const char *driver, const char *env_override, const char *const *names, size_t count,
                               char *reason, size_t reason_size) {
    (void)driver;
    const char *override = env_override ? getenv(env_override) : NULL;
    if (override && *override) names = &override, count = 1;
    for (size_t i = 0; i < count; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
        const char *e = dlerror();
        snprintf(reason, reason_size, "%s", e ? e : names[i]);
    }
    return NULL;
}

/* Free what the cache holds (at the end of a test, for the leak checker). */
static void fake_cache_free(void) {
    free(g_cache_key);
    free(g_cache_data);
    g_cache_key = g_cache_data = NULL;
}

static const hcl_driver_host g_host = {
    .size = sizeof(hcl_driver_host),
    .set_message = fake_set_message,
    .log = fake_log,
    .cache_load = fake_cache_load,
    .cache_store = fake_cache_store,
    .open_library = fake_open_library,
};

#endif /* HCL_DRIVERS_COMMON_TEST_HOST_H */
