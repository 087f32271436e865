"""No crash on any misuse: every method of every object, and the extension's own functions, called with wrong types,
wrong values and on released objects, must raise (any exception), never crash the interpreter; objects collected in
any order release cleanly."""

import gc
import itertools

import numpy as np
import pytest

import hcl
from hcl import _hcl
from kernels_src import skip_saxpy_on_vulkan, sources

BAD = [None, -1, 0, 1 << 70, 2.5, "x", b"", b"\0" * 300, (), (1, 2, 3, 4), [None], object(), np.zeros(3)]


def objects(dev):
    q = hcl.Queue(dev)
    b = hcl.Buffer(dev, 64)
    mod = hcl.module(dev, *sources())
    k = mod.kernel("saxpy")
    ev = q.marker()
    h = hcl.HostMemory(dev, 64)
    a = hcl.zeros(4, device=dev)
    return {"queue": q, "buffer": b, "module": mod, "kernel": k, "event": ev, "hostmem": h, "array": a}


def methods(obj):
    for name in dir(obj):
        if name.startswith("__") and name not in ("__enter__", "__exit__", "__dlpack__", "__dlpack_device__"):
            continue
        try:
            m = getattr(obj, name)
        except Exception:
            continue
        if callable(m) and name not in ("release", "free"):
            yield name, m


def hammer(fn):
    for n in range(0, 3):
        for args in itertools.islice(itertools.product(BAD, repeat=n), 60):
            try:
                fn(*args)
            except Exception:
                pass


def test_methods_with_bad_arguments(device):
    for name, obj in objects(device).items():
        for mname, m in methods(obj):
            hammer(m)
    device.queue.finish()


def test_released_objects_every_method(device):
    objs = objects(device)
    objs["kernel"].release()
    objs["module"].release()
    objs["event"].release()
    objs["buffer"].release()
    objs["array"].release()
    objs["hostmem"].free()
    objs["queue"].release()
    for name, obj in objs.items():
        for mname, m in methods(obj):
            hammer(m)
        for attr in ("size", "native", "info", "device", "max_group_size", "address", "shape"):
            try:
                getattr(obj, attr)
            except Exception:
                pass


def test_module_functions_with_bad_arguments(device):
    fns = [getattr(_hcl, n) for n in dir(_hcl) if callable(getattr(_hcl, n)) and not isinstance(getattr(_hcl, n), type)
           and n not in ("trace_start", "_set_arg_hook", "comm_group_start")]
    for fn in fns:
        hammer(fn)
    # the built-ins with the right arity and wrong values
    b = hcl.Buffer(device, 64)
    for args in [(device, 9, 4, b, b, b, False), (device, 0, -1, b, b, b, False), (device, 0, 1 << 40, b, b, b, False),
                 (device, 0, 4, None, None, None, False), (None, 0, 4, b, b, b, False)]:
        with pytest.raises(Exception):
            _hcl._vecadd(*args)
    with pytest.raises(hcl.OutOfRangeError):
        _hcl._gemm(device, 0, 0, 64, 64, 64, 1.0, 0, b, 64, 0, b, 64, 0.0, 0, hcl.Buffer(device, 64), 64, 0, False)
    with pytest.raises(hcl.InvalidArgumentError):
        _hcl._gemm(device, 7, 0, 1, 1, 1, 1.0, 0, b, 1, 0, b, 1, 0.0, 0, hcl.Buffer(device, 64), 1, 0, False)
    with pytest.raises(hcl.InvalidArgumentError):
        _hcl._softmax(device, 5, 1, 1, b, b, False)
    with pytest.raises(hcl.InvalidArgumentError):
        _hcl._reduce(device, 0, 9, 1, b, hcl.Buffer(device, 4), False)
    for cap in [object(), None, 3]:
        with pytest.raises(Exception):
            _hcl._from_dlpack(cap)
    with pytest.raises(ValueError):
        _hcl._to_dlpack(b, 0, 1, 0, (1,) * 40, (1,) * 40, 2, 32, 0, False, False)
    device.queue.finish()


def test_dlpack_capsule_consumed_twice(host):
    a = hcl.zeros(4, device=host)
    cap = a.__dlpack__()
    _hcl._from_dlpack(cap)
    with pytest.raises(BufferError):
        _hcl._from_dlpack(cap)


def test_collection_in_any_order():
    for order in itertools.permutations(range(4)):
        d = hcl.Device("host")
        objs = [hcl.Buffer(d, 16), hcl.Queue(d), hcl.zeros(3, device=d), hcl.module(d, *sources())]
        objs.append(objs[3].kernel("saxpy"))
        del d
        for i in order:
            objs[i] = None
        objs.clear()
        gc.collect()


def test_array_constructor_misuse(host):
    b = hcl.Buffer(host, 64)
    for args in [(b, (-1,), "float32"), (b, (4,), "nope"), (b, (4,), "float32", (1, 2)), (None, (4,), "float32"),
                 (b, (100,), "float32"), (b, (4,), "float32", None, 1 << 40), (b, (2, 2), "float32", (-1, 1))]:
        with pytest.raises(Exception):
            hcl.Array(*args).numpy()


def test_threads_share_a_queue(device):
    # Python threads release the GIL around calls: the binding serialises calls on one queue (the C API forbids two
    # threads on a queue at once); each thread's result must still be right
    import threading

    n = 4096
    errors = []
    x = hcl.asarray(np.arange(n, dtype=np.float32), device=device)

    def work(t):
        try:
            for i in range(20):
                y = hcl.zeros(n, device=device)
                hcl.vecadd(x, x, y)
                y.buffer.fill(np.float32(t).tobytes(), size=16)
                got = y.numpy()
                assert got[0] == t and got[5] == 10.0 and got[-1] == 2 * (n - 1)
        except Exception as e:  # reported below, not lost in the thread
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors, errors


def test_temporaries_dropped_under_pending_commands(device, rng):
    # Python frees a temporary at once; a command still queued on it must not see the buffer released under it (the
    # binding finishes the buffer's last queue first)
    skip_saxpy_on_vulkan(device)
    n = 1 << 16
    x = rng.uniform(-1, 1, n).astype(np.float32)
    out = hcl.empty(n, device=device)
    q = hcl.Queue(device)
    for _ in range(20):
        hcl.vecadd(hcl.asarray(x, device=device), hcl.asarray(x, device=device), out)
        b = hcl.Buffer(device, 1 << 20)
        b.fill(b"\1\2\3\4", async_=True, queue=q)
        del b
        k = hcl.module(device, *sources()).kernel("saxpy")
        y = hcl.asarray(x, device=device)
        k.launch(n // 64, 64, (hcl.uint32(n), hcl.float32(1.0), hcl.asarray(x, device=device), y), queue=q)
        y.release()
    assert np.array_equal(out.numpy(), x + x)
