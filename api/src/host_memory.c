/* Host memory for fast transfers (page-locked where the driver can). Blocks are kept on their device's list,
 * which this file alone reads and changes, so hcl_host_free can refuse a pointer it did not hand out rather
 * than pass it to a driver; each block holds a reference on its device. */
#include "core.h"

#include <stdlib.h>

typedef struct hcl__host_block {
    void *ptr;
    int from_driver; /* 1: drv->host_free; 0: the core's own aligned memory */
    struct hcl__host_block *next;
} hcl__host_block;

static hcl_status host_alloc(hcl_device device, size_t size, void **out_ptr) {
    static const char fn[] = "hcl_host_alloc";
    hcl__device *dev;
    hcl_status st = hcl__lookup_out(device, HCL__H_DEVICE, (void **)&dev, out_ptr, fn, "device", "out_ptr");
    if (st != HCL_SUCCESS) return st;
    if (size == 0) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: size is 0", fn);
    if (size > SIZE_MAX - 63)
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: size %zu cannot be allocated", fn, size);
    hcl__host_block *blk = malloc(sizeof *blk);
    if (!blk) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    blk->from_driver = HCL_DRIVER_HAS(dev->drv, host_alloc) && HCL_DRIVER_HAS(dev->drv, host_free);
    if (blk->from_driver) {
        if ((st = dev->drv->host_alloc(dev->native, size, &blk->ptr)) != HCL_SUCCESS) {
            free(blk);
            return hcl__prefix_message(st, fn);
        }
    } else if (!(blk->ptr = aligned_alloc(64, (size + 63) & ~(size_t)63))) {
        free(blk);
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes of host memory", fn, size);
    }
    hcl__device_ref(dev);
    pthread_mutex_lock(&dev->host_lock);
    blk->next = dev->host_blocks;
    dev->host_blocks = blk;
    pthread_mutex_unlock(&dev->host_lock);
    *out_ptr = blk->ptr;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_host_alloc(hcl_device device, size_t size, void **out_ptr) {
    HCL__TRACED("hcl_host_alloc", host_alloc(device, size, out_ptr), NULL, NULL, "size", size);
}

static hcl_status host_free(hcl_device device, void *ptr) {
    static const char fn[] = "hcl_host_free";
    hcl__device *dev;
    hcl_status st = hcl__lookup(device, HCL__H_DEVICE, (void **)&dev, fn, "device");
    if (st != HCL_SUCCESS || !ptr) return st;
    hcl__host_block *blk = NULL;
    pthread_mutex_lock(&dev->host_lock);
    for (hcl__host_block **p = &dev->host_blocks; *p; p = &(*p)->next)
        if ((*p)->ptr == ptr) {
            blk = *p;
            *p = blk->next;
            break;
        }
    pthread_mutex_unlock(&dev->host_lock);
    if (!blk)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: %p was not allocated by hcl_host_alloc on this device (or was freed already)", fn,
                                ptr);
    if (blk->from_driver)
        dev->drv->host_free(dev->native, blk->ptr);
    else
        free(blk->ptr);
    free(blk);
    hcl__device_unref(dev);
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_host_free(hcl_device device, void *ptr) {
    HCL__TRACED("hcl_host_free", host_free(device, ptr), NULL, NULL, NULL);
}

void hcl__host_memory_init(hcl__device *dev) {
    dev->host_blocks = NULL;
    pthread_mutex_init(&dev->host_lock, NULL);
}

/* No block can be left: each holds a reference, so the device outlives them all. */
void hcl__host_memory_fini(hcl__device *dev) { pthread_mutex_destroy(&dev->host_lock); }
