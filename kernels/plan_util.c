/* Helpers shared by the plans of kernels/<op>/plan.c (hcl_plan.h). */
#include "hcl_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hcl_status hcl_kplan_init(hcl_kplan *plan, size_t count) {
    memset(plan, 0, sizeof *plan);
    plan->launch = plan->inline_launch;
    if (count > HCL_KPLAN_INLINE) {
        plan->launch = calloc(count, sizeof *plan->launch);
        if (!plan->launch) {
            plan->launch = plan->inline_launch;
            return hcl_kplan_fail(plan, HCL_ERROR_OUT_OF_MEMORY, "out of host memory for a plan of %zu launches",
                                  count);
        }
    }
    plan->count = count;
    return HCL_SUCCESS;
}

void hcl_kplan_free(hcl_kplan *plan) {
    if (plan->launch && plan->launch != plan->inline_launch) free(plan->launch);
    plan->launch = plan->inline_launch;
    plan->count = 0;
}

hcl_status hcl_kplan_fail(hcl_kplan *plan, hcl_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(plan->why, sizeof plan->why, fmt, ap);
    va_end(ap);
    return status;
}

void hcl_klaunch_1d(hcl_klaunch *l, hcl_kprog prog, int kernel, size_t groups, size_t group_size) {
    memset(l, 0, offsetof(hcl_klaunch, args));
    l->prog = prog;
    l->kernel = kernel;
    l->grid = (hcl_dim3){(uint32_t)groups, 1, 1};
    l->block = (hcl_dim3){(uint32_t)group_size, 1, 1};
}

/* The launch's next argument, or NULL when it has HCL_KLAUNCH_MAX_ARGS already (num_args then says so: one more). */
static hcl_kparg *next_arg(hcl_klaunch *l, hcl_kparg_kind kind) {
    if (l->num_args >= HCL_KLAUNCH_MAX_ARGS) {
        l->num_args = HCL_KLAUNCH_MAX_ARGS + 1;
        return NULL;
    }
    hcl_kparg *a = &l->args[l->num_args++];
    memset(a, 0, offsetof(hcl_kparg, value));
    a->kind = kind;
    return a;
}

void hcl_klaunch_mem(hcl_klaunch *l, hcl_kslot slot, size_t offset) {
    hcl_kparg *a = next_arg(l, HCL_KPARG_MEM);
    if (!a) return;
    a->slot = slot;
    a->offset = offset;
}

void hcl_klaunch_value(hcl_klaunch *l, const void *value, size_t size) {
    hcl_kparg *a = next_arg(l, HCL_KPARG_VALUE);
    if (!a) return;
    a->size = size;
    memcpy(a->value, value, size);
}

void hcl_klaunch_tensor_map(hcl_klaunch *l, hcl_kslot slot, size_t offset, const hcl_driver_tensor_map *map) {
    hcl_kparg *a = next_arg(l, HCL_KPARG_TENSOR_MAP);
    if (!a) return;
    a->slot = slot;
    a->offset = offset;
    a->size = sizeof *map;
    memcpy(a->value, map, sizeof *map);
}

void hcl_klaunch_u64(hcl_klaunch *l, uint64_t v) { hcl_klaunch_value(l, &v, sizeof v); }
void hcl_klaunch_u32(hcl_klaunch *l, uint32_t v) { hcl_klaunch_value(l, &v, sizeof v); }
void hcl_klaunch_f32(hcl_klaunch *l, float v) { hcl_klaunch_value(l, &v, sizeof v); }

size_t hcl_pow2_floor(size_t v) {
    size_t p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
}

uint64_t hcl_kgroup_max(const hcl_kdevice *dev, hcl_kprog prog, int kernel, uint64_t cap) {
    uint64_t kmax = dev->kernel_max_group ? dev->kernel_max_group(dev, prog, kernel) : 0;
    uint64_t g = cap;
    if (kmax && kmax < g) g = kmax;
    if (dev->max_group_size && dev->max_group_size < g) g = dev->max_group_size;
    return g;
}

/* The element types of hcl_dtypes.def, by hcl_dtype. */
static const struct {
    const char *name;
    size_t bytes;
} g_dtypes[] = {
#define HCL_DTYPE(id, name, bytes) [HCL_DTYPE_##id] = {#name, bytes},
#include "hcl_dtypes.def"
#undef HCL_DTYPE
};
_Static_assert(sizeof g_dtypes / sizeof g_dtypes[0] == HCL_DTYPE_COUNT, "hcl_dtypes.def lists every hcl_dtype");

const char *hcl_kdtype_name(hcl_dtype type) { return (unsigned)type < HCL_DTYPE_COUNT ? g_dtypes[type].name : "?"; }
size_t hcl_kdtype_size(hcl_dtype type) { return (unsigned)type < HCL_DTYPE_COUNT ? g_dtypes[type].bytes : 0; }

int hcl_kplan_kernel(hcl_kplan *plan, hcl_kprog prog, const char *name) {
    const int kernel = hcl_kprogram_kernel(prog, name);
    if (kernel < 0)
        hcl_kplan_fail(plan, HCL_ERROR_UNSUPPORTED, "the built-in program %s has no kernel %s",
                       hcl_kprogram_get(prog)->name, name);
    return kernel;
}

int hcl_kplan_typed_kernel(hcl_kplan *plan, hcl_kprog prog, const char *base, hcl_dtype type) {
    char name[96];
    snprintf(name, sizeof name, "%s_%s", base, hcl_kdtype_name(type));
    return hcl_kplan_kernel(plan, prog, name);
}
