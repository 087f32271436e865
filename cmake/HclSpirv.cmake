# SPIR-V from OpenCL C at build time (the Level Zero built-in kernels; docs/architecture.md, "Kernel sources per
# backend").
#
#   hcl_spirv_find_tools()
#       Finds clang (HCL_SPIRV_CLANG), llvm-spirv (HCL_LLVM_SPIRV) and spirv-val (HCL_SPIRV_VAL), preferring the
#       LLVM 14 names (the translator must match the clang that writes the bitcode), and sets
#       HCL_SPIRV_TOOLS_FOUND (and HCL_SPIRV_TOOLS_MISSING: each tool not found, with its Debian package) in the
#       caller's scope.
#
#   hcl_spirv(<out.spv> <source.cl> [DEFINES <NAME=VALUE>...] [DEPENDS <file>...])
#       Adds a build step: clang -> spir64 LLVM bitcode -> llvm-spirv -> SPIR-V 1.0 -> spirv-val
#       --target-env opencl1.2. Any failure fails the build, and a module that spirv-val refuses never reaches
#       <out.spv> (it is written to a temporary name and renamed only after validation).
#
# The bitcode is the front end's output before LLVM's optimisation passes (-O2 -Xclang -disable-llvm-passes):
# llvm-spirv 14 cannot translate some instructions the optimiser makes (`freeze`, from the gemm kernels' loops)
# and, at -O1, writes structured loops that spirv-val refuses. Every consumer (the Level Zero driver's compiler,
# PoCL after `llvm-spirv -r`) optimises the module itself. SPIR-V 1.0 is the version every OpenCL/Level Zero
# consumer takes; the nsw/nuw decorations of 1.4 are dropped.

function(hcl_spirv_find_tools)
  find_program(HCL_SPIRV_CLANG NAMES clang-14 clang DOC "clang that writes spir64 bitcode for SPIR-V")
  find_program(HCL_LLVM_SPIRV NAMES llvm-spirv-14 llvm-spirv DOC "LLVM <-> SPIR-V translator (llvm-spirv)")
  find_program(HCL_SPIRV_VAL NAMES spirv-val DOC "SPIR-V validator (spirv-tools)")
  set(missing "")
  # What is missing, as the tool and its Debian package (the variable names mean nothing to a reader of the log).
  foreach(v_tool "HCL_SPIRV_CLANG;clang-14 (clang-14)" "HCL_LLVM_SPIRV;llvm-spirv-14 (llvm-spirv-14)"
                 "HCL_SPIRV_VAL;spirv-val (spirv-tools)")
    list(GET v_tool 0 v)
    list(GET v_tool 1 tool)
    if(NOT ${v})
      list(APPEND missing "${tool}")
    endif()
  endforeach()
  if(missing)
    set(HCL_SPIRV_TOOLS_FOUND FALSE PARENT_SCOPE)
  else()
    set(HCL_SPIRV_TOOLS_FOUND TRUE PARENT_SCOPE)
  endif()
  set(HCL_SPIRV_TOOLS_MISSING "${missing}" PARENT_SCOPE)
endfunction()

function(hcl_spirv out_spv source)
  cmake_parse_arguments(ARG "" "" "DEFINES;DEPENDS" ${ARGN})
  if(NOT HCL_SPIRV_CLANG OR NOT HCL_LLVM_SPIRV OR NOT HCL_SPIRV_VAL)
    message(FATAL_ERROR "hcl_spirv: the SPIR-V tools were not found (call hcl_spirv_find_tools first)")
  endif()
  get_filename_component(name ${out_spv} NAME_WE)
  get_filename_component(dir ${out_spv} DIRECTORY)
  set(bc ${dir}/${name}.bc)
  set(tmp ${dir}/${name}.spv.tmp)
  set(defs)
  foreach(d ${ARG_DEFINES})
    list(APPEND defs -D${d})
  endforeach()
  add_custom_command(
    OUTPUT ${out_spv}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${dir}
    COMMAND ${HCL_SPIRV_CLANG} -cl-std=CL1.2 -target spir64 -O2 -Xclang -disable-llvm-passes -emit-llvm -c
            ${defs} ${source} -o ${bc}
    COMMAND ${HCL_LLVM_SPIRV} --spirv-max-version=1.0 ${bc} -o ${tmp}
    COMMAND ${HCL_SPIRV_VAL} --target-env opencl1.2 ${tmp}
    COMMAND ${CMAKE_COMMAND} -E rename ${tmp} ${out_spv}
    DEPENDS ${source} ${ARG_DEPENDS} ${HCL_SOURCE_DIR}/cmake/HclSpirv.cmake
    COMMENT "SPIR-V: ${source} -> ${name}.spv (clang, llvm-spirv, spirv-val --target-env opencl1.2)"
    VERBATIM)
endfunction()
