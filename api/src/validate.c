/* The argument checks every object's calls share: handle lookup, ranges inside a buffer, wait lists. Each one
 * fails with the status and message the caller returns as is, named after the public call (`fn`). */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *type_name(hcl__htype type) {
    static const char *const names[] = {"?", "device", "queue", "buffer", "event", "module", "kernel"};
    return (unsigned)type < 7 ? names[type] : "?";
}

hcl_status hcl__lookup(const void *handle, hcl__htype type, void **out, const char *fn, const char *what) {
    if (!handle) return hcl__set_message(HCL_ERROR_INVALID_HANDLE, "%s: %s is NULL", fn, what);
    void *object = hcl__handle_get(handle, type);
    if (!object)
        return hcl__set_message(HCL_ERROR_INVALID_HANDLE,
                                "%s: %s (%p) is not a live %s handle (released, or of another type)", fn, what, handle,
                                type_name(type));
    *out = object;
    return HCL_SUCCESS;
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

hcl_status hcl__release(const void *handle, hcl__htype type, void (*destroy)(void *object), const char *fn,
                        const char *what) {
    void *object = NULL;
    hcl_status st = hcl__take(handle, type, &object, fn, what);
    if (st == HCL_SUCCESS) destroy(object);
    return st;
}

hcl_status hcl__publish(hcl__htype type, void *object, void (*destroy)(void *object), void **out_handle,
                        const char *fn) {
    void *h = hcl__handle_add(type, object);
    if (!h) {
        destroy(object);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: handle table full", fn);
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

hcl_status hcl__resolve_wait(const char *fn, hcl__device *dev, uint32_t num_wait, const hcl_event *wait_list,
                             void ***out_native) {
    *out_native = NULL;
    if (num_wait == 0) return HCL_SUCCESS;
    if (!wait_list)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: wait_list is NULL with num_wait %u", fn, num_wait);
    void **native = malloc(num_wait * sizeof *native);
    if (!native) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    for (uint32_t i = 0; i < num_wait; i++) {
        hcl__event *ev;
        char what[48];
        snprintf(what, sizeof what, "wait_list[%u]", i);
        hcl_status st = hcl__lookup(wait_list[i], HCL__H_EVENT, (void **)&ev, fn, what);
        if (st != HCL_SUCCESS) {
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
