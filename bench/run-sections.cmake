# ctest tools-bench-sections-<backend>: bench --peak --transfer --quick --json on one backend (only the two sections),
# then check-json.cmake with REQUIRE_SECTIONS: the copy, the fp32 FMA chain (and fp16 where the device computes it,
# else skipped with the reason) and every H2D/D2H row from pageable and page-locked memory ran and were verified.
# A backend without a device here prints "SKIPPED:" (the test's SKIP_REGULAR_EXPRESSION).
# Usage: cmake -DBENCH=path/to/bench -DBACKEND=host -DOUT=sections-host.json -P run-sections.cmake
file(REMOVE "${OUT}")
execute_process(COMMAND "${BENCH}" --peak --transfer --quick --no-progress --device ${BACKEND} --json "${OUT}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
message("${_out}")
if(_err)
  message("stderr:\n${_err}")
endif()
if(_rc AND "${_out}${_err}" MATCHES "HCL_ERROR_BACKEND_UNAVAILABLE|HCL_ERROR_DEVICE_NOT_FOUND")
  message("SKIPPED: backend ${BACKEND} has no device here")
  return()
endif()
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "bench --peak --transfer --device ${BACKEND} exited with ${_rc}")
endif()
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
