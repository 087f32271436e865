// ctest kernels-glslang-compile-error: a compute shader with an error on line 7 (an undeclared name), which
// hcl-glslang-compile must refuse with the compiler's message naming this file and line, and exit 1.
#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer O { float o[]; };
void main() {
    o[0] = hcl_no_such_name;
}
