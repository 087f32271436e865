/* Modules, kernels and launches. A module holds a reference on its device and a kernel one on its module, so
 * they may be released in any order. */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64
#define MAX_VALUE_SIZE 256

/* Drop a reference of the module (its handle's, or a kernel's); the last destroys it. */
static void module_unref(void *object) {
    hcl__module *m = object;
    if (atomic_fetch_sub(&m->refs, 1) == 1) {
        m->dev->drv->module_destroy(m->native);
        hcl__device_unref(m->dev);
        free(m);
    }
}

/* Destroy a kernel and drop its module reference: a release, or a create that could not register its handle. */
static void kernel_destroy(void *object) {
    hcl__kernel *k = object;
    hcl__module *m = k->module;
    m->dev->drv->kernel_destroy(k->native);
    hcl__kernel_params_free(&k->params);
    pthread_mutex_destroy(&k->lock);
    free(k->name);
    free(k);
    module_unref(m);
}

static hcl_status module_create(hcl_device device, const hcl_module_source *sources, uint32_t count,
                                hcl_module *out_module) {
    static const char fn[] = "hcl_module_create";
    hcl__device *dev;
    hcl_status st = hcl__lookup_out(device, HCL__H_DEVICE, (void **)&dev, out_module, fn, "device", "out_module");
    if (st != HCL_SUCCESS) return st;
    if (count == 0 || !sources)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: no sources given (count %u)", fn, count);
    for (uint32_t i = 0; i < count; i++) {
        if (sources[i].kind < HCL_SOURCE_OPENCL_C || sources[i].kind > HCL_SOURCE_GLSL)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: sources[%u].kind %d is not an hcl_source_kind", fn,
                                    i, (int)sources[i].kind);
        if (!sources[i].data || sources[i].size == 0)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: sources[%u] has %s", fn, i,
                                    sources[i].data ? "size 0" : "NULL data");
    }
    hcl__module *m = calloc(1, sizeof *m);
    if (!m) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if ((st = dev->drv->module_create(dev->native, sources, count, &m->native)) != HCL_SUCCESS) {
        free(m);
        if (st == HCL_ERROR_UNSUPPORTED) { /* the driver says what it takes; the core says what was given */
            char given[512] = "";
            size_t used = 0;
            for (uint32_t i = 0; i < count && used < sizeof given; i++) {
                int w = snprintf(given + used, sizeof given - used, "%s%s", i ? ", " : "",
                                 hcl_source_kind_name(sources[i].kind));
                used += w > 0 ? (size_t)w : 0;
            }
            char driver_msg[2048];
            snprintf(driver_msg, sizeof driver_msg, "%s", hcl_last_message());
            return hcl__set_message(st, "%s: %s; the sources given were: %s", fn, driver_msg, given);
        }
        return hcl__prefix_message(st, fn);
    }
    m->dev = dev;
    atomic_init(&m->refs, 1);
    hcl__device_ref(dev);
    return hcl__publish(HCL__H_MODULE, m, module_unref, (void **)out_module, fn);
}

HCL_API hcl_status hcl_module_create(hcl_device device, const hcl_module_source *sources, uint32_t count,
                                     hcl_module *out_module) {
    HCL__TRACED("hcl_module_create", module_create(device, sources, count, out_module), NULL, NULL, "count", count);
}

HCL_API hcl_status hcl_module_release(hcl_module module) {
    return hcl__release(module, HCL__H_MODULE, module_unref, "hcl_module_release", "module");
}

static hcl_status kernel_create(hcl_module module, const char *name, hcl_kernel *out_kernel) {
    static const char fn[] = "hcl_kernel_create";
    hcl__module *m;
    hcl_status st = hcl__lookup(module, HCL__H_MODULE, (void **)&m, fn, "module");
    if (st != HCL_SUCCESS) return st;
    if (!name || !*name)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: name is %s", fn, name ? "empty" : "NULL");
    if (!out_kernel) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: out_kernel is NULL", fn);
    hcl__kernel *k = calloc(1, sizeof *k);
    const size_t name_size = strlen(name) + 1;
    if (k && !(k->name = malloc(name_size))) {
        free(k);
        k = NULL;
    }
    if (k) memcpy(k->name, name, name_size);
    if (!k) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    if ((st = m->dev->drv->kernel_create(m->native, name, &k->native)) != HCL_SUCCESS) {
        free(k->name);
        free(k);
        return hcl__prefix_message(st, fn);
    }
    k->module = m;
    const hcl_driver_table *drv = m->dev->drv;
    /* the launch limits, asked once here so that each launch is checked without a driver call (unknown stays 0) */
    if (HCL_DRIVER_HAS(drv, device_limits) && drv->device_limits(m->dev->native, &k->limits) != HCL_SUCCESS)
        memset(&k->limits, 0, sizeof k->limits);
    if (HCL_DRIVER_HAS(drv, kernel_max_group) && drv->kernel_max_group(k->native, &k->max_group) != HCL_SUCCESS)
        k->max_group = 0;
    hcl__kernel_params_get(drv, k->native, name, &k->params); /* what each launch's arguments are checked against */
    pthread_mutex_init(&k->lock, NULL);
    atomic_fetch_add(&m->refs, 1);
    return hcl__publish(HCL__H_KERNEL, k, kernel_destroy, (void **)out_kernel, fn);
}

HCL_API hcl_status hcl_kernel_create(hcl_module module, const char *name, hcl_kernel *out_kernel) {
    HCL__TRACED("hcl_kernel_create", kernel_create(module, name, out_kernel), "kernel", name, NULL);
}

