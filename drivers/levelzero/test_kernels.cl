/* A user kernel for the Level Zero API-flow test (test_null_flow.c), built into SPIR-V at build time: buffer
 * arguments (one at an offset), value arguments and the dynamic local memory as one trailing __local parameter. */
__kernel void hcl_test_scale(__global float *out, __global const float *in, float s, ulong n, __local float *tmp) {
    const size_t i = get_global_id(0), l = get_local_id(0);
    tmp[l] = i < n ? in[i] * s : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n) out[i] = tmp[l];
}
