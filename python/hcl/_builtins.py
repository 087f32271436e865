"""The built-in kernels on arrays: hcl.vecadd, hcl.gemm, hcl.softmax, hcl.reduce. Operands are hcl.Arrays or DLPack
tensors (torch, CuPy, NumPy; shared in place by hcl.from_dlpack), checked here for shape, dtype, layout and device before
the C call checks its own part. They run on the operands' device's default queue (or `queue`); with a DLPack tensor
among the operands the call waits for its result before it returns (the consumer reads it on its own stream next);
with hcl.Arrays only it returns at once (numpy() and __dlpack__ wait). event=True returns an hcl.Event (device
time: event.elapsed())."""

from . import _hcl
from . import _dtypes
from ._array import Array, empty, from_dlpack

_TRANS = {False: 0, True: 1, "n": 0, "t": 1, "N": 0, "T": 1}
_COMPUTE = {"f32": 0, "float32": 0, "tf32": 1}
_REDUCE = {"sum": 0, "max": 1, "min": 2}


def _operand(x, what, queue=None):
    if isinstance(x, Array):
        return x, False
    if hasattr(x, "__dlpack__"):
        return from_dlpack(x, _queue=queue), True
    raise TypeError(f"hcl: {what} must be an hcl.Array or a DLPack tensor, not {type(x).__name__}")


def _whole(arr, what):
    """An operand the built-ins read from byte 0 of its buffer."""
    if arr.offset != 0:
        raise ValueError(f"hcl: {what} starts {arr.offset} bytes into its buffer; the built-ins take arrays that start "
                         "at the buffer's first byte")
    if arr._buf.released:
        raise _hcl.InvalidHandleError(f"HCL_ERROR_INVALID_HANDLE: {what}'s buffer was released")


def _queue(arr, queue):
    return arr.device if queue is None else queue


def _finish(q, foreign, ev):
    if foreign:
        _hcl._finish(q)
    return ev


def _same_device(arrays):
    dev = arrays[0].device
    for a in arrays[1:]:
        if a.device is not dev:
            raise _hcl.DeviceMismatchError("HCL_ERROR_DEVICE_MISMATCH: the operands are on different hcl.Devices")
    return dev


def vecadd(a, b, out=None, *, queue=None, event=False):
    """out = a + b, elementwise (same shape and dtype: float32, float16 or bfloat16; contiguous). Returns out (or an
    Event when event=True)."""
    a, fa = _operand(a, "a", queue)
    b, fb = _operand(b, "b", queue)
    if a.shape != b.shape:
        raise ValueError(f"hcl.vecadd: shapes {a.shape} and {b.shape} differ")
    if a.dtype != b.dtype:
        raise TypeError(f"hcl.vecadd: dtypes {a.dtype} and {b.dtype} differ")
    fo = False
    if out is None:
        out = empty(a.shape, a.dtype, a.device)
    else:
        out, fo = _operand(out, "out", queue)
        if out.shape != a.shape or out.dtype != a.dtype:
            raise ValueError(f"hcl.vecadd: out is {out.shape} {out.dtype}, not {a.shape} {a.dtype}")
    _same_device([a, b, out])
    for x, n in ((a, "a"), (b, "b"), (out, "out")):
        _whole(x, n)
        if not x.is_contiguous:
            raise ValueError(f"hcl.vecadd: {n} is not contiguous")
    t = _dtypes.hcl_dtype(a.dtype, "hcl.vecadd")
    q = _queue(a, queue)
    ev = _hcl._vecadd(q, t, a.size, a._buf, b._buf, out._buf, event)
    _finish(q, fa or fb or fo, ev)
    return ev if event else out


def _matrix(x, what):
    """(trans, ld) of a 2-D operand: row-major (strides (ld, 1)) or a transposed view of one (strides (1, ld))."""
    if x.ndim != 2:
        raise ValueError(f"hcl.gemm: {what} must be 2-D, not {x.ndim}-D")
    r, c = x.shape
    s0, s1 = x.strides
    if (s1 == 1 or c <= 1) and s0 >= max(c, 1):
        return 0, max(s0, c, 1)
    if (s0 == 1 or r <= 1) and s1 >= max(r, 1):
        return 1, max(s1, r, 1)
    raise ValueError(f"hcl.gemm: {what} with strides {x.strides} is neither row-major nor a transposed row-major view")