HCL_API hcl_status hcl_kernel_get_max_group_size(hcl_kernel kernel, uint64_t *out_max) {
    static const char fn[] = "hcl_kernel_get_max_group_size";
    hcl__kernel *k;
    hcl_status st = hcl__lookup(kernel, HCL__H_KERNEL, (void **)&k, fn, "kernel");
    if (st != HCL_SUCCESS) return st;
    if (!out_max) return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: out_max is NULL", fn);
    const uint64_t dev_max = k->module->dev->info.max_work_group_size;
    *out_max = k->max_group && (!dev_max || k->max_group < dev_max) ? k->max_group : dev_max;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_kernel_release(hcl_kernel kernel) {
    return hcl__release(kernel, HCL__H_KERNEL, kernel_destroy, "hcl_kernel_release", "kernel");
}

HCL__TRACED_BODY hcl_status kernel_launch(hcl_queue queue, hcl_kernel kernel, hcl_dim3 grid, hcl_dim3 block,
                                          size_t shared_bytes, uint32_t num_args, const hcl_arg *args,
                                          uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event) {
    static const char fn[] = "hcl_kernel_launch";
    hcl__queue *q;
    hcl__kernel *k;
    hcl_status st = hcl__lookup(queue, HCL__H_QUEUE, (void **)&q, fn, "queue");
    if (st == HCL_SUCCESS) st = hcl__lookup(kernel, HCL__H_KERNEL, (void **)&k, fn, "kernel");
    if (st != HCL_SUCCESS) return st;
    hcl__device *dev = q->dev;
    if (k->module->dev != dev)
        return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH,
                                "%s: the kernel was built for another device than the queue's", fn);
    if ((st = hcl__check_launch(fn, &dev->info, &k->limits, k->max_group, grid, block, shared_bytes)) != HCL_SUCCESS)
        return st;
    if (num_args > 0 && !args)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: args is NULL with num_args %u", fn, num_args);
    if (num_args > MAX_ARGS)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: num_args %u is above %d", fn, num_args, MAX_ARGS);
    hcl_driver_arg dargs[MAX_ARGS];
    for (uint32_t i = 0; i < num_args; i++) {
        memset(&dargs[i], 0, sizeof dargs[i]);
        if (args[i].kind == HCL_ARG_BUFFER) {
            hcl__buffer *b = hcl__handle_get(args[i].buffer, HCL__H_BUFFER);
            if (!b) { /* the argument's name is formatted only for the message (a snprintf a buffer was most of the
                         core's own cost of a launch) */
                char what[32];
                snprintf(what, sizeof what, "args[%u].buffer", i);
                return hcl__lookup_failed(args[i].buffer, HCL__H_BUFFER, fn, what);
            }
            if (b->dev != dev)
                return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH, "%s: args[%u] is a buffer of another device", fn, i);
            if (args[i].offset >= b->size)
                return hcl__set_message(HCL_ERROR_OUT_OF_RANGE,
                                        "%s: args[%u].offset %zu is not below the buffer size %zu", fn, i,
                                        args[i].offset, b->size);
            if (args[i].offset % dev->info.arg_offset_alignment)
                return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                        "%s: args[%u].offset %zu is not a multiple of %llu bytes, the device's "
                                        "arg_offset_alignment (%s); pass offset 0 and an element index instead",
                                        fn, i, args[i].offset, (unsigned long long)dev->info.arg_offset_alignment,
                                        dev->backend->name);
            dargs[i].kind = HCL_DRIVER_ARG_BUFFER;
            dargs[i].mem = b->native;
            dargs[i].offset = args[i].offset;
        } else if (args[i].kind == HCL_ARG_VALUE) {
            if (!args[i].value || args[i].size == 0 || args[i].size > MAX_VALUE_SIZE)
                return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                        "%s: args[%u] value %s with size %zu (must be 1..%d bytes)", fn, i,
                                        args[i].value ? "set" : "NULL", args[i].size, MAX_VALUE_SIZE);
            dargs[i].kind = HCL_DRIVER_ARG_VALUE;
            dargs[i].value = args[i].value;
            dargs[i].size = args[i].size;
        } else {
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: args[%u].kind %d is not an hcl_arg_kind", fn, i,
                                    (int)args[i].kind);
        }
    }
    if ((st = hcl__check_args(fn, &k->params, shared_bytes, num_args, args)) != HCL_SUCCESS) return st;
    void **wait = NULL;
    if ((st = hcl__resolve_wait(fn, dev, num_wait, wait_list, &wait)) != HCL_SUCCESS) return st;
    void *native = NULL;
    pthread_mutex_lock(&k->lock);
    st = dev->drv->kernel_launch(q->native, k->native, grid, block, shared_bytes, num_args, dargs, num_wait, wait,
                                 HCL__WANT_EVENT(out_event) ? &native : NULL);
    pthread_mutex_unlock(&k->lock);
    free(wait);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    return hcl__wrap_event(fn, q, native, out_event);
}

/* The kernel's name for the trace (NULL for a handle that is not a live kernel). */
static const char *kernel_name(hcl_kernel kernel) {
    const hcl__kernel *k = hcl__handle_get(kernel, HCL__H_KERNEL);
    return k ? k->name : NULL;
}

HCL_API hcl_status hcl_kernel_launch(hcl_queue queue, hcl_kernel kernel, hcl_dim3 grid, hcl_dim3 block,
                                     size_t shared_bytes, uint32_t num_args, const hcl_arg *args, uint32_t num_wait,
                                     const hcl_event *wait_list, hcl_event *out_event) {
    HCL__TRACED("hcl_kernel_launch",
                kernel_launch(queue, kernel, grid, block, shared_bytes, num_args, args, num_wait, wait_list, out_event),
                "kernel", kernel_name(kernel), "grid_x,grid_y,grid_z,block_x,block_y,block_z,shared_bytes", grid.x,
                grid.y, grid.z, block.x, block.y, block.z, shared_bytes);
}
