# hcl_pocl_test(<test> <target> <source> [LIBS <libraries...>] [ARGS <arguments...>] [PROPERTIES <properties...>]):
# a test program that runs on PoCL through testsupport's harness (hcl_testsupport_cl, hcl_testsupport_cl.h): the
# executable <target> from <source>, linked with <libraries> and the harness, run as ctest <test> with <arguments>.
# Without an OpenCL library at build time the test is still registered, skipped (77) with the reason. <properties>
# are set on the test either way, with SKIP_RETURN_CODE 77.
function(hcl_pocl_test test target source)
  cmake_parse_arguments(ARG "" "" "LIBS;ARGS;PROPERTIES" ${ARGN})
  find_package(OpenCL QUIET)
  if(OpenCL_FOUND) # testsupport/ builds the harness, hcl_testsupport_cl, when OpenCL is found
    add_executable(${target} ${source})
    target_link_libraries(${target} PRIVATE ${ARG_LIBS} hcl_testsupport_cl hcl_testsupport)
    add_test(NAME ${test} COMMAND ${target} ${ARG_ARGS})
  else()
    add_test(NAME ${test}
             COMMAND sh -c "echo 'SKIP: no OpenCL library was found at build time (${test} runs on PoCL through it)'; exit 77")
  endif()
  set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE 77 ${ARG_PROPERTIES})
endfunction()
