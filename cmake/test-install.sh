#!/bin/bash
# ctest `install`: `cmake --install` into a fresh temporary prefix, then use HCL from there only, as a user would:
#   1. the layout: bin/hcl-info and bin/bench, lib/libhcl.so, every driver module the build made (and
#      libhcl-bench-cub.so when it was built) beside it, the headers, hcl.pc and the CMake package files;
#   2. the installed hcl-info (-l and the full listing: every driver module it loads comes from the prefix, no path
#      of the build folder appears) and the installed bench (--help, --libs, one tiny vecadd on the host device);
#   3. the README's recipe, verbatim: the example program between the README's `example.c` markers, built and run
#      by the shell lines between its `install-recipe` markers, with PREFIX set to the prefix and no
#      PKG_CONFIG_PATH or LD_LIBRARY_PATH of our own;
#   4. a CMake project that does find_package(hcl) and links hcl::hcl, configured against the prefix, built, run.
# Usage: test-install.sh SOURCE_DIR BUILD_DIR WORK_DIR LIBDIR BINDIR SANITIZE(ON|OFF)
# Exits 0 when everything holds, 1 on the first failure (with what was expected and what came), 77 (skipped) only
# when the prefix libdir is not `lib` (the README's recipe names $PREFIX/lib/pkgconfig) after checking the rest.
set -uo pipefail
src=${1:?usage: test-install.sh SOURCE_DIR BUILD_DIR WORK_DIR LIBDIR BINDIR SANITIZE}
build=${2:?}
work=${3:?}
libdir=${4:?}
bindir=${5:?}
sanitize=${6:-OFF}

fail() {
    echo "FAIL: $*"
    exit 1
}
step() { echo "== $*"; }

# Only what the recipe sets may point at HCL: nothing inherited from the caller.
unset LD_LIBRARY_PATH HCL_DRIVER_PATH PKG_CONFIG_PATH HCL_BACKEND HCL_DEVICE HCL_EXTRA_DRIVERS
export HCL_CACHE_DIR="$work/cache"
rm -rf "$work" && mkdir -p "$work" || fail "cannot create $work"
prefix="$work/prefix"

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 || {
    cat "$work/install.log"
    fail "cmake --install failed"
}

step "layout"
need=("$bindir/hcl-info" "$bindir/bench" "$libdir/libhcl.so" "include/hcl/hcl.h" "include/hcl/hcl_driver.h"
    "$libdir/pkgconfig/hcl.pc" "$libdir/cmake/hcl/hclConfig.cmake" "$libdir/cmake/hcl/hclConfigVersion.cmake"
    "$libdir/cmake/hcl/hclTargets.cmake")
for m in "$build"/lib/libhcl-*.so; do # the driver modules (and bench's CUB library) this build made
    [ -e "$m" ] && need+=("$libdir/$(basename "$m")")
done
for f in "${need[@]}"; do
    [ -e "$prefix/$f" ] || fail "$f is not installed (expected at $prefix/$f)"
    echo "   $f"
done
for exe in hcl-info bench; do
    [ -x "$prefix/$bindir/$exe" ] || fail "$bindir/$exe is not executable"
done

cd "$work" || fail "cd $work"
step "installed hcl-info -l"
"$prefix/$bindir/hcl-info" -l >"$work/info-l.txt" 2>&1 || {
    cat "$work/info-l.txt"
    fail "the installed hcl-info -l exited with $?"
}
cat "$work/info-l.txt"
grep -q '^host:0 ' "$work/info-l.txt" || fail "hcl-info -l does not list host:0"

step "installed hcl-info"
"$prefix/$bindir/hcl-info" >"$work/info.txt" 2>&1 || {
    cat "$work/info.txt"
    fail "the installed hcl-info exited with $?"
}
# Every module that loaded came from the prefix; a module that did not load was looked for there.
modules=$(grep -E '^ +module: ' "$work/info.txt" | sed 's/^ *module: *//')
echo "$modules" | sed 's/^/   module: /'
while IFS= read -r m; do
    case "$m" in
    "(built in)" | "") ;;
    "$prefix/$libdir/"*) ;;
    *) fail "hcl-info loaded a driver module from outside the prefix: $m" ;;
    esac
done <<<"$modules"
for m in "$build"/lib/libhcl-*.so; do
    name=$(basename "$m" .so)
    backend=${name#libhcl-}
    [ "$backend" = bench-cub ] && continue
    line=$(grep -E "^  $backend +(available|unavailable)" "$work/info.txt") || fail "hcl-info does not list $backend"
    case "$line" in
    *"driver module $name.so not loaded"*) fail "the installed module $name.so was not loaded: $line" ;;
    esac
done
grep -E -e "$build/(lib|bin)/" "$work/info.txt" &&
    fail "the installed hcl-info names the build folder's lib or bin (lines above)"

