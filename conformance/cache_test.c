/* The on-disk kernel cache under attack (ctest cache-unit and cache-opencl).
 *
 * `cache_test unit` drives the core's cache (api/src/cache.c, compiled into this program through cache_test_wrap.c,
 * which counts its allocations) directly: round trip, another key, a file copied to another entry's name, truncated
 * files, a huge claimed payload (no allocation beyond the file's real size), a FIFO, a symbolic link (entry and
 * driver folder), stale temporary files of killed writers, a cache folder that cannot be written, and concurrent
 * writers in forked processes.
 * `cache_test opencl` runs user kernels and a built-in through libhcl on the OpenCL backend (PoCL here) with a
 * private HCL_CACHE_DIR: processes building one module at once, an entry that holds another source's binary under
 * its own key (a forgery: the kernel is missing from it, so it is evicted and rebuilt from source, with the right
 * result), a file copied over another entry, and built-in entries all forged. Exits 77 when OpenCL has no device.
 */
#define _DEFAULT_SOURCE
#include "hcl/hcl.h"
#include "hcl_testsupport.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* From api/src/cache.c, compiled into this program (cache_test_wrap.c). */
void *hcl__cache_load(const char *driver, const void *key, size_t key_size, size_t *out_size);
void hcl__cache_store(const char *driver, const void *key, size_t key_size, const void *data, size_t size);
void hcl__cache_evict(const char *driver, const void *key, size_t key_size);
extern size_t cache_test_max_alloc;

#define CHECK HCL_TS_CHECK
#define HDR 32 /* the entry header: magic, key size, payload size, checksum (uint64 each) */

static char g_root[256];

/* ---- files ---- */
static int list_dir(const char *dir, const char *contains, char names[][128], int max) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strstr(e->d_name, contains) && n < max) snprintf(names[n++], 128, "%s", e->d_name);
    closedir(d);
    return n;
}

static void write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, size, f) == size, "write %s", path);
    if (f) fclose(f);
}

static void rm_rf(const char *path) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0) fprintf(stderr, "note: %s failed\n", cmd);
}

/* The single entry of `driver` in the cache (its path into path); 0 when there is not exactly one. */
static int only_entry(const char *driver, char *path, size_t size) {
    char dir[300], names[8][128];
    snprintf(dir, sizeof dir, "%s/%s", g_root, driver);
    int n = list_dir(dir, ".bin", names, 8);
    if (n != 1) return 0;
    snprintf(path, size, "%s/%s", dir, names[0]);
    return 1;
}

/* A load in a child process that must end within 5 s (a FIFO must not block it). Returns the load's result:
 * 1 hit, 0 miss, -1 hung or crashed. */
