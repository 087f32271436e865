"""The built-ins on hcl.Arrays in every type, against float64 references with the conformance suite's tolerances;
outputs poisoned first; shapes with 0, 1, primes and sizes around block boundaries."""

import numpy as np
import pytest

import hcl
from reference import check, gemm_tol, poison, random_input, round_to, softmax_ref, softmax_tol, sum_tol

DTYPES = ["float32", "float16", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 7, 256, 1031])
def test_vecadd(device, rng, dtype, n):
    a = random_input(rng, n, dtype)
    b = random_input(rng, n, dtype)
    A, B = hcl.asarray(a, dtype, device), hcl.asarray(b, dtype, device)
    C = hcl.empty(n, dtype, device)
    poison(C)
    assert hcl.vecadd(A, B, C) is C
    check(C.numpy(), round_to(dtype, a + b), 0.0, f"vecadd {dtype} n={n}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (3, 5, 7), (33, 17, 65), (64, 64, 64), (5, 3, 0)])
def test_gemm(device, rng, dtype, m, n, k):
    a = random_input(rng, (m, k), dtype)
    b = random_input(rng, (k, n), dtype)
    A, B = hcl.asarray(a, dtype, device), hcl.asarray(b, dtype, device)
    c0 = random_input(rng, (m, n), dtype)
    C = hcl.asarray(c0, dtype, device)
    alpha, beta = 1.5, -0.5
    hcl.gemm(A, B, C, alpha=alpha, beta=beta)
    ref = alpha * (a @ b) + beta * c0
    check(C.numpy(), ref, gemm_tol(a, b, ref, k, alpha, beta, c0, dtype), f"gemm {dtype} {m}x{n}x{k}")
    # beta = 0 does not read C (poison must not propagate); transposed views; float32 output of 16-bit inputs
    Ct = hcl.empty((m, n), "float32", device)
    poison(Ct)
    At = hcl.asarray(a.T.copy(), dtype, device).T
    hcl.gemm(At, B, Ct)
    ref = a @ b
    check(Ct.numpy(), ref, gemm_tol(a, b, ref, k, 1.0, 0.0, None, "float32"), f"gemm {dtype}->f32 trans_a")
    Bt = hcl.asarray(b.T.copy(), dtype, device)
    C2 = hcl.gemm(A, Bt, trans_b=True)
    check(C2.numpy(), ref, gemm_tol(a, b, ref, k, 1.0, 0.0, None, dtype), f"gemm {dtype} trans_b")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 7), (17, 256), (2, 1031)])
def test_softmax(device, rng, dtype, rows, cols):
    x = random_input(rng, (rows, cols), dtype, -8, 8)
    X = hcl.asarray(x, dtype, device)
    Y = hcl.empty((rows, cols), dtype, device)
    poison(Y)
    hcl.softmax(X, Y)
    ref = softmax_ref(x)
    check(Y.numpy(), ref, softmax_tol(ref, cols, dtype), f"softmax {dtype} {rows}x{cols}")
    hcl.softmax(X, X)  # in place
    check(X.numpy(), ref, softmax_tol(ref, cols, dtype), f"softmax {dtype} in place")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 5, 4099])
def test_reduce(device, rng, dtype, n):
    x = random_input(rng, n, dtype)
    X = hcl.asarray(x, dtype, device)
    got = hcl.reduce(X, "sum")
    check(np.array(got), np.array(np.sum(x)), sum_tol(x), f"reduce sum {dtype} n={n}")
    assert hcl.reduce(X, "max") == (np.max(x) if n else -np.inf)
    assert hcl.reduce(X, "min") == (np.min(x) if n else np.inf)
    out = hcl.empty(1, "float32", device)
    poison(out)
    hcl.reduce(X, "sum", out)
    check(out.numpy(), np.array([np.sum(x)]), sum_tol(x), "reduce into out")


def test_builtin_misuse(device):
    a = hcl.zeros(8, "float32", device)
    b = hcl.zeros(8, "float16", device)
    with pytest.raises(TypeError, match="dtypes"):
        hcl.vecadd(a, b)
    with pytest.raises(ValueError, match="shapes"):
        hcl.vecadd(a, hcl.zeros(9, "float32", device))
    with pytest.raises(TypeError, match="float32, float16 or bfloat16"):
        hcl.vecadd(hcl.zeros(8, "int32", device), hcl.zeros(8, "int32", device))
    with pytest.raises(ValueError, match="inner dimensions"):
        hcl.gemm(a.reshape(2, 4), a.reshape(2, 4))
    with pytest.raises(ValueError, match="2-D"):
        hcl.gemm(a, a)
    with pytest.raises(ValueError, match="compute"):
        hcl.gemm(a.reshape(2, 4), a.reshape(4, 2), compute="f8")
    with pytest.raises(ValueError, match="op"):
        hcl.reduce(a, "mean")
    x = np.zeros(8, np.float32)  # host memory HCL did not allocate: wrapped in place on the host device only
    if device.backend == "host":
        assert np.array_equal(hcl.vecadd(hcl.from_dlpack(x, device=device), a).numpy(), a.numpy())
    else:
        with pytest.raises(BufferError, match="kDLCPU"):
            hcl.from_dlpack(x, device=device)
    if "tf32" not in device.matrix_types:
        with pytest.raises(hcl.UnsupportedError):
            hcl.gemm(a.reshape(2, 4), a.reshape(4, 2), compute="tf32")
    c = hcl.zeros(8, "float32", device)
    c.release()
    with pytest.raises(hcl.InvalidHandleError):
        hcl.vecadd(a, a, c)


def test_device_mismatch(host):
    others = [d for d in hcl.devices() if d["backend"] != "host"]
    if not others:
        pytest.skip("only the host backend is available")
    other = hcl.Device(f"{others[0]['backend']}:{others[0]['index']}")
    a = hcl.zeros(8, device=host)
    b = hcl.zeros(8, device=other)
    with pytest.raises(hcl.DeviceMismatchError):
        hcl.vecadd(a, b)


def test_builtin_events(device):
    a = hcl.zeros(1 << 16, device=device)
    ev = hcl.vecadd(a, a, a, event=True)
    assert isinstance(ev, hcl.Event)
    assert ev.elapsed() >= 0
