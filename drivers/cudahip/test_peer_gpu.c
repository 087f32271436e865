/* Peer copies between two GPUs through the public API, one source built twice (ctest: cuda-peer-gpu with
 * HCL_GPU_TEST_CUDA, hip-peer-gpu with HCL_GPU_TEST_HIP). Exits 77 (skipped) with the reason when the backend has
 * fewer than two devices; meant for a machine with two GPUs or more.
 *
 * It prints the backend's peer-access matrix (hcl_device_peer_access), then copies HCL_PEER_TEST_MIB MiB (default
 * 1024) from GPU 0 to GPU 1 on GPU 0's queue and back from GPU 1 to GPU 0 on GPU 1's queue, each verified against the
 * host's random data (the seed printed; HCL_SEED replays it) with the destination poisoned first, and prints each
 * direction's bandwidth: the best of five blocking copies timed on the host, and of the same copies timed by their
 * events (device time; for a staged copy, whose event is a marker, the host time is the figure). */
#define _POSIX_C_SOURCE 200809L
#include "hcl/hcl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(HCL_GPU_TEST_CUDA)
#define BACKEND "cuda"
#elif defined(HCL_GPU_TEST_HIP)
#define BACKEND "hip"
#else
#error "build with HCL_GPU_TEST_CUDA or HCL_GPU_TEST_HIP"
#endif

#define REPS 5

static int g_failures;

