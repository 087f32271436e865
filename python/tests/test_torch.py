"""PyTorch interop through DLPack (skipped where torch is not installed): torch tensors over HCL memory and HCL arrays
over torch's own memory (hcl_buffer_wrap_native), the built-ins on them with no copy (the same data pointer), results
equal to torch's within the conformance tolerances."""

import numpy as np
import pytest

import hcl
from reference import check, gemm_tol, softmax_tol

torch = pytest.importorskip("torch")


def torch_device(dev):
    if dev.backend == "host":
        return "cpu"
    if dev.backend in ("cuda", "hip"):
        return f"cuda:{dev.index}"
    return None


@pytest.fixture
def tdev(device):
    t = torch_device(device)
    if t is None:
        pytest.skip(f"{device.backend}: no DLPack (its buffers are not plain pointers)")
    if t.startswith("cuda") and not torch.cuda.is_available():
        pytest.skip("torch has no CUDA here")
    return t


def hcl_tensor(device, shape, dtype="float32"):
    """A torch tensor over a new HCL buffer (torch.from_dlpack of an hcl.Array: no copy)."""
    a = hcl.empty(shape, dtype, device)
    t = torch.from_dlpack(a)
    assert t.data_ptr() == a.buffer.native
    return t


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_gemm_on_torch_tensors(device, tdev, rng, dtype):
    m, n, k = 257, 129, 515
    tdt = getattr(torch, dtype)
    A = hcl_tensor(device, (m, k), dtype)
    B = hcl_tensor(device, (k, n), dtype)
    C = hcl_tensor(device, (m, n), "float32")
    g = torch.Generator(device="cpu").manual_seed(int(rng.integers(1 << 31)))
    A.copy_(torch.rand((m, k), generator=g).mul_(2).sub_(1).to(tdt))
    B.copy_(torch.rand((k, n), generator=g).mul_(2).sub_(1).to(tdt))
    C.fill_(float("nan"))
    ptrs = (A.data_ptr(), B.data_ptr(), C.data_ptr())
    out = hcl.gemm(A, B, C)
    assert out.buffer.native == ptrs[2]  # no copy: HCL wrote torch's tensor in place
    assert (A.data_ptr(), B.data_ptr(), C.data_ptr()) == ptrs
    a64, b64 = A.double().cpu().numpy(), B.double().cpu().numpy()
    ref = a64 @ b64
    got = C.double().cpu().numpy()
    check(got, ref, gemm_tol(a64, b64, ref, k, 1.0, 0.0, None, "float32"), f"hcl.gemm {dtype} on torch tensors")
    # torch's own result is within the same tolerance of the float64 reference (it is the usual comparison)
    with torch.no_grad():
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        tref = (A.float() @ B.float()).double().cpu().numpy()
        torch.backends.cuda.matmul.allow_tf32 = prev
    check(got, tref, 2 * gemm_tol(a64, b64, ref, k, 1.0, 0.0, None, "float32"), "hcl.gemm vs torch.matmul")


def test_softmax_vecadd_reduce_on_torch(device, tdev):
    x = hcl_tensor(device, (64, 1000))
    x.copy_(torch.randn(64, 1000) * 4)
    y = hcl_tensor(device, (64, 1000))
    hcl.softmax(x, y)
    ref = torch.softmax(x.double(), dim=-1).cpu().numpy()
    check(y.double().cpu().numpy(), ref, softmax_tol(ref, 1000, "float32"), "hcl.softmax on torch")
    z = hcl_tensor(device, (64, 1000))
    hcl.vecadd(x, y, z)
    assert torch.equal(z, x + y)
    s = hcl.reduce(x, "sum")
    assert abs(s - x.double().sum().item()) <= 1e-5 * x.abs().double().sum().item()


