/* The core's cache (api/src/cache.c) compiled into cache_test with its allocations counted: the largest size asked of
 * malloc is kept in cache_test_max_alloc, so the test sees that a forged header cannot make it allocate. */
#define _DEFAULT_SOURCE 1
#include <stddef.h>
#include <stdlib.h>

size_t cache_test_max_alloc;

static void *cache_test_malloc(size_t size) {
    if (size > cache_test_max_alloc) cache_test_max_alloc = size;
    return malloc(size);
}

#define malloc cache_test_malloc
#include "cache.c"
