"""Softmax on a torch tensor through DLPack, without a copy: the tensor is made over HCL's memory
(torch.from_dlpack of an hcl.Array), filled by torch, and hcl.softmax writes torch's other tensor in place.
python softmax_torch.py [SELECTOR]   (cuda for a GPU; host for the CPU)"""

import sys

import torch

import hcl

dev = hcl.Device(sys.argv[1] if len(sys.argv) > 1 else None)
rows, cols = 4096, 1000
x = torch.from_dlpack(hcl.empty((rows, cols), "float32", dev))  # HCL's buffer, seen by torch
y = torch.from_dlpack(hcl.empty((rows, cols), "float32", dev))
x.copy_(torch.randn(rows, cols) * 3)  # torch writes HCL's memory
ptr = y.data_ptr()
hcl.softmax(x, y)  # hcl_softmax on the same memory; waits, so torch may read y next
assert y.data_ptr() == ptr
err = (y - torch.softmax(x, dim=-1)).abs().max().item()
print(f"softmax {rows}x{cols} on {dev.backend}:{dev.index}: max |hcl - torch| = {err:.2e}")
assert err < 1e-5
# A tensor torch allocated itself is not HCL memory: HCL's C API cannot wrap it, and says so.
try:
    hcl.softmax(torch.zeros(4, 4, device=x.device), y[:4, :4])
except BufferError as e:
    print("as expected:", str(e)[:90], "...")
