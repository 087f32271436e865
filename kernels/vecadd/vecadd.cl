/* vecadd (OpenCL C 1.2): c[i] = a[i] + b[i] for i < n.
 * Grid-stride over float4 groups, then a scalar tail, so any n and any grid work. vload4/vstore4 need only
 * float alignment. Each element is read and written by the same work-item, so c may alias a or b. */
__kernel void hcl_vecadd_f32(__global const float *a, __global const float *b, __global float *c, ulong n) {
    const size_t gid = get_global_id(0);
    const size_t stride = get_global_size(0);
    const size_t n4 = (size_t)(n / 4);
    for (size_t i = gid; i < n4; i += stride) vstore4(vload4(i, a) + vload4(i, b), i, c);
    for (size_t i = n4 * 4 + gid; i < (size_t)n; i += stride) c[i] = a[i] + b[i];
}
