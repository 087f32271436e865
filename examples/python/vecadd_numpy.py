"""NumPy vecadd on any backend: python vecadd_numpy.py [SELECTOR]  (host, opencl, cuda:0, ...; default: the
environment's HCL_BACKEND / HCL_DEVICE, else the first GPU, else the host)."""

import sys

import numpy as np

import hcl

dev = hcl.Device(sys.argv[1] if len(sys.argv) > 1 else None)
print(f"on {dev.backend}:{dev.index} {dev.name}")
n = 1_000_003
rng = np.random.default_rng(1)
x = rng.standard_normal(n, dtype=np.float32)
y = rng.standard_normal(n, dtype=np.float32)
a = hcl.asarray(x, device=dev)  # copies to the device
b = hcl.asarray(y, device=dev)
c = hcl.vecadd(a, b)  # hcl_vecadd on the device's default queue
assert np.array_equal(c.numpy(), x + y)  # numpy() waits and copies back
print(f"vecadd of {n} float32: equal to NumPy's x + y")
