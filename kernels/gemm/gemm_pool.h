/* The host GEMM's worker threads (kernels/gemm/gemm_pool.c): internal to kernels/gemm. */
#ifndef HCL_GEMM_POOL_H
#define HCL_GEMM_POOL_H

#include <stddef.h>

/* One thread's share of a job: `slot` is 0 for the caller, 1.. for the workers that joined (each slot once). It
 * takes its work from a shared counter in ctx, so it may find none. */
typedef void (*hcl_gemm_pool_fn)(void *ctx, size_t slot);

/* Runs fn(ctx, slot) on the calling thread and on up to threads - 1 worker threads (started on first use, stopped
 * when the library is unloaded), and returns once every worker that took part has returned; a worker that wakes
 * after the caller's share ended does not take part. Slots are below `threads`. Blocks. When another call holds the
 * workers, or threads is 1 or less, or the platform has no POSIX threads, fn runs on the caller alone. Returns the
 * number of threads that took part (1 or more). */
size_t hcl__gemm_pool_run(size_t threads, hcl_gemm_pool_fn fn, void *ctx);

#endif
