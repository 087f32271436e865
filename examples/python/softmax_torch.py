"""Softmax on torch tensors through DLPack, without a copy: tensors made over HCL's memory (torch.from_dlpack of an
hcl.Array), filled by torch, hcl.softmax writing torch's other tensor in place; then tensors torch allocated itself,
wrapped in place by hcl.from_dlpack.
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
# A tensor torch allocated itself is wrapped in place too (hcl.from_dlpack: hcl_buffer_wrap_native), on the device
# HCL opens for it (its own hcl.Device of that GPU, or the host)
z = torch.randn(64, 300, device=x.device)
w = torch.empty_like(z)
hcl.softmax(z, w)
err2 = (w - torch.softmax(z, dim=-1)).abs().max().item()
print(f"softmax 64x300 on torch's own tensors: max |hcl - torch| = {err2:.2e}")
assert err2 < 1e-5
