/* A kernel's declared parameters and the launch check against them: asked from the driver once per kernel, so that a
 * buffer where a value goes, a value where a buffer goes, a wrong value size or a wrong argument count is refused
 * before the vendor runtime sees it (vendors crash or fault on them, and CUDA's fault poisons the device). */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A buffer argument's size where a backend states parameter sizes without kinds (CUDA, HIP: 64-bit only). */
#define HCL__DEVICE_ADDRESS_BYTES 8

void hcl__kernel_params_get(const hcl_driver_table *drv, void *native_kernel, const char *name,
                            hcl__kernel_params *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->kernel_name, sizeof out->kernel_name, "%s", name);
    if (!HCL_DRIVER_HAS(drv, kernel_params)) return;
    hcl_driver_param *params = calloc(HCL__MAX_PARAMS, sizeof *params);
    if (!params) return; /* unknown: checked for kinds only, as with a driver that does not say */
    uint32_t count = 0, flags = 0;
    if (drv->kernel_params(native_kernel, params, HCL__MAX_PARAMS, &count, &flags) != HCL_SUCCESS) {
        free(params);
        return;
    }
    const uint32_t stored = count < HCL__MAX_PARAMS ? count : HCL__MAX_PARAMS;
    for (uint32_t i = 0; i < stored; i++) { /* a driver's strings are terminated and its kinds bounded here */
        params[i].name[sizeof params[i].name - 1] = '\0';
        params[i].type[sizeof params[i].type - 1] = '\0';
        if ((unsigned)params[i].kind > HCL_DRIVER_PARAM_LOCAL) params[i].kind = HCL_DRIVER_PARAM_UNKNOWN;
    }
    out->known = 1;
    out->count = count;
    out->flags = flags;
    out->params = params;
}

void hcl__kernel_params_free(hcl__kernel_params *params) {
    free(params->params);
    params->params = NULL;
}

/* Parameter i as the driver described it (the kernel's own copy); UNKNOWN past what was stored. */
static const hcl_driver_param *param_at(const hcl__kernel_params *p, uint32_t i) {
    static const hcl_driver_param unknown; /* zeros: HCL_DRIVER_PARAM_UNKNOWN, no size, no name */
    return p->params && i < p->count && i < HCL__MAX_PARAMS ? &p->params[i] : &unknown;
}

/* "parameter 2 'n' (int)" with what is known of it, into buf; returns buf. Only for messages: a launch that passes
 * formats nothing. */
static const char *describe(char *buf, size_t size, uint32_t i, const hcl_driver_param *p) {
    int w = snprintf(buf, size, "parameter %u", i);
    size_t used = w > 0 ? (size_t)w : 0;
    if (p->name[0] && used < size) {
        w = snprintf(buf + used, size - used, " '%s'", p->name);
        used += w > 0 ? (size_t)w : 0;
    }
    if (p->type[0] && used < size) snprintf(buf + used, size - used, " (%s)", p->type);
    return buf;
}

/* What a parameter takes, for messages: "a buffer", "a value of 4 bytes", "a value"; returns buf. */
static const char *takes(char *buf, size_t size, const hcl_driver_param *p) {
    if (p->kind == HCL_DRIVER_PARAM_BUFFER)
        snprintf(buf, size, "a buffer");
    else if (p->size)
        snprintf(buf, size, "a value of %u bytes", p->size);
    else
        snprintf(buf, size, "a value");
    return buf;
}

