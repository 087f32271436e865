/* API conformance: devices, queues, buffers, transfers and events, on every backend.
 * Each call's documented statuses (hcl.h), and that failing calls write no out-parameter and change no data.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <hcl/hcl_comm.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SENTINEL(type) ((type)(uintptr_t)0x5e5e5e50u)

static void fill_bytes(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)conf_rand_u64();
}

static bool buffer_holds(hcl_buffer b, const uint8_t *want, size_t n, const char *what) {
    uint8_t *got = conf_malloc(n);
    if (!conf_read(b, 0, got, n)) return false;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) return CHECK(false, "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
    return true;
}

CONF_TEST(api, device_info) {
    hcl_device_info *i = &conf_info;
    const char *dev_env = getenv("HCL_DEVICE");
    uint32_t want_index = dev_env && dev_env[0] ? (uint32_t)strtoul(dev_env, NULL, 10) : 0;
    CHECK(strcmp(i->backend, conf_backend_name) == 0, "device info backend \"%s\", opened \"%s\"", i->backend,
          conf_selector);
    CHECK(i->index == want_index, "device info index %u, opened \"%s\"", i->index, conf_selector);
    CHECK(i->name[0] != 0, "device name is empty");
    CHECK(i->type >= HCL_DEVICE_TYPE_CPU && i->type <= HCL_DEVICE_TYPE_OTHER, "device type %d", (int)i->type);
    CHECK(i->compute_units >= 1, "compute_units %u", i->compute_units);
    CHECK(i->global_mem_bytes > 0, "global_mem_bytes 0");
    CHECK(i->max_alloc_bytes > 0 && i->max_alloc_bytes <= i->global_mem_bytes,
          "max_alloc_bytes %llu with global_mem_bytes %llu", (unsigned long long)i->max_alloc_bytes,
          (unsigned long long)i->global_mem_bytes);
    CHECK(i->max_work_group_size >= 1, "max_work_group_size 0");
    CHECK(i->arg_offset_alignment >= 1 && (i->arg_offset_alignment & (i->arg_offset_alignment - 1)) == 0,
          "arg_offset_alignment %llu is not a power of two", (unsigned long long)i->arg_offset_alignment);
    CHECK(i->identity[0] != 0, "identity is empty");
    if (i->has_uuid) {
        char want[40] = "uuid:";
        for (int k = 0; k < 16; k++) snprintf(want + 5 + 2 * k, 3, "%02x", i->uuid[k]);
        CHECK(strcmp(i->identity, want) == 0, "identity \"%s\" should be \"%s\"", i->identity, want);
    } else {
        size_t bl = strlen(i->backend);
        CHECK(strncmp(i->identity, i->backend, bl) == 0 && i->identity[bl] == ':',
              "identity \"%s\" should start with \"%s:\"", i->identity, i->backend);
    }
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_device_get_info(conf_dev, NULL));

    /* The same device in the global list, with the same properties. */
    uint32_t count = 0;
    REQUIRE_OK(hcl_device_count(&count));
    bool found = false;
    for (uint32_t k = 0; k < count && !found; k++) {
        hcl_device_info g;
        if (!CHECK_ST(HCL_SUCCESS, hcl_device_get_info_by_index(k, &g))) continue;
        found = strcmp(g.backend, i->backend) == 0 && g.index == i->index;
        if (found)
            CHECK(strcmp(g.identity, i->identity) == 0 && strcmp(g.name, i->name) == 0 &&
                      g.max_alloc_bytes == i->max_alloc_bytes,
                  "global device %u (%s \"%s\") differs from the opened one (%s \"%s\")", k, g.identity, g.name,
                  i->identity, i->name);
    }
    CHECK(found, "%s:%u is not in the global device list (%u devices)", i->backend, i->index, count);
}

CONF_TEST(api, device_handles) {
    hcl_device_info info;
    hcl_queue q = SENTINEL(hcl_queue);
    hcl_buffer b = SENTINEL(hcl_buffer);
    char src[] = "x";
    hcl_module_source ms = {HCL_SOURCE_OPENCL_C, src, 1, NULL};
    hcl_module m = SENTINEL(hcl_module);

    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_get_info(NULL, &info));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_release(NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_create(NULL, &q));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_create(NULL, 16, 0, &b));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_module_create(NULL, &ms, 1, &m));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_device_open(conf_selector, NULL));

    hcl_device d = NULL;
    REQUIRE_OK(hcl_device_open(conf_selector, &d));
    REQUIRE(d != conf_dev, "a second open returned the same handle");
    REQUIRE_OK(hcl_device_release(d));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_get_info(d, &info));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_create(d, &q));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_create(d, 16, 0, &b));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_module_create(d, &ms, 1, &m));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_release(d));
    CHECK(q == SENTINEL(hcl_queue) && b == SENTINEL(hcl_buffer) && m == SENTINEL(hcl_module),
          "a failing create wrote its out-parameter");

    /* Releasing a device leaves its queues and buffers usable until they go. */
    hcl_device d2 = NULL;
    hcl_queue q2 = NULL;
    hcl_buffer b2 = NULL;
    REQUIRE_OK(hcl_device_open(conf_selector, &d2));
    REQUIRE_OK(hcl_queue_create(d2, &q2));
    REQUIRE_OK(hcl_buffer_create(d2, 256, 0, &b2));
    REQUIRE_OK(hcl_device_release(d2));
    uint8_t data[256], back[256];
    fill_bytes(data, sizeof data);
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(q2, b2, 0, sizeof data, data));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_read(q2, b2, 0, sizeof back, back));
    CHECK(memcmp(data, back, sizeof data) == 0, "round trip through a buffer of a released device");
    CHECK_ST(HCL_SUCCESS, hcl_buffer_release(b2));
    CHECK_ST(HCL_SUCCESS, hcl_queue_release(q2));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_finish(q2));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_release(d2));
}

