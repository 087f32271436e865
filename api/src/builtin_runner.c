/* The built-in kernels as ordinary launches. Per device: the family of sources its driver takes (learned on the
 * first built-in call by building the programs the catalogue offers, family by family), the programs built on
 * first use and their kernels. Per call: the op's plan (kernels/<op>/plan.c) for the device's limits, the queue's
 * scratch memory, then the plan's launches through the driver's kernel_launch, as a user kernel would be launched.
 * Drivers know nothing of the built-in ops. */
#include "core.h"
#include "hcl_plan.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hcl__builtin_kernel {
    void *native;
    uint64_t max_group;  /* from the driver's kernel_max_group; 0: unknown */
    int waits_in_device; /* 1: the driver's kernel_wait_in_device said yes; -1: asked, no; 0: not asked */
} hcl__builtin_kernel;

struct hcl__builtins {
    pthread_mutex_t lock;
    int family; /* hcl_kfamily, or -1 before the first built-in call found it */
    int have_limits;
    hcl_driver_limits limits;
    void *modules[HCL_KPROG_COUNT];
    hcl__builtin_kernel kernels[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS];
};

/* What one call's planning learned that the plan's callback cannot return. */
typedef struct runner_ctx {
    hcl__device *dev;
    struct hcl__builtins *b;
    hcl_status failure; /* the first failure of a program build or kernel creation inside the plan */
} runner_ctx;

static struct hcl__builtins *builtins_of(hcl__device *dev) {
    struct hcl__builtins *b = atomic_load(&dev->builtins);
    if (b) return b;
    b = calloc(1, sizeof *b);
    if (!b) return NULL;
    pthread_mutex_init(&b->lock, NULL);
    b->family = -1;
    struct hcl__builtins *expected = NULL;
    if (!atomic_compare_exchange_strong(&dev->builtins, &expected, b)) {
        pthread_mutex_destroy(&b->lock);
        free(b);
        return expected;
    }
    return b;
}

void hcl__builtins_release(hcl__device *dev) {
    struct hcl__builtins *b = atomic_exchange(&dev->builtins, NULL);
    if (!b) return;
    for (int p = 0; p < HCL_KPROG_COUNT; p++) {
        for (int k = 0; k < HCL_KPROG_MAX_KERNELS; k++)
            if (b->kernels[p][k].native) dev->drv->kernel_destroy(b->kernels[p][k].native);
        if (b->modules[p]) dev->drv->module_destroy(b->modules[p]);
    }
    pthread_mutex_destroy(&b->lock);
    free(b);
}

/* HCL_<BACKEND>_BUILTINS set to anything but "" or "binary" (the documented values are HCL_CUDA_BUILTINS=nvrtc and
 * HCL_HIP_BUILTINS=hiprtc): the built-ins are compiled from their text even where a binary was embedded. */
static int skip_binaries(const hcl__device *dev) {
    char name[64] = "HCL_";
    size_t len = 4;
    for (const char *s = dev->backend->name; *s && len < sizeof name - 10; s++)
        name[len++] = isalnum((unsigned char)*s) ? (char)toupper((unsigned char)*s) : '_';
    snprintf(name + len, sizeof name - len, "_BUILTINS");
    const char *v = getenv(name);
    return v && *v && strcmp(v, "binary") != 0;
}

/* The variants forced through HCL_<OP>_VARIANT (hcl_plan.h), read once per process: per op the variant the plans get
 * in hcl_kdevice.variant, or the status and message of a value that names none (every call of that op then fails). */
static struct {
    hcl_kvariant variant[HCL_KOP_COUNT];
    hcl_status status[HCL_KOP_COUNT];
    char why[HCL_KOP_COUNT][768];
    int early_launch_off; /* HCL_EARLY_LAUNCH=0: every kernel waits for the one before it on the queue, as launched */
} g_forced;
static pthread_once_t g_forced_once = PTHREAD_ONCE_INIT;