hcl_status hcl__check_args(const char *fn, const hcl__kernel_params *p, size_t shared_bytes, uint32_t num_args,
                           const hcl_arg *args) {
    if (!p->known) return HCL_SUCCESS;
    char what[160], need[48];
    const char *kname = p->kernel_name;
    const int shared_last = (p->flags & HCL_DRIVER_PARAMS_SHARED_LAST) != 0;
    uint32_t expected = p->count;
    if (shared_last && p->count > 0) {
        const hcl_driver_param *last = param_at(p, p->count - 1);
        if (shared_bytes > 0 && last->kind != HCL_DRIVER_PARAM_LOCAL && last->kind != HCL_DRIVER_PARAM_UNKNOWN)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: shared_bytes %zu is passed to kernel '%s' as its last parameter, but %s is "
                                    "not a __local pointer",
                                    fn, shared_bytes, kname, describe(what, sizeof what, p->count - 1, last));
        if (shared_bytes == 0 && last->kind == HCL_DRIVER_PARAM_LOCAL)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: %s of kernel '%s' is a __local pointer: give its size as shared_bytes (0 was "
                                    "given)",
                                    fn, describe(what, sizeof what, p->count - 1, last), kname);
    }
    if (shared_last && shared_bytes > 0) {
        if (p->count == 0)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: shared_bytes %zu is passed to kernel '%s' as its last parameter, but it "
                                    "declares none",
                                    fn, shared_bytes, kname);
        expected--;
    }
    const char *plus = shared_last && shared_bytes > 0 ? " plus the __local parameter that shared_bytes sizes" : "";
    if (num_args < expected) {
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: kernel '%s' declares %u parameter(s); the launch gives %u argument(s)%s: too few, "
                                "%s is missing",
                                fn, kname, p->count, num_args, plus,
                                describe(what, sizeof what, num_args, param_at(p, num_args)));
    }
    if (num_args > expected)
        return hcl__set_message(
            HCL_ERROR_INVALID_ARGUMENT,
            "%s: kernel '%s' declares %u parameter(s); the launch gives %u argument(s)%s: too many, "
            "args[%u] has no parameter %u",
            fn, kname, p->count, num_args, plus, expected, expected);
    for (uint32_t i = 0; i < num_args; i++) {
        const hcl_driver_param *q = param_at(p, i);
        if (q->kind == HCL_DRIVER_PARAM_UNKNOWN && !q->size) continue;
        if (q->kind == HCL_DRIVER_PARAM_UNKNOWN) { /* only its size is known: a value's, or a device address */
            if (args[i].kind == HCL_ARG_VALUE && args[i].size != q->size)
                return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                        "%s: args[%u] is a value of %zu bytes, but %s of kernel '%s' takes %u bytes",
                                        fn, i, args[i].size, describe(what, sizeof what, i, q), kname, q->size);
            if (args[i].kind == HCL_ARG_BUFFER && q->size != HCL__DEVICE_ADDRESS_BYTES)
                return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                        "%s: args[%u] is a buffer (a %d-byte device address), but %s of kernel '%s' "
                                        "takes %u bytes",
                                        fn, i, HCL__DEVICE_ADDRESS_BYTES, describe(what, sizeof what, i, q), kname,
                                        q->size);
            continue;
        }
        if (q->kind == HCL_DRIVER_PARAM_LOCAL)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: %s of kernel '%s' is a __local pointer, which no launch argument can give "
                                    "(only a last __local parameter, sized by shared_bytes)",
                                    fn, describe(what, sizeof what, i, q), kname);
        if (args[i].kind == HCL_ARG_VALUE && q->kind == HCL_DRIVER_PARAM_BUFFER)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: args[%u] is a value of %zu bytes, but %s of kernel '%s' takes a buffer", fn, i,
                                    args[i].size, describe(what, sizeof what, i, q), kname);
        if (args[i].kind == HCL_ARG_BUFFER && q->kind == HCL_DRIVER_PARAM_VALUE)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                    "%s: args[%u] is a buffer, but %s of kernel '%s' takes %s", fn, i,
                                    describe(what, sizeof what, i, q), kname, takes(need, sizeof need, q));
        if (args[i].kind == HCL_ARG_VALUE && q->size && args[i].size != q->size)
            return hcl__set_message(
                HCL_ERROR_INVALID_ARGUMENT, "%s: args[%u] is a value of %zu bytes, but %s of kernel '%s' takes %s", fn,
                i, args[i].size, describe(what, sizeof what, i, q), kname, takes(need, sizeof need, q));
    }
    return HCL_SUCCESS;
}
