/* CUDA baselines: cuBLAS SGEMM, cuMemcpyDtoDAsync and CUB's DeviceReduce::Sum on HCL's CUstream and buffers, timed
 * with CUDA events recorded on that stream; and the raw cuLaunchKernel of the empty kernel. libcuda.so.1, cuBLAS and
 * libhcl-bench-cub.so are opened with dlopen; every prototype comes from cuda.h, cublas_api.h and cub_reduce.h
 * (function pointers are declared with __typeof__ of the header's declaration). HCL's context is the device's
 * primary context; it is made current (cuCtxPushCurrent) around every call here. Compiled only with
 * BENCH_HAVE_CUDA. */
#define _POSIX_C_SOURCE 200809L

#include "vendor.h"

#include "cub_reduce.h"
#include <cublas_api.h>
#include <cuda.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* =========================================================================================================
 * CUDA: libcuda.so.1 (events, copies, launches), cuBLAS, libhcl-bench-cub.so
 * ======================================================================================================= */
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM) || defined(cuEventRecord) || defined(cuLaunchKernel) ||                \
    defined(cuStreamSynchronize) || defined(cuModuleLoadData) || defined(cuModuleGetFunction)
#error "these names must be the exported symbols themselves, not per-thread-stream macros"
#endif
/* Names are the exported symbols; cuda.h maps the unversioned names of the _v2 ones to them. */
/* clang-format off: one vendor name per list entry, as the vendor headers order them */
// clang-format off
#define BENCH_CU_SYMS(X)                                                                                               \
    X(cuGetErrorName)                                                                                                  \
    X(cuDriverGetVersion)                                                                                              \
    X(cuCtxPushCurrent_v2) X(cuCtxPopCurrent_v2) X(cuEventCreate) X(cuEventDestroy_v2) X(cuEventRecord)                \
        X(cuEventSynchronize) X(cuMemcpyDtoDAsync_v2) X(cuStreamSynchronize) X(cuModuleLoadData) X(cuModuleUnload)     \
            X(cuModuleGetFunction) X(cuLaunchKernel)
// clang-format on
#define BENCH_CUBLAS_SYMS(X)                                                                                           \
    X(cublasCreate_v2)                                                                                                 \
    X(cublasDestroy_v2)                                                                                                \
    X(cublasSetStream_v2) X(cublasSgemm_v2) X(cublasGemmEx) X(cublasGetMathMode) X(cublasGetVersion_v2)
#define BENCH_CUB_SYMS(X)                                                                                              \
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
    static const char *const cands[] = {"libcuda.so.1", "libcuda.so", NULL};
    if (!lib_open(&lib_cuda, "HCL_CUDA_LIBRARY", cands)) return; /* loaded before (libcuda, cuBLAS and CUB together) */
    char missing[512] = "";
#define RESOLVE(name) cu.name = (__typeof__(cu.name))lib_sym(&lib_cuda, #name, missing, sizeof missing);
    BENCH_CU_SYMS(RESOLVE)
