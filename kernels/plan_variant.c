/* Kernel variants (hcl_plan.h, hcl_variants.def): the table, their override values (parsed by choice.c), and the
 * refusals the plans write when a forced variant cannot run a call. */
#include "hcl_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const hcl_kvariant_info g_variants[HCL_KVARIANT_COUNT] = {
    [HCL_KVARIANT_AUTO] = {HCL_KOP_COUNT, "auto", 0, "the plan chooses"},
#define HCL_KVARIANT(op, id, nm, fams, text) [HCL_KVARIANT_##op##_##id] = {HCL_KOP_##op, nm, fams, text},
#include "hcl_variants.def"
#undef HCL_KVARIANT
};

/* What each family's kernels are called in messages. */
static const char *const g_family_sources[HCL_KFAMILY_COUNT] = {
    [HCL_KFAMILY_GPU] = "the CUDA/HIP kernels (kernels/<op>/<op>.cu)",
    [HCL_KFAMILY_CL] = "the OpenCL C kernels (kernels/<op>/<op>.cl)",
    [HCL_KFAMILY_HOST] = "the host C kernels (kernels/<op>/<op>.c)",
    [HCL_KFAMILY_VK] = "the Vulkan compute shaders (kernels/<op>/<op>.comp)",
};

const hcl_kvariant_info *hcl_kvariant_get(hcl_kvariant v) {
    return v > HCL_KVARIANT_AUTO && v < HCL_KVARIANT_COUNT ? &g_variants[v] : NULL;
}

/* The ops (hcl_ops.def): their override variable and their name in messages. */
static const struct {
    const char *env, *name;
} g_ops[HCL_KOP_COUNT] = {
#define HCL_KOP(id, nm) [HCL_KOP_##id] = {"HCL_" #id "_VARIANT", #nm},
#include "hcl_ops.def"
#undef HCL_KOP
};

const char *hcl_kop_name(hcl_kop op) { return (unsigned)op < HCL_KOP_COUNT ? g_ops[op].name : "?"; }

/* Op's variants in table order: their names into names[] and their ids into ids[]; returns how many. Only those of
 * the families in `families` (HCL_KVF_*). */
static size_t op_variants(hcl_kop op, uint32_t families, const char **names, hcl_kvariant *ids) {
    size_t n = 0;
    for (int v = HCL_KVARIANT_AUTO + 1; v < HCL_KVARIANT_COUNT; v++)
        if (g_variants[v].op == op && (g_variants[v].families & families)) {
            names[n] = g_variants[v].name;
            ids[n++] = (hcl_kvariant)v;
        }
    return n;
}

const char *hcl_kvariant_env(hcl_kop op) {
    const char *names[HCL_KVARIANT_COUNT];
    hcl_kvariant ids[HCL_KVARIANT_COUNT];
    return (unsigned)op < HCL_KOP_COUNT && op_variants(op, ~0u, names, ids) ? g_ops[op].env : NULL;
}

hcl_status hcl_kvariant_parse(hcl_kop op, const char *text, hcl_kvariant *out, char *why, size_t why_size) {
    const char *names[HCL_KVARIANT_COUNT];
    hcl_kvariant ids[HCL_KVARIANT_COUNT];
    const size_t n = op_variants(op, ~0u, names, ids);
    char known[512];
    const int i = hcl_kchoice_parse(text, names, n, known, sizeof known);
    *out = i >= 0 ? ids[i] : HCL_KVARIANT_AUTO;
    if (i != -2) return HCL_SUCCESS;
    const char *env = hcl_kvariant_env(op);
    snprintf(why, why_size, "%s=\"%s\": no %s variant is called that; known: %s", env ? env : "?", text,
             env ? g_ops[op].name : "?", known);
    return HCL_ERROR_INVALID_ARGUMENT;
}

/* plan->why = "<VAR>=<name> cannot run this call: " + the formatted text. */
static hcl_status vrefuse(hcl_kplan *plan, const hcl_kdevice *dev, hcl_kop op, const char *fmt, va_list ap) {
    char text[sizeof plan->why];
    vsnprintf(text, sizeof text, fmt, ap);
    const hcl_kvariant_info *info = hcl_kvariant_get(dev->variant[op]);
    return hcl_kplan_fail(plan, HCL_ERROR_UNSUPPORTED, "%s=%s cannot run this call: %s", hcl_kvariant_env(op),
                          info ? info->name : "?", text);
}

hcl_status hcl_kvariant_refuse(hcl_kplan *plan, const hcl_kdevice *dev, hcl_kop op, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    hcl_status st = vrefuse(plan, dev, op, fmt, ap);
    va_end(ap);
    return st;
}

hcl_status hcl_kvariant_check_family(const hcl_kdevice *dev, hcl_kop op, hcl_kplan *plan) {
    const hcl_kvariant_info *info = hcl_kvariant_get(dev->variant[op]);
    const uint32_t family = 1u << dev->family;
    if (!info || (info->families & family)) return HCL_SUCCESS;
    const char *names[HCL_KVARIANT_COUNT];
    hcl_kvariant ids[HCL_KVARIANT_COUNT];
    const size_t n = op_variants(op, family, names, ids);
    char list[256] = "";
    for (size_t i = 0, used = 0; i < n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
    const char *source = (unsigned)dev->family < HCL_KFAMILY_COUNT ? g_family_sources[dev->family] : "?";
    return hcl_kvariant_refuse(plan, dev, op, "this device runs %s, which have %s%s", source,
                               n ? "the variants " : "one kernel per type, no variants", list);
}

hcl_status hcl_kvariant_settle(const hcl_kdevice *dev, hcl_kop op, hcl_kvariant v, hcl_status st, hcl_kplan *plan) {
    if (st != HCL_ERROR_UNSUPPORTED || dev->variant[op] != v) return st;
    char why[sizeof plan->why];
    memcpy(why, plan->why, sizeof why);
    return hcl_kvariant_refuse(plan, dev, op, "%s", why[0] ? why : "the plan declines it");
}

hcl_status hcl_kplan_begin(const hcl_kdevice *dev, hcl_kop op, hcl_kplan *plan) {
    const hcl_status st = hcl_kplan_init(plan, 1);
    return st == HCL_SUCCESS ? hcl_kvariant_check_family(dev, op, plan) : st;
}
