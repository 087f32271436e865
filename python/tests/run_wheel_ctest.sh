#!/bin/bash
# ctest python-wheel: `pip install .` through scikit-build-core (pyproject.toml, the project's CMake), then the pytest
# suite against the installed package, not the build tree's. To stay within CI's time, this build leaves out the
# GPU drivers (HCL_WITH_CUDA/HIP/LEVELZERO=OFF: their compile is the main build's, and the CUDA fatbin embedded in
# libhcl alone takes a minute to compile); libhcl, the host and OpenCL drivers and the extension are built and
# installed as a user's `pip install .` builds them. pip runs without build isolation (scikit-build-core comes from
# the test environment, pinned) and installs with --target into a folder under the build tree.
# Usage: run_wheel_ctest.sh BUILD_DIR SOURCE_DIR PYTHON3 SANITIZE
set -uo pipefail
build=$1 src=$2 py=$3 sanitize=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case "$sanitize" in ON | on | 1 | TRUE | true)
    echo "SKIP: sanitizer build: the wheel is built without sanitizers by pip; the plain build runs this test"
    exit 77 ;;
esac
# the test environment (numpy, pytest, scikit-build-core), made by run_ctest.sh's rules
HCL_PY_ENV_ONLY=1 bash "$here/run_ctest.sh" "$build" "$src/python" "$py" "$sanitize" || exit $?
venv=$build/python-venv
site=$build/python-wheel-site
rm -rf "$site"
echo "== pip install . (scikit-build-core; build folder $build/python-wheel-build)"
start=$(date +%s)
if ! "$venv/bin/python" -m pip install --disable-pip-version-check --no-build-isolation --no-deps --target "$site" \
    --config-settings=build-dir="$build/python-wheel-build" --config-settings=cmake.define.HCL_WITH_CUDA=OFF \
    --config-settings=cmake.define.HCL_WITH_HIP=OFF --config-settings=cmake.define.HCL_WITH_LEVELZERO=OFF "$src" \
    >"$build/python-wheel.log" 2>&1; then
    tail -n 40 "$build/python-wheel.log"
    echo "FAIL: pip install . failed (whole log: $build/python-wheel.log)"
    exit 1
fi
echo "   built and installed in $(($(date +%s) - start)) s: $(cd "$site" && ls -d hcl hcl/lib/* hcl/_hcl* | tr '\n' ' ')"
test -f "$site/hcl/_hcl.abi3.so" || { echo "FAIL: the installed package has no hcl/_hcl.abi3.so"; exit 1; }
cd "$build" || exit 1
export PYTHONPATH=$site PYTHONDONTWRITEBYTECODE=1
"$venv/bin/python" -c 'import hcl, sys; sys.exit(0 if hcl.__file__.startswith(sys.argv[1]) else 1)' "$site" ||
    { echo "FAIL: hcl was not imported from the installed folder $site"; exit 1; }
"$venv/bin/python" -m hcl || exit 1
cd "$src/python/tests" || exit 1
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider .
