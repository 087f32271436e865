/* The parameters of a SPIR-V kernel, read from the module's own words: the entry point named, its OpFunction, the
 * OpFunctionParameter types (pointer storage classes, integer, float and vector widths) and OpName names. Level Zero
 * states no parameter kinds, so the driver reads them here. Bounded by the size it is given: a module that is
 * truncated, byte-swapped or malformed gives "unknown", never a read past it. */
#ifndef HCL_LEVELZERO_SPIRV_PARAMS_H
#define HCL_LEVELZERO_SPIRV_PARAMS_H

#include "hcl/hcl_driver.h"

#include <stddef.h>
#include <stdint.h>

/* Parameters of entry point `kernel` in `size` bytes of SPIR-V: CrossWorkgroup and UniformConstant pointers are
 * BUFFERs, Workgroup pointers LOCAL, integers, floats and their vectors VALUEs of their size (3-vectors as 4, as
 * OpenCL lays them out), a by-value struct (a Function pointer) a VALUE of unknown size, anything else UNKNOWN.
 * Writes up to `max` and the count. Returns 1 when the entry point was found and read, else 0 (nothing known). */
int hcl__ze_spirv_params(const void *spirv, size_t size, const char *kernel, hcl_driver_param *out, uint32_t max,
                         uint32_t *out_count);

#endif /* HCL_LEVELZERO_SPIRV_PARAMS_H */
