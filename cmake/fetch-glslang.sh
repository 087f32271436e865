#!/bin/bash
# fetch-glslang.sh <dir> <slangpy version>: put a glslang newer than Debian 12's into <dir>/libslang-glslang.so, for
# the Vulkan kernels that need GL_KHR_cooperative_matrix and GL_EXT_bfloat16 (drivers/vulkan/glslang_compile.c compiles them
# through it at build time). It is the glslang library inside PyPI's slangpy wheel (Slang's libslang-glslang, a C
# interface over glslang and SPIRV-Tools): pip downloads the wheel into a temporary virtual environment's cache and
# only that one library is kept, with a stamp naming the version. Needs python3 with venv; nothing outside <dir>.
set -euo pipefail
dir=$1 version=$2
stamp="$dir/hcl-installed-slangpy-$version"
if [ -f "$stamp" ] && [ -e "$dir/libslang-glslang.so" ]; then
  echo "make deps: glslang from slangpy $version is installed ($dir)"; exit 0
fi
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
  echo "make deps: glslang from PyPI needs python3 with venv (Debian/Ubuntu: python3-venv)"; exit 1
fi
echo "make deps: fetching glslang (inside slangpy $version's wheel, about 90 MB) from PyPI into $dir"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 -m venv "$tmp/venv"
if ! "$tmp/venv/bin/python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$tmp/wheel" "slangpy==$version"; then
  echo "make deps: pip could not download slangpy $version (the Vulkan cooperative-matrix kernels are then not built)"
  exit 1
fi
rm -rf "$dir"; mkdir -p "$dir"
"$tmp/venv/bin/python" - "$tmp/wheel" "$dir" <<'PY'
import glob, os, re, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if re.fullmatch(r"slangpy/libslang-glslang[-.0-9]*\.so[.0-9]*", n)]
    if len(names) != 1:
        sys.exit("make deps: %s holds %d glslang libraries, not one" % (os.path.basename(wheel), len(names)))
    with z.open(names[0]) as src, open(os.path.join(sys.argv[2], "libslang-glslang.so"), "wb") as dst:
        dst.write(src.read())
    print("make deps: %s from %s" % (names[0], os.path.basename(wheel)))
PY
touch "$stamp"
echo "make deps: glslang from slangpy $version installed ($dir/libslang-glslang.so)"