CONF_TEST(api, queue_handles) {
    hcl_event e = SENTINEL(hcl_event);
    hcl_buffer b = conf_buffer(64);
    REQUIRE(b != NULL, "buffer");
    uint8_t data[64] = {0};
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_queue_create(conf_dev, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_finish(NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_release(NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_marker(NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_queue_marker(conf_queue, NULL));

    hcl_queue q = NULL;
    REQUIRE_OK(hcl_queue_create(conf_dev, &q));
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(q));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(q, b, 0, sizeof data, data));
    REQUIRE_OK(hcl_queue_release(q));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_finish(q));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_marker(q, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write(q, b, 0, sizeof data, data));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_read(q, b, 0, sizeof data, data));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_vecadd_f32(q, 4, b, b, b, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_release(q));
    CHECK(e == SENTINEL(hcl_event), "a failing hcl_queue_marker wrote its out-parameter");
}

CONF_TEST(api, buffer_create) {
    hcl_buffer b = SENTINEL(hcl_buffer);
    uint64_t max = conf_info.max_alloc_bytes;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_create(conf_dev, 0, 0, &b));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_create(conf_dev, 16, 1, &b));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_create(conf_dev, 16, 0x80000000u, &b));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_create(conf_dev, 16, 0, NULL));
    if (max < SIZE_MAX)
        CHECK_ST(HCL_ERROR_OUT_OF_MEMORY, hcl_buffer_create(conf_dev, (size_t)max + 1, 0, &b));
    else
        cr_log_warn("max_alloc_bytes is SIZE_MAX: no size above it to try");
    CHECK_ST(HCL_ERROR_OUT_OF_MEMORY, hcl_buffer_create(conf_dev, SIZE_MAX, 0, &b));
    CHECK(b == SENTINEL(hcl_buffer), "a failing hcl_buffer_create wrote its out-parameter");

    static const size_t sizes[] = {1, 3, 4, 4097, 1u << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        hcl_buffer x = conf_buffer(sizes[i]);
        size_t s = 0;
        if (x && CHECK_ST(HCL_SUCCESS, hcl_buffer_size(x, &s)))
            CHECK(s == sizes[i], "hcl_buffer_size gave %zu for a buffer of %zu bytes", s, sizes[i]);
    }
    size_t s = 12345;
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_size(NULL, &s));
    hcl_buffer x = conf_buffer(8);
    REQUIRE(x != NULL, "buffer");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_size(x, NULL));
    CHECK(s == 12345, "a failing hcl_buffer_size wrote its out-parameter");
}

CONF_TEST(api, released_and_wrong_handles) {
    uint8_t data[64] = {1, 2, 3};
    uint32_t pat = 7;
    size_t s;
    hcl_buffer live = conf_buffer(64);
    REQUIRE(live != NULL, "buffer");
    hcl_buffer dead = conf_dead_buffer(64);
    REQUIRE(dead != NULL, "a released buffer");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_size(dead, &s));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write(conf_queue, dead, 0, 4, data));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_read(conf_queue, dead, 0, 4, data));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_fill(conf_queue, dead, 0, 4, &pat, 4));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_copy(conf_queue, dead, 0, live, 0, 4));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_copy(conf_queue, live, 0, dead, 0, 4));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_release(dead));

    /* A released handle stays invalid when its slot is reused by later objects. */
    hcl_buffer old = NULL;
    REQUIRE_OK(hcl_buffer_create(conf_dev, 32, 0, &old));
    REQUIRE_OK(hcl_buffer_release(old));
    for (int i = 0; i < 8; i++) {
        hcl_buffer fresh = conf_buffer(32 + (size_t)i);
        REQUIRE(fresh != NULL, "buffer");
        CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_size(old, &s));
        CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write(conf_queue, old, 0, 4, data));
        if (CHECK_ST(HCL_SUCCESS, hcl_buffer_size(fresh, &s)))
            CHECK(s == 32 + (size_t)i, "a fresh buffer reports size %zu, not %d", s, 32 + i);
    }

    /* Handles of one type passed as another. */
    hcl_device_info info;
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_size((hcl_buffer)conf_queue, &s));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_finish((hcl_queue)live));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_get_info((hcl_device)live, &info));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_wait((hcl_event)live));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_release((hcl_buffer)conf_queue));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_queue_release((hcl_queue)conf_dev));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write((hcl_queue)live, live, 0, 4, data));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write(conf_queue, (hcl_buffer)conf_queue, 0, 4, data));
    /* the message names the type the call wanted, communicators included */
    hcl_comm_info comm_info;
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_comm_get_info((hcl_comm)live, &comm_info));
    CHECK_MSG_HAS("is not a live comm handle");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_comm_release((hcl_comm)conf_queue));
    CHECK_MSG_HAS("is not a live comm handle");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_wait((hcl_event)live));
    CHECK_MSG_HAS("is not a live event handle");
    /* ...and they still work as what they are. */
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(conf_queue, live, 0, sizeof data, data));
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
    CHECK(buffer_holds(live, data, sizeof data, "buffer after wrong-type calls"), "contents");
}

