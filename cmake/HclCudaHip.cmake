# The CUDA and HIP drivers' shared build rules (drivers/cuda and drivers/hip each call them once, in their folder):
# both drivers are drivers/cudahip's host code compiled with HCL_GPU_CUDA=1 or HCL_GPU_HIP=1 around a driver.c of
# their own.

# hcl_cudahip_sources(<backend> <define> <include dirs...>): the object library hcl_<backend>_sources: the helper kernel
# fill.cu and the CUDA/HIP name map it includes, as text, always (the run-time compiler's fallback and the CI tests
# compile them; drivers/cudahip/sources.c).
function(hcl_cudahip_sources backend define)
  set(_k ${HCL_SOURCE_DIR}/kernels)
  set(_shared ${HCL_SOURCE_DIR}/drivers/cudahip)
  hcl_embed(${CMAKE_CURRENT_BINARY_DIR}/src_fill.c hcl_gpu_src_fill ${_shared}/fill.cu)
  hcl_embed(${CMAKE_CURRENT_BINARY_DIR}/src_compat.c hcl_gpu_src_compat ${_k}/hcl_gpu_compat.h)
  add_library(hcl_${backend}_sources OBJECT ${CMAKE_CURRENT_BINARY_DIR}/src_fill.c
                                            ${CMAKE_CURRENT_BINARY_DIR}/src_compat.c ${_shared}/sources.c)
  target_compile_definitions(hcl_${backend}_sources PRIVATE ${define}=1)
  target_include_directories(hcl_${backend}_sources PRIVATE ${_shared} ${ARGN})
  target_link_libraries(hcl_${backend}_sources PRIVATE hcl_driver_api)
  target_link_libraries(hcl_${backend}_sources PRIVATE hcl_driver_kit) # gpu.h includes the kit's headers
endfunction()

# hcl_cudahip_module(<backend> <define> <helper binary's embed source, or ""> <include dirs...>): the driver module
# libhcl-<backend>.so: the folder's driver.c, the shared host code, the helper kernel's binary where the vendor
# compiler built one (HCL_GPU_HAVE_HELPER_BINARY), and hcl_<backend>_sources.
function(hcl_cudahip_module backend define helper)
  set(_shared ${HCL_SOURCE_DIR}/drivers/cudahip)
  hcl_add_driver_module(${backend} driver.c
    ${_shared}/runtime.c ${_shared}/queue.c ${_shared}/memory.c ${_shared}/module.c ${_shared}/helpers.c
    ${_shared}/rtc.c ${_shared}/lost.c ${_shared}/peer.c ${helper} $<TARGET_OBJECTS:hcl_${backend}_sources>)
  target_compile_definitions(hcl-${backend} PRIVATE ${define}=1)
  target_sources(hcl-${backend} PRIVATE ${_shared}/device.c) # devices and the table, on the driver kit
  target_include_directories(hcl-${backend} PRIVATE ${_shared} ${ARGN})
  if(helper)
    target_compile_definitions(hcl-${backend} PRIVATE HCL_GPU_HAVE_HELPER_BINARY=1)
  endif()
endfunction()

# hcl_cudahip_rtc_test(<target> <backend> <define> <source> <include dirs...>): a test program of the driver's own
# run-time compiler path (drivers/cudahip/rtc.c) without a GPU.
function(hcl_cudahip_rtc_test target backend define source)
  set(_shared ${HCL_SOURCE_DIR}/drivers/cudahip)
  add_executable(${target} ${source} ${_shared}/rtc.c $<TARGET_OBJECTS:hcl_${backend}_sources>)
  target_compile_definitions(${target} PRIVATE ${define}=1)
  target_include_directories(${target} PRIVATE ${_shared} ${ARGN})
  target_link_libraries(${target} PRIVATE hcl_kernels hcl_driver_api ${CMAKE_DL_LIBS} Threads::Threads hcl_driver_kit)
endfunction()

# hcl_cudahip_helper_binary(<out_var> <binary> <source> <what> <vendor compiler command...>): the rule that builds the
# helper kernel (<source>: fill.cu, or HIP's copy of it) into <binary> with the vendor compiler, embedded as
# hcl_gpu_helpers_binary; <what> says so in the build's and the configure's output. <out_var> gets the embedding
# source, for hcl_cudahip_module.
function(hcl_cudahip_helper_binary out_var binary source what)
  add_custom_command(OUTPUT ${binary} COMMAND ${ARGN} DEPENDS ${source} ${HCL_SOURCE_DIR}/kernels/hcl_gpu_compat.h
                     COMMENT "${what}" VERBATIM)
  hcl_embed(${CMAKE_CURRENT_BINARY_DIR}/helpers_binary.c hcl_gpu_helpers_binary ${binary})
  set(${out_var} ${CMAKE_CURRENT_BINARY_DIR}/helpers_binary.c PARENT_SCOPE)
  message(STATUS "hcl: ${what}")
endfunction()

# hcl_cudahip_gpu_tests(<backend> <define> <test kernel binaries' embedding sources...>): the tests through the public
# API that need the backend's GPUs, each exiting 77 (skipped) on a machine without them:
#   <backend>-gpu       drivers/cudahip/test_gpu.c, with test_kernels.cu as text (test_src.c, embedded here, which
#                       the folder's other tests may use too) and, where the vendor compiler built them, as the
#                       binaries given (HCL_GPU_TEST_BINARIES);
#   <backend>-peer-gpu  drivers/cudahip/test_peer_gpu.c: the peer-access matrix between GPUs 0 and 1, 1 GiB each way
#                       verified, and the bandwidth.
function(hcl_cudahip_gpu_tests backend define)
  set(_shared ${HCL_SOURCE_DIR}/drivers/cudahip)
  hcl_embed(${CMAKE_CURRENT_BINARY_DIR}/test_src.c hcl_gpu_test_src ${_shared}/test_kernels.cu)
  add_executable(hcl-${backend}-test-gpu ${_shared}/test_gpu.c ${CMAKE_CURRENT_BINARY_DIR}/test_src.c ${ARGN})
  target_link_libraries(hcl-${backend}-test-gpu PRIVATE hcl::hcl hcl_testsupport m)
  target_compile_definitions(hcl-${backend}-test-gpu PRIVATE ${define}=1)
  if(ARGN)
    target_compile_definitions(hcl-${backend}-test-gpu PRIVATE HCL_GPU_TEST_BINARIES=1)
  endif()
  add_test(NAME ${backend}-gpu COMMAND hcl-${backend}-test-gpu)
  add_executable(hcl-${backend}-test-peer-gpu ${_shared}/test_peer_gpu.c)
  target_link_libraries(hcl-${backend}-test-peer-gpu PRIVATE hcl::hcl)
  target_compile_definitions(hcl-${backend}-test-peer-gpu PRIVATE ${define}=1)
  add_test(NAME ${backend}-peer-gpu COMMAND hcl-${backend}-test-peer-gpu)
  set_tests_properties(${backend}-peer-gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 600)
  set_tests_properties(${backend}-gpu PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
endfunction()
