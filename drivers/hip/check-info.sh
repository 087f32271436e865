#!/bin/sh
# ctest hip-info: hcl-info must list the hip backend as available, or as unavailable with the runtime's own reason
# (hipGetDeviceCount: hipErrorNoDevice, on a machine without an AMD GPU) and the runtime's version, or with the
# dlopen failure naming libamdhip64 (no HIP runtime installed). Prints the hip entry either way.
# ctest hip-cuda-info (mode `cuda`, HCL_HIP_LIBRARY set to the HIP-over-CUDA test library, drivers/hip/cuda): available,
# or unavailable with the CUDA runtime's reason (hipGetDeviceCount: cudaError..., on a machine without the NVIDIA
# driver or GPU), the CUDA runtime's version and the library's name: it loaded and gave every entry point.
# Usage: check-info.sh path/to/hcl-info [cuda]
set -u
info=${1:?usage: check-info.sh path/to/hcl-info [cuda]}
mode=${2:-amd}
out=$("$info" 2>&1) || { echo "FAIL hcl-info exited with status $?"; echo "$out"; exit 1; }
# the hip entry: its first line and the indented lines after it, up to the next backend
entry=$(printf '%s\n' "$out" | awk '/^  hip  /{on=1; print; next} on && /^  [a-z]/{exit} on && /^ {4,}/{print; next} on{exit}')
if [ -z "$entry" ]; then
  echo "FAIL hcl-info lists no hip backend"
  printf '%s\n' "$out"
  exit 1
fi
printf '%s\n' "$entry"
if printf '%s\n' "$entry" | grep -q '^  hip  *available'; then
  echo "ok   hip is available"
  exit 0
fi
if [ "$mode" = cuda ]; then
  if printf '%s' "$entry" | grep -q 'hipGetDeviceCount: cudaError' &&
     printf '%s' "$entry" | grep -q 'HIP on NVIDIA, CUDA runtime [0-9]' &&
     printf '%s' "$entry" | grep -q 'libhcl-test-hipcuda'; then
    echo "ok   hip over CUDA unavailable with the CUDA runtime's reason and version, from the test library"
    exit 0
  fi
  echo "FAIL the hip entry gives no CUDA runtime reason (hipGetDeviceCount: cudaError...) with its version and library"
  exit 1
fi
if printf '%s' "$entry" | grep -q 'hipErrorNoDevice' && printf '%s' "$entry" | grep -q 'HIP runtime [0-9]'; then
  echo "ok   hip unavailable with the runtime's reason (hipErrorNoDevice) and its version"
  exit 0
fi
if printf '%s' "$entry" | grep -q 'libamdhip64'; then
  echo "ok   hip unavailable: libamdhip64 could not be opened (the reason names it)"
  exit 0
fi
echo "FAIL the hip entry gives neither hipErrorNoDevice with the runtime version nor a libamdhip64 dlopen failure"
exit 1
