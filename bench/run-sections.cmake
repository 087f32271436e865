# ctest tools-bench-sections-<backend>: bench --peak --transfer --quick --json on one backend (only the two sections),
# then check-json.cmake with REQUIRE_SECTIONS: the copy, the fp32 FMA chain (and fp16 where the device computes it,
# else skipped with the reason) and every H2D/D2H row from pageable and page-locked memory ran and were verified.
# A backend without a device here prints "SKIPPED:" (the test's SKIP_REGULAR_EXPRESSION).
# Usage: cmake -DBENCH=path/to/bench -DBACKEND=host -DOUT=sections-host.json -P run-sections.cmake
include(${CMAKE_CURRENT_LIST_DIR}/run-bench.cmake)
file(REMOVE "${OUT}")
bench_run(UNAVAILABLE "${BENCH_NO_DEVICE}" SKIP "backend ${BACKEND} has no device here"
          ARGS --peak --transfer --quick --no-progress --device ${BACKEND} --json "${OUT}")
if(NOT _out MATCHES "\npeak \\(" OR NOT _out MATCHES "\ntransfer \\(" OR _out MATCHES "\nkernel +shape")
  message(FATAL_ERROR "the output lacks the peak or transfer section, or has a kernel table it should not")
endif()
if(NOT _out MATCHES "\n  fp32  [^\n]* ok ")
  message(FATAL_ERROR "the fp32 FMA chain did not run and verify")
endif()
set(JSON "${OUT}")
set(SECTIONS_ONLY 1)
set(REQUIRE_SECTIONS 1)
include(${CMAKE_CURRENT_LIST_DIR}/check-json.cmake)
