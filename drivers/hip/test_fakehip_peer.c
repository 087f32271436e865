/* The HIP driver's peer copies (the optional driver entries peer_access, buffer_copy_peer) through the public API, on
 * libhcl-test-fakehip.so's two devices (ctest: hip-fake-peer). The stand-in lets any two of its devices reach each
 * other, refuses a peer copy whose stream's device has not enabled access to the other, answers a second enable with
 * hipErrorPeerAccessAlreadyEnabled, and counts uses of an object while another device is current. So this proves the
 * host side: hipDeviceCanAccessPeer asked, access enabled both ways once (the second open of a device asks again
 * and meets "already enabled"), hipMemcpyPeerAsync with the right devices and stream on either device's queue, the
 * caller's current device left as it was, nothing leaked. Bytes are checked whole: random source (seed printed),
 * poisoned destination, odd offsets and sizes. */
#define _GNU_SOURCE 1
#include "hcl/hcl.h"
#include "hcl_testsupport.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK HCL_TS_CHECK /* counted; printed when it fails */
#define OK HCL_TS_OK

static uint64_t g_rng;

/* Copy size bytes from src (device of qsrc) at 3 to dst (device of qdst) at 5 on q, async after a marker of q with
 * an event, and check all of dst. */
static void check_copy(const char *what, hcl_queue q, hcl_queue qdst, hcl_buffer dst, hcl_queue qsrc, hcl_buffer src,
                       size_t size) {
    const size_t cap = size + 16;
    unsigned char *data = malloc(cap), *back = malloc(cap);
    if (!CHECK(data && back, "host memory")) goto done;
    for (size_t i = 0; i < cap; i++) data[i] = (unsigned char)(hcl_ts_splitmix64(&g_rng) >> 56);
    memset(back, 0xa5, cap);
    OK(hcl_buffer_write(qsrc, src, 0, cap, data));
    OK(hcl_buffer_write(qdst, dst, 0, cap, back));
    hcl_event before = NULL, ev = NULL;
    OK(hcl_queue_marker(q, &before));
    OK(hcl_buffer_copy_async(q, dst, 5, src, 3, size, 1, &before, &ev));
    if (ev) OK(hcl_event_wait(ev));
    if (ev) OK(hcl_event_release(ev));
    if (before) OK(hcl_event_release(before));
    memset(back, 0, cap);
    OK(hcl_buffer_read(qdst, dst, 0, cap, back));
    size_t bad = 0;
    for (size_t i = 0; i < cap; i++) bad += back[i] != (i >= 5 && i < 5 + size ? data[i - 5 + 3] : 0xa5);
    CHECK(bad == 0, "%s, size %zu: %zu wrong bytes", what, size, bad);
done:
    free(data);
    free(back);
}

int main(void) {
    const char *lib = getenv("HCL_HIP_LIBRARY");
    void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
    long (*fake_live)(void) = h ? (long (*)(void))dlsym(h, "fakehip_live_objects") : NULL;
    long (*fake_wrong)(void) = h ? (long (*)(void))dlsym(h, "fakehip_wrong_device_uses") : NULL;
    int (*fake_get_device)(int *) = h ? (int (*)(int *))dlsym(h, "hipGetDevice") : NULL;
    int (*fake_set_device)(int) = h ? (int (*)(int))dlsym(h, "hipSetDevice") : NULL;
    long (*fake_peer_copies)(void) = h ? (long (*)(void))dlsym(h, "fakehip_peer_copies") : NULL;
    if (!fake_live || !fake_wrong || !fake_get_device || !fake_set_device || !fake_peer_copies) {
        printf("FAIL HCL_HIP_LIBRARY must name libhcl-test-fakehip.so (got %s)\n", lib ? lib : "nothing");
        return 1;
    }
    g_rng = hcl_ts_seed();
    printf("seed HCL_SEED=%llu\n", (unsigned long long)g_rng);
    fake_set_device(1); /* the caller's current device, which the driver must leave so */

    hcl_device d0 = NULL, d1 = NULL, d0b = NULL;
    hcl_queue q0 = NULL, q1 = NULL, q0b = NULL;
    OK(hcl_device_open("hip:0", &d0));
    OK(hcl_device_open("hip:1", &d1));
    OK(hcl_device_open("hip:0", &d0b));
    if (!d0 || !d1 || !d0b) return 1;
    int direct = -1;
    OK(hcl_device_peer_access(d0, d1, &direct));
    CHECK(direct == 1, "hip:0 -> hip:1: direct %d", direct);
    direct = -1;
    OK(hcl_device_peer_access(d1, d0, &direct));
    CHECK(direct == 1, "hip:1 -> hip:0: direct %d", direct);
    direct = -1;
    OK(hcl_device_peer_access(d0b, d1, &direct)); /* another open asks again: "already enabled" is success */
    CHECK(direct == 1, "second open of hip:0 -> hip:1: direct %d", direct);
    direct = -1;
    OK(hcl_device_peer_access(d0, d0b, &direct)); /* one GPU opened twice */
    CHECK(direct == 1, "hip:0 and its second open: direct %d", direct);

    OK(hcl_queue_create(d0, &q0));
    OK(hcl_queue_create(d1, &q1));
    OK(hcl_queue_create(d0b, &q0b));
    static const size_t sizes[] = {1, 4099, (1u << 20) + 3};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        const size_t cap = sizes[i] + 16;
        hcl_buffer a = hcl_ts_buffer(d0, cap), b = hcl_ts_buffer(d1, cap), c = hcl_ts_buffer(d0b, cap);
        if (!a || !b || !c) return 1;
        check_copy("0 -> 1 on 0's queue", q0, q1, b, q0, a, sizes[i]);
        check_copy("0 -> 1 on 1's queue", q1, q1, b, q0, a, sizes[i]);
        check_copy("1 -> 0 on 1's queue", q1, q0, a, q1, b, sizes[i]);
        check_copy("1 -> 0 on 0's queue", q0, q0, a, q1, b, sizes[i]);
        check_copy("0 -> 0' (one GPU opened twice)", q0b, q0b, c, q0, a, sizes[i]);
        OK(hcl_buffer_release(a));
        OK(hcl_buffer_release(b));
        OK(hcl_buffer_release(c));
    }
    OK(hcl_queue_release(q0));
    OK(hcl_queue_release(q1));
    OK(hcl_queue_release(q0b));
    OK(hcl_device_release(d0));
    OK(hcl_device_release(d1));
    OK(hcl_device_release(d0b));
    int current = -1;
    fake_get_device(&current);
    CHECK(current == 1, "the caller's current device was 1, the driver left %d", current);
    /* every copy between hip:0 and hip:1 went through hipMemcpyPeerAsync (4 a size), not the core's staging; the
     * copies within one GPU opened twice are device-to-device copies */
    const long peer_copies = fake_peer_copies();
    CHECK(peer_copies == 4 * (long)(sizeof sizes / sizeof sizes[0]), "%ld hipMemcpyPeerAsync copies, expected %ld",
          peer_copies, 4 * (long)(sizeof sizes / sizeof sizes[0]));
    long live = fake_live(), wrong = fake_wrong();
    CHECK(live == 0, "%ld runtime objects still alive after every handle was released", live);
    CHECK(wrong == 0, "%ld uses of an object while another device was current", wrong);
    printf("%s hip peer copies on the stand-in: %d failure(s)\n", hcl_ts_failures() ? "FAIL" : "ok  ",
           hcl_ts_failures());
    return hcl_ts_failures() ? 1 : 0;
}
