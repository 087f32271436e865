/* Copies between buffers of two devices (hcl_buffer_copy across devices, hcl_device_peer_access).
 *
 * Suite peer: on every backend, between the test's device and a second open of it (two devices to the API): the driver's
 * peer copy where it reports direct access (CUDA, HIP: one GPU opened twice), else the core's staged copy.
 * Suite peer2: devices of their own, opened by selector: two OpenCL devices (PoCL with POCL_DEVICES="pthread pthread",
 * the ctest entry conformance-peer-pocl), and the host backend with an OpenCL device (a copy between backends);
 * each skips with the reason when the devices are not there.
 *
 * Each copy: random source bytes (the seed printed), the whole destination poisoned first, the copy at odd offsets,
 * then the whole destination read back: the copied range must hold the source's bytes and everything else the
 * poison. Sizes 0, 1, odd, and some MiB plus an odd tail with HCL_STAGING_CHUNK set to an odd size, so that a staged
 * copy crosses many chunk boundaries and reuses both staging slots. Then each copy once more right after blocking writes
 * that queued behind large fills. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POISON_BYTE 0xa5
#define DST_OFF 5
#define SRC_OFF 3

static void fill_random(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(conf_rand_u64() >> 56);
}

typedef enum copy_mode { MODE_BLOCKING, MODE_ASYNC } copy_mode;

/* Copy `size` bytes from src (of the device of qsrc) to dst (of the device of qdst) with queue q, which must be qsrc
 * or qdst, and check the whole of dst. MODE_ASYNC: the copy waits for a marker of q and gives an event. */
static bool check_copy(const char *what, hcl_queue q, hcl_queue qdst, hcl_buffer dst, hcl_queue qsrc, hcl_buffer src,
                       size_t size, copy_mode mode) {
    const size_t cap = size + 64;
    uint8_t *data = malloc(cap), *back = malloc(cap);
    bool ok = CHECK(data && back, "out of host memory (%zu bytes)", cap);
    if (ok) {
        fill_random(data, cap);
        memset(back, POISON_BYTE, cap);
        ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_write(qsrc, src, 0, cap, data)) &&
             CHECK_ST(HCL_SUCCESS, hcl_buffer_write(qdst, dst, 0, cap, back));
    }
    if (ok && mode == MODE_BLOCKING) {
        ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(q, dst, DST_OFF, src, SRC_OFF, size));
    } else if (ok) {
        hcl_event before = NULL, ev = NULL;
        ok = CHECK_ST(HCL_SUCCESS, hcl_queue_marker(q, &before));
        if (ok) {
            ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_copy_async(q, dst, DST_OFF, src, SRC_OFF, size, 1, &before, &ev));
            ok = ok && CHECK(ev != NULL, "%s: no event", what) && CHECK_ST(HCL_SUCCESS, hcl_event_wait(ev));
            if (ev) CHECK_ST(HCL_SUCCESS, hcl_event_release(ev));
            CHECK_ST(HCL_SUCCESS, hcl_event_release(before));
        }
    }
    if (ok) {
        memset(back, 0, cap);
        ok = CHECK_ST(HCL_SUCCESS, hcl_buffer_read(qdst, dst, 0, cap, back));
    }
    if (ok) {
        size_t bad = 0, first = SIZE_MAX;
        for (size_t i = 0; i < cap; i++) {
            const uint8_t want = i >= DST_OFF && i < DST_OFF + size ? data[i - DST_OFF + SRC_OFF] : POISON_BYTE;
            if (back[i] != want) {
                bad++;
                if (first == SIZE_MAX) first = i;
            }
        }
        ok = CHECK(bad == 0, "%s, %s, size %zu: %zu wrong bytes of %zu, first at %zu (0x%02x, expected 0x%02x)", what,
                   mode == MODE_ASYNC ? "async" : "blocking", size, bad, cap, first == SIZE_MAX ? 0 : first,
                   first == SIZE_MAX ? 0 : back[first],
                   first == SIZE_MAX
                       ? 0
                       : (first >= DST_OFF && first < DST_OFF + size ? data[first - DST_OFF + SRC_OFF] : POISON_BYTE));
    }
    free(data);
    free(back);
    return ok;
}

/* Each direction with each queue, right after blocking writes that each queued behind a large fill on its device's
 * queue: a staged copy reads and writes through an internal queue of the other device, which must find those writes
 * landed (a blocking write that returned before its bytes did, as OpenCL's may and Intel's CPU runtime does for writes
 * of less than 1 KiB, failed here). */
