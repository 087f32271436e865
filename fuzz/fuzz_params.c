/* Fuzz harness: the drivers' kernel parameter readers on fuzzed module text and bytes (issue 14: module sources as a
 * careless or hostile user hands them over): CUDA/HIP source signatures and PTX entries (drivers/common/params.c) and
 * SPIR-V entry points (drivers/levelzero/spirv_params.c), compiled in.
 *
 * The first byte picks the reader and the kernel name looked for; the rest is the text or the bytes, not
 * NUL-terminated (the readers take a length and must not read past it: ASan says so if they do). A reader that finds
 * the kernel must give a count and, for the parameters it wrote, a kind of the enum and NUL-terminated texts. */
#include "params.h"
#include "spirv_params.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const char *const names[] = {"k", "scale_rev", "scale", ""};
    const unsigned reader = data[0] % 3, which = (data[0] / 3) % 4;
    const char *name = names[which];
    /* the bytes alone, at an address of their own (the readers get what a user passed, anywhere in memory) */
    char *text = malloc(size - 1 ? size - 1 : 1);
    if (!text) return 0;
    memcpy(text, data + 1, size - 1);
    enum { MAX = 8 };
    hcl_driver_param out[MAX];
    memset(out, 0xA5, sizeof out); /* poisoned: what a reader leaves unwritten must not be read as written */
    uint32_t count = UINT32_MAX;
    int found = reader == 0   ? hcl__kit_cuda_params(text, size - 1, name, out, MAX, &count)
                : reader == 1 ? hcl__kit_ptx_params(text, size - 1, name, out, MAX, &count)
                              : hcl__ze_spirv_params(text, size - 1, name, out, MAX, &count);
    if (found) {
        if (count == UINT32_MAX) abort(); /* found, but no count */
        for (uint32_t i = 0; i < count && i < MAX; i++) {
            if ((unsigned)out[i].kind > (unsigned)HCL_DRIVER_PARAM_LOCAL) abort();
            if (!memchr(out[i].name, 0, sizeof out[i].name) || !memchr(out[i].type, 0, sizeof out[i].type)) abort();
        }
    }
    free(text);
    return 0;
}
