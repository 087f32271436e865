"""Backends, devices, queues, events, errors: hcl's objects over the C API, and misuse of them."""

import gc
import subprocess
import sys
import threading

import pytest

import hcl
from conftest import SELECTORS


def test_backends_listed_with_reasons():
    bs = hcl.backends()
    names = [b["name"] for b in bs]
    assert "host" in names
    for b in bs:
        if b["available"]:
            assert b["device_count"] >= 1
        else:
            assert b["reason"], f"backend {b['name']} is unavailable without a reason"
    host = next(b for b in bs if b["name"] == "host")
    assert host["available"]


def test_devices_and_info_attributes(device):
    info = device.info
    assert device.backend == info["backend"]
    assert device.name == info["name"] and device.name
    assert device.compute_units >= 1
    assert device.type in ("cpu", "gpu", "accelerator", "other")
    assert "float32" not in device.native_types and "f32" in device.native_types
    assert device.max_work_group_size >= 1
    with pytest.raises(AttributeError):
        device.no_such_field
    assert repr(device).startswith("<hcl.Device ")


def test_open_by_selector_errors():
    with pytest.raises(hcl.UnknownBackendError) as e:
        hcl.Device("nosuchbackend")
    assert e.value.status == -6 and e.value.status_name == "HCL_ERROR_UNKNOWN_BACKEND"
    assert "host" in e.value.message  # the message lists the known names
    with pytest.raises(hcl.DeviceNotFoundError):
        hcl.Device("host:7")
    with pytest.raises(hcl.InvalidArgumentError):
        hcl.Device("host:x")
    unavailable = [b for b in hcl.backends() if not b["available"]]
    for b in unavailable:
        with pytest.raises(hcl.BackendUnavailableError) as e:
            hcl.Device(b["name"])
        assert e.value.message


def test_error_classes():
    assert issubclass(hcl.InvalidArgumentError, hcl.Error) and issubclass(hcl.InvalidArgumentError, ValueError)
    assert issubclass(hcl.OutOfRangeError, IndexError)
    assert issubclass(hcl.TimeoutError, hcl.Error)
    assert hcl.status_name(-3) == "HCL_ERROR_OUT_OF_RANGE"


def test_release_and_context_managers():
    d = hcl.Device("host")
    d.release()
    assert d.released
    with pytest.raises(hcl.InvalidHandleError):
        d.release()
    with pytest.raises(hcl.InvalidHandleError):
        d.info
    with pytest.raises(hcl.InvalidHandleError):
        hcl.Buffer(d, 16)
    with hcl.Device("host") as d2:
        with hcl.Queue(d2) as q:
            q.finish()
        with pytest.raises(hcl.InvalidHandleError):
            q.finish()
    assert d2.released


def test_objects_outlive_released_device():
    d = hcl.Device("host")
    b = hcl.Buffer(d, 64)
    q = hcl.Queue(d)
    d.release()  # libhcl keeps the device alive inside until its objects go
    b.write(b"x" * 64, queue=q)
    out = bytearray(64)
    b.read(out, queue=q)
    assert out == b"x" * 64
    del b, q
    gc.collect()


def test_queue_marker_event(device):
    q = hcl.Queue(device)
    b = hcl.Buffer(device, 1024)
    e1 = q.marker()
    ev = b.fill(b"\x01\x02\x03\x04", queue=q, async_=True)
    e2 = q.marker()
    ev.wait()
    t = e1.elapsed(e2)
    assert t >= 0.0
    e2.release()
    with pytest.raises(hcl.InvalidHandleError):
        e2.wait()
    with pytest.raises(TypeError):
        b.fill(b"\0\0\0\0", queue=q, wait=[b])
    q.release()


def test_default_queue_of_released_device():
    d = hcl.Device("host")
    q = d.queue
    q.finish()
    d.release()
    with pytest.raises(hcl.InvalidHandleError):
        q.finish()


def test_python_m_hcl_lists_backends():
    out = subprocess.run([sys.executable, "-m", "hcl", "-v"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Backends:" in out.stdout and "host" in out.stdout and "Devices:" in out.stdout
    for b in hcl.backends():
        assert b["name"] in out.stdout


def test_gil_released_during_finish(host):
    # a thread that finishes a queue does not hold up this one (the GIL is released around waits)
    q = hcl.Queue(host)
    done = []
    t = threading.Thread(target=lambda: (q.finish(), done.append(1)))
    t.start()
    t.join(30)
    assert done == [1]


def test_selectors_open():
    for sel in SELECTORS:
        with hcl.Device(sel) as d:
            assert f"{d.backend}:{d.index}" == sel


def test_trace(tmp_path, host):
    import json

    path = tmp_path / "trace.json"
    hcl.trace_start(str(path))
    with pytest.raises(hcl.InvalidArgumentError):
        hcl.trace_start(str(path))  # one trace at a time
    a = hcl.zeros(1024, device=host)
    hcl.vecadd(a, a, a)
    a.numpy()
    hcl.trace_stop()
    events = json.loads(path.read_text())
    events = events["traceEvents"] if isinstance(events, dict) else events
    names = {e.get("name") for e in events}
    assert any(n and "vecadd" in n for n in names), sorted(n for n in names if n)[:20]
