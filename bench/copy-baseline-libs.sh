#!/bin/bash
# Copy the vendor libraries of bench's baselines into BUILD/device-libs, for a build folder that runs on another
# machine (the GPU test machine has no package registry). bench opens them with dlopen, so ldd cannot see them and
# copying the build folder with the libraries its programs link (what ldd lists) leaves them out: run this after.
#   CLBlast (libclblast.so.1), OpenBLAS (libopenblas.so.0), the ocl-icd loader (libOpenCL.so.1), and whatever
#   they need that is not part of the C/C++ runtime (libgfortran, libquadmath, ...).
# cuBLAS is not copied (hundreds of MB): bench finds it in the machine's CUDA toolkit (/usr/local/cuda/lib64) or
# through HCL_CUBLAS_LIBRARY. libhcl-bench-cub.so is in BUILD/lib already.
# Usage: bench/copy-baseline-libs.sh BUILD_DIR [--no-openblas]
#   --no-openblas  leave OpenBLAS out (36 MB with its Fortran runtime): the host GEMM baseline is then reported missing
set -euo pipefail
build=${1:?usage: copy-baseline-libs.sh BUILD_DIR [--no-openblas]}
wanted="libOpenCL.so.1 libclblast.so.1 libopenblas.so.0"
[ "${2:-}" = "--no-openblas" ] && wanted="libOpenCL.so.1 libclblast.so.1"
libs="$build/device-libs"
mkdir -p "$libs"
skip='^(linux-vdso|ld-linux|libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|libresolv\.so|libutil\.so|libnsl\.so|libcuda\.so|libnvidia-|libgcc_s\.so|libstdc\+\+\.so)'
resolve() { # soname -> path, through the loader's cache
  ldconfig -p | awk -v n="$1" '$1 == n && $NF ~ /^\// {print $NF; exit}'
}
copied=0
for name in $wanted; do
  path=$(resolve "$name")
  if [ -z "$path" ]; then
    echo "copy-baseline-libs: $name not found on this machine: that baseline will be reported missing" >&2
    continue
  fi
  for dep in "$name $path" $(ldd "$path" | awk '$2 == "=>" && $3 ~ /^\// {print $1 "@" $3}'); do
    n=${dep%%[ @]*}; p=${dep##*[ @]}
    [[ $n =~ $skip ]] && continue
    if [ ! -e "$libs/$n" ]; then
      cp -L "$p" "$libs/$n"
      copied=$((copied + 1))
      echo "copy-baseline-libs: $n <- $p"
    fi
  done
done
echo "copy-baseline-libs: $copied copied; $(du -sh "$libs" | cut -f1) in $libs"