CONF_TEST(api, transfer_ranges) {
    enum { SZ = 100 };
    uint8_t orig[SZ], tmp[SZ];
    fill_bytes(orig, SZ);
    hcl_buffer b = conf_buffer(SZ);
    REQUIRE(b && conf_write(b, 0, orig, SZ), "buffer");
    hcl_queue q = conf_queue;
    hcl_event e = SENTINEL(hcl_event);

    CHECK_ST(HCL_SUCCESS, hcl_buffer_read(q, b, 96, 4, tmp));
    CHECK(memcmp(tmp, orig + 96, 4) == 0, "read at offset 96");
    static const size_t bad[][2] = {{96, 5},           {100, 1},           {0, 101},
                                    {SIZE_MAX, 1},     {1, SIZE_MAX},      {SIZE_MAX, SIZE_MAX},
                                    {SIZE_MAX - 2, 4}, {64, SIZE_MAX - 63}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t off = bad[i][0], size = bad[i][1];
        /* The host pointer is never used: the range check must come first. */
        CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_write(q, b, off, size, tmp));
        CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_read(q, b, off, size, tmp));
        CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_write_async(q, b, off, size, tmp, 0, NULL, &e));
        CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_read_async(q, b, off, size, tmp, 0, NULL, &e));
    }
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_write(q, b, 0, 4, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_read(q, b, 0, 4, NULL));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_write_async(q, b, 0, 4, NULL, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_read_async(q, b, 0, 4, NULL, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write(NULL, b, 0, 4, tmp));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_read(NULL, b, 0, 4, tmp));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write(q, NULL, 0, 4, tmp));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_read(q, NULL, 0, 4, tmp));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write_async(NULL, b, 0, 4, tmp, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_read_async(NULL, b, 0, 4, tmp, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write_async(q, NULL, 0, 4, tmp, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_read_async(q, NULL, 0, 4, tmp, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_copy_async(NULL, b, 0, b, 50, 4, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_fill_async(NULL, b, 0, 4, tmp, 4, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_release(NULL));
    CHECK(e == SENTINEL(hcl_event), "a failing async transfer wrote its out_event");
    CHECK(buffer_holds(b, orig, SZ, "buffer after failing transfers"), "contents");
}

CONF_TEST(api, copy_ranges_and_overlap) {
    enum { SZ = 100 };
    uint8_t img[SZ], img2[64];
    fill_bytes(img, SZ);
    fill_bytes(img2, 64);
    hcl_buffer b = conf_buffer(SZ), c = conf_buffer(64);
    REQUIRE(b && c && conf_write(b, 0, img, SZ) && conf_write(c, 0, img2, 64), "buffers");
    hcl_queue q = conf_queue;
    hcl_event e = SENTINEL(hcl_event);

    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(q, c, 1, b, 0, 64));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(q, c, 0, b, 37, 64));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(q, c, SIZE_MAX, b, 0, 1));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(q, c, 0, b, SIZE_MAX, 1));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(q, c, 0, b, 0, SIZE_MAX));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(q, c, 8, b, 8, SIZE_MAX - 7));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy_async(q, c, 0, b, 37, 64, 0, NULL, &e));
    /* Overlapping ranges of one buffer. */
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_copy(q, b, 32, b, 0, 64));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_copy(q, b, 0, b, 32, 64));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_copy(q, b, 10, b, 10, 16));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_copy(q, b, 15, b, 0, 16));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_copy_async(q, b, 1, b, 0, 2, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_copy(NULL, c, 0, b, 0, 4));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_copy(q, NULL, 0, b, 0, 4));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_copy(q, c, 0, NULL, 0, 4));
    CHECK(e == SENTINEL(hcl_event), "a failing async copy wrote its out_event");
    CHECK(buffer_holds(b, img, SZ, "source after failing copies"), "contents");
    CHECK(buffer_holds(c, img2, 64, "destination after failing copies"), "contents");

    /* Adjacent, non-overlapping ranges of one buffer, and copies between buffers. */
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(q, b, 16, b, 0, 16));
    memmove(img + 16, img, 16);
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(q, b, 0, b, 99, 1));
    img[0] = img[99];
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(q, c, 0, b, 36, 64));
    memcpy(img2, img + 36, 64);
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(q, b, 3, c, 50, 13));
    memcpy(img + 3, img2 + 50, 13);
    CHECK(buffer_holds(b, img, SZ, "buffer after valid copies"), "contents");
    CHECK(buffer_holds(c, img2, 64, "second buffer after valid copies"), "contents");
}

