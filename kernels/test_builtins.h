/* Test support for the driver tests under drivers/, which must not name a built-in op (a driver knows none):
 *  - hcl_test_builtin_calls runs every built-in op (hcl_kop) through the public API, so a driver's flow test has
 *    the core run each op's launches through the driver under test;
 *  - hcl_test_gpu_kernel_run is the built-in GPU kernels as host code, for a stand-in of a GPU runtime that runs
 *    launches on the host (drivers/hip/test_fakehip.c).
 * The built-ins themselves are tested by the conformance suite, on every backend; this is flow coverage. */
#ifndef HCL_KERNELS_TEST_BUILTINS_H
#define HCL_KERNELS_TEST_BUILTINS_H

#include "hcl/hcl.h"

/* One step: ok or not, what was done, and on failure why. */
typedef void (*hcl_test_report_fn)(void *ctx, int ok, const char *what);

/* Run every built-in op on `q` (of `dev`), several shapes each, some with an event (waited for and released).
 * check: compare every result with a float64 host reference (a device that computes, a stand-in included);
 * 0: check statuses only (a device that computes nothing, as Level Zero's null driver). Returns the number of
 * failed steps. test_builtin_calls.c; links hcl. */
int hcl_test_builtin_calls(hcl_device dev, hcl_queue q, int check, hcl_test_report_fn report, void *ctx);

/* Run the built-in GPU kernel `name` (of the catalogue's GPU program) as host code on a launch's parameters
 * (`params` as cuLaunchKernel / hipModuleLaunchKernel take them), for a launch of `grid_x` x `block_x` on a device
 * whose warp / wavefront is `wave` lanes. Returns 0 when it ran, 1 when the launch is wrong for the kernel (a row
 * given fewer lanes than the kernel needs at that width, a reduce ticket that is not 0: why on stderr), -1 when
 * `name` is no built-in GPU kernel. test_builtin_hostgpu.c; links nothing but libm. */
int hcl_test_gpu_kernel_run(const char *name, void **params, unsigned grid_x, unsigned block_x, unsigned wave);

#endif /* HCL_KERNELS_TEST_BUILTINS_H */
