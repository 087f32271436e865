/* Fault injection (drivers/common/fault.h): the process-wide hit count and the allocation wrappers. Compiled only in
 * the -DHCL_FAULT_INJECTION=ON build, and without fault_alloc.h, so the wrappers call the C library's allocators. */
#include "fault.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* This file gets fault_alloc.h like every other: its renames made <stdlib.h> declare the wrappers, so the C
 * library's allocators are declared here by hand. */
#undef malloc
#undef calloc
#undef realloc
#undef aligned_alloc
extern void *malloc(size_t size);
extern void *calloc(size_t count, size_t size);
extern void *realloc(void *ptr, size_t size);
extern void *aligned_alloc(size_t align, size_t size);

#define EXPORT __attribute__((visibility("default")))

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static atomic_ulong g_hits;
static unsigned long g_fail_at; /* 0: never */
static int g_verbose;           /* HCL_FAULT_COUNT */

static void print_count(void) {
    fprintf(stderr, "hcl-fault: %lu injectable sites hit\n", (unsigned long)atomic_load(&g_hits));
}

static void read_env(void) {
    const char *at = getenv("HCL_FAULT_AT"), *count = getenv("HCL_FAULT_COUNT");
    if (at) g_fail_at = strtoul(at, NULL, 10);
    if (count) g_verbose = atoi(count);
    if (g_verbose > 0) atexit(print_count);
}

EXPORT int hcl__fault_hit(const char *site) {
    pthread_once(&g_once, read_env);
    unsigned long n = atomic_fetch_add(&g_hits, 1) + 1;
    if (g_verbose > 1) fprintf(stderr, "hcl-fault: hit %lu: %s\n", n, site);
    if (n != g_fail_at) return 0;
    fprintf(stderr, "hcl-fault: failing hit %lu: %s\n", n, site);
    return 1;
}

/* The site of an allocation is its caller's address: `addr2line -e <library> <address>` names the line. */
static int alloc_fails(const char *what, void *caller) {
    pthread_once(&g_once, read_env);
    if (g_verbose < 2 && g_fail_at == 0) return hcl__fault_hit(what); /* no text to format */
    char site[64];
    snprintf(site, sizeof site, "%s from %p", what, caller);
    return hcl__fault_hit(site);
}

EXPORT void *hcl__fault_malloc(size_t size) {
    return alloc_fails("malloc", __builtin_return_address(0)) ? NULL : malloc(size);
}

EXPORT void *hcl__fault_calloc(size_t count, size_t size) {
    return alloc_fails("calloc", __builtin_return_address(0)) ? NULL : calloc(count, size);
}

EXPORT void *hcl__fault_realloc(void *ptr, size_t size) {
    return alloc_fails("realloc", __builtin_return_address(0)) ? NULL : realloc(ptr, size);
}

EXPORT void *hcl__fault_aligned_alloc(size_t align, size_t size) {
    return alloc_fails("aligned_alloc", __builtin_return_address(0)) ? NULL : aligned_alloc(align, size);
}
