#!/bin/sh
# The fault-injection walk (robust/README.md):
#   fault-walk.sh <source dir> <build dir> <backend>...
# Configures <build dir> once with -DHCL_FAULT_INJECTION=ON and ASan+UBSan (LSan on), builds only libhcl, the OpenCL
# driver (and the Vulkan one when vulkan is walked) and hcl-fault-flow, counts the injectable sites the flow hits on
# each backend, then runs the flow once per site with that site failing (HCL_FAULT_AT), two at a time. A site fails
# the walk when the flow crashes, reports a failure without a message, computes a wrong result, leaks (LSan) or does
# not work again afterwards. Sites that known-vendor-limits.md lists as crashing inside a vendor library would be
# skipped here with the reason (none is, at present). Exit 0: every site passed on every backend that has a device;
# 77: no backend had one.
set -u
# one_site <backend> <N>: run the flow with the N-th site failing; prints "<N> ok|FAIL <details>"
one_site() {
    b=$1 n=$2 out=$FAULT_WORK/$1-$2
    HCL_CACHE_DIR=$out.cache HCL_FAULT_AT=$n "$FAULT_FLOW" "$b" >"$out.log" 2>&1
    rc=$?
    site=$(sed -n 's/^hcl-fault: failing hit [0-9]*: //p' "$out.log" | head -1)
    runa=$(grep -m1 '^run [AB]: HCL_ERROR' "$out.log" | cut -c1-220)
    if [ $rc -eq 0 ]; then
        echo "$n ok [$site] ${runa:-absorbed (every run succeeded)}"
        rm -rf "$out.cache" "$out.log"
    else
        echo "$n FAIL rc=$rc [$site] see $out.log"
    fi
}
if [ "$1" = "--one" ]; then
    one_site "$2" "$3"
    exit 0
fi

src=$1 dir=$2
shift 2
jobs=${FAULT_JOBS:-2}

if [ ! -f "$dir/CMakeCache.txt" ]; then
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 -DHCL_WERROR=ON \
        -DHCL_FAULT_INJECTION=ON -DHCL_SANITIZE=ON -DHCL_BUILD_TESTS=OFF -DHCL_BUILD_TOOLS=OFF \
        -DHCL_WITH_CUDA=OFF -DHCL_WITH_HIP=OFF -DHCL_WITH_LEVELZERO=OFF -DHCL_CUDA_FATBIN=OFF -DHCL_HIP_BUNDLE=OFF \
        >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log"; echo "fault-walk: configure failed"; exit 1; }
fi
start=$(date +%s)
targets="hcl-fault-flow hcl-opencl"
for b in "$@"; do [ "$b" = vulkan ] && targets="$targets hcl-vulkan"; done
# shellcheck disable=SC2086 # the targets are words
cmake --build "$dir" -j "$jobs" --target $targets >"$dir.build.log" 2>&1 ||
    { tail -50 "$dir.build.log"; echo "fault-walk: build failed"; exit 1; }
echo "fault-walk: build ready in $(($(date +%s) - start)) s ($dir)"

flow=$dir/bin/hcl-fault-flow
supp=$src/conformance/lsan.supp
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23
export LSAN_OPTIONS=suppressions=$supp:print_suppressions=0:exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=24
work=$dir/walk
rm -rf "$work"
mkdir -p "$work"
export POCL_CACHE_DIR=$work/pocl-cache # shared by the runs: PoCL builds a source once

total_fail=0 walked=0
for b in "$@"; do
    HCL_CACHE_DIR=$work/$b-count.cache HCL_FAULT_COUNT=1 "$flow" "$b" count >"$work/$b-count.log" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
        echo "fault-walk: $b: skipped, no device: $(grep -m1 '^run A' "$work/$b-count.log")"
        continue
    fi
    if [ $rc -ne 0 ]; then
        cat "$work/$b-count.log"
        echo "fault-walk: $b: the flow fails without any injected fault"
        total_fail=$((total_fail + 1))
        continue
    fi
    sites=$(sed -n 's/^hcl-fault: \([0-9]*\) injectable sites hit$/\1/p' "$work/$b-count.log")
    echo "fault-walk: $b: $sites injectable sites hit by the flow; failing each in turn"
    t0=$(date +%s)
    seq 1 "$sites" | FAULT_WORK=$work FAULT_FLOW=$flow xargs -P "$jobs" -I{} sh "$0" --one "$b" {} >"$work/$b-walk.txt"
    sort -n "$work/$b-walk.txt" -o "$work/$b-walk.txt"
    fails=$(grep -c ' FAIL ' "$work/$b-walk.txt")
    absorbed=$(grep -c 'absorbed' "$work/$b-walk.txt")
    sed 's/^/  /' "$work/$b-walk.txt"
    for f in $(grep ' FAIL ' "$work/$b-walk.txt" | sed 's/.*see //'); do
        echo "---- $f"
        tail -40 "$f"
    done
    echo "fault-walk: $b: $sites sites injected in $(($(date +%s) - t0)) s: $((sites - fails)) passed" \
        "($absorbed absorbed with correct results), $fails failed"
    total_fail=$((total_fail + fails))
    walked=$((walked + 1))
done
[ $total_fail -eq 0 ] || exit 1
[ $walked -gt 0 ] || exit 77
exit 0
