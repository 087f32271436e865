/* What the Vulkan driver needs to know of a compute shader's SPIR-V to launch it and to check a launch's arguments:
 * the storage buffers of descriptor set 0 (their bindings), the push-constant block (its members' offsets and sizes),
 * the work-group size (fixed, or set by specialisation constants 0, 1, 2) and the 16-bit capabilities it declares.
 * Read from the module's own words, bounded by the size given: a truncated or malformed module is refused, never read
 * past. */
#ifndef HCL_VULKAN_SPIRV_REFLECT_H
#define HCL_VULKAN_SPIRV_REFLECT_H

#include <stddef.h>
#include <stdint.h>

#define HCL_VK_MAX_BINDINGS 16
#define HCL_VK_MAX_PUSH 32

typedef struct hcl__vk_reflect {
    uint32_t num_bindings;
    uint32_t bindings[HCL_VK_MAX_BINDINGS]; /* binding numbers of set 0, ascending, each once */
    uint32_t num_push;
    uint32_t push_offset[HCL_VK_MAX_PUSH]; /* the push-constant block's members, by offset */
    uint32_t push_size[HCL_VK_MAX_PUSH];   /* bytes (0: a member whose size is not known) */
    char push_type[HCL_VK_MAX_PUSH][16];   /* "uint32", "float32", "vec4 of float32", ... */
    uint32_t push_bytes;                   /* end of the last member */
    uint32_t local_size[3];                /* OpExecutionMode LocalSize (0 0 0 when absent) */
    int size_from_spec;                    /* the WorkgroupSize built-in is a specialisation constant */
    int cap_16bit_storage;                 /* StorageBuffer16BitAccess (or its uniform form) */
    int cap_float16, cap_int16;
} hcl__vk_reflect;

/* Reflect entry point `entry` (a GLCompute one) of `size` bytes of SPIR-V. Returns 1 on success; 0 with the reason in
 * `why` (not SPIR-V, OpenCL SPIR-V (Kernel capability), no such compute entry point, a descriptor set other than 0,
 * a uniform buffer, more than HCL_VK_MAX_BINDINGS buffers, truncated or malformed). */
int hcl__vk_spirv_reflect(const void *spirv, size_t size, const char *entry, hcl__vk_reflect *out, char *why,
                          size_t why_size);

/* Whether `size` bytes look like a SPIR-V module for Vulkan (the magic number and the Shader capability). */
int hcl__vk_spirv_is_shader(const void *spirv, size_t size);

#endif /* HCL_VULKAN_SPIRV_REFLECT_H */
