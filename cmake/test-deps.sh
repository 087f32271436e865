#!/bin/bash
# ctest `deps`: the Makefile's package sets, without installing or removing anything.
#   1. `make deps-list` has one row per backend of the build's list (HCL_BACKENDS) plus `common` and `intel` (Intel's
#      OpenCL CPU runtime from PyPI);
#   2. `make deps-packages` with HCL_DEPS=minimal is exactly the common, host and opencl rows, and holds none of the
#      packages that only Level Zero, HIP or Intel's runtime need; with HCL_DEPS=full (and unset) it is every row;
#   3. `make -n deps` (the recipe, not run) checks exactly that list, for both settings;
#   4. an unknown HCL_DEPS stops make with a message that names the valid values.
# Usage: test-deps.sh SOURCE_DIR BACKEND...   (the backends of HCL_BACKENDS, from CMake)
set -uo pipefail
unset MAKEFLAGS MFLAGS MAKELEVEL # a calling make (make test) must not pass its own variables (HCL_DEPS) down
src=${1:?usage: test-deps.sh SOURCE_DIR BACKEND...}
shift
backends=("$@")
command -v make >/dev/null 2>&1 || {
    echo "SKIP: make is not installed"
    exit 77
}
fail() {
    echo "FAIL: $*"
    exit 1
}
mk() { make -s --no-print-directory -C "$src" "$@"; }
sorted() { tr ' ' '\n' | sed '/^$/d' | sort -u | tr '\n' ' ' | sed 's/ $//'; }

list=$(mk deps-list HCL_DEPS=full) || fail "make deps-list exited with $?"
echo "$list"
# The rows: "<set>[*] <packages>" (a set's explanation lines are indented).
rows=$(echo "$list" | awk '/^[a-z][a-z0-9_]*\*? / { sub(/\*$/, "", $1); print }')
row() { echo "$rows" | awk -v s="$1" '$1 == s { $1 = ""; print }' | sed 's/(none)//'; }
sets=(common "${backends[@]}" intel)
for set in "${sets[@]}"; do
    echo "$rows" | awk '{print $1}' | grep -qx "$set" || fail "make deps-list has no row for $set"
done

# The README's table of the same sets (section "Dependencies") lists the same packages.
readme_rows=$(awk '/^## Dependencies/ { on = 1; next } /^## / { on = 0 } on && /^\| *`?[a-z]/' "$src/README.md")
[ -n "$readme_rows" ] || fail "README.md has no table of packages under \"## Dependencies\""
for set in "${sets[@]}"; do
    readme=$(echo "$readme_rows" | awk -F'|' -v s="$set" '{ n = $2; gsub(/[ `]/, "", n) } n == s { print $3 }' |
        sed 's/\bnone\b//' | sorted)
    make_row=$(row "$set" | sorted)
    [ "$readme" = "$make_row" ] || fail "README.md lists [$readme] for $set, make deps-list [$make_row]"
done
echo "README.md's table of packages matches make deps-list"

union() {
    local out=""
    for set in "$@"; do out="$out $(row "$set")"; done
    echo "$out" | sorted
}
want_min=$(union common host opencl)
want_full=$(union "${sets[@]}")
got_min=$(mk deps-packages HCL_DEPS=minimal | sorted)
got_full=$(mk deps-packages HCL_DEPS=full | sorted)
got_default=$(env -u HCL_DEPS make -s --no-print-directory -C "$src" deps-packages | sorted)
echo "minimal: $got_min"
echo "full:    $got_full"
[ "$got_min" = "$want_min" ] || fail "HCL_DEPS=minimal installs [$got_min], not the common+host+opencl rows [$want_min]"
[ "$got_full" = "$want_full" ] || fail "HCL_DEPS=full installs [$got_full], not every row [$want_full]"
[ "$got_default" = "$got_full" ] || fail "without HCL_DEPS make deps installs [$got_default], not the full set"
for p in $(union levelzero hip intel); do
    case " $want_min " in *" $p "*) continue ;; esac # also needed by common/host/opencl
    case " $got_min " in *" $p "*) fail "HCL_DEPS=minimal installs $p (only Level Zero, HIP or Intel's runtime need it)" ;; esac
done
for p in ocl-icd-opencl-dev opencl-headers pocl-opencl-icd cmake gcc; do
    case " $got_min " in *" $p "*) ;; *) fail "HCL_DEPS=minimal does not install $p" ;; esac
done
for p in hipcc libze-dev clang-14; do
    case " $got_min " in *" $p "*) fail "HCL_DEPS=minimal installs $p" ;; esac
    case " $got_full " in *" $p "*) ;; *) fail "HCL_DEPS=full does not install $p" ;; esac
done

for mode in minimal full; do
    recipe=$(mk -n deps HCL_DEPS=$mode) || fail "make -n deps HCL_DEPS=$mode exited with $?"
    checked=$(echo "$recipe" | sed -n 's/.*for p in \([^;]*\); do.*/\1/p' | head -n 1 | sorted)
    want=$want_full
    [ $mode = minimal ] && want=$want_min
    [ "$checked" = "$want" ] || fail "make -n deps HCL_DEPS=$mode checks [$checked], not [$want]"
    echo "make -n deps HCL_DEPS=$mode checks $(echo "$checked" | wc -w) packages"
done

out=$(mk deps-packages HCL_DEPS=bogus 2>&1) && fail "HCL_DEPS=bogus was accepted: $out"
echo "$out"
echo "$out" | grep -q 'HCL_DEPS=bogus' && echo "$out" | grep -q 'full' && echo "$out" | grep -q 'minimal' ||
    fail "the error for HCL_DEPS=bogus does not name the value and the valid ones"
echo "PASS: the package sets by backend, HCL_DEPS=minimal and full, make -n deps, an unknown HCL_DEPS"