static int load_in_child(const char *driver, const char *key) {
    pid_t pid = fork();
    if (pid == 0) {
        alarm(5);
        size_t size = 0;
        void *p = hcl__cache_load(driver, key, strlen(key), &size);
        _exit(p ? 1 : 0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

/* ---- unit cases ---- */
static void case_roundtrip(void) {
    const char payload[] = "binary-of-source-A";
    hcl__cache_store("unit", "key-A", 5, payload, sizeof payload);
    size_t size = 0;
    char *got = hcl__cache_load("unit", "key-A", 5, &size);
    CHECK(got && size == sizeof payload && memcmp(got, payload, size) == 0, "round trip");
    free(got);
    CHECK(hcl__cache_load("unit", "key-B", 5, &size) == NULL, "another key misses");
    CHECK(hcl__cache_load("unit", "key-A", 4, &size) == NULL, "a prefix of the key misses");
    CHECK(hcl__cache_load("unit2", "key-A", 5, &size) == NULL, "another driver misses");
    CHECK(hcl__cache_load("../unit", "key-A", 5, &size) == NULL, "a driver name with a slash is refused");
    hcl__cache_evict("unit", "key-A", 5);
    CHECK(hcl__cache_load("unit", "key-A", 5, &size) == NULL, "an evicted entry misses");
}

/* A file copied to another entry's name (a forged entry: another source's binary): the stored key differs. */
static void case_copied_entry(void) {
    char a[512], b[512];
    hcl__cache_store("copy", "source-A", 8, "AAAA", 4);
    int ok = only_entry("copy", a, sizeof a);
    hcl__cache_store("copy", "source-B", 8, "BBBB", 4);
    CHECK(ok, "one entry after one store");
    char dir[300], names[4][128];
    snprintf(dir, sizeof dir, "%s/copy", g_root);
    CHECK(list_dir(dir, ".bin", names, 4) == 2, "two entries");
    for (int i = 0; i < 2; i++) {
        snprintf(b, sizeof b, "%s/%s", dir, names[i]);
        if (strcmp(a, b) != 0) break;
    }
    size_t size = 0;
    unsigned char *bytes = hcl_ts_read_file(a, &size);
    if (bytes) write_file(b, bytes, size); /* B's name now holds A's whole file */
    free(bytes);
    void *got = hcl__cache_load("copy", "source-B", 8, &size);
    CHECK(got == NULL, "an entry holding another key's file is a miss");
    free(got);
    hcl__cache_store("copy", "source-B", 8, "BBBB", 4);
    got = hcl__cache_load("copy", "source-B", 8, &size);
    CHECK(got && size == 4 && memcmp(got, "BBBB", 4) == 0, "the next store replaces it");
    free(got);
}

static void case_truncated_and_huge(void) {
    static unsigned char payload[100000];
    memset(payload, 0x5a, sizeof payload);
    hcl__cache_store("trunc", "key", 3, payload, sizeof payload);
    char path[512];
    if (!CHECK(only_entry("trunc", path, sizeof path), "one entry")) return;
    size_t size = 0;
    unsigned char *whole = hcl_ts_read_file(path, &size);
    if (!CHECK(whole && size > HDR, "read the entry")) return;
    const size_t cuts[] = {size - 1, size / 2, HDR + 3, HDR, 10, 0};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_file(path, whole, cuts[i]);
        size_t got_size = 0;
        void *got = hcl__cache_load("trunc", "key", 3, &got_size);
        CHECK(got == NULL, "an entry cut to %zu of %zu bytes misses", cuts[i], size);
        free(got);
    }
    /* a corrupted byte of the payload */
    whole[size - 7] ^= 1;
    write_file(path, whole, size);
    size_t got_size = 0;
    void *got = hcl__cache_load("trunc", "key", 3, &got_size);
    CHECK(got == NULL, "a corrupted payload misses");
    free(got);
    whole[size - 7] ^= 1;
    /* header claims: 3 GiB, 2^62, 2^64-1 of payload; a key of 2^63 bytes */
    const uint64_t claims[] = {3ull << 30, 1ull << 62, UINT64_MAX};
    for (size_t i = 0; i < 3; i++) {
        uint64_t v = claims[i];
        memcpy(whole + 16, &v, 8);
        write_file(path, whole, size);
        cache_test_max_alloc = 0;
        got = hcl__cache_load("trunc", "key", 3, &got_size);
        CHECK(got == NULL && cache_test_max_alloc <= size, "a claimed payload of %llu bytes: %s, allocated %zu",
              (unsigned long long)v, got ? "loaded" : "miss", cache_test_max_alloc);
        free(got);
    }
    uint64_t key_claim = 1ull << 63, good = sizeof payload;
    memcpy(whole + 16, &good, 8);
    memcpy(whole + 8, &key_claim, 8);
    write_file(path, whole, size);
    cache_test_max_alloc = 0;
    got = hcl__cache_load("trunc", "key", 3, &got_size);
    CHECK(got == NULL && cache_test_max_alloc <= size, "a claimed key of 2^63 bytes: allocated %zu",
          cache_test_max_alloc);
    free(got);
    free(whole);
}

static void case_fifo_and_links(void) {
    /* FIFO at the entry's path */
    hcl__cache_store("fifo", "key", 3, "data", 4);
    char path[512];
    if (CHECK(only_entry("fifo", path, sizeof path), "one entry")) {
        unlink(path);
        CHECK(mkfifo(path, 0644) == 0, "mkfifo %s: %s", path, strerror(errno));
        CHECK(load_in_child("fifo", "key") == 0, "a FIFO at an entry's path is a miss, without blocking");
        hcl__cache_store("fifo", "key", 3, "data", 4); /* rename replaces the FIFO */
        struct stat st;
        CHECK(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "a store replaces the FIFO with a file");
        CHECK(load_in_child("fifo", "key") == 1, "and that file loads");
    }
    /* a symbolic link at the entry's path, to a valid entry for the same key outside the folder */
    hcl__cache_store("link", "key", 3, "data", 4);
    char outside[512];
    snprintf(outside, sizeof outside, "%s/outside.bin", g_root);
    if (CHECK(only_entry("link", path, sizeof path), "one entry")) {
        CHECK(rename(path, outside) == 0 && symlink(outside, path) == 0, "make a link");
        CHECK(load_in_child("link", "key") == 0, "a symbolic link at an entry's path is not followed");
        unlink(path);
    }
    /* the driver's folder a link to another folder holding the entry */
    char real[512], folder[512];
    snprintf(real, sizeof real, "%s/elsewhere", g_root);
    snprintf(folder, sizeof folder, "%s/linked", g_root);
    hcl__cache_store("linked", "key", 3, "data", 4);
    CHECK(rename(folder, real) == 0 && symlink(real, folder) == 0, "link the driver folder");
    CHECK(load_in_child("linked", "key") == 0, "a driver folder that is a link is not followed");
    hcl__cache_store("linked", "key", 3, "data", 4); /* no write through the link either */
    char names[4][128];
    CHECK(list_dir(real, ".tmp.", names, 4) == 0, "no temporary written through the link");
}

static void case_stale_temps(void) {
    hcl__cache_store("stale", "key", 3, "data", 4);
    char path[512];
    if (!CHECK(only_entry("stale", path, sizeof path), "one entry")) return;
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, NULL, 0);
    struct {
        long pid;
        int age_s;
        int removed;
    } temps[] = {
        {dead, 120, 1},          /* writer gone, untouched for 2 minutes */
        {dead, 5, 0},            /* writer gone, but just written: could be a slow rename in another namespace */
        {getppid(), 120, 0},     /* writer alive */
        {getppid(), 7200, 1},    /* alive but two hours old: the pid was reused */
        {(long)getpid(), 120, 0} /* this process's own */
    };
    char names[5][600];
    const time_t now = time(NULL);
    for (int i = 0; i < 5; i++) {
        snprintf(names[i], sizeof names[i], "%s.tmp.%ld.%d", path, temps[i].pid, 900 + i);
        write_file(names[i], "half", 4);
        struct timeval tv[2] = {{now - temps[i].age_s, 0}, {now - temps[i].age_s, 0}};
        CHECK(utimes(names[i], tv) == 0, "utimes");
    }
    hcl__cache_store("stale", "other", 5, "data", 4);
    for (int i = 0; i < 5; i++) {
        const int gone = access(names[i], F_OK) != 0;
        CHECK(gone == temps[i].removed, "temporary of pid %ld, %d s old: %s", temps[i].pid, temps[i].age_s,
              gone ? "removed" : "kept");
        unlink(names[i]);
    }
}

static void case_unwritable(void) {
    /* a cache root that cannot be created (under a regular file) */
    char file[300], root[400];
    snprintf(file, sizeof file, "%s/a-file", g_root);
    write_file(file, "x", 1);
    snprintf(root, sizeof root, "%s/sub", file);
    setenv("HCL_CACHE_DIR", root, 1);
    hcl__cache_store("ro", "key", 3, "data", 4);
    size_t size = 0;
    CHECK(hcl__cache_load("ro", "key", 3, &size) == NULL, "no cache folder: a miss, nothing else");
    setenv("HCL_CACHE_DIR", g_root, 1);
    /* a read-only folder holding an entry: the entry loads, a store fails quietly (root ignores modes) */
    hcl__cache_store("ro", "key", 3, "data", 4);
    char dir[300];
    snprintf(dir, sizeof dir, "%s/ro", g_root);
    chmod(dir, 0555);
    hcl__cache_store("ro", "key2", 4, "data", 4);
    void *got = hcl__cache_load("ro", "key", 3, &size);
    CHECK(got && size == 4, "an entry in a read-only folder loads");
    free(got);
    got = hcl__cache_load("ro", "key2", 4, &size);
    if (geteuid() != 0) CHECK(got == NULL, "nothing stored in a read-only folder");
    free(got);
    chmod(dir, 0755);
}

/* Writers in several processes store one key with payloads of their own (each a different size, every byte the
 * writer's number) while readers load it: every load is a miss or one writer's whole payload. */
static void case_concurrent(void) {
    enum { PROCS = 6, ROUNDS = 40 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        if (pids[p] != 0) continue;
        static unsigned char buf[300000];
        int bad = 0;
        for (int r = 0; r < ROUNDS; r++) {
            size_t n = 1000 + (size_t)p * 50000 + (size_t)r;
            memset(buf, 'a' + p, n);
            hcl__cache_store("conc", "shared-key", 10, buf, n);
            size_t size = 0;
            unsigned char *got = hcl__cache_load("conc", "shared-key", 10, &size);
            if (got) {
                const int w = got[0] - 'a';
                if (w < 0 || w >= PROCS || size < 1000 + (size_t)w * 50000 || size >= 1000 + (size_t)w * 50000 + ROUNDS)
                    bad++;
                for (size_t i = 0; i < size; i++) bad += got[i] != got[0];
            }
            free(got);
        }
        _exit(bad ? 1 : 0);
    }
    int failed = 0;
    for (int p = 0; p < PROCS; p++) {
        int st = 0;
        if (pids[p] < 0 || waitpid(pids[p], &st, 0) != pids[p] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
    }
    CHECK(failed == 0, "%d of %d concurrent writer processes saw a torn or foreign payload", failed, PROCS);
    char dir[300], names[16][128];
    snprintf(dir, sizeof dir, "%s/conc", g_root);
    CHECK(list_dir(dir, ".bin", names, 16) == 1, "one entry after concurrent writers (no temporaries left)");
}

static int run_unit(void) {
    case_roundtrip();
    case_copied_entry();
    case_truncated_and_huge();
    case_fifo_and_links();
    case_stale_temps();
    case_unwritable();
    case_concurrent();
    return 0;
}

/* ---- through libhcl on OpenCL ---- */
static const char src_a[] = "__kernel void ka(__global float *o) { o[get_global_id(0)] = 1.0f; }\n";
static const char src_b[] = "__kernel void kb(__global float *o) { o[get_global_id(0)] = 2.0f; }\n";
static const char src_c[] = "__kernel void kc(__global float *o) { o[get_global_id(0)] = 3.0f; }\n";

/* Build `src` on a fresh device, run `name` over 64 floats and check each is `want`. Returns whether all held. */
static int run_kernel_on(const char *backend, hcl_source_kind kind, const char *src, const char *name, float want) {
    hcl_device dev = NULL;
    hcl_queue q = NULL;
    hcl_buffer b = NULL;
    hcl_module m = NULL;
    hcl_kernel k = NULL;
    int ok = 0;
    hcl_module_source s = {kind, src, strlen(src), NULL};
    float out[64];
    if (hcl_device_open(backend, &dev) != HCL_SUCCESS || hcl_queue_create(dev, &q) != HCL_SUCCESS ||
        hcl_buffer_create(dev, sizeof out, 0, &b) != HCL_SUCCESS || hcl_module_create(dev, &s, 1, &m) != HCL_SUCCESS ||
        hcl_kernel_create(m, name, &k) != HCL_SUCCESS)
        goto done;
    hcl_arg arg = hcl_arg_buffer(b);
    if (hcl_kernel_launch(q, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){64, 1, 1}, 0, 1, &arg, 0, NULL, NULL) != HCL_SUCCESS ||
        hcl_buffer_read(q, b, 0, sizeof out, out) != HCL_SUCCESS)
        goto done;
    ok = 1;
    for (int i = 0; i < 64; i++) ok &= out[i] == want;
    if (!ok) fprintf(stderr, "%s: out[0] = %g, expected %g\n", name, out[0], want);
done:
    if (!ok && hcl_last_message()[0]) fprintf(stderr, "%s: %s\n", name, hcl_last_message());
    if (k) hcl_kernel_release(k);
    if (m) hcl_module_release(m);
    if (b) hcl_buffer_release(b);
    if (q) hcl_queue_release(q);
    if (dev) hcl_device_release(dev);
    return ok;
}

static int run_kernel(const char *src, const char *name, float want) {
    return run_kernel_on("opencl", HCL_SOURCE_OPENCL_C, src, name, want);
}

/* The driver's key and the payload of an entry file (pointers into bytes). */
static int parse_entry(const unsigned char *bytes, size_t size, const unsigned char **key, size_t *key_size,
                       const unsigned char **payload, size_t *payload_size) {
    uint64_t ks, ps;
    if (size < HDR) return 0;
    memcpy(&ks, bytes + 8, 8);
    memcpy(&ps, bytes + 16, 8);
    if (ks > size - HDR || ps != size - HDR - ks) return 0;
    const unsigned char *k = bytes + HDR, *end = k + ks;
    for (int nul = 0; nul < 2; nul++) { /* skip "version\0driver\0" */
        const unsigned char *z = memchr(k, 0, (size_t)(end - k));
        if (!z) return 0;
        k = z + 1;
    }
    *key = k;
    *key_size = (size_t)(end - k);
    *payload = end;
    *payload_size = (size_t)ps;
    return 1;
}

/* Write an entry under the key of the entry file `victim` holding the payload of the entry file `donor`. */
static int forge(const char *victim, const char *donor) {
    size_t vs = 0, ds = 0, vk = 0, vp = 0, dk = 0, dp = 0;
    unsigned char *v = hcl_ts_read_file(victim, &vs), *d = hcl_ts_read_file(donor, &ds);
    const unsigned char *vkey, *vpay, *dkey, *dpay;
    int ok = v && d && parse_entry(v, vs, &vkey, &vk, &vpay, &vp) && parse_entry(d, ds, &dkey, &dk, &dpay, &dp);
    if (ok) hcl__cache_store("opencl", vkey, vk, dpay, dp);
    free(v);
    free(d);
    return ok;
}

static int run_opencl(void) {
    /* processes building one module at once, before this process touches OpenCL */
    enum { PROCS = 4 };
    pid_t pids[PROCS];
    for (int p = 0; p < PROCS; p++) {
        pids[p] = fork();
        if (pids[p] == 0) _exit(run_kernel(src_c, "kc", 3.0f) ? 0 : 1);
    }
    int failed = 0;
    for (int p = 0; p < PROCS; p++) {
        int st = 0;
        if (pids[p] < 0 || waitpid(pids[p], &st, 0) != pids[p] || !WIFEXITED(st) || WEXITSTATUS(st) != 0) failed++;
    }
    hcl_backend_info bi;
    uint32_t count = 0;
    hcl_backend_count(&count);
    int have = 0;
    for (uint32_t i = 0; i < count; i++)
        if (hcl_backend_get_info(i, &bi) == HCL_SUCCESS && strcmp(bi.name, "opencl") == 0)
            have = bi.available && bi.device_count > 0;
    if (!have) {
        printf("SKIP: no OpenCL device (%s)\n", bi.reason);
        return 77;
    }
    CHECK(failed == 0, "%d of %d processes building one module at once failed", failed, PROCS);
    char dir[300], names[64][128];
    snprintf(dir, sizeof dir, "%s/opencl", g_root);
    CHECK(list_dir(dir, ".bin", names, 64) == 1, "one entry after %d processes built one module", PROCS);
    CHECK(list_dir(dir, ".tmp.", names, 64) == 0, "no temporary left");
    char c_path[512];
    snprintf(c_path, sizeof c_path, "%s/%s", dir, names[0]);

    /* A and B built once each: their entries */
    CHECK(run_kernel(src_a, "ka", 1.0f), "ka from source");
    char a_path[512] = "", b_path[512] = "";
    int n = list_dir(dir, ".bin", names, 64);
    for (int i = 0; i < n; i++) {
        snprintf(a_path, sizeof a_path, "%s/%s", dir, names[i]);
        if (strcmp(a_path, c_path) != 0) break;
    }
    CHECK(run_kernel(src_b, "kb", 2.0f), "kb from source");
    n = list_dir(dir, ".bin", names, 64);
    for (int i = 0; i < n; i++) {
        snprintf(b_path, sizeof b_path, "%s/%s", dir, names[i]);
        if (strcmp(b_path, c_path) != 0 && strcmp(b_path, a_path) != 0) break;
    }
    CHECK(n == 3, "three entries (%d)", n);
    CHECK(run_kernel(src_b, "kb", 2.0f), "kb from the cache");

    /* B's key holding A's binary: kb is missing from it; evicted, rebuilt from source, right result */
    if (CHECK(forge(b_path, a_path), "forge B's entry with A's binary")) {
        CHECK(run_kernel(src_b, "kb", 2.0f), "kb from a forged entry: rebuilt from source");
        size_t bs = 0, as = 0;
        unsigned char *b = hcl_ts_read_file(b_path, &bs), *a = hcl_ts_read_file(a_path, &as);
        const unsigned char *k1, *p1, *k2, *p2;
        size_t k1s, p1s, k2s, p2s;
        CHECK(b && a && parse_entry(b, bs, &k1, &k1s, &p1, &p1s) && parse_entry(a, as, &k2, &k2s, &p2, &p2s) &&
                  (p1s != p2s || memcmp(p1, p2, p1s) != 0),
              "B's entry no longer holds A's binary");
        free(a);
        free(b);
        CHECK(run_kernel(src_b, "kb", 2.0f), "kb again, from the rebuilt entry");
    }
    /* A's whole file copied over B's: the stored key differs, a miss */
    size_t as = 0;
    unsigned char *a = hcl_ts_read_file(a_path, &as);
    if (a) write_file(b_path, a, as);
    free(a);
    CHECK(run_kernel(src_b, "kb", 2.0f), "kb with A's file at B's entry");
    CHECK(run_kernel(src_a, "ka", 1.0f), "ka still right");

    /* the built-ins: every entry they make forged with A's binary, then a fresh device runs vecadd right */
    hcl_device dev = NULL;
    hcl_queue q = NULL;
    hcl_buffer x = NULL, y = NULL, z = NULL;
    float hx[1000], hy[1000], hz[1000];
    for (int i = 0; i < 1000; i++) hx[i] = (float)i, hy[i] = 0.5f * (float)i;
    for (int round = 0; round < 2; round++) {
        int ok = hcl_device_open("opencl", &dev) == HCL_SUCCESS && hcl_queue_create(dev, &q) == HCL_SUCCESS &&
                 hcl_buffer_create(dev, sizeof hx, 0, &x) == HCL_SUCCESS &&
                 hcl_buffer_create(dev, sizeof hx, 0, &y) == HCL_SUCCESS &&
                 hcl_buffer_create(dev, sizeof hx, 0, &z) == HCL_SUCCESS &&
                 hcl_buffer_write(q, x, 0, sizeof hx, hx) == HCL_SUCCESS &&
                 hcl_buffer_write(q, y, 0, sizeof hy, hy) == HCL_SUCCESS &&
                 hcl_vecadd_f32(q, 1000, x, y, z, NULL) == HCL_SUCCESS &&
                 hcl_buffer_read(q, z, 0, sizeof hz, hz) == HCL_SUCCESS;
        int right = ok;
        for (int i = 0; ok && i < 1000; i++) right &= hz[i] == 1.5f * (float)i;
        CHECK(right, "vecadd round %d (%s): %s", round, round ? "built-in entries forged" : "fresh",
              ok ? "wrong values" : hcl_last_message());
        if (z) hcl_buffer_release(z);
        if (y) hcl_buffer_release(y);
        if (x) hcl_buffer_release(x);
        if (q) hcl_queue_release(q);
        if (dev) hcl_device_release(dev);
        dev = NULL, q = NULL, x = y = z = NULL;
        if (round == 0) {
            int forged = 0;
            n = list_dir(dir, ".bin", names, 64);
            for (int i = 0; i < n; i++) {
                char p[512];
                snprintf(p, sizeof p, "%s/%s", dir, names[i]);
                if (strcmp(p, a_path) && strcmp(p, b_path) && strcmp(p, c_path)) forged += forge(p, a_path);
            }
            CHECK(forged > 0, "forged %d built-in entries", forged);
        }
    }
    return 0;
}

/* CUDA (NVRTC's images in the cache): an entry under the right key whose image the driver refuses is evicted and
 * compiled again, once, with a warning; the kernel then gives the right result and the entry holds a real image. */
static const char src_cu[] = "extern \"C\" __global__ void kc(float *o) { o[threadIdx.x] = 4.0f; }\n";

static int run_cuda(void) {
    hcl_device dev = NULL;
    if (hcl_device_open("cuda", &dev) != HCL_SUCCESS) {
        printf("SKIP: no CUDA device (%s)\n", hcl_last_message());
        return 77;
    }
    hcl_device_release(dev);
    CHECK(run_kernel_on("cuda", HCL_SOURCE_CUDA_C, src_cu, "kc", 4.0f), "kc from source");
    char dir[300], names[64][128], path[512];
    snprintf(dir, sizeof dir, "%s/cuda", g_root);
    const int n = list_dir(dir, ".bin", names, 64);
    CHECK(n == 1, "one cuda entry after one module (%d)", n);
    if (n != 1) return 0;
    snprintf(path, sizeof path, "%s/%s", dir, names[0]);
    size_t size = 0, ks = 0, ps = 0;
    unsigned char *bytes = hcl_ts_read_file(path, &size);
    const unsigned char *key, *pay;
    int ok = bytes && parse_entry(bytes, size, &key, &ks, &pay, &ps);
    CHECK(ok, "the entry parses");
    unsigned char junk[64];
    junk[0] = 'C'; /* "a CUBIN", which is not one */
    for (size_t i = 1; i < sizeof junk; i++) junk[i] = (unsigned char)(i * 37 + 11);
    if (ok) hcl__cache_store("cuda", key, ks, junk, sizeof junk);
    free(bytes);
    CHECK(run_kernel_on("cuda", HCL_SOURCE_CUDA_C, src_cu, "kc", 4.0f),
          "kc with a cached image the driver refuses: evicted, compiled again, right result");
    bytes = hcl_ts_read_file(path, &size);
    ok = bytes && parse_entry(bytes, size, &key, &ks, &pay, &ps);
    CHECK(ok && ps != sizeof junk && (pay[0] == 'C' || pay[0] == 'P'), "the entry holds a real image again (%zu bytes)",
          ps);
    free(bytes);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "unit";
    snprintf(g_root, sizeof g_root, "/tmp/hcl-cache-test-XXXXXX");
    if (!mkdtemp(g_root)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("HCL_CACHE_DIR", g_root, 1);
    int rc = strcmp(mode, "opencl") == 0 ? run_opencl() : strcmp(mode, "cuda") == 0 ? run_cuda() : run_unit();
    rm_rf(g_root);
    if (rc == 77) return 77;
    printf("%s: %d checks, %d failed\n", mode, hcl_ts_checks(), hcl_ts_failures());
    return hcl_ts_failures() ? 1 : 0;
}
