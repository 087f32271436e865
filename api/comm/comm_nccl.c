/* The nccl and rccl engines (comm_engine.h): NVIDIA's NCCL for cuda devices, and AMD's RCCL, which has NCCL's API
 * over HIP, for hip devices. One source: two engines share one set of functions, each over its library handle (the
 * engine's lib); the core never includes a vendor header, so the part of nccl.h we use is declared by hand in
 * comm_nccl_api.h.
 *
 * The device: NCCL takes the CUDA runtime's current device at ncclCommInitRank and launches on the streams it is
 * given. The cuda driver works in each device's primary context, which is what the runtime uses, so making that
 * context current (cuCtxPushCurrent, from libcuda opened here) makes the HCL device NCCL's; RCCL takes
 * hipSetDevice. Device memory and streams are the driver's native objects (get_native), handed over as they are.
 *
 * Timeouts: a blocking NCCL call cannot be abandoned, so a communicator that must never hang is nonblocking
 * (ncclConfig_t.blocking = 0): init and every launch run on a thread of NCCL's and return ncclInProgress, and we poll
 * ncclCommGetAsyncError until done, an error, or the communicator's timeout (then ncclCommAbort). NCCL starts a
 * thread per launch of a nonblocking communicator, which costs tens of microseconds per collective, so
 * hcl_comm_create makes nonblocking ones (a rank of another process may never come) and hcl_comm_create_all, whose
 * ranks are all here, blocking ones; HCL_NCCL_BLOCKING=0|1 chooses for both (docs/comm-nccl.md). hcl_comm_finish
 * watches the stream (cuStreamQuery) and the communicator's errors either way. */
#define _GNU_SOURCE 1 /* dlinfo and RTLD_DI_LINKMAP, nanosleep, sched_yield under -std=c11 */
#include "comm_engine.h"
#include "comm_nccl_api.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct symbol {
    const char *name;
    size_t offset;
    int optional;
} symbol;
#define NCCL_REQ(ret, name, params) {#name, offsetof(nccl_api, name), 0},
#define NCCL_OPT(ret, name, params) {#name, offsetof(nccl_api, name), 1},
#define CUDA_REQ(ret, name, params) {#name, offsetof(cuda_api, name), 0},
#define CUDA_OPT(ret, name, params) {#name, offsetof(cuda_api, name), 1},
#define HIP_REQ(ret, name, params) {#name, offsetof(hip_api, name), 0},
#define HIP_OPT(ret, name, params) {#name, offsetof(hip_api, name), 1},
static const symbol nccl_symbols[] = {NCCL_SYMBOLS(NCCL_REQ, NCCL_OPT)};
static const symbol cuda_symbols[] = {CUDA_SYMBOLS(CUDA_REQ, CUDA_OPT)};
static const symbol hip_symbols[] = {HIP_SYMBOLS(HIP_REQ, HIP_OPT)};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* One engine's library: NCCL or RCCL, and its GPU runtime. Written once by load (under comm.c's lock), then read. */
typedef struct engine_lib {
    const char *name;    /* "nccl" */
    const char *title;   /* "NCCL" */
    const char *backend; /* the backend it serves */
    const char *env;     /* the variable naming the library file instead */
    const char *const *files;
    size_t file_count;
    int hip;     /* RCCL: hip devices and the HIP runtime */
    int version; /* ncclGetVersion */
    void *handle, *gpu_handle;
    nccl_api f;
    cuda_api cu;
    hip_api hp;
} engine_lib;

static const char *const nccl_files[] = {"libnccl.so.2", "libnccl.so"};
static const char *const rccl_files[] = {"librccl.so.1", "librccl.so", "/opt/rocm/lib/librccl.so.1"};
static engine_lib g_nccl = {"nccl", "NCCL", "cuda", "HCL_NCCL_LIBRARY", nccl_files, COUNT(nccl_files), 0, 0, 0, 0,
                            {0},    {0},    {0}};
static engine_lib g_rccl = {"rccl", "RCCL", "hip", "HCL_RCCL_LIBRARY", rccl_files, COUNT(rccl_files), 1, 0, 0, 0,
                            {0},    {0},    {0}};

/* A communicator's engine state. */
typedef struct nccl_state {
    engine_lib *lib;
    nccl_comm comm;
    int blocking; /* made with blocking = 1 (or without a config) */
    int ordinal;  /* the CUDA / HIP device number, for messages */
    int aborted;  /* ncclCommAbort was called: comm is gone */
} nccl_state;

/* ---- loading ---- */

