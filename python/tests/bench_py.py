"""Per-call cost of HCL from Python, to set beside the C bench's figures of the same run:
  launch  an empty kernel launched from Python: "submit" (N launches, then one finish, divided by N) and
          "launch+sync" (each launch finished), median of 7 rounds, in microseconds: the same measure as bench's
          launch cost (bench/launch.c). The kernel: CUDA C (NVRTC) on cuda, OpenCL C on opencl, on host a C function
          compiled here with cc (bench's is the same empty function), else a ctypes callback (then it says so).
  builtins  (--builtins) hcl.gemm / hcl.softmax / hcl.vecadd on torch tensors over HCL memory (or hcl.Arrays without
          torch), timed by HCL's device events (median of 7 after 2 warm-ups) and by the wall clock around the
          Python call, so that the Python layer's cost shows as the difference.
Usage: python bench_py.py [--device SEL] [--builtins] [--gemm N] [--softmax RxC] [--vecadd-n N] [--json FILE]"""

import argparse
import ctypes
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import hcl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kernels_src import EMPTY_CUDA_C, EMPTY_OPENCL_C, HOST_FN, host_empty  # noqa: E402


def empty_host_function():
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc:
        d = tempfile.mkdtemp(prefix="hcl-bench-py-")
        src, lib = os.path.join(d, "e.c"), os.path.join(d, "libe.so")
        with open(src, "w") as f:
            f.write("void hcl_py_empty(const void *launch, void *const *args) { (void)launch, (void)args; }\n")
        if subprocess.run([cc, "-O2", "-shared", "-fPIC", src, "-o", lib]).returncode == 0:
            so = ctypes.CDLL(lib)
            return ctypes.cast(so.hcl_py_empty, ctypes.c_void_p).value, "a C function (cc)", so
    return host_empty, "a ctypes callback (no cc found: includes the callback's cost)", None


def launch_cost(dev, rounds=7):
    fn, what, keep = empty_host_function() if dev.backend == "host" else (None, None, None)
    srcs = [("opencl_c", EMPTY_OPENCL_C), ("cuda_c", EMPTY_CUDA_C),
            ("hip_c", "#include <hip/hip_runtime.h>\n" + EMPTY_CUDA_C)]
    if fn is not None:
        srcs.append(("host_table", [("empty", fn)]))
    mod = hcl.module(dev, *srcs)
    k = mod.kernel("empty")
    q = hcl.Queue(dev)
    gpu = dev.type == "gpu"
    n_submit, n_sync = (1000, 500) if gpu else (500, 200)
    launch = k.launch
    for _ in range(50):
        launch(1, 1, (), q)
    q.finish()
    sub, syn = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(n_submit):
            launch(1, 1, (), q)
        q.finish()
        sub.append((time.perf_counter() - t0) / n_submit * 1e6)
        t0 = time.perf_counter()
        for _ in range(n_sync):
            launch(1, 1, (), q)
            q.finish()
        syn.append((time.perf_counter() - t0) / n_sync * 1e6)
    # the same with four arguments (two arrays, two typed scalars) on an empty kernel: the argument conversion's cost
    args4 = None
    if dev.backend == "host" and fn is not None and keep is not None:
        x = hcl.zeros(16, device=dev)
        m4 = hcl.module(dev, host_table=[("empty", fn)])
        k4 = m4.kernel("empty")
        a4 = (hcl.uint32(16), hcl.float32(2.0), x, x)
        l4 = k4.launch
        for _ in range(50):
            l4(1, 1, a4, q)
        q.finish()
        r4 = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            for _ in range(n_submit):
                l4(1, 1, a4, q)
            q.finish()
            r4.append((time.perf_counter() - t0) / n_submit * 1e6)
        args4 = statistics.median(r4)
    del keep
    return {"submit_4args_us": args4, "device": f"{dev.backend}:{dev.index}", "kernel": what or srcs[0][0], "submit_us": statistics.median(sub),
            "sync_us": statistics.median(syn), "submit_min_us": min(sub), "sync_min_us": min(syn)}