CONF_TEST(api, fill_errors) {
    enum { SZ = 256 };
    uint8_t img[SZ], pat[256];
    fill_bytes(img, SZ);
    fill_bytes(pat, sizeof pat);
    hcl_buffer b = conf_buffer(SZ);
    REQUIRE(b && conf_write(b, 0, img, SZ), "buffer");
    hcl_queue q = conf_queue;
    hcl_event e = SENTINEL(hcl_event);

    static const size_t bad_sizes[] = {0, 3, 5, 6, 12, 24, 48, 96, 256};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++)
        CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_fill(q, b, 0, 96, pat, bad_sizes[i]));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_fill(q, b, 2, 8, pat, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_fill(q, b, 0, 6, pat, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_fill(q, b, 64, 64, pat, 128));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_fill(q, b, 8, 8, NULL, 4));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_fill_async(q, b, 0, 6, pat, 4, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_fill(q, b, 256, 4, pat, 4));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_fill(q, b, 252, 8, pat, 4));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_fill(q, b, 128, 256, pat, 128));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_fill(q, b, SIZE_MAX - 3, 4, pat, 4));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_fill(q, b, 4, SIZE_MAX - 3, pat, 4));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_fill_async(q, b, 256, 4, pat, 4, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_fill(NULL, b, 0, 4, pat, 4));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_fill(q, NULL, 0, 4, pat, 4));
    CHECK(e == SENTINEL(hcl_event), "a failing async fill wrote its out_event");
    CHECK(buffer_holds(b, img, SZ, "buffer after failing fills"), "contents");
}

CONF_TEST(api, write_read_offsets) {
    enum { SZ = 4099 };
    uint8_t *img = conf_malloc(SZ), *chunk = conf_malloc(SZ), *back = conf_malloc(SZ);
    fill_bytes(img, SZ);
    hcl_buffer b = conf_buffer(SZ);
    REQUIRE(b && conf_write(b, 0, img, SZ), "buffer");
    static const size_t parts[][2] = {{1, 10}, {4095, 4}, {0, 1}, {2048, 1000}, {4098, 1}, {3, 4093}, {17, 0}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t off = parts[i][0], size = parts[i][1];
        fill_bytes(chunk, size);
        if (!conf_write(b, off, chunk, size)) continue;
        memcpy(img + off, chunk, size);
        memset(back, 0, SZ);
        if (conf_read(b, off, back, size))
            CHECK(memcmp(back, img + off, size) == 0, "read of %zu bytes at offset %zu", size, off);
    }
    for (size_t off = 0; off < 64; off += 7)
        if (conf_read(b, off, back, SZ - off))
            CHECK(memcmp(back, img + off, SZ - off) == 0, "read of the tail from offset %zu", off);
    CHECK(buffer_holds(b, img, SZ, "buffer after partial writes"), "contents");
}

CONF_TEST(api, fill_patterns) {
    enum { SZ = 2048 };
    uint8_t *want = conf_malloc(SZ);
    hcl_buffer b = conf_buffer(SZ);
    REQUIRE(b != NULL, "buffer");
    for (size_t ps = 1; ps <= 128; ps *= 2) {
        uint8_t pat[128], zero = 0;
        for (size_t i = 0; i < ps; i++) pat[i] = (uint8_t)(ps * 3 + i * 7 + 1);
        if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_fill(conf_queue, b, 0, SZ, &zero, 1))) continue;
        size_t off = 2 * ps, size = 5 * ps;
        memset(want, 0, SZ);
        for (size_t i = 0; i < size; i++) want[off + i] = pat[i % ps];
        if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_fill(conf_queue, b, off, size, pat, ps))) continue;
        CHECK_ST(HCL_SUCCESS, hcl_buffer_fill(conf_queue, b, SZ - ps, 0, pat, ps)); /* size 0: nothing */
        char what[64];
        snprintf(what, sizeof what, "fill with a %zu-byte pattern", ps);
        buffer_holds(b, want, SZ, what);
    }
    /* A whole buffer with the largest pattern, asynchronously. */
    uint8_t pat[128];
    fill_bytes(pat, sizeof pat);
    for (size_t i = 0; i < SZ; i++) want[i] = pat[i % 128];
    hcl_event e = NULL;
    REQUIRE_OK(hcl_buffer_fill_async(conf_queue, b, 0, SZ, pat, 128, 0, NULL, &e));
    conf_track_event(e);
    CHECK_ST(HCL_SUCCESS, hcl_event_wait(e));
    buffer_holds(b, want, SZ, "asynchronous fill with a 128-byte pattern");
}