/* Resolve `symbols` from `handle` into `table`; the name of a missing required one, or NULL. */
static const char *resolve(void *handle, const symbol *symbols, size_t count, void *table) {
    for (size_t i = 0; i < count; i++) {
        void *p = dlsym(handle, symbols[i].name);
        if (!p && !symbols[i].optional) return symbols[i].name;
        memcpy((char *)table + symbols[i].offset, &p, sizeof p); /* dlsym's object pointer as a function pointer */
    }
    return NULL;
}

/* "2.28.3" from NCCL_VERSION_CODE (major * 1000 + minor * 100 + patch up to 2.8, major * 10000 + ... after). */
static void version_text(int code, char *buf, size_t size) {
    if (code < 10000)
        snprintf(buf, size, "%d.%d.%d", code / 1000, code % 1000 / 100, code % 100);
    else
        snprintf(buf, size, "%d.%d.%d", code / 10000, code % 10000 / 100, code % 100);
}

/* Open the GPU runtime `what` that L's library needs (`env` names its file instead of `files`) and resolve `symbols`
 * into `table`; on failure `reason` says why. */
static hcl_status open_gpu_runtime(engine_lib *L, const char *opened, const char *what, const char *env,
                                   const char *const *files, size_t file_count, const symbol *symbols,
                                   size_t symbol_count, void *table, char *reason, size_t size) {
    snprintf(reason, size, "%s opened, but not the %s that it needs: ", opened, what);
    if (!(L->gpu_handle = hcl__driver_host()->open_library(L->name, env, files, file_count, reason, size)))
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    reason[0] = '\0';
    const char *missing = resolve(L->gpu_handle, symbols, symbol_count, table);
    if (!missing) return HCL_SUCCESS;
    snprintf(reason, size, "the %s lacks %s", what, missing);
    return HCL_ERROR_BACKEND_UNAVAILABLE;
}

static hcl_status load_gpu_runtime(engine_lib *L, const char *opened, char *reason, size_t size) {
    if (!L->hip) { /* NCCL links the CUDA runtime statically and opens libcuda itself: open the one the driver uses */
        static const char *const cuda_files[] = {"libcuda.so.1", "libcuda.so"};
        return open_gpu_runtime(L, opened, "CUDA driver library", "HCL_CUDA_LIBRARY", cuda_files, COUNT(cuda_files),
                                cuda_symbols, COUNT(cuda_symbols), &L->cu, reason, size);
    }
    /* RCCL needs libamdhip64: dlsym on RCCL's handle finds it among RCCL's dependencies, the runtime RCCL runs on */
    if (!resolve(L->handle, hip_symbols, COUNT(hip_symbols), &L->hp)) return HCL_SUCCESS;
    static const char *const hip_files[] = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5",
                                            "libamdhip64.so"};
    return open_gpu_runtime(L, opened, "HIP runtime", "HCL_HIP_LIBRARY", hip_files, COUNT(hip_files), hip_symbols,
                            COUNT(hip_symbols), &L->hp, reason, size);
}

