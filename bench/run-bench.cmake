# bench_run([UNAVAILABLE <regex> SKIP <line>] ARGS <bench arguments...>), for the ctest scripts (run-quick.cmake,
# run-sections.cmake, run-comm.cmake, run-host-baselines.cmake): runs ${BENCH} with the arguments and prints what it
# wrote (stderr after "stderr:"), leaving its standard output in _out. A run that fails with output matching <regex>
# (the device is not here) prints "SKIPPED: <line>" (the tests' SKIP_REGULAR_EXPRESSION) and ends the calling script:
# bench_run is a macro, so its return() returns from the script. Any other failure is fatal.
# What bench prints when the device asked for is not on this machine.
set(BENCH_NO_DEVICE "HCL_ERROR_BACKEND_UNAVAILABLE|HCL_ERROR_DEVICE_NOT_FOUND")
macro(bench_run)
  cmake_parse_arguments(_br "" "UNAVAILABLE;SKIP" "ARGS" ${ARGN})
  execute_process(COMMAND "${BENCH}" ${_br_ARGS} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  message("${_out}")
  if(_err)
    message("stderr:\n${_err}")
  endif()
  if(_rc AND _br_UNAVAILABLE AND "${_out}${_err}" MATCHES "${_br_UNAVAILABLE}")
    message("SKIPPED: ${_br_SKIP}")
    return()
  endif()
  if(NOT _rc EQUAL 0)
    string(REPLACE ";" " " _br_ARGS "${_br_ARGS}")
    message(FATAL_ERROR "bench ${_br_ARGS} exited with ${_rc}")
  endif()
endmacro()
