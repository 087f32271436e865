"""A user kernel from source: the same saxpy as OpenCL C, CUDA C and a host C function (compiled with cc here);
each device takes the first form it can run. python user_kernel.py [SELECTOR]"""

import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np

import hcl

OPENCL_C = """
__kernel void saxpy(uint n, float a, __global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}"""
CUDA_C = """
extern "C" __global__ void saxpy(unsigned n, float a, const float *x, float *y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}"""
# The host backend runs C functions: a work-group per call, its work-items looped over by the function itself.
HOST_C = """
#include <stddef.h>
#include <stdint.h>
typedef struct { uint32_t x, y, z; } dim3;
typedef struct { dim3 group_id, grid, block; void *shared; size_t shared_size; } launch_t;
void saxpy(const launch_t *l, void *const *args) {
    uint32_t n = *(const uint32_t *)args[0];
    float a = *(const float *)args[1];
    const float *x = *(float *const *)args[2];
    float *y = *(float *const *)args[3];
    for (uint32_t t = 0; t < l->block.x; t++) {
        uint32_t i = l->group_id.x * l->block.x + t;
        if (i < n) y[i] = a * x[i] + y[i];
    }
}"""

dev = hcl.Device(sys.argv[1] if len(sys.argv) > 1 else None)
sources = [("opencl_c", OPENCL_C), ("cuda_c", CUDA_C)]
if dev.backend == "host":
    tmp = tempfile.mkdtemp()
    with open(os.path.join(tmp, "saxpy.c"), "w") as f:
        f.write(HOST_C)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", f.name, "-o", os.path.join(tmp, "libsaxpy.so")], check=True)
    lib = ctypes.CDLL(os.path.join(tmp, "libsaxpy.so"))
    sources.append(("host_table", [("saxpy", ctypes.cast(lib.saxpy, ctypes.c_void_p).value)]))

module = hcl.module(dev, *sources)
saxpy = module.kernel("saxpy")
n = 100_000
x = np.linspace(0, 1, n, dtype=np.float32)
y = np.ones(n, dtype=np.float32)
X, Y = hcl.asarray(x, device=dev), hcl.asarray(y, device=dev)
block = 256
# scalars carry their C type: a plain Python 2.0 would be refused (which float?); the C API checks the rest
saxpy.launch((n + block - 1) // block, block, (hcl.uint32(n), hcl.float32(2.0), X, Y))
assert np.allclose(Y.numpy(), 2 * x + y)
print(f"saxpy on {dev.backend}:{dev.index}: ok")