static hcl_status load(const hcl__comm_engine *self, hcl_comm_engine_info *info) {
    engine_lib *L = self->lib;
    const hcl_driver_host *host = hcl__driver_host();
    const char *missing;
    hcl_status st = HCL_ERROR_BACKEND_UNAVAILABLE;
    if (!(L->handle = host->open_library(L->name, L->env, L->files, L->file_count, info->reason, sizeof info->reason)))
        return st;
    struct link_map *lm = NULL; /* which file it is, for hcl-info */
    if (dlinfo(L->handle, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
        snprintf(info->library, sizeof info->library, "%s", lm->l_name);
    else
        snprintf(info->library, sizeof info->library, "%s", L->files[0]);
    if ((missing = resolve(L->handle, nccl_symbols, COUNT(nccl_symbols), &L->f))) {
        snprintf(info->reason, sizeof info->reason, "%s lacks %s (HCL needs %s 2.7 or later)", info->library, missing,
                 L->title);
        goto cleanup;
    }
    if ((st = load_gpu_runtime(L, info->library, info->reason, sizeof info->reason)) != HCL_SUCCESS) goto cleanup;
    nccl_result r = L->f.ncclGetVersion(&L->version);
    if (r != NCCL_SUCCESS) {
        snprintf(info->reason, sizeof info->reason, "%s: ncclGetVersion: %s (%d)", info->library,
                 L->f.ncclGetErrorString(r), r);
        st = HCL_ERROR_BACKEND_UNAVAILABLE;
        goto cleanup;
    }
    char v[32];
    version_text(L->version, v, sizeof v);
    snprintf(info->version, sizeof info->version, "%s %s%s", L->title, v,
             L->f.ncclCommInitRankConfig ? ""
                                         : " (no ncclCommInitRankConfig: blocking communicators, no join timeout)");
    return HCL_SUCCESS;
cleanup:
    info->library[0] = '\0';
    if (L->gpu_handle) dlclose(L->gpu_handle);
    dlclose(L->handle);
    L->handle = L->gpu_handle = NULL;
    return st;
}

static hcl_status serves(const hcl__comm_engine *self, const hcl__device *dev) {
    const engine_lib *L = self->lib;
    if (strcmp(dev->backend->name, L->backend) != 0)
        return hcl__set_message(HCL_ERROR_UNSUPPORTED,
                                "engine %s serves %s devices only; device %u '%s' is a %s device", L->name, L->backend,
                                dev->index, dev->info.name, dev->backend->name);
    if (!HCL_DRIVER_HAS(dev->drv, get_native))
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "engine %s: the %s driver exposes no native objects", L->name,
                                dev->backend->name);
    return HCL_SUCCESS;
}

/* ---- the device current for the calling thread ---- */

typedef struct gpu_scope {
    int pushed;   /* CUDA: our context was pushed */
    int previous; /* HIP: the device to set back, or -1 */
} gpu_scope;

static const char *gpu_error_name(const engine_lib *L, int r) {
    const char *name = NULL;
    if (L->hip) return L->hp.hipGetErrorName ? L->hp.hipGetErrorName(r) : "hipError";
    if (!L->cu.cuGetErrorName || L->cu.cuGetErrorName(r, &name) != 0 || !name) name = "CUresult";
    return name;
}

static hcl_status gpu_fail(const engine_lib *L, const char *call, int r, const hcl__device *dev) {
    return hcl__set_message(HCL_ERROR_VENDOR, "%s: %s (%d) on %s device %u '%s'", call, gpu_error_name(L, r), r,
                            dev->backend->name, dev->index, dev->info.name);
}

/* Make dev the device of this thread's NCCL calls (CUDA: push its primary context unless current; HIP: set it) and
 * give its device number. leave() restores what the caller had. */
static hcl_status enter(const engine_lib *L, const hcl__device *dev, gpu_scope *scope, int *out_ordinal) {
    scope->pushed = 0;
    scope->previous = -1;
    void *native = NULL;
    hcl_status st = dev->drv->get_native(HCL_NATIVE_DEVICE, dev->native, &native);
    if (st != HCL_SUCCESS) return st;
    int r, current = -1;
    if (L->hip) { /* the device's native object is its hipDevice_t, an int */
        const int ordinal = *(const int *)native;
        if (out_ordinal) *out_ordinal = ordinal;
        if (L->hp.hipGetDevice(&current) == 0 && current == ordinal) return HCL_SUCCESS;
        if ((r = L->hp.hipSetDevice(ordinal)) != 0) return gpu_fail(L, "hipSetDevice", r, dev);
        scope->previous = current;
        return HCL_SUCCESS;
    }
    void *ctx = NULL;
    if (L->cu.cuCtxGetCurrent(&ctx) != 0 || ctx != native) {
        if ((r = L->cu.cuCtxPushCurrent_v2(native)) != 0) return gpu_fail(L, "cuCtxPushCurrent", r, dev);
        scope->pushed = 1;
    }
    if (out_ordinal && (r = L->cu.cuCtxGetDevice(out_ordinal)) != 0) {
        st = gpu_fail(L, "cuCtxGetDevice", r, dev);
        void *popped;
        if (scope->pushed) L->cu.cuCtxPopCurrent_v2(&popped);
        scope->pushed = 0;
    }
    return st;
}

static void leave(const engine_lib *L, gpu_scope *scope) {
    void *popped;
    if (scope->pushed) L->cu.cuCtxPopCurrent_v2(&popped);
    if (scope->previous >= 0) L->hp.hipSetDevice(scope->previous);
    scope->pushed = 0;
    scope->previous = -1;
}

/* ---- errors and waiting ---- */

static const char *result_name(nccl_result r) {
    static const char *const names[] = {"ncclSuccess",       "ncclUnhandledCudaError", "ncclSystemError",
                                        "ncclInternalError", "ncclInvalidArgument",    "ncclInvalidUsage",
                                        "ncclRemoteError",   "ncclInProgress",         "ncclTimeout"};
    return r >= 0 && (size_t)r < COUNT(names) ? names[r] : "ncclResult";
}

static void abort_comm(nccl_state *s) {
    if (!s->comm || s->aborted) return;
    s->aborted = 1;
    nccl_result r = s->lib->f.ncclCommAbort(s->comm);
    if (r != NCCL_SUCCESS)
        hcl__log(HCL_LOG_WARN, "comm", "%s: ncclCommAbort: %s (%d)", s->lib->name, result_name(r), r);
}

/* A failed NCCL call of rank c: its message (the call, the result's name and text, NCCL's last warning) and status:
 * HCL_ERROR_INVALID_ARGUMENT for an argument or usage NCCL refused, else HCL_ERROR_VENDOR, which aborts the
 * communicator (so that commands waiting on it end) and breaks it. `fatal` makes any result break it (an error the
 * communicator reported asynchronously). */
static hcl_status nccl_fail(hcl__comm *c, const char *call, nccl_result r, int fatal) {
    nccl_state *s = c->state;
    const engine_lib *L = s->lib;
    const char *last = L->f.ncclGetLastError ? L->f.ncclGetLastError(s->comm) : NULL;
    fatal = fatal || !(r == NCCL_INVALID_ARGUMENT || r == NCCL_INVALID_USAGE);
    const hcl_status st = fatal ? HCL_ERROR_VENDOR : HCL_ERROR_INVALID_ARGUMENT;
    hcl__set_message(st, "%s: %s (%d): %s%s%.400s (rank %u of %u, %s device %d)%s", call, result_name(r), r,
                     L->f.ncclGetErrorString(r), last && last[0] ? "; " : "", last ? last : "", c->rank, c->size,
                     c->dev->backend->name, s->ordinal, fatal ? "; the communicator was aborted" : "");
    if (!fatal) return st;
    abort_comm(s);
    return hcl__comm_break(c, st);
}

/* Launches are done in microseconds, a finish's queued collectives in milliseconds, joins in seconds: poll without a
 * pause for the first 100 us (a yield is a system call, and a group of small collectives ends microseconds after its
 * last launch), yield until 20 ms, then sleep, longer after a second. A sleep ends tens of microseconds late (the
 * kernel's timer slack): when a finish began sleeping after 1 ms, 20 all-reduces of 16 MiB (1.6 ms on two H100s) were
 * seen done 40 us late, 2 us a call, and read 0.96-0.98 of NCCL timed with cuStreamSynchronize. */
static void backoff(double waited) {
    if (waited < 100e-6) return;
    if (waited < 0.02) {
        sched_yield();
        return;
    }
    struct timespec t = {0, waited < 1.0 ? 20000 : 1000000};
    nanosleep(&t, NULL);
}

/* Wait until a nonblocking communicator's last call (running on NCCL's thread) is done, watching the timeout; `late`
 * says what did not happen in time. An error it reports is the communicator's own: it aborts and breaks it. */
static hcl_status wait_ready(hcl__comm *c, const char *call, const char *late) {
    nccl_state *s = c->state;
    const double start = hcl__comm_now_s(), limit = atomic_load(&c->timeout);
    nccl_result r = NCCL_IN_PROGRESS;
    for (;;) {
        nccl_result q = s->lib->f.ncclCommGetAsyncError(s->comm, &r);
        if (q != NCCL_SUCCESS) r = q;
        if (r != NCCL_IN_PROGRESS) break;
        const double waited = hcl__comm_now_s() - start;
        if (waited > limit) {
            hcl__set_message(HCL_ERROR_TIMEOUT,
                             "%s: rank %u of %u: %s within %g s (still ncclInProgress); the "
                             "communicator was aborted",
                             call, c->rank, c->size, late, limit);
            abort_comm(s);
            return hcl__comm_break(c, HCL_ERROR_TIMEOUT);
        }
        backoff(waited);
    }
    return r == NCCL_SUCCESS ? HCL_SUCCESS : nccl_fail(c, call, r, 1);
}

/* A blocking communicator: an error found since the last call (a rank gone, a network failure) shows here. */
static hcl_status check_async(hcl__comm *c) {
    nccl_state *s = c->state;
    nccl_result a = NCCL_SUCCESS, q = s->lib->f.ncclCommGetAsyncError(s->comm, &a);
    if (q != NCCL_SUCCESS) a = q;
    return a == NCCL_SUCCESS || a == NCCL_IN_PROGRESS ? HCL_SUCCESS : nccl_fail(c, "ncclCommGetAsyncError", a, 1);
}

/* After a call that NCCL took: a nonblocking communicator runs it on NCCL's thread (ncclInProgress; NCCL_COMM_BLOCKING
 * in the environment may make either kind the other), so wait for it; a blocking one reports an earlier error. */
static hcl_status settle(hcl__comm *c, const char *call, nccl_result r, const char *late) {
    const nccl_state *s = c->state;
    return r == NCCL_IN_PROGRESS || !s->blocking ? wait_ready(c, call, late) : check_async(c);
}

/* Blocking or not: HCL_NCCL_BLOCKING=0|1, else the form's default. */
static int blocking_mode(int fallback) {
    const char *env = getenv("HCL_NCCL_BLOCKING");
    if (!env || !env[0]) return fallback;
    if ((env[0] == '0' || env[0] == '1') && !env[1]) return env[0] == '1';
    hcl__log(HCL_LOG_WARN, "comm", "HCL_NCCL_BLOCKING='%.20s' is not 0 or 1: ignored", env);
    return fallback;
}

/* ---- communicators ---- */

/* Give rank c its state and learn its device number (the device must be usable before any rank's init starts: a
 * rank missing from a group's inits would leave the others waiting for it). Sets c->state. */
static hcl_status init_prepare(engine_lib *L, hcl__comm *c, int blocking) {
    if (c->size > INT_MAX)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: %u ranks (NCCL counts ranks in an int)", L->name,
                                c->size);
    nccl_state *s = calloc(1, sizeof *s);
    if (!s) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%s: out of host memory", L->name);
    s->lib = L;
    s->blocking = blocking;
    s->ordinal = -1;
    c->state = s;
    gpu_scope scope;
    hcl_status st = enter(L, c->dev, &scope, &s->ordinal);
    if (st == HCL_SUCCESS) leave(L, &scope);
    return st;
}

