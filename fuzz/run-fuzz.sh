#!/bin/sh
# Build the libFuzzer harnesses in a dir of their own and run each for a bounded time (fuzz/README.md):
#   run-fuzz.sh <source dir> <build dir> [harness...]
# FUZZ_SECONDS (default 6) per harness, FUZZ_CC (default clang-14). Each harness starts from its committed seed
# corpus (corpus/<harness>/; new inputs go to a scratch copy, never into the source tree). Exit 0: no harness found a
# crash, leak, timeout or sanitizer report; 1: one did (its reproducer is in the build dir); 77: clang or libFuzzer
# is missing (the reason is printed).
set -u
src=$1 dir=$2
shift 2
harnesses=${*:-select launch module cache params}
seconds=${FUZZ_SECONDS:-6}
cc=${FUZZ_CC:-clang-14}
jobs=${FUZZ_JOBS:-2}

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "fuzz: skipped: $cc not found (install clang-14)"
    exit 77
fi
probe=$(mktemp -d)
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$probe/p.c"
if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" >"$probe/log" 2>&1; then
    echo "fuzz: skipped: $cc cannot link libFuzzer (-fsanitize=fuzzer): $(head -3 "$probe/log")"
    rm -rf "$probe"
    exit 77
fi
rm -rf "$probe"

if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Debug \
        -DCMAKE_C_FLAGS="-O1 -fsanitize=fuzzer-no-link" -DHCL_WERROR=OFF -DHCL_SANITIZE=ON -DHCL_FUZZ=ON \
        -DHCL_BUILD_TESTS=OFF -DHCL_BUILD_TOOLS=OFF -DHCL_WITH_CUDA=OFF -DHCL_WITH_HIP=OFF -DHCL_WITH_LEVELZERO=OFF \
        -DHCL_WITH_OPENCL=OFF -DHCL_CUDA_FATBIN=OFF -DHCL_HIP_BUNDLE=OFF \
        >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; echo "fuzz: configure failed"; exit 1; }
fi
start=$(date +%s)
targets=""
for h in $harnesses; do targets="$targets fuzz_$h"; done
# shellcheck disable=SC2086
cmake --build "$dir" -j "$jobs" --target $targets >"$dir.build.log" 2>&1 ||
    { tail -50 "$dir.build.log"; echo "fuzz: build failed"; exit 1; }
echo "fuzz: harnesses built in $(($(date +%s) - start)) s ($dir)"

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0
for h in $harnesses; do
    work=$dir/run-$h
    rm -rf "$work"
    mkdir -p "$work/corpus"
    cp "$src/fuzz/corpus/$h"/* "$work/corpus/" 2>/dev/null
    (cd "$work" && "$dir/bin/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
        -artifact_prefix="$work/" corpus >"$work/log" 2>&1)
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    cov=$(grep -o 'cov: [0-9]*' "$work/log" | tail -1)
    if [ $rc -ne 0 ]; then
        tail -60 "$work/log"
        echo "fuzz: $h: FAILED (exit $rc) after ${runs:-?} inputs; reproducer: $(ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* 2>/dev/null | head -1)"
        failed=$((failed + 1))
    else
        echo "fuzz: $h: ${runs:-?} inputs in ${seconds} s, $cov, no crash"
    fi
done
[ $failed -eq 0 ]
