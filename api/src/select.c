/* Device selection: selector strings ("cuda", "opencl:1", "cuda,opencl:1") and the environment
 * (HCL_BACKEND, HCL_DEVICE). A comma list is a preference order: the first named backend that is available and
 * has the device wins. Unknown names and malformed selectors are errors; an explicitly named backend is never
 * silently replaced by one that was not named, and a failure lists the backends that are available.
 * HCL_DEVICE is the device index within the chosen backend, whether HCL_BACKEND named it or the default rule chose
 * it. A backend named without an index (and without HCL_DEVICE) opens the device bare_device picks: its first GPU,
 * else accelerator, else CPU. */
#include "core.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHOICES 16

typedef struct choice {
    hcl__backend *backend;
    int has_index;
    uint32_t index;
} choice;

static int parse_index(const char *s, size_t len, uint32_t *out) {
    if (len == 0 || len > 9) return -1;
    uint32_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)s[i])) return -1;
        v = v * 10 + (uint32_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* Parse "a[:N],b[:N]" into choices. `origin` names where the text came from, for messages. */
static hcl_status parse(const char *text, const char *origin, choice *out, uint32_t *out_count) {
    char known[512];
    uint32_t count = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        while (len && isspace((unsigned char)*p)) {
            p++;
            len--;
        }
        while (len && isspace((unsigned char)p[len - 1])) len--;
        if (len == 0)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_open: %s \"%s\" has an empty entry", origin,
                                    text);
        if (count == MAX_CHOICES)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_open: %s \"%s\" has over %d entries",
                                    origin, text, MAX_CHOICES);
        const char *colon = memchr(p, ':', len);
        size_t name_len = colon ? (size_t)(colon - p) : len;
        choice c = {0};
        if (colon) {
            if (parse_index(colon + 1, len - name_len - 1, &c.index) != 0)
                return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                        "hcl_device_open: %s \"%s\": \"%.*s\" is not backend:N with N a device index",
                                        origin, text, (int)len, p);
            c.has_index = 1;
        }
        if (name_len == 0)
            return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "hcl_device_open: %s \"%s\": \"%.*s\" names no backend",
                                    origin, text, (int)len, p);
        c.backend = hcl__backend_find(p, name_len);
        if (!c.backend) {
            hcl__backend_names(known, sizeof known);
            return hcl__set_message(HCL_ERROR_UNKNOWN_BACKEND,
                                    "hcl_device_open: unknown backend \"%.*s\" in %s \"%s\"; known backends: %s",
                                    (int)name_len, p, origin, text, known);
        }
        out[count++] = c;
        if (!end) break;
        p = end + 1;
    }
    *out_count = count;
    return HCL_SUCCESS;
}

/* The device a backend named without an index opens ("opencl", HCL_BACKEND=opencl, and the default rule's backend):
 * its first GPU, else its first accelerator, else its first CPU, else device 0. A user who names a backend means its
 * accelerator: on the H200 machines PoCL's CPU is OpenCL device 0 and the GPU device 1. The one place of that rule;
 * hcl-info shows its answer by opening each bare name. `b` is available; *out_type is the device's type (0 when
 * no device answered). */
static uint32_t bare_device(hcl__backend *b, hcl_device_type *out_type) {
    static const hcl_device_type order[] = {HCL_DEVICE_TYPE_GPU, HCL_DEVICE_TYPE_ACCELERATOR, HCL_DEVICE_TYPE_CPU};
    static const char *const said[] = {"its first GPU", "no GPU, its first accelerator",
                                       "no GPU or accelerator, its first CPU", "no GPU, accelerator or CPU, device 0",
                                       "no device answered, device 0"};
    const size_t kinds = sizeof order / sizeof order[0];
    size_t best_rank = kinds + 1; /* kinds: a device of another type; kinds + 1: none answered */
    uint32_t best = 0;
    *out_type = 0;
    for (uint32_t d = 0; d < b->device_count && best_rank > 0; d++) {
        hcl_device_info info;
        memset(&info, 0, sizeof info);
        if (b->drv->device_info(d, &info) != HCL_SUCCESS) continue; /* opening it would fail and say why */
        size_t rank = 0;
        while (rank < kinds && order[rank] != info.type) rank++;
        if (rank < best_rank) {
            best = d;
            best_rank = rank;
            *out_type = info.type;
        }
    }
    hcl__log(HCL_LOG_DEBUG, "select", "%s named without an index: %s:%u (%s)", b->name, b->name, best, said[best_rank]);
    return best;
}

/* Without HCL_BACKEND: the first of the backends marked gpu in the build's list (cuda, hip, levelzero, opencl) whose
 * bare name opens a GPU, that GPU; else the fallback backend (host). */
