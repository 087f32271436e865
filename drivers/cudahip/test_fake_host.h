/* Test support shared by the CUDA and HIP run-time-compiler tests (test_nvrtc.c, test_hiprtc.c): the services the
 * driver code gets from the core, faked — messages into a buffer, logs to stderr, and a one-entry in-memory cache
 * (enough to check that a key is stable and the payload round-trips). Include it in exactly one file of a test. */
#ifndef HCL_CUDAHIP_TEST_FAKE_HOST_H
#define HCL_CUDAHIP_TEST_FAKE_HOST_H

#include "gpu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const hcl_driver_host *hcl__gpu_host;

static char g_message[65536];
static int g_debug;
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
    if (!g_debug && level > HCL_LOG_WARN) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "hcl[%s] ", driver);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A one-entry in-memory cache: enough to check the key is stable and the payload round-trips. */
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

static const hcl_driver_host g_host = {
    .size = sizeof(hcl_driver_host),
    .set_message = fake_set_message,
    .log = fake_log,
    .cache_load = fake_cache_load,
    .cache_store = fake_cache_store,
};

#endif /* HCL_CUDAHIP_TEST_FAKE_HOST_H */
