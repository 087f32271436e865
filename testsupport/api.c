/* Checks through HCL's public API for the plain-C driver tests (see hcl_testsupport.h). The only part of the library
 * that calls HCL: a program that uses none of it (the Level Zero round trip) does not need libhcl. */
#include "hcl_testsupport.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hcl_buffer hcl_ts_buffer(hcl_device dev, size_t bytes) {
    hcl_buffer b = NULL;
    HCL_TS_OK(hcl_buffer_create(dev, bytes, 0, &b));
    return b;
}

void hcl_ts_check_fills(hcl_queue q, hcl_buffer b, size_t bytes) {
    unsigned char *init = malloc(bytes), *got = malloc(bytes);
    if (!HCL_TS_CHECK(init && got && bytes >= 14 * 128, "hcl_ts_check_fills: %zu bytes", bytes)) goto cleanup;
    memset(init, 0xee, bytes);
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        unsigned char pattern[128];
        for (size_t i = 0; i < ps; i++) pattern[i] = (unsigned char)(i * 7 + ps + 1);
        HCL_TS_OK(hcl_buffer_write(q, b, 0, bytes, init));
        HCL_TS_OK(hcl_buffer_fill(q, b, ps, 13 * ps, pattern, ps));
        HCL_TS_OK(hcl_buffer_read(q, b, 0, bytes, got));
        size_t bad = 0;
        for (size_t j = 0; j < bytes; j++) bad += got[j] != ((j >= ps && j < 14 * ps) ? pattern[(j - ps) % ps] : 0xee);
        HCL_TS_CHECK(bad == 0, "fill with a %zu-byte pattern: %zu wrong bytes", ps, bad);
    }
cleanup:
    free(init);
    free(got);
}

bool hcl_ts_check_affine(hcl_device dev, hcl_queue q, hcl_module mod, const char *from) {
    hcl_kernel k = NULL;
    HCL_TS_OK(hcl_kernel_create(mod, "affine", &k));
    if (!k) return false;
    unsigned int n = 1000;
    float a = 0.5f;
    double b = 3.0;
    hcl_buffer out = hcl_ts_buffer(dev, n * sizeof(float));
    float *got = calloc(n, sizeof(float));
    hcl_arg args[4] = {hcl_arg_buffer(out), hcl_arg_value(&a, sizeof a), hcl_arg_value(&b, sizeof b),
                       hcl_arg_value(&n, sizeof n)};
    HCL_TS_OK(hcl_kernel_launch(q, k, (hcl_dim3){4, 1, 1}, (hcl_dim3){256, 1, 1}, 0, 4, args, 0, NULL, NULL));
    HCL_TS_OK(hcl_buffer_read(q, out, 0, n * sizeof(float), got));
    unsigned int bad = 0;
    for (unsigned int i = 0; i < n; i++) bad += !got || got[i] != 0.5f * (float)i + 3.0f;
    bool ok = HCL_TS_CHECK(bad == 0, "affine (%s): %u wrong", from, bad);
    if (out) hcl_buffer_release(out);
    hcl_kernel_release(k);
    free(got);
    return ok;
}

void hcl_ts_status_text(char *buf, size_t size, hcl_status st, const char *fmt, ...) {
    if (size == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    hcl_ts_appendf(buf, size, ": %s: %s", hcl_status_name(st), hcl_last_message());
}

hcl_ts_host_axpy_args hcl_ts_host_axpy(void *const *args) {
    hcl_ts_host_axpy_args a = {*(float *const *)args[0], *(const float *const *)args[1], *(const float *)args[2],
                               *(const uint32_t *)args[3]};
    return a;
}