def timed(call, rounds=7, warm=2):
    """(median device seconds by HCL events, median wall seconds of the Python call + finish)"""
    for _ in range(warm):
        call(False)
    dev_t, wall_t = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        ev = call(True)
        ev.wait()
        wall_t.append(time.perf_counter() - t0)
        dev_t.append(ev.elapsed())
    return statistics.median(dev_t), statistics.median(wall_t), max(dev_t) / min(dev_t)


def builtins(dev, args):
    try:
        import torch
    except ImportError:
        torch = None
    out = []
    tdev = None
    if torch is not None and dev.backend in ("cuda", "hip") and torch.cuda.is_available():
        tdev = f"cuda:{dev.index}"
    elif torch is not None and dev.backend == "host":
        tdev = "cpu"

    def tensor(shape, dtype="float32"):
        a = hcl.empty(shape, dtype, dev)
        if tdev is None:
            return a
        t = torch.from_dlpack(a)
        t.copy_(torch.rand(shape, dtype=getattr(torch, dtype)))
        return t

    n = args.gemm
    A, B, C = tensor((n, n)), tensor((n, n)), tensor((n, n))
    d, w, spread = timed(lambda ev: hcl.gemm(A, B, C, event=ev))
    out.append({"op": f"gemm {n}x{n}x{n} f32", "operands": "torch" if tdev else "hcl.Array",
                "device_s": d, "wall_s": w, "spread": spread, "rate": 2 * n**3 / d / 1e12, "unit": "TFLOP/s"})
    r, c = args.softmax
    X, Y = tensor((r, c)), tensor((r, c))
    d, w, spread = timed(lambda ev: hcl.softmax(X, Y, event=ev))
    out.append({"op": f"softmax {r}x{c} f32", "operands": "torch" if tdev else "hcl.Array", "device_s": d,
                "wall_s": w, "spread": spread, "rate": 2 * r * c * 4 / d / 1e9, "unit": "GB/s"})
    m = args.vecadd_n
    a, b, cc = tensor(m), tensor(m), tensor(m)
    d, w, spread = timed(lambda ev: hcl.vecadd(a, b, cc, event=ev))
    out.append({"op": f"vecadd {m} f32", "operands": "torch" if tdev else "hcl.Array", "device_s": d, "wall_s": w,
                "spread": spread, "rate": 3 * m * 4 / d / 1e9, "unit": "GB/s"})
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None)
    p.add_argument("--builtins", action="store_true")
    p.add_argument("--gemm", type=int, default=4096)
    p.add_argument("--softmax", type=lambda s: tuple(int(v) for v in s.split("x")), default=(65536, 1024))
    p.add_argument("--vecadd-n", type=int, default=1 << 28)
    p.add_argument("--json", default=None)
    args = p.parse_args()
    dev = hcl.Device(args.device)
    print(f"device {dev.backend}:{dev.index} {dev.name}")
    lc = launch_cost(dev)
    print(f"launch cost of an empty kernel from Python ({lc['kernel']}), us per launch, median of 7 "
          f"(min): submit {lc['submit_us']:.2f} ({lc['submit_min_us']:.2f})   launch+sync {lc['sync_us']:.2f} "
          f"({lc['sync_min_us']:.2f})")
    if lc["submit_4args_us"] is not None:
        print(f"  with 4 arguments (2 hcl.Arrays, 2 typed scalars): submit {lc['submit_4args_us']:.2f} us")
    res = {"launch": lc}
    if args.builtins:
        res["builtins"] = builtins(dev, args)
        for r in res["builtins"]:
            print(f"{r['op']:<28} on {r['operands']:<9}: {r['rate']:9.2f} {r['unit']:<7} (device {r['device_s']*1e3:.3f} "
                  f"ms, wall of the Python call {r['wall_s']*1e3:.3f} ms, spread {r['spread']:.2f})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
