/* ctest levelzero-spirv-params: the SPIR-V parameter reader (spirv_params.c) on test_params.cl as clang + llvm-spirv
 * built it: every parameter's kind, size and name; a missing entry point; and, so that malformed modules cannot
 * make it read out of bounds (ASan builds), every truncation and a byte-swapped, a zero-word and a huge-bound copy. */
#include "spirv_params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const unsigned char hcl_ze_test_params_spv[];
extern const size_t hcl_ze_test_params_spv_size;

static int g_failures, g_checks;

static void check(int ok, const char *fmt, const char *a, unsigned b) {
    g_checks++;
    if (!ok) {
        g_failures++;
        fprintf(stderr, "FAIL: ");
        fprintf(stderr, fmt, a, b);
        fprintf(stderr, "\n");
    }
}

typedef struct want {
    hcl_driver_param_kind kind;
    uint32_t size;
    const char *name;
} want;

static void expect(const char *kernel, const want *w, uint32_t n) {
    hcl_driver_param p[16];
    uint32_t count = 0;
    int ok = hcl__ze_spirv_params(hcl_ze_test_params_spv, hcl_ze_test_params_spv_size, kernel, p, 16, &count);
    check(ok && count == n, "%s: found and %u parameters", kernel, n);
    if (!ok || count != n) return;
    for (uint32_t i = 0; i < n; i++) {
        printf("%s param %u: kind %d size %u name '%s' type '%s'\n", kernel, i, (int)p[i].kind, p[i].size, p[i].name,
               p[i].type);
        check(p[i].kind == w[i].kind && p[i].size == w[i].size, "%s: parameter %u kind/size", kernel, i);
        /* names are in the module where llvm-spirv kept them (OpName); an entry-point wrapper may have none */
        check(!p[i].name[0] || strcmp(p[i].name, w[i].name) == 0, "%s: parameter %u name", kernel, i);
    }
}

int main(void) {
    const hcl_driver_param_kind B = HCL_DRIVER_PARAM_BUFFER, V = HCL_DRIVER_PARAM_VALUE, L = HCL_DRIVER_PARAM_LOCAL;
    const want every[] = {{B, 0, "out"}, {B, 0, "table"}, {L, 0, "tmp"}, {V, 4, "alpha"}, {V, 4, "n"}, {V, 8, "big"},
                          {V, 2, "h"},   {V, 16, "v4"},   {V, 16, "v3"}, {V, 1, "c"},     {V, 0, "p"}};
    expect("every_kind", every, sizeof every / sizeof every[0]);
    expect("no_params", NULL, 0);
    const want scale[] = {{B, 0, "x"}, {V, 4, "a"}};
    expect("scale", scale, 2);

    hcl_driver_param p[16];
    uint32_t count = 0;
    const size_t size = hcl_ze_test_params_spv_size;
    check(!hcl__ze_spirv_params(hcl_ze_test_params_spv, size, "scal", p, 16, &count), "%s: no such entry point%u",
          "scal", 0);
    /* every truncation, from an exact-size heap copy */
    unsigned found_truncated = 0;
    for (size_t len = 0; len < size; len += 4) {
        unsigned char *copy = malloc(len ? len : 1);
        if (!copy) return 2;
        memcpy(copy, hcl_ze_test_params_spv, len);
        found_truncated += (unsigned)hcl__ze_spirv_params(copy, len, "every_kind", p, 16, &count);
        free(copy);
    }
    printf("truncations that still held every_kind's parameters: %u of %zu\n", found_truncated, size / 4);
    /* corrupted copies: byte-swapped, a word count of 0, an id bound far past the module, bytes flipped everywhere */
    unsigned char *bad = malloc(size);
    if (!bad) return 2;
    memcpy(bad, hcl_ze_test_params_spv, size);
    for (size_t i = 0; i + 4 <= size; i += 4) {
        unsigned char t = bad[i];
        bad[i] = bad[i + 3], bad[i + 3] = t, t = bad[i + 1], bad[i + 1] = bad[i + 2], bad[i + 2] = t;
    }
    check(!hcl__ze_spirv_params(bad, size, "every_kind", p, 16, &count), "%s: byte-swapped module refused%u", "", 0);
    memcpy(bad, hcl_ze_test_params_spv, size);
    memset(bad + 20, 0, 4);
    check(!hcl__ze_spirv_params(bad, size, "every_kind", p, 16, &count), "%s: zero word count refused%u", "", 0);
    memcpy(bad, hcl_ze_test_params_spv, size);
    memset(bad + 12, 0xff, 4);
    check(!hcl__ze_spirv_params(bad, size, "every_kind", p, 16, &count), "%s: huge id bound refused%u", "", 0);
    for (size_t i = 20; i < size; i++) { /* no check of the result: only that nothing reads out of bounds */
        memcpy(bad, hcl_ze_test_params_spv, size);
        bad[i] ^= 0xa5;
        (void)hcl__ze_spirv_params(bad, size, "every_kind", p, 16, &count);
    }
    free(bad);
    printf("levelzero-spirv-params: %d checks, %d failed\n", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
