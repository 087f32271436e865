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

/* The memory of hcl_buffer `b`, wrapped again as a buffer of its own (the way an application hands HCL memory it
 * allocated through the vendor's API); NULL after a failure. */
static hcl_buffer wrap_native_of(hcl_buffer b, size_t offset, size_t size) {
    void *nat = NULL;
    hcl_buffer w = NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_get_native(b, &nat))) return NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_wrap_native(conf_dev, (char *)nat + offset, size, 0, &w))) return NULL;
    return w;
}

/* hcl_buffer_wrap_native: a buffer over memory HCL did not allocate for it is used like any other (transfers, a
 * built-in), gives its pointer back, and its release leaves the memory allocated and as it was. */
CONF_TEST(api, buffer_wrap_native) {
    enum { N = 1000 };
    const size_t bytes = N * sizeof(float);
    if (conf_backend_is("opencl") || conf_backend_is("vulkan")) { /* a cl_mem or VkBuffer is not made from an address */
        hcl_buffer b = conf_buffer(bytes), w = NULL;
        void *nat = NULL;
        if (b && CHECK_ST(HCL_SUCCESS, hcl_buffer_get_native(b, &nat)))
            CHECK_ST(HCL_ERROR_UNSUPPORTED, hcl_buffer_wrap_native(conf_dev, nat, bytes, 0, &w));
        return;
    }
    hcl_buffer a = conf_buffer(bytes), b = conf_buffer(bytes), c = conf_buffer(bytes);
    REQUIRE(a && b && c, "buffers");
    float *x = conf_floats(N), *y = conf_floats(N), *z = conf_floats(N);
    conf_fill_uniform(x, N, -1.0f, 1.0f);
    conf_fill_uniform(y, N, -1.0f, 1.0f);
    REQUIRE(conf_write(b, 0, y, bytes), "write b");
    REQUIRE(conf_poison_buffer(c, 0, bytes), "poison c");
    hcl_buffer wa = wrap_native_of(a, 0, bytes), wb = wrap_native_of(b, 0, bytes), wc = wrap_native_of(c, 0, bytes);
    if (wa && wb && wc) {
        void *back = NULL, *nat = NULL;
        size_t size = 0;
        CHECK_ST(HCL_SUCCESS, hcl_buffer_size(wa, &size));
        CHECK(size == bytes, "wrapped buffer's size %zu, want %zu", size, bytes);
        if (CHECK_ST(HCL_SUCCESS, hcl_buffer_get_native(wa, &back)) &&
            CHECK_ST(HCL_SUCCESS, hcl_buffer_get_native(a, &nat)))
            CHECK(back == nat, "hcl_buffer_get_native of a wrapped buffer gives %p, not the wrapped %p", back, nat);
        /* written through the wrapper, seen through the buffer that owns the memory, and the other way round */
        if (conf_write(wa, 0, x, bytes) && conf_read(a, 0, z, bytes))
            CHECK(memcmp(x, z, bytes) == 0, "a write through the wrapped buffer is not in the memory");
        if (CHECK_ST(HCL_SUCCESS, hcl_vecadd_f32(conf_queue, N, wa, wb, wc, NULL)) && conf_read(c, 0, z, bytes)) {
            size_t bad = 0;
            for (size_t i = 0; i < N; i++) bad += z[i] != x[i] + y[i];
            CHECK(bad == 0, "vecadd on wrapped buffers: %zu of %d elements wrong", bad, N);
        }
    }
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
    if (wa) CHECK_ST(HCL_SUCCESS, hcl_buffer_release(wa));
    if (wb) CHECK_ST(HCL_SUCCESS, hcl_buffer_release(wb));
    if (wc) CHECK_ST(HCL_SUCCESS, hcl_buffer_release(wc));
    /* the memory outlives its wrappers, unchanged (a free of it would show here, or as a double free below) */
    memset(z, 0, bytes);
    if (conf_read(a, 0, z, bytes)) CHECK(memcmp(x, z, bytes) == 0, "releasing the wrapper changed the memory");
    if (conf_write(a, 0, y, bytes) && conf_read(a, 0, z, bytes))
        CHECK(memcmp(y, z, bytes) == 0, "the memory is not usable after its wrapper's release");

    /* a part of an allocation: from an offset to its end */
    hcl_buffer part = wrap_native_of(a, 256, bytes - 256);
    if (part) {
        if (conf_write(part, 0, x, 64) && conf_read(a, 256, z, 64))
            CHECK(memcmp(x, z, 64) == 0, "a write through a wrapped part is not at its offset");
        CHECK_ST(HCL_SUCCESS, hcl_buffer_release(part));
    }
}

