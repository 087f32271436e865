/* ctest vulkan-spirv-reflect: the driver's SPIR-V reflection (spirv_reflect.c) on the built-in kernels' Vulkan module
 * (kernels/CMakeLists.txt's vk.spv, given as argv[1]): every entry point's storage buffers and push constants as the
 * plans pass them (vecadd: bindings 0-2, each once though a, b and c are declared twice, as elements and as 16-byte
 * words, and one uint; gemm: bindings 0-2, each once though A and B are declared twice, seven uints and two floats); a
 * missing entry point, OpenCL SPIR-V and truncated (at every word of the module's first 16 KiB and last 4 KiB, every
 * 61st between) or corrupted copies refused or read without a read past the module (the sanitizer build checks that).
 * With argv[2], the cooperative-matrix module (vk_coop.spv, from the newer glslang): its eight gemm entry points take
 * gemm's buffers and push constants, and a size from the specialisation constants. Checks through the test library
 * (HCL_TS_CHECK). */
#include "hcl_testsupport.h"
#include "spirv_reflect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    size_t size = 0;
    uint32_t *spv = argc > 1 ? hcl_ts_read_file(argv[1], &size) : NULL;
    if (!spv) {
        printf("usage: %s vk.spv (could not read it)\n", argv[0]);
        return 1;
    }
    char why[256];
    hcl__vk_reflect r;
    HCL_TS_CHECK(hcl__vk_spirv_is_shader(spv, size), "vk.spv is not a Vulkan shader module");
    HCL_TS_CHECK(hcl__vk_spirv_reflect(spv, size, "hcl_vecadd_f32", &r, why, sizeof why), "vecadd: %s", why);
    HCL_TS_CHECK(r.num_bindings == 3 && r.bindings[0] == 0 && r.bindings[2] == 2, "vecadd: %u bindings",
                 r.num_bindings);
    HCL_TS_CHECK(r.num_push == 1 && r.push_size[0] == 4 && r.push_bytes == 4, "vecadd: %u push constants", r.num_push);
    HCL_TS_CHECK(r.size_from_spec, "vecadd: the work-group size is not the specialisation constants'");
    HCL_TS_CHECK(hcl__vk_spirv_reflect(spv, size, "hcl_gemm_f32", &r, why, sizeof why), "gemm: %s", why);
    HCL_TS_CHECK(r.num_bindings == 3 && r.bindings[0] == 0 && r.bindings[1] == 1 && r.bindings[2] == 2 &&
                     r.num_push == 9 && r.push_bytes == 36,
                 "gemm: %u bindings, %u push constants, %u bytes", r.num_bindings, r.num_push, r.push_bytes);
    for (uint32_t i = 0; i < r.num_push; i++)
        HCL_TS_CHECK(r.push_offset[i] == 4 * i && r.push_size[i] == 4, "gemm: push constant %u at %u, %u bytes", i,
                     r.push_offset[i], r.push_size[i]);
    HCL_TS_CHECK(!strcmp(r.push_type[7], "float32") && !strcmp(r.push_type[0], "uint32"), "gemm: types %s, %s",
                 r.push_type[0], r.push_type[7]);
    HCL_TS_CHECK(hcl__vk_spirv_reflect(spv, size, "hcl_reduce_sum_f32", &r, why, sizeof why), "reduce: %s", why);
    HCL_TS_CHECK(r.num_bindings == 3 && r.num_push == 1, "reduce: %u bindings, %u push", r.num_bindings, r.num_push);
    HCL_TS_CHECK(!hcl__vk_spirv_reflect(spv, size, "no_such_kernel", &r, why, sizeof why) &&
                     strstr(why, "no GLCompute"),
                 "a missing entry point: %s", why);
    /* OpenCL SPIR-V: the Kernel capability instead of Shader */
    uint32_t *cl = malloc(size);
    memcpy(cl, spv, size);
    for (size_t i = 5; i < size / 4 && (cl[i] & 0xffff) == 17; i += cl[i] >> 16)
        if (cl[i + 1] == 1) cl[i + 1] = 6;
    HCL_TS_CHECK(!hcl__vk_spirv_is_shader(cl, size), "OpenCL SPIR-V taken for a shader");
    HCL_TS_CHECK(!hcl__vk_spirv_reflect(cl, size, "hcl_vecadd_f32", &r, why, sizeof why) && strstr(why, "OpenCL"),
                 "OpenCL SPIR-V: %s", why);
    /* truncations, and corrupted words: no crash, no read past (ASan). Cut at every word of the first 16 KiB (the
     * header, capabilities, entry points, names and decorations) and of the last 4 KiB, and at every 61st word between
     * (the module's functions repeat the same instructions entry after entry; cutting at every word of a 428 KB module
     * took 17 s, 59 s under ASan, and grows with the square of its size) */
    int refused = 0;
    size_t cuts = 0;
    for (size_t n = 0; n < size; n += n < 16384 || size - n <= 4096 ? 4 : 61 * 4, cuts++) {
        void *cut = malloc(n ? n : 1);
        memcpy(cut, spv, n);
        refused += !hcl__vk_spirv_reflect(cut, n, "hcl_gemm_f32", &r, why, sizeof why);
        free(cut);
    }
    HCL_TS_CHECK(refused > 0, "no truncated copy was refused");
    srand(38);
    for (int t = 0; t < 2000; t++) {
        memcpy(cl, spv, size);
        for (int k = 0; k < 4; k++) cl[5 + (size_t)rand() % (size / 4 - 5)] = (uint32_t)rand() * 2654435761u;
        (void)hcl__vk_spirv_reflect(cl, size, "hcl_gemm_f32", &r, why, sizeof why);
        (void)hcl__vk_spirv_is_shader(cl, size);
    }
    free(cl);
    free(spv);
    size_t coop_size = 0;
    uint32_t *coop = argc > 2 ? hcl_ts_read_file(argv[2], &coop_size) : NULL;
    HCL_TS_CHECK(argc <= 2 || coop, "could not read %s", argc > 2 ? argv[2] : "");
    /* hcl_gemm_coop[64]_<nn|tn|nt|tt>_<f16|bf16>[_f32]: 32 kernels */
    static const char *const tiles[] = {"coop", "coop64"}, *const abs[] = {"nn", "tn", "nt", "tt"},
                             *const types[] = {"f16", "bf16"}, *const cs[] = {"", "_f32"};
    for (int i = 0; coop && i < 32; i++) {
        char name[64];
        snprintf(name, sizeof name, "hcl_gemm_%s_%s_%s%s", tiles[i / 16], abs[i / 4 % 4], types[i / 2 % 2], cs[i % 2]);
        const int ok = hcl__vk_spirv_reflect(coop, coop_size, name, &r, why, sizeof why);
        HCL_TS_CHECK(ok, "%s: %s", name, why);
        HCL_TS_CHECK(r.num_bindings == 3 && r.bindings[2] == 2 && r.num_push == 9 && r.push_bytes == 36 &&
                         r.size_from_spec && r.cap_16bit_storage,
                     "%s: %u bindings, %u push constants (%u bytes), size from spec %d, 16-bit storage %d", name,
                     r.num_bindings, r.num_push, r.push_bytes, r.size_from_spec, r.cap_16bit_storage);
    }
    free(coop);
    const int failures = hcl_ts_failures();
    printf("%s: %d of %d check(s) failed; %zu truncated copies, %d refused\n", failures ? "FAIL" : "PASS", failures,
           hcl_ts_checks(), cuts, refused);
    return failures ? 1 : 0;
}
