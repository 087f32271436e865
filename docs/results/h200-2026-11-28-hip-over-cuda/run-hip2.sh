#!/bin/bash
# On the GPU machine, from the repository root: device faults (hcl-fault-test: cuda, hip over CUDA, opencl) and the
# HIP driver's own GPU test (hcl-hip-test-gpu) over libhcl-test-hipcuda.so. Logs into $OUT.
D=build-hip-head/device
source $D/device-env.sh
L=$PWD/$D/drivers/hip/cuda/libhcl-test-hipcuda.so
export HCL_HIP_LIBRARY=$L HCL_HIPRTC_LIBRARY=$L HCL_CACHE_DIR=/tmp/hcl-cache CUDA_CACHE_PATH=/tmp/hcl-nvcache
export CUDA_CACHE_MAXSIZE=4294967296
mkdir -p "$OUT"
for t in hip-test-gpu fault-test; do
  t0=$(date +%s)
  $D/bin/hcl-$t > "$OUT/$t.txt" 2>&1
  echo "rc $? in $(( $(date +%s) - t0 )) s" >> "$OUT/$t.txt"
  tail -4 "$OUT/$t.txt"
done
