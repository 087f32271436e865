/* Devices and the driver's table: describing the runtime's devices for the kit, opening and closing them, their
 * limits. Shared by the CUDA and HIP drivers (gpu.h); what differs is in each driver.c (hooks.h). */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hcl__gpu_attr(hcl_gpu_device dev, hcl_gpu_attribute attr) {
    int v = 0;
    if (hcl__gpu.HCL_GPU_SYM_DeviceGetAttribute(&v, attr, dev) != HCL_GPU_SUCCESS) return 0;
    return v;
}

/* The part of a description both runtimes give the same way; the vendor finishes it (hcl__gpu_describe). */
static hcl_status describe(hcl__gpu_device_entry *e) {
    hcl_status status = HCL_SUCCESS;
    hcl_device_info *info = &e->info;
    const uint32_t index = info->index;
    size_t total = 0;
    HCL_GPU_CHECK(DeviceGet, (&e->dev, (int)index), "ordinal %u", index);
    HCL_GPU_CHECK(DeviceGetName, (info->name, (int)sizeof info->name, e->dev), "device %u", index);
    info->name[sizeof info->name - 1] = '\0';
    info->type = HCL_DEVICE_TYPE_GPU;
    info->compute_units = (uint32_t)hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MULTIPROCESSOR_COUNT);
    HCL_GPU_CHECK(DeviceTotalMem, (&total, e->dev), "device %u", index);
    info->global_mem_bytes = total;
    info->max_alloc_bytes = total; /* neither runtime states a per-allocation limit below the memory size */
    info->max_work_group_size = (uint64_t)hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MAX_THREADS_PER_BLOCK);
    info->clock_mhz = (uint32_t)(hcl__gpu_attr(e->dev, HCL_GPU_ATTR_CLOCK_RATE) / 1000);
    /* What deviceQuery and rocminfo show (0 where the runtime does not answer; the core computes the peak bandwidth
     * from the memory clock and bus width). Every CUDA and HIP GPU does double precision. */
    info->subgroup_size = (uint32_t)hcl__gpu_attr(e->dev, HCL_GPU_ATTR_WARP_SIZE); /* HIP's describe settles it */
    info->has_fp64 = 1;
    static const hcl_gpu_attribute block[3] = {HCL_GPU_ATTR_MAX_BLOCK_DIM_X, HCL_GPU_ATTR_MAX_BLOCK_DIM_Y,
                                               HCL_GPU_ATTR_MAX_BLOCK_DIM_Z};
    static const hcl_gpu_attribute grid[3] = {HCL_GPU_ATTR_MAX_GRID_DIM_X, HCL_GPU_ATTR_MAX_GRID_DIM_Y,
                                              HCL_GPU_ATTR_MAX_GRID_DIM_Z};
    for (int i = 0; i < 3; i++) {
        info->max_work_item_sizes[i] = (uint64_t)(uint32_t)hcl__gpu_attr(e->dev, block[i]);
        info->max_grid_size[i] = (uint64_t)(uint32_t)hcl__gpu_attr(e->dev, grid[i]);
    }
    info->memory_clock_mhz = (uint32_t)(hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MEMORY_CLOCK_RATE) / 1000);
    info->memory_bus_width_bits = (uint32_t)hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MEMORY_BUS_WIDTH);
    info->l2_cache_bytes = (uint64_t)(uint32_t)hcl__gpu_attr(e->dev, HCL_GPU_ATTR_L2_CACHE_SIZE);
    info->arg_offset_alignment = 1; /* a buffer argument is a device address: any byte offset works */
    status = hcl__gpu_describe(e);
cleanup:
    return status;
}

hcl_status hcl__gpu_discover(int count) {
    for (int i = 0; i < count; i++) {
        hcl__gpu_device_entry *e = hcl__kit_device_add();
        if (!e) return HCL_ERROR_OUT_OF_MEMORY;
        hcl_status status = describe(e);
        if (status != HCL_SUCCESS) return status;
        hcl__kit_device_keep();
        HCL_GPU_LOG("device %d: %s, %s, %u compute units, %llu MiB, %s", i, e->info.name, e->info.driver_version,
                    e->info.compute_units, (unsigned long long)(e->info.global_mem_bytes >> 20), e->info.identity);
    }
    return HCL_SUCCESS;
}

