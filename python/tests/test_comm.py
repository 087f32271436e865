"""Communicators from Python: every device of one process at once (the staged engine on CPU devices)."""

import numpy as np
import pytest

import hcl


def test_engines_listed():
    es = hcl.comm_engines()
    names = [e["name"] for e in es]
    assert "staged" in names
    for e in es:
        assert e["available"] or e["reason"]


def test_staged_all_reduce_broadcast(rng):
    sels = [f"{d['backend']}:{d['index']}" for d in hcl.devices()]
    if len(sels) < 2:
        pytest.skip(f"one device only ({sels}): a communicator of one process needs two")
    devs = [hcl.Device(s) for s in sels[:2]]
    comms = hcl.comm_create_all(devs, "staged")
    assert [c.info["rank"] for c in comms] == [0, 1] and comms[0].info["size"] == 2
    xs = [rng.uniform(-1, 1, 1000).astype(np.float32) for _ in devs]
    send = [hcl.asarray(x, device=d) for x, d in zip(xs, devs)]
    recv = [hcl.zeros(1000, device=d) for d in devs]
    hcl.comm_group_start()
    for c, s, r in zip(comms, send, recv):
        c.all_reduce(s, r, "sum")
    hcl.comm_group_end()
    ref = xs[0].astype(np.float64) + xs[1]
    for c, r in zip(comms, recv):
        c.finish(None)
        assert np.allclose(r.numpy(), ref, rtol=1e-6, atol=1e-6)
    hcl.comm_group_start()
    for c, s, r in zip(comms, send, recv):
        c.broadcast(s, r, root=1)
    hcl.comm_group_end()
    for r in recv:
        assert np.array_equal(r.numpy(), xs[1])
    with pytest.raises(hcl.InvalidArgumentError):
        comms[0].broadcast(send[0], recv[0], root=5)
    for c in comms:
        c.release()
    with pytest.raises(hcl.InvalidHandleError):
        comms[0].info
