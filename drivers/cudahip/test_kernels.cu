/* Kernels of the GPU test (test_gpu.c), one source for both drivers: compiled at run time (NVRTC / hiprtc) from
 * the embedded text, and offline into the binaries the test loads as HCL_SOURCE_CUDA_BINARY (nvcc: PTX and a
 * fatbin) or HCL_SOURCE_HIP_BINARY (hipcc --genco, with -include hip/hip_runtime.h: a code-object bundle). No
 * includes, so the run-time compilers take it as it is. */

/* out[i] = stage[n - 1 - i] through dynamic shared memory of n floats (the test asks for more than 48 KiB). */
extern "C" __global__ void reverse_shared(float *out, const float *in, unsigned int n) {
    extern __shared__ float stage[];
    for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) stage[i] = in[i];
    __syncthreads();
    for (unsigned int i = threadIdx.x; i < n; i += blockDim.x) out[i] = stage[n - 1 - i];
}

/* out[i] = a * i + b for i < n, with a 64-bit value parameter to check parameter sizes. */
extern "C" __global__ void affine(float *out, float a, double b, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * (float)i + (float)b;
}