HCL_KIT_DRIVER(HCL_GPU_NAME, hcl__gpu_device_entry, hcl__gpu_start);

hcl_status hcl__gpu_device_open(uint32_t index, void **out_device) {
    hcl__gpu_device_entry *e = NULL;
    hcl__gpu_device *d = NULL;
    hcl_status status = hcl__kit_device_new(index, sizeof *d, (void **)&e, (void **)&d);
    if (status != HCL_SUCCESS) return status;
    d->index = index;
    d->dev = e->dev;
    snprintf(d->name, sizeof d->name, "%s", e->info.name);
    d->sm_count = (int)e->info.compute_units;
    d->max_grid[0] = hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MAX_GRID_DIM_X);
    d->max_grid[1] = hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MAX_GRID_DIM_Y);
    d->max_grid[2] = hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MAX_GRID_DIM_Z);
    d->max_block[0] = hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MAX_BLOCK_DIM_X);
    d->max_block[1] = hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MAX_BLOCK_DIM_Y);
    d->max_block[2] = hcl__gpu_attr(e->dev, HCL_GPU_ATTR_MAX_BLOCK_DIM_Z);
    if (pthread_mutex_init(&d->lock, NULL) != 0) {
        free(d);
        return HCL_KIT_FAIL(HCL_ERROR_INTERNAL, "%s: pthread_mutex_init failed", HCL_GPU_NAME);
    }
    status = hcl__gpu_device_setup(d, e);
    if (status != HCL_SUCCESS) {
        pthread_mutex_destroy(&d->lock);
        free(d);
        return status;
    }
    hcl__gpu_lost_open((int)d->dev);
    *out_device = d;
    return HCL_SUCCESS;
}

void hcl__gpu_device_close(void *device) {
    hcl__gpu_device *d = device;
    if (!d) return;
    hcl__gpu_scope scope;
    if (hcl__gpu_enter(d, &scope) == HCL_SUCCESS) {
        hcl__gpu_helpers_release(d);
        hcl__gpu_event_pool_drain(d);
        hcl__gpu_leave(&scope);
    }
    hcl__gpu_device_teardown(d);
    if (hcl__gpu_lost_close((int)d->dev)) hcl__gpu_device_reset(d);
    pthread_mutex_destroy(&d->lock);
    HCL_GPU_LOG("device %u '%s' closed", d->index, d->name);
    free(d->pool); /* NULL once drained; its events, where the context could not be entered, go with the context */
    free(d);
}

/* A warp (NVIDIA: 32) or wavefront (AMD: 64 or 32); the grid limits; the dynamic shared memory a launch has
 * without opting in (CUDA: the default 48 KiB, above which module.c opts a kernel in; AMD: all of it). */
hcl_status hcl__gpu_device_limits(void *device, hcl_driver_limits *out) {
    const hcl__gpu_device *d = device;
    out->subgroup_width = d->wave;
    for (int i = 0; i < 3; i++) out->max_groups[i] = d->max_grid[i] > 0 ? (uint32_t)d->max_grid[i] : 0;
    return HCL_SUCCESS;
}

/* The table, the same for both drivers: HCL_GPU_NAME and the map make it CUDA's or HIP's. */
static const hcl_driver_table g_table = {
    HCL_KIT_TABLE_HEAD(HCL_GPU_NAME, hcl__gpu_device_open, hcl__gpu_device_close),
    HCL_KIT_TABLE_ENTRIES(hcl__gpu) HCL_KIT_TABLE_NATIVE(hcl__gpu_host_alloc, hcl__gpu_host_free, hcl__gpu_get_native),
    .kernel_params = hcl__gpu_kernel_params,
    .peer_access = hcl__gpu_peer_access,
    .buffer_copy_peer = hcl__gpu_buffer_copy_peer,
    .host_register = hcl__gpu_host_register,
    .host_unregister = hcl__gpu_host_unregister,
    .event_query = hcl__gpu_event_query,
#if HCL_GPU_CUDA
    .kernel_max_clusters = hcl__gpu_kernel_max_clusters,
#endif
    .buffer_wrap = hcl__gpu_buffer_wrap,
#if HCL_GPU_CUDA
    .kernel_wait_in_device = hcl__gpu_kernel_wait_in_device,
#endif
};

HCL_KIT_DRIVER_ENTRY(g_table)
