/* A stand-in for libamdhip64, for tests only (libhcl-test-fakehip.so, loaded by the HIP driver through
 * HCL_HIP_LIBRARY): every entry point the driver resolves, on host memory, so the driver's HIP-specific host code
 * (driver.c, the HIP name map, the shared code compiled for HIP) runs end to end on a machine without an AMD GPU.
 *
 * It is strict where a real runtime would be and a mistake could hide: every stream, event, allocation and kernel
 * belongs to the device that was current when it was made, and using it while another device is current fails;
 * frees of unknown pointers fail; a kernel is found only when the loaded image holds its descriptor ("<name>.kd"),
 * in the code object of the device's target, as a real runtime picks it from a bundle; a launch of the driver's
 * fill kernel, of the test's own kernel or of a kernel of the core's built-in bundle runs a host version of it on
 * the arguments exactly as passed, so a wrong argument order or width shows as a wrong result (and a missing
 * argument as an out-of-bounds read under ASan). The host versions of the built-in kernels are the core's test
 * support (kernels/test_builtin_hostgpu.c: this folder names no built-in op); they also check that a launch shaped
 * by the device's wavefront width gives each row enough lanes. Two devices: 0 is
 * "gfx90a:sramecc+:xnack-" (wave64, with a UUID), 1 is "gfx1030" (wave32, no UUID). Its device properties come
 * through hipGetDevicePropertiesR0600 (the ROCm 6 layout) unless FAKEHIP_PROPS=r0000, when that fails and the old
 * layout's entry points answer. Device 0 gives its memory clock, bus width and L2 size; device 1 does not (unknown).
 *
 * Not a model of a GPU: commands run at once, in the calling thread; events hold the host time of recording. */
#define _GNU_SOURCE 1
#define __HIP_PLATFORM_AMD__ 1
#include <hip/hip_runtime_api.h>

#include "test_builtins.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define NUM_DEVICES 2

