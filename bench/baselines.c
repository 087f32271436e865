/* Vendor baselines, opened with dlopen at run time so that bench links none of them (readelf -d shows no vendor
 * library): on cuda, cuBLAS SGEMM, a device-to-device copy (cuMemcpyDtoDAsync) and CUB's DeviceReduce::Sum (from
 * libhcl-bench-cub.so, built by nvcc with bench); on opencl, CLBlast SGEMM and clEnqueueCopyBuffer; on host,
 * OpenBLAS cblas_sgemm and memcpy. Each runs on HCL's own queue (CUstream, cl_command_queue) and buffers
 * (CUdeviceptr, cl_mem, data pointer) through the interop calls, and is timed by the vendor's own means: CUDA
 * events recorded on that stream, OpenCL profiling events, or the wall clock on host.
 *
 * Every vendor prototype comes from the vendor's header (function pointers are declared with __typeof__ of the
 * header's declaration), so a signature cannot be wrong; a header missing at build time leaves that baseline out,
 * reported as "not built". */
#define _GNU_SOURCE /* RTLD_DEFAULT-free dladdr is not needed; readlink, strdup */

#include "bench.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(BENCH_HAVE_CUDA)
#include "cub_reduce.h"
#include <cublas_api.h>
#include <cuda.h>
#endif
#if defined(BENCH_HAVE_OPENCL)
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#if defined(BENCH_HAVE_CLBLAST)
#include <clblast_c.h>
#endif
#endif
#if defined(BENCH_HAVE_CBLAS)
#include <cblas.h>
#endif

/* ---------------------------------------------------------------------------------------------------------
 * Opening libraries: the first candidate that loads wins; every failure is kept for the reason.
 * ------------------------------------------------------------------------------------------------------- */
typedef struct lib {
    int tried;
    void *handle;
    char path[256];
    char reason[1024];
} lib;