#undef RESOLVE
    cu.elapsed = (__typeof__(cu.elapsed))lib_sym(&lib_cuda, "cuEventElapsedTime_v2", NULL, 0);
    if (!cu.elapsed)
        cu.elapsed = (__typeof__(cu.elapsed))lib_sym(&lib_cuda, "cuEventElapsedTime", missing, sizeof missing);
    cu.ok = lib_ready(&lib_cuda, "libcuda", missing, cu.reason, sizeof cu.reason);
    /* cuBLAS: the loader path first, then the toolkit folders */
    static const char *const sonames[] = {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
    const char *homes[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
    char paths[6][512];
    const char *list[10];
    int n = 0;
    for (int i = 0; i < 3; i++) list[n++] = sonames[i];
    for (int h = 0, p = 0; h < 3; h++)
        for (int v = 0; v < 2 && homes[h] && *homes[h]; v++, p++) {
            snprintf(paths[p], sizeof paths[p], "%s/lib64/%s", homes[h], sonames[v]);
            list[n++] = paths[p];
        }
    list[n] = NULL;
    lib_open(&lib_cublas, "HCL_CUBLAS_LIBRARY", list);
    missing[0] = '\0';
#define RESOLVE(name) cb.name = (__typeof__(cb.name))lib_sym(&lib_cublas, #name, missing, sizeof missing);
    BENCH_CUBLAS_SYMS(RESOLVE)
#undef RESOLVE
    cb.cublasGetStatusName = (__typeof__(cb.cublasGetStatusName))lib_sym(&lib_cublas, "cublasGetStatusName", NULL, 0);
    cb.ok = lib_ready(&lib_cublas, "cuBLAS", missing, cb.reason, sizeof cb.reason);
    /* CUB: built next to libhcl (build/lib) or installed with it */
    char dir[4096], p1[4200], p2[4200];
    exe_dir(dir, sizeof dir);
    snprintf(p1, sizeof p1, "%s/../lib/libhcl-bench-cub.so", dir);
    snprintf(p2, sizeof p2, "%s/libhcl-bench-cub.so", dir);
    const char *cub_list[] = {p1, p2, "libhcl-bench-cub.so", NULL};
    lib_open(&lib_cub, "HCL_BENCH_CUB_LIBRARY", cub_list);
    missing[0] = '\0';
#define RESOLVE(name) cub.name = (__typeof__(cub.name))lib_sym(&lib_cub, #name, missing, sizeof missing);
    BENCH_CUB_SYMS(RESOLVE)
#undef RESOLVE
    cub.ok = lib_ready(&lib_cub, "libhcl-bench-cub.so (built with bench when nvcc is found)", missing, cub.reason,
                       sizeof cub.reason);
}

static const char *cu_err(CUresult r) {
    const char *name = NULL;
    if (!cu.cuGetErrorName || cu.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name) return "CUDA error (unnamed)";
    return name;
}

static const char *cublas_err(cublasStatus_t s) {
    const char *name = cb.cublasGetStatusName ? cb.cublasGetStatusName(s) : NULL;
    return name ? name : "cuBLAS error";
}

/* Whether a call failed (r is not CUDA_SUCCESS); then err says "what: NAME (code)". */
static int cu_failed(CUresult r, const char *what, char *err, size_t err_size) {
    if (r == CUDA_SUCCESS) return 0;
    snprintf(err, err_size, "%s: %s (%d)", what, cu_err(r), (int)r);
    return 1;
}

#define CU_TRY(call, what)                                                                                             \
    do {                                                                                                               \
        if (cu_failed((call), what, err, err_size)) goto fail;                                                         \
    } while (0)

static int cu_push(struct baselines *bl, char *err, size_t err_size) {
    return cu_failed(cu.cuCtxPushCurrent_v2((CUcontext)bl->ctx), "cuCtxPushCurrent (HCL's primary context)", err,
                     err_size);
}

static void cu_pop(void) {
    CUcontext popped;
    cu.cuCtxPopCurrent_v2(&popped);
}

static void cuda_open(bdev *b, struct baselines *bl) {
    base_info *g = &b->run->bases[BASE_GEMM], *c = &b->run->bases[BASE_COPY], *r = &b->run->bases[BASE_REDUCE];
    set_base(g, "cuBLAS SGEMM",
             "cublasSgemm_v2 on HCL's CUstream and buffers, row-major C = A*B computed as "
             "C^T = B^T A^T, default math mode (CUBLAS_DEFAULT_MATH: no TF32); timed with cuEventRecord");
    set_base(c, "cuMemcpyDtoDAsync",
             "device-to-device copy of the same bytes on HCL's CUstream, counted read + "
             "write as BabelStream's copy; timed with cuEventRecord");
    set_base(r, "CUB DeviceReduce::Sum",
             "cub::DeviceReduce::Sum on HCL's CUstream (libhcl-bench-cub.so, built by "
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
    if (st == HCL_SUCCESS) st = hcl_queue_get_native(b->queue, &bl->queue);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(c->reason, sizeof c->reason, st, "hcl_*_get_native");
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
    CUevent e0 = NULL, e1 = NULL;
    CU_TRY(cu.cuEventCreate(&e0, CU_EVENT_DEFAULT), "cuEventCreate");
    bl->ev0 = e0;
    CU_TRY(cu.cuEventCreate(&e1, CU_EVENT_DEFAULT), "cuEventCreate");
    bl->ev1 = e1;
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
        cublasHandle_t h = NULL;
        cublasStatus_t s = cb.cublasCreate_v2(&h);
        if (s == CUBLAS_STATUS_SUCCESS) bl->blas = h;
        if (s == CUBLAS_STATUS_SUCCESS) s = cb.cublasSetStream_v2(h, (cudaStream_t)bl->queue);
        cublasMath_t mode = CUBLAS_DEFAULT_MATH;
        if (s == CUBLAS_STATUS_SUCCESS) s = cb.cublasGetMathMode(h, &mode);
        int ver = 0;
        if (s == CUBLAS_STATUS_SUCCESS) s = cb.cublasGetVersion_v2(h, &ver);
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
            if (tf32) hcl_ts_appendf(g->note, sizeof g->note, "; NVIDIA_TF32_OVERRIDE=%s is set", tf32);
        }
    }
    /* the typed GEMMs: cublasGemmEx on the same handle, float32 accumulation; TF32 only in the TF32 row */
    static const char *const typed_name[3] = {"cuBLAS GemmEx TF32", "cuBLAS GemmEx f16", "cuBLAS GemmEx bf16"};
    static const char *const typed_note[3] = {
        "cublasGemmEx, f32 A, B, C, CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 on the tensor cores), row-major as C^T = "
        "B^T A^T on HCL's CUstream; timed with cuEventRecord",
        "cublasGemmEx, CUDA_R_16F A, B and C, CUBLAS_COMPUTE_32F (float32 accumulation), row-major as C^T = B^T A^T "
        "on HCL's CUstream; timed with cuEventRecord",
        "cublasGemmEx, CUDA_R_16BF A, B and C, CUBLAS_COMPUTE_32F (float32 accumulation), row-major as C^T = B^T A^T "
        "on HCL's CUstream; timed with cuEventRecord"};
    for (int i = 0; i < 3; i++) {
        base_info *t = &b->run->bases[BASE_GEMM_TF32 + i];
        set_base(t, typed_name[i], typed_note[i]);
        t->available = g->available;
        copy_text(t->library, sizeof t->library, g->library);
        copy_text(t->version, sizeof t->version, g->version);
        copy_text(t->reason, sizeof t->reason, g->reason);
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

static void cuda_close(struct baselines *bl) {
    if (!bl->cu_ready) return;
    char err[256];
    size_t err_size = sizeof err;
    if (cu_push(bl, err, err_size)) return;
    cu.cuStreamSynchronize((CUstream)bl->queue);
    if (bl->blas) cb.cublasDestroy_v2((cublasHandle_t)bl->blas);
    cu.cuEventDestroy_v2((CUevent)bl->ev0);
    cu.cuEventDestroy_v2((CUevent)bl->ev1);
    cu_pop();
    if (bl->cub_temp) hcl_buffer_release(bl->cub_temp);
}

static CUdeviceptr cu_ptr(hcl_buffer buf) {
    void *p = NULL;
    hcl_buffer_get_native(buf, &p);
    return (CUdeviceptr)(uintptr_t)p;
}

/* Record ev0, make the call, record ev1, wait: the device time between the two events. */
#define CU_TIMED(bl, call_ok, out_s)                                                                                   \
    do {                                                                                                               \
        float ms_ = 0.0f;                                                                                              \
        CU_TRY(cu.cuEventRecord((CUevent)(bl)->ev0, (CUstream)(bl)->queue), "cuEventRecord");                          \
        if (!(call_ok)) goto fail;                                                                                     \
        CU_TRY(cu.cuEventRecord((CUevent)(bl)->ev1, (CUstream)(bl)->queue), "cuEventRecord");                          \
        CU_TRY(cu.cuEventSynchronize((CUevent)(bl)->ev1), "cuEventSynchronize");                                       \
        CU_TRY(cu.elapsed(&ms_, (CUevent)(bl)->ev0, (CUevent)(bl)->ev1), "cuEventElapsedTime");                        \
        *(out_s) = (double)ms_ * 1e-3;                                                                                 \
    } while (0)

/* The end of a timed call, with the context pushed: a failed one waits for what it left on the stream. Returns
 * failed. */
static int cu_end(struct baselines *bl, int failed) {
    if (failed) cu.cuStreamSynchronize((CUstream)bl->queue);
    cu_pop();
    return failed;
}

/* A cuBLAS GEMM: kind BASE_GEMM is SGEMM (cublasSgemm_v2, default math mode), the typed ones (BASE_GEMM_TF32, _F16,
 * _BF16) cublasGemmEx with float32 accumulation, C in the inputs' type. */
static int cuda_gemm_typed(struct baselines *bl, int kind, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B,
                           hcl_buffer C, double *out_s, char *err, size_t err_size) {
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
        snprintf(err, err_size, "cuBLAS (32-bit API) takes dimensions up to INT_MAX");
        return 1;
    }
    const cudaDataType_t type = kind == BASE_GEMM_F16 ? CUDA_R_16F : kind == BASE_GEMM_BF16 ? CUDA_R_16BF : CUDA_R_32F;
    const cublasComputeType_t compute = kind == BASE_GEMM_TF32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
    const char *call = kind == BASE_GEMM ? "cublasSgemm_v2" : "cublasGemmEx";
    if (cu_push(bl, err, err_size)) return 1;
    const float one = 1.0f, zero = 0.0f;
    const void *a = (const void *)(uintptr_t)cu_ptr(A), *bb = (const void *)(uintptr_t)cu_ptr(B);
    void *c = (void *)(uintptr_t)cu_ptr(C);
    cublasStatus_t s = CUBLAS_STATUS_SUCCESS;
    /* row-major C (m x n) = A (m x k) B (k x n) is column-major C^T (n x m) = B^T (n x k) A^T (k x m) */
    cublasHandle_t h = (cublasHandle_t)bl->blas;
    CU_TIMED(bl,
             (s = kind == BASE_GEMM ? cb.cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, bb,
                                                        (int)n, a, (int)k, &zero, c, (int)n)
                                    : cb.cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)n, (int)m, (int)k, &one, bb,
                                                      type, (int)n, a, type, (int)k, &zero, c, type, (int)n, compute,
                                                      CUBLAS_GEMM_DEFAULT)) == CUBLAS_STATUS_SUCCESS,
             out_s);
    return cu_end(bl, 0);
