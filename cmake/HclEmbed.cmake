# hcl_embed(<out.c> <symbol> <input file>): generate a C file that defines
#   const unsigned char <symbol>[];   const size_t <symbol>_size;
# holding the bytes of <input file> followed by one NUL (not counted in _size), so text can be used as a string.
function(hcl_embed out_c symbol input)
  add_custom_command(
    OUTPUT ${out_c}
    COMMAND ${CMAKE_COMMAND} -DIN=${input} -DOUT=${out_c} -DSYM=${symbol} -P ${HCL_SOURCE_DIR}/cmake/HclEmbedRun.cmake
    DEPENDS ${input} ${HCL_SOURCE_DIR}/cmake/HclEmbedRun.cmake
    COMMENT "Embedding ${input} as ${symbol}"
    VERBATIM)
endfunction()
