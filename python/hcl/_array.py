"""hcl.Array: an HCL buffer seen as an n-dimensional array (buffer, byte offset, shape, dtype, strides in elements),
with copies from and to NumPy, and DLPack both ways.

DLPack export (`__dlpack__`) shares HCL's memory with the consumer (torch.from_dlpack, numpy.from_dlpack, cupy) on
backends whose buffers are plain pointers: cuda (kDLCUDA), hip (kDLROCM) and host (kDLCPU). DLPack import
(`hcl.from_dlpack`) shares the tensor's memory on the same three: HCL's own memory through its buffer, memory torch,
CuPy or NumPy allocated through hcl_buffer_wrap_native (the array keeps the tensor alive; HCL never frees it)."""

import bisect
import threading
import weakref

from . import _hcl
from . import _dtypes

# DLPack device types
_DL_CPU, _DL_CUDA, _DL_ROCM = 1, 2, 10
_DL_OF_BACKEND = {"cuda": _DL_CUDA, "hip": _DL_ROCM, "host": _DL_CPU}

# Live arrays that own their buffer, by DLPack device: {(dl_type, dl_id): (sorted start addresses, {address: (end,
# weakref(array))})}, so that a tensor handed back by torch (or NumPy) is recognised as HCL memory and wrapped in place.
_registry = {}
_registry_lock = threading.Lock()


def _dl_device_of(device):
    """(DLPack device type, id) of an hcl.Device, or None: OpenCL buffers are cl_mem objects; Level Zero's device
    pointers could go as kDLOneAPI, not wired up without a Level Zero device to test on."""
    backend = device.backend
    t = _DL_OF_BACKEND.get(backend)
    if t is None:
        return None
    return (t, 0 if t == _DL_CPU else device.index)


def _register(arr):
    dl = _dl_device_of(arr._buf.device)
    if dl is None:
        return
    addr = arr._buf.native
    end = addr + arr._buf.size
    key = (dl[0], dl[1])

    def forget(_ref, key=key, addr=addr):
        with _registry_lock:
            starts, d = _registry.get(key, ((), {}))
            if d.get(addr, (0, None))[1] is _ref:
                del d[addr]
                i = bisect.bisect_left(starts, addr)
                if i < len(starts) and starts[i] == addr:
                    del starts[i]

    ref = weakref.ref(arr, forget)
    with _registry_lock:
        starts, d = _registry.setdefault(key, ([], {}))
        if addr not in d:
            bisect.insort(starts, addr)
        d[addr] = (end, ref)


def _lookup(dl_type, dl_id, address):
    """The live base array whose buffer holds `address` on that DLPack device, or None."""
    with _registry_lock:
        starts, d = _registry.get((dl_type, dl_id), ((), {}))
        i = bisect.bisect_right(starts, address) - 1
        if i < 0:
            return None
        end, ref = d[starts[i]]
    arr = ref()
    if arr is None or address >= end or arr._buf.released:
        return None
    return arr


def _any_device(dl_type, dl_id):
    """An hcl.Device with live arrays on that DLPack device (for the stream of the handshake), or None."""
    with _registry_lock:
        for _end, ref in list(_registry.get((dl_type, dl_id), ((), {}))[1].values()):
            arr = ref()
            if arr is not None and not arr._buf.released:
                return arr._buf.device
    return None


def _contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


def _shape_tuple(shape):
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"hcl: negative dimension in shape {shape}")
    return shape


