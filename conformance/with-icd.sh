#!/bin/sh
# Runs a command with the OpenCL ICD loader pointed at one vendor library alone (ctests conformance-opencl-intel,
# levelzero-spirv-il):
#   with-icd.sh LIBRARY "WHAT" COMMAND [ARG...]
# OCL_ICD_VENDORS=LIBRARY (ocl-icd 2.3 takes a library path there, as well as a .icd file or a folder), so that the
# vendor's platform is the only one and the suite's opencl:0 is its device. Where LIBRARY is missing the command does
# not run: "with-icd: skipped: <why>" is printed (the Makefile's conformance summary shows it) and the exit status is
# 77, which ctest reports as skipped, never as passed.
lib=${1:?usage: with-icd.sh LIBRARY WHAT COMMAND [ARG...]}
what=${2:?usage: with-icd.sh LIBRARY WHAT COMMAND [ARG...]}
shift 2
if [ ! -e "$lib" ]; then
    echo "with-icd: skipped: $what is not installed ($lib is missing; make deps installs it)"
    exit 77
fi
OCL_ICD_VENDORS=$lib
export OCL_ICD_VENDORS
echo "OCL_ICD_VENDORS=$lib ($what)"
exec "$@"
