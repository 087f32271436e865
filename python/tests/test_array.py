"""hcl.Array: NumPy copies in every dtype, views, DLPack both ways (and what cannot be shared), conversions."""

import numpy as np
import pytest

import hcl
from conftest import dlpack_capable


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int8", "int32", "uint16", "int64"])
def test_numpy_roundtrip(device, rng, dtype):
    x = (rng.uniform(-100, 100, (3, 5, 7))).astype(dtype)
    a = hcl.asarray(x, device=device)
    assert a.shape == (3, 5, 7) and a.dtype == dtype and a.nbytes == x.nbytes and a.ndim == 3
    assert np.array_equal(a.numpy(), x)
    assert np.array_equal(a.T.numpy(), x.T)
    assert np.array_equal(a.reshape(15, 7).numpy(), x.reshape(15, 7))
    assert np.array_equal(a.reshape(-1).numpy(), x.reshape(-1))
    with pytest.raises(ValueError):
        a.reshape(4, 4)
    with pytest.raises(ValueError):
        a.T.reshape(-1)
    with pytest.raises(TypeError):
        a.write(np.zeros((3, 5, 7), np.complex64))


def test_bfloat16(device):
    x = np.array([1.0, 1.00390625, -2.5, 3.0e38, np.inf], np.float32)
    a = hcl.asarray(x, "bfloat16", device)
    got = a.numpy()
    assert got.dtype == np.float32
    assert np.array_equal(got[[0, 2, 4]], x[[0, 2, 4]])
    assert got[1] == 1.0  # 1 + 2^-8 is a tie: rounds to even
    assert hcl.bf16_to_f32(hcl.f32_to_bf16(1.5)) == 1.5
    assert hcl.f16_to_f32(hcl.f32_to_f16(65520.0)) == np.inf
    conv = hcl.convert("float16", np.array([1.0, 0.1], np.float32), "float32")
    assert np.frombuffer(conv, np.float16).tolist() == [1.0, np.float16(0.1)]


def test_empty_and_zero_size(device):
    a = hcl.zeros((0, 4), device=device)
    assert a.size == 0 and a.numpy().shape == (0, 4)
    z = hcl.zeros(5, "int32", device)
    assert np.array_equal(z.numpy(), np.zeros(5, np.int32))
    with pytest.raises(ValueError):
        hcl.empty((-1,), device=device)
    with pytest.raises(TypeError):
        hcl.empty(3, "complex64", device)


def test_array_outside_buffer(device):
    b = hcl.Buffer(device, 16)
    with pytest.raises(IndexError):
        hcl.Array(b, (5,), "float32")
    v = hcl.Array(b, (2,), "float32", offset=8)
    v.write(np.array([1, 2], np.float32))
    assert v.numpy().tolist() == [1.0, 2.0]


def test_dlpack_export_shares_memory(device):
    a = hcl.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device=device)
    if not dlpack_capable(device):
        with pytest.raises(BufferError, match="cuda, hip and host only"):
            a.__dlpack_device__()
        return
    if device.backend != "host":
        pytest.skip("NumPy takes CPU tensors only (the torch test covers GPUs)")
    n = np.from_dlpack(a)
    assert n.ctypes.data == a.buffer.native
    assert np.array_equal(n, np.arange(12).reshape(3, 4))
    n[1, 1] = 100.0  # shared: HCL sees the write
    assert a.numpy()[1, 1] == 100.0
    del a  # the NumPy array keeps the HCL buffer alive
    assert n[2, 3] == 11.0
    # back into HCL, in place: a view of the same buffer
    back = hcl.from_dlpack(n[1:])
    assert back.shape == (2, 4) and back.offset == 16
    assert np.array_equal(back.numpy(), n[1:])
    t = hcl.from_dlpack(n.T)
    assert t.strides == (1, 4) and np.array_equal(t.numpy(), n.T)


