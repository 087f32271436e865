# ctest conformance-extra-driver: the whole suite on the out-of-tree driver NAME, loaded from DRIVER_DIR through
# HCL_EXTRA_DRIVERS, with HCL_BACKEND=NAME. Passes only when every backend case ran on it and passed, except
# those the suite declares for it (an unsupported case, skipped with the reason, or an expected failure that
# must fail as declared); a case skipped for any other reason (the driver did not load, offers no device) fails.
#   cmake -DCONFORMANCE=<hcl-conformance> -DDRIVER_DIR=<folder of libhcl-NAME.so> -DNAME=<backend>
#         -DCASES=<the device cases' --filter, HCL_CONFORMANCE_DEVICE_CASES> -P run-conformance.cmake
set(REQUIRED CONFORMANCE CASES)
include(${CMAKE_CURRENT_LIST_DIR}/environment.cmake)
set(ENV{HCL_BACKEND} "${NAME}")
message(STATUS "HCL_DRIVER_PATH=$ENV{HCL_DRIVER_PATH} HCL_EXTRA_DRIVERS=${NAME} HCL_BACKEND=${NAME} ${CONFORMANCE} --verbose --jobs 2 --filter ${CASES}")
execute_process(
  COMMAND ${CONFORMANCE} --verbose --jobs 2 --filter "${CASES}"
  OUTPUT_VARIABLE out ERROR_VARIABLE out RESULT_VARIABLE rc)
message("${out}")
string(REPLACE ";" "," out "${out}") # the lines below are handled as CMake lists

set(problems)
if(NOT rc EQUAL 0)
  list(APPEND problems "hcl-conformance exited with ${rc}")
endif()
# The cases: "[====] Running N tests from <suite>:" per suite; each backend case has one instance on NAME (the
# device-independent suites core, loader and peer2, and comm (two devices of its own), are filtered out).
string(REGEX MATCHALL "Running [0-9]+ tests? from [a-z0-9_]+:" running "${out}")
# the suites CASES names ("@(vecadd|gemm|...)/*"); the others' cases are disabled by the filter
string(REGEX REPLACE "^@\\(([^)]*)\\)/\\*$" "\\1" filter_suites "${CASES}")
string(REPLACE "|" ";" filter_suites "${filter_suites}")
set(cases 0)
foreach(r ${running})
  string(REGEX REPLACE "Running ([0-9]+) tests? from ([a-z0-9_]+):" "\\1" n "${r}")
  string(REGEX REPLACE "Running ([0-9]+) tests? from ([a-z0-9_]+):" "\\2" suite "${r}")
  list(FIND filter_suites "${suite}" in_filter)
  if(NOT suite MATCHES "^(core|loader|peer2|comm)$" AND in_filter GREATER -1)
    math(EXPR cases "${cases} + ${n}")
  endif()
endforeach()
# Skips of NAME's instances: only the declared ones may appear.
string(REGEX MATCHALL "\\[SKIP\\] [^\n]*: ${NAME}: [^\n]*" skips "${out}")
set(declared 0)
foreach(s ${skips})
  if(s MATCHES ": ${NAME}: (unsupported: |expected failure \\(declared)")
    math(EXPR declared "${declared} + 1")
  else()
    list(APPEND problems "not run on ${NAME}: ${s}")
  endif()
endforeach()
# Every other skip is another backend's instance, not selected by HCL_BACKEND, or a case the filter leaves out.
string(REGEX MATCHALL "\\[SKIP\\] [^\n]*" all_skips "${out}")
foreach(s ${all_skips})
  if(NOT s MATCHES ": ${NAME}: " AND NOT s MATCHES ": not selected by HCL_BACKEND=${NAME}$"
     AND NOT s MATCHES "^\\[SKIP\\] [a-z0-9_]+::[a-z0-9_]+: Test is disabled$")
    list(APPEND problems "unexpected skip: ${s}")
  endif()
endforeach()
if(NOT out MATCHES "hcl-conformance: ([0-9]+) ran: ([0-9]+) passed, ([0-9]+) failed")
  list(APPEND problems "no summary line from hcl-conformance")
else()
  set(ran ${CMAKE_MATCH_1})
  set(passed ${CMAKE_MATCH_2})
  set(failed ${CMAKE_MATCH_3})
  math(EXPR want "${cases} - ${declared}")
  if(NOT failed EQUAL 0 OR NOT passed EQUAL ran)
    list(APPEND problems "${failed} of ${ran} cases failed on ${NAME}")
  endif()
  if(cases EQUAL 0 OR NOT ran EQUAL want)
    list(APPEND problems "${ran} cases ran on ${NAME}, the suite has ${cases} backend cases, ${declared} declared for ${NAME}: ${want} should have run")
  endif()
endif()
if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "conformance on the extra driver ${NAME}:\n  ${text}")
endif()
message(STATUS "conformance on the extra driver ${NAME}: all ${ran} of ${cases} cases ran and passed (${declared} declared for it: skipped with the reason)")
