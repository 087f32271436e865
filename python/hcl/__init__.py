"""HCL from Python: devices, queues, events, buffers, host memory, hcl.Array (with NumPy copies and DLPack both ways),
modules and kernels from every source kind HCL takes, the built-in kernels, the host conversions and communicators,
over HCL's public C API (the extension hcl._hcl, on CPython's stable ABI).

Every HCL status is an exception class (hcl.Error and one subclass per status, e.g. hcl.InvalidArgumentError) with
.status, .status_name and .message (the C library's message). Objects release themselves when collected, have
release() and work as context managers; the GIL is released around every call that may wait.

    import hcl, numpy as np
    dev = hcl.Device("host")               # or None: HCL_BACKEND / HCL_DEVICE, else the first GPU
    a = hcl.asarray(np.arange(4, dtype=np.float32), device=dev)
    print(hcl.vecadd(a, a).numpy())        # [0. 2. 4. 6.]
"""

import sys as _sys

if _sys.version_info < (3, 11):  # the extension is built on 3.11's stable ABI (the buffer protocol came in 3.11)
    raise ImportError(f"hcl needs CPython 3.11 or later, not {_sys.version.split()[0]}")

from . import _hcl  # noqa: E402
from ._hcl import (Buffer, Comm, Device, Error, Event, HostMemory, Kernel, Module, Queue, Scalar, backends,
                   comm_engines, comm_group_end, comm_group_start, convert as _convert, devices, last_message,
                   status_name, trace_start, trace_stop, version, f32_to_f16, f16_to_f32, f32_to_bf16, bf16_to_f32,
                   HEADER_VERSION)
from ._hcl import (InvalidArgumentError, InvalidHandleError, OutOfRangeError, OutOfMemoryError, DeviceMismatchError,
                   UnknownBackendError, BackendUnavailableError, DeviceNotFoundError, DriverLoadError,
                   DriverVersionError, VendorError, BuildError, NotFoundError, UnsupportedError, InternalError,
                   DeviceLostError, TimeoutError)
from . import _dtypes
from ._array import Array, asarray, default_device, empty, from_dlpack, zeros
from ._builtins import gemm, reduce, softmax, vecadd
from ._comm import comm_create, comm_create_all, comm_get_id

__version__ = "0.1.0"

# Typed scalars for kernel arguments: hcl.int32(3), hcl.float32(0.5), hcl.uint64(n), hcl.bfloat16(1.0) ...
float32 = _dtypes.scalars["float32"]
float16 = _dtypes.scalars["float16"]
bfloat16 = _dtypes.scalars["bfloat16"]
float64 = _dtypes.scalars["float64"]
int8 = _dtypes.scalars["int8"]
int16 = _dtypes.scalars["int16"]
int32 = _dtypes.scalars["int32"]
int64 = _dtypes.scalars["int64"]
uint8 = _dtypes.scalars["uint8"]
uint16 = _dtypes.scalars["uint16"]
uint32 = _dtypes.scalars["uint32"]
uint64 = _dtypes.scalars["uint64"]

_DTYPE_CODE = {"float32": 0, "float16": 1, "bfloat16": 2}


def open(selector=None):  # noqa: A001 (the C API's verb)
    """hcl.Device(selector): open a device ("host", "cuda:0", "opencl,host"; None reads HCL_BACKEND/HCL_DEVICE)."""
    return Device(selector)


def module(device, *sources, options=None, **by_kind):
    """Build a module from sources: positional (kind, data[, options]) tuples, or keywords by kind, tried in the
    order given: hcl.module(dev, opencl_c=cl_src, cuda_c=cu_src, host_table=[("name", ctypes_fn)]). Host-table
    entries take a C function address (int) or a ctypes function (kept alive with the module)."""
    srcs = list(sources)
    for kind, data in by_kind.items():
        srcs.append((kind, data, options))
    fixed = []
    for s in srcs:
        s = tuple(s)
        if s[0] == "host_table" or s[0] == 7:
            table = [(name, _fn_address(fn)) for name, fn in s[1]]
            keep = [fn for _name, fn in s[1]]
            opts = s[2] if len(s) > 2 else None
            fixed.append((s[0], table, opts, keep))  # the module holds `keep` while it lives
        else:
            fixed.append(s)
    return Module(device, fixed)


def _fn_address(fn):
    if isinstance(fn, int):
        return fn
    import ctypes

    return ctypes.cast(fn, ctypes.c_void_p).value


def convert(dst_dtype, src, src_dtype):
    """Convert host data between float32, float16 and bfloat16 (hcl_convert: round to nearest even). src: a
    buffer-protocol object of src_dtype elements; returns a bytearray of dst_dtype elements."""
    d = _DTYPE_CODE[_dtypes.dtype_name(dst_dtype)]
    s = _DTYPE_CODE[_dtypes.dtype_name(src_dtype)]
    mv = memoryview(src).cast("B")
    ssz = _dtypes.itemsize(_dtypes.dtype_name(src_dtype))
    if mv.nbytes % ssz:
        raise ValueError(f"hcl.convert: {mv.nbytes} bytes is not a whole number of {src_dtype} elements")
    n = mv.nbytes // ssz
    out = bytearray(n * _dtypes.itemsize(_dtypes.dtype_name(dst_dtype)))
    _convert(d, out, s, mv, n)
    return out


def synchronize(device=None):
    """Wait for the default queue of a device (default_device() when None)."""
    _hcl._finish(device if device is not None else default_device())