/* A chain of asynchronous commands over two queues of one device, ordered by events only. */
CONF_TEST(api, async_chain) {
    enum { SZ = 1 << 16 };
    uint8_t *src = conf_malloc(SZ), *dst = conf_malloc(SZ), *want = conf_malloc(SZ);
    fill_bytes(src, SZ);
    hcl_queue q2 = conf_queue_on(conf_dev);
    hcl_buffer b1 = conf_buffer(SZ), b2 = conf_buffer(SZ);
    REQUIRE(q2 && b1 && b2, "objects");
    uint32_t pat = 0xa5c3e1f7u;
    hcl_event e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL, m = NULL;
    REQUIRE_OK(hcl_buffer_write_async(conf_queue, b1, 0, SZ, src, 0, NULL, &e1));
    conf_track_event(e1);
    REQUIRE_OK(hcl_buffer_fill_async(q2, b1, 1024, 1024, &pat, 4, 1, &e1, &e2));
    conf_track_event(e2);
    REQUIRE_OK(hcl_buffer_copy_async(conf_queue, b2, 0, b1, 0, SZ, 1, &e2, &e3));
    conf_track_event(e3);
    hcl_event both[2] = {e3, e1};
    REQUIRE_OK(hcl_buffer_read_async(q2, b2, 0, SZ, dst, 2, both, &e4));
    conf_track_event(e4);
    REQUIRE_OK(hcl_event_wait(e4));
    memcpy(want, src, SZ);
    for (size_t i = 1024; i < 2048; i += 4) memcpy(want + i, &pat, 4);
    CHECK(memcmp(dst, want, SZ) == 0, "the chain write -> fill -> copy -> read gave wrong data");

    double s = -1;
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(e1, e1, &s))) CHECK(s >= 0 && isfinite(s), "elapsed(e1, e1) = %g", s);
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(e1, e3, &s))) CHECK(s >= 0 && isfinite(s), "elapsed(e1, e3) = %g", s);
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(e1, e4, &s))) CHECK(s >= 0 && isfinite(s), "elapsed(e1, e4) = %g", s);
    REQUIRE_OK(hcl_queue_marker(conf_queue, &m));
    conf_track_event(m);
    CHECK_ST(HCL_SUCCESS, hcl_event_wait(m));
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(m, m, &s)))
        CHECK(s == 0.0, "a marker's start and end are one instant, but elapsed(m, m) = %g", s);
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(e1, m, &s)))
        CHECK(s >= 0 && isfinite(s), "elapsed(e1, marker) = %g", s);

    /* In order without events: a later blocking read sees every earlier asynchronous command. */
    uint32_t pats[4]; /* host memory of async calls stays valid until they complete */
    for (int i = 0; i < 4; i++) {
        pats[i] = 0x01010101u * (uint32_t)(i + 1);
        CHECK_ST(HCL_SUCCESS,
                 hcl_buffer_fill_async(conf_queue, b1, (size_t)i * 4096, 4096, &pats[i], 4, 0, NULL, NULL));
        for (size_t k = 0; k < 4096; k++) want[(size_t)i * 4096 + k] = (uint8_t)(i + 1);
    }
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write_async(conf_queue, b1, 16384, SZ - 16384, src + 16384, 0, NULL, NULL));
    memcpy(want + 16384, src + 16384, SZ - 16384);
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy_async(conf_queue, b2, 0, b1, 0, SZ, 0, NULL, NULL));
    memset(dst, 0, SZ);
    CHECK_ST(HCL_SUCCESS, hcl_buffer_read(conf_queue, b2, 0, SZ, dst));
    CHECK(memcmp(dst, want, SZ) == 0, "asynchronous commands without events ran out of order");
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(q2));
}

/* A blocking form is complete when it returns: another queue of the device sees its result at once, also when its
 * own queue had a large fill queued before it. (OpenCL's blocking write promises only that the host memory may be
 * reused; Intel's CPU runtime returns from a write of less than 1 KiB before the bytes land, which the fill ahead of
 * it makes certain: 20 of 20 reads saw the old bytes there with the fill, about 1 in 20 without.) */
