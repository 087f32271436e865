"""A user kernel in every source form the tests can run: OpenCL C, CUDA C, HIP C, a host function table (a ctypes
callback) and GLSL (Vulkan). saxpy: y[i] = a * x[i] + y[i] for i < n."""

import ctypes

import pytest

OPENCL_C = r"""
__kernel void saxpy(uint n, float a, __global const float *x, __global float *y) {
    size_t i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

CUDA_C = r"""
extern "C" __global__ void saxpy(unsigned n, float a, const float *x, float *y) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
HIP_C = "#include <hip/hip_runtime.h>\n" + CUDA_C

# saxpy as a Vulkan shader has its buffers first (x, y: bindings 0, 1; n, a: the push constants): it builds, and the
# tests that launch it skip Vulkan (skip_saxpy_on_vulkan)
GLSL = r"""
#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform P { uint n; float a; } p;
void main() {
    const uint i = gl_GlobalInvocationID.x;
    if (i < p.n) y[i] = p.a * x[i] + y[i];
}
"""

EMPTY_OPENCL_C = "__kernel void empty(void) {}"
EMPTY_GLSL = "#version 450\nlayout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\nvoid main() {}\n"
EMPTY_CUDA_C = 'extern "C" __global__ void empty() {}'


class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]


class HostLaunch(ctypes.Structure):
    _fields_ = [("group_id", Dim3), ("grid", Dim3), ("block", Dim3), ("shared", ctypes.c_void_p),
                ("shared_size", ctypes.c_size_t)]


HOST_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(HostLaunch), ctypes.POINTER(ctypes.c_void_p))


@HOST_FN
def host_saxpy(launch, args):
    # args[i] points to the i-th argument: a value's bytes, or a `void *` holding a buffer's address
    L = launch.contents
    n = ctypes.cast(args[0], ctypes.POINTER(ctypes.c_uint32))[0]
    a = ctypes.cast(args[1], ctypes.POINTER(ctypes.c_float))[0]
    x = ctypes.cast(ctypes.cast(args[2], ctypes.POINTER(ctypes.c_void_p))[0], ctypes.POINTER(ctypes.c_float))
    y = ctypes.cast(ctypes.cast(args[3], ctypes.POINTER(ctypes.c_void_p))[0], ctypes.POINTER(ctypes.c_float))
    base = L.group_id.x * L.block.x
    for t in range(L.block.x):
        i = base + t
        if i < n:
            y[i] = a * x[i] + y[i]


@HOST_FN
def host_empty(launch, args):
    pass


def skip_saxpy_on_vulkan(device):
    """saxpy takes (n, a, x, y); a Vulkan kernel's parameters are its buffers (bindings) before its values (push
    constants), so these tests' argument lists have no Vulkan form."""
    if device.backend == "vulkan":
        pytest.skip("vulkan: its kernels take their buffers before their values; saxpy(n, a, x, y) has no GLSL form")


def sources(name="saxpy"):
    """Every form, for hcl.module(dev, *sources(...)): each device takes the first it can run."""
    if name == "saxpy":
        return [("opencl_c", OPENCL_C), ("cuda_c", CUDA_C), ("hip_c", HIP_C), ("host_table", [("saxpy", host_saxpy)]),
                ("glsl", GLSL)]
    return [("opencl_c", EMPTY_OPENCL_C), ("cuda_c", EMPTY_CUDA_C), ("hip_c", "#include <hip/hip_runtime.h>\n"
            + EMPTY_CUDA_C), ("host_table", [("empty", host_empty)]), ("glsl", EMPTY_GLSL)]

# PTX of an empty kernel (CUDA's binary form: fatbin, cubin or PTX), NUL-terminated as cuModuleLoadData reads it
EMPTY_PTX = b".version 7.0\n.target sm_75\n.address_size 64\n\n.visible .entry empty()\n{\n\tret;\n}\n\0"
