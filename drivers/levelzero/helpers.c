/* The driver's own helper kernels: the SPIR-V programs built at build time from its own OpenCL C (plan.c lists
 * them; today fill.cl, for fills with patterns the runtime's fill does not take, and for markers), created on first
 * use per device (through the native-binary cache) and launched by the plans of plan.c. The built-in kernels are
 * not the driver's: the core runs them as ordinary modules and launches. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hcl__ze_helpers_init(hcl__ze_device *dev) {
    for (int i = 0; i < HCL_ZE_HELPER_COUNT; i++) {
        memset(&dev->helpers[i], 0, sizeof dev->helpers[i]);
        pthread_mutex_init(&dev->helpers[i].lock, NULL);
    }
}

static void release_helper(hcl__ze_device *dev, hcl__ze_helper *h) {
    for (int k = 0; k < HCL_ZE_HELPER_MAX_KERNELS; k++) {
        if (h->kernels[k] && hcl__ze.zeKernelDestroy(h->kernels[k]) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
        h->kernels[k] = NULL;
    }
    if (h->module && hcl__ze.zeModuleDestroy(h->module) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
    h->module = NULL;
}

void hcl__ze_helpers_release(hcl__ze_device *dev) {
    for (int i = 0; i < HCL_ZE_HELPER_COUNT; i++) {
        release_helper(dev, &dev->helpers[i]);
        pthread_mutex_destroy(&dev->helpers[i].lock);
    }
}

/* Lock helper program `which` of the device, creating it and its kernels first if this is its first use. On
 * success the lock is held and the caller unlocks after it has set the arguments and appended. */
static hcl_status acquire(hcl__ze_device *dev, int which, hcl__ze_helper **out_helper) {
    hcl__ze_helper *h = &dev->helpers[which];
    const hcl__ze_helper_def *def = &hcl__ze_helpers[which];
    hcl_status status = HCL_SUCCESS;
    pthread_mutex_lock(&h->lock);
    if (h->module) {
        *out_helper = h;
        return HCL_SUCCESS;
    }
    char what[160];
    snprintf(what, sizeof what, "helper program %s (SPIR-V of %s)", def->name, def->origin);
    status = hcl__ze_module_build(dev, def->spirv, *def->spirv_size, NULL, what, &h->module);
    if (status != HCL_SUCCESS) goto cleanup;
    for (int k = 0; k < HCL_ZE_HELPER_MAX_KERNELS && def->kernels[k]; k++) {
        ze_kernel_desc_t desc;
        memset(&desc, 0, sizeof desc);
        desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
        desc.pKernelName = def->kernels[k];
        HCL_ZE_CHECK(zeKernelCreate, (h->module, &desc, &h->kernels[k]), "helper kernel '%s' of %s", def->kernels[k],
                     def->name);
        hcl__ze_live(dev, 1);
        ze_kernel_properties_t props;
        memset(&props, 0, sizeof props);
        props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        HCL_ZE_CHECK(zeKernelGetProperties, (h->kernels[k], &props), "helper kernel '%s'", def->kernels[k]);
        /* the most work-items a group of this kernel can have, as far as the runtime says (0: it did not) */
        h->limits.max_group_size[k] = (uint64_t)props.maxSubgroupSize * props.maxNumSubgroups;
        HCL_ZE_LOG("helper '%s' on '%s': up to %llu work-items per group (0: not given)", def->kernels[k],
                   dev->entry->info.name, (unsigned long long)h->limits.max_group_size[k]);
    }
    *out_helper = h;
    return HCL_SUCCESS;
cleanup:
    release_helper(dev, h);
    pthread_mutex_unlock(&h->lock);
    return status;
}

/* The kernel limits of a helper program, building it first if needed. */
static hcl_status helper_limits(hcl__ze_device *dev, int which, hcl__ze_kernel_limits *out) {
    hcl__ze_helper *h = NULL;
    hcl_status status = acquire(dev, which, &h);
    if (status != HCL_SUCCESS) return status;
    *out = h->limits;
    pthread_mutex_unlock(&h->lock);
    return HCL_SUCCESS;
}

hcl_status hcl__ze_fill_kernel(hcl__ze_queue *q, void *mem, size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, uint32_t num_wait, void *const *wait, int blocking, int marker,
                               void **out_event) {
    const char *what = marker ? "marker" : "buffer fill";
    char why[512] = "";
    hcl__ze_kernel_limits kl;
    hcl__ze_fill_plan plan;
    hcl_status status = helper_limits(q->dev, HCL_ZE_HELPER_FILL, &kl);
    if (status != HCL_SUCCESS) return status;
    status =
        hcl__ze_plan_fill(&q->dev->entry->limits, &kl, offset, size, pattern, pattern_size, &plan, why, sizeof why);
    if (status != HCL_SUCCESS) return hcl__ze_host->set_message(status, "levelzero: %s: %s", what, why);
    const hcl_driver_arg args[] = {
        {HCL_DRIVER_ARG_BUFFER, mem, plan.offset, NULL, 0},
        {HCL_DRIVER_ARG_VALUE, NULL, 0, &plan.count, sizeof plan.count},
        {HCL_DRIVER_ARG_VALUE, NULL, 0, plan.pattern, 64},
        {HCL_DRIVER_ARG_VALUE, NULL, 0, plan.pattern + 64, 64},
        {HCL_DRIVER_ARG_VALUE, NULL, 0, &plan.period, sizeof plan.period},
    };
    hcl__ze_cmd cmd;
    void *ev = NULL;
    status = hcl__ze_cmd_begin(&cmd, q, 1, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    hcl__ze_helper *h = NULL;
    status = acquire(q->dev, HCL_ZE_HELPER_FILL, &h);
    if (status == HCL_SUCCESS) {
        status = hcl__ze_append_launch(&cmd, h->kernels[plan.kernel],
                                       hcl__ze_helpers[HCL_ZE_HELPER_FILL].kernels[plan.kernel],
                                       (hcl_dim3){plan.groups, 1, 1}, (hcl_dim3){plan.group_size, 1, 1}, 0,
                                       (uint32_t)(sizeof args / sizeof args[0]), args);
        pthread_mutex_unlock(&h->lock);
    }
    status = hcl__ze_cmd_end(&cmd, status, blocking, what, out_event ? &ev : NULL);
    if (status != HCL_SUCCESS) return status;
    if (out_event) {
        ((hcl__ze_event *)ev)->marker = marker;
        *out_event = ev;
    }
    return HCL_SUCCESS;
}
