/* The hooks of the shared CUDA/HIP host code: what drivers/cudahip calls and drivers/cuda/driver.c and
 * drivers/hip/driver.c each define, in one place (gpu.h includes it). Everything else the two drivers run is the
 * shared code; these are where the runtimes really differ (gpu.h lists how). */
#ifndef HCL_CUDAHIP_HOOKS_H
#define HCL_CUDAHIP_HOOKS_H

/* Included by gpu.h after the map: hcl_gpu_result, hcl__gpu_scope and the device types are known. */

/* ---- starting (the kit's start, devices.h) ---- */
/* Open and resolve the runtime (hcl__gpu_resolve), initialise it, note its version in hcl__gpu_driver_version and
 * its process in hcl__gpu_init_pid, then list its devices with hcl__gpu_discover. On failure `reason` says why in
 * the runtime's own words. */
hcl_status hcl__gpu_start(char *reason, size_t reason_size, char *version, size_t version_size);

/* ---- errors ---- */
/* The runtime's own name of an error ("CUDA_ERROR_OUT_OF_MEMORY", "hipErrorOutOfMemory"). */
const char *hcl__gpu_error_name(hcl_gpu_result r);

/* ---- devices ---- */
/* Finish a device's description after the shared part (name, memory, limits; device.c): the vendor, the driver
 * version text, local memory, the UUID or another identity, and the entry's own fields. */
hcl_status hcl__gpu_describe(hcl__gpu_device_entry *e);
/* Finish opening a device after the shared part (device.c): CUDA retains the primary context and notes the
 * compute capability and shared memory limits; HIP notes the target and its wavefront width. */
hcl_status hcl__gpu_device_setup(hcl__gpu_device *d, const hcl__gpu_device_entry *e);
/* Undo hcl__gpu_device_setup at device_close (CUDA: releases the primary context). */
void hcl__gpu_device_teardown(hcl__gpu_device *d);

/* The ordinal of the GPU current on this thread (CUDA: the current context's device; HIP: the current device), for
 * lost.c to note which GPU a sticky error hit. */
hcl_status hcl__gpu_current_ordinal(int *out_ordinal);
/* Reset a GPU after a sticky error, when its last HCL device closes (lost.c decides; CUDA: cuDevicePrimaryCtxReset,
 * HIP: hipDeviceReset on the device). Runs after hcl__gpu_device_teardown. */
void hcl__gpu_device_reset(hcl__gpu_device *d);

/* ---- device faults (lost.c): the bookkeeping behind HCL_ERROR_DEVICE_LOST ---- */
/* An HCL device of GPU `ordinal` was opened. */
void hcl__gpu_lost_open(int ordinal);
/* A call failed with a sticky error (HCL_ERROR_DEVICE_LOST): mark the GPU current on this thread lost. */
void hcl__gpu_lost_note(void);
/* An HCL device of GPU `ordinal` closed: 1 when it was the GPU's last and the GPU is lost (the caller resets it). */
int hcl__gpu_lost_close(int ordinal);

/* Make the device current on this thread for the span of one entry point. Threads may differ from call to call,
 * so every entry that calls the runtime enters a scope; hcl__gpu_leave restores what the caller had current (CUDA:
 * pops the context it pushed; HIP: sets the caller's device back). hcl__gpu_scope is the map's: each runtime keeps
 * different state. */
hcl_status hcl__gpu_enter(const hcl__gpu_device *d, hcl__gpu_scope *scope);
void hcl__gpu_leave(hcl__gpu_scope *scope);

#endif /* HCL_CUDAHIP_HOOKS_H */