/* Rank c's ncclCommInitRank[Config] on its device (inside a group, NCCL only records it). */
static hcl_status init_call(hcl__comm *c, const nccl_unique_id *id, nccl_result *out_r, const char **out_call) {
    nccl_state *s = c->state;
    const engine_lib *L = s->lib;
    *out_call = s->blocking ? "ncclCommInitRank" : "ncclCommInitRankConfig";
    gpu_scope scope;
    hcl_status st = enter(L, c->dev, &scope, NULL);
    if (st != HCL_SUCCESS) return st;
    if (s->blocking) {
        *out_r = L->f.ncclCommInitRank(&s->comm, (int)c->size, *id, (int)c->rank);
    } else {
        nccl_config config = {sizeof config, NCCL_CONFIG_MAGIC, NCCL_CONFIG_VERSION, 0, NCCL_CONFIG_UNDEF_INT};
        *out_r = L->f.ncclCommInitRankConfig(&s->comm, (int)c->size, *id, (int)c->rank, &config);
    }
    leave(L, &scope);
    return HCL_SUCCESS;
}

/* Undo a failed create: abort what NCCL made, free the state. */
static void init_undo(hcl__comm *c) {
    nccl_state *s = c->state;
    if (!s) return;
    abort_comm(s);
    free(s);
    c->state = NULL;
}

