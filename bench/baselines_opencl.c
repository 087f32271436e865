/* OpenCL baselines: CLBlast SGEMM and clEnqueueCopyBuffer on HCL's cl_command_queue and cl_mem, timed with
 * OpenCL profiling events (HCL's queues have profiling on); and the raw clEnqueueNDRangeKernel of the empty kernel,
 * built with clCreateProgramWithSource on HCL's own context. libOpenCL.so.1 and libclblast.so.1 are opened with
 * dlopen; prototypes come from CL/cl.h and clblast_c.h through __typeof__. Compiled only with BENCH_HAVE_OPENCL. */
#define _POSIX_C_SOURCE 200809L

#include "vendor.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#if defined(BENCH_HAVE_CLBLAST)
#include <clblast_c.h>
#endif

#include <stdlib.h>
#include <string.h>

/* =========================================================================================================
 * OpenCL: libOpenCL.so.1 (copies, profiling, launches) and CLBlast
 * ======================================================================================================= */
/* clang-format off: one vendor name per list entry, as the vendor headers order them */
// clang-format off
#define BENCH_CL_SYMS(X)                                                                                               \
    X(clGetCommandQueueInfo)                                                                                           \
    X(clGetDeviceInfo)                                                                                                 \
    X(clEnqueueCopyBuffer) X(clEnqueueFillBuffer) X(clGetEventProfilingInfo) X(clWaitForEvents) X(clReleaseEvent)      \
        X(clCreateProgramWithSource) X(clBuildProgram) X(clGetProgramBuildInfo) X(clCreateKernel)                      \
            X(clEnqueueNDRangeKernel) X(clFinish) X(clReleaseKernel) X(clReleaseProgram)
// clang-format on
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
    static const char *const cands[] = {"libOpenCL.so.1", "libOpenCL.so", NULL};
    if (!lib_open(&lib_ocl, "HCL_OPENCL_LIBRARY", cands)) return; /* loaded before (libOpenCL and CLBlast together) */
    char missing[512] = "";
#define RESOLVE(name) ocl.name = (__typeof__(ocl.name))lib_sym(&lib_ocl, #name, missing, sizeof missing);
    BENCH_CL_SYMS(RESOLVE)
#undef RESOLVE
    ocl.ok = lib_ready(&lib_ocl, "libOpenCL", missing, ocl.reason, sizeof ocl.reason);
#if defined(BENCH_HAVE_CLBLAST)
    static const char *const clb_cands[] = {"libclblast.so.1", "libclblast.so", NULL};
    lib_open(&lib_clblast, "HCL_CLBLAST_LIBRARY", clb_cands);
    missing[0] = '\0';
    clb.CLBlastSgemm = (__typeof__(clb.CLBlastSgemm))lib_sym(&lib_clblast, "CLBlastSgemm", missing, sizeof missing);
    clb.CLBlastClearCache = (__typeof__(clb.CLBlastClearCache))lib_sym(&lib_clblast, "CLBlastClearCache", NULL, 0);
    clb.ok = lib_ready(&lib_clblast, "CLBlast", missing, clb.reason, sizeof clb.reason);
#endif
}

#define CL_TRY(call, what)                                                                                             \
    do {                                                                                                               \
        cl_int e_ = (call);                                                                                            \
        if (e_ != CL_SUCCESS) {                                                                                        \
            snprintf(err, err_size, "%s: OpenCL error %d", what, (int)e_);                                             \
            goto fail;                                                                                                 \
        }                                                                                                              \
    } while (0)

