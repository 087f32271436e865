/* Built-in kernels: the SPIR-V modules built at build time from kernels/<name>/<name>.cl (plan.c lists them),
 * created on first use per device (through the native-binary cache) and launched by the plans of plan.c. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hcl__ze_builtins_init(hcl__ze_device *dev) {
    for (int i = 0; i < HCL_ZE_MOD_COUNT; i++) {
        memset(&dev->builtins[i], 0, sizeof dev->builtins[i]);
        pthread_mutex_init(&dev->builtins[i].lock, NULL);
    }
}

static void release_builtin(hcl__ze_device *dev, hcl__ze_builtin *b) {
    for (int k = 0; k < HCL_ZE_MOD_MAX_KERNELS; k++) {
        if (b->kernels[k] && hcl__ze.zeKernelDestroy(b->kernels[k]) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
        b->kernels[k] = NULL;
    }
    if (b->module && hcl__ze.zeModuleDestroy(b->module) == ZE_RESULT_SUCCESS) hcl__ze_live(dev, -1);
    b->module = NULL;
}

void hcl__ze_builtins_release(hcl__ze_device *dev) {
    for (int i = 0; i < HCL_ZE_MOD_COUNT; i++) {
        release_builtin(dev, &dev->builtins[i]);
        pthread_mutex_destroy(&dev->builtins[i].lock);
    }
}

/* Lock built-in module `which` of the device, creating it and its kernels first if this is its first use. On
 * success the lock is held and the caller unlocks after it has set the arguments and appended. */
static hcl_status acquire(hcl__ze_device *dev, int which, hcl__ze_builtin **out_builtin) {
    hcl__ze_builtin *b = &dev->builtins[which];
    const hcl__ze_module_def *def = &hcl__ze_modules[which];
    hcl_status status = HCL_SUCCESS;
    pthread_mutex_lock(&b->lock);
    if (b->module) {
        *out_builtin = b;
        return HCL_SUCCESS;
    }
    char what[160];
    snprintf(what, sizeof what, "built-in module %s (SPIR-V of %s)", def->name, def->origin);
    status = hcl__ze_module_build(dev, def->spirv, *def->spirv_size, NULL, what, &b->module);
    if (status != HCL_SUCCESS) goto cleanup;
    for (int k = 0; k < HCL_ZE_MOD_MAX_KERNELS && def->kernels[k]; k++) {
        ze_kernel_desc_t desc;
        memset(&desc, 0, sizeof desc);
        desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
        desc.pKernelName = def->kernels[k];
        HCL_ZE_CHECK(zeKernelCreate, (b->module, &desc, &b->kernels[k]), "built-in kernel '%s' of %s",
                     def->kernels[k], def->name);
        hcl__ze_live(dev, 1);
        ze_kernel_properties_t props;
        memset(&props, 0, sizeof props);
        props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        HCL_ZE_CHECK(zeKernelGetProperties, (b->kernels[k], &props), "built-in kernel '%s'", def->kernels[k]);
        /* the most work-items a group of this kernel can have, as far as the runtime says (0: it did not) */
        b->limits.max_group_size[k] = (uint64_t)props.maxSubgroupSize * props.maxNumSubgroups;
        HCL_ZE_LOG("built-in '%s' on '%s': up to %llu work-items per group (0: not given)", def->kernels[k],
                   dev->entry->info.name, (unsigned long long)b->limits.max_group_size[k]);
    }
    *out_builtin = b;
    return HCL_SUCCESS;
cleanup:
    release_builtin(dev, b);
    pthread_mutex_unlock(&b->lock);
    return status;
}

/* The kernel limits of a built-in module, building it first if needed. */
static hcl_status builtin_limits(hcl__ze_device *dev, int which, hcl__ze_kernel_limits *out) {
    hcl__ze_builtin *b = NULL;
    hcl_status status = acquire(dev, which, &b);
    if (status != HCL_SUCCESS) return status;
    *out = b->limits;
    pthread_mutex_unlock(&b->lock);
    return HCL_SUCCESS;
}

static hcl_status plan_failed(hcl_status status, const char *fn, const char *why) {
    return hcl__ze_host->set_message(status, "levelzero: %s: %s", fn, why);
}

hcl_status hcl__ze_run_plan(hcl__ze_queue *q, const hcl__ze_plan *plan, void *const *slots, uint32_t num_wait,
                            void *const *wait, int blocking, const char *what, void **out_event) {
    hcl__ze_device *dev = q->dev;
    hcl__ze_cmd cmd;
    /* every module first, so that no build happens between the parts of one command */
    for (size_t i = 0; i < plan->count; i++) {
        hcl__ze_kernel_limits unused;
        hcl_status status = builtin_limits(dev, plan->launch[i].module, &unused);
        if (status != HCL_SUCCESS) return status;
    }
    hcl_status status = hcl__ze_cmd_begin(&cmd, q, plan->count, num_wait, wait, out_event != NULL);
    if (status != HCL_SUCCESS) return status;
    for (size_t i = 0; i < plan->count && status == HCL_SUCCESS; i++) {
        const hcl__ze_launch *l = &plan->launch[i];
        hcl__ze_builtin *b = NULL;
        status = acquire(dev, l->module, &b);
        if (status != HCL_SUCCESS) break;
        status = hcl__ze_append_launch(&cmd, b->kernels[l->kernel], hcl__ze_modules[l->module].kernels[l->kernel], l,
                                       slots);
        pthread_mutex_unlock(&b->lock);
    }
    return hcl__ze_cmd_end(&cmd, status, blocking, what, out_event);
}

