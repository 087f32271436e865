/* ctest cuda-binary-params: the kit's parameter count from CUDA binaries (drivers/common/cubin.h) on images nvcc
 * built from test_binary_params.cu at build time: a cubin, PTX text, fatbins with nothing compressed, with only the
 * PTX compressed (nvcc's default), with everything compressed (which must answer "unknown", not a count), and one
 * that holds only uncompressed PTX. Every image is also read at every prefix length from an exact-size heap copy
 * (the right count or "unknown"; ASan builds catch a read past the end) and with each byte altered in turn (read
 * without a crash or an out-of-bounds read). Usage: hcl-test-binary-params <cubin> <ptx> <fatbin-plain>
 * <fatbin-default> <fatbin-compressed> <fatbin-ptx>. */
#include "cubin.h"
#include "test_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct expect {
    const char *kernel;
    uint32_t count;
} expect;

static const expect g_kernels[] = {{"none", 0}, {"affine", 4}, {"by_value", 3}, {"unused", 3}, {"sixteen", 16}};
#define NKERNELS (sizeof g_kernels / sizeof g_kernels[0])

/* Every kernel of the image: its count when `known`, else "unknown"; and a name not in it is unknown. */
static void check_image(const char *label, const unsigned char *img, size_t size, int known) {
    char what[256];
    for (size_t i = 0; i < NKERNELS; i++) {
        uint32_t count = 12345;
        int found = hcl__kit_cuda_binary_param_count(img, size, g_kernels[i].kernel, &count);
        if (known)
            snprintf(what, sizeof what, "%s: %s: found %d, %u parameters; want %u", label, g_kernels[i].kernel, found,
                     count, g_kernels[i].count);
        else
            snprintf(what, sizeof what, "%s: %s: found %d (%u parameters); want unknown", label, g_kernels[i].kernel,
                     found, count);
        check(known ? found && count == g_kernels[i].count : !found, what);
    }
    uint32_t count = 0;
    snprintf(what, sizeof what, "%s: a kernel it does not hold ('affin') is unknown", label);
    check(!hcl__kit_cuda_binary_param_count(img, size, "affin", &count), what);
    snprintf(what, sizeof what, "%s: a kernel it does not hold ('affine2') is unknown", label);
    check(!hcl__kit_cuda_binary_param_count(img, size, "affine2", &count), what);
}

/* Damaged copies: each prefix must give affine's 4 parameters or "unknown". Each byte of the image is also changed in
 * turn (images up to 64 KiB): what that answers is not checked (a changed ordinal can be a consistent list), only
 * that reading it stays inside the copy, which an ASan build reports. */
static void check_damage(const char *label, const unsigned char *img, size_t size) {
    char what[256];
    int bad_prefix = 0;
    for (size_t n = 0; n < size; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        if (!copy) abort();
        memcpy(copy, img, n);
        uint32_t count = 0;
        if (hcl__kit_cuda_binary_param_count(copy, n, "affine", &count) && count != 4) bad_prefix++;
        free(copy);
    }
    snprintf(what, sizeof what, "%s: every prefix gives 4 parameters for affine or unknown (%d did not)", label,
             bad_prefix);
    check(bad_prefix == 0, what);
    if (size > 65536) return;
    unsigned char *copy = malloc(size);
    if (!copy) abort();
    for (size_t at = 0; at < size; at++) {
        memcpy(copy, img, size);
        copy[at] ^= 0x5a;
        uint32_t count = 0;
        (void)hcl__kit_cuda_binary_param_count(copy, size, "affine", &count);
    }
    free(copy);
}

int main(int argc, char **argv) {
    static const char *labels[] = {"cubin",
                                   "PTX text",
                                   "fatbin (nothing compressed)",
                                   "fatbin (nvcc default)",
                                   "fatbin (all compressed)",
                                   "fatbin (PTX only)"};
    static const int known[] = {1, 1, 1, 1, 0, 1};
    if (argc != 7) {
        fprintf(stderr, "usage: %s <cubin> <ptx> <fatbin-plain> <fatbin-default> <fatbin-compressed> <fatbin-ptx>\n",
                argv[0]);
        return 2;
    }
    for (int i = 0; i < 6; i++) {
        size_t size = 0;
        unsigned char *img = test_read_file(argv[i + 1], &size);
        if (!img) {
            fprintf(stderr, "FAIL: cannot read %s\n", argv[i + 1]);
            return 1;
        }
        check_image(labels[i], img, size, known[i]);
        check_damage(labels[i], img, size);
        free(img);
    }
    uint32_t count = 0;
    check(!hcl__kit_cuda_binary_param_count(NULL, 0, "affine", &count), "a NULL image is unknown");
    check(!hcl__kit_cuda_binary_param_count("", 0, "affine", &count), "an empty image is unknown");
    return test_check_report("cuda-binary-params");
}