static void read_forced_variants(void) {
    const char *early = getenv("HCL_EARLY_LAUNCH");
    g_forced.early_launch_off = early && strcmp(early, "0") == 0;
    if (g_forced.early_launch_off)
        hcl__log(HCL_LOG_INFO, "core",
                 "HCL_EARLY_LAUNCH=0: no kernel of a plan is launched before the one before it ends");
    for (int op = 0; op < HCL_KOP_COUNT; op++) {
        const char *env = hcl_kvariant_env((hcl_kop)op), *text = env ? getenv(env) : NULL;
        g_forced.status[op] =
            hcl_kvariant_parse((hcl_kop)op, text, &g_forced.variant[op], g_forced.why[op], sizeof g_forced.why[op]);
        const hcl_kvariant_info *info = hcl_kvariant_get(g_forced.variant[op]);
        if (info)
            hcl__log(HCL_LOG_INFO, "core", "%s=%s: every call takes that variant (%s) or is refused", env, info->name,
                     info->what);
        else if (g_forced.status[op] != HCL_SUCCESS)
            hcl__log(HCL_LOG_WARN, "core", "%s", g_forced.why[op]);
    }
}

static int is_binary_kind(hcl_source_kind kind) {
    return kind == HCL_SOURCE_CUDA_BINARY || kind == HCL_SOURCE_HIP_BINARY;
}

/* Build program `prog` on the device (lock held): its candidate sources one at a time, the first the driver builds
 * wins. HCL_ERROR_UNSUPPORTED when the driver takes none of them; else the first real failure, with every
 * attempt's message. */