static const struct {
    const char *name, *arch;
    int wave;
    unsigned char uuid[16];
} g_dev[NUM_DEVICES] = {
    {"HCL fake AMD GPU 0", "gfx90a:sramecc+:xnack-", 64, "fakehip-device-0"},
    {"HCL fake AMD GPU 1", "gfx1030", 32, {0}},
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int g_current; /* the thread's current device, 0 until set */
static long g_live;                 /* streams + events + allocations + modules + functions alive */
static long g_wrong_device;         /* uses of an object while another device was current */

EXPORT long fakehip_live_objects(void);
EXPORT long fakehip_live_objects(void) { return g_live; }
EXPORT long fakehip_wrong_device_uses(void);
EXPORT long fakehip_wrong_device_uses(void) { return g_wrong_device; }

static void live(long d) {
    pthread_mutex_lock(&g_lock);
    g_live += d;
    pthread_mutex_unlock(&g_lock);
}

static hipError_t on_device(int dev) {
    if (dev == g_current) return hipSuccess;
    pthread_mutex_lock(&g_lock);
    g_wrong_device++;
    pthread_mutex_unlock(&g_lock);
    return hipErrorInvalidHandle;
}

/* ---- allocations: a header before the block says which device it belongs to ---- */
typedef struct alloc_head {
    uint64_t magic;
    int dev, host;
    size_t size;
    struct alloc_head *next; /* the device allocations, for hipPointerGetAttribute */
    char pad[24];
} alloc_head;
static alloc_head *g_device_allocs;
#define ALLOC_MAGIC 0x6661b3e1c0ffee11ull

static void *alloc(size_t size, int dev, int host) {
    alloc_head *h = aligned_alloc(256, (sizeof(alloc_head) + 255) / 256 * 256 + (size + 255) / 256 * 256);
    if (!h) return NULL;
    h->magic = ALLOC_MAGIC;
    h->dev = dev;
    h->host = host;
    h->size = size;
    h->next = NULL;
    if (!host) {
        pthread_mutex_lock(&g_lock);
        h->next = g_device_allocs;
        g_device_allocs = h;
        pthread_mutex_unlock(&g_lock);
    }
    live(1);
    return (char *)h + (sizeof(alloc_head) + 255) / 256 * 256;
}

static void forget_device_alloc(alloc_head *h) {
    pthread_mutex_lock(&g_lock);
    for (alloc_head **at = &g_device_allocs; *at; at = &(*at)->next)
        if (*at == h) {
            *at = h->next;
            break;
        }
    pthread_mutex_unlock(&g_lock);
}

static alloc_head *head_of(void *p) {
    if (!p) return NULL;
    alloc_head *h = (alloc_head *)((char *)p - (sizeof(alloc_head) + 255) / 256 * 256);
    return h->magic == ALLOC_MAGIC ? h : NULL;
}

/* ---- errors, versions, devices ---- */
EXPORT const char *hipGetErrorName(hipError_t e) {
    switch (e) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorInvalidHandle: return "hipErrorInvalidHandle";
    case hipErrorNotFound: return "hipErrorNotFound";
    case hipErrorNotSupported: return "hipErrorNotSupported";
    case hipErrorInvalidImage: return "hipErrorInvalidImage";
    case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
    case hipErrorPeerAccessAlreadyEnabled: return "hipErrorPeerAccessAlreadyEnabled";
    default: return "hipErrorUnknown";
    }
}
EXPORT const char *hipGetErrorString(hipError_t e) { return hipGetErrorName(e); }
EXPORT hipError_t hipDriverGetVersion(int *v) {
    *v = 60342123;
    return hipSuccess;
}
EXPORT hipError_t hipRuntimeGetVersion(int *v) {
    *v = 60342123;
    return hipSuccess;
}
EXPORT hipError_t hipGetDeviceCount(int *n) {
    *n = NUM_DEVICES;
    return hipSuccess;
}
EXPORT hipError_t hipDeviceGet(hipDevice_t *d, int ordinal) {
    if (ordinal < 0 || ordinal >= NUM_DEVICES) return hipErrorInvalidDevice;
    *d = ordinal;
    return hipSuccess;
}
EXPORT hipError_t hipDeviceGetName(char *name, int len, hipDevice_t d) {
    if (d < 0 || d >= NUM_DEVICES || len <= 0) return hipErrorInvalidValue;
    snprintf(name, (size_t)len, "%s", g_dev[d].name);
    return hipSuccess;
}
EXPORT hipError_t hipDeviceGetUuid(hipUUID *u, hipDevice_t d) {
    if (d < 0 || d >= NUM_DEVICES) return hipErrorInvalidDevice;
    memcpy(u->bytes, g_dev[d].uuid, 16);
    return hipSuccess;
}
EXPORT hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t d) {
    if (d < 0 || d >= NUM_DEVICES) return hipErrorInvalidDevice;
    *bytes = (size_t)8 << 30;
    return hipSuccess;
}
EXPORT hipError_t hipDeviceGetAttribute(int *v, hipDeviceAttribute_t a, int d) {
    if (d < 0 || d >= NUM_DEVICES) return hipErrorInvalidDevice;
    switch (a) {
    case hipDeviceAttributeWarpSize: *v = g_dev[d].wave; break;
    case hipDeviceAttributeMultiprocessorCount: *v = d == 0 ? 104 : 40; break;
    case hipDeviceAttributeMaxThreadsPerBlock: *v = 1024; break;
    case hipDeviceAttributeMaxSharedMemoryPerBlock: *v = 65536; break;
    case hipDeviceAttributeClockRate: *v = 1700000; break;
    case hipDeviceAttributeMaxBlockDimX:
    case hipDeviceAttributeMaxBlockDimY:
    case hipDeviceAttributeMaxBlockDimZ: *v = 1024; break;
    case hipDeviceAttributeMaxGridDimX: *v = 2147483647; break;
    case hipDeviceAttributeMaxGridDimY:
    case hipDeviceAttributeMaxGridDimZ: *v = 65536; break;
    case hipDeviceAttributePciBusId: *v = 0x63 + d; break;
    case hipDeviceAttributePciDeviceId: *v = 0; break;
    case hipDeviceAttributePciDomainID: *v = 0; break;
    /* memory as MI250X's (one die): 1600 MHz HBM2e on 4096 bits, 8 MiB L2; device 1's runtime does not say */
    case hipDeviceAttributeMemoryClockRate:
        if (d != 0) return hipErrorInvalidValue;
        *v = 1600000;
        break;
    case hipDeviceAttributeMemoryBusWidth:
        if (d != 0) return hipErrorInvalidValue;
        *v = 4096;
        break;
    case hipDeviceAttributeL2CacheSize:
        if (d != 0) return hipErrorInvalidValue;
        *v = 8 << 20;
        break;
    default: return hipErrorInvalidValue;
    }
    return hipSuccess;
}

