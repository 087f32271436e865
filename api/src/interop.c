/* Interoperability: the vendor objects behind handles, for code that mixes HCL with the vendor API. */
#include "core.h"

static hcl_status get_native(hcl__device *dev, hcl_native_kind kind, void *object, void **out_native, const char *fn) {
    if (!out_native) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: out_native is NULL", fn);
    if (!HCL_DRIVER_HAS(dev->drv, get_native))
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "%s: the %s driver exposes no native objects", fn,
                                dev->backend->name);
    void *native = NULL;
    hcl_status st = dev->drv->get_native(kind, object, &native);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    *out_native = native;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_device_get_native(hcl_device device, void **out_native) {
    hcl__device *dev;
    hcl_status st = hcl__lookup(device, HCL__H_DEVICE, (void **)&dev, "hcl_device_get_native", "device");
    return st != HCL_SUCCESS ? st
                             : get_native(dev, HCL_NATIVE_DEVICE, dev->native, out_native, "hcl_device_get_native");
}

HCL_API hcl_status hcl_queue_get_native(hcl_queue queue, void **out_native) {
    hcl__queue *q;
    hcl_status st = hcl__lookup(queue, HCL__H_QUEUE, (void **)&q, "hcl_queue_get_native", "queue");
    return st != HCL_SUCCESS ? st : get_native(q->dev, HCL_NATIVE_QUEUE, q->native, out_native, "hcl_queue_get_native");
}

HCL_API hcl_status hcl_buffer_get_native(hcl_buffer buffer, void **out_native) {
    hcl__buffer *b;
    hcl_status st = hcl__lookup(buffer, HCL__H_BUFFER, (void **)&b, "hcl_buffer_get_native", "buffer");
    return st != HCL_SUCCESS ? st
                             : get_native(b->dev, HCL_NATIVE_BUFFER, b->native, out_native, "hcl_buffer_get_native");
}