static hcl_status default_choice(choice *out) {
    hcl__backend *fallback = NULL;
    for (uint32_t i = 0; i < hcl__backend_total(); i++) {
        hcl__backend *b = hcl__backend_at(i);
        if (b->default_role == HCL__DEFAULT_FALLBACK && !fallback) fallback = b;
        if (b->default_role != HCL__DEFAULT_GPU || !hcl__backend_load(b)->available) continue;
        hcl_device_type type;
        uint32_t d = bare_device(b, &type);
        if (type == HCL_DEVICE_TYPE_GPU) {
            out->backend = b;
            out->has_index = 1;
            out->index = d;
            hcl__log(HCL_LOG_DEBUG, "select", "default: first GPU is %s:%u", b->name, d);
            return HCL_SUCCESS;
        }
    }
    out->backend = fallback;
    out->has_index = 0;
    hcl__log(HCL_LOG_DEBUG, "select", "default: no GPU backend has a GPU, using %s", fallback->name);
    return HCL_SUCCESS;
}

/* "; available: opencl (2 devices), host (1 device)" (or "; no backend is available") into buf. */
static void list_available(char *buf, size_t size) {
    size_t used = 0;
    int n = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < hcl__backend_total() && used < size; i++) {
        hcl__backend *b = hcl__backend_load(hcl__backend_at(i));
        if (!b->available) continue;
        int w = snprintf(buf + used, size - used, "%s%s (%u device%s)", n++ ? ", " : "; available: ", b->name,
                         b->device_count, b->device_count == 1 ? "" : "s");
        used += w > 0 ? (size_t)w : 0;
    }
    if (n == 0) snprintf(buf, size, "; no backend is available");
}

hcl_status hcl__select(const char *selector, hcl__backend **out_backend, uint32_t *out_index) {
    choice choices[MAX_CHOICES];
    uint32_t count = 0;
    int env_index_set = 0;
    uint32_t env_index = 0;
    hcl_status st;
    if (selector && *selector) {
        if ((st = parse(selector, "selector", choices, &count)) != HCL_SUCCESS) return st;
    } else {
        const char *dev = getenv("HCL_DEVICE");
        if (dev && *dev) {
            if (parse_index(dev, strlen(dev), &env_index) != 0)
                return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                        "hcl_device_open: HCL_DEVICE=\"%s\" is not a device index", dev);
            env_index_set = 1;
        }
        const char *env = getenv("HCL_BACKEND");
        if (env && *env) {
            if ((st = parse(env, "HCL_BACKEND", choices, &count)) != HCL_SUCCESS) return st;
        } else {
            default_choice(&choices[0]);
            /* HCL_DEVICE means the same whether the backend was named or defaulted: an index within it */
            if (env_index_set) choices[0].has_index = 0;
            count = 1;
        }
    }
    /* where an index from HCL_DEVICE came from, for the message */
    const char *backend_env = getenv("HCL_BACKEND");
    const char *env_what = backend_env && *backend_env ? " (HCL_DEVICE, an index within the HCL_BACKEND backend)"
                                                       : " (HCL_DEVICE, an index within the default backend)";
    char why[HCL_REASON_MAX * 2] = "";
    int all_unavailable = 1, out_of_memory = 0;
    for (uint32_t i = 0; i < count; i++) {
        hcl__backend *b = hcl__backend_load(choices[i].backend);
        size_t used = strlen(why);
        if (!b->available && b->retry) { /* for want of host memory: the backend may well have the device */
            out_of_memory = 1;
            snprintf(why + used, sizeof why - used,
                     "%sout of host memory starting %s (the next call tries again): %.*s", used ? "; " : "", b->name,
                     (int)(sizeof why - used > 96 ? sizeof why - used - 96 : 0), b->reason);
            continue;
        }
        if (!b->available) {
            snprintf(why + used, sizeof why - used, "%s%s is unavailable: %.*s", used ? "; " : "", b->name,
                     (int)(sizeof why - used > 64 ? sizeof why - used - 64 : 0), b->reason);
            continue;
        }
        all_unavailable = 0;
        hcl_device_type type;
        uint32_t index = choices[i].has_index ? choices[i].index : env_index_set ? env_index : bare_device(b, &type);
        if (index >= b->device_count) {
            snprintf(why + used, sizeof why - used, "%s%s has %u device(s), no device %u%s", used ? "; " : "", b->name,
                     b->device_count, index, !choices[i].has_index && env_index_set ? env_what : "");
            continue;
        }
        hcl__log(HCL_LOG_DEBUG, "select", "selected %s:%u", b->name, index);
        *out_backend = b;
        *out_index = index;
        return HCL_SUCCESS;
    }
    /* Out of memory is the answer when a backend that was asked for could not start for want of it; the list of
     * available backends is left out: listing would load backends again, which may then start and contradict the
     * reason (and would take more memory). */
    if (out_of_memory) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "hcl_device_open: %s", why);
    char available[512];
    list_available(available, sizeof available);
    /* the list of what is available must survive the message's 4 KiB: the reasons give way */
    const int room = 3800 - (int)strlen(available);
    return hcl__set_message(all_unavailable ? HCL_ERROR_BACKEND_UNAVAILABLE : HCL_ERROR_DEVICE_NOT_FOUND,
                            "hcl_device_open: %.*s%s", room > 0 ? room : 0, why, available);
}