CONF_TEST(api, blocking_forms_complete) {
    enum { SZ = 256, ROUNDS = 3 };
    const size_t busy_bytes = (size_t)64 << 20;
    hcl_queue q2 = conf_queue_on(conf_dev);
    hcl_buffer b = conf_buffer(SZ), c = conf_buffer(SZ), busy = conf_buffer(busy_bytes);
    REQUIRE(q2 && b && c && busy, "objects");
    uint8_t *src = conf_malloc(SZ), *back = conf_malloc(SZ), *want = conf_malloc(SZ);
    for (uint32_t r = 0; r < ROUNDS; r++) {
        const uint32_t pat = 0x01020304u * (r + 1);
        fill_bytes(src, SZ);
        CHECK_ST(HCL_SUCCESS, hcl_buffer_fill_async(conf_queue, busy, 0, busy_bytes, &r, 4, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_buffer_write(conf_queue, b, 0, SZ, src));
        if (CHECK_ST(HCL_SUCCESS, hcl_buffer_read(q2, b, 0, SZ, back)))
            CHECK(memcmp(back, src, SZ) == 0, "round %u: a blocking write was not complete for another queue", r);
        CHECK_ST(HCL_SUCCESS, hcl_buffer_fill_async(conf_queue, busy, 0, busy_bytes, &r, 4, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_buffer_fill(conf_queue, c, 0, SZ, &pat, 4));
        for (size_t i = 0; i < SZ; i += 4) memcpy(want + i, &pat, 4);
        if (CHECK_ST(HCL_SUCCESS, hcl_buffer_read(q2, c, 0, SZ, back)))
            CHECK(memcmp(back, want, SZ) == 0, "round %u: a blocking fill was not complete for another queue", r);
        CHECK_ST(HCL_SUCCESS, hcl_buffer_fill_async(conf_queue, busy, 0, busy_bytes, &r, 4, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(conf_queue, c, 0, b, 0, SZ));
        if (CHECK_ST(HCL_SUCCESS, hcl_buffer_read(q2, c, 0, SZ, back)))
            CHECK(memcmp(back, src, SZ) == 0, "round %u: a blocking copy was not complete for another queue", r);
    }
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
}

/* Seconds of CLOCK_MONOTONIC. */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A command queued behind a busy one runs when the device is free, while the host makes no HCL call (a driver that
 * gathers commands into one submission, as Vulkan's does, must still send it unasked: CPU and GPU overlap). A long
 * fill (a) and one behind it (b), then the host sleeps, calling nothing, for several times what the pair takes (timed
 * first): the device time from a's start to b's end must be well within the sleep, which it is not when b waits for
 * the next call to be submitted. */
CONF_TEST(api, queue_runs_without_calls) {
    const char *idle = getenv("HCL_VULKAN_BATCH_IDLE");
    if (conf_backend_is("vulkan") && idle && strcmp(idle, "0") == 0)
        cr_skip_test("HCL_VULKAN_BATCH_IDLE=0: the Vulkan driver holds commands until a call observes them, as asked");
    const size_t big = (size_t)64 << 20, small = (size_t)16 << 20;
    hcl_buffer busy = conf_buffer(big), other = conf_buffer(small);
    REQUIRE(busy && other, "buffers");
    const uint32_t pat = 0x5a5a0f0fu;
    hcl_event a = NULL, b = NULL;
    const double t0 = now_s();
    REQUIRE_OK(hcl_buffer_fill_async(conf_queue, busy, 0, big, &pat, 4, 0, NULL, &a));
    conf_track_event(a);
    REQUIRE_OK(hcl_buffer_fill_async(conf_queue, other, 0, small, &pat, 4, 0, NULL, &b));
    conf_track_event(b);
    REQUIRE_OK(hcl_event_wait(b));
    const double pair = now_s() - t0, sleep_s = 4 * pair + 0.25;

    hcl_event a2 = NULL, b2 = NULL;
    REQUIRE_OK(hcl_buffer_fill_async(conf_queue, busy, 0, big, &pat, 4, 0, NULL, &a2));
    conf_track_event(a2);
    REQUIRE_OK(hcl_buffer_fill_async(conf_queue, other, 0, small, &pat, 4, 0, NULL, &b2));
    conf_track_event(b2);
    const struct timespec pause = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
    nanosleep(&pause, NULL); /* no HCL call meanwhile */
    double s = -1;
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(a2, b2, &s)))
        CHECK(s >= 0 && s < sleep_s / 2,
              "the second command ran %.3f s after the first began, though the host slept %.3f s without an HCL call "
              "(the pair took %.3f s when waited for): it waited for a call to submit it",
              s, sleep_s, pair);
}

CONF_TEST(api, zero_size_transfers) {
    hcl_buffer b = conf_buffer(16), c = conf_buffer(16);
    REQUIRE(b && c, "buffers");
    uint32_t pat = 1;
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(conf_queue, b, 0, 0, NULL));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_read(conf_queue, b, 0, 0, NULL));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(conf_queue, c, 0, b, 0, 0));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_fill(conf_queue, b, 0, 0, &pat, 4));
    hcl_event ev[4] = {NULL, NULL, NULL, NULL};
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write_async(conf_queue, b, 8, 0, NULL, 0, NULL, &ev[0]));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_read_async(conf_queue, b, 8, 0, NULL, 0, NULL, &ev[1]));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy_async(conf_queue, c, 4, b, 8, 0, 0, NULL, &ev[2]));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_fill_async(conf_queue, b, 4, 0, &pat, 4, 0, NULL, &ev[3]));
    for (int i = 0; i < 4; i++) {
        if (!CHECK(ev[i] != NULL, "a size-0 async transfer (%d) asked for an event and got none", i)) continue;
        conf_track_event(ev[i]);
        CHECK_ST(HCL_SUCCESS, hcl_event_wait(ev[i]));
        double s = -1;
        if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(ev[i], ev[i], &s)))
            CHECK(s >= 0 && isfinite(s), "elapsed of a size-0 transfer: %g", s);
    }
}