def test_dlpack_import_numpy_zero_copy(host):
    """A NumPy array (memory NumPy allocated) is wrapped on the host device without a copy: HCL's writes and built-ins
    are in the NumPy array, and the hcl.Array keeps it alive."""
    x = np.arange(1000, dtype=np.float32)
    a = hcl.from_dlpack(x, device=host)
    assert a.device is host and a.buffer.native == x.ctypes.data and a.buffer.size == x.nbytes
    assert a.buffer.owner is not None  # what keeps NumPy's memory alive
    a.write(np.full(1000, 3.0, np.float32))  # written through HCL, seen in NumPy
    assert np.all(x == 3.0)
    hcl.vecadd(a, a, a)
    a.buffer.synchronize()
    assert np.all(x == 6.0)
    x[7] = -1.0  # and NumPy's writes in HCL
    assert a.numpy()[7] == -1.0
    # a strided view (every other element, reversed): the span it touches is wrapped, the strides kept
    v = hcl.from_dlpack(x[::-2], device=host)
    assert v.shape == (500,) and v.strides == (-2,)
    assert np.array_equal(v.numpy(), x[::-2])
    # the array alone keeps the memory: dropping every NumPy name leaves it valid
    ref = x.copy()
    del x
    assert np.array_equal(a.numpy(), ref)
    # without device=: the host device is the one a CPU tensor lives on
    y = np.ones((3, 5), np.float32)
    b = hcl.from_dlpack(y)
    assert b.device.backend == "host" and b.buffer.native == y.ctypes.data and b.shape == (3, 5)
    # releasing the buffer leaves NumPy's memory to NumPy
    b.buffer.release()
    assert np.all(y == 1.0)
    z = np.zeros(0, np.float32)
    assert hcl.from_dlpack(z).shape == (0,)


def test_dlpack_import_foreign(device):
    x = np.arange(6, dtype=np.float32)
    if device.backend != "host":  # a CPU tensor lives on the host device, not on this one
        with pytest.raises(BufferError, match="kDLCPU"):
            hcl.from_dlpack(x, device=device)
    else:
        assert hcl.from_dlpack(x, device=device).buffer.native == x.ctypes.data
    c = hcl.from_dlpack(x, copy=True, device=device)
    assert c.device is device and np.array_equal(c.numpy(), x)
    assert c.buffer.native != x.ctypes.data or device.backend != "host"
    with pytest.raises(TypeError):
        hcl.from_dlpack([1, 2, 3])


class _FakeTensor:
    """A DLPack producer on a device type HCL does not share (kDLOneAPI 14)."""

    def __dlpack_device__(self):
        return (14, 0)

    def __dlpack__(self, **kw):
        raise AssertionError("not to be called")


def test_dlpack_import_unsupported_device(host):
    with pytest.raises(BufferError, match="DLPack device type 14"):
        hcl.from_dlpack(_FakeTensor())


def test_dlpack_versioned_capsule(host):
    a = hcl.asarray(np.arange(4, dtype=np.float32), device=host)
    cap = a.__dlpack__(max_version=(1, 0))
    assert "dltensor_versioned" in repr(cap)
    cap = a.__dlpack__()
    assert '"dltensor"' in repr(cap)
    del cap  # an unconsumed capsule frees its tensor (and the reference on `a`)
    with pytest.raises(BufferError):
        a.__dlpack__(stream=1)  # CPU arrays take no stream
    with pytest.raises(BufferError):
        a.__dlpack__(dl_device=(2, 0))
    a.release()
    with pytest.raises(hcl.InvalidHandleError):
        a.__dlpack__()


def test_dlpack_registry_many_arrays(host):
    import gc

    from hcl import _array

    arrs = [hcl.zeros(16, device=host) for _ in range(200)]
    views = [np.from_dlpack(a) for a in arrs]
    for a, v in zip(arrs, views):
        assert hcl.from_dlpack(v[2:]).buffer is a.buffer
    before = len(_array._registry[(1, 0)][0])
    del arrs, a
    gc.collect()
    assert len(_array._registry[(1, 0)][0]) == before  # the NumPy views keep the arrays (and entries) alive
    del views, v
    gc.collect()
    assert len(_array._registry[(1, 0)][0]) <= before - 200


def test_np_asarray(device):
    a = hcl.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=device)
    assert np.array_equal(np.asarray(a), np.arange(6).reshape(2, 3))
    assert np.asarray(a, dtype=np.float64).dtype == np.float64