/* The two hipDeviceProp_t layouts, by the offsets the real headers give (name at 0 in both). */
static hipError_t props(void *p, int d, size_t arch_offset) {
    if (d < 0 || d >= NUM_DEVICES) return hipErrorInvalidDevice;
    snprintf((char *)p, 256, "%s", g_dev[d].name);
    snprintf((char *)p + arch_offset, 256, "%s", g_dev[d].arch);
    return hipSuccess;
}
static int old_layout(void) {
    const char *e = getenv("FAKEHIP_PROPS");
    return e && strcmp(e, "r0000") == 0;
}
#if HIP_VERSION_MAJOR >= 6 /* these headers declare both layouts' entry points, and make the plain name a macro */
EXPORT hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *p, int d) {
    return old_layout() ? hipErrorNotSupported : props(p, d, 1160);
}
EXPORT hipError_t hipGetDevicePropertiesR0000(hipDeviceProp_tR0000 *p, int d) { return props(p, d, 396); }
#else
EXPORT hipError_t hipGetDevicePropertiesR0600(void *p, int d);
EXPORT hipError_t hipGetDevicePropertiesR0600(void *p, int d) {
    return old_layout() ? hipErrorNotSupported : props(p, d, 1160);
}
EXPORT hipError_t hipGetDevicePropertiesR0000(void *p, int d);
EXPORT hipError_t hipGetDevicePropertiesR0000(void *p, int d) { return props(p, d, 396); }
EXPORT hipError_t hipGetDeviceProperties(hipDeviceProp_t *p, int d) { return props(p, d, 396); }
#endif

EXPORT hipError_t hipGetDevice(int *d) {
    *d = g_current;
    return hipSuccess;
}
EXPORT hipError_t hipSetDevice(int d) {
    if (d < 0 || d >= NUM_DEVICES) return hipErrorInvalidDevice;
    g_current = d;
    return hipSuccess;
}

/* ---- streams and events ---- */
struct ihipStream_t {
    int dev;
};
struct ihipEvent_t {
    int dev, recorded;
    double t;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A stream or an event: counted, and of the device current when it is made (`dev`, its first member). */
static hipError_t object_new(void **out, size_t size) {
    int *p = calloc(1, size);
    if (!p) return hipErrorOutOfMemory;
    *p = g_current;
    live(1);
    *out = p;
    return hipSuccess;
}
static hipError_t object_free(void *p) {
    if (!p) return hipErrorInvalidHandle;
    free(p);
    live(-1);
    return hipSuccess;
}

EXPORT hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned int flags) {
    if (flags != hipStreamNonBlocking) return hipErrorInvalidValue; /* the driver asks for non-blocking streams */
    return object_new((void **)s, sizeof **s);
}
EXPORT hipError_t hipStreamDestroy(hipStream_t s) { return object_free(s); }
EXPORT hipError_t hipStreamSynchronize(hipStream_t s) { return s ? on_device(s->dev) : hipErrorInvalidHandle; }
EXPORT hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t e, unsigned int flags) {
    if (!s || !e || flags) return hipErrorInvalidValue;
    return on_device(s->dev);
}
EXPORT hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned flags) {
    if (flags != hipEventDefault) return hipErrorInvalidValue; /* timing events */
    return object_new((void **)e, sizeof **e);
}
EXPORT hipError_t hipEventDestroy(hipEvent_t e) { return object_free(e); }
EXPORT hipError_t hipEventRecord(hipEvent_t e, hipStream_t s) {
    if (!e || !s) return hipErrorInvalidHandle;
    if (e->dev != s->dev) return hipErrorInvalidHandle;
    hipError_t r = on_device(s->dev);
    if (r != hipSuccess) return r;
    e->t = now_s();
    e->recorded = 1;
    return hipSuccess;
}
EXPORT hipError_t hipEventSynchronize(hipEvent_t e) {
    if (!e) return hipErrorInvalidHandle;
    return e->recorded ? hipSuccess : hipErrorInvalidHandle;
}
EXPORT hipError_t hipEventQuery(hipEvent_t e) { return hipEventSynchronize(e); } /* commands run at once here */
EXPORT hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b) {
    if (!a || !b || !a->recorded || !b->recorded) return hipErrorInvalidHandle;
    *ms = (float)((b->t - a->t) * 1e3);
    return hipSuccess;
}