CONF_TEST(api, wait_lists_and_events) {
    uint8_t data[64];
    fill_bytes(data, sizeof data);
    uint32_t pat = 3;
    hcl_buffer b = conf_buffer(64), c = conf_buffer(64);
    REQUIRE(b && c && conf_write(b, 0, data, 64), "buffers");
    hcl_queue q = conf_queue;
    hcl_event e = SENTINEL(hcl_event), dead = NULL, good = NULL;
    REQUIRE_OK(hcl_queue_marker(q, &dead));
    REQUIRE_OK(hcl_event_release(dead));
    REQUIRE_OK(hcl_queue_marker(q, &good));
    conf_track_event(good);
    uint8_t tmp[64];

    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_write_async(q, c, 0, 4, tmp, 1, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_read_async(q, b, 0, 4, tmp, 2, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_copy_async(q, c, 0, b, 0, 4, 1, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_fill_async(q, c, 0, 4, &pat, 4, 1, NULL, &e));
    hcl_event with_dead[2] = {good, dead}, with_null[2] = {good, NULL};
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write_async(q, c, 0, 4, tmp, 2, with_dead, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_read_async(q, b, 0, 4, tmp, 2, with_dead, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_copy_async(q, c, 0, b, 0, 4, 2, with_dead, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_fill_async(q, c, 0, 4, &pat, 4, 2, with_dead, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_buffer_write_async(q, c, 0, 4, tmp, 2, with_null, &e));
    CHECK(e == SENTINEL(hcl_event), "a failing async call wrote its out_event");
    /* num_wait 0 ignores the list. */
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy_async(q, c, 0, b, 0, 64, 0, with_null, NULL));
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(q));
    CHECK(buffer_holds(c, data, 64, "copy after failing async calls"), "contents");

    double s = 123;
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_wait(NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_release(NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_wait(dead));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_release(dead));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_elapsed(NULL, good, &s));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_elapsed(good, NULL, &s));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_elapsed(dead, good, &s));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_elapsed(good, dead, &s));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_event_elapsed(good, good, NULL));
    CHECK(s == 123, "a failing hcl_event_elapsed wrote its out-parameter");
}

CONF_TEST(api, device_mismatch) {
    uint8_t data[64] = {0};
    uint32_t pat = 9;
    hcl_device d2 = conf_open_again();
    REQUIRE(d2 != NULL, "second device");
    hcl_queue q2 = conf_queue_on(d2);
    hcl_buffer b1 = conf_buffer(64), b2 = conf_buffer_on(d2, 64);
    REQUIRE(q2 && b1 && b2, "objects");
    hcl_event e1 = NULL, e2 = NULL, e = SENTINEL(hcl_event);
    REQUIRE_OK(hcl_queue_marker(conf_queue, &e1));
    conf_track_event(e1);
    REQUIRE_OK(hcl_queue_marker(q2, &e2));
    conf_track_event(e2);

    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_write(conf_queue, b2, 0, 4, data));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_read(conf_queue, b2, 0, 4, data));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_fill(conf_queue, b2, 0, 4, &pat, 4));
    /* a copy may join two devices (test_peer.c), but the queue must be one of theirs */
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_copy(conf_queue, b2, 0, b2, 8, 4));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_copy(q2, b1, 0, b1, 8, 4));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_write_async(conf_queue, b1, 0, 4, data, 1, &e2, &e));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_read_async(q2, b2, 0, 4, data, 1, &e1, &e));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_copy_async(conf_queue, b1, 0, b1, 8, 4, 1, &e2, &e));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_fill_async(conf_queue, b1, 0, 4, &pat, 4, 1, &e2, &e));
    double s = 5;
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_event_elapsed(e1, e2, &s));
    CHECK(e == SENTINEL(hcl_event) && s == 5, "a failing call wrote its out-parameter");
    /* Both devices still work on their own objects. */
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(conf_queue, b1, 0, 4, data));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write(q2, b2, 0, 4, data));
}

/* Releasing a queue waits for what was submitted to it; releasing a pending event is allowed. */
CONF_TEST(api, release_waits) {
    enum { SZ = 8 << 20 };
    uint8_t *src = conf_malloc(SZ), *back = conf_malloc(SZ);
    fill_bytes(src, SZ);
    hcl_buffer b = conf_buffer(SZ), c = conf_buffer(SZ);
    REQUIRE(b && c, "buffers");
    hcl_queue q = NULL;
    REQUIRE_OK(hcl_queue_create(conf_dev, &q));
    hcl_event e = NULL;
    CHECK_ST(HCL_SUCCESS, hcl_buffer_write_async(q, b, 0, SZ, src, 0, NULL, &e));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy_async(q, c, 0, b, 0, SZ, 0, NULL, NULL));
    if (e) CHECK_ST(HCL_SUCCESS, hcl_event_release(e));
    CHECK_ST(HCL_SUCCESS, hcl_queue_release(q));
    if (conf_read(c, 0, back, SZ))
        CHECK(memcmp(src, back, SZ) == 0, "data written before hcl_queue_release is incomplete");
}