static void copy_behind_fills(hcl_device da, hcl_queue qa, hcl_device db, hcl_queue qb) {
    const size_t busy_bytes = (size_t)64 << 20, size = 13, cap = size + 64; /* writes below 1 KiB */
    hcl_buffer a = conf_buffer_on(da, cap), b = conf_buffer_on(db, cap);
    hcl_buffer busy_a = conf_buffer_on(da, busy_bytes), busy_b = conf_buffer_on(db, busy_bytes);
    REQUIRE(a && b && busy_a && busy_b, "buffers");
    const uint32_t zero = 0;
    for (int i = 0; i < 4; i++) {
        CHECK_ST(HCL_SUCCESS, hcl_buffer_fill_async(qa, busy_a, 0, busy_bytes, &zero, 4, 0, NULL, NULL));
        CHECK_ST(HCL_SUCCESS, hcl_buffer_fill_async(qb, busy_b, 0, busy_bytes, &zero, 4, 0, NULL, NULL));
        const bool a_to_b = i < 2;
        const hcl_queue q = i % 2 == 0 ? qa : qb;
        if (a_to_b)
            check_copy(q == qa ? "a->b on a's queue, behind fills" : "a->b on b's queue, behind fills", q, qb, b, qa, a,
                       size, MODE_BLOCKING);
        else
            check_copy(q == qa ? "b->a on a's queue, behind fills" : "b->a on b's queue, behind fills", q, qa, a, qb, b,
                       size, MODE_BLOCKING);
    }
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(qa));
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(qb));
    conf_release_buffer(busy_a);
    conf_release_buffer(busy_b);
}

/* Every size, both directions, each with the queue of the source's and of the destination's device, blocking and
 * async. */
static void copy_battery(hcl_device da, hcl_queue qa, hcl_device db, hcl_queue qb) {
    static const size_t sizes[] = {1, 13, 4099, ((size_t)3 << 20) + 7};
    /* an odd chunk size: the 3 MiB copy takes 11 chunks through both slots, the last one short */
    setenv("HCL_STAGING_CHUNK", "300001", 1);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t size = sizes[i], cap = size + 64;
        hcl_buffer a = conf_buffer_on(da, cap), b = conf_buffer_on(db, cap);
        REQUIRE(a && b, "buffers of %zu bytes", cap);
        for (int mode = MODE_BLOCKING; mode <= MODE_ASYNC; mode++) {
            check_copy("a->b on a's queue", qa, qb, b, qa, a, size, (copy_mode)mode);
            check_copy("a->b on b's queue", qb, qb, b, qa, a, size, (copy_mode)mode);
            check_copy("b->a on b's queue", qb, qa, a, qb, b, size, (copy_mode)mode);
            check_copy("b->a on a's queue", qa, qa, a, qb, b, size, (copy_mode)mode);
        }
        conf_release_buffer(a);
        conf_release_buffer(b);
    }
    unsetenv("HCL_STAGING_CHUNK");
    /* the default chunk size too, once each way */
    const size_t big = ((size_t)17 << 20) + 1; /* two default chunks and a bit */
    hcl_buffer a = conf_buffer_on(da, big + 64), b = conf_buffer_on(db, big + 64);
    REQUIRE(a && b, "buffers");
    check_copy("a->b, default chunk", qa, qb, b, qa, a, big, MODE_BLOCKING);
    check_copy("b->a, default chunk", qa, qa, a, qb, b, big, MODE_ASYNC);
    conf_release_buffer(a);
    conf_release_buffer(b);
    copy_behind_fills(da, qa, db, qb);
}

/* Size 0 honours the wait list and gives a complete event; misuse gives its status and changes nothing. */
static void copy_edges(hcl_device da, hcl_queue qa, hcl_device db, hcl_queue qb, hcl_queue q3) {
    hcl_buffer a = conf_buffer_on(da, 64), b = conf_buffer_on(db, 64);
    REQUIRE(a && b, "buffers");
    hcl_event before = NULL, ev = NULL, other = NULL;
    REQUIRE_OK(hcl_queue_marker(qa, &before));
    conf_track_event(before);
    REQUIRE_OK(hcl_queue_marker(qb, &other));
    conf_track_event(other);
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(qa, b, 0, a, 0, 0));
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy(qb, b, 64, a, 64, 0));
    if (CHECK_ST(HCL_SUCCESS, hcl_buffer_copy_async(qa, b, 0, a, 0, 0, 1, &before, &ev))) {
        conf_track_event(ev);
        CHECK_ST(HCL_SUCCESS, hcl_event_wait(ev));
    }
    ev = NULL;
    CHECK_ST(HCL_SUCCESS, hcl_buffer_copy_async(qb, a, 0, b, 0, 0, 1, &other, NULL));

    /* a queue of neither device (a third open of one of them) */
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_copy(q3, b, 0, a, 0, 8));
    CHECK_MSG_HAS("neither");
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_copy_async(q3, a, 0, b, 0, 8, 0, NULL, &ev));
    CHECK(ev == NULL, "a failing copy wrote its event");
    /* a wait list of the other device's events (the wait list belongs to the queue's device) */
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_copy_async(qa, b, 0, a, 0, 8, 1, &other, &ev));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_buffer_copy_async(qa, b, 0, a, 0, 8, 1, NULL, &ev));
    /* out of range, on either side, with either queue */
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(qa, b, 60, a, 0, 8));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(qb, b, 0, a, 57, 8));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy(qb, b, 0, a, 0, 65));
    CHECK_ST(HCL_ERROR_OUT_OF_RANGE, hcl_buffer_copy_async(qa, b, SIZE_MAX, a, 0, 2, 0, NULL, &ev));
    CHECK(ev == NULL, "a failing copy wrote its event");
    /* write and read keep the rule: a buffer of the queue's device only */
    uint8_t bytes[8] = {0};
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_write(qa, b, 0, 8, bytes));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_buffer_read(qb, a, 0, 8, bytes));

    int direct = 7;
    CHECK_ST(HCL_SUCCESS, hcl_device_peer_access(da, da, &direct));
    CHECK(direct == 1, "a device and itself: direct %d, expected 1", direct);
    direct = 7;
    CHECK_ST(HCL_SUCCESS, hcl_device_peer_access(da, db, &direct));
    CHECK(direct == 0 || direct == 1, "direct %d is neither 0 nor 1", direct);
    cr_log_info("peer access between the two devices: %d", direct);
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_device_peer_access(da, db, NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_peer_access(NULL, db, &direct));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_device_peer_access(da, NULL, &direct));
}

