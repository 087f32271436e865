// Element types of the built-in kernels' Vulkan compute shaders (kernels/<op>/<op>.comp), one per compile:
// -DHCL_F32, -DHCL_F16 or -DHCL_BF16 sets T (the type in buffers), LOAD(x) (a float) and STORE(v) (a T). 16-bit types
// are read and written as 16-bit values (storageBuffer16BitAccess) and computed in float32; bf16 as 16-bit integers,
// rounded to nearest even on store (NaN stays a NaN).
#extension GL_EXT_shader_16bit_storage : enable
#extension GL_EXT_shader_explicit_arithmetic_types_int16 : enable
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : enable
#if defined(HCL_F32)
#define T float
#define LOAD(x) (x)
#define STORE(v) (v)
#elif defined(HCL_F16)
#define T float16_t
#define LOAD(x) float(x)
#define STORE(v) float16_t(v)
#elif defined(HCL_BF16)
#define T uint16_t
#define LOAD(x) uintBitsToFloat(uint(x) << 16)
uint16_t hcl_bf16(float v) {
    uint u = floatBitsToUint(v);
    if (isnan(v)) return uint16_t((u >> 16) | 0x40u);
    return uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
#define STORE(v) hcl_bf16(v)
#else
#error "define HCL_F32, HCL_F16 or HCL_BF16"
#endif

// The work-group size: specialisation constants 0, 1, 2 (the driver sets them from the launch's block) in every
// shader, since spirv-link joins them into one module and a WorkgroupSize built-in applies to every entry point of it.
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

// max and min that skip NaN, as OpenCL's fmax and fmin do
float hcl_fmax(float a, float b) { return isnan(a) ? b : isnan(b) ? a : max(a, b); }
float hcl_fmin(float a, float b) { return isnan(a) ? b : isnan(b) ? a : min(a, b); }
