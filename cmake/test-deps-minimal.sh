#!/bin/bash
# ctest `deps-minimal-configure`: CMake configures cleanly on a machine that has only what `HCL_DEPS=minimal make deps`
# installs, and reports the drivers it cannot build with what they need. Nothing is uninstalled: in a private mount
# namespace (unshare, no root needed) every file of the packages that only the full set installs (the Level Zero and
# HIP rows of `make deps-list`) is hidden behind a folder of links to everything else, then a fresh build folder is
# configured there and its log checked:
#   - configuring succeeds; the opencl driver is built;
#   - levelzero and hip are reported as not built, each with what it needs (cuda is left as it is: no Debian
#     package of ours provides it).
# Usage: test-deps-minimal.sh SOURCE_DIR WORK_DIR [--build]   (--build also builds there and runs ctest: minutes)
#   HCL_DEPS_TEST_CMAKE_ARGS: extra -D options for that configure (such as -DHCL_CUDA_FATBIN=OFF)
# Exits 77 (skipped, with the reason) where unshare or dpkg is missing or user namespaces are not allowed, or when
# none of the full set's extra packages is installed (nothing to hide: the configure of the build itself shows it).
set -uo pipefail
unset MAKEFLAGS MFLAGS MAKELEVEL
src=${1:?usage: test-deps-minimal.sh SOURCE_DIR WORK_DIR [--build]}
work=${2:?}
build_too=${3:-}
skip() {
    echo "SKIP: $*"
    exit 77
}
fail() {
    echo "FAIL: $*"
    exit 1
}

if [ "${HCL_IN_NAMESPACE:-}" != 1 ]; then
    command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is not installed"
    command -v dpkg-query >/dev/null 2>&1 || skip "dpkg-query not found (not Debian/Ubuntu)"
    unshare --user --map-root-user --mount true 2>/dev/null || skip "unprivileged user namespaces are not allowed here"
    min=" $(make -s --no-print-directory -C "$src" deps-packages HCL_DEPS=minimal) "
    full=$(make -s --no-print-directory -C "$src" deps-packages HCL_DEPS=full)
    rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
    : >"$work/hidden"
    hidden_pkgs=""
    for p in $full; do
        case "$min" in *" $p "*) continue ;; esac
        dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || continue
        hidden_pkgs="$hidden_pkgs $p"
        dpkg-query -L "$p" | while IFS= read -r f; do
            case "$f" in /usr/share/man/* | /usr/share/doc/* | /usr/share/lintian/*) continue ;; esac
            if [ -L "$f" ] || { [ -e "$f" ] && [ ! -d "$f" ]; }; then echo "$f"; fi
        done >>"$work/hidden"
    done
    [ -n "$hidden_pkgs" ] || skip "none of the packages only HCL_DEPS=full installs is installed here"
    echo "hiding $(wc -l <"$work/hidden") files of:$hidden_pkgs"
    exec env HCL_IN_NAMESPACE=1 unshare --user --map-root-user --mount bash "$0" "$@"
fi

# In the namespace: a folder whose files are all hidden gets an empty folder bound over it (find_path no longer
# finds its headers); any other hidden file gets an empty, non-executable file bound over it (find_program skips
# it; an empty .pc or CMake file defines nothing). Programs keep their own paths, so cmake and gcc find their
# installation as usual.
empty_dir="$work/ns/empty-dir" empty_file="$work/ns/empty-file"
mkdir -p "$empty_dir" && : >"$empty_file" && chmod 644 "$empty_file"
sort -u "$work/hidden" >"$work/hidden.sorted"
sed 's|/[^/]*$||' "$work/hidden.sorted" | sort -u >"$work/dirs"
covered=()
while IFS= read -r d; do
    for c in "${covered[@]}"; do case "$d/" in "$c/"*) continue 2 ;; esac; done
    if [ -z "$(find "$d" ! -type d | sort | comm -23 - "$work/hidden.sorted")" ]; then
        mount --bind "$empty_dir" "$d" || fail "mount --bind over $d"
        covered+=("$d")
    fi
done <"$work/dirs"
n=0
while IFS= read -r f; do
    for c in "${covered[@]}"; do case "$f" in "$c/"*) continue 2 ;; esac; done
    [ -e "$f" ] && [ ! -d "$f" ] || continue # a link to a folder, or to a file that is gone already
    mount --bind "$empty_file" "$f" || fail "mount --bind over $f"
    n=$((n + 1))
done <"$work/hidden.sorted"
echo "hidden: ${#covered[@]} folders emptied, $n files emptied"
for f in /usr/include/level_zero/ze_api.h /usr/include/hip/hip_runtime_api.h; do
    [ -e "$f" ] && fail "$f is still visible in the namespace"
done
for f in /usr/bin/hipcc /usr/bin/llvm-spirv-14 /usr/bin/clang-14 /usr/bin/spirv-val; do
    [ -x "$f" ] && fail "$f is still executable in the namespace"
done

cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHCL_WERROR=ON \
    ${HCL_DEPS_TEST_CMAKE_ARGS:-} >"$work/configure.log" 2>&1
rc=$?
grep -E 'hcl: |CMake (Error|Warning)' "$work/configure.log"
[ $rc -eq 0 ] || {
    cat "$work/configure.log"
    fail "configuring without the full set's packages failed ($rc)"
}
grep -q 'CMake Error' "$work/configure.log" && fail "configure printed a CMake Error"
log="$work/configure.log"
grep -q 'hcl: LEVELZERO driver not built' "$log" || fail "the levelzero driver is not reported as not built"
grep -q 'hcl: HIP driver not built' "$log" || fail "the hip driver is not reported as not built"
grep -q 'hcl: LEVELZERO driver needs .*llvm-spirv-14.*ze_api.h' "$log" ||
    fail "the levelzero report does not say it needs llvm-spirv-14 and ze_api.h"
grep -q 'hcl: HIP driver needs .*hip_runtime_api.h' "$log" || fail "the hip report does not say what it needs"
grep -q 'hcl: OPENCL driver' "$work/configure.log" && fail "the opencl driver is reported as not built"
if [ "$build_too" = --build ]; then
    cmake --build "$work/build" -j 2 >"$work/build.log" 2>&1 || {
        tail -n 40 "$work/build.log"
        fail "building without the full set's packages failed"
    }
    ls "$work/build/lib"
    [ -e "$work/build/lib/libhcl-opencl.so" ] || fail "libhcl-opencl.so was not built"
    [ -e "$work/build/lib/libhcl-levelzero.so" ] && fail "libhcl-levelzero.so was built without its packages"
    [ -e "$work/build/lib/libhcl-hip.so" ] && fail "libhcl-hip.so was built without its packages"
    echo "built: $(ls "$work/build/lib" | tr '\n' ' ')"
    # and the whole ctest suite there (tests of the drivers not built are not registered)
    ctest --test-dir "$work/build" -j 2 --output-on-failure >"$work/ctest.log" 2>&1
    rc=$?
    grep -E 'tests passed|Not Run|Failed|\*\*\*Skipped' "$work/ctest.log"
    [ $rc -eq 0 ] || fail "ctest without the full set's packages failed ($rc; $work/ctest.log)"
fi
echo "PASS: configured without the Level Zero and HIP packages; those drivers reported as not built, with their needs"
