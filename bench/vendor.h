/* Internal to the baseline files (baselines.c, baselines_cuda.c, baselines_opencl.c): opening vendor libraries
 * and the per-device baseline state. No vendor header here: each vendor's file includes its own. */
#ifndef HCL_BENCH_VENDOR_H
#define HCL_BENCH_VENDOR_H

#include "bench_lib.h"

/* A library opened with dlopen: the first candidate that loads wins; every failure is kept for the reason. */
typedef struct lib {
    int tried;
    void *handle;
    char path[256];
    char reason[1024];
} lib;

/* candidates: NULL-terminated; the environment variable `env`, when set, names the only candidate. Tries once:
 * returns 1 the first time it is called on `l` (opened or not), 0 after. */
int lib_open(lib *l, const char *env, const char *const *candidates);
/* dlsym; a missing name is appended to `missing` (when not NULL). */
void *lib_sym(lib *l, const char *name, char *missing, size_t size);
/* After lib_open and lib_sym: whether the library opened with every required symbol; else `reason` says why (`what`
 * names the library when it did not open). */
int lib_ready(const lib *l, const char *what, const char *missing, char *reason, size_t size);
/* The folder of this executable (for libraries built next to it). */
void exe_dir(char *out, size_t size);
/* Name a baseline that belongs to this backend, with how it is called. */
void set_base(base_info *bi, const char *name, const char *note);
/* One line per vendor library: what loaded, or why not. */
void print_lib(const char *what, const lib *l, int ok, const char *reason, const char *extra);

#define NOT_BUILT(bi, what)                                                                                            \
    snprintf((bi)->reason, sizeof(bi)->reason, "not built: %s was not found when bench was built", what)

enum { BK_OTHER = 0, BK_HOST, BK_OPENCL, BK_CUDA, BK_VULKAN };

/* Per-device state. Vendor handles are kept as void * (CUevent, cublasHandle_t, ... are pointer types). */
struct baselines {
    int backend;
    void *ctx, *queue; /* native device and queue objects */
    int cu_ready;
    void *ev0, *ev1; /* CUevent */
    void *blas;      /* cublasHandle_t */
    hcl_buffer cub_temp;
    size_t cub_temp_size;
    hcl_buffer cl_scratch; /* 4 bytes: the fill that opens a CLBlast bracket */
};

/* A vendor's baselines, as the dispatch in baselines.c calls them (baselines_cuda.c: cuda_ops, only with
 * BENCH_HAVE_CUDA; baselines_opencl.c: opencl_ops, only with BENCH_HAVE_OPENCL; baselines_vulkan.c: vulkan_ops, only
 * with BENCH_HAVE_VULKAN). A NULL entry: the vendor has no such
 * baseline, or it was not built. Errors are written to err (err_size bytes). */
typedef struct vendor_ops {
    void (*open)(bdev *b, struct baselines *bl);
    void (*close)(struct baselines *bl);
    int (*gemm)(struct baselines *bl, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C,
                double *out_s, char *err, size_t err_size);
    int (*gemm_typed)(struct baselines *bl, int kind, size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B,
                      hcl_buffer C, double *out_s, char *err, size_t err_size);
    int (*copy)(struct baselines *bl, hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, char *err,
                size_t err_size);
    int (*reduce)(bdev *b, struct baselines *bl, hcl_buffer in, hcl_buffer out, size_t n, double *out_s, char *err,
                  size_t err_size);
    /* The raw launch of the empty kernel, timed with HCL's nhcl sides hcl[] (time_raw_beside; nhcl 0: alone) once the
     * raw kernel is ready, which leaves HCL's sides untimed if it never gets there (lc->vendor_name is already set;
     * err is lc->vendor_reason); with it, where the vendor has one, the raw launch timed as the tracer times a command
     * (lc->timed_name, lc->timed_reason). */
    void (*launch)(struct baselines *bl, int n_submit, int n_sync, launch_side *hcl, int nhcl, launch_cost *lc,
                   char *err, size_t err_size);
    void (*print_libs)(void);
} vendor_ops;

extern const vendor_ops cuda_ops, opencl_ops, vulkan_ops;

/* baselines_host.c: the host backend's baselines (OpenBLAS SGEMM, the parallel copy); errors go to ms->error. */
void host_open(bdev *b);
int host_gemm(size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C, double *out_s, measure *ms);
int host_copy(hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, measure *ms);
void host_print_libs(void);

#endif
