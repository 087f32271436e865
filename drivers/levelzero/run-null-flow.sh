#!/usr/bin/env bash
# ctest levelzero-null-flow: build (or reuse) the Level Zero loader's null driver, then run the driver's whole call
# flow on it with the loader's parameter validation on.
# Usage: run-null-flow.sh BUILD_NULL_DRIVER_SCRIPT TEST_PROGRAM DRIVER_MODULE
# Exits 77 (skipped, with the reason) when the null driver cannot be fetched or built here.
set -u
build_script=$1
program=$2
module=$3

out=$(bash "$build_script")
rc=$?
if [ "$rc" -eq 77 ]; then
    echo "SKIP: the Level Zero null driver is not available here (reason above); the API flow was not run"
    exit 77
fi
libdir=$(printf '%s\n' "$out" | tail -n 1)
if [ "$rc" -ne 0 ] || [ ! -e "$libdir/libze_null.so.1" ]; then
    echo "FAIL: $build_script exited $rc without a null driver (printed '$libdir')"
    exit 1
fi
echo "null driver: $libdir/libze_null.so.1"
echo "NOTE: the null driver answers every call with success and computes nothing: this test checks the call flow"
echo "      and every status, never a result."

export ZE_ENABLE_NULL_DRIVER=1
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The loader's validation layer checks the parameters of every call on its way to the null driver.
export ZE_ENABLE_VALIDATION_LAYER=1
export ZE_ENABLE_PARAMETER_VALIDATION=1
exec "$program" "$module"
