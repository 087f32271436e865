/* The argument checks every object's calls share: handle lookup, ranges inside a buffer, launch shapes, wait lists.
 * Each one
 * fails with the status and message the caller returns as is, named after the public call (`fn`). */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(hcl__htype type) {
#define HCL__HTYPE_NAME(id, name) name,
    static const char *const names[] = {"?", HCL__HTYPES(HCL__HTYPE_NAME)};
#undef HCL__HTYPE_NAME
    return (unsigned)type < sizeof names / sizeof names[0] ? names[type] : "?";
}

/* Out of the lookups' way: a lookup itself stays a few instructions (inlined in this file's checks). */
__attribute__((noinline, cold)) hcl_status hcl__lookup_failed(const void *handle, hcl__htype type, const char *fn,
                                                              const char *what) {
    if (!handle) return hcl__set_message(HCL_ERROR_INVALID_HANDLE, "%s: %s is NULL", fn, what);
    return hcl__set_message(HCL_ERROR_INVALID_HANDLE,
                            "%s: %s (%p) is not a live %s handle (released, or of another type)", fn, what, handle,
                            type_name(type));
}

static inline hcl_status lookup(const void *handle, hcl__htype type, void **out, const char *fn, const char *what) {
    *out = hcl__handle_get(handle, type); /* inlined (core.h); NULL when it fails */
    return *out ? HCL_SUCCESS : hcl__lookup_failed(handle, type, fn, what);
}

hcl_status hcl__lookup(const void *handle, hcl__htype type, void **out, const char *fn, const char *what) {
    return lookup(handle, type, out, fn, what);
}

hcl_status hcl__lookup_out(const void *handle, hcl__htype type, void **object, const void *out, const char *fn,
                           const char *what, const char *out_name) {
    hcl_status st = hcl__lookup(handle, type, object, fn, what);
    if (st == HCL_SUCCESS && !out) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, out_name);
    return st;
}

hcl_status hcl__get(const void *handle, hcl__htype type, size_t field_offset, size_t size, void *out, const char *fn,
                    const char *what, const char *out_name) {
    void *object = NULL;
    hcl_status st = hcl__lookup_out(handle, type, &object, out, fn, what, out_name);
    if (st == HCL_SUCCESS) memcpy(out, (const char *)object + field_offset, size);
    return st;
}

hcl_status hcl__take(const void *handle, hcl__htype type, void **out, const char *fn, const char *what) {
    void *object = hcl__handle_remove(handle, type), *unused;
    if (!object) return hcl__lookup(handle, type, &unused, fn, what);
    *out = object;
    return HCL_SUCCESS;
}

static hcl_status release(const void *handle, hcl__htype type, void (*destroy)(void *object), const char *fn,
                          const char *what) {
    void *object = NULL;
    hcl_status st = hcl__take(handle, type, &object, fn, what);
    if (st == HCL_SUCCESS) destroy(object);
    return st;
}

hcl_status hcl__release(const void *handle, hcl__htype type, void (*destroy)(void *object), const char *fn,
                        const char *what) {
    HCL__TRACED(fn, release(handle, type, destroy, fn, what), NULL, NULL, NULL);
}

hcl_status hcl__publish(hcl__htype type, void *object, void (*destroy)(void *object), void **out_handle,
                        const char *fn) {
    void *h = hcl__handle_add(type, object);
    if (!h) {
        destroy(object);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: handle table full (out of host memory growing it)", fn);
    }
    *out_handle = h;
    return HCL_SUCCESS;
}

hcl_status hcl__check_range(const char *fn, const char *what, size_t offset, size_t size, size_t buf_size) {
    /* written so that offset + size cannot wrap around */
    if (offset > buf_size || size > buf_size - offset)
        return hcl__set_message(HCL_ERROR_OUT_OF_RANGE, "%s: %s offset %zu + size %zu exceeds buffer size %zu", fn,
                                what, offset, size, buf_size);
    return HCL_SUCCESS;
}

/* The product of three dimensions; 0 when it does not fit 64 bits (a dimension is never 0 here). */
static uint64_t product3(uint64_t a, hcl_dim3 d) {
    uint64_t p;
    if (__builtin_mul_overflow(a, (uint64_t)d.x, &p) || __builtin_mul_overflow(p, (uint64_t)d.y, &p) ||
        __builtin_mul_overflow(p, (uint64_t)d.z, &p))
        return 0;
    return p;
}