step "installed bench --help, --libs, one tiny host run"
"$prefix/$bindir/bench" --help >"$work/bench-help.txt" 2>&1 || fail "bench --help exited with $?"
grep -q '^usage: bench' "$work/bench-help.txt" || fail "bench --help printed no usage"
"$prefix/$bindir/bench" --libs >"$work/bench-libs.txt" 2>&1 || {
    cat "$work/bench-libs.txt"
    fail "bench --libs exited with $?"
}
if [ -e "$build/lib/libhcl-bench-cub.so" ]; then
    grep -F "libhcl-bench-cub" "$work/bench-libs.txt"
    grep -F "libhcl-bench-cub" "$work/bench-libs.txt" | grep -q "$prefix/" ||
        grep -F "libhcl-bench-cub" "$work/bench-libs.txt" | grep -q 'not available: .*libcuda' ||
        fail "bench did not open libhcl-bench-cub.so from the prefix"
fi
"$prefix/$bindir/bench" --device host --kernels vecadd --types f32 --vecadd-n 1000 --repeats 1 --warmup 0 \
    --no-launch --no-user-kernel --no-progress >"$work/bench.txt" 2>&1 || {
    cat "$work/bench.txt"
    fail "the installed bench (host, vecadd n=1000) exited with $?"
}
grep -E '^vecadd ' "$work/bench.txt"
grep -qE '^vecadd +n=1000 .* ok ' "$work/bench.txt" || fail "bench's vecadd row is not there or not ok"

# The sanitizer build's libhcl needs the sanitizer runtime in the program too: the recipe's `cc` gets the flags
# through a wrapper first on PATH (the recipe itself stays verbatim).
if [ "$sanitize" = ON ]; then
    mkdir -p "$work/wrap"
    cc_real=$(command -v cc) || fail "no cc on PATH"
    printf '#!/bin/sh\nexec %s -fsanitize=address,undefined "$@"\n' "$cc_real" >"$work/wrap/cc"
    chmod +x "$work/wrap/cc"
    export PATH="$work/wrap:$PATH"
fi

# The text between <!-- NAME: begin --> and <!-- NAME: end --> in the README, without its ``` fence lines.
readme_block() {
    awk -v b="<!-- $1: begin -->" -v e="<!-- $1: end -->" '
        $0 == e { inside = 0 }
        inside && !/^```/ { print }
        $0 == b { inside = 1; found = 1 }
        END { exit found ? 0 : 1 }' "$src/README.md"
}

step "the README's example program and pkg-config recipe"
mkdir -p "$work/example" && cd "$work/example" || fail "cd $work/example"
readme_block example.c >example.c || fail "README.md has no <!-- example.c: begin --> ... end block"
readme_block install-recipe >recipe.sh || fail "README.md has no <!-- install-recipe: begin --> ... end block"
[ -s example.c ] && [ -s recipe.sh ] || fail "a README block is empty"
sed 's/^/   | /' recipe.sh
skip=""
if [ "$libdir" != lib ]; then
    skip="the prefix's libdir is $libdir, the README's recipe names \$PREFIX/lib"
    echo "SKIP: $skip"
else
    PREFIX="$prefix" bash -e recipe.sh >recipe.out 2>&1
    rc=$?
    cat recipe.out
    [ $rc -eq 0 ] || fail "the README's recipe exited with $rc"
    grep -q 'all 1000 sums right' recipe.out || fail "the example program did not print its result"
    readelf -d example | grep -qE 'R(UN)?PATH' || fail "the example has no RPATH/RUNPATH"
fi

step "find_package(hcl) from a CMake project"
mkdir -p "$work/cmake-app" && cd "$work/cmake-app" || fail "cd $work/cmake-app"
cp "$work/example/example.c" .
cat >CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.20)
project(app LANGUAGES C)
find_package(hcl 0.1 REQUIRED)
add_executable(app example.c)
target_link_libraries(app PRIVATE hcl::hcl)
EOF
san_flags=()
[ "$sanitize" = ON ] && san_flags=(-DCMAKE_C_FLAGS=-fsanitize=address,undefined)
cmake -S . -B build -DCMAKE_PREFIX_PATH="$prefix" "${san_flags[@]}" >configure.log 2>&1 || {
    cat configure.log
    fail "configuring a find_package(hcl) project against the prefix failed"
}
cmake --build build >build.log 2>&1 || {
    cat build.log
    fail "building the find_package(hcl) project failed"
}
./build/app >app.out 2>&1 || {
    cat app.out
    fail "the find_package(hcl) program exited with $?"
}
cat app.out
grep -q 'all 1000 sums right' app.out || fail "the find_package(hcl) program did not print its result"

if [ -n "$skip" ]; then
    echo "SKIP (everything else passed): $skip"
    exit 77
fi
echo "PASS: installed layout, hcl-info and bench from the prefix, the README's recipe and find_package(hcl)"