static hcl_status build_program(hcl__device *dev, struct hcl__builtins *b, hcl_kprog prog) {
    if (b->modules[prog]) return HCL_SUCCESS;
    const hcl_kprogram *p = hcl_kprogram_get(prog);
    const int skip = skip_binaries(dev);
    hcl_status result = HCL_ERROR_UNSUPPORTED;
    char tried[3072] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < p->num_sources; i++) {
        const hcl_module_source *src = &p->sources[i];
        if (skip && is_binary_kind(src->kind)) continue;
        void *module = NULL;
        hcl_status st = dev->drv->module_create(dev->native, src, 1, &module);
        if (st == HCL_SUCCESS) {
            b->modules[prog] = module;
            hcl__log(HCL_LOG_DEBUG, "core", "%s:%u: built-in program %s from %s (%s)", dev->backend->name, dev->index,
                     p->name, hcl_source_kind_name(src->kind), p->origin);
            return HCL_SUCCESS;
        }
        if (result == HCL_ERROR_UNSUPPORTED) result = st;
        if (used < sizeof tried) {
            int n = snprintf(tried + used, sizeof tried - used, "%s%s: %s", used ? "; " : "",
                             hcl_source_kind_name(src->kind), hcl_last_message());
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return hcl__set_message(result, "built-in program %s (%s) on %s:%u: %s", p->name, p->origin, dev->backend->name,
                            dev->index, used ? tried : "no source in this build");
}

/* The kernel (prog, kernel) of the device, its program built and the kernel created on first use (lock held). */
static hcl_status get_kernel(hcl__device *dev, struct hcl__builtins *b, hcl_kprog prog, int kernel,
                             hcl__builtin_kernel **out) {
    const hcl_kprogram *p = hcl_kprogram_get(prog);
    if (kernel < 0 || (uint32_t)kernel >= p->num_kernels)
        return hcl__set_message(HCL_ERROR_INTERNAL, "built-in program %s has no kernel %d", p->name, kernel);
    hcl__builtin_kernel *k = &b->kernels[prog][kernel];
    if (!k->native) {
        hcl_status st = build_program(dev, b, prog);
        if (st != HCL_SUCCESS) return st;
        st = dev->drv->kernel_create(b->modules[prog], p->kernels[kernel], &k->native);
        if (st != HCL_SUCCESS) {
            k->native = NULL;
            return hcl__set_message(st, "built-in kernel '%s' of program %s: %s", p->kernels[kernel], p->name,
                                    hcl_last_message());
        }
        if (HCL_DRIVER_HAS(dev->drv, kernel_max_group) &&
            dev->drv->kernel_max_group(k->native, &k->max_group) != HCL_SUCCESS)
            k->max_group = 0;
    }
    *out = k;
    return HCL_SUCCESS;
}

/* A kernel a plan asks about, built if it must be; NULL when that failed, the failure kept for after the plan. */
static hcl__builtin_kernel *plan_kernel(const hcl_kdevice *kd, hcl_kprog prog, int kernel) {
    runner_ctx *ctx = kd->ctx;
    hcl__builtin_kernel *k = NULL;
    hcl_status st = get_kernel(ctx->dev, ctx->b, prog, kernel, &k);
    if (st == HCL_SUCCESS) return k;
    if (ctx->failure == HCL_SUCCESS) ctx->failure = st;
    return NULL;
}

/* hcl_kdevice.kernel_max_group: 0 (unknown) where the kernel could not be built. */
static uint64_t kernel_max_group(const hcl_kdevice *kd, hcl_kprog prog, int kernel) {
    const hcl__builtin_kernel *k = plan_kernel(kd, prog, kernel);
    return k ? k->max_group : 0;
}

/* hcl_kdevice.kernel_max_clusters: the driver's answer, 0 where it has none (or failed: the plan then guesses). */
static uint32_t kernel_max_clusters(const hcl_kdevice *kd, hcl_kprog prog, int kernel, uint32_t cluster_blocks,
                                    uint32_t threads, uint64_t shared_bytes) {
    const runner_ctx *ctx = kd->ctx;
    uint32_t count = 0;
    if (!HCL_DRIVER_HAS(ctx->dev->drv, kernel_max_clusters)) return 0;
    const hcl__builtin_kernel *k = plan_kernel(kd, prog, kernel);
    if (!k || ctx->dev->drv->kernel_max_clusters(k->native, cluster_blocks, threads, (size_t)shared_bytes, &count) !=
                  HCL_SUCCESS)
        count = 0;
    return count;
}

static void describe_device(runner_ctx *ctx, hcl_kdevice *kd) {
    hcl__device *dev = ctx->dev;
    struct hcl__builtins *b = ctx->b;
    if (!b->have_limits) {
        memset(&b->limits, 0, sizeof b->limits);
        if (HCL_DRIVER_HAS(dev->drv, device_limits) && dev->drv->device_limits(dev->native, &b->limits) != HCL_SUCCESS)
            memset(&b->limits, 0, sizeof b->limits);
        b->have_limits = 1;
    }
    memset(kd, 0, sizeof *kd);
    kd->family = (hcl_kfamily)(b->family < 0 ? 0 : b->family);
    kd->is_cpu = dev->info.type == HCL_DEVICE_TYPE_CPU;
    kd->compute_units = dev->info.compute_units;
    kd->subgroup_width = b->limits.subgroup_width;
    kd->max_group_size = dev->info.max_work_group_size;
    kd->local_mem = dev->info.local_mem_bytes;
    memcpy(kd->max_groups, b->limits.max_groups, sizeof kd->max_groups);
    unsigned level = 0;
    if (sscanf(dev->info.arch, "sm_%u", &level) == 1) kd->arch_level = level; /* "sm_90", "sm_90a": 90 */
    kd->matrix_unit = dev->info.matrix_unit;
    pthread_once(&g_forced_once, read_forced_variants);
    memcpy(kd->variant, g_forced.variant, sizeof kd->variant);
    kd->matrix_types = dev->info.matrix_types;
    kd->native_types = dev->info.native_types;
    kd->kernel_max_group = kernel_max_group;
    kd->kernel_max_clusters = kernel_max_clusters;
    kd->ctx = ctx;
}

/* The first family whose program for `op` the driver builds (lock held). */
static hcl_status find_family(runner_ctx *ctx, hcl_kdevice *kd, hcl_kop op) {
    if (ctx->b->family >= 0) return HCL_SUCCESS;
    char tried[2048] = "";
    size_t used = 0;
    int unfit = -1;
    for (int f = 0; f < HCL_KFAMILY_COUNT; f++) {
        kd->family = (hcl_kfamily)f;
        hcl_kprog prog = hcl_plan_program(kd, op);
        if (prog == HCL_KPROG_COUNT) { /* nothing of this family fits the device for this op */
            if (unfit < 0) unfit = f;
            continue;
        }
        hcl_status st = build_program(ctx->dev, ctx->b, prog);
        if (st != HCL_ERROR_UNSUPPORTED) {
            if (st == HCL_SUCCESS) ctx->b->family = f;
            return st;
        }
        if (used < sizeof tried) {
            int n = snprintf(tried + used, sizeof tried - used, "%s%s", used ? "; " : "", hcl_last_message());
            used += n > 0 ? (size_t)n : 0;
        }
    }
    if (unfit >= 0) { /* the family whose program did not fit: its plan says why (the family stays unknown) */
        kd->family = (hcl_kfamily)unfit;
        return HCL_SUCCESS;
    }
    return hcl__set_message(HCL_ERROR_UNSUPPORTED, "the %s driver builds none of the built-in kernels' programs: %s",
                            ctx->dev->backend->name, tried);
}

/* The queue's scratch: at least the plan's bytes, the first of them zeroed first when the plan needs zeros and the
 * memory may not hold them. */
static hcl_status prepare_scratch(hcl__queue *q, const hcl_kplan *plan) {
    const hcl_driver_table *drv = q->dev->drv;
    if (plan->scratch_bytes > q->scratch_size) {
        if (q->scratch) { /* earlier commands may still use it */
            hcl_status st = drv->queue_finish(q->native);
            if (st != HCL_SUCCESS) return st;
            drv->buffer_free(q->dev->native, q->scratch);
            q->scratch = NULL;
            q->scratch_size = 0;
        }
        size_t bytes = (plan->scratch_bytes + 255) / 256 * 256;
        hcl_status st = drv->buffer_alloc(q->dev->native, bytes, &q->scratch);
        if (st != HCL_SUCCESS) {
            q->scratch = NULL;
            return st;
        }
        q->scratch_size = bytes;
        q->scratch_zeros = 0;
    }
    /* only the bytes the plan uses: a whole scratch grown by a split-K gemm (up to 256 MiB) filled before every small
     * reduce was a memset of that size, and its dirty lines were written back during the next command */
    const size_t need = (plan->scratch_bytes + 255) / 256 * 256;
    if (plan->scratch_zeroed && q->scratch_zeros < need) {
        static const uint32_t zero = 0;
        hcl_status st = drv->buffer_fill(q->native, q->scratch, 0, need, &zero, sizeof zero, 0, 0, NULL, NULL);
        if (st != HCL_SUCCESS) return st;
        q->scratch_zeros = need;
    }
    /* kernels that need zeros leave their bytes zero; any other use leaves what it leaves */
    if (plan->scratch_bytes && !plan->scratch_zeroed) q->scratch_zeros = 0;
    return HCL_SUCCESS;
}

static hcl_status plan_call(const hcl_kdevice *kd, const hcl__builtin_call *call, hcl_kplan *plan) {
    switch (call->op) {
    case HCL_KOP_VECADD: return hcl_plan_vecadd(kd, call->type, call->n, plan);
    case HCL_KOP_GEMM: return hcl_plan_gemm(kd, &call->gemm, plan);
    case HCL_KOP_SOFTMAX: return hcl_plan_softmax(kd, call->type, call->rows, call->cols, plan);
    case HCL_KOP_REDUCE: return hcl_plan_reduce(kd, call->type, call->reduce_op, call->n, plan);
    default: break;
    }
    return hcl_kplan_fail(plan, HCL_ERROR_INTERNAL, "unknown built-in op %d", (int)call->op);
}

/* Launch the plan's launches in order (lock held). Timed (out_first): a plan of one launch by the launch's own event
 * (*out_first); a plan of several between a marker before its first launch (*out_first) and one after its last
 * (*out_last): two timestamps on the queue, where events on the first and the last launch took four (a pair each), two
 * of them between the kernels and inside the span. */
static hcl_status launch_plan(runner_ctx *ctx, hcl__queue *q, const hcl__builtin_call *call, const hcl_kplan *plan,
                              void **out_first, void **out_last) {
    const hcl_driver_table *drv = q->dev->drv;
    const int bracket = out_first && plan->count > 1;
    if (bracket) {
        hcl_status st = drv->queue_marker(q->native, 0, NULL, out_first);
        if (st != HCL_SUCCESS) return st;
    }
    for (size_t i = 0; i < plan->count; i++) {
        const hcl_klaunch *l = &plan->launch[i];
        hcl__builtin_kernel *k = NULL;
        hcl_status st = get_kernel(ctx->dev, ctx->b, l->prog, l->kernel, &k);
        if (st != HCL_SUCCESS) return st;
        if (l->num_args > HCL_KLAUNCH_MAX_ARGS)
            return hcl__set_message(HCL_ERROR_INTERNAL, "built-in launch %zu asks for more than %d arguments", i,
                                    HCL_KLAUNCH_MAX_ARGS);
        hcl_driver_arg args[HCL_KLAUNCH_MAX_ARGS];
        for (uint32_t a = 0; a < l->num_args; a++) {
            const hcl_kparg *pa = &l->args[a];
            memset(&args[a], 0, sizeof args[a]);
            if (pa->kind == HCL_KPARG_MEM || pa->kind == HCL_KPARG_TENSOR_MAP) {
                args[a].kind = pa->kind == HCL_KPARG_MEM ? HCL_DRIVER_ARG_BUFFER : HCL_DRIVER_ARG_TENSOR_MAP;
                args[a].mem = pa->slot == HCL_KSLOT_SCRATCH ? q->scratch : call->mem[pa->slot];
                args[a].offset = pa->offset;
                if (pa->kind == HCL_KPARG_TENSOR_MAP) args[a].value = pa->value, args[a].size = pa->size;
            } else {
                args[a].kind = HCL_DRIVER_ARG_VALUE;
                args[a].value = pa->value;
                args[a].size = pa->size;
            }
        }
        /* a kernel that waits for the one before it in the device may start before that one ends (once asked, every
         * launch of it does; not under HCL_EARLY_LAUNCH=0); a failure of the driver to allow it fails no call */
        if (l->waits_in_device && i > 0 && k->waits_in_device == 0 && !g_forced.early_launch_off)
            k->waits_in_device =
                HCL_DRIVER_HAS(drv, kernel_wait_in_device) && drv->kernel_wait_in_device(k->native) == HCL_SUCCESS ? 1
                                                                                                                   : -1;
        const int want = out_first && !bracket;
        st = drv->kernel_launch(q->native, k->native, l->grid, l->block, l->shared_bytes, l->num_args, args, 0, NULL,
                                want ? out_first : NULL);
        if (st != HCL_SUCCESS) return st;
    }
    return bracket ? drv->queue_marker(q->native, 0, NULL, out_last) : HCL_SUCCESS;
}

/* The plan of a call on ctx's device (its lock held): the program built, the plan made, or the status with a message. */
static hcl_status plan_locked(runner_ctx *ctx, hcl_kdevice *kd, const hcl__builtin_call *call, hcl_kplan *plan) {
    hcl__device *dev = ctx->dev;
    describe_device(ctx, kd);
    if ((unsigned)call->op < HCL_KOP_COUNT && g_forced.status[call->op] != HCL_SUCCESS)
        return hcl__set_message(g_forced.status[call->op], "%s", g_forced.why[call->op]);
    hcl_status st = find_family(ctx, kd, call->op);
    if (st == HCL_SUCCESS) {
        st = plan_call(kd, call, plan);
        if (st != HCL_SUCCESS && ctx->failure == HCL_SUCCESS)
            hcl__set_message(st, "%s:%u '%s': %s", dev->backend->name, dev->index, dev->info.name, plan->why);
        if (ctx->failure != HCL_SUCCESS)
            st = ctx->failure; /* a program that did not build: its message is the thread's */
    }
    return st;
}

/* hcl__builtin_run on q, or with q NULL hcl__builtin_check on dev: the same plan, launched only for a queue. */
static hcl_status plan_and_launch(const char *fn, hcl__device *dev, hcl__queue *q, const hcl__builtin_call *call,
                                  hcl_event *out_event) {
    struct hcl__builtins *b = builtins_of(dev);
    if (!b) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory for the built-in kernels", fn);
    runner_ctx ctx = {dev, b, HCL_SUCCESS};
    hcl_kdevice kd;
    hcl_kplan plan;
    memset(&plan, 0, sizeof plan);
    plan.launch = plan.inline_launch;
    void *first = NULL, *last = NULL;
    pthread_mutex_lock(&b->lock);
    hcl_status st = plan_locked(&ctx, &kd, call, &plan);
    if (st == HCL_SUCCESS && q) st = prepare_scratch(q, &plan);
    if (st == HCL_SUCCESS && q)
        st = launch_plan(&ctx, q, call, &plan, HCL__WANT_EVENT(out_event) ? &first : NULL, &last);
    pthread_mutex_unlock(&b->lock);
    hcl_kplan_free(&plan);
    if (st != HCL_SUCCESS) {
        if (first) dev->drv->event_release(first);
        if (last) dev->drv->event_release(last);
        return hcl__prefix_message(st, fn);
    }
    if (!q || (!out_event && !first)) return HCL_SUCCESS; /* no event asked for (the caller's or the tracer's) */
    return last ? hcl__wrap_event_span(fn, q, first, last, out_event) : hcl__wrap_event(fn, q, first, out_event);
}

hcl_status hcl__builtin_check(const char *fn, hcl__device *dev, const hcl__builtin_call *call) {
    return plan_and_launch(fn, dev, NULL, call, NULL);
}

hcl_status hcl__builtin_run(const char *fn, hcl__queue *q, const hcl__builtin_call *call, hcl_event *out_event) {
    return plan_and_launch(fn, q->dev, q, call, out_event);
}

void hcl__builtins_queue_release(hcl__queue *q) {
    if (q->scratch) q->dev->drv->buffer_free(q->dev->native, q->scratch);
    q->scratch = NULL;
    q->scratch_size = 0;
}