static void appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void appendf(char *buf, size_t size, const char *fmt, ...) {
    size_t used = strlen(buf);
    if (used + 1 >= size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* candidates: NULL-terminated; an env variable, when set, is the only candidate. */
static void lib_open(lib *l, const char *env, const char *const *candidates) {
    if (l->tried)
        return;
    l->tried = 1;
    const char *forced = env ? getenv(env) : NULL;
    const char *one[2] = {forced, NULL};
    const char *const *list = forced && *forced ? one : candidates;
    for (int i = 0; list[i]; i++) {
        dlerror();
        l->handle = dlopen(list[i], RTLD_NOW | RTLD_LOCAL);
        if (l->handle) {
            copy_text(l->path, sizeof l->path, list[i]);
            return;
        }
        const char *e = dlerror();
        appendf(l->reason, sizeof l->reason, "%s%s", l->reason[0] ? "; " : "", e ? e : list[i]);
    }
    if (forced && *forced)
        appendf(l->reason, sizeof l->reason, " (from %s)", env);
}

static void *sym(lib *l, const char *name, char *missing, size_t size) {
    void *p = l->handle ? dlsym(l->handle, name) : NULL;
    if (!p && missing)
        appendf(missing, size, "%s%s", missing[0] ? ", " : "", name);
    return p;
}

/* The folder of this executable, for libraries built next to it. */
static void exe_dir(char *out, size_t size) {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    out[0] = '\0';
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) {
        *slash = '\0';
        snprintf(out, size, "%s", buf);
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * Per-device state
 * ------------------------------------------------------------------------------------------------------- */
enum { BK_OTHER = 0, BK_HOST, BK_OPENCL, BK_CUDA };

struct baselines {
    int backend;
    void *ctx, *queue; /* native device and queue objects */
#if defined(BENCH_HAVE_CUDA)
    int cu_ready;
    CUevent ev0, ev1;
    cublasHandle_t blas;
    hcl_buffer cub_temp;
    size_t cub_temp_size;
#endif
#if defined(BENCH_HAVE_OPENCL)
    hcl_buffer cl_scratch; /* 4 bytes: the fill that opens a CLBlast bracket */
#endif
};

static int which_backend(const char *name) {
    if (!strcmp(name, "host")) return BK_HOST;
    if (!strcmp(name, "opencl")) return BK_OPENCL;
    if (!strcmp(name, "cuda")) return BK_CUDA;
    return BK_OTHER;
}

static void set_base(base_info *bi, const char *name, const char *note) {
    copy_text(bi->name, sizeof bi->name, name);
    copy_text(bi->note, sizeof bi->note, note);
    bi->applicable = 1;
}

#define NOT_BUILT(bi, what) snprintf((bi)->reason, sizeof (bi)->reason, "not built: %s was not found when bench was built", what)

/* =========================================================================================================
 * CUDA: libcuda.so.1 (events, copies, launches), cuBLAS, libhcl-bench-cub.so
 * ======================================================================================================= */
#if defined(BENCH_HAVE_CUDA)
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM) || defined(cuEventRecord) || defined(cuLaunchKernel) ||           \
    defined(cuStreamSynchronize) || defined(cuModuleLoadData) || defined(cuModuleGetFunction)
#error "these names must be the exported symbols themselves, not per-thread-stream macros"
#endif
/* Names are the exported symbols; cuda.h maps the unversioned names of the _v2 ones to them. */
#define BENCH_CU_SYMS(X)                                                                                          \
    X(cuGetErrorName) X(cuDriverGetVersion) X(cuCtxPushCurrent_v2) X(cuCtxPopCurrent_v2) X(cuEventCreate)         \
    X(cuEventDestroy_v2) X(cuEventRecord) X(cuEventSynchronize) X(cuMemcpyDtoDAsync_v2) X(cuStreamSynchronize)   \
    X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLaunchKernel)
#define BENCH_CUBLAS_SYMS(X)                                                                                      \
    X(cublasCreate_v2) X(cublasDestroy_v2) X(cublasSetStream_v2) X(cublasSgemm_v2) X(cublasGetMathMode)           \
    X(cublasGetVersion_v2)
#define BENCH_CUB_SYMS(X)                                                                                         \
    X(hcl_bench_cub_sum) X(hcl_bench_cub_error_name) X(hcl_bench_cub_version) X(hcl_bench_cub_cudart_version)
#define DECLARE(name) __typeof__(name) *name;
static struct {
    BENCH_CU_SYMS(DECLARE)
    __typeof__(cuEventElapsedTime_v2) *elapsed; /* cuEventElapsedTime_v2, else the older export of the same type */
    int ok;
    char reason[1200];
} cu;
static struct {
    BENCH_CUBLAS_SYMS(DECLARE)
    __typeof__(cublasGetStatusName) *cublasGetStatusName; /* optional */
    int ok;
    char reason[1200];
} cb;
static struct {
    BENCH_CUB_SYMS(DECLARE)
    int ok;
    char reason[1200];
} cub;
#undef DECLARE
static lib lib_cuda, lib_cublas, lib_cub;

static void cuda_load(void) {
    static int done;
    if (done)
        return;
    done = 1;
    char missing[512] = "";
    static const char *const cands[] = {"libcuda.so.1", "libcuda.so", NULL};
    lib_open(&lib_cuda, "HCL_CUDA_LIBRARY", cands);
    if (!lib_cuda.handle) {
        snprintf(cu.reason, sizeof cu.reason, "libcuda could not be opened: %s", lib_cuda.reason);
    } else {
#define RESOLVE(name) cu.name = (__typeof__(cu.name))sym(&lib_cuda, #name, missing, sizeof missing);
        BENCH_CU_SYMS(RESOLVE)
#undef RESOLVE
        cu.elapsed = (__typeof__(cu.elapsed))sym(&lib_cuda, "cuEventElapsedTime_v2", NULL, 0);
        if (!cu.elapsed)
            cu.elapsed = (__typeof__(cu.elapsed))sym(&lib_cuda, "cuEventElapsedTime", missing, sizeof missing);
        if (missing[0])
            snprintf(cu.reason, sizeof cu.reason, "%s lacks %s", lib_cuda.path, missing);
        else
            cu.ok = 1;
    }
    /* cuBLAS: the loader path first, then the toolkit folders */
    static const char *const sonames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char paths[6][512];
    const char *list[10];
    int n = 0;
    for (int i = 0; i < 3; i++)
        list[n++] = sonames[i];
    for (int h = 0, p = 0; h < 3; h++)
        for (int v = 0; v < 2 && homes[h] && *homes[h]; v++, p++) {
            snprintf(paths[p], sizeof paths[p], "%s/lib64/%s", homes[h], sonames[v]);
            list[n++] = paths[p];
        }
    list[n] = NULL;
    lib_open(&lib_cublas, "HCL_CUBLAS_LIBRARY", list);
    missing[0] = '\0';
    if (!lib_cublas.handle) {
        snprintf(cb.reason, sizeof cb.reason, "cuBLAS could not be opened: %s", lib_cublas.reason);
    } else {
#define RESOLVE(name) cb.name = (__typeof__(cb.name))sym(&lib_cublas, #name, missing, sizeof missing);
        BENCH_CUBLAS_SYMS(RESOLVE)
#undef RESOLVE
        cb.cublasGetStatusName = (__typeof__(cb.cublasGetStatusName))sym(&lib_cublas, "cublasGetStatusName", NULL, 0);
        if (missing[0])
            snprintf(cb.reason, sizeof cb.reason, "%s lacks %s", lib_cublas.path, missing);
        else
            cb.ok = 1;
    }
    /* CUB: built next to libhcl (build/lib) or installed with it */
    char dir[4096], p1[4200], p2[4200];
    exe_dir(dir, sizeof dir);
    snprintf(p1, sizeof p1, "%s/../lib/libhcl-bench-cub.so", dir);
    snprintf(p2, sizeof p2, "%s/libhcl-bench-cub.so", dir);
    const char *cub_list[] = {p1, p2, "libhcl-bench-cub.so", NULL};
    lib_open(&lib_cub, "HCL_BENCH_CUB_LIBRARY", cub_list);
    missing[0] = '\0';
    if (!lib_cub.handle) {
        snprintf(cub.reason, sizeof cub.reason, "libhcl-bench-cub.so could not be opened (it is built with bench when "
                 "nvcc is found): %s", lib_cub.reason);
    } else {
#define RESOLVE(name) cub.name = (__typeof__(cub.name))sym(&lib_cub, #name, missing, sizeof missing);
        BENCH_CUB_SYMS(RESOLVE)
#undef RESOLVE
        if (missing[0])
            snprintf(cub.reason, sizeof cub.reason, "%s lacks %s", lib_cub.path, missing);
        else
            cub.ok = 1;
    }
}

static const char *cu_err(CUresult r) {
    const char *name = NULL;
    if (!cu.cuGetErrorName || cu.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
        return "CUDA error (unnamed)";
    return name;
}

static const char *cublas_err(cublasStatus_t s) {
    const char *name = cb.cublasGetStatusName ? cb.cublasGetStatusName(s) : NULL;
    return name ? name : "cuBLAS error";
}

#define CU_TRY(call, what)                                                                                        \
    do {                                                                                                          \
        CUresult r_ = (call);                                                                                     \
        if (r_ != CUDA_SUCCESS) {                                                                                 \
            snprintf(err, err_size, "%s: %s (%d)", what, cu_err(r_), (int)r_);                                    \
            goto fail;                                                                                            \
        }                                                                                                         \
    } while (0)

static int cu_push(struct baselines *bl, char *err, size_t err_size) {
    CU_TRY(cu.cuCtxPushCurrent_v2((CUcontext)bl->ctx), "cuCtxPushCurrent (HCL's primary context)");
    return 0;
fail:
    return 1;
}

static void cu_pop(void) {
    CUcontext popped;
    cu.cuCtxPopCurrent_v2(&popped);
}

static void cuda_open(bdev *b, struct baselines *bl) {
    base_info *g = &b->run->bases[BASE_GEMM], *c = &b->run->bases[BASE_COPY], *r = &b->run->bases[BASE_REDUCE];
    set_base(g, "cuBLAS SGEMM", "cublasSgemm_v2 on HCL's CUstream and buffers, row-major C = A*B computed as "
             "C^T = B^T A^T, default math mode (CUBLAS_DEFAULT_MATH: no TF32); timed with cuEventRecord");
    set_base(c, "cuMemcpyDtoDAsync", "device-to-device copy of the same bytes on HCL's CUstream, counted read + "
             "write as BabelStream's copy; timed with cuEventRecord");
    set_base(r, "CUB DeviceReduce::Sum", "cub::DeviceReduce::Sum on HCL's CUstream (libhcl-bench-cub.so, built by "
             "nvcc); scratch from hcl_buffer_create; timed with cuEventRecord");
    cuda_load();
    char err[512] = "";
    size_t err_size = sizeof err;
    if (!cu.ok) {
        copy_text(c->reason, sizeof c->reason, cu.reason);
        copy_text(g->reason, sizeof g->reason, cu.reason);
        copy_text(r->reason, sizeof r->reason, cu.reason);
        return;
    }
    hcl_status st = hcl_device_get_native(b->device, &bl->ctx);
    if (st == HCL_SUCCESS)
        st = hcl_queue_get_native(b->queue, &bl->queue);
    if (st != HCL_SUCCESS) {
        snprintf(c->reason, sizeof c->reason, "hcl_*_get_native: %s: %s", hcl_status_name(st), hcl_last_message());
        copy_text(g->reason, sizeof g->reason, c->reason);
        copy_text(r->reason, sizeof r->reason, c->reason);
        return;
    }
    if (cu_push(bl, err, err_size)) {
        copy_text(c->reason, sizeof c->reason, err);
        copy_text(g->reason, sizeof g->reason, err);
        copy_text(r->reason, sizeof r->reason, err);
        return;
    }
    CU_TRY(cu.cuEventCreate(&bl->ev0, CU_EVENT_DEFAULT), "cuEventCreate");
    CU_TRY(cu.cuEventCreate(&bl->ev1, CU_EVENT_DEFAULT), "cuEventCreate");
    bl->cu_ready = 1;
    int drv = 0;
    cu.cuDriverGetVersion(&drv);
    copy_text(c->library, sizeof c->library, lib_cuda.path);
    snprintf(c->version, sizeof c->version, "CUDA driver API %d.%d", drv / 1000, drv % 1000 / 10);
    c->available = 1;
    /* cuBLAS */
    if (!cb.ok) {
        copy_text(g->reason, sizeof g->reason, cb.reason);
    } else {
        cublasStatus_t s = cb.cublasCreate_v2(&bl->blas);
        if (s == CUBLAS_STATUS_SUCCESS)
            s = cb.cublasSetStream_v2(bl->blas, (cudaStream_t)bl->queue);
        cublasMath_t mode = CUBLAS_DEFAULT_MATH;
        if (s == CUBLAS_STATUS_SUCCESS)
            s = cb.cublasGetMathMode(bl->blas, &mode);
        int ver = 0;
        if (s == CUBLAS_STATUS_SUCCESS)
            s = cb.cublasGetVersion_v2(bl->blas, &ver);
        if (s != CUBLAS_STATUS_SUCCESS) {
            snprintf(g->reason, sizeof g->reason, "cuBLAS handle on HCL's context and stream failed: %s (%d)",
                     cublas_err(s), (int)s);
        } else if (mode != CUBLAS_DEFAULT_MATH) {
            snprintf(g->reason, sizeof g->reason, "cuBLAS math mode is %d, not CUBLAS_DEFAULT_MATH", (int)mode);
        } else {
            g->available = 1;
            copy_text(g->library, sizeof g->library, lib_cublas.path);
            snprintf(g->version, sizeof g->version, "cuBLAS %d.%d.%d", ver / 10000, ver / 100 % 100, ver % 100);
            const char *tf32 = getenv("NVIDIA_TF32_OVERRIDE");
            if (tf32)
                appendf(g->note, sizeof g->note, "; NVIDIA_TF32_OVERRIDE=%s is set", tf32);
        }
    }
    /* CUB */
    if (!cub.ok) {
        copy_text(r->reason, sizeof r->reason, cub.reason);
    } else {
        int v = cub.hcl_bench_cub_version(), rt = cub.hcl_bench_cub_cudart_version();
        r->available = 1;
        copy_text(r->library, sizeof r->library, lib_cub.path);
        snprintf(r->version, sizeof r->version, "CUB %d.%d.%d, CUDA runtime %d.%d (static)", v / 100000, v / 100 % 1000,
                 v % 100, rt / 1000, rt % 1000 / 10);
    }
    cu_pop();
    return;
fail:
    cu_pop();
    copy_text(c->reason, sizeof c->reason, err);
    copy_text(g->reason, sizeof g->reason, err);
    copy_text(r->reason, sizeof r->reason, err);
}

static void cuda_close(bdev *b, struct baselines *bl) {
    if (!bl->cu_ready)
        return;
    char err[256];
    size_t err_size = sizeof err;
    if (cu_push(bl, err, err_size))
        return;
    cu.cuStreamSynchronize((CUstream)bl->queue);
    if (bl->blas)
        cb.cublasDestroy_v2(bl->blas);
    cu.cuEventDestroy_v2(bl->ev0);
    cu.cuEventDestroy_v2(bl->ev1);
    cu_pop();
    if (bl->cub_temp)
        hcl_buffer_release(bl->cub_temp);
    (void)b;
}

static CUdeviceptr cu_ptr(hcl_buffer buf) {
    void *p = NULL;
    hcl_buffer_get_native(buf, &p);
    return (CUdeviceptr)(uintptr_t)p;
}

/* Record ev0, run `what`, record ev1, wait: the device time between the two events. */
#define CU_TIMED(bl, call_ok, out_s)                                                                              \
    do {                                                                                                          \
        float ms_ = 0.0f;                                                                                         \
        CU_TRY(cu.cuEventRecord((bl)->ev0, (CUstream)(bl)->queue), "cuEventRecord");                              \
        if (!(call_ok))                                                                                           \
            goto fail;                                                                                            \
        CU_TRY(cu.cuEventRecord((bl)->ev1, (CUstream)(bl)->queue), "cuEventRecord");                              \
        CU_TRY(cu.cuEventSynchronize((bl)->ev1), "cuEventSynchronize");                                           \
        CU_TRY(cu.elapsed(&ms_, (bl)->ev0, (bl)->ev1), "cuEventElapsedTime");                                     \
        *(out_s) = (double)ms_ * 1e-3;                                                                            \
    } while (0)

static int cuda_gemm(struct baselines *bl, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C,
                     double *out_s, char *err, size_t err_size) {
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
        snprintf(err, err_size, "cuBLAS (32-bit API) takes dimensions up to INT_MAX");
        return 1;
    }
    if (cu_push(bl, err, err_size))
        return 1;
    const float one = 1.0f, zero = 0.0f;
    const float *a = (const float *)(uintptr_t)cu_ptr(A), *bb = (const float *)(uintptr_t)cu_ptr(B);
    float *c = (float *)(uintptr_t)cu_ptr(C);
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    /* row-major C (m x n) = A (m x k) B (k x n) is column-major C^T (n x m) = B^T (n x k) A^T (k x m) */
    CU_TIMED(bl, (s = cb.cublasSgemm_v2(bl->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, bb, (int)n,
                                        a, (int)k, &zero, c, (int)n)) == CUBLAS_STATUS_SUCCESS,
             out_s);
    cu_pop();
    return 0;
fail:
    if (s != CUBLAS_STATUS_SUCCESS)
        snprintf(err, err_size, "cublasSgemm_v2: %s (%d)", cublas_err(s), (int)s);
    cu.cuStreamSynchronize((CUstream)bl->queue);
    cu_pop();
    return 1;
}

static int cuda_copy(struct baselines *bl, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, char *err,
                     size_t err_size) {
    if (cu_push(bl, err, err_size))
        return 1;
    CUresult r = CUDA_SUCCESS;
    CU_TIMED(bl, (r = cu.cuMemcpyDtoDAsync_v2(cu_ptr(dst), cu_ptr(src), bytes, (CUstream)bl->queue)) == CUDA_SUCCESS,
             out_s);
    cu_pop();
    return 0;
fail:
    if (r != CUDA_SUCCESS)
        snprintf(err, err_size, "cuMemcpyDtoDAsync: %s (%d)", cu_err(r), (int)r);
    cu.cuStreamSynchronize((CUstream)bl->queue);
    cu_pop();
    return 1;
}

static int cuda_reduce(bdev *b, struct baselines *bl, hcl_buffer in, hcl_buffer out, size_t n, double *out_s, char *err,
                       size_t err_size) {
    if (n > INT_MAX) {
        snprintf(err, err_size, "the CUB baseline is built for int item counts (n <= INT_MAX)");
        return 1;
    }
    if (cu_push(bl, err, err_size))
        return 1;
    const float *pin = (const float *)(uintptr_t)cu_ptr(in);
    float *pout = (float *)(uintptr_t)cu_ptr(out);
    size_t temp_bytes = 0;
    int e = cub.hcl_bench_cub_sum(NULL, &temp_bytes, pin, pout, (int)n, bl->queue);
    if (e != 0) {
        snprintf(err, err_size, "cub::DeviceReduce::Sum (size query): %s (%d)", cub.hcl_bench_cub_error_name(e), e);
        goto fail;
    }
    if (temp_bytes > bl->cub_temp_size || !bl->cub_temp) {
        if (bl->cub_temp)
            hcl_buffer_release(bl->cub_temp);
        bl->cub_temp = NULL;
        bl->cub_temp_size = 0;
        hcl_status st = hcl_buffer_create(b->device, temp_bytes ? temp_bytes : 4, 0, &bl->cub_temp);
        if (st != HCL_SUCCESS) {
            snprintf(err, err_size, "CUB scratch of %zu bytes: hcl_buffer_create: %s: %s", temp_bytes,
                     hcl_status_name(st), hcl_last_message());
            goto fail;
        }
        bl->cub_temp_size = temp_bytes;
    }
    void *temp = (void *)(uintptr_t)cu_ptr(bl->cub_temp);
    e = 0;
    CU_TIMED(bl, (e = cub.hcl_bench_cub_sum(temp, &temp_bytes, pin, pout, (int)n, bl->queue)) == 0, out_s);
    cu_pop();
    return 0;
fail:
    if (e != 0)
        snprintf(err, err_size, "cub::DeviceReduce::Sum: %s (%d)", cub.hcl_bench_cub_error_name(e), e);
    cu.cuStreamSynchronize((CUstream)bl->queue);
    cu_pop();
    return 1;
}

typedef struct cu_launch_ctx {
    CUfunction fn;
    CUstream stream;
} cu_launch_ctx;

static int cu_launch_one(void *ctx, int sync, char *err, size_t err_size) {
    cu_launch_ctx *c = ctx;
    CU_TRY(cu.cuLaunchKernel(c->fn, 1, 1, 1, 1, 1, 1, 0, c->stream, NULL, NULL), "cuLaunchKernel");
    if (sync)
        CU_TRY(cu.cuStreamSynchronize(c->stream), "cuStreamSynchronize");
    return 0;
fail:
    return 1;
}

static void cuda_launch(bdev *b, int n_submit, int n_sync, launch_cost *lc) {
    struct baselines *bl = b->bl;
    char *err = lc->vendor_reason;
    size_t err_size = sizeof lc->vendor_reason;
    snprintf(lc->vendor_name, sizeof lc->vendor_name, "cuLaunchKernel");
    if (!bl->cu_ready) {
        copy_text(err, err_size, cu.ok ? "CUDA baseline state not ready" : cu.reason);
        return;
    }
    if (cu_push(bl, err, err_size))
        return;
    CUmodule mod = NULL;
    cu_launch_ctx c = {NULL, (CUstream)bl->queue};
    double t0 = now_s();
    CU_TRY(cu.cuModuleLoadData(&mod, bench_empty_ptx), "cuModuleLoadData (the empty kernel's PTX)");
    CU_TRY(cu.cuModuleGetFunction(&c.fn, mod, "hcl_bench_empty"), "cuModuleGetFunction");
    lc->vendor_module_s = now_s() - t0;
    /* the launches run with HCL's context current, as an application that uses it would have it */
    if (!time_launches(cu_launch_one, &c, n_submit, n_sync, &lc->vendor_submit_us, &lc->vendor_sync_us, err, err_size))
        lc->vendor_ran = 1;
fail:
    if (mod)
        cu.cuModuleUnload(mod);
    cu_pop();
}
#endif /* BENCH_HAVE_CUDA */

/* =========================================================================================================
 * OpenCL: libOpenCL.so.1 (copies, profiling, launches) and CLBlast
 * ======================================================================================================= */
#if defined(BENCH_HAVE_OPENCL)
#define BENCH_CL_SYMS(X)                                                                                          \
    X(clGetCommandQueueInfo) X(clGetDeviceInfo) X(clEnqueueCopyBuffer) X(clEnqueueFillBuffer)                    \
    X(clGetEventProfilingInfo) X(clWaitForEvents) X(clReleaseEvent) X(clCreateProgramWithSource)                \
    X(clBuildProgram) X(clGetProgramBuildInfo) X(clCreateKernel) X(clEnqueueNDRangeKernel) X(clFinish)           \
    X(clReleaseKernel) X(clReleaseProgram)
#define DECLARE(name) __typeof__(name) *name;
static struct {
    BENCH_CL_SYMS(DECLARE)
    int ok;
    char reason[1200];
} ocl;
#if defined(BENCH_HAVE_CLBLAST)
static struct {
    __typeof__(CLBlastSgemm) *CLBlastSgemm;
    __typeof__(CLBlastClearCache) *CLBlastClearCache; /* optional */
    int ok;
    char reason[1200];
} clb;
static lib lib_clblast;
#endif
#undef DECLARE
static lib lib_ocl;

static void opencl_load(void) {
    static int done;
    if (done)
        return;
    done = 1;
    char missing[512] = "";
    static const char *const cands[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    lib_open(&lib_ocl, "HCL_OPENCL_LIBRARY", cands);
    if (!lib_ocl.handle) {
        snprintf(ocl.reason, sizeof ocl.reason, "libOpenCL could not be opened: %s", lib_ocl.reason);
    } else {
#define RESOLVE(name) ocl.name = (__typeof__(ocl.name))sym(&lib_ocl, #name, missing, sizeof missing);
        BENCH_CL_SYMS(RESOLVE)
#undef RESOLVE
        if (missing[0])
            snprintf(ocl.reason, sizeof ocl.reason, "%s lacks %s", lib_ocl.path, missing);
        else
            ocl.ok = 1;
    }
#if defined(BENCH_HAVE_CLBLAST)
    static const char *const clb_cands[] = {"libclblast.so.1", "libclblast.so", NULL};
    lib_open(&lib_clblast, "HCL_CLBLAST_LIBRARY", clb_cands);
    missing[0] = '\0';
    if (!lib_clblast.handle) {
        snprintf(clb.reason, sizeof clb.reason, "CLBlast could not be opened: %s", lib_clblast.reason);
    } else {
        clb.CLBlastSgemm = (__typeof__(clb.CLBlastSgemm))sym(&lib_clblast, "CLBlastSgemm", missing, sizeof missing);
        clb.CLBlastClearCache = (__typeof__(clb.CLBlastClearCache))sym(&lib_clblast, "CLBlastClearCache", NULL, 0);
        if (missing[0])
            snprintf(clb.reason, sizeof clb.reason, "%s lacks %s", lib_clblast.path, missing);
        else
            clb.ok = 1;
    }
#endif
}

#define CL_TRY(call, what)                                                                                        \
    do {                                                                                                          \
        cl_int e_ = (call);                                                                                       \
        if (e_ != CL_SUCCESS) {                                                                                   \
            snprintf(err, err_size, "%s: OpenCL error %d", what, (int)e_);                                        \
            goto fail;                                                                                            \
        }                                                                                                         \
    } while (0)

static void opencl_open(bdev *b, struct baselines *bl) {
    base_info *g = &b->run->bases[BASE_GEMM], *c = &b->run->bases[BASE_COPY];
    set_base(g, "CLBlast SGEMM", "CLBlastSgemm (CLBlastLayoutRowMajor) on HCL's cl_command_queue and cl_mem; its "
             "first call compiles its kernels (about 11 s on PoCL), which the warm-up runs absorb; timed from the end "
             "of a 4-byte fill enqueued just before to the end of CLBlast's event (in-order queue)");
    set_base(c, "clEnqueueCopyBuffer", "buffer copy of the same bytes on HCL's cl_command_queue, counted read + write "
             "as BabelStream's copy; timed by its profiling event");
    opencl_load();
    if (!ocl.ok) {
        copy_text(c->reason, sizeof c->reason, ocl.reason);
        copy_text(g->reason, sizeof g->reason, ocl.reason);
        return;
    }
    hcl_status st = hcl_device_get_native(b->device, &bl->ctx);
    if (st == HCL_SUCCESS)
        st = hcl_queue_get_native(b->queue, &bl->queue);
    if (st == HCL_SUCCESS)
        st = hcl_buffer_create(b->device, 4, 0, &bl->cl_scratch);
    if (st != HCL_SUCCESS) {
        snprintf(c->reason, sizeof c->reason, "HCL interop: %s: %s", hcl_status_name(st), hcl_last_message());
        copy_text(g->reason, sizeof g->reason, c->reason);
        return;
    }
    c->available = 1;
    copy_text(c->library, sizeof c->library, lib_ocl.path);
#if defined(BENCH_HAVE_CLBLAST)
    if (!clb.ok) {
        copy_text(g->reason, sizeof g->reason, clb.reason);
    } else {
        g->available = 1;
        copy_text(g->library, sizeof g->library, lib_clblast.path);
        snprintf(g->version, sizeof g->version, "(CLBlast has no version query)");
    }
#else
    NOT_BUILT(g, "clblast_c.h");
#endif
}

static void opencl_close(struct baselines *bl) {
    if (bl->queue && ocl.ok)
        ocl.clFinish((cl_command_queue)bl->queue);
#if defined(BENCH_HAVE_CLBLAST)
    /* CLBlast keeps programs of this context in a process-wide cache: drop them while the context is alive */
    if (clb.ok && clb.CLBlastClearCache)
        clb.CLBlastClearCache();
#endif
    if (bl->cl_scratch)
        hcl_buffer_release(bl->cl_scratch);
}

static cl_mem cl_buf(hcl_buffer buf) {
    void *p = NULL;
    hcl_buffer_get_native(buf, &p);
    return (cl_mem)p;
}

static int cl_times(cl_event from, cl_profiling_info from_what, cl_event to, double *out_s, char *err,
                    size_t err_size) {
    cl_ulong t0 = 0, t1 = 0;
    CL_TRY(ocl.clWaitForEvents(1, &to), "clWaitForEvents");
    CL_TRY(ocl.clGetEventProfilingInfo(from, from_what, sizeof t0, &t0, NULL), "clGetEventProfilingInfo");
    CL_TRY(ocl.clGetEventProfilingInfo(to, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL),
           "clGetEventProfilingInfo");
    *out_s = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0.0;
    return 0;
fail:
    return 1;
}

static int opencl_copy(struct baselines *bl, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, char *err,
                       size_t err_size) {
    cl_event ev = NULL;
    CL_TRY(ocl.clEnqueueCopyBuffer((cl_command_queue)bl->queue, cl_buf(src), cl_buf(dst), 0, 0, bytes, 0, NULL, &ev),
           "clEnqueueCopyBuffer");
    if (cl_times(ev, CL_PROFILING_COMMAND_START, ev, out_s, err, err_size))
        goto fail;
    ocl.clReleaseEvent(ev);
    return 0;
fail:
    if (ev)
        ocl.clReleaseEvent(ev);
    ocl.clFinish((cl_command_queue)bl->queue);
    return 1;
}

#if defined(BENCH_HAVE_CLBLAST)
static int opencl_gemm(struct baselines *bl, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C,
                       double *out_s, char *err, size_t err_size) {
    cl_command_queue q = (cl_command_queue)bl->queue;
    cl_event e0 = NULL, e1 = NULL;
    const cl_uint zero = 0;
    CL_TRY(ocl.clEnqueueFillBuffer(q, cl_buf(bl->cl_scratch), &zero, sizeof zero, 0, sizeof zero, 0, NULL, &e0),
           "clEnqueueFillBuffer (start of the CLBlast bracket)");
    CLBlastStatusCode s = clb.CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, 1.0f,
                                           cl_buf(A), 0, k, cl_buf(B), 0, n, 0.0f, cl_buf(C), 0, n, &q, &e1);
    if (s != CLBlastSuccess) {
        snprintf(err, err_size, "CLBlastSgemm: status %d", (int)s);
        goto fail;
    }
    if (cl_times(e0, CL_PROFILING_COMMAND_END, e1, out_s, err, err_size))
        goto fail;
    ocl.clReleaseEvent(e0);
    ocl.clReleaseEvent(e1);
    return 0;
fail:
    if (e0)
        ocl.clReleaseEvent(e0);
    if (e1)
        ocl.clReleaseEvent(e1);
    ocl.clFinish(q);
    return 1;
}
#endif

typedef struct cl_launch_ctx {
    cl_command_queue queue;
    cl_kernel kernel;
} cl_launch_ctx;

static int cl_launch_one(void *ctx, int sync, char *err, size_t err_size) {
    cl_launch_ctx *c = ctx;
    const size_t global = 1, local = 1;
    CL_TRY(ocl.clEnqueueNDRangeKernel(c->queue, c->kernel, 1, NULL, &global, &local, 0, NULL, NULL),
           "clEnqueueNDRangeKernel");
    if (sync)
        CL_TRY(ocl.clFinish(c->queue), "clFinish");
    return 0;
fail:
    return 1;
}

static void opencl_launch(bdev *b, int n_submit, int n_sync, launch_cost *lc) {
    struct baselines *bl = b->bl;
    char *err = lc->vendor_reason;
    size_t err_size = sizeof lc->vendor_reason;
    snprintf(lc->vendor_name, sizeof lc->vendor_name, "clEnqueueNDRangeKernel");
    if (!ocl.ok || !bl->queue) {
        copy_text(err, err_size, ocl.ok ? "no native queue" : ocl.reason);
        return;
    }
    cl_launch_ctx c = {(cl_command_queue)bl->queue, NULL};
    cl_program prog = NULL;
    cl_device_id dev = NULL;
    cl_int e = CL_SUCCESS;
    double t0 = now_s();
    CL_TRY(ocl.clGetCommandQueueInfo(c.queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL), "clGetCommandQueueInfo");
    const char *src = bench_empty_cl;
    size_t len = strlen(src);
    prog = ocl.clCreateProgramWithSource((cl_context)bl->ctx, 1, &src, &len, &e);
    CL_TRY(e, "clCreateProgramWithSource");
    CL_TRY(ocl.clBuildProgram(prog, 1, &dev, "", NULL, NULL), "clBuildProgram (the empty kernel)");
    c.kernel = ocl.clCreateKernel(prog, "hcl_bench_empty", &e);
    CL_TRY(e, "clCreateKernel");
    lc->vendor_module_s = now_s() - t0;
    if (!time_launches(cl_launch_one, &c, n_submit, n_sync, &lc->vendor_submit_us, &lc->vendor_sync_us, err, err_size))
        lc->vendor_ran = 1;
fail:
    if (c.kernel)
        ocl.clReleaseKernel(c.kernel);
    if (prog)
        ocl.clReleaseProgram(prog);
}
#endif /* BENCH_HAVE_OPENCL */

/* =========================================================================================================
 * Host: OpenBLAS and memcpy
 * ======================================================================================================= */
#if defined(BENCH_HAVE_CBLAS)
static struct {
    __typeof__(cblas_sgemm) *cblas_sgemm;
    __typeof__(openblas_get_config) *openblas_get_config;         /* optional */
    __typeof__(openblas_get_num_threads) *openblas_get_num_threads; /* optional */
    int ok;
    char reason[1200];
} ob;
static lib lib_openblas;

static void openblas_load(void) {
    static int done;
    if (done)
        return;
    done = 1;
    static const char *const cands[] = {"libopenblas.so.0", "libopenblas.so", NULL};
    lib_open(&lib_openblas, "HCL_OPENBLAS_LIBRARY", cands);
    char missing[256] = "";
    if (!lib_openblas.handle) {
        snprintf(ob.reason, sizeof ob.reason, "OpenBLAS could not be opened: %s", lib_openblas.reason);
        return;
    }
    ob.cblas_sgemm = (__typeof__(ob.cblas_sgemm))sym(&lib_openblas, "cblas_sgemm", missing, sizeof missing);
    ob.openblas_get_config = (__typeof__(ob.openblas_get_config))sym(&lib_openblas, "openblas_get_config", NULL, 0);
    ob.openblas_get_num_threads =
        (__typeof__(ob.openblas_get_num_threads))sym(&lib_openblas, "openblas_get_num_threads", NULL, 0);
    if (missing[0])
        snprintf(ob.reason, sizeof ob.reason, "%s lacks %s", lib_openblas.path, missing);
    else
        ob.ok = 1;
}
#endif

static void host_open(bdev *b) {
    base_info *g = &b->run->bases[BASE_GEMM], *c = &b->run->bases[BASE_COPY];
    set_base(g, "OpenBLAS SGEMM", "cblas_sgemm (CblasRowMajor) on the HCL buffers' data pointers, OpenBLAS's own "
             "threads; timed with the wall clock");
    set_base(c, "memcpy", "memcpy of the same bytes between the HCL buffers' data pointers, counted read + write as "
             "BabelStream's copy; timed with the wall clock");
    c->available = 1;
    snprintf(c->library, sizeof c->library, "libc");
#if defined(BENCH_HAVE_CBLAS)
    openblas_load();
    if (!ob.ok) {
        copy_text(g->reason, sizeof g->reason, ob.reason);
        return;
    }
    g->available = 1;
    copy_text(g->library, sizeof g->library, lib_openblas.path);
    if (ob.openblas_get_config)
        copy_text(g->version, sizeof g->version, ob.openblas_get_config());
    if (ob.openblas_get_num_threads)
        appendf(g->version, sizeof g->version, "%s%d threads", g->version[0] ? ", " : "",
                ob.openblas_get_num_threads());
#else
    NOT_BUILT(g, "cblas.h");
#endif
}

static void *host_ptr(hcl_buffer buf) {
    void *p = NULL;
    hcl_buffer_get_native(buf, &p);
    return p;
}

/* =========================================================================================================
 * Dispatch
 * ======================================================================================================= */
void baselines_open(bdev *b) {
    struct baselines *bl = xcalloc(1, sizeof *bl);
    b->bl = bl;
    base_info *bases = b->run->bases;
    memset(bases, 0, sizeof b->run->bases);
    bl->backend = which_backend(b->info.backend);
    if (!b->opt->baselines) {
        for (int i = 0; i < BASE_COUNT; i++)
            snprintf(bases[i].reason, sizeof bases[i].reason, "--no-baselines");
        return;
    }
    switch (bl->backend) {
    case BK_CUDA:
#if defined(BENCH_HAVE_CUDA)
        cuda_open(b, bl);
#else
        set_base(&bases[BASE_GEMM], "cuBLAS SGEMM", "");
        set_base(&bases[BASE_COPY], "cuMemcpyDtoDAsync", "");
        set_base(&bases[BASE_REDUCE], "CUB DeviceReduce::Sum", "");
        for (int i = 0; i < BASE_COUNT; i++)
            NOT_BUILT(&bases[i], "cuda.h (the CUDA toolkit)");
#endif
        break;
    case BK_OPENCL:
#if defined(BENCH_HAVE_OPENCL)
        opencl_open(b, bl);
#else
        set_base(&bases[BASE_GEMM], "CLBlast SGEMM", "");
        set_base(&bases[BASE_COPY], "clEnqueueCopyBuffer", "");
        NOT_BUILT(&bases[BASE_GEMM], "CL/cl.h");
        NOT_BUILT(&bases[BASE_COPY], "CL/cl.h");
#endif
        break;
    case BK_HOST:
        host_open(b);
        break;
    default:
        break;
    }
    for (int i = 0; i < BASE_COUNT; i++)
        if (!bases[i].applicable)
            snprintf(bases[i].reason, sizeof bases[i].reason, "none for backend %s", b->info.backend);
}

void baselines_close(bdev *b) {
    struct baselines *bl = b->bl;
    if (!bl)
        return;
#if defined(BENCH_HAVE_CUDA)
    if (bl->backend == BK_CUDA)
        cuda_close(b, bl);
#endif
#if defined(BENCH_HAVE_OPENCL)
    if (bl->backend == BK_OPENCL)
        opencl_close(bl);
#endif
    free(bl);
    b->bl = NULL;
}

int base_gemm_run(bdev *b, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C, double *out_s,
                  measure *ms) {
    struct baselines *bl = b->bl;
    (void)bl, (void)m, (void)n, (void)k, (void)A, (void)B, (void)C, (void)out_s;
    switch (bl->backend) {
#if defined(BENCH_HAVE_CUDA)
    case BK_CUDA: return cuda_gemm(bl, m, n, k, A, B, C, out_s, ms->error, sizeof ms->error);
#endif
#if defined(BENCH_HAVE_OPENCL) && defined(BENCH_HAVE_CLBLAST)
    case BK_OPENCL: return opencl_gemm(bl, m, n, k, A, B, C, out_s, ms->error, sizeof ms->error);
#endif
#if defined(BENCH_HAVE_CBLAS)
    case BK_HOST: {
        if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
            snprintf(ms->error, sizeof ms->error, "cblas_sgemm takes int dimensions");
            return 1;
        }
        const float *a = host_ptr(A), *bb = host_ptr(B);
        float *c = host_ptr(C);
        double t0 = now_s();
        ob.cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k, bb, (int)n,
                       0.0f, c, (int)n);
        *out_s = now_s() - t0;
        return 0;
    }
#endif
    default:
        snprintf(ms->error, sizeof ms->error, "no GEMM baseline for backend %s", b->info.backend);
        return 1;
    }
}

