# ctest tools-bench-quick-<backend>: bench --quick --json on one backend, then check-json.cmake on the file.
# A backend without a device here prints "SKIPPED:" (the test's SKIP_REGULAR_EXPRESSION).
# Usage: cmake -DBENCH=path/to/bench -DBACKEND=host -DOUT=quick-host.json -P run-quick.cmake
file(REMOVE "${OUT}")
execute_process(COMMAND "${BENCH}" --quick --no-progress --device ${BACKEND} --json "${OUT}"
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
  message(FATAL_ERROR "bench --quick --device ${BACKEND} exited with ${_rc}")
endif()
set(JSON "${OUT}")
include(${CMAKE_CURRENT_LIST_DIR}/check-json.cmake)