#define TRY(expr)                                                                                                      \
    do {                                                                                                               \
        hcl_status st_ = (expr);                                                                                       \
        if (st_ != HCL_SUCCESS) {                                                                                      \
            printf("FAIL %s: %s: %s\n", #expr, hcl_status_name(st_), hcl_last_message());                              \
            g_failures++;                                                                                              \
            goto cleanup;                                                                                              \
        }                                                                                                              \
    } while (0)

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t splitmix64(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Copy `size` bytes src -> dst on q REPS times (blocking, then timed by events), verify dst against `want` through
 * `host` (page-locked scratch of `size` bytes) read on qdst, print the bandwidth. */
static void copy_and_measure(const char *what, hcl_queue q, hcl_queue qdst, hcl_buffer dst, hcl_buffer src, size_t size,
                             const unsigned char *want, unsigned char *host) {
    double best_host = 1e30, best_dev = 1e30;
    const unsigned char poison = 0xa5;
    TRY(hcl_buffer_fill(qdst, dst, 0, size, &poison, 1));
    TRY(hcl_queue_finish(qdst));
    for (int r = 0; r < REPS; r++) {
        double t = now_s();
        TRY(hcl_buffer_copy(q, dst, 0, src, 0, size));
        t = now_s() - t;
        if (t < best_host) best_host = t;
        hcl_event ev = NULL;
        TRY(hcl_buffer_copy_async(q, dst, 0, src, 0, size, 0, NULL, &ev));
        double s = 0;
        hcl_status st = hcl_event_wait(ev);
        if (st == HCL_SUCCESS) st = hcl_event_elapsed(ev, ev, &s);
        hcl_event_release(ev);
        TRY(st);
        if (s > 0 && s < best_dev) best_dev = s;
    }
    memset(host, 0, size);
    TRY(hcl_buffer_read(qdst, dst, 0, size, host));
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < size; i++)
        if (host[i] != want[i] && bad++ == 0) first = i;
    if (bad) {
        printf("FAIL %s: %zu of %zu bytes wrong, first at %zu (0x%02x, expected 0x%02x)\n", what, bad, size, first,
               host[first], want[first]);
        g_failures++;
    } else {
        printf("ok   %s: %zu MiB verified; host-timed %.2f GB/s (%.3f ms)", what, size >> 20,
               (double)size / best_host / 1e9, best_host * 1e3);
        if (best_dev < 1e30) printf(", event-timed %.2f GB/s (%.3f ms)", (double)size / best_dev / 1e9, best_dev * 1e3);
        printf("\n");
    }
cleanup:;
}

int main(void) {
    uint32_t nb = 0, count = 0;
    hcl_backend_info bi;
    memset(&bi, 0, sizeof bi);
    if (hcl_backend_count(&nb) != HCL_SUCCESS) return printf("FAIL hcl_backend_count: %s\n", hcl_last_message()), 1;
    for (uint32_t i = 0; i < nb; i++)
        if (hcl_backend_get_info(i, &bi) == HCL_SUCCESS && strcmp(bi.name, BACKEND) == 0) break;
    if (strcmp(bi.name, BACKEND) != 0 || !bi.available) {
        printf("skipped: backend %s unavailable: %s\n", BACKEND, bi.reason[0] ? bi.reason : "not in this build");
        return 77;
    }
    count = bi.device_count;
    if (count < 2) {
        printf("skipped: %s has %" PRIu32 " device(s); a peer copy needs two\n", BACKEND, count);
        return 77;
    }
    const char *mib_env = getenv("HCL_PEER_TEST_MIB");
    const size_t size = (size_t)(mib_env && atoi(mib_env) > 0 ? atoi(mib_env) : 1024) << 20;
    const char *seed_env = getenv("HCL_SEED");
    uint64_t seed = seed_env && *seed_env ? strtoull(seed_env, NULL, 10) : (uint64_t)time(NULL);
    printf("%s: %" PRIu32 " devices, %zu MiB per copy, seed HCL_SEED=%" PRIu64 "\n", BACKEND, count, size >> 20, seed);

    hcl_device devs[16] = {0};
    hcl_queue q0 = NULL, q1 = NULL;
    hcl_buffer a = NULL, b = NULL;
    unsigned char *data = NULL, *host = NULL;
    const uint32_t n = count < 16 ? count : 16;
    for (uint32_t i = 0; i < n; i++) {
        char sel[32];
        snprintf(sel, sizeof sel, "%s:%" PRIu32, BACKEND, i);
        TRY(hcl_device_open(sel, &devs[i]));
    }
    printf("peer access (row reaches column directly):\n%10s", "");
    for (uint32_t j = 0; j < n; j++) printf(" %6s:%-2" PRIu32, BACKEND, j);
    printf("\n");
    for (uint32_t i = 0; i < n; i++) {
        printf("%6s:%-3" PRIu32, BACKEND, i);
        for (uint32_t j = 0; j < n; j++) {
            int direct = 0;
            TRY(hcl_device_peer_access(devs[i], devs[j], &direct));
            printf(" %9s", i == j ? "self" : direct ? "direct" : "staged");
        }
        printf("\n");
    }

    TRY(hcl_queue_create(devs[0], &q0));
    TRY(hcl_queue_create(devs[1], &q1));
    TRY(hcl_buffer_create(devs[0], size, 0, &a));
    TRY(hcl_buffer_create(devs[1], size, 0, &b));
    TRY(hcl_host_alloc(devs[0], size, (void **)&data));
    TRY(hcl_host_alloc(devs[0], size, (void **)&host));
    uint64_t state = seed;
    for (size_t i = 0; i + 8 <= size; i += 8) {
        uint64_t v = splitmix64(&state);
        memcpy(data + i, &v, 8);
    }
    TRY(hcl_buffer_write(q0, a, 0, size, data));
    copy_and_measure(BACKEND ":0 -> " BACKEND ":1 on :0's queue", q0, q1, b, a, size, data, host);
    /* back into a (poisoned first) on GPU 1's queue, then 0 -> 1 again on the destination's queue */
    copy_and_measure(BACKEND ":1 -> " BACKEND ":0 on :1's queue", q1, q0, a, b, size, data, host);
    copy_and_measure(BACKEND ":0 -> " BACKEND ":1 on :1's queue", q1, q1, b, a, size, data, host);

cleanup:
    if (host) hcl_host_free(devs[0], host);
    if (data) hcl_host_free(devs[0], data);
    if (a) hcl_buffer_release(a);
    if (b) hcl_buffer_release(b);
    if (q0) hcl_queue_release(q0);
    if (q1) hcl_queue_release(q1);
    for (uint32_t i = 0; i < n; i++)
        if (devs[i]) hcl_device_release(devs[i]);
    printf("%s: %d failure(s)\n", BACKEND, g_failures);
    return g_failures ? 1 : 0;
}