fail:
    if (s != CUBLAS_STATUS_SUCCESS) snprintf(err, err_size, "%s: %s (%d)", call, cublas_err(s), (int)s);
    return cu_end(bl, 1);
}

static int cuda_gemm(struct baselines *bl, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C,
                     double *out_s, char *err, size_t err_size) {
    return cuda_gemm_typed(bl, BASE_GEMM, m, n, k, A, B, C, out_s, err, err_size);
}

static int cuda_copy(struct baselines *bl, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, char *err,
                     size_t err_size) {
    if (cu_push(bl, err, err_size)) return 1;
    CUresult r = CUDA_SUCCESS;
    CU_TIMED(bl, (r = cu.cuMemcpyDtoDAsync_v2(cu_ptr(dst), cu_ptr(src), bytes, (CUstream)bl->queue)) == CUDA_SUCCESS,
             out_s);
    return cu_end(bl, 0);
fail:
    if (r != CUDA_SUCCESS) snprintf(err, err_size, "cuMemcpyDtoDAsync: %s (%d)", cu_err(r), (int)r);
    return cu_end(bl, 1);
}

static int cuda_reduce(bdev *b, struct baselines *bl, hcl_buffer in, hcl_buffer out, size_t n, double *out_s, char *err,
                       size_t err_size) {
    if (n > INT_MAX) {
        snprintf(err, err_size, "the CUB baseline is built for int item counts (n <= INT_MAX)");
        return 1;
    }
    if (cu_push(bl, err, err_size)) return 1;
    const float *pin = (const float *)(uintptr_t)cu_ptr(in);
    float *pout = (float *)(uintptr_t)cu_ptr(out);
    size_t temp_bytes = 0;
    int e = cub.hcl_bench_cub_sum(NULL, &temp_bytes, pin, pout, (int)n, bl->queue);
    if (e != 0) {
        snprintf(err, err_size, "cub::DeviceReduce::Sum (size query): %s (%d)", cub.hcl_bench_cub_error_name(e), e);
        goto fail;
    }
    if (temp_bytes > bl->cub_temp_size || !bl->cub_temp) {
        if (bl->cub_temp) hcl_buffer_release(bl->cub_temp);
        bl->cub_temp = NULL;
        bl->cub_temp_size = 0;
        hcl_status st = hcl_buffer_create(b->device, temp_bytes ? temp_bytes : 4, 0, &bl->cub_temp);
        if (st != HCL_SUCCESS) {
            hcl_ts_status_text(err, err_size, st, "CUB scratch of %zu bytes: hcl_buffer_create", temp_bytes);
            goto fail;
        }
        bl->cub_temp_size = temp_bytes;
    }
    void *temp = (void *)(uintptr_t)cu_ptr(bl->cub_temp);
    e = 0;
    CU_TIMED(bl, (e = cub.hcl_bench_cub_sum(temp, &temp_bytes, pin, pout, (int)n, bl->queue)) == 0, out_s);
    return cu_end(bl, 0);
fail:
    if (e != 0) snprintf(err, err_size, "cub::DeviceReduce::Sum: %s (%d)", cub.hcl_bench_cub_error_name(e), e);
    return cu_end(bl, 1);
}

