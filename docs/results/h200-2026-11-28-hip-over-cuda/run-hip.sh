#!/bin/bash
# On the GPU machine, from the repository root: the HIP driver over libhcl-test-hipcuda.so (HIP's API over CUDA).
# Usage: bash build-hip-head/device/run-hip.sh [conformance filter]; logs into $OUT.
D=build-hip-head/device
source $D/device-env.sh
L=$PWD/$D/drivers/hip/cuda/libhcl-test-hipcuda.so
export HCL_HIP_LIBRARY=$L HCL_HIPRTC_LIBRARY=$L HCL_CACHE_DIR=/tmp/hcl-cache CUDA_CACHE_PATH=/tmp/hcl-nvcache
export CUDA_CACHE_MAXSIZE=4294967296
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/gpu.txt" 2>&1
$D/bin/hcl-info > "$OUT/info.txt" 2>&1
HCL_BACKEND=hip $D/bin/hcl-info -d hip:0 >> "$OUT/info.txt" 2>&1
t0=$(date +%s)
# one built-in case alone first: hiprtc (NVRTC) compiles the built-in text once into $HCL_CACHE_DIR and the CUDA
# driver JIT-compiles its PTX once into $CUDA_CACHE_PATH, instead of every parallel test process doing both
HCL_LOG=debug HCL_BACKEND=hip $D/bin/hcl-conformance --jobs 1 --filter "vecadd/sizes" > "$OUT/warmup.txt" 2>&1
echo "rc $? in $(( $(date +%s) - t0 )) s" >> "$OUT/warmup.txt"
t0=$(date +%s)
HCL_BACKEND=hip $D/bin/hcl-conformance --verbose --jobs 16 ${1:+--filter "$1"} > "$OUT/conf-hip.txt" 2>&1
echo "rc $? in $(( $(date +%s) - t0 )) s" >> "$OUT/conf-hip.txt"
tail -3 "$OUT/conf-hip.txt"
grep -E "^\[FAIL\]|CRASH" "$OUT/conf-hip.txt" | head -40