static hcl_status create(hcl__comm *c, const unsigned char *id) {
    engine_lib *L = c->engine->lib;
    nccl_unique_id uid;
    memcpy(&uid, id, sizeof uid);
    int blocking = blocking_mode(0);
    if (!blocking && !L->f.ncclCommInitRankConfig) {
        hcl__log(HCL_LOG_INFO, "comm", "%s lacks ncclCommInitRankConfig: rank %u joins blocking, without a timeout",
                 L->name, c->rank);
        blocking = 1;
    }
    nccl_result r = NCCL_SUCCESS;
    const char *call = "";
    hcl_status st = init_prepare(L, c, blocking);
    if (st == HCL_SUCCESS) st = init_call(c, &uid, &r, &call);
    if (st == HCL_SUCCESS) {
        if (r != NCCL_SUCCESS && r != NCCL_IN_PROGRESS)
            st = nccl_fail(c, call, r, 0);
        else
            st = settle(c, call, r, "not every rank joined");
    }
    if (st != HCL_SUCCESS) init_undo(c);
    return st;
}

/* Every rank in this process: one id, each rank's init on its own device inside one group. */
static hcl_status create_all(uint32_t count, hcl__comm *const *comms) {
    engine_lib *L = comms[0]->engine->lib;
    const int blocking = blocking_mode(1) || !L->f.ncclCommInitRankConfig;
    hcl_status st = HCL_SUCCESS;
    for (uint32_t i = 0; i < count && st == HCL_SUCCESS; i++) st = init_prepare(L, comms[i], blocking);
    nccl_unique_id uid;
    nccl_result r = NCCL_SUCCESS;
    const char *call = "ncclGetUniqueId";
    uint32_t failed = 0; /* the rank whose call failed */
    if (st == HCL_SUCCESS) r = L->f.ncclGetUniqueId(&uid);
    if (st == HCL_SUCCESS && r == NCCL_SUCCESS) {
        call = "ncclGroupStart";
        if ((r = L->f.ncclGroupStart()) == NCCL_SUCCESS) {
            for (uint32_t i = 0; i < count && st == HCL_SUCCESS && (r == NCCL_SUCCESS || r == NCCL_IN_PROGRESS); i++) {
                st = init_call(comms[i], &uid, &r, &call);
                failed = i;
            }
            const nccl_result end = L->f.ncclGroupEnd(); /* always: the group must close */
            if (st == HCL_SUCCESS && (r == NCCL_SUCCESS || r == NCCL_IN_PROGRESS)) {
                r = end;
                call = "ncclGroupEnd";
                failed = 0;
            }
        }
    }
    if (st == HCL_SUCCESS && r != NCCL_SUCCESS && r != NCCL_IN_PROGRESS) st = nccl_fail(comms[failed], call, r, 0);
    for (uint32_t i = 0; i < count && st == HCL_SUCCESS; i++)
        st = settle(comms[i], call, r, "the ranks of this process did not join");
    if (st != HCL_SUCCESS)
        for (uint32_t i = 0; i < count; i++) init_undo(comms[i]);
    return st;
}

