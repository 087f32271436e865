#!/bin/sh
# The thread stress test under ThreadSanitizer (robust/README.md):
#   tsan-run.sh <source dir> <build dir> <backend>...
# Configures <build dir> once with -DHCL_TSAN=ON (gcc -fsanitize=thread), builds only libhcl, the OpenCL driver and
# hcl-thread-stress, and runs it. Reports from vendor libraries are suppressed by robust/tsan.supp, which names only
# vendor libraries; any report in HCL code fails the test (TSan's exitcode), as does any failed check.
set -u
src=$1 dir=$2
shift 2
jobs=${TSAN_JOBS:-2}
if [ ! -f "$dir/CMakeCache.txt" ]; then
    # Without OpenMP: libgomp is not built with -fsanitize=thread, so TSan cannot see its barriers and reports every
    # parallel region's body against the code after it; the host driver then runs its kernels serially.
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 -DHCL_WERROR=ON -DHCL_TSAN=ON \
        -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON \
        -DHCL_BUILD_TESTS=OFF -DHCL_BUILD_TOOLS=OFF -DHCL_WITH_CUDA=OFF -DHCL_WITH_HIP=OFF -DHCL_WITH_LEVELZERO=OFF \
        -DHCL_CUDA_FATBIN=OFF -DHCL_HIP_BUNDLE=OFF \
        >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; echo "tsan: configure failed"; exit 1; }
fi
start=$(date +%s)
cmake --build "$dir" -j "$jobs" --target hcl-thread-stress hcl-opencl >"$dir.build.log" 2>&1 ||
    { tail -50 "$dir.build.log"; echo "tsan: build failed"; exit 1; }
echo "tsan: build ready in $(($(date +%s) - start)) s ($dir)"
export TSAN_OPTIONS="suppressions=$src/robust/tsan.supp:exitcode=66:halt_on_error=0:second_deadlock_stack=1:report_signal_unsafe=0"
export HCL_STRESS_THREADS=${HCL_STRESS_THREADS:-16} HCL_STRESS_ITERS=${HCL_STRESS_ITERS:-20} HCL_STRESS_ROUNDS=${HCL_STRESS_ROUNDS:-4}
start=$(date +%s)
"$dir/bin/hcl-thread-stress" "$@" >"$dir.run.log" 2>&1
rc=$?
grep -c '^WARNING: ThreadSanitizer' "$dir.run.log" >/dev/null && reports=$(grep -c '^WARNING: ThreadSanitizer' "$dir.run.log") || reports=0
if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
    head -150 "$dir.run.log"
    echo "tsan: FAILED (exit $rc, $reports ThreadSanitizer reports; full log $dir.run.log)"
    exit 1
fi
grep '^thread-stress:' "$dir.run.log"
echo "tsan: $reports ThreadSanitizer reports in HCL code, in $(($(date +%s) - start)) s"
exit $rc
