/* The lifetimes of the objects that other objects hold references on: devices and events. This file is the floor
 * the object files stand on (the tracer too, which keeps an event until it has read its times): it counts and frees,
 * and calls nothing above it. What a device's close must undo (built-in programs, staging memory, host blocks) is
 * known to the file that opened it, which leaves its close function in the device (hcl__device.close). */
#include "core.h"

#include <stdlib.h>

void hcl__device_ref(hcl__device *dev) { atomic_fetch_add(&dev->refs, 1); }

void hcl__device_unref(hcl__device *dev) {
    if (atomic_fetch_sub(&dev->refs, 1) == 1) dev->close(dev);
}

void hcl__event_natives_release(hcl__device *dev, void *first, void *last) {
    if (first) dev->drv->event_release(first);
    if (last) dev->drv->event_release(last);
}

void hcl__event_ref(hcl__event *ev) { atomic_fetch_add(&ev->refs, 1); }

void hcl__event_unref(hcl__event *ev) {
    if (atomic_fetch_sub(&ev->refs, 1) != 1) return;
    hcl__event_natives_release(ev->dev, ev->first, ev->native);
    hcl__device_unref(ev->dev);
    free(ev);
}