static int cu_launch_one(const launch_ctx *c, int sync, char *err, size_t err_size) {
    CUstream s = (CUstream)c->queue;
    return cu_failed(cu.cuLaunchKernel((CUfunction)c->kernel, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL), "cuLaunchKernel",
                     err, err_size) ||
           (sync && cu_failed(cu.cuStreamSynchronize(s), "cuStreamSynchronize", err, err_size));
}

/* The raw side's rounds run with HCL's context current (pushed for the round, popped after). */
static CUcontext launch_ctx_of; /* the context of the launch being timed (one at a time) */
static int cu_launch_enter(char *err, size_t err_size) {
    return cu_failed(cu.cuCtxPushCurrent_v2(launch_ctx_of), "cuCtxPushCurrent (HCL's primary context)", err, err_size);
}

/* The raw launch timed as the tracer times a command: an event recorded before and after each launch (events made
 * before the rounds, as HCL's pool keeps them), and after the wait that ends the launches two cuEventElapsedTime per
 * launch: an anchor event (recorded and waited for at the start of each round, as the tracer anchors a queue once per
 * trace) to the launch's end, and the launch's start to its end. */
static struct {
    CUevent *ev; /* 2 per launch: start, end */
    int cap, used;
    CUevent anchor;
    CUstream stream;
} cu_timed;

