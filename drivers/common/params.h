/* Kernel parameters from text a driver holds (the driver kit, kit.h): the byte size of a scalar or vector type as
 * OpenCL C or CUDA/HIP C++ spells it, the parameter list of an `extern "C" __global__` kernel in CUDA/HIP source, and
 * that of a PTX `.entry`. Every parser is bounded by the length it is given (the text need not be NUL-terminated)
 * and answers "unknown" rather than guess: a wrong answer would refuse a correct launch. */
#ifndef HCL_DRIVERS_COMMON_PARAMS_H
#define HCL_DRIVERS_COMMON_PARAMS_H

#include "hcl/hcl_driver.h"

#include <stddef.h>
#include <stdint.h>

typedef enum hcl_kit_dialect { HCL_KIT_DIALECT_OPENCL = 0, HCL_KIT_DIALECT_CUDA = 1 } hcl_kit_dialect;

/* Bytes of a value of `type` (len characters; qualifiers `const`/`volatile` and spaces are ignored): the scalars
 * (char .. double, half, the <stdint.h> names and, for CUDA, __half, __nv_bfloat16, size_t) and vectors (OpenCL
 * float4, int3 (sized as 4 elements), CUDA float4, int3 (3 elements)). 0 for anything else: a struct, a typedef, a
 * pointer, a type whose size depends on the device (OpenCL size_t). */
uint32_t hcl__kit_type_size(const char *type, size_t len, hcl_kit_dialect dialect);

/* Fill *p: kind, size, and the name and type texts (copied up to their field sizes, terminated). */
void hcl__kit_param_set(hcl_driver_param *p, hcl_driver_param_kind kind, uint32_t size, const char *name,
                        size_t name_len, const char *type, size_t type_len);

/* The parameters of kernel `kernel` in CUDA/HIP source text: the first `__global__` function of that name whose
 * parameter list parses. A parameter with `*` or `[]` is a BUFFER; one whose type hcl__kit_type_size knows is a VALUE
 * of that size; anything else (a struct, a typedef, a template parameter, a reference) is UNKNOWN. Writes up to
 * `max` parameters and the count. Returns 1 when found and parsed; 0 when not (no such function, a template, a
 * macro, variadic or unbalanced text, or two declarations that disagree): then nothing is known. */
int hcl__kit_cuda_params(const char *source, size_t length, const char *kernel, hcl_driver_param *out, uint32_t max,
                         uint32_t *out_count);

/* The parameters of `.entry <kernel>` in PTX text: `.ptr` marks a BUFFER (PTX from NVRTC/nvcc rarely says it); every
 * other parameter is UNKNOWN with its size (.u32: 4, .b8 x[16]: 16), since a 64-bit value and a pointer look alike.
 * Returns 1 when found and parsed, else 0. */
int hcl__kit_ptx_params(const char *ptx, size_t length, const char *kernel, hcl_driver_param *out, uint32_t max,
                        uint32_t *out_count);

#endif /* HCL_DRIVERS_COMMON_PARAMS_H */