hcl_status hcl__check_launch(const char *fn, const hcl_device_info *info, const hcl_driver_limits *limits,
                             uint64_t kernel_max_group, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes) {
    static const char axis[3] = {'x', 'y', 'z'};
    const uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
    for (int i = 0; i < 3; i++)
        if (g[i] == 0 || b[i] == 0)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: %s (%u, %u, %u) has a zero dimension (%c)", fn,
                                    g[i] == 0 ? "grid" : "block", g[i] == 0 ? grid.x : block.x,
                                    g[i] == 0 ? grid.y : block.y, g[i] == 0 ? grid.z : block.z, axis[i]);
    const uint64_t items = product3(1, block); /* at most 2^96: may not fit */
    if (items == 0 || items > info->max_work_group_size) {
        char count[32] = "more than 2^64";
        if (items) snprintf(count, sizeof count, "%llu", (unsigned long long)items);
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: block (%u, %u, %u) has %s work-items, above the device's max_work_group_size %llu",
                                fn, block.x, block.y, block.z, count, (unsigned long long)info->max_work_group_size);
    }
    if (kernel_max_group && items > kernel_max_group)
        return hcl__set_message(
            HCL_ERROR_INVALID_ARGUMENT,
            "%s: block (%u, %u, %u) has %llu work-items, above the kernel's max_group %llu (what its "
            "registers and local memory leave of the device's %llu)",
            fn, block.x, block.y, block.z, (unsigned long long)items, (unsigned long long)kernel_max_group,
            (unsigned long long)info->max_work_group_size);
    for (int i = 0; i < 3; i++)
        if (limits->max_groups[i] && g[i] > limits->max_groups[i])
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: grid (%u, %u, %u) has %u work-groups in %c, above the device's limit of %u "
                                    "(max_groups[%d])",
                                    fn, grid.x, grid.y, grid.z, g[i], axis[i], limits->max_groups[i], i);
    const uint64_t total = product3(items, grid);
    if (total == 0 || total >= HCL__LAUNCH_MAX_ITEMS)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: grid (%u, %u, %u) x block (%u, %u, %u) is %s work-items, at or above the 2^63 a "
                                "launch may have",
                                fn, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                total == 0 ? "more than 2^64" : "2^63 or more");
    if (shared_bytes > info->local_mem_bytes)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: shared_bytes %zu is above the device's local_mem_bytes %llu", fn, shared_bytes,
                                (unsigned long long)info->local_mem_bytes);
    return HCL_SUCCESS;
}

hcl_status hcl__resolve_wait(const char *fn, hcl__device *dev, uint32_t num_wait, const hcl_event *wait_list,
                             void ***out_native) {
    *out_native = NULL;
    if (num_wait == 0) return HCL_SUCCESS;
    if (!wait_list)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: wait_list is NULL with num_wait %u", fn, num_wait);
    void **native = malloc(num_wait * sizeof *native);
    if (!native) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    for (uint32_t i = 0; i < num_wait; i++) {
        hcl__event *ev = hcl__handle_get(wait_list[i], HCL__H_EVENT);
        if (!ev) { /* hcl__lookup says why; the entry's name is formatted only then */
            char what[48];
            snprintf(what, sizeof what, "wait_list[%u]", i);
            hcl_status st = hcl__lookup(wait_list[i], HCL__H_EVENT, (void **)&ev, fn, what);
            free(native);
            return st;
        }
        if (ev->dev != dev) {
            free(native);
            return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH,
                                    "%s: wait_list[%u] is an event of another device (%s:%u)", fn, i,
                                    ev->dev->backend->name, ev->dev->index);
        }
        native[i] = ev->native; /* an event's last command: queues are in order, so it completes the group */
    }
    *out_native = native;
    return HCL_SUCCESS;
}

hcl_status hcl__lookup_elems(const char *fn, const hcl__device *dev, hcl_buffer handle, const char *what,
                             hcl_dtype type, size_t elems, int elems_ok, hcl__buffer **out) {
    hcl__buffer *b = NULL;
    hcl_status st = lookup(handle, HCL__H_BUFFER, (void **)&b, fn, what);
    if (st != HCL_SUCCESS) return st;
    if (b->dev != dev)
        return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH, "%s: %s belongs to another device than the queue", fn, what);
    const size_t esize = hcl_dtype_size(type);
    size_t bytes; /* multiplied, not divided: two divisions were a good part of a small collective's checks */
    if (!elems_ok || __builtin_mul_overflow(elems, esize, &bytes))
        return hcl__set_message(HCL_ERROR_OUT_OF_RANGE, "%s: the shape of %s overflows the address space", fn, what);
    if (bytes > b->size)
        return hcl__set_message(HCL_ERROR_OUT_OF_RANGE, "%s: %s needs %zu %s elements (%zu bytes) but holds %zu bytes",
                                fn, what, elems, hcl_dtype_name(type), bytes, b->size);
    *out = b;
    return HCL_SUCCESS;
}
