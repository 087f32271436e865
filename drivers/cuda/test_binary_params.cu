// Kernels of ctest cuda-binary-params (test_binary_params.c): parameter lists of the shapes a count must get right.
struct twenty {
    char c[20];
};

extern "C" __global__ void none() {}

extern "C" __global__ void affine(float *out, float a, double b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * (float)i + (float)b;
}

extern "C" __global__ void by_value(twenty s, char c, float *p) { p[0] = (float)(s.c[3] + c); }

// An unused parameter is still a parameter.
extern "C" __global__ void unused(float *p, int skipped, short h) {
    (void)skipped;
    p[0] = h;
}

extern "C" __global__ void sixteen(float *o, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9,
                                   int a10, int a11, int a12, int a13, int a14, long long a15) {
    o[0] = (float)(a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12 + a13 + a14 + a15);
}
