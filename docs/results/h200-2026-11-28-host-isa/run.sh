#!/bin/bash
# There (the H200 machine), from the repository root, with build-dev carried (strip-build.sh beside this file):
#   bash docs/results/h200-2026-11-28-host-isa/run.sh build-dev $OUT
# The host backend's conformance suite and GEMM test at each instruction set on the machine's Xeon (AVX-512), bench's
# host rows at each; the HIP driver's device-fault test over HIP's NVIDIA platform; then the final code's whole suite
# on CUDA and on NVIDIA's OpenCL, and compute-sanitizer over the softmax NaN case.
set -u
D=${1:?usage: run.sh BUILD OUT} out=${2:?}
source $D/device-env.sh
export HCL_CACHE_DIR=/tmp/hcl-cache HCL_SEED=${HCL_SEED:-20261128}
mkdir -p $out/logs
conf=$D/bin/hcl-conformance suite="@(vecadd|gemm|softmax|reduce|types|api|peer)/*"
{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv; lscpu | grep -E 'Model name|^CPU\(s\)';
  grep -o 'avx512[a-z_0-9]*' /proc/cpuinfo | sort -u | tr '\n' ' '; echo; } > $out/logs/machine.txt 2>&1
$D/bin/hcl-info -l > $out/logs/hcl-info.txt 2>&1
step() { local name=$1; shift; local t0=$(date +%s); "$@" > $out/logs/$name.txt 2>&1;
         echo "rc $? in $(( $(date +%s) - t0 )) s: $*" | tee -a $out/logs/$name.txt >> $out/summary.txt; }
for isa in avx512 avx2 generic; do
  step host-$isa env HCL_BACKEND=host HCL_HOST_ISA=$isa $conf --verbose --jobs 16 --filter "$suite"
  step bench-host-$isa env HCL_HOST_ISA=$isa $D/bin/bench --device host --kernels gemm,softmax,reduce,vecadd --types f32 --quick
done
step host-gemm $D/bin/hcl-kernels-test-host-gemm
step host-simd $D/bin/hcl-kernels-test-host-simd
L=$PWD/$D/drivers/hip/cuda/libhcl-test-hipcuda.so
step fault-hip env HCL_HIP_LIBRARY=$L HCL_HIPRTC_LIBRARY=$L HCL_CUDA_LIBRARY=/nonexistent/libcuda.so.1 \
  OCL_ICD_VENDORS=/nonexistent CUDA_CACHE_PATH=/tmp/hcl-nvcache $D/bin/hcl-fault-test
step conf-cuda env HCL_BACKEND=cuda $conf --verbose --jobs 16 --filter "$suite"
step conf-opencl env HCL_BACKEND=opencl $conf --verbose --jobs 16 --filter "$suite"
step san-softmax-nan env HCL_BACKEND=cuda /usr/local/cuda/bin/compute-sanitizer --tool memcheck --error-exitcode 9 \
  $conf --jobs 1 --filter "softmax/nan"
grep -h "hcl-conformance: [0-9]* ran\|Synthesis\|kernels-host\|  avx\|  generic\|ERROR SUMMARY" $out/logs/*.txt >> $out/summary.txt
tar -czf $out/logs.tgz -C $out logs && rm -rf $out/logs
cat $out/summary.txt
