# ctest kernels-gemm-xmx-spirv: the XMX gemm (kernels/gemm/gemm_xmx.cl, as libhcl embeds it: hcl_cl_types.h + the
# .cl) compiled for SPIR-V by the repository's SPIR-V tools, for sub-groups of 8 and of 16:
#   clang -cl-std=CL1.2 -target spir64 (the flags of cmake/HclSpirv.cmake) -DHCL_XMX_SG=<sg> -DHCL_XMX_DECLARE
#   llvm-spirv --spirv-max-version=1.1, spirv-val --target-env opencl2.2
# and the module's disassembly checked: all 16 kernels, each with the execution mode SubgroupSize <sg> (what
# intel_reqd_sub_group_size becomes, the extension's required sub-group size), and no function imported but the
# f16 and bf16 matrix_mad_k16 built-ins with the operand types the extension gives that sub-group size (SG 8:
# int8 a, int8 b, float8 acc, mangled Dv8_iS_Dv8_f; SG 16: short8 a, Dv8_sDv8_iDv8_f), and the SPIR-V built-in
# variables.
#
# What the tools here can and cannot say: clang 14 does not declare the extension's built-ins (HCL_XMX_DECLARE
# declares them as the extension's text writes them), and llvm-spirv 14 and SPIRV-Tools 2023.1 predate the SPIR-V
# extension SPV_INTEL_subgroup_matrix_multiply_accumulate (2025): the calls stay calls of the OpenCL C built-in
# names (Linkage capability, Import), which an Intel SPIR-V consumer would have to resolve against its built-in
# library. No Intel compiler ran on this module. SubgroupSize needs SPIR-V 1.1 (SubgroupDispatch), which spirv-val's
# OpenCL 1.2 / 2.1 environments do not take: it is validated for OpenCL 2.2.
#
# cmake -DCLANG=... -DLLVM_SPIRV=... -DSPIRV_VAL=... -DSPIRV_DIS=... -DSOURCE=<the embedded text> -DWORK=<dir>
#       -P test_gemm_xmx_spirv.cmake
foreach(v CLANG LLVM_SPIRV SPIRV_VAL SPIRV_DIS SOURCE WORK)
  if(NOT ${v})
    message(FATAL_ERROR "FAIL: ${v} not given")
  endif()
endforeach()
file(MAKE_DIRECTORY ${WORK})

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: ${what}: exit status ${rc}\n${out}${err}")
  endif()
endfunction()

foreach(sg 8 16)
  set(bc ${WORK}/gemm_xmx${sg}.bc)
  set(spv ${WORK}/gemm_xmx${sg}.spv)
  run("clang (sub-groups of ${sg})" ${CLANG} -cl-std=CL1.2 -target spir64 -O2 -Xclang -disable-llvm-passes -emit-llvm
      -c -Werror -Wno-unused-function -DHCL_XMX_SG=${sg} -DHCL_XMX_DECLARE ${SOURCE} -o ${bc})
  run("llvm-spirv (sub-groups of ${sg})" ${LLVM_SPIRV} --spirv-max-version=1.1 ${bc} -o ${spv})
  run("spirv-val (sub-groups of ${sg})" ${SPIRV_VAL} --target-env opencl2.2 ${spv})
  execute_process(COMMAND ${SPIRV_DIS} ${spv} RESULT_VARIABLE rc OUTPUT_VARIABLE dis ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAIL: spirv-dis: ${err}")
  endif()

  string(REGEX MATCHALL "OpEntryPoint Kernel %[A-Za-z0-9_]+ \"hcl_gemm_[nt][nt]_b?f16(_f32)?\"" entries "${dis}")
  list(LENGTH entries n_entries)
  string(REGEX MATCHALL "OpExecutionMode %[A-Za-z0-9_]+ SubgroupSize ${sg}\n" modes "${dis}")
  list(LENGTH modes n_modes)
  string(REGEX MATCHALL "OpExecutionMode %[A-Za-z0-9_]+ SubgroupSize [0-9]+" any_modes "${dis}")
  list(LENGTH any_modes n_any_modes)
  if(NOT n_entries EQUAL 16 OR NOT n_modes EQUAL 16 OR NOT n_any_modes EQUAL 16)
    message(FATAL_ERROR "FAIL: sub-groups of ${sg}: ${n_entries} of the 16 kernels, ${n_modes} with SubgroupSize ${sg}, "
                        "${n_any_modes} SubgroupSize modes in all")
  endif()

  if(sg EQUAL 8)
    set(sig "Dv8_iS_Dv8_f")
  else()
    set(sig "Dv8_sDv8_iDv8_f")
  endif()
  set(want "_Z38intel_sub_group_f16_f16_matrix_mad_k16${sig};_Z40intel_sub_group_bf16_bf16_matrix_mad_k16${sig}")
  string(REGEX MATCHALL "LinkageAttributes \"[A-Za-z0-9_]+\" Import" imports "${dis}")
  set(calls)
  foreach(i ${imports})
    string(REGEX REPLACE "LinkageAttributes \"([A-Za-z0-9_]+)\" Import" "\\1" name "${i}")
    if(name MATCHES "^__spirv_BuiltIn")
      continue()
    endif()
    list(FIND want ${name} at)
    if(at LESS 0)
      message(FATAL_ERROR "FAIL: sub-groups of ${sg}: the module imports ${name}, not a built-in of the extension")
    endif()
    list(APPEND calls ${name})
  endforeach()
  list(SORT calls)
  set(sorted_want ${want})
  list(SORT sorted_want)
  if(NOT "${calls}" STREQUAL "${sorted_want}")
    message(FATAL_ERROR "FAIL: sub-groups of ${sg}: imports '${calls}', expected '${sorted_want}'")
  endif()
  string(REGEX MATCHALL "OpFunctionCall %v8float %_Z[0-9]+intel_sub_group_b?f16_b?f16_matrix_mad_k16${sig}" uses
               "${dis}")
  list(LENGTH uses n_uses)
  file(SIZE ${spv} bytes)
  message(STATUS "ok   sub-groups of ${sg}: ${bytes} bytes of SPIR-V, spirv-val (opencl2.2) accepts it; 16 kernels "
                 "with SubgroupSize ${sg}; ${n_uses} calls of ${want}")
endforeach()
message(STATUS "PASS (compiled and validated only: no Intel compiler or device ran this SPIR-V)")
