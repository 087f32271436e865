/* A reader over a fuzzer's input, shared by the harnesses: each take gives the next bytes, or zeros at the end. */
#ifndef HCL_FUZZ_COMMON_H
#define HCL_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct fuzz_input {
    const uint8_t *data;
    size_t size, at;
} fuzz_input;

static inline uint32_t fuzz_u32(fuzz_input *in, unsigned bytes) {
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; i++) v = v << 8 | (in->at < in->size ? in->data[in->at++] : 0u);
    return v;
}

/* Up to `max` bytes of the input (how many: the next byte), as a pointer into it; *out_size says how many. */
static inline const uint8_t *fuzz_bytes(fuzz_input *in, size_t max, size_t *out_size) {
    size_t n = fuzz_u32(in, 2);
    if (n > max) n = max;
    if (n > in->size - in->at) n = in->size - in->at;
    const uint8_t *p = in->data + in->at;
    in->at += n;
    *out_size = n;
    return p;
}

#endif /* HCL_FUZZ_COMMON_H */
