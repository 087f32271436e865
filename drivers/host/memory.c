/* Host buffers: 64-byte aligned host memory; the native memory object is the data pointer itself.
 * Transfers are memcpy (split over the cores when large), fills a pattern doubled in place. */
#include "host.h"

#include <stdlib.h>
#include <string.h>

/* Copies from this size up are split over the cores in pieces of HCL_HOST_COPY_PIECE. */
#define HCL_HOST_COPY_PARALLEL_MIN ((size_t)8 << 20)
#define HCL_HOST_COPY_PIECE ((size_t)1 << 20)

static void hcl_host_copy(char *dst, const char *src, size_t size) {
    if (size == 0) return;
    if (size < HCL_HOST_COPY_PARALLEL_MIN) {
        memcpy(dst, src, size);
        return;
    }
    const long long pieces = (long long)((size + HCL_HOST_COPY_PIECE - 1) / HCL_HOST_COPY_PIECE);
    HCL_HOST_OMP(omp parallel for schedule(static))
    for (long long q = 0; q < pieces; ++q) {
        const size_t at = (size_t)q * HCL_HOST_COPY_PIECE;
        const size_t len = size - at < HCL_HOST_COPY_PIECE ? size - at : HCL_HOST_COPY_PIECE;
        memcpy(dst + at, src + at, len);
    }
}

hcl_status hcl__host_buffer_alloc(void *device, size_t size, void **out_mem) {
    (void)device;
    /* aligned_alloc wants a multiple of the alignment; size 0 is refused by the core, but stay defined. */
    const size_t rounded = hcl__host_round_up(size == 0 ? 1 : size, HCL_HOST_ALIGN);
    void *mem = rounded != 0 ? aligned_alloc(HCL_HOST_ALIGN, rounded) : NULL;
    if (mem == NULL)
        return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "host buffer_alloc: cannot allocate %zu bytes of host memory",
                             size);
    *out_mem = mem;
    return HCL_SUCCESS;
}

void hcl__host_buffer_free(void *device, void *mem) {
    (void)device;
    free(mem);
}

hcl_status hcl__host_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                  uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue, (void)blocking, (void)num_wait, (void)wait;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host buffer_write", out_event, &event);
    if (status != HCL_SUCCESS) return status;
    hcl_host_copy((char *)mem + offset, src, size);
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}

hcl_status hcl__host_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                                 uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue, (void)blocking, (void)num_wait, (void)wait;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host buffer_read", out_event, &event);
    if (status != HCL_SUCCESS) return status;
    hcl_host_copy(dst, (const char *)mem + offset, size);
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}

hcl_status hcl__host_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                                 int blocking, uint32_t num_wait, void *const *wait, void **out_event) {
    (void)queue, (void)blocking, (void)num_wait, (void)wait;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host buffer_copy", out_event, &event);
    if (status != HCL_SUCCESS) return status;
    char *d = (char *)dst + dst_offset;
    const char *s = (const char *)src + src_offset;
    /* The core refuses overlapping ranges; memmove keeps even that defined. */
    if (size > 0 && d < s + size && s < d + size)
        memmove(d, s, size);
    else
        hcl_host_copy(d, s, size);
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}

hcl_status hcl__host_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                                 size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                                 void **out_event) {
    (void)queue, (void)blocking, (void)num_wait, (void)wait;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host buffer_fill", out_event, &event);
    if (status != HCL_SUCCESS) return status;
    char *d = (char *)mem + offset;
    if (size > 0 && pattern_size == 1) {
        memset(d, *(const unsigned char *)pattern, size);
    } else if (size > 0 && pattern_size > 0) {
        /* size is a multiple of pattern_size (checked by the core); a shorter tail is still filled correctly. */
        size_t filled = pattern_size < size ? pattern_size : size;
        memcpy(d, pattern, filled);
        while (filled < size) {
            const size_t len = filled < size - filled ? filled : size - filled;
            memcpy(d + filled, d, len);
            filled += len;
        }
    }
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}
