/* ctest common-params: the kit's kernel parameter readers (params.h) on type names, CUDA/HIP source and PTX text,
 * including text they must refuse to guess about (templates, macros, unbalanced or truncated text). Every text is
 * also parsed at every prefix length from an exact-size heap copy, so an out-of-bounds read shows under ASan. */
#include "params.h"
#include "test_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_size(const char *type, hcl_kit_dialect d, uint32_t want) {
    char what[160];
    uint32_t got = hcl__kit_type_size(type, strlen(type), d);
    snprintf(what, sizeof what, "type '%s' (%s): %u bytes, want %u", type,
             d == HCL_KIT_DIALECT_CUDA ? "cuda" : "opencl", got, want);
    check(got == want, what);
}

/* Expected parameters, one letter each: B buffer, V value (size from sizes[]), U unknown. */
typedef struct want {
    const char *kinds;
    const uint32_t *sizes;
    const char *const *names;
} want;

static void compare(const char *label, int parsed, uint32_t count, const hcl_driver_param *p, const want *w) {
    char what[256];
    if (!w) {
        snprintf(what, sizeof what, "%s: should not parse (gave %d, %u params)", label, parsed, count);
        check(!parsed, what);
        return;
    }
    snprintf(what, sizeof what, "%s: parsed %d, %u params, want %zu", label, parsed, count, strlen(w->kinds));
    check(parsed && count == strlen(w->kinds), what);
    if (!parsed || count != strlen(w->kinds)) return;
    for (uint32_t i = 0; i < count; i++) {
        const char k = w->kinds[i];
        const hcl_driver_param_kind kind = k == 'B'   ? HCL_DRIVER_PARAM_BUFFER
                                           : k == 'V' ? HCL_DRIVER_PARAM_VALUE
                                                      : HCL_DRIVER_PARAM_UNKNOWN;
        snprintf(what, sizeof what, "%s: param %u kind %d size %u name '%s' type '%s', want %c %u '%s'", label, i,
                 (int)p[i].kind, p[i].size, p[i].name, p[i].type, k, w->sizes ? w->sizes[i] : 0,
                 w->names ? w->names[i] : "");
        check(p[i].kind == kind && (!w->sizes || p[i].size == w->sizes[i]) &&
                  (!w->names || strcmp(p[i].name, w->names[i]) == 0),
              what);
    }
}

/* Parse `text` for `kernel` with the CUDA (ptx 0) or PTX reader, check against w (NULL: must not parse), then parse
 * every prefix of an exact-size copy (results not checked: only that nothing reads past the end). */
static void run(const char *label, int ptx, const char *text, const char *kernel, const want *w) {
    hcl_driver_param p[8];
    uint32_t count = 0;
    const size_t n = strlen(text);
    char *copy = malloc(n ? n : 1);
    if (!copy) abort();
    memcpy(copy, text, n);
    int parsed =
        ptx ? hcl__kit_ptx_params(copy, n, kernel, p, 8, &count) : hcl__kit_cuda_params(copy, n, kernel, p, 8, &count);
    compare(label, parsed, count, p, w);
    for (size_t len = 0; len < n; len++) {
        char *prefix = malloc(len ? len : 1);
        if (!prefix) abort();
        memcpy(prefix, text, len);
        uint32_t c = 0;
        (void)(ptx ? hcl__kit_ptx_params(prefix, len, kernel, p, 8, &c)
                   : hcl__kit_cuda_params(prefix, len, kernel, p, 8, &c));
        free(prefix);
    }
    free(copy);
}

static void type_sizes(void) {
    const hcl_kit_dialect CL = HCL_KIT_DIALECT_OPENCL, CU = HCL_KIT_DIALECT_CUDA;
    check_size("float", CL, 4);
    check_size("uint", CL, 4);
    check_size("unsigned int", CL, 4);
    check_size("const  int", CL, 4);
    check_size("half", CL, 2);
    check_size("ulong", CL, 8);
    check_size("float4", CL, 16);
    check_size("float3", CL, 16); /* OpenCL: a 3-vector is as big as a 4-vector */
    check_size("char16", CL, 16);
    check_size("double8", CL, 64);
    check_size("float5", CL, 0);
    check_size("size_t", CL, 0); /* depends on the device's address bits */
    check_size("float*", CL, 0);
    check_size("struct pair", CL, 0);
    check_size("", CL, 0);
    check_size("float3", CU, 12); /* CUDA: three elements */
    check_size("double2", CU, 16);
    check_size("longlong2", CU, 16);
    check_size("unsigned long long", CU, 8);
    check_size("long", CU, 8);
    check_size("size_t", CU, 8);
    check_size("__half", CU, 2);
    check_size("__nv_bfloat16", CU, 2);
    check_size("int8_t", CU, 1);
    check_size("const volatile unsigned", CU, 4);
    check_size("float8", CU, 0);
    check_size("T", CU, 0);
    check_size("std::size_t", CU, 0);
}

