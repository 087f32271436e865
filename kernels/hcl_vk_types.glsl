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

// max and min that skip NaN, as OpenCL's fmax and fmin do; the sum as a function (for macros that take a function)
float hcl_add(float a, float b) { return a + b; }
float hcl_fmax(float a, float b) { return isnan(a) ? b : isnan(b) ? a : max(a, b); }
float hcl_fmin(float a, float b) { return isnan(a) ? b : isnan(b) ? a : min(a, b); }

// Wide access: a buffer of T also bound as uvec4 words (a second binding of the same buffer at offset 0), HCL_VN
// elements a word (4 float32 or 8 16-bit values), element e of word w being element w * HCL_VN + e of the buffer.
// hcl_unpack gives a word's elements as floats (as LOAD does), hcl_pack makes a word of HCL_VN floats (as STORE does).
#if defined(HCL_F32)
#define HCL_VN 4
void hcl_unpack(uvec4 w, out float f[HCL_VN]) {
    for (int k = 0; k < 4; k++) f[k] = uintBitsToFloat(w[k]);
}
uvec4 hcl_pack(float f[HCL_VN]) { return floatBitsToUint(vec4(f[0], f[1], f[2], f[3])); }
#else
#define HCL_VN 8
// the two 16-bit values of a 32-bit word as floats (the lower-addressed one in .x)
vec2 hcl_unpack2(uint u) {
#if defined(HCL_F16)
    return vec2(unpackFloat2x16(u));
#else
    return vec2(uintBitsToFloat(u << 16), uintBitsToFloat(u & 0xffff0000u));
#endif
}
// a float as the bits of the 16-bit value STORE makes of it
uint hcl_bits16(float v) {
#if defined(HCL_F16)
    return uint(float16BitsToUint16(STORE(v)));
#else
    return uint(STORE(v));
#endif
}
// two floats as the two 16-bit values of a 32-bit word (a in the lower-addressed one)
uint hcl_pack2(float a, float b) { return hcl_bits16(a) | (hcl_bits16(b) << 16); }
void hcl_unpack(uvec4 w, out float f[HCL_VN]) {
    for (int k = 0; k < 4; k++) {
        const vec2 h = hcl_unpack2(w[k]);
        f[2 * k] = h.x;
        f[2 * k + 1] = h.y;
    }
}
uvec4 hcl_pack(float f[HCL_VN]) {
    return uvec4(hcl_pack2(f[0], f[1]), hcl_pack2(f[2], f[3]), hcl_pack2(f[4], f[5]), hcl_pack2(f[6], f[7]));
}
#endif

// A work-group's fold (with -DHCL_GROUP_FOLD): HCL_GROUP_FOLD_FN(name, SG_OP, OP, IDENTITY) defines float name(float v),
// OP of v over the work-group's invocations, returned to every one of them: the subgroups' SG_OP (subgroupAdd,
// subgroupMax, subgroupMin), then the first subgroup's SG_OP of those in shared memory. Deterministic (the same
// shape of adds for the same device); SG_OP must see no NaN where it is a max or min (the callers' values never are).
// Every invocation of the group must call it (it has barriers).
#ifdef HCL_GROUP_FOLD
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
shared float hcl_fold_s[1024]; // a float a subgroup (1024 subgroups at most: groups of at most 1024 invocations)
#define HCL_GROUP_FOLD_FN(name, SG_OP, OP, IDENTITY)                                                                  \
    float name(float v) {                                                                                             \
        v = SG_OP(v);                                                                                                 \
        if (gl_SubgroupInvocationID == 0) hcl_fold_s[gl_SubgroupID] = v;                                              \
        barrier();                                                                                                    \
        v = IDENTITY;                                                                                                 \
        for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize) v = OP(v, hcl_fold_s[k]); \
        v = SG_OP(v);                                                                                                 \
        barrier(); /* hcl_fold_s is reused by the next fold */                                                        \
        return v;                                                                                                     \
    }
#endif
