"""Nothing leaks: loops of create/release hold the process's memory (resident set size from /proc). The count is
HCL_PYTEST_LEAK_N (default 20000 here; the issue's million: HCL_PYTEST_LEAK_N=1000000)."""

import gc
import os

import numpy as np
import pytest

import hcl
from kernels_src import sources

N = int(os.environ.get("HCL_PYTEST_LEAK_N", "20000"))


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    pytest.skip("no /proc/self/status")


def loop(fn, n):
    for _ in range(min(n // 10, 2000)):  # warm up: allocator pools, caches
        fn()
    gc.collect()
    before = rss_kib()
    for _ in range(n):
        fn()
    gc.collect()
    return rss_kib() - before


def test_buffer_array_event_loop(host):
    x = np.ones(64, np.float32)

    def once():
        a = hcl.asarray(x, device=host)
        b = hcl.Buffer(host, 256)
        b.write(x)
        ev = b.fill(b"\0\0\0\0", async_=True)
        ev.wait()
        cap = a.__dlpack__()
        del cap
        q = hcl.Queue(host)
        q.release()

    grew = loop(once, N)
    print(f"{N} iterations: RSS grew {grew} KiB")
    assert grew < 4096, f"RSS grew {grew} KiB over {N} create/release loops"


def test_module_kernel_launch_loop(device):
    mod = hcl.module(device, *sources("empty"))

    q = device.queue

    def once():
        k = mod.kernel("empty")
        k.launch(1, 1, (), queue=q)
        q.finish()  # else the loop measures the queue's backlog of launches, not leaks
        k.release()

    n = N if device.backend == "host" else N // 10
    grew = loop(once, n)
    device.queue.finish()
    print(f"{n} kernel create/launch/release on {device.backend}: RSS grew {grew} KiB")
    assert grew < 4096


def test_errors_do_not_leak(host):
    b = hcl.Buffer(host, 16)

    def once():
        try:
            b.write(b"x" * 32)
        except hcl.OutOfRangeError:
            pass
        try:
            hcl.Device("nosuchbackend")
        except hcl.UnknownBackendError:
            pass

    grew = loop(once, N)
    assert grew < 4096