static int cu_timed_enter(char *err, size_t err_size) {
    if (cu_launch_enter(err, err_size)) return 1;
    cu_timed.used = 0;
    if (cu_failed(cu.cuEventRecord(cu_timed.anchor, cu_timed.stream), "cuEventRecord (the anchor)", err, err_size) ||
        cu_failed(cu.cuEventSynchronize(cu_timed.anchor), "cuEventSynchronize (the anchor)", err, err_size)) {
        cu_pop();
        return 1;
    }
    return 0;
}

static int cu_timed_one(const launch_ctx *c, int sync, char *err, size_t err_size) {
    CUstream s = (CUstream)c->queue;
    if (cu_timed.used + 2 > cu_timed.cap) {
        snprintf(err, err_size, "more launches before a wait than bench made events for (%d)", cu_timed.cap / 2);
        return 1;
    }
    CUevent b = cu_timed.ev[cu_timed.used], e = cu_timed.ev[cu_timed.used + 1];
    if (cu_failed(cu.cuEventRecord(b, s), "cuEventRecord", err, err_size) ||
        cu_failed(cu.cuLaunchKernel((CUfunction)c->kernel, 1, 1, 1, 1, 1, 1, 0, s, NULL, NULL), "cuLaunchKernel", err,
                  err_size) ||
        cu_failed(cu.cuEventRecord(e, s), "cuEventRecord", err, err_size))
        return 1;
    cu_timed.used += 2;
    if (!sync) return 0;
    if (cu_failed(cu.cuStreamSynchronize(s), "cuStreamSynchronize", err, err_size)) return 1;
    for (int i = 0; i < cu_timed.used; i += 2) {
        float to_end = 0.0f, duration = 0.0f;
        if (cu_failed(cu.elapsed(&to_end, cu_timed.anchor, cu_timed.ev[i + 1]), "cuEventElapsedTime", err, err_size) ||
            cu_failed(cu.elapsed(&duration, cu_timed.ev[i], cu_timed.ev[i + 1]), "cuEventElapsedTime", err, err_size))
            return 1;
    }
    cu_timed.used = 0;
    return 0;
}

static void cu_timed_free(void) {
    for (int i = 0; i < cu_timed.cap; i++)
        if (cu_timed.ev[i]) cu.cuEventDestroy_v2(cu_timed.ev[i]);
    if (cu_timed.anchor) cu.cuEventDestroy_v2(cu_timed.anchor);
    free(cu_timed.ev);
    memset(&cu_timed, 0, sizeof cu_timed);
}