/* ---- memory ---- */
EXPORT hipError_t hipMalloc(void **p, size_t size) {
    if (!(*p = alloc(size, g_current, 0))) return hipErrorOutOfMemory;
    return hipSuccess;
}
EXPORT hipError_t hipFree(void *p) {
    alloc_head *h = head_of(p);
    if (!h || h->host) return hipErrorInvalidValue;
    forget_device_alloc(h);
    h->magic = 0;
    free(h);
    live(-1);
    return hipSuccess;
}
/* The attributes buffer_wrap asks of a pointer anywhere inside a device allocation (any other pointer: invalid, as
 * host memory is to a real runtime); every device's allocations are known whatever device is current. */
EXPORT hipError_t hipPointerGetAttribute(void *data, hipPointer_attribute attr, hipDeviceptr_t ptr) {
    uintptr_t p = (uintptr_t)ptr;
    hipError_t e = hipErrorInvalidValue;
    pthread_mutex_lock(&g_lock);
    for (alloc_head *h = g_device_allocs; h; h = h->next) {
        uintptr_t start = (uintptr_t)h + (sizeof(alloc_head) + 255) / 256 * 256;
        if (p < start || p >= start + h->size) continue;
        e = hipSuccess;
        if (attr == HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
            *(int *)data = h->dev;
        else if (attr == HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR)
            *(void **)data = (void *)start;
        else if (attr == HIP_POINTER_ATTRIBUTE_RANGE_SIZE)
            *(size_t *)data = h->size;
        else
            e = hipErrorNotSupported;
        break;
    }
    pthread_mutex_unlock(&g_lock);
    return e;
}

EXPORT hipError_t hipHostMalloc(void **p, size_t size, unsigned int flags) {
    if (flags != hipHostMallocPortable) return hipErrorInvalidValue;
    if (!(*p = alloc(size, -1, 1))) return hipErrorOutOfMemory;
    return hipSuccess;
}
EXPORT hipError_t hipHostFree(void *p) {
    alloc_head *h = head_of(p);
    if (!h || !h->host) return hipErrorInvalidValue;
    h->magic = 0;
    free(h);
    live(-1);
    return hipSuccess;
}

/* Copies and fills check the stream's device (device addresses here are interior pointers, not checked). */
static hipError_t stream_ok(hipStream_t s) { return s ? on_device(s->dev) : hipErrorInvalidHandle; }

#if HIP_VERSION_MAJOR >= 6
EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, const void *src, size_t n, hipStream_t s) {
#else
EXPORT hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t n, hipStream_t s) {
#endif
    hipError_t r = stream_ok(s);
    if (r == hipSuccess) memcpy(dst, src, n);
    return r;
}
EXPORT hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t n, hipStream_t s) {
    hipError_t r = stream_ok(s);
    if (r == hipSuccess) memcpy(dst, src, n);
    return r;
}
EXPORT hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n, hipStream_t s) {
    hipError_t r = stream_ok(s);
    if (r == hipSuccess) memmove(dst, src, n);
    return r;
}
EXPORT hipError_t hipMemsetD8Async(hipDeviceptr_t p, unsigned char v, size_t count, hipStream_t s) {
    hipError_t r = stream_ok(s);
    if (r == hipSuccess) memset(p, v, count);
    return r;
}
EXPORT hipError_t hipMemsetD16Async(hipDeviceptr_t p, unsigned short v, size_t count, hipStream_t s) {
    hipError_t r = stream_ok(s);
    if ((uintptr_t)p % 2) return hipErrorInvalidValue;
    for (size_t i = 0; r == hipSuccess && i < count; i++) memcpy((char *)p + 2 * i, &v, 2);
    return r;
}
EXPORT hipError_t hipMemsetD32Async(hipDeviceptr_t p, int v, size_t count, hipStream_t s) {
    hipError_t r = stream_ok(s);
    if ((uintptr_t)p % 4) return hipErrorInvalidValue;
    for (size_t i = 0; r == hipSuccess && i < count; i++) memcpy((char *)p + 4 * i, &v, 4);
    return r;
}

/* ---- peer access: every pair of the two devices can; a peer copy needs the access of its stream's device enabled
 * (as a real runtime copies directly only then), and enabling twice answers hipErrorPeerAccessAlreadyEnabled ---- */
static int g_peer_enabled[NUM_DEVICES][NUM_DEVICES]; /* [from][to], under g_lock */
static long g_peer_copies;                           /* hipMemcpyPeerAsync calls that copied, under g_lock */

EXPORT long fakehip_peer_copies(void);
EXPORT long fakehip_peer_copies(void) { return g_peer_copies; }