class Array:
    """An n-dimensional view of an HCL buffer. Make one with hcl.empty, hcl.zeros, hcl.asarray (a copy of host data)
    or hcl.from_dlpack (a tensor of torch, CuPy, NumPy, shared in place). Commands on it run on its device's default queue
    unless a queue is given; numpy() and DLPack export wait for that queue first."""

    __slots__ = ("_buf", "_offset", "shape", "dtype", "strides", "_base", "__weakref__")

    def __init__(self, buffer, shape, dtype, strides=None, offset=0, base=None):
        self._buf = buffer
        self._offset = int(offset)
        self.shape = _shape_tuple(shape)
        self.dtype = _dtypes.dtype_name(dtype)
        self.strides = _contiguous_strides(self.shape) if strides is None else tuple(int(s) for s in strides)
        if len(self.strides) != len(self.shape):
            raise ValueError("hcl.Array: strides and shape differ in length")
        self._base = base
        lo, hi = self._extent()
        if self.size and (self._offset + lo < 0 or self._offset + hi > buffer.size):
            raise IndexError(f"hcl.Array: shape {self.shape} strides {self.strides} at offset {self._offset} "
                             f"reaches outside the buffer's {buffer.size} bytes")

    def _extent(self):
        """Byte range [lo, hi) the array touches, relative to its offset."""
        it = self.itemsize
        lo = sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s < 0 and n > 0) * it
        hi = (sum((n - 1) * s for n, s in zip(self.shape, self.strides) if s > 0 and n > 0) + 1) * it
        return lo, hi

    @property
    def device(self):
        return self._buf.device

    @property
    def buffer(self):
        return self._buf

    @property
    def offset(self):
        """Byte offset of element [0, ...] in the buffer."""
        return self._offset

    @property
    def itemsize(self):
        return _dtypes.itemsize(self.dtype)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self):
        return self.size * self.itemsize

    @property
    def is_contiguous(self):
        return self.size <= 1 or self.strides == _contiguous_strides(self.shape) or all(
            n == 1 or s == c for n, s, c in zip(self.shape, self.strides, _contiguous_strides(self.shape)))

    def __len__(self):
        if not self.shape:
            raise TypeError("len() of a 0-d hcl.Array")
        return self.shape[0]

    def __repr__(self):
        dev = self.device
        where = "released" if dev.released or self._buf.released else f"{dev.backend}:{dev.index}"
        return f"hcl.Array(shape={self.shape}, dtype={self.dtype}, device={where})"

    def reshape(self, *shape):
        """A view with another shape (contiguous arrays only)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = tuple(shape[0])
        shape = list(shape)
        if shape.count(-1) > 1:
            raise ValueError("hcl.Array.reshape: at most one -1")
        if -1 in shape:
            known = 1
            for s in shape:
                if s != -1:
                    known *= s
            shape[shape.index(-1)] = self.size // known if known else 0
        shape = _shape_tuple(shape)
        n = 1
        for s in shape:
            n *= s
        if n != self.size:
            raise ValueError(f"hcl.Array.reshape: {self.shape} ({self.size} elements) cannot become {shape}")
        if not self.is_contiguous:
            raise ValueError("hcl.Array.reshape: the array is not contiguous")
        return Array(self._buf, shape, self.dtype, None, self._offset, self)

    @property
    def T(self):
        """The transposed view (no copy): reversed shape and strides."""
        return Array(self._buf, self.shape[::-1], self.dtype, self.strides[::-1], self._offset, self)

    def release(self):
        """Release the buffer now (every view of it becomes unusable)."""
        self._buf.release()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self._buf.released:
            self._buf.release()
        return False

    # ---- host copies -------------------------------------------------------------------------------------------

    def _check_dense(self, what):
        if not self.is_contiguous:
            raise ValueError(f"hcl.Array.{what}: the array is not contiguous")

    def write(self, data, queue=None):
        """Copy host data (bytes-like or a NumPy array of the same dtype and size) into the array (blocking)."""
        self._check_dense("write")
        mv = memoryview(data).cast("B") if not hasattr(data, "__array_interface__") else _as_bytes(data, self)
        if mv.nbytes != self.nbytes:
            raise ValueError(f"hcl.Array.write: {mv.nbytes} bytes given for an array of {self.nbytes}")
        self._buf.write(mv, self._offset, queue=queue)

    def tobytes(self, queue=None):
        """The array's bytes (contiguous arrays; blocking)."""
        self._check_dense("tobytes")
        out = bytearray(self.nbytes)
        if self.nbytes:
            self._buf.read(out, self._offset, queue=queue)
        return bytes(out)

    def numpy(self, queue=None):
        """A NumPy copy (bfloat16 is widened to float32, as NumPy has no bfloat16)."""
        import numpy as np

        it = self.itemsize
        lo, hi = self._extent()
        raw = bytearray(max(hi - lo, 0))
        if self.size:
            self._buf.read(raw, self._offset + lo, queue=queue)
        if self.dtype == "bfloat16":
            bits = np.frombuffer(raw, dtype=np.uint16)
            wide = np.empty(bits.size, dtype=np.float32)
            _hcl.convert(0, wide, 2, bits, bits.size)
            raw, npdt, it_out = wide, np.float32, 4
        else:
            npdt, it_out = np.dtype(_dtypes.numpy_name(self.dtype)), it
        flat = np.frombuffer(raw, dtype=npdt)
        if not self.size:
            return np.empty(self.shape, dtype=npdt)
        view = np.lib.stride_tricks.as_strided(flat[(-lo // it):], self.shape, [s * it_out for s in self.strides])
        return np.array(view, copy=True)

    def __array__(self, dtype=None, copy=None):
        """np.asarray(a): a NumPy copy (HCL memory is not host memory on most devices: copy=False is refused)."""
        if copy is False:
            raise ValueError("hcl.Array: a NumPy view needs numpy.from_dlpack (host backend); np.asarray copies")
        out = self.numpy()
        return out if dtype is None else out.astype(dtype, copy=False)

    # ---- DLPack --------------------------------------------------------------------------------------------------

    def __dlpack_device__(self):
        dl = _dl_device_of(self.device)
        if dl is None:
            raise BufferError(f"hcl.Array on {self.device.backend}: HCL shares memory through DLPack on cuda, hip and "
                              "host only (OpenCL buffers are cl_mem objects, not pointers; Level Zero is not wired up)")
        return dl

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule sharing this array's memory. The queue of the buffer's last asynchronous command is finished
        first, so the data is ready on any consumer stream (the producer side of the protocol's stream handshake)."""
        dl = self.__dlpack_device__()
        if dl_device is not None and tuple(dl_device) != tuple(dl):
            raise BufferError(f"hcl.Array: asked for DLPack device {tuple(dl_device)}, the array is on {dl}")
        if copy:
            raise BufferError("hcl.Array.__dlpack__: copy=True is not supported (it shares memory or nothing)")
        if dl[0] == _DL_CPU and stream is not None:
            raise BufferError("hcl.Array.__dlpack__: a CPU array takes stream=None")
        if self._buf.released:
            raise _hcl.InvalidHandleError("HCL_ERROR_INVALID_HANDLE: this array's buffer was released")
        if stream != -1:
            self._buf.synchronize()  # the queue of the buffer's last asynchronous command
        code, bits = _dtypes.dlpack_code(self.dtype)
        versioned = max_version is not None and tuple(max_version) >= (1, 0)
        return _hcl._to_dlpack(self, self._buf.native, dl[0], dl[1], self.shape, self.strides, code, bits,
                               self._offset, versioned, False)


def _as_bytes(data, arr):
    """A NumPy array's bytes after checking its dtype against the array's (bfloat16 takes float32 and converts)."""
    import numpy as np

    a = np.ascontiguousarray(data)
    if arr.dtype == "bfloat16":
        if a.dtype == np.float32:
            bits = np.empty(a.size, dtype=np.uint16)
            _hcl.convert(2, bits, 0, a.reshape(-1), a.size)
            a = bits
        elif a.dtype != np.uint16:
            raise TypeError(f"hcl: a bfloat16 array takes float32 (converted) or uint16 bits, not {a.dtype}")
    elif a.dtype.name != _dtypes.numpy_name(arr.dtype):
        raise TypeError(f"hcl: NumPy dtype {a.dtype} does not match the array's {arr.dtype}")
    return memoryview(a.reshape(-1)).cast("B")


_default = {}
_default_lock = threading.Lock()


def default_device():
    """The device hcl opens when none is named: hcl_device_open(NULL) (HCL_BACKEND / HCL_DEVICE, else the first GPU,
    else the host), opened once per process."""
    with _default_lock:
        dev = _default.get("device")
        if dev is None or dev.released:
            dev = _default["device"] = _hcl.Device(None)
        return dev


def empty(shape, dtype="float32", device=None):
    """A new array (contents undefined) on `device` (an hcl.Device or a selector string; default_device())."""
    if device is None:
        device = default_device()
    elif isinstance(device, str):
        device = _hcl.Device(device)
    shape = _shape_tuple(shape)
    name = _dtypes.dtype_name(dtype)
    n = 1
    for s in shape:
        n *= s
    buf = _hcl.Buffer(device, max(n * _dtypes.itemsize(name), 1))
    arr = Array(buf, shape, name)
    _register(arr)
    return arr


def zeros(shape, dtype="float32", device=None):
    """A new array of zeros."""
    arr = empty(shape, dtype, device)
    arr._buf.fill(b"\0")
    return arr


def asarray(data, dtype=None, device=None):
    """A new array holding a copy of host data (a NumPy array or anything numpy.asarray takes); an hcl.Array is
    returned as it is when dtype and device already match."""
    if isinstance(data, Array):
        if (dtype is None or _dtypes.dtype_name(dtype) == data.dtype) and (device is None or device is data.device):
            return data
        data = data.numpy()
    import numpy as np

    a = np.asarray(data)
    name = _dtypes.dtype_name(dtype if dtype is not None else a.dtype)
    if name == "bfloat16":
        a = np.ascontiguousarray(a, dtype=np.float32) if a.dtype != np.uint16 else np.ascontiguousarray(a)
    else:
        a = np.ascontiguousarray(a, dtype=_dtypes.numpy_name(name))
    arr = empty(a.shape, name, device)
    if arr.size:
        arr.write(a)
    return arr


_BACKEND_OF_DL = {_DL_CPU: "host", _DL_CUDA: "cuda", _DL_ROCM: "hip"}
_DL_NAME = {_DL_CPU: "kDLCPU", _DL_CUDA: "kDLCUDA", _DL_ROCM: "kDLROCM"}
# Devices from_dlpack opened for foreign tensors, by (backend, index): kept for the process, as default_device is.
_opened = {}


def _device_for(dl_type, dl_id, device):
    """The hcl.Device a tensor on DLPack device (dl_type, dl_id) lives on: `device` when given (it must be that one),
    else an open one (the default device, a device of live arrays), else that device opened now (cuda:N for kDLCUDA
    N, hip:N for kDLROCM N, the host for kDLCPU). BufferError when HCL cannot open it."""
    backend = _BACKEND_OF_DL[dl_type]
    index = None if dl_type == _DL_CPU else dl_id
    where = f"{_DL_NAME[dl_type]}" + ("" if index is None else f" {index}")

    def is_it(d):
        return d is not None and not d.released and d.backend == backend and (index is None or d.index == index)

    if device is not None:
        if isinstance(device, str):
            device = _hcl.Device(device)
        if not is_it(device):
            raise BufferError(f"hcl.from_dlpack: the tensor is on {where}, not on device={device.backend}:"
                              f"{device.index}")
        return device
    with _default_lock:
        dev = _opened.get((backend, index))
    if is_it(dev):  # the one chosen before, so that every tensor of a device gives arrays of one hcl.Device
        return dev
    try:  # else the default device when the tensor is on it, so that hcl.empty's arrays and the tensor's share it
        dev = default_device()
    except _hcl.Error:
        dev = None
    if not is_it(dev):
        dev = _any_device(dl_type, dl_id)  # else a device of live arrays
    if not is_it(dev):
        try:
            dev = _hcl.Device(backend if index is None else f"{backend}:{index}")
        except _hcl.Error as e:
            raise BufferError(f"hcl.from_dlpack: the tensor is on {where}, a device HCL cannot open ({e})") from e
    with _default_lock:
        _opened[(backend, index)] = dev
    return dev


def from_dlpack(x, *, device=None, copy=None, _queue=None):
    """An hcl.Array over a DLPack tensor (torch, CuPy, NumPy, hcl), on the device it lives on: kDLCPU -> the host
    device, kDLCUDA N -> cuda:N, kDLROCM N -> hip:N (`device`, when given, must be that one).

    copy=None or False: in place, without a copy. Memory HCL allocated (an hcl.Array handed to torch and back) is seen
    through its own buffer; any other memory is wrapped (hcl_buffer_wrap_native), and the array keeps the tensor (its
    DLPack capsule) alive until its buffer is released. HCL never frees that memory. The producer's pending work is
    ordered before HCL's queue through the protocol's stream handshake (__dlpack__(stream=<HCL's stream>)); HCL's work
    on the array is the caller's to finish (array.buffer.synchronize(), or the queue's finish) before the producer
    reads it on its own streams. copy=True: a new HCL array with a copy (CPU tensors; `device` picks the device)."""
    if isinstance(x, Array):
        return x
    if not hasattr(x, "__dlpack__"):
        raise TypeError(f"hcl.from_dlpack: {type(x).__name__} has no __dlpack__")
    dl_type, dl_id = x.__dlpack_device__()
    dl_type, dl_id = int(dl_type), int(dl_id)
    if dl_type not in _BACKEND_OF_DL:
        raise BufferError(f"hcl.from_dlpack: DLPack device type {dl_type} is not one HCL shares memory with "
                          "(CPU 1, CUDA 2, ROCm 10)")
    if copy is True:
        if dl_type != _DL_CPU:
            raise BufferError("hcl.from_dlpack(copy=True): only CPU tensors can be copied in (a device tensor is "
                              "shared in place: copy=None)")
        import numpy as np

        try:
            host = np.from_dlpack(x)
        except (TypeError, BufferError, RuntimeError) as e:
            raise TypeError(f"hcl.from_dlpack(copy=True): NumPy cannot read this tensor ({e}); bfloat16 CPU tensors "
                            "are not supported (NumPy has no bfloat16)") from e
        return asarray(host, None, device)
    qdev = _queue.device if isinstance(_queue, _hcl.Queue) else _queue
    dev = _device_for(dl_type, dl_id, device if qdev is None else qdev)
    stream = None
    if dl_type != _DL_CPU:
        # The consumer's stream (the queue the caller will use, else the device's default queue): the producer orders
        # its pending work before it (the protocol's handshake).
        stream = _hcl._queue_native(_queue if _queue is not None else dev) or None
    try:
        cap = x.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:
        cap = x.__dlpack__(stream=stream)
    addr, t, i, shape, strides, code, bits, lanes, read_only, holder = _hcl._from_dlpack(cap)
    dtype = _dtypes.from_dlpack_code(code, bits, lanes)
    base = _lookup(t, i, addr)
    if base is not None:
        return Array(base._buf, shape, dtype, strides, addr - base._buf.native, (base, holder))
    if read_only:
        raise BufferError("hcl.from_dlpack: the tensor is read-only (DLPack flag), and an hcl.Array is writable; pass "
                          "copy=True (CPU tensors) or share a writable tensor")
    shape = _shape_tuple(shape)
    strides = _contiguous_strides(shape) if strides is None else tuple(int(s) for s in strides)
    n = 1
    for s in shape:
        n *= s
    if n == 0:  # nothing to share: an empty array of the device
        return empty(shape, dtype, dev)
    itemsize = _dtypes.itemsize(dtype)
    lo = sum((k - 1) * st for k, st in zip(shape, strides) if st < 0) * itemsize
    hi = (sum((k - 1) * st for k, st in zip(shape, strides) if st > 0) + 1) * itemsize
    buf = _hcl.Buffer.wrap(dev, addr + lo, hi - lo, (holder, x))
    return Array(buf, shape, dtype, strides, -lo)


def _launch_arg(obj):
    """Kernel launches: an object that is none of the C types (a torch tensor...) wraps in place or fails."""
    if hasattr(obj, "__dlpack__"):
        return from_dlpack(obj)
    raise TypeError(f"hcl: {type(obj).__name__} is not a kernel argument (hcl.Array, hcl.Buffer, hcl.Scalar such as "
                    "hcl.int32(v), bytes, or a DLPack tensor)")


_hcl._set_arg_hook(_launch_arg)