/* Many objects at once: the handle table grows, and every handle stays distinct and valid until released. */
CONF_TEST(api, many_handles) {
    enum { NB = 1500, NE = 3000 };
    hcl_buffer *bufs = conf_malloc(NB * sizeof *bufs);
    hcl_event *evs = conf_malloc(NE * sizeof *evs);
    size_t made_b = 0, made_e = 0, s = 0;
    for (; made_b < NB; made_b++)
        if (!CHECK_ST(HCL_SUCCESS, hcl_buffer_create(conf_dev, 1 + made_b % 61, 0, &bufs[made_b]))) break;
    for (; made_e < NE; made_e++)
        if (!CHECK_ST(HCL_SUCCESS, hcl_queue_marker(conf_queue, &evs[made_e]))) break;
    size_t wrong = 0;
    for (size_t i = 0; i < made_b; i++)
        if (hcl_buffer_size(bufs[i], &s) != HCL_SUCCESS || s != 1 + i % 61) wrong++;
    CHECK(wrong == 0, "%zu of %zu live buffers report a wrong size or no size", wrong, made_b);
    for (size_t i = 0; i < made_b; i += 2) CHECK_ST(HCL_SUCCESS, hcl_buffer_release(bufs[i]));
    for (size_t i = 0; i < made_e; i++) CHECK_ST(HCL_SUCCESS, hcl_event_release(evs[i]));
    for (size_t i = 0; i < made_b; i++) {
        hcl_status want = i % 2 ? HCL_SUCCESS : HCL_ERROR_INVALID_HANDLE;
        hcl_status got = hcl_buffer_size(bufs[i], &s);
        if (!CHECK(got == want, "buffer %zu: hcl_buffer_size gave %s, expected %s", i, hcl_status_name(got),
                   hcl_status_name(want)))
            break;
    }
    for (size_t i = 1; i < made_b; i += 2) CHECK_ST(HCL_SUCCESS, hcl_buffer_release(bufs[i]));
    for (size_t i = 0; i < made_e; i += 97) CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_event_wait(evs[i]));
}

/* Distinct objects from several threads at once (hcl.h: thread-safe for distinct objects). Threads record
 * what went wrong; the test thread reports it. */
typedef struct thread_job {
    hcl_device dev;
    uint64_t seed;
    int failures;
    char first[256];
} thread_job;

static void *thread_body(void *arg) {
    thread_job *job = arg;
    enum { N = 4099 };
    float a[N], b[N], c[N];
    uint64_t s = job->seed;
    for (int rep = 0; rep < 20 && job->failures == 0; rep++) {
        hcl_queue q = NULL;
        hcl_buffer ba = NULL, bb = NULL, bc = NULL;
        for (int i = 0; i < N; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            a[i] = (float)(s >> 40) / 65536.0f;
            b[i] = (float)((s >> 20) & 0xfffff) / 4096.0f;
        }
        hcl_status st = hcl_queue_create(job->dev, &q);
        if (st == HCL_SUCCESS) st = hcl_buffer_create(job->dev, sizeof a, 0, &ba);
        if (st == HCL_SUCCESS) st = hcl_buffer_create(job->dev, sizeof b, 0, &bb);
        if (st == HCL_SUCCESS) st = hcl_buffer_create(job->dev, sizeof c, 0, &bc);
        if (st == HCL_SUCCESS) st = hcl_buffer_write(q, ba, 0, sizeof a, a);
        if (st == HCL_SUCCESS) st = hcl_buffer_write(q, bb, 0, sizeof b, b);
        if (st == HCL_SUCCESS) st = hcl_vecadd_f32(q, N, ba, bb, bc, NULL);
        if (st == HCL_SUCCESS) st = hcl_buffer_read(q, bc, 0, sizeof c, c);
        if (st != HCL_SUCCESS) {
            job->failures++;
            snprintf(job->first, sizeof job->first, "%s: %s", hcl_status_name(st), hcl_last_message());
        } else {
            for (int i = 0; i < N; i++)
                if (c[i] != a[i] + b[i] && job->failures++ == 0)
                    snprintf(job->first, sizeof job->first, "rep %d: c[%d] = %g, expected %g", rep, i, (double)c[i],
                             (double)(a[i] + b[i]));
        }
        if (bc) hcl_buffer_release(bc);
        if (bb) hcl_buffer_release(bb);
        if (ba) hcl_buffer_release(ba);
        if (q) hcl_queue_release(q);
    }
    return NULL;
}

CONF_TEST(api, threads) {
    enum { T = 4 };
    pthread_t tid[T];
    thread_job jobs[T];
    int started = 0;
    for (int i = 0; i < T; i++) {
        jobs[i] = (thread_job){conf_dev, conf_rand_u64(), 0, ""};
        if (CHECK(pthread_create(&tid[i], NULL, thread_body, &jobs[i]) == 0, "pthread_create"))
            started++;
        else
            break;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(tid[i], NULL);
        CHECK(jobs[i].failures == 0, "thread %d: %d failure(s), first: %s", i, jobs[i].failures, jobs[i].first);
    }
}