static void cuda_sources(void) {
    static const char conf[] =
        "extern \"C\" __global__ void scale_rev(float *out, const float *in, float alpha, unsigned int n) {\n"
        "    extern __shared__ float tmp[];\n"
        "}\n"
        "extern \"C\" __global__ void index3d(unsigned int *out) { out[0] = 1; }\n";
    static const uint32_t s4[] = {0, 0, 4, 4};
    static const char *const n4[] = {"out", "in", "alpha", "n"};
    run("scale_rev", 0, conf, "scale_rev", &(want){"BBVV", s4, n4});
    run("index3d", 0, conf, "index3d", &(want){"B", NULL, (const char *const[]){"out"}});
    run("missing", 0, conf, "nope", NULL);
    run("prefix name", 0, conf, "scale", NULL);

    static const char fancy[] =
        "// __global__ void k(int a) in a comment is not the kernel\n"
        "/* nor __global__ void k(float x) here */\n"
        "#define N 4\n"
        "extern \"C\" __global__ void __launch_bounds__(256, 2)\n"
        "k(const float *__restrict__ a, float b[], double2 v, MyStruct s, int, size_t count, float3 p) {}\n";
    static const uint32_t sf[] = {0, 0, 16, 0, 4, 8, 12};
    run("fancy", 0, fancy, "k", &(want){"BBVUVVV", sf, (const char *const[]){"a", "b", "v", "s", "", "count", "p"}});

    run("void list", 0, "extern \"C\" __global__ void e(void) {}", "e", &(want){"", NULL, NULL});
    run("empty list", 0, "extern \"C\" __global__ void e() {}", "e", &(want){"", NULL, NULL});
    run("template", 0, "template <typename T> __global__ void t(T *x, int n) {}", "t", NULL);
    run("variadic", 0, "extern \"C\" __global__ void v(int n, ...) {}", "v", NULL);
    run("unbalanced", 0, "extern \"C\" __global__ void u(int n, float *x", "u", NULL);
    run("reference", 0, "extern \"C\" __global__ void r(const Params &p) {}", "r", &(want){"U", NULL, NULL});
    run("default arg", 0, "extern \"C\" __global__ void d(int n = 3) {}", "d", &(want){"U", NULL, NULL});
    run("macro in list", 0, "extern \"C\" __global__ void m(\n#ifdef X\nint a\n#else\nfloat *a\n#endif\n) {}", "m",
        NULL);
    /* a declaration then the definition: they agree, or nothing is known */
    run("decl+def", 0,
        "extern \"C\" __global__ void f(float *x, int n);\nextern \"C\" __global__ void f(float *y, int m) {}", "f",
        &(want){"BV", (const uint32_t[]){0, 4}, NULL});
    run("disagree", 0, "__global__ void f(float *x, int n);\n__global__ void f(int x, int n) {}", "f", NULL);
    /* a string holding __global__ text is not code */
    run("string", 0, "const char *s = \"__global__ void g(int a)\";\nextern \"C\" __global__ void g(float *a) {}", "g",
        &(want){"B", NULL, (const char *const[]){"a"}});
}

static void ptx_texts(void) {
    static const char ptx[] = "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.0\n.target sm_80\n"
                              ".address_size 64\n\n"
                              "\t// .globl\tscale_rev\n"
                              ".visible .entry scale_rev(\n"
                              "\t.param .u64 scale_rev_param_0,\n"
                              "\t.param .u64 .ptr .global .align 4 scale_rev_param_1,\n"
                              "\t.param .f32 scale_rev_param_2,\n"
                              "\t.param .align 16 .b8 scale_rev_param_3[16]\n"
                              ")\n{\n\tret;\n}\n"
                              ".visible .entry empty()\n{\n\tret;\n}\n";
    static const uint32_t sp[] = {8, 0, 4, 16};
    run("ptx scale_rev", 1, ptx, "scale_rev", &(want){"UBUU", sp, NULL});
    run("ptx empty", 1, ptx, "empty", &(want){"", NULL, NULL});
    run("ptx missing", 1, ptx, "scale", NULL);
    run("ptx garbage", 1, ".entry k(\n .param .u64 a,\n garbage", "k", NULL);
}

int main(void) {
    type_sizes();
    cuda_sources();
    ptx_texts();
    return test_check_report("common-params");
}
