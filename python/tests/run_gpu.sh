#!/bin/bash
# The Python package on a GPU machine (an H100/H200 with PyTorch installed, no package registry): the pytest suite on
# every device there (cuda, both OpenCL platforms, host; hip reports no device), the PyTorch interop tests, the leak
# loop at a million iterations, and the per-call costs from Python beside the C bench's figures of the same run.
#
# Prepare here (a machine with PyPI), then carry the build folder:
#   python/tests/run_gpu.sh --prepare [BUILD_DIR]   # wheels of numpy and pytest for CPython 3.11-3.13 into
#                                                   # BUILD_DIR/python-wheels (for a python3 without them), and
#                                                   # HCL's own wheel (pip wheel ., every driver, the device code
#                                                   # of BUILD_DIR/kernels reused) into BUILD_DIR/python-dist
# Run there, from the repository root (the build folder as built here: build/python/hcl, build/lib, build/bin):
#   python/tests/run_gpu.sh [BUILD_DIR]             # results and logs into $OUT if set, else BUILD_DIR/python-gpu
# Environment: HCL_PYTEST_DEVICES (comma list of selectors; default every device), HCL_PYTEST_LEAK_N (default
# 1000000), PYTHON (default python3: the one with torch), SKIP_BENCH=1 (tests only). Nothing is installed outside the
# build folder.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
if [ "${1:-}" = "--prepare" ]; then
    build=$(cd "${2:-$root/build}" && pwd)
    py=${PYTHON:-python3}
    for v in 3.11 3.12 3.13; do
        "$py" -m pip download -q --disable-pip-version-check --only-binary=:all: --python-version $v \
            --platform manylinux2014_x86_64 --platform manylinux_2_17_x86_64 -d "$build/python-wheels" \
            numpy==2.2.6 pytest==8.4.2 || exit 1
    done
    ls "$build/python-wheels"
    "$py" -m pip wheel --disable-pip-version-check --no-deps -w "$build/python-dist" \
        --config-settings=cmake.define.HCL_DEVICE_CODE_FROM="$build/kernels" "$root" || exit 1
    ls -l "$build/python-dist"
    exit 0
fi
build=$(cd "${1:-$root/build}" && pwd) || exit 1
out=${OUT:-$build/python-gpu}
mkdir -p "$out"
py=${PYTHON:-python3}
export PYTHONDONTWRITEBYTECODE=1
test -f "$build/python/hcl/_hcl.abi3.so" || { echo "no $build/python/hcl/_hcl.abi3.so: build with python3-dev first"; exit 1; }

# numpy and pytest: the interpreter's own, else unpacked from the carried wheels (a wheel is a zip file: no pip and no
# venv needed) into a folder put on PYTHONPATH; numpy only when the interpreter has none (torch may use its own)
deps=""
if ! "$py" -c 'import numpy, pytest' 2>/dev/null; then
    deps=$build/python-gpu-deps
    rm -rf "$deps"
    "$py" - "$build/python-wheels" "$deps" <<'PYEOF' || exit 1
import glob, importlib.util, os, sys, zipfile
src, dst = sys.argv[1:3]
tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
wheels = glob.glob(os.path.join(src, "*.whl"))
if not wheels:
    sys.exit(f"no wheels in {src}: run python/tests/run_gpu.sh --prepare where PyPI is reachable")
for w in wheels:
    name = os.path.basename(w)
    if name.startswith("numpy-") and (importlib.util.find_spec("numpy") or f"-{tag}-" not in name):
        continue
    zipfile.ZipFile(w).extractall(dst)
    print("unpacked", name)
PYEOF
    "$py" -c "import sys; sys.path.insert(0, '$deps'); import numpy, pytest" ||
        { echo "numpy/pytest: neither in $py nor usable from $build/python-wheels"; exit 1; }
fi
export PYTHONPATH=$build/python${deps:+:$deps}
rc=0
{
    echo "== $(date -u) $(hostname) $("$py" --version 2>&1)"
    "$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())' 2>&1
    nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -n 2
    "$py" -m hcl -v
} 2>&1 | tee "$out/info.txt"

echo "== pytest: every device, torch interop, leak loops of ${HCL_PYTEST_LEAK_N:-1000000}"
(cd "$here" && HCL_PYTEST_LEAK_N=${HCL_PYTEST_LEAK_N:-1000000} "$py" -m pytest -v -p no:cacheprovider \
    --junitxml="$out/pytest.xml" -s . 2>&1) | tee "$out/pytest.txt"
[ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
grep -E "^(FAILED|ERROR)|passed|failed" "$out/pytest.txt" | tail -n 30

wheel=$(ls "$build"/python-dist/hcl-*.whl 2>/dev/null | head -n 1)
if [ -n "$wheel" ]; then
    echo "== the wheel of pip install . ($wheel), installed with pip, the suite on it (leak loops short)"
    site=$build/python-gpu-wheel-site
    rm -rf "$site"
    if ! "$py" -m pip --version >/dev/null 2>&1; then # no pip there: a wheel's files are its zip's
        echo "   (no pip in $py: the wheel is unpacked instead of installed)"
        "$py" -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$site" &&
            chmod +x "$site"/hcl/*.so "$site"/hcl/lib/*.so
    fi
    if [ -f "$site/hcl/_hcl.abi3.so" ] ||
        "$py" -m pip install -q --disable-pip-version-check --no-deps --no-index --target "$site" "$wheel"; then
        (cd "$here" && PYTHONPATH=$site${deps:+:$deps} HCL_PYTEST_LEAK_N=20000 "$py" -m pytest -q -p no:cacheprovider \
            --junitxml="$out/pytest-wheel.xml" . 2>&1) | tee "$out/pytest-wheel.txt"
        [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
        PYTHONPATH=$site "$py" -c 'import hcl; print("imported from", hcl.__file__)' | tee -a "$out/pytest-wheel.txt"
    else
        echo "pip could not install $wheel"
        rc=1
    fi
fi

if [ -z "${SKIP_BENCH:-}" ]; then
    echo "== per-call cost from Python, and the C bench's figures in the same run"
    for dev in host cuda; do
        "$py" -c "import hcl; hcl.Device('$dev')" 2>/dev/null || { echo "$dev: not available"; continue; }
        args=""
        [ $dev = cuda ] && args="--builtins --gemm 4096 --softmax 65536x1024 --vecadd-n 268435456"
        [ $dev = host ] && args="--builtins --gemm 1024 --softmax 8192x1024 --vecadd-n 33554432"
        for i in 1 2 3; do
            "$py" "$here/bench_py.py" --device $dev $args --json "$out/bench_py_${dev}_$i.json" 2>&1 |
                tee "$out/bench_py_${dev}_$i.txt"
        done
        shapes="--gemm 4096 --softmax 65536x1024 --vecadd-n 268435456"
        [ $dev = host ] && shapes="--gemm 1024 --softmax 8192x1024 --vecadd-n 33554432"
        "$build/bin/bench" --device $dev --kernels gemm,softmax,vecadd --types f32 $shapes --no-peak \
            --no-transfer --no-user-kernel --json "$out/bench_c_$dev.json" 2>&1 | tee "$out/bench_c_$dev.txt"
    done
fi
echo "== results in $out (rc $rc)"
exit $rc
