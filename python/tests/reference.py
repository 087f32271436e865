"""float64 references and the conformance suite's tolerance rules (testsupport/hcl_testsupport.h, HCL_TS_CONFORMANCE
with the typed forms), in NumPy; and NaN poisoning."""

import math

import numpy as np

import hcl

U = {"float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}
U_ACC = 2.0**-24
FLT_MIN = float(np.finfo(np.float32).tiny)


def round_bf16(x):
    """float64 -> the nearest bfloat16 (through float32, round to nearest even), as float64."""
    f = np.ascontiguousarray(x, dtype=np.float32)
    bits = np.empty(f.size, dtype=np.uint16)
    hcl._hcl.convert(2, bits, 0, f.reshape(-1), f.size)
    return widen_bf16(bits).reshape(np.shape(x))


def widen_bf16(bits):
    return (np.asarray(bits, dtype=np.uint32) << 16).view(np.float32).astype(np.float64)


def round_to(dtype, x):
    """Values as stored in `dtype`, as float64."""
    if dtype == "bfloat16":
        return round_bf16(x)
    return np.asarray(x).astype(dtype).astype(np.float64)


def random_input(rng, shape, dtype, lo=-1.0, hi=1.0):
    """Uniform inputs rounded to the storage type (so the reference sees exactly the stored values)."""
    return round_to(dtype, rng.uniform(lo, hi, size=shape))


def gemm_tol(a, b, ref, k, alpha, beta, c0, dtype_c):
    s = np.abs(a) @ np.abs(b)
    g = min(2 * (k + 3), 8 * (math.sqrt(k) + math.log2(k + 1) + 1)) if k else 0
    e = g * U_ACC * (abs(alpha) * s + (abs(beta) * np.abs(c0) if c0 is not None else 0))
    u_out = 0.0 if dtype_c == "float32" else U[dtype_c]
    tiny = FLT_MIN + (2.0**-25 if dtype_c == "float16" else 0)
    return e * (1 + u_out) + (u_out + U_ACC) * np.abs(ref) + tiny


def softmax_ref(x):
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def softmax_tol(ref, cols, dtype):
    rtol = 1e-5 * max(1.0, math.sqrt(cols / 256))
    u_out = 0.0 if dtype == "float32" else U[dtype]
    tiny_out = 2.0**-25 if dtype == "float16" else 0.0  # half the f16 subnormal spacing: the output's rounding there
    return (rtol + u_out) * np.abs(ref) + 4 * FLT_MIN + tiny_out


def sum_tol(x):
    n = x.size
    if n <= 1:
        return 0.0
    return 4 * (math.sqrt(n) + math.log2(n) + 1) * 2.0**-24 * float(np.sum(np.abs(x)))


def poison(arr):
    """Fill an hcl.Array with NaN of its type, so that an element the kernel does not write fails."""
    pat = {"float32": b"\x01\x00\xc0\x7f", "float16": b"\x01\x7e", "bfloat16": b"\xc1\x7f"}[arr.dtype]
    arr.buffer.fill(pat)


def check(got, ref, tol, what):
    got = np.asarray(got, dtype=np.float64)
    bad = ~(np.abs(got - ref) <= tol)  # NaN fails
    if np.any(bad):
        idx = np.argwhere(bad)[:5]
        detail = ", ".join(f"{tuple(i)}: got {got[tuple(i)]!r} ref {ref[tuple(i)]!r} tol {np.broadcast_to(tol, ref.shape)[tuple(i)]!r}"
                           for i in idx)
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} elements out of tolerance: {detail}")
