/* How many parameters a kernel takes, read from a CUDA binary the driver loaded (the driver kit, kit.h): an ELF cubin
 * (its `.nv.info.<kernel>` section lists one KPARAM_INFO attribute per parameter), a fatbin (its first uncompressed
 * cubin or PTX entry that has the kernel) or PTX text (the `.entry`). The CUDA driver counts parameters this way so
 * that it never asks the runtime about a parameter past the last one: such a call fails, and a tool that reports
 * failed calls (compute-sanitizer) shows it as the user's error. Bounded by the size it is given; answers
 * "unknown" rather than guess. */
#ifndef HCL_DRIVERS_COMMON_CUBIN_H
#define HCL_DRIVERS_COMMON_CUBIN_H

#include <stddef.h>
#include <stdint.h>

/* The parameter count of kernel `kernel` in the CUDA binary image[0, size): 1 and *out_count when the image says,
 * 0 when it does not (not a cubin, fatbin or PTX; no such kernel; only compressed fatbin entries; an attribute
 * this reader does not know; a truncated or inconsistent image). */
int hcl__kit_cuda_binary_param_count(const void *image, size_t size, const char *kernel, uint32_t *out_count);

#endif /* HCL_DRIVERS_COMMON_CUBIN_H */
