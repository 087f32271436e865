#!/bin/sh
# ctest `format`: every tracked C, CUDA and OpenCL source is formatted as .clang-format says (house style).
# Usage: check-format.sh <source dir>. Exits 77 (skipped) when clang-format or git is missing; `make deps` installs
# clang-format, so CI always checks. To fix: `make format`.
src=${1:-.}
command -v clang-format >/dev/null 2>&1 || { echo "SKIP: clang-format is not installed (make deps installs it)"; exit 77; }
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || { echo "SKIP: $src is not a git checkout (the files checked are the tracked ones)"; exit 77; }
cd "$src" || exit 1
files=$(git ls-files '*.c' '*.h' '*.cu' '*.cl')
[ -n "$files" ] || { echo "no sources found"; exit 1; }
if echo "$files" | xargs clang-format --dry-run --Werror 2>&1 | head -n 60 | grep .; then
    echo "FAIL: the files above are not formatted as .clang-format says: run 'make format'"
    exit 1
fi
echo "PASS: $(echo "$files" | wc -l) files formatted as .clang-format says ($(clang-format --version))"