int base_copy_run(bdev *b, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, measure *ms) {
    struct baselines *bl = b->bl;
    switch (bl->backend) {
#if defined(BENCH_HAVE_CUDA)
    case BK_CUDA: return cuda_copy(bl, src, dst, bytes, out_s, ms->error, sizeof ms->error);
#endif
#if defined(BENCH_HAVE_OPENCL)
    case BK_OPENCL: return opencl_copy(bl, src, dst, bytes, out_s, ms->error, sizeof ms->error);
#endif
    case BK_HOST: {
        void *d = host_ptr(dst);
        const void *s = host_ptr(src);
        double t0 = now_s();
        memcpy(d, s, bytes);
        *out_s = now_s() - t0;
        return 0;
    }
    default:
        (void)src, (void)dst, (void)bytes, (void)out_s;
        snprintf(ms->error, sizeof ms->error, "no copy baseline for backend %s", b->info.backend);
        return 1;
    }
}

int base_reduce_run(bdev *b, hcl_buffer in, hcl_buffer out, size_t n, double *out_s, measure *ms) {
#if defined(BENCH_HAVE_CUDA)
    if (b->bl->backend == BK_CUDA)
        return cuda_reduce(b, b->bl, in, out, n, out_s, ms->error, sizeof ms->error);
#endif
    (void)in, (void)out, (void)n, (void)out_s;
    snprintf(ms->error, sizeof ms->error, "no reduce baseline for backend %s", b->info.backend);
    return 1;
}

void vendor_launch_cost(bdev *b, int n_submit, int n_sync, launch_cost *lc) {
    (void)n_submit, (void)n_sync;
    switch (b->bl->backend) {
    case BK_CUDA:
#if defined(BENCH_HAVE_CUDA)
        cuda_launch(b, n_submit, n_sync, lc);
#else
        snprintf(lc->vendor_name, sizeof lc->vendor_name, "cuLaunchKernel");
        snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "not built: cuda.h was not found when bench was built");
#endif
        break;
    case BK_OPENCL:
#if defined(BENCH_HAVE_OPENCL)
        opencl_launch(b, n_submit, n_sync, lc);
#else
        snprintf(lc->vendor_name, sizeof lc->vendor_name, "clEnqueueNDRangeKernel");
        snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "not built: CL/cl.h was not found when bench was built");
#endif
        break;
    case BK_HOST:
        snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "no vendor launch on the host backend");
        break;
    default:
        snprintf(lc->vendor_reason, sizeof lc->vendor_reason, "no raw launch path in bench for backend %s",
                 b->info.backend);
        break;
    }
}