/* Destroy when healthy; abort when broken or in error (ncclCommDestroy would refuse it and keep its resources). */
static void destroy(hcl__comm *c) {
    nccl_state *s = c->state;
    if (!s) return;
    if (s->comm && !s->aborted) {
        const engine_lib *L = s->lib;
        gpu_scope scope;
        const int entered = enter(L, c->dev, &scope, NULL) == HCL_SUCCESS;
        nccl_result a = NCCL_SUCCESS;
        if (L->f.ncclCommGetAsyncError(s->comm, &a) != NCCL_SUCCESS || a != NCCL_SUCCESS || atomic_load(&c->broken)) {
            abort_comm(s);
        } else {
            nccl_result r = L->f.ncclCommDestroy(s->comm);
            if (r != NCCL_SUCCESS) /* its resources may be half freed: leaking them beats freeing them twice */
                hcl__log(HCL_LOG_WARN, "comm", "%s: ncclCommDestroy of rank %u of %u: %s (%d)", L->name, c->rank,
                         c->size, result_name(r), r);
        }
        if (entered) leave(L, &scope);
    }
    free(s);
    c->state = NULL;
}

/* ---- groups: this thread's (comm.c keeps them) holds the communicators it used, to wait for them at its end ---- */

static hcl_status group_add(hcl__comm_group *g, hcl__comm *c) {
    hcl__comm **comms = g->items;
    for (size_t i = 0; i < g->count; i++)
        if (comms[i] == c) return HCL_SUCCESS;
    hcl_status st = hcl__comm_group_room(g, sizeof c);
    if (st != HCL_SUCCESS) return g->failed = st;
    ((hcl__comm **)g->items)[g->count++] = c;
    return HCL_SUCCESS;
}

/* NCCL's group starts with the first collective that HCL's group records (g->started): NCCL 2.28 leaks an empty
 * group's job. */
static hcl_status group_join(const engine_lib *L, hcl__comm_group *g) {
    if (g->started) return HCL_SUCCESS;
    nccl_result r = L->f.ncclGroupStart();
    if (r != NCCL_SUCCESS)
        return hcl__set_message(HCL_ERROR_VENDOR, "ncclGroupStart: %s (%d): %s", result_name(r), r,
                                L->f.ncclGetErrorString(r));
    g->started = 1;
    return HCL_SUCCESS;
}

