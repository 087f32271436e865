#!/bin/bash
# Here (the Debian machine), from the repository root: strip-build.sh [BUILD [DEV]]: what the H200 run needs from
# BUILD, without objects or debug information, copied into DEV with the shared libraries it needs from this machine
# (the device tool's packing script, its path given as PACK; the whole build folder is over the 64 MiB that travels).
# Carry DEV and run run.sh there.
set -eu
B=${1:-build} D=${2:-build-dev}
rm -rf $D && mkdir -p $D/bin $D/lib $D/conformance $D/drivers/hip/cuda
cp $B/bin/hcl-conformance $B/bin/hcl-info $B/bin/bench $B/bin/hcl-fault-test $B/bin/hcl-kernels-test-host-gemm \
   $B/bin/hcl-kernels-test-host-simd $D/bin/
cp -P $B/lib/*.so* $D/lib/ && rm -f $D/lib/libfake-opencl-xmx.so
cp -r $B/conformance/testdrivers $D/conformance/
cp $B/drivers/hip/cuda/libhcl-test-hipcuda.so $D/drivers/hip/cuda/
find $D -type f \( -name '*.so*' -o -perm -u+x \) -exec objcopy --strip-debug {} \;
"${PACK:?PACK: the packing script of the device tool}" $D
cp -L /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 $D/device-libs/ # Debian's ICD loader: NVIDIA's driver alone
du -sh $D