static void opencl_open(bdev *b, struct baselines *bl) {
    base_info *g = &b->run->bases[BASE_GEMM], *c = &b->run->bases[BASE_COPY];
    set_base(g, "CLBlast SGEMM",
             "CLBlastSgemm (CLBlastLayoutRowMajor) on HCL's cl_command_queue and cl_mem; its "
             "first call compiles its kernels (about 11 s on PoCL), which the warm-up runs absorb; timed from the end "
             "of a 4-byte fill enqueued just before to the end of CLBlast's event (in-order queue)");
    set_base(c, "clEnqueueCopyBuffer",
             "buffer copy of the same bytes on HCL's cl_command_queue, counted read + write "
             "as BabelStream's copy; timed by its profiling event");
    opencl_load();
    if (!ocl.ok) {
        copy_text(c->reason, sizeof c->reason, ocl.reason);
        copy_text(g->reason, sizeof g->reason, ocl.reason);
        return;
    }
    hcl_status st = hcl_device_get_native(b->device, &bl->ctx);
    if (st == HCL_SUCCESS) st = hcl_queue_get_native(b->queue, &bl->queue);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(b->device, 4, 0, &bl->cl_scratch);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(c->reason, sizeof c->reason, st, "HCL interop");
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
    if (bl->queue && ocl.ok) ocl.clFinish((cl_command_queue)bl->queue);
#if defined(BENCH_HAVE_CLBLAST)
    /* CLBlast keeps programs of this context in a process-wide cache: drop them while the context is alive */
    if (clb.ok && clb.CLBlastClearCache) clb.CLBlastClearCache();
#endif
    if (bl->cl_scratch) hcl_buffer_release(bl->cl_scratch);
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
    CL_TRY(ocl.clGetEventProfilingInfo(to, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL), "clGetEventProfilingInfo");
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
    if (cl_times(ev, CL_PROFILING_COMMAND_START, ev, out_s, err, err_size)) goto fail;
    ocl.clReleaseEvent(ev);
    return 0;
fail:
    if (ev) ocl.clReleaseEvent(ev);
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
    if (cl_times(e0, CL_PROFILING_COMMAND_END, e1, out_s, err, err_size)) goto fail;
    ocl.clReleaseEvent(e0);
    ocl.clReleaseEvent(e1);
    return 0;
fail:
    if (e0) ocl.clReleaseEvent(e0);
    if (e1) ocl.clReleaseEvent(e1);
    ocl.clFinish(q);
    return 1;
}
#endif

static int cl_launch_one(const launch_ctx *c, int sync, char *err, size_t err_size) {
    const size_t global = 1, local = 1;
    CL_TRY(ocl.clEnqueueNDRangeKernel((cl_command_queue)c->queue, (cl_kernel)c->kernel, 1, NULL, &global, &local, 0,
                                      NULL, NULL),
           "clEnqueueNDRangeKernel");
    if (sync) CL_TRY(ocl.clFinish((cl_command_queue)c->queue), "clFinish");
    return 0;
fail:
    return 1;
}

/* The raw launch timed as the tracer times a command: each launch returns its event (HCL's queue has profiling on),
 * and after the wait that ends the launches, each event's start and end are read and the event released. */
static struct {
    cl_event *ev;
    int cap, used;
} cl_timed;

