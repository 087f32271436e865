# Script mode helper of kernels/CMakeLists.txt (HCL_DEVICE_CODE_FROM): -DFROM=<other build's device code>
# -DFROM_TEXT=<the text it was built from> -DTEXT=<this build's text> -DOUT=<this build's device code>.
# Copies FROM to OUT when the two texts are the same; fails when they differ (the other build is stale: build it
# first), so a copied fatbin or bundle is always the one these sources give.
file(READ "${TEXT}" ours)
if(NOT EXISTS "${FROM_TEXT}" OR NOT EXISTS "${FROM}")
  message(FATAL_ERROR "HCL_DEVICE_CODE_FROM: ${FROM} or ${FROM_TEXT} is missing: build that tree first")
endif()
file(READ "${FROM_TEXT}" theirs)
if(NOT ours STREQUAL theirs)
  message(FATAL_ERROR "HCL_DEVICE_CODE_FROM: ${FROM} was built from other kernel sources than ${TEXT}: "
                      "build that tree first")
endif()
configure_file("${FROM}" "${OUT}" COPYONLY)