hcl_status hcl__ze_fill_kernel(hcl__ze_queue *q, void *mem, size_t offset, size_t size, const void *pattern,
                               size_t pattern_size, uint32_t num_wait, void *const *wait, int blocking, int marker,
                               void **out_event) {
    char why[512] = "";
    hcl__ze_kernel_limits kl;
    hcl__ze_plan plan;
    hcl_status status = builtin_limits(q->dev, HCL_ZE_MOD_FILL, &kl);
    if (status != HCL_SUCCESS) return status;
    status = hcl__ze_plan_fill(&q->dev->entry->limits, &kl, offset, size, pattern, pattern_size, &plan, why,
                               sizeof why);
    if (status != HCL_SUCCESS) return plan_failed(status, marker ? "marker" : "buffer fill", why);
    void *slots[HCL_ZE_SLOT_COUNT] = {NULL, NULL, mem, NULL};
    void *ev = NULL;
    status = hcl__ze_run_plan(q, &plan, slots, num_wait, wait, blocking, marker ? "marker" : "buffer fill",
                              out_event ? &ev : NULL);
    hcl__ze_plan_free(&plan);
    if (status != HCL_SUCCESS) return status;
    if (out_event) {
        ((hcl__ze_event *)ev)->marker = marker;
        *out_event = ev;
    }
    return HCL_SUCCESS;
}

hcl_status hcl__ze_vecadd_f32(void *queue, size_t n, void *a, void *b, void *c, void **out_event) {
    hcl__ze_queue *q = queue;
    char why[512] = "";
    hcl__ze_kernel_limits kl;
    hcl__ze_plan plan;
    hcl_status status = builtin_limits(q->dev, HCL_ZE_MOD_VECADD, &kl);
    if (status != HCL_SUCCESS) return status;
    status = hcl__ze_plan_vecadd(&q->dev->entry->limits, &kl, n, &plan, why, sizeof why);
    if (status != HCL_SUCCESS) return plan_failed(status, "vecadd", why);
    void *slots[HCL_ZE_SLOT_COUNT] = {a, b, c, NULL};
    status = hcl__ze_run_plan(q, &plan, slots, 0, NULL, 0, "vecadd", out_event);
    hcl__ze_plan_free(&plan);
    return status;
}

hcl_status hcl__ze_gemm_f32(void *queue, const hcl_gemm_args *g, void **out_event) {
    hcl__ze_queue *q = queue;
    char why[512] = "";
    hcl__ze_kernel_limits kl;
    hcl__ze_plan plan;
    int module = 0;
    hcl_status status = hcl__ze_gemm_module(&q->dev->entry->limits, &module, why, sizeof why);
    if (status != HCL_SUCCESS) return plan_failed(status, "gemm", why);
    status = builtin_limits(q->dev, module, &kl);
    if (status != HCL_SUCCESS) return status;
    status = hcl__ze_plan_gemm(&q->dev->entry->limits, &kl, module, g, &plan, why, sizeof why);
    if (status != HCL_SUCCESS) return plan_failed(status, "gemm", why);
    void *slots[HCL_ZE_SLOT_COUNT] = {g->a, g->b, g->c, NULL};
    status = hcl__ze_run_plan(q, &plan, slots, 0, NULL, 0, "gemm", out_event);
    hcl__ze_plan_free(&plan);
    return status;
}

hcl_status hcl__ze_softmax_f32(void *queue, size_t rows, size_t cols, void *in, void *out, void **out_event) {
    hcl__ze_queue *q = queue;
    char why[512] = "";
    hcl__ze_kernel_limits kl;
    hcl__ze_plan plan;
    hcl_status status = builtin_limits(q->dev, HCL_ZE_MOD_SOFTMAX, &kl);
    if (status != HCL_SUCCESS) return status;
    status = hcl__ze_plan_softmax(&q->dev->entry->limits, &kl, rows, cols, &plan, why, sizeof why);
    if (status != HCL_SUCCESS) return plan_failed(status, "softmax", why);
    void *slots[HCL_ZE_SLOT_COUNT] = {in, NULL, out, NULL};
    status = hcl__ze_run_plan(q, &plan, slots, 0, NULL, 0, "softmax", out_event);
    hcl__ze_plan_free(&plan);
    return status;
}

hcl_status hcl__ze_reduce_f32(void *queue, hcl_reduce_op op, size_t n, void *in, void *out, void **out_event) {
    hcl__ze_queue *q = queue;
    char why[512] = "";
    hcl__ze_kernel_limits kl;
    hcl__ze_plan plan;
    hcl_status status = builtin_limits(q->dev, HCL_ZE_MOD_REDUCE, &kl);
    if (status != HCL_SUCCESS) return status;
    status = hcl__ze_plan_reduce(&q->dev->entry->limits, &kl, op, n, &plan, why, sizeof why);
    if (status != HCL_SUCCESS) return plan_failed(status, "reduce", why);
    /* the partials: made once per queue (in order, so reductions on it never race for them) */
    if (plan.scratch_bytes > q->scratch_size) {
        /* (the size depends on the device only, so this happens once; finish first all the same) */
        if (q->scratch && (status = hcl__ze_queue_finish(q)) != HCL_SUCCESS) goto cleanup;
        if (q->scratch) hcl__ze_device_free(q->dev, q->scratch);
        q->scratch = NULL;
        q->scratch_size = 0;
        status = hcl__ze_device_alloc(q->dev, plan.scratch_bytes, "reduce partials", &q->scratch);
        if (status != HCL_SUCCESS) goto cleanup;
        q->scratch_size = plan.scratch_bytes;
    }
    void *slots[HCL_ZE_SLOT_COUNT] = {in, NULL, out, q->scratch};
    status = hcl__ze_run_plan(q, &plan, slots, 0, NULL, 0, "reduce", out_event);
cleanup:
    hcl__ze_plan_free(&plan);
    return status;
}