def test_torch_views_and_lifetime(device, tdev):
    a = hcl.asarray(np.arange(12, dtype=np.float32).reshape(3, 4), device=device)
    t = torch.from_dlpack(a)
    del a  # the tensor keeps HCL's buffer alive
    assert t.sum().item() == 66
    back = hcl.from_dlpack(t[1])  # a row of it, in place
    assert back.offset == 16 and back.numpy().tolist() == [4, 5, 6, 7]
    back_t = hcl.from_dlpack(t.t())
    assert back_t.strides == (1, 4)


def test_foreign_torch_tensor_shared(device, tdev):
    """A tensor torch allocated itself is wrapped in place on its device (cuda:N -> HCL's cuda:N; a CPU tensor -> the
    host device): the same pointer, HCL's writes seen by torch, torch's by HCL."""
    t = torch.zeros(16, device=tdev)  # torch's own memory
    a = hcl.from_dlpack(t, device=device)
    assert a.device is device and a.buffer.native == t.data_ptr() and a.buffer.size == 64
    a.write(np.arange(16, dtype=np.float32))
    assert t.tolist() == list(range(16))  # HCL's write, in torch's tensor
    t.add_(1)  # queued on torch's stream: a new import orders it before HCL's queue (the stream handshake)
    assert hcl.from_dlpack(t, device=device).numpy().tolist() == list(range(1, 17))
    a.buffer.release()  # HCL lets go; torch's memory stays torch's
    assert t.sum().item() == sum(range(1, 17))
    wrong = torch.zeros(16, dtype=torch.complex64, device=tdev)
    with pytest.raises((TypeError, BufferError)):
        hcl.from_dlpack(wrong)
    if tdev == "cpu":
        c = hcl.from_dlpack(t, copy=True, device=device)
        assert c.numpy().tolist() == t.tolist() and c.buffer.native != t.data_ptr()


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_gemm_on_foreign_torch_tensors(device, tdev, rng, dtype):
    """hcl.gemm on tensors torch allocated (no HCL memory anywhere): in place, equal to torch.matmul within the
    conformance tolerance, and torch sees HCL's result without a copy or a synchronisation of its own."""
    m, n, k = 257, 129, 515
    tdt = getattr(torch, dtype)
    g = torch.Generator(device="cpu").manual_seed(int(rng.integers(1 << 31)))
    A = (torch.rand((m, k), generator=g) * 2 - 1).to(tdt).to(tdev)
    B = (torch.rand((k, n), generator=g) * 2 - 1).to(tdt).to(tdev)
    C = torch.full((m, n), float("nan"), device=tdev)
    ptrs = (A.data_ptr(), B.data_ptr(), C.data_ptr())
    out = hcl.gemm(A, B, C)
    assert out.buffer.native == ptrs[2] and out.device.backend == device.backend  # HCL wrote torch's tensor
    assert (A.data_ptr(), B.data_ptr(), C.data_ptr()) == ptrs
    a64, b64 = A.double().cpu().numpy(), B.double().cpu().numpy()
    ref = a64 @ b64
    got = C.double().cpu().numpy()
    tol = gemm_tol(a64, b64, ref, k, 1.0, 0.0, None, "float32")
    check(got, ref, tol, f"hcl.gemm {dtype} on torch's tensors")
    with torch.no_grad():
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        tref = (A.float() @ B.float()).double().cpu().numpy()
        torch.backends.cuda.matmul.allow_tf32 = prev
    check(got, tref, 2 * tol, "hcl.gemm on torch's tensors vs torch.matmul")
    # a torch op right after, on torch's stream, reads HCL's result (hcl.gemm finished its queue for the tensor)
    assert torch.isfinite(C).all().item()


def test_foreign_torch_lifetime(device, tdev):
    """The hcl.Array keeps torch's tensor alive: dropping every torch name leaves the memory valid."""
    t = torch.arange(32, dtype=torch.float32, device=tdev)
    a = hcl.from_dlpack(t, device=device)
    ptr = t.data_ptr()
    del t
    # a tensor of the same size: torch's allocator would hand it the block just freed, had the array not kept it
    other = torch.full((32,), -1.0, device=tdev)
    assert other.data_ptr() != ptr
    assert a.numpy().tolist() == list(range(32))
    assert a.buffer.native == ptr
