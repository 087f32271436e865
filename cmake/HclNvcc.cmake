# hcl_nvcc_gencode(<out_var>): nvcc's -gencode flags for every CUDA binary HCL builds (the built-in fatbin,
# kernels/CMakeLists.txt, and the CUDA driver's helper fatbin): SASS for each of HCL_CUDA_ARCHS and PTX for
# HCL_CUDA_PTX_ARCH, which newer GPUs JIT (both cache options are kernels/CMakeLists.txt's).
function(hcl_nvcc_gencode out_var)
  set(_gencode)
  foreach(_a ${HCL_CUDA_ARCHS})
    list(APPEND _gencode -gencode arch=compute_${_a},code=sm_${_a})
  endforeach()
  list(APPEND _gencode -gencode arch=compute_${HCL_CUDA_PTX_ARCH},code=compute_${HCL_CUDA_PTX_ARCH})
  set(${out_var} ${_gencode} PARENT_SCOPE)
endfunction()