/* On the host backend the memory is the application's own: what HCL writes is in it, and it is the application's to
 * free after the release. */
CONF_TEST(api, buffer_wrap_native_host) {
    if (!conf_backend_is("host")) return;
    enum { N = 513 };
    float *mem = malloc(3 * N * sizeof(float)), *z = conf_floats(N);
    REQUIRE(mem != NULL, "malloc");
    conf_fill_uniform(mem, 2 * N, -1.0f, 1.0f);
    hcl_buffer w = NULL;
    if (CHECK_ST(HCL_SUCCESS, hcl_buffer_wrap_native(conf_dev, mem, 3 * N * sizeof(float), 0, &w))) {
        memcpy(z, mem, N * sizeof(float));
        if (CHECK_ST(HCL_SUCCESS, hcl_vecadd_f32(conf_queue, N, w, w, w, NULL)) &&
            CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue))) {
            size_t bad = 0;
            for (size_t i = 0; i < N; i++) bad += mem[i] != z[i] + z[i];
            CHECK(bad == 0, "vecadd in place on wrapped host memory: %zu of %d elements wrong", bad, N);
        }
        float v = 2.5f;
        if (conf_write(w, (2 * N + 3) * sizeof(float), &v, sizeof v)) CHECK(mem[2 * N + 3] == 2.5f, "write not seen");
        memcpy(z, mem, N * sizeof(float));
        CHECK_ST(HCL_SUCCESS, hcl_buffer_release(w));
        CHECK(memcmp(z, mem, N * sizeof(float)) == 0, "the release changed the memory");
    }
    free(mem); /* a second free, had the release freed it, fails here under ASan */
}

/* Bad input: each refused with its status before a driver sees it; memory the runtime can tell is not the device's,
 * or shorter than asked, refused by the driver. */
CONF_TEST(api, buffer_wrap_native_errors) {
    static float mem[64];
    hcl_buffer w = (hcl_buffer)(uintptr_t)1;
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_wrap_native(NULL, mem, sizeof mem, 0, &w));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_wrap_native((hcl_device)conf_queue, mem, sizeof mem, 0, &w));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_wrap_native(conf_dev, NULL, sizeof mem, 0, &w));
    CHECK_MSG_HAS("native is NULL");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_wrap_native(conf_dev, mem, 0, 0, &w));
    CHECK_MSG_HAS("size is 0");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_wrap_native(conf_dev, mem, sizeof mem, 1, &w));
    CHECK_MSG_HAS("flags");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_wrap_native(conf_dev, mem, sizeof mem, 0, NULL));
    CHECK(w == (hcl_buffer)(uintptr_t)1, "a refused wrap wrote *out_buffer");
    if (conf_backend_is("cuda") || conf_backend_is("levelzero") || conf_backend_is("hip")) {
        /* past the end of an allocation; hip: only where the runtime has hipPointerGetAttribute */
        const size_t bytes = (size_t)2 << 20;
        hcl_buffer b = conf_buffer(bytes);
        void *nat = NULL;
        if (b && CHECK_ST(HCL_SUCCESS, hcl_buffer_get_native(b, &nat))) {
            hcl_status st = hcl_buffer_wrap_native(conf_dev, nat, bytes + 4096, 0, &w);
            if (conf_backend_is("hip") && st == HCL_SUCCESS)
                CHECK_ST(HCL_SUCCESS, hcl_buffer_release(w));
            else
                CHECK(st == HCL_ERROR_INVALID_ARGUMENT, "a wrap past the end of an allocation gave %s, want %s",
                      hcl_status_name(st), hcl_status_name(HCL_ERROR_INVALID_ARGUMENT));
            /* host memory is not device memory */
            st = hcl_buffer_wrap_native(conf_dev, mem, sizeof mem, 0, &w);
            if (conf_backend_is("hip") && st == HCL_SUCCESS)
                CHECK_ST(HCL_SUCCESS, hcl_buffer_release(w));
            else
                CHECK(st == HCL_ERROR_INVALID_ARGUMENT, "a wrap of host memory gave %s, want %s", hcl_status_name(st),
                      hcl_status_name(HCL_ERROR_INVALID_ARGUMENT));
        }
    }
}