/* The timed side's events (context pushed); 0, or 1 with lc->timed_reason saying why not. */
static int cu_timed_make(struct baselines *bl, int n_submit, launch_cost *lc) {
    char *err = lc->timed_reason;
    size_t err_size = sizeof lc->timed_reason;
    const int launches = launches_before_wait(n_submit);
    cu_timed.stream = (CUstream)bl->queue;
    if (!(cu_timed.ev = calloc((size_t)launches * 2, sizeof *cu_timed.ev))) {
        snprintf(err, err_size, "out of host memory");
        return 1;
    }
    cu_timed.cap = launches * 2;
    /* default flags: timing enabled, as HCL's events */
    CU_TRY(cu.cuEventCreate(&cu_timed.anchor, CU_EVENT_DEFAULT), "cuEventCreate");
    for (int i = 0; i < cu_timed.cap; i++) CU_TRY(cu.cuEventCreate(&cu_timed.ev[i], CU_EVENT_DEFAULT), "cuEventCreate");
    return 0;
fail:
    cu_timed_free();
    return 1;
}

static void cuda_launch(struct baselines *bl, int n_submit, int n_sync, launch_side *hcl, int nhcl, launch_cost *lc,
                        char *err, size_t err_size) {
    snprintf(lc->timed_name, sizeof lc->timed_name, "cuLaunchKernel + timing event pair");
    if (!bl->cu_ready) {
        copy_text(err, err_size, cu.ok ? "CUDA baseline state not ready" : cu.reason);
        return;
    }
    if (cu_push(bl, err, err_size)) return;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    double t0 = now_s();
    CU_TRY(cu.cuModuleLoadData(&mod, bench_empty_ptx), "cuModuleLoadData (the empty kernel's PTX)");
    CU_TRY(cu.cuModuleGetFunction(&fn, mod, "hcl_bench_empty"), "cuModuleGetFunction");
    launch_ctx c = {bl->queue, fn};
    lc->vendor_module_s = now_s() - t0;
    const int timed_ok = !cu_timed_make(bl, n_submit, lc);
    /* HCL's rounds run as an application calls HCL (no context of ours current: HCL makes its own current inside each
     * call); the raw rounds with HCL's context current, as an application that uses it would have it */
    cu_pop();
    launch_ctx_of = (CUcontext)bl->ctx;
    const launch_side raw = {
        .fn = cu_launch_one, .ctx = c, .enter = cu_launch_enter, .leave = cu_pop, .err = err, .err_size = err_size};
    const launch_side timed = {.fn = cu_timed_one,
                               .ctx = c,
                               .enter = cu_timed_enter,
                               .leave = cu_pop,
                               .err = lc->timed_reason,
                               .err_size = sizeof lc->timed_reason};
    time_raw_beside(hcl, nhcl, &raw, timed_ok ? &timed : NULL, n_submit, n_sync, lc);
    if (cu_push(bl, err, err_size)) return; /* for the module's unload */
fail:
    if (cu_timed.ev) {
        cu.cuStreamSynchronize((CUstream)bl->queue); /* a failed round may have left events recorded */
        cu_timed_free();
    }
    if (mod) cu.cuModuleUnload(mod);
    cu_pop();
}

static void cuda_print_libs(void) {
    cuda_load();
    print_lib("libcuda", &lib_cuda, cu.ok, cu.reason, "");
    print_lib("cuBLAS", &lib_cublas, cb.ok, cb.reason, "");
    char v[128] = "";
    if (cub.ok) {
        int cv = cub.hcl_bench_cub_version(), rt = cub.hcl_bench_cub_cudart_version();
        snprintf(v, sizeof v, "CUB %d.%d.%d, CUDA runtime %d.%d (static)", cv / 100000, cv / 100 % 1000, cv % 100,
                 rt / 1000, rt % 1000 / 10);
    }
    print_lib("CUB (libhcl-bench-cub)", &lib_cub, cub.ok, cub.reason, v);
}

const vendor_ops cuda_ops = {cuda_open, cuda_close,  cuda_gemm,   cuda_gemm_typed,
                             cuda_copy, cuda_reduce, cuda_launch, cuda_print_libs};
