"""The examples of examples/python run as they are (each on the host and on every other device; the torch one where
torch is installed)."""

import os
import shutil
import subprocess
import sys

import pytest

EX = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python")


def run(name, sel):
    out = subprocess.run([sys.executable, os.path.join(EX, name), sel], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_vecadd_numpy(device):
    assert "equal to NumPy" in run("vecadd_numpy.py", f"{device.backend}:{device.index}")


def test_user_kernel(device):
    if device.backend == "vulkan":
        pytest.skip("vulkan: the example's saxpy(n, a, x, y) has no GLSL form (a Vulkan kernel takes its buffers first)")
    if device.backend == "host" and not shutil.which("cc"):
        pytest.skip("the host form of the example compiles C with cc")
    assert ": ok" in run("user_kernel.py", f"{device.backend}:{device.index}")


def test_softmax_torch(device):
    pytest.importorskip("torch")
    if device.backend not in ("host", "cuda"):
        pytest.skip(f"{device.backend}: no DLPack")
    assert "max |hcl - torch|" in run("softmax_torch.py", f"{device.backend}:{device.index}")
