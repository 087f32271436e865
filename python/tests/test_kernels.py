"""Modules and kernels from source, typed scalar arguments, and the checks of a launch."""

import numpy as np
import pytest

import hcl
from kernels_src import OPENCL_C, skip_saxpy_on_vulkan, sources
from reference import check


def test_saxpy_from_source(device, rng):
    skip_saxpy_on_vulkan(device)
    mod = hcl.module(device, *sources())
    k = mod.kernel("saxpy")
    assert k.name == "saxpy" and k.max_group_size >= 1
    n = 1000
    x = rng.uniform(-1, 1, n).astype(np.float32)
    y = rng.uniform(-1, 1, n).astype(np.float32)
    X = hcl.asarray(x, device=device)
    Y = hcl.asarray(y, device=device)
    block = 64
    k.launch((n + block - 1) // block, block, (hcl.uint32(n), hcl.float32(2.5), X, Y))
    ref = np.float32(2.5) * x.astype(np.float64) + y
    check(Y.numpy(), ref, 2.0**-23 * (np.abs(2.5 * x) + np.abs(y)) + 1e-30, "saxpy")


def test_launch_with_event_and_wait(device):
    mod = hcl.module(device, *sources("empty"))
    k = mod.kernel("empty")
    q = hcl.Queue(device)
    ev = k.launch(1, 1, (), queue=q, event=True)
    ev2 = k.launch((2, 1, 1), (1, 1), queue=q, wait=[ev], event=True)
    ev2.wait()
    assert ev.elapsed(ev2) >= 0


def test_argument_checks(device):
    skip_saxpy_on_vulkan(device)
    mod = hcl.module(device, *sources())
    k = mod.kernel("saxpy")
    X = hcl.zeros(8, device=device)
    with pytest.raises(TypeError, match="no C type"):
        k.launch(1, 8, (8, 2.0, X, X))  # untyped Python numbers
    with pytest.raises(TypeError, match="not a kernel argument"):
        k.launch(1, 8, (hcl.uint32(8), hcl.float32(2), X, object()))
    if device.backend != "host":  # a NumPy array is wrapped on the host device, not this one
        with pytest.raises(hcl.DeviceMismatchError):
            k.launch(1, 8, (hcl.uint32(8), hcl.float32(2), X, np.zeros(8, np.float32)))
    with pytest.raises(hcl.InvalidArgumentError):
        k.launch(0, 8, (hcl.uint32(8), hcl.float32(2), X, X))  # zero grid
    with pytest.raises(hcl.InvalidArgumentError):
        k.launch(1, 1 << 40, (hcl.uint32(8), hcl.float32(2), X, X))
    with pytest.raises(hcl.InvalidArgumentError):
        k.launch(1, 8, (hcl.uint32(8), hcl.float32(2), X, X), shared=-1)
    with pytest.raises(OverflowError):
        hcl.int8(300)
    if device.backend in ("opencl", "levelzero", "cuda"):
        # these backends know the parameters: a wrong count, kind or size is refused with the parameter named
        with pytest.raises(hcl.InvalidArgumentError) as e:
            k.launch(1, 8, (hcl.uint64(8), hcl.float32(2), X, X))
        assert "0" in e.value.message
        with pytest.raises(hcl.InvalidArgumentError):
            k.launch(1, 8, (hcl.uint32(8), hcl.float32(2), X))
        with pytest.raises(hcl.InvalidArgumentError):
            k.launch(1, 8, (X, hcl.float32(2), X, X))
    X.release()
    with pytest.raises(hcl.InvalidHandleError):
        k.launch(1, 8, (hcl.uint32(8), hcl.float32(2), X, X))


def test_build_errors(device):
    if device.backend == "opencl":
        with pytest.raises(hcl.BuildError) as e:
            hcl.module(device, opencl_c="__kernel void broken( { syntax error")
        assert e.value.message  # the build log
        mod = hcl.module(device, opencl_c=OPENCL_C)
        with pytest.raises(hcl.NotFoundError):
            mod.kernel("nosuchkernel")
    with pytest.raises(hcl.UnsupportedError) as e:
        hcl.module(device, spirv=b"\x03\x02\x23\x07" + b"\0" * 16) if device.backend != "levelzero" else \
            hcl.module(device, hip_binary=b"\0" * 16)
    assert "HCL_SOURCE_" in e.value.message
    with pytest.raises(ValueError):
        hcl.module(device, fortran="program x")
    with pytest.raises(hcl.InvalidArgumentError):
        hcl.Module(device, [])


def test_release_order(device):
    mod = hcl.module(device, *sources("empty"))
    k = mod.kernel("empty")
    mod.release()  # the kernel keeps the module alive inside libhcl
    with pytest.raises(hcl.InvalidHandleError):
        mod.kernel("empty")
    k.launch(1, 1, ())
    device.queue.finish()
    k.release()
    with pytest.raises(hcl.InvalidHandleError):
        k.launch(1, 1, ())


def test_binary_source_kinds(device):
    from kernels_src import EMPTY_PTX

    if device.backend == "cuda":
        mod = hcl.module(device, cuda_binary=EMPTY_PTX)
        k = mod.kernel("empty")
        k.launch(2, 32, ())
        device.queue.finish()
    else:
        with pytest.raises(hcl.UnsupportedError):
            hcl.module(device, cuda_binary=EMPTY_PTX)
    # a module of several forms takes the first the device runs, a binary among them
    mod = hcl.module(device, ("cuda_binary", EMPTY_PTX), *sources("empty"))
    mod.kernel("empty").launch(1, 1, ())
    device.queue.finish()
