#!/bin/bash
# ctest python-pytest: the Python package's tests (pytest) against the extension of this build (build/python/hcl),
# in a virtual environment under the build folder with numpy and pytest from PyPI (made once, then reused).
# Usage: run_ctest.sh BUILD_DIR SOURCE_PYTHON_DIR PYTHON3 SANITIZE [pytest args...]
# Exits 77 (skipped) with the reason: in a sanitizer build (an ASan-built extension cannot load into a python that
# does not preload libasan), without python3's venv, or when pip cannot install the packages (no network).
set -uo pipefail
build=$1 src=$2 py=$3 sanitize=$4
shift 4
case "$sanitize" in ON | on | 1 | TRUE | true)
    echo "SKIP: sanitizer build: the ASan-built extension would need libasan preloaded into python (the plain build runs these tests)"
    exit 77 ;;
esac
venv=$build/python-venv
# numpy and pytest (and scikit-build-core for python-wheel): the versions the tests were written against (pinned so that a CI run is repeatable)
reqs="numpy==2.2.6 pytest==8.4.2 scikit-build-core==1.1.2"
stamp=$venv/hcl-venv-$(echo "$reqs" | tr ' =' '_-')
if [ ! -f "$stamp" ]; then
    rm -rf "$venv"
    if ! "$py" -m venv "$venv" >"$build/python-venv.log" 2>&1; then
        echo "SKIP: $py -m venv failed (Debian: python3-venv): $(tail -n 3 "$build/python-venv.log")"
        exit 77
    fi
    if ! "$venv/bin/python" -m pip install --quiet --disable-pip-version-check $reqs >>"$build/python-venv.log" 2>&1; then
        echo "SKIP: pip could not install $reqs from PyPI: $(tail -n 3 "$build/python-venv.log")"
        rm -rf "$venv"
        exit 77
    fi
    touch "$stamp"
fi
[ -n "${HCL_PY_ENV_ONLY:-}" ] && exit 0 # run_wheel_ctest.sh: the environment only
export PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
cd "$src/tests" || exit 1
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" .
