/* Kernels for ctest levelzero-spirv-params: each parameter form the SPIR-V reader (spirv_params.c) tells apart. */
struct pair {
    int a;
    float b;
};

__kernel void every_kind(__global float *out, __constant int *table, __local float *tmp, float alpha, uint n, ulong big,
                         short h, float4 v4, int3 v3, uchar c, struct pair p) {
    tmp[get_local_id(0)] = alpha * (float)n + (float)big + (float)h + v4.x + (float)v3.y + (float)c + p.b;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[0] + (float)table[0];
}

__kernel void no_params(void) {}

__kernel void scale(__global float *x, float a) { x[get_global_id(0)] *= a; }