def gemm(a, b, c=None, *, alpha=1.0, beta=0.0, trans_a=False, trans_b=False, compute="f32", out_dtype=None,
         queue=None, event=False):
    """c = alpha * op(a) @ op(b) + beta * c (hcl_gemm). a and b: 2-D, same dtype, row-major or transposed views
    (a.T); c: 2-D row-major, of a's dtype or float32 (made when None: out_dtype, default a's). compute: "f32" or
    "tf32". Returns c (or an Event when event=True)."""
    a, fa = _operand(a, "a", queue)
    b, fb = _operand(b, "b", queue)
    ta, lda = _matrix(a, "a")
    tb, ldb = _matrix(b, "b")
    ta ^= _TRANS[trans_a]
    tb ^= _TRANS[trans_b]
    # op(a) is m x k: the logical shape flips when trans_a is asked for on top of the layout.
    m, k = a.shape if not _TRANS[trans_a] else a.shape[::-1]
    k2, n = b.shape if not _TRANS[trans_b] else b.shape[::-1]
    if k != k2:
        raise ValueError(f"hcl.gemm: op(a) is {m}x{k} and op(b) is {k2}x{n}: inner dimensions differ")
    if a.dtype != b.dtype:
        raise TypeError(f"hcl.gemm: a is {a.dtype} and b is {b.dtype}")
    fc = False
    if c is None:
        c = empty((m, n), _dtypes.dtype_name(out_dtype) if out_dtype else a.dtype, a.device)
    else:
        c, fc = _operand(c, "c", queue)
    if c.shape != (m, n):
        raise ValueError(f"hcl.gemm: c is {c.shape}, op(a) @ op(b) is {(m, n)}")
    tc, ldc = _matrix(c, "c")
    if tc:
        raise ValueError("hcl.gemm: c must be row-major (strides (ldc, 1))")
    _same_device([a, b, c])
    for x, nm in ((a, "a"), (b, "b"), (c, "c")):
        _whole(x, nm)
    at = _dtypes.hcl_dtype(a.dtype, "hcl.gemm")
    ct = _dtypes.hcl_dtype(c.dtype, "hcl.gemm")
    if compute not in _COMPUTE:
        raise ValueError(f"hcl.gemm: compute must be one of {list(_COMPUTE)}, not {compute!r}")
    q = _queue(a, queue)
    ev = _hcl._gemm(q, ta, tb, m, n, k, float(alpha), at, a._buf, lda, at, b._buf, ldb, float(beta), ct, c._buf, ldc,
                    _COMPUTE[compute], event)
    _finish(q, fa or fb or fc, ev)
    return ev if event else c


def softmax(x, out=None, *, queue=None, event=False):
    """Row-wise softmax over the last axis (rows = the product of the others); contiguous; out may be x."""
    x, fx = _operand(x, "x", queue)
    fo = False
    if out is None:
        out = empty(x.shape, x.dtype, x.device)
    else:
        out, fo = _operand(out, "out", queue)
    if out.shape != x.shape or out.dtype != x.dtype:
        raise ValueError(f"hcl.softmax: out is {out.shape} {out.dtype}, x is {x.shape} {x.dtype}")
    _same_device([x, out])
    for a, nm in ((x, "x"), (out, "out")):
        _whole(a, nm)
        if not a.is_contiguous:
            raise ValueError(f"hcl.softmax: {nm} is not contiguous")
    cols = x.shape[-1] if x.ndim else 1
    rows = x.size // cols if cols else 0
    t = _dtypes.hcl_dtype(x.dtype, "hcl.softmax")
    q = _queue(x, queue)
    ev = _hcl._softmax(q, t, rows, cols, x._buf, out._buf, event)
    _finish(q, fx or fo, ev)
    return ev if event else out


def reduce(x, op="sum", out=None, *, queue=None, event=False):
    """The sum, max or min of every element of x (contiguous) in float32. Without `out`: returns the value as a Python
    float (waits). With `out` (a float32 array of at least one element): writes out[0] and returns out (or an
    Event)."""
    x, fx = _operand(x, "x", queue)
    if op not in _REDUCE:
        raise ValueError(f"hcl.reduce: op must be one of {list(_REDUCE)}, not {op!r}")
    ret_value = out is None
    fo = False
    if out is None:
        out = empty((1,), "float32", x.device)
    else:
        out, fo = _operand(out, "out", queue)
        if out.dtype != "float32" or out.size < 1:
            raise ValueError("hcl.reduce: out must be a float32 array of at least one element")
    _same_device([x, out])
    for a, nm in ((x, "x"), (out, "out")):
        _whole(a, nm)
    if not x.is_contiguous:
        raise ValueError("hcl.reduce: x is not contiguous")
    t = _dtypes.hcl_dtype(x.dtype, "hcl.reduce")
    q = _queue(x, queue)
    ev = _hcl._reduce(q, t, _REDUCE[op], x.size, x._buf, out._buf, event and not ret_value)
    if ret_value:
        import struct

        data = bytearray(4)
        out._buf.read(data, queue=queue)
        return struct.unpack("<f", data)[0]
    _finish(q, fx or fo, ev)
    return ev if event else out
