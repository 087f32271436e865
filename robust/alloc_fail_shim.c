/* An LD_PRELOAD library for probing vendor libraries by hand (docs/known-vendor-limits.md; not part of any test):
 * every malloc, calloc and realloc of the process, whoever makes it, is counted, and SHIM_FAIL_AT=N makes the N-th
 * (and the SHIM_FAIL_RUN - 1 after it, default none) return NULL. SHIM_COUNT=1 prints the count at exit.
 *   gcc -O1 -shared -fPIC robust/alloc_fail_shim.c -o /tmp/alloc_fail_shim.so
 *   SHIM_FAIL_AT=3371 LD_PRELOAD=/tmp/alloc_fail_shim.so build/bin/hcl-fault-flow opencl */
#define _GNU_SOURCE 1
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);

static atomic_ulong g_count;

static int fail_now(void) {
    static unsigned long at, run = 1;
    static int read;
    if (!read) { /* getenv does not allocate */
        const char *a = getenv("SHIM_FAIL_AT"), *r = getenv("SHIM_FAIL_RUN");
        at = a ? strtoul(a, NULL, 10) : 0;
        run = r ? strtoul(r, NULL, 10) : 1;
        read = 1;
    }
    unsigned long k = atomic_fetch_add(&g_count, 1) + 1;
    return at && k >= at && k < at + run;
}

void *malloc(size_t size) { return fail_now() ? NULL : __libc_malloc(size); }
void *calloc(size_t count, size_t size) { return fail_now() ? NULL : __libc_calloc(count, size); }
void *realloc(void *ptr, size_t size) { return fail_now() ? NULL : __libc_realloc(ptr, size); }

__attribute__((destructor)) static void report(void) {
    if (getenv("SHIM_COUNT")) fprintf(stderr, "shim: %lu allocations\n", (unsigned long)atomic_load(&g_count));
}