static hcl_status group_end(const hcl__comm_engine *self, hcl__comm_group *g) {
    const engine_lib *L = self->lib;
    hcl__comm *const *comms = g->items;
    if (!g->started) return HCL_SUCCESS; /* nothing was recorded */
    gpu_scope scope; /* NCCL ends a group back on the device current at its start: let that be one of ours */
    const int entered = g->count && enter(L, comms[0]->dev, &scope, NULL) == HCL_SUCCESS;
    nccl_result r = L->f.ncclGroupEnd();
    if (entered) leave(L, &scope);
    hcl_status first = g->failed;
    if (first != HCL_SUCCESS)
        hcl__set_message(first, "ncclGroupEnd: a collective of the group could not be recorded (out of host memory)");
    for (size_t i = 0; i < g->count; i++) {
        hcl__comm *c = comms[i];
        hcl_status st;
        if (r != NCCL_SUCCESS && r != NCCL_IN_PROGRESS)
            st = nccl_fail(c, "ncclGroupEnd", r, 0); /* every communicator of the group had its part in it */
        else if (r == NCCL_SUCCESS && ((const nccl_state *)c->state)->blocking)
            st = HCL_SUCCESS; /* launched; an asynchronous error shows at hcl_comm_finish, which polls for it (asking
                                 each communicator here cost two NCCL calls a group on the time of small ones) */
        else
            st = settle(c, "ncclGroupEnd", r, "the group's launch did not finish");
        if (first == HCL_SUCCESS) first = st;
    }
    if (first == HCL_SUCCESS && r != NCCL_SUCCESS && r != NCCL_IN_PROGRESS)
        first = hcl__set_message(r == NCCL_INVALID_ARGUMENT || r == NCCL_INVALID_USAGE ? HCL_ERROR_INVALID_ARGUMENT
                                                                                       : HCL_ERROR_VENDOR,
                                 "ncclGroupEnd: %s (%d): %s", result_name(r), r, L->f.ncclGetErrorString(r));
    return first;
}

/* ---- collectives ---- */

static nccl_dtype to_nccl_type(hcl_dtype t) {
    switch (t) {
    case HCL_DTYPE_F16: return NCCL_FLOAT16;
    case HCL_DTYPE_BF16: return NCCL_BFLOAT16;
    case HCL_DTYPE_F32: break;
    }
    return NCCL_FLOAT32;
}

static nccl_op to_nccl_op(hcl_comm_op op) {
    switch (op) {
    case HCL_COMM_PROD: return NCCL_PROD;
    case HCL_COMM_MAX: return NCCL_MAX;
    case HCL_COMM_MIN: return NCCL_MIN;
    case HCL_COMM_SUM: break;
    }
    return NCCL_SUM;
}

/* After a collective's call: inside a group it was only recorded; a nonblocking communicator launches on NCCL's
 * thread, and the core puts the call's event after it, so wait until it is launched. */
static hcl_status after_call(hcl__comm *c, hcl__comm_group *g, const char *call, nccl_result r) {
    if (r != NCCL_SUCCESS && r != NCCL_IN_PROGRESS) return nccl_fail(c, call, r, 0);
    if (g) return group_add(g, c);
    return settle(c, call, r, "the launch did not finish");
}

static hcl_status run(hcl__comm *c, const hcl__coll *op) {
    nccl_state *s = c->state;
    const engine_lib *L = s->lib;
    const hcl_driver_table *d = c->dev->drv;
    void *stream = NULL, *send = NULL, *recv = NULL;
    hcl_status st = d->get_native(HCL_NATIVE_QUEUE, op->q->native, &stream);
    if (st == HCL_SUCCESS && op->send) st = d->get_native(HCL_NATIVE_BUFFER, op->send->native, &send);
    if (st == HCL_SUCCESS && op->recv) st = d->get_native(HCL_NATIVE_BUFFER, op->recv->native, &recv);
    if (st != HCL_SUCCESS) return st;
    if (op->type == HCL_DTYPE_BF16 && !L->hip && L->version < 21000)
        return hcl__set_message(HCL_ERROR_UNSUPPORTED, "NCCL %d has no bf16 (2.10 or later has)", L->version);
    const nccl_dtype t = to_nccl_type(op->type);
    const nccl_op o = to_nccl_op(op->op);
    const int peer = (int)op->root;
    hcl__comm_group *g = hcl__comm_group_of(c->engine);
    if (g && (st = group_join(L, g)) != HCL_SUCCESS) return st;
    /* Inside a group NCCL only records the call; ncclGroupEnd launches it (group_end makes a device of the group
     * current there). Outside one the call launches at once, on the device that must be current. Skipping the push
     * and pop of the context in the group saves three driver calls per rank and collective. */
    gpu_scope scope = {0};
    scope.previous = -1;
    if (!g && (st = enter(L, c->dev, &scope, NULL)) != HCL_SUCCESS) return st;
    const char *call = "?";
    nccl_result r = NCCL_INVALID_USAGE;
    switch (op->kind) {
    case HCL__COLL_ALL_REDUCE:
        call = "ncclAllReduce";
        r = L->f.ncclAllReduce(send, recv, op->count, t, o, s->comm, stream);
        break;
    case HCL__COLL_REDUCE: /* recv is NULL off the root, as NCCL allows */
        call = "ncclReduce";
        r = L->f.ncclReduce(send, recv, op->count, t, o, peer, s->comm, stream);
        break;
    case HCL__COLL_BROADCAST: /* off the root NCCL reads no send buffer: the in-place form */
        call = "ncclBroadcast";
        r = L->f.ncclBroadcast(send ? send : recv, recv, op->count, t, peer, s->comm, stream);
        break;
    case HCL__COLL_ALL_GATHER:
        call = "ncclAllGather";
        r = L->f.ncclAllGather(send, recv, op->count, t, s->comm, stream);
        break;
    case HCL__COLL_REDUCE_SCATTER:
        call = "ncclReduceScatter";
        r = L->f.ncclReduceScatter(send, recv, op->count, t, o, s->comm, stream);
        break;
    case HCL__COLL_SEND:
        call = "ncclSend";
        r = L->f.ncclSend(send, op->count, t, peer, s->comm, stream);
        break;
    case HCL__COLL_RECV:
        call = "ncclRecv";
        r = L->f.ncclRecv(recv, op->count, t, peer, s->comm, stream);
        break;
    }
    leave(L, &scope);
    return after_call(c, g, call, r);
}

