#!/bin/bash
# On the GPU machine, from the repository root: device faults on hip alone (hcl-fault-test with the CUDA driver's
# libcuda and every OpenCL ICD made unloadable, so that no other backend's fault shares the process's CUDA context).
D=build-hip-head/device
source $D/device-env.sh
L=$PWD/$D/drivers/hip/cuda/libhcl-test-hipcuda.so
export HCL_HIP_LIBRARY=$L HCL_HIPRTC_LIBRARY=$L HCL_CACHE_DIR=/tmp/hcl-cache CUDA_CACHE_PATH=/tmp/hcl-nvcache
export CUDA_CACHE_MAXSIZE=4294967296 HCL_CUDA_LIBRARY=/nonexistent/libcuda.so.1 OCL_ICD_VENDORS=/nonexistent
mkdir -p "$OUT"
t0=$(date +%s)
HCL_LOG=debug $D/bin/hcl-fault-test > "$OUT/fault-test-hip.txt" 2>&1
echo "rc $? in $(( $(date +%s) - t0 )) s" >> "$OUT/fault-test-hip.txt"
grep -v "debug:" "$OUT/fault-test-hip.txt" | tail -12
