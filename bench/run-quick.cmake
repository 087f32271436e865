# ctest tools-bench-quick-<backend>: bench --quick --gemm-set all --json on one backend (every gemm set), then check-json.cmake on the file.
# A backend without a device here prints "SKIPPED:" (the test's SKIP_REGULAR_EXPRESSION).
# Usage: cmake -DBENCH=path/to/bench -DBACKEND=host -DOUT=quick-host.json -P run-quick.cmake
include(${CMAKE_CURRENT_LIST_DIR}/run-bench.cmake)
file(REMOVE "${OUT}")
bench_run(UNAVAILABLE "${BENCH_NO_DEVICE}" SKIP "backend ${BACKEND} has no device here"
          ARGS --quick --no-progress --gemm-set all --device ${BACKEND} --json "${OUT}")
set(JSON "${OUT}")
include(${CMAKE_CURRENT_LIST_DIR}/check-json.cmake)