EXPORT hipError_t hipDeviceCanAccessPeer(int *can, int dev, int peer) {
    if (!can || dev < 0 || dev >= NUM_DEVICES || peer < 0 || peer >= NUM_DEVICES) return hipErrorInvalidDevice;
    *can = dev != peer;
    return hipSuccess;
}
EXPORT hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags) {
    if (flags || peer < 0 || peer >= NUM_DEVICES || peer == g_current) return hipErrorInvalidValue;
    pthread_mutex_lock(&g_lock);
    const int was = g_peer_enabled[g_current][peer];
    g_peer_enabled[g_current][peer] = 1;
    pthread_mutex_unlock(&g_lock);
    return was ? hipErrorPeerAccessAlreadyEnabled : hipSuccess;
}
EXPORT hipError_t hipMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev, size_t n, hipStream_t s) {
    hipError_t r = stream_ok(s);
    if (r != hipSuccess) return r;
    if (dst_dev < 0 || dst_dev >= NUM_DEVICES || src_dev < 0 || src_dev >= NUM_DEVICES) return hipErrorInvalidDevice;
    if (s->dev != dst_dev && s->dev != src_dev) return hipErrorInvalidValue;
    const int other = s->dev == dst_dev ? src_dev : dst_dev;
    pthread_mutex_lock(&g_lock);
    const int enabled = other == s->dev || g_peer_enabled[s->dev][other];
    g_peer_copies += enabled;
    pthread_mutex_unlock(&g_lock);
    if (!enabled) return hipErrorInvalidValue;
    memmove(dst, src, n);
    return hipSuccess;
}

/* ---- modules: a copy of the image (its size from the offload-bundle or ELF header) ---- */
struct ihipModuleSymbol_t {
    struct ihipModule_t *mod;
    struct ihipModuleSymbol_t *next;
    char name[128];
};
struct ihipModule_t {
    int dev;
    unsigned char *image;
    size_t size;
    struct ihipModuleSymbol_t *functions; /* freed with the module, as in HIP */
};

static size_t image_size(const unsigned char *p) {
    uint64_t v;
    if (memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24) == 0) {
        memcpy(&v, p + 24, 8);
        size_t end = 32, pos = 32;
        for (uint64_t i = 0; i < v; i++) {
            uint64_t off, len, tl;
            memcpy(&off, p + pos, 8);
            memcpy(&len, p + pos + 8, 8);
            memcpy(&tl, p + pos + 16, 8);
            pos += 24 + tl;
            if (off + len > end) end = off + len;
            if (pos > end) end = pos;
        }
        return end;
    }
    if (memcmp(p, "\177ELF", 4) == 0) {
        uint64_t shoff;
        uint16_t shentsize, shnum;
        memcpy(&shoff, p + 40, 8);
        memcpy(&shentsize, p + 58, 2);
        memcpy(&shnum, p + 60, 2);
        return (size_t)(shoff + (uint64_t)shentsize * shnum);
    }
    return 0;
}

/* The code object for the current device in a bundle ("hipv4-amdgcn-amd-amdhsa--gfx90a", features ignored), as
 * the runtime picks it; a lone code object is taken as it is. */
