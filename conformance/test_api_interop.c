/* Host memory for fast transfers (hcl_host_alloc / hcl_host_free) and the native objects behind handles. */
#include "common.h"

#include <stdlib.h>
#include <string.h>

/* Asynchronous round trip through host memory from hcl_host_alloc, at awkward sizes and offsets. */
CONF_TEST(api, host_memory_round_trip) {
    static const size_t sizes[] = {1, 3, 4096, 65537, (size_t)1 << 22};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        unsigned char *src = NULL, *dst = NULL;
        REQUIRE_OK(hcl_host_alloc(conf_dev, n, (void **)&src));
        if (!CHECK_ST(HCL_SUCCESS, hcl_host_alloc(conf_dev, n, (void **)&dst))) {
            CHECK_ST(HCL_SUCCESS, hcl_host_free(conf_dev, src));
            return;
        }
        CHECK(((uintptr_t)src & 63) == 0 && ((uintptr_t)dst & 63) == 0, "hcl_host_alloc memory is not 64-byte aligned");
        for (size_t k = 0; k < n; k++) src[k] = (unsigned char)(conf_rand_u64() >> 56);
        memset(dst, 0xee, n);
        hcl_buffer b = conf_buffer(n + 8);
        hcl_event w = NULL, r = NULL;
        if (b && CHECK_ST(HCL_SUCCESS, hcl_buffer_write_async(conf_queue, b, 8, n, src, 0, NULL, &w))) {
            conf_track_event(w);
            if (CHECK_ST(HCL_SUCCESS, hcl_buffer_read_async(conf_queue, b, 8, n, dst, 1, &w, &r))) {
                conf_track_event(r);
                CHECK_ST(HCL_SUCCESS, hcl_event_wait(r));
                CHECK(memcmp(src, dst, n) == 0, "round trip of %zu bytes through host memory changed the data", n);
            }
        }
        CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
        CHECK_ST(HCL_SUCCESS, hcl_host_free(conf_dev, src));
        CHECK_ST(HCL_SUCCESS, hcl_host_free(conf_dev, dst));
        if (b) conf_release_buffer(b);
    }
}

CONF_TEST(api, host_memory_errors) {
    void *p = (void *)&p;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_host_alloc(conf_dev, 0, &p));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_host_alloc(conf_dev, 16, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_host_alloc(NULL, 16, &p));
    CHECK_ST(HCL_ERROR_OUT_OF_MEMORY, hcl_host_alloc(conf_dev, SIZE_MAX, &p));
    CHECK_ST(HCL_SUCCESS, hcl_host_free(conf_dev, NULL));
    void *foreign = malloc(64);
    REQUIRE(foreign != NULL, "malloc");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_host_free(conf_dev, foreign));
    free(foreign);
    void *mine = NULL;
    REQUIRE_OK(hcl_host_alloc(conf_dev, 100, &mine));
    /* memory of one opened device is not another's to free */
    hcl_device other = conf_open_again();
    if (other) CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_host_free(other, mine));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_host_free(NULL, mine));
    CHECK_ST(HCL_SUCCESS, hcl_host_free(conf_dev, mine));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_host_free(conf_dev, mine)); /* freed already */
}

/* Host memory belongs to its device, not to a queue: it stays valid after the queue that used it is gone. */
CONF_TEST(api, host_memory_outlives_queue) {
    hcl_device d2 = NULL;
    REQUIRE_OK(hcl_device_open(conf_selector, &d2));
    void *mem = NULL;
    hcl_queue q = NULL;
    if (CHECK_ST(HCL_SUCCESS, hcl_host_alloc(d2, 4096, &mem)) && CHECK_ST(HCL_SUCCESS, hcl_queue_create(d2, &q))) {
        memset(mem, 1, 4096);
        CHECK_ST(HCL_SUCCESS, hcl_queue_release(q));
    }
    if (mem) CHECK_ST(HCL_SUCCESS, hcl_host_free(d2, mem));
    CHECK_ST(HCL_SUCCESS, hcl_device_release(d2));
}

CONF_TEST(api, native_objects) {
    void *nat = NULL;
    hcl_buffer b = conf_buffer(256);
    REQUIRE(b != NULL, "buffer");
    /* Every backend has a native buffer object. */
    if (CHECK_ST(HCL_SUCCESS, hcl_buffer_get_native(b, &nat))) CHECK(nat != NULL, "native buffer is NULL");
    bool is_host = conf_backend_is("host");
    hcl_status want = is_host ? HCL_ERROR_UNSUPPORTED : HCL_SUCCESS;
    nat = NULL;
    if (CHECK_ST(want, hcl_device_get_native(conf_dev, &nat)) && !is_host) CHECK(nat != NULL, "native device is NULL");
    nat = NULL;
    if (CHECK_ST(want, hcl_queue_get_native(conf_queue, &nat)) && !is_host) CHECK(nat != NULL, "native queue is NULL");
    if (is_host) {
        /* On host the native buffer is its data: a write must show through it. */
        float v[4] = {1.5f, -2.0f, 3.25f, 0.0f};
        void *data = NULL;
        if (conf_write(b, 16, v, sizeof v) && CHECK_ST(HCL_SUCCESS, hcl_buffer_get_native(b, &data)))
            CHECK(memcmp((char *)data + 16, v, sizeof v) == 0, "host native pointer does not hold the buffer's data");
    }
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_get_native(b, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_device_get_native(conf_dev, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_queue_get_native(conf_queue, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_get_native(NULL, &nat));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_get_native(NULL, &nat));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_get_native((hcl_queue)b, &nat));
    hcl_buffer gone = NULL;
    REQUIRE_OK(hcl_buffer_create(conf_dev, 64, 0, &gone));
    REQUIRE_OK(hcl_buffer_release(gone));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_get_native(gone, &nat));
}
