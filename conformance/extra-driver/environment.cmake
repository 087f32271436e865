# Included by run-conformance.cmake and run-info.cmake: checks that each variable of REQUIRED was given (-D...=),
# and points HCL at the out-of-tree driver NAME in DRIVER_DIR/modules through HCL_EXTRA_DRIVERS.
foreach(v ${REQUIRED} DRIVER_DIR NAME)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "${CMAKE_CURRENT_LIST_FILE}: -D${v}=... is required")
  endif()
endforeach()
set(ENV{HCL_DRIVER_PATH} "${DRIVER_DIR}/modules")
set(ENV{HCL_EXTRA_DRIVERS} "${NAME}")