static const unsigned char *pick_code_object(const unsigned char *p, size_t *size) {
    if (memcmp(p, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0) return p;
    const char *arch = g_dev[g_current].arch;
    size_t arch_len = strcspn(arch, ":");
    uint64_t entries, pos = 32;
    memcpy(&entries, p + 24, 8);
    for (uint64_t i = 0; i < entries; i++) {
        uint64_t off, len, tl;
        memcpy(&off, p + pos, 8);
        memcpy(&len, p + pos + 8, 8);
        memcpy(&tl, p + pos + 16, 8);
        const char *triple = (const char *)p + pos + 24;
        pos += 24 + tl;
        for (uint64_t j = 0; j + 2 + arch_len <= tl; j++)
            if (triple[j] == '-' && triple[j + 1] == '-' && memcmp(triple + j + 2, arch, arch_len) == 0 &&
                (j + 2 + arch_len == tl || triple[j + 2 + arch_len] == ':')) {
                *size = (size_t)len;
                return p + off;
            }
    }
    return NULL;
}

EXPORT hipError_t hipModuleLoadData(hipModule_t *m, const void *image) {
    if (!m || !image) return hipErrorInvalidValue;
    size_t size = image_size(image);
    if (!size || size > ((size_t)1 << 30)) return hipErrorInvalidImage;
    const unsigned char *code = pick_code_object(image, &size);
    if (!code) return hipErrorNoBinaryForGpu;
    if (memcmp(code, "\177ELF", 4) != 0) return hipErrorInvalidImage;
    struct ihipModule_t *mod = calloc(1, sizeof *mod);
    if (!mod || !(mod->image = malloc(size))) {
        free(mod);
        return hipErrorOutOfMemory;
    }
    memcpy(mod->image, code, size);
    mod->size = size;
    mod->dev = g_current;
    live(1);
    *m = mod;
    return hipSuccess;
}
EXPORT hipError_t hipModuleUnload(hipModule_t m) {
    if (!m) return hipErrorInvalidHandle;
    free(m->image);
    while (m->functions) {
        struct ihipModuleSymbol_t *next = m->functions->next;
        free(m->functions);
        m->functions = next;
        live(-1);
    }
    live(-1);
    free(m);
    return hipSuccess;
}
EXPORT hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t m, const char *name) {
    if (!f || !m || !name || strlen(name) >= 120) return hipErrorInvalidValue;
    hipError_t r = on_device(m->dev);
    if (r != hipSuccess) return r;
    char kd[128];
    int n = snprintf(kd, sizeof kd, "%s.kd", name);
    int found = 0;
    for (size_t i = 0; !found && i + (size_t)n + 1 <= m->size; i++)
        found = memcmp(m->image + i, kd, (size_t)n + 1) == 0;
    if (!found) return hipErrorNotFound;
    struct ihipModuleSymbol_t *fn = calloc(1, sizeof *fn);
    if (!fn) return hipErrorOutOfMemory;
    fn->mod = m;
    snprintf(fn->name, sizeof fn->name, "%s", name);
    fn->next = m->functions;
    m->functions = fn;
    live(1);
    *f = fn;
    return hipSuccess;
}

/* The largest block of a kernel: every fake kernel takes the device's 1024. */
EXPORT hipError_t hipFuncGetAttribute(int *value, hipFunction_attribute attrib, hipFunction_t f) {
    if (!value || !f) return hipErrorInvalidValue;
    hipError_t r = on_device(f->mod->dev);
    if (r != hipSuccess) return r;
    if (attrib != HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) return hipErrorInvalidValue;
    *value = 1024;
    return hipSuccess;
}

/* ---- launches: host versions of the kernels, on the arguments as passed ---- */
#define ARG(T, i) (*(T *)params[i])
#define PTR(T, i) ((T *)ARG(void *, i))

static hipError_t run_kernel(const char *name, void **params, unsigned gx, unsigned bx, int dev) {
    if (strcmp(name, "hcl_fill_u64") == 0) { /* drivers/cudahip/fill.cu */
        unsigned long long *dst = PTR(unsigned long long, 0), count = ARG(unsigned long long, 1);
        const unsigned long long *pattern = (const unsigned long long *)params[2];
        unsigned words = ARG(unsigned, 3);
        if (!words || words > 16 || (words & (words - 1))) return hipErrorInvalidValue;
        for (unsigned long long i = 0; i < count; i++) dst[i] = pattern[i % words];
    } else if (strcmp(name, "affine") == 0) { /* drivers/cudahip/test_kernels.cu */
        float *out = PTR(float, 0), a = ARG(float, 1);
        double b = ARG(double, 2);
        unsigned n = ARG(unsigned, 3);
        for (unsigned i = 0; i < n && i < gx * bx; i++) out[i] = a * (float)i + (float)b;
    } else {
        int r = hcl_test_gpu_kernel_run(name, params, gx, bx, (unsigned)g_dev[dev].wave);
        return r == 0 ? hipSuccess : r > 0 ? hipErrorInvalidValue : hipErrorNotSupported;
    }
    return hipSuccess;
}

EXPORT hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy, unsigned int gz,
                                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                                        hipStream_t s, void **params, void **extra) {
    if (!f || !s || extra) return hipErrorInvalidValue;
    if (!gx || !gy || !gz || !bx || !by || !bz || (unsigned long long)bx * by * bz > 1024 || shared > 65536)
        return hipErrorInvalidConfiguration;
    hipError_t r = on_device(s->dev);
    if (r == hipSuccess) r = on_device(f->mod->dev);
    if (r != hipSuccess) return r;
    return run_kernel(f->name, params, gx, bx, s->dev);
}