/* The test's device and a second open of it. */
CONF_TEST(peer, copy_two_opens) {
    hcl_device d2 = conf_open_again();
    REQUIRE(d2 != NULL, "second device");
    hcl_queue q2 = conf_queue_on(d2);
    REQUIRE(q2 != NULL, "queue");
    copy_battery(conf_dev, conf_queue, d2, q2);
}

CONF_TEST(peer, copy_edges) {
    hcl_device d2 = conf_open_again(), d3 = conf_open_again();
    REQUIRE(d2 && d3, "second and third device");
    hcl_queue q2 = conf_queue_on(d2), q3 = conf_queue_on(d3);
    REQUIRE(q2 && q3, "queues");
    copy_edges(conf_dev, conf_queue, d2, q2, q3);
}

/* Open device `index` of `backend` (tracked), or skip the test when its backend has fewer than `index + 1` devices. */
static hcl_device open_or_skip(const char *backend, uint32_t index) {
    uint32_t count = 0;
    hcl_backend_info bi;
    memset(&bi, 0, sizeof bi);
    cr_assert(hcl_backend_count(&count) == HCL_SUCCESS, "hcl_backend_count");
    bool found = false;
    for (uint32_t i = 0; i < count && !found; i++)
        found = hcl_backend_get_info(i, &bi) == HCL_SUCCESS && strcmp(bi.name, backend) == 0;
    if (!found) cr_skip_test("backend %s is not in this build", backend);
    if (!bi.available) cr_skip_test("%s: backend unavailable: %s", backend, bi.reason);
    if (bi.device_count <= index)
        cr_skip_test("%s has %u device(s), this test needs %u (PoCL: POCL_DEVICES=\"pthread pthread\")", backend,
                     bi.device_count, index + 1);
    char selector[48];
    snprintf(selector, sizeof selector, "%s:%u", backend, index);
    hcl_device d = NULL;
    cr_assert(hcl_device_open(selector, &d) == HCL_SUCCESS, "hcl_device_open(%s): %s", selector, hcl_last_message());
    conf_track_device(d);
    return d;
}

static hcl_device g_devs[3];

/* Device a_index of backend a and b_index of b as g_devs[0] and [1] (or the test is skipped), and the copy battery
 * between them through a queue on each; false when the queues could not be made. */
static bool battery_between(const char *a, uint32_t a_index, const char *b, uint32_t b_index) {
    g_devs[0] = open_or_skip(a, a_index);
    g_devs[1] = open_or_skip(b, b_index);
    hcl_queue qa = conf_queue_on(g_devs[0]), qb = conf_queue_on(g_devs[1]);
    if (!CHECK(qa && qb, "queues")) return false;
    copy_battery(g_devs[0], qa, g_devs[1], qb);
    return true;
}

CONF_GLOBAL_TEST(peer2, opencl_two_devices) { battery_between("opencl", 0, "opencl", 1); }

CONF_GLOBAL_TEST(peer2, opencl_two_devices_edges) {
    g_devs[0] = open_or_skip("opencl", 0);
    g_devs[1] = open_or_skip("opencl", 1);
    g_devs[2] = open_or_skip("host", 0);
    hcl_queue qa = conf_queue_on(g_devs[0]), qb = conf_queue_on(g_devs[1]), q3 = conf_queue_on(g_devs[2]);
    REQUIRE(qa && qb && q3, "queues");
    copy_edges(g_devs[0], qa, g_devs[1], qb, q3);
    int direct = 7;
    CHECK_ST(HCL_SUCCESS, hcl_device_peer_access(g_devs[0], g_devs[1], &direct));
    CHECK(direct == 0, "two OpenCL devices: direct %d, expected 0 (the OpenCL driver has no peer copy)", direct);
}

CONF_GLOBAL_TEST(peer2, host_opencl) {
    if (!battery_between("host", 0, "opencl", 0)) return;
    int direct = 7;
    CHECK_ST(HCL_SUCCESS, hcl_device_peer_access(g_devs[1], g_devs[0], &direct));
    CHECK(direct == 0, "host and opencl: direct %d, expected 0 (two backends)", direct);
}