static int cl_timed_read(char *err, size_t err_size) {
    int bad = 0;
    for (int i = 0; i < cl_timed.used; i++) {
        cl_ulong t0 = 0, t1 = 0;
        if (!bad) {
            cl_int e = ocl.clGetEventProfilingInfo(cl_timed.ev[i], CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
            if (e == CL_SUCCESS)
                e = ocl.clGetEventProfilingInfo(cl_timed.ev[i], CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
            if (e != CL_SUCCESS) {
                snprintf(err, err_size, "clGetEventProfilingInfo: OpenCL error %d", (int)e);
                bad = 1;
            }
        }
        ocl.clReleaseEvent(cl_timed.ev[i]);
    }
    cl_timed.used = 0;
    return bad;
}

static int cl_timed_one(const launch_ctx *c, int sync, char *err, size_t err_size) {
    const size_t global = 1, local = 1;
    if (cl_timed.used == cl_timed.cap) {
        snprintf(err, err_size, "more launches before a wait than bench has room for (%d)", cl_timed.cap);
        return 1;
    }
    CL_TRY(ocl.clEnqueueNDRangeKernel((cl_command_queue)c->queue, (cl_kernel)c->kernel, 1, NULL, &global, &local, 0,
                                      NULL, &cl_timed.ev[cl_timed.used]),
           "clEnqueueNDRangeKernel");
    cl_timed.used++;
    if (sync) {
        CL_TRY(ocl.clFinish((cl_command_queue)c->queue), "clFinish");
        return cl_timed_read(err, err_size);
    }
    return 0;
fail:
    return 1;
}

static void opencl_launch(struct baselines *bl, int n_submit, int n_sync, launch_side *hcl, int nhcl, launch_cost *lc,
                          char *err, size_t err_size) {
    if (!ocl.ok || !bl->queue) {
        copy_text(err, err_size, ocl.ok ? "no native queue" : ocl.reason);
        return;
    }
    launch_ctx c = {bl->queue, NULL};
    cl_program prog = NULL;
    cl_device_id dev = NULL;
    cl_int e = CL_SUCCESS;
    double t0 = now_s();
    CL_TRY(ocl.clGetCommandQueueInfo((cl_command_queue)c.queue, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL),
           "clGetCommandQueueInfo");
    const char *src = bench_empty_cl;
    size_t len = strlen(src);
    prog = ocl.clCreateProgramWithSource((cl_context)bl->ctx, 1, &src, &len, &e);
    CL_TRY(e, "clCreateProgramWithSource");
    CL_TRY(ocl.clBuildProgram(prog, 1, &dev, "", NULL, NULL), "clBuildProgram (the empty kernel)");
    c.kernel = ocl.clCreateKernel(prog, "hcl_bench_empty", &e);
    CL_TRY(e, "clCreateKernel");
    lc->vendor_module_s = now_s() - t0;
    const launch_side raw = {.fn = cl_launch_one, .ctx = c, .err = err, .err_size = err_size};
    cl_command_queue_properties props = 0;
    CL_TRY(ocl.clGetCommandQueueInfo((cl_command_queue)c.queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL),
           "clGetCommandQueueInfo");
    cl_timed.cap = launches_before_wait(n_submit);
    cl_timed.used = 0;
    cl_timed.ev = (props & CL_QUEUE_PROFILING_ENABLE) ? calloc((size_t)cl_timed.cap, sizeof *cl_timed.ev) : NULL;
    const launch_side timed = {
        .fn = cl_timed_one, .ctx = c, .err = lc->timed_reason, .err_size = sizeof lc->timed_reason};
    snprintf(lc->timed_name, sizeof lc->timed_name, "clEnqueueNDRangeKernel + profiling event");
    if (!cl_timed.ev)
        snprintf(lc->timed_reason, sizeof lc->timed_reason, "%s",
                 (props & CL_QUEUE_PROFILING_ENABLE) ? "out of host memory" : "HCL's queue has no profiling");
    time_raw_beside(hcl, nhcl, &raw, cl_timed.ev ? &timed : NULL, n_submit, n_sync, lc);
    if (cl_timed.used) { /* a failed round left events */
        ocl.clFinish((cl_command_queue)c.queue);
        char ignored[8];
        cl_timed_read(ignored, sizeof ignored);
    }
    free(cl_timed.ev);
    cl_timed.ev = NULL;
fail:
    if (c.kernel) ocl.clReleaseKernel((cl_kernel)c.kernel);
    if (prog) ocl.clReleaseProgram(prog);
}

static void opencl_print_libs(void) {
    opencl_load();
    print_lib("libOpenCL", &lib_ocl, ocl.ok, ocl.reason, "");
#if defined(BENCH_HAVE_CLBLAST)
    print_lib("CLBlast", &lib_clblast, clb.ok, clb.reason, "");
#else
    printf("  %-22s not built: clblast_c.h was not found when bench was built\n", "CLBlast");
#endif
}

#if defined(BENCH_HAVE_CLBLAST)
#define OPENCL_GEMM opencl_gemm
#else
#define OPENCL_GEMM NULL /* no CLBlast header at build time: "no GEMM baseline" */
#endif
/* No typed GEMM baseline: CLBlast's HGEMM needs cl_khr_fp16 (NVIDIA's OpenCL and PoCL here have none) and CLBlast has
 * no bf16 GEMM. */
const vendor_ops opencl_ops = {opencl_open, opencl_close, OPENCL_GEMM,   NULL,
                               opencl_copy, NULL,         opencl_launch, opencl_print_libs};