/* hcl_comm_finish: poll the stream, and the communicator for errors, until the stream is idle or the timeout. A stream
 * that the query found done without error is finished (the CUDA and HIP drivers' finish is a synchronize of the
 * stream alone, which cost a further driver call per rank); one that failed goes to the driver's finish, which
 * reports it as hcl_queue_finish does. */
static hcl_status finish(hcl__comm *c, hcl__queue *q) {
    nccl_state *s = c->state;
    const engine_lib *L = s->lib;
    void *stream = NULL;
    hcl_status st = c->dev->drv->get_native(HCL_NATIVE_QUEUE, q->native, &stream);
    gpu_scope scope;
    if (st != HCL_SUCCESS || (st = enter(L, c->dev, &scope, NULL)) != HCL_SUCCESS) return st;
    const double start = hcl__comm_now_s(), limit = atomic_load(&c->timeout);
    int qr;
    for (;;) {
        qr = L->hip ? L->hp.hipStreamQuery(stream) : L->cu.cuStreamQuery(stream);
        if (qr != GPU_NOT_READY) break; /* idle (0), or failed: the driver's finish says how */
        if ((st = check_async(c)) != HCL_SUCCESS) break;
        const double waited = hcl__comm_now_s() - start;
        if (waited > limit) {
            hcl__set_message(HCL_ERROR_TIMEOUT,
                             "rank %u of %u: the queue did not finish within %g s (a rank stopped "
                             "answering?); the communicator was aborted",
                             c->rank, c->size, limit);
            abort_comm(s);
            st = hcl__comm_break(c, HCL_ERROR_TIMEOUT);
            break;
        }
        backoff(waited);
    }
    leave(L, &scope);
    if (st != HCL_SUCCESS) return st;
    if (qr != 0 && (st = q->dev->drv->queue_finish(q->native)) != HCL_SUCCESS) return st;
    if (hcl__trace_on()) hcl__trace_queue_idle(q);
    return st;
}

static hcl_status get_id(const hcl__comm_engine *self, hcl__device *dev, unsigned char *out_id) {
    const engine_lib *L = self->lib;
    nccl_unique_id uid;
    gpu_scope scope;
    hcl_status st = enter(L, dev, &scope, NULL);
    if (st != HCL_SUCCESS) return st;
    nccl_result r = L->f.ncclGetUniqueId(&uid);
    leave(L, &scope);
    if (r != NCCL_SUCCESS)
        return hcl__set_message(HCL_ERROR_VENDOR, "ncclGetUniqueId: %s (%d): %s", result_name(r), r,
                                L->f.ncclGetErrorString(r));
    memcpy(out_id, &uid, sizeof uid);
    return HCL_SUCCESS;
}

_Static_assert(sizeof(nccl_unique_id) == HCL_COMM_ID_BYTES, "an hcl_comm_id holds an ncclUniqueId");

static const hcl__comm_engine_ops ops = {.load = load,
                                         .serves = serves,
                                         .get_id = get_id,
                                         .create = create,
                                         .create_all = create_all,
                                         .destroy = destroy,
                                         .run = run,
                                         .group_end = group_end,
                                         .finish = finish};
const hcl__comm_engine hcl__comm_nccl = {.name = "nccl", .backends = "cuda", .has_id = 1, .lib = &g_nccl, .ops = &ops};
const hcl__comm_engine hcl__comm_rccl = {.name = "rccl", .backends = "hip", .has_id = 1, .lib = &g_rccl, .ops = &ops};
