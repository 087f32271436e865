"""Buffers and host memory: transfers, checks of offsets and sizes, asynchronous forms, released objects."""

import numpy as np
import pytest

import hcl


def test_write_read_roundtrip(device, rng):
    data = rng.integers(0, 256, size=4099, dtype=np.uint8)
    b = hcl.Buffer(device, data.nbytes)
    assert b.size == data.nbytes
    b.write(data)
    out = np.full(data.size, 0xAB, dtype=np.uint8)
    b.read(out)
    assert np.array_equal(out, data)
    part = bytearray(10)
    b.read(part, offset=4089)
    assert bytes(part) == data[4089:].tobytes()


def test_offsets_checked(device):
    b = hcl.Buffer(device, 100)
    with pytest.raises(hcl.OutOfRangeError) as e:
        b.write(b"x" * 8, offset=96)
    assert "hcl_buffer_write" in e.value.message and "100" in e.value.message
    with pytest.raises(hcl.OutOfRangeError):
        b.read(bytearray(101))
    with pytest.raises(hcl.OutOfRangeError):
        b.write(b"x", offset=-1)
    with pytest.raises(hcl.OutOfMemoryError):
        hcl.Buffer(device, 1 << 62)
    with pytest.raises(hcl.InvalidArgumentError):
        hcl.Buffer(device, 0)
    with pytest.raises(hcl.InvalidArgumentError):
        hcl.Buffer(device, -5)
    with pytest.raises(BufferError):
        b.read(b"immutable bytes")  # the destination must be writable


def test_fill_copy(device):
    a = hcl.Buffer(device, 64)
    c = hcl.Buffer(device, 64)
    a.fill(b"\x11\x22\x33\x44")
    c.fill(b"\0")
    c.copy_from(a, dst_offset=16, src_offset=0, size=32)
    out = bytearray(64)
    c.read(out)
    assert out == b"\0" * 16 + b"\x11\x22\x33\x44" * 8 + b"\0" * 16
    with pytest.raises(hcl.InvalidArgumentError):
        a.fill(b"\1\2\3")  # pattern size 3
    with pytest.raises(hcl.OutOfRangeError):
        c.copy_from(a, dst_offset=40, size=32)


def test_async_transfers_keep_host_data(device):
    q = hcl.Queue(device)
    b = hcl.Buffer(device, 1 << 16)
    src = bytearray(b"\x5a" * (1 << 16))
    ev = b.write(src, queue=q, async_=True)
    del src  # the event keeps it alive until it completes
    out = bytearray(1 << 16)
    ev2 = b.read(out, queue=q, wait=[ev], async_=True)
    ev2.wait()
    assert out == b"\x5a" * (1 << 16)


def test_released_buffer(device):
    b = hcl.Buffer(device, 16)
    b.release()
    assert b.released
    for call in (lambda: b.write(b"x"), lambda: b.read(bytearray(1)), lambda: b.size, lambda: b.release()):
        with pytest.raises(hcl.InvalidHandleError):
            call()


def test_cross_device_copy(host):
    others = [d for d in hcl.devices() if d["backend"] != "host"]
    if not others:
        pytest.skip("only the host backend is available")
    other = hcl.Device(f"{others[0]['backend']}:{others[0]['index']}")
    a = hcl.Buffer(host, 256)
    b = hcl.Buffer(other, 256)
    a.write(bytes(range(256)))
    b.copy_from(a, queue=other.queue)
    out = bytearray(256)
    b.read(out)
    assert out == bytes(range(256))


def test_host_memory(device):
    h = hcl.HostMemory(device, 4096)
    mv = memoryview(h)
    assert mv.nbytes == 4096 and not mv.readonly
    arr = np.frombuffer(h, dtype=np.float32)
    arr[:] = np.arange(1024)
    b = hcl.Buffer(device, 4096)
    b.write(h)
    out = np.zeros(1024, np.float32)
    b.read(out)
    assert np.array_equal(out, np.arange(1024, dtype=np.float32))
    with pytest.raises(hcl.InvalidArgumentError):
        h.free()  # views of it are alive
    del arr, mv
    h.free()
    with pytest.raises(hcl.InvalidHandleError):
        memoryview(h)
    with pytest.raises(hcl.InvalidArgumentError):
        hcl.HostMemory(device, 0)


def test_native_handles(device):
    b = hcl.Buffer(device, 16)
    if device.backend in ("host", "cuda", "hip", "opencl", "levelzero"):
        assert b.native != 0
    if device.backend == "host":
        with pytest.raises(hcl.UnsupportedError):
            device.native


def test_device_release_waits_for_host_memory():
    d = hcl.Device("host")
    h = hcl.HostMemory(d, 64)
    with pytest.raises(hcl.InvalidArgumentError, match="HostMemory"):
        d.release()  # hcl_host_free needs the device: it must outlive its host memory
    h.free()
    d.release()
    with hcl.Device("host") as d2:
        h2 = hcl.HostMemory(d2, 64)
    assert not d2.released  # kept for h2; released when both are collected
    del h2


def test_reads_wait_for_other_queues(device, rng):
    # a blocking read on the default queue after a launch on another queue sees the launch's result
    from kernels_src import skip_saxpy_on_vulkan, sources

    skip_saxpy_on_vulkan(device)

    q = hcl.Queue(device)
    n = 1 << 15
    x = rng.uniform(-1, 1, n).astype(np.float32)
    X, Y = hcl.asarray(x, device=device), hcl.zeros(n, device=device)
    k = hcl.module(device, *sources()).kernel("saxpy")
    for _ in range(3):
        k.launch(n // 64, 64, (hcl.uint32(n), hcl.float32(1.0), X, Y), queue=q)
    assert np.array_equal(Y.numpy(), 3 * x)
    Y.buffer.synchronize()
    with pytest.raises(hcl.InvalidHandleError):
        Y.release() or Y.buffer.synchronize()


def test_buffer_wrap(device):
    """Buffer.wrap (hcl_buffer_wrap_native): memory HCL did not allocate, shared; never freed by HCL."""
    mine = hcl.Buffer(device, 4096)
    with pytest.raises(hcl.InvalidArgumentError, match="native is NULL"):
        hcl.Buffer.wrap(device, 0, 16)
    if device.backend in ("opencl", "vulkan"):  # a cl_mem or VkBuffer is not made from an address
        with pytest.raises(hcl.UnsupportedError, match="cannot wrap"):
            hcl.Buffer.wrap(device, mine.native, 4096)
        return
    with pytest.raises(hcl.InvalidArgumentError, match="size is 0"):
        hcl.Buffer.wrap(device, mine.native, 0)
    keep = object()
    w = hcl.Buffer.wrap(device, mine.native + 1024, 2048, keep)  # a part of another buffer's memory
    assert w.native == mine.native + 1024 and w.size == 2048 and w.owner is keep
    w.write(b"\x07" * 16, offset=8)
    out = bytearray(16)
    mine.read(out, offset=1032)
    assert bytes(out) == b"\x07" * 16
    w.release()
    assert w.owner is None  # dropped with the release
    mine.read(out, offset=1032)  # the memory is still the other buffer's, untouched
    assert bytes(out) == b"\x07" * 16
