/* The on-disk cache of compilation results, offered to drivers through hcl_driver_host.
 * Location: $HCL_CACHE_DIR, else $XDG_CACHE_HOME/hcl, else $HOME/.cache/hcl; one folder per driver.
 * A file is named by a 128-bit hash of (HCL version, driver, key) and holds a header with the full hash, the
 * payload size and a payload checksum, so a truncated, foreign or corrupted file reads as a miss. Files are
 * written to a unique temporary name and renamed into place, so parallel processes never see half a file. */
#define _POSIX_C_SOURCE 200809L
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef HCL_VERSION_STRING
#define HCL_VERSION_STRING "0"
#endif

#define CACHE_MAGIC 0x31484341434c4348ull /* "HCLCACH1" */

typedef struct cache_header {
    uint64_t magic;
    uint64_t hash[2];
    uint64_t size;
    uint64_t checksum;
} cache_header;

static uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void key_hash(const char *driver, const void *key, size_t key_size, uint64_t out[2]) {
    static const char version[] = HCL_VERSION_STRING;
    uint64_t seeds[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    for (int i = 0; i < 2; i++) {
        uint64_t h = seeds[i];
        h = fnv1a(h, version, sizeof version);
        h = fnv1a(h, driver, strlen(driver) + 1);
        h = fnv1a(h, &key_size, sizeof key_size);
        h = fnv1a(h, key, key_size);
        /* final avalanche (splitmix64) so the two halves differ well */
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebull;
        h ^= h >> 31;
        out[i] = h;
    }
}

/* dir = cache root + "/" + driver; returns 0 on success. */
static int cache_dir(const char *driver, char *dir, size_t size) {
    const char *env = getenv("HCL_CACHE_DIR");
    int n;
    if (env && *env)
        n = snprintf(dir, size, "%s/%s", env, driver);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        n = snprintf(dir, size, "%s/hcl/%s", env, driver);
    else if ((env = getenv("HOME")) && *env)
        n = snprintf(dir, size, "%s/.cache/hcl/%s", env, driver);
    else
        return -1;
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

static int mkdir_p(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc != 0 && errno != EEXIST) return -1;
    }
    return (mkdir(path, 0755) == 0 || errno == EEXIST) ? 0 : -1;
}

static int cache_file(const char *driver, const uint64_t hash[2], char *path, size_t size) {
    char dir[1024];
    if (cache_dir(driver, dir, sizeof dir) != 0) return -1;
    int n =
        snprintf(path, size, "%s/%016llx%016llx.bin", dir, (unsigned long long)hash[0], (unsigned long long)hash[1]);
    return (n < 0 || (size_t)n >= size) ? -1 : 0;
}

void *hcl__cache_load(const char *driver, const void *key, size_t key_size, size_t *out_size) {
    if (!driver || !key || !out_size) return NULL;
    uint64_t hash[2];
    key_hash(driver, key, key_size, hash);
    char path[1200];
    if (cache_file(driver, hash, path, sizeof path) != 0) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        hcl__log(HCL_LOG_DEBUG, "cache", "miss %s", path);
        return NULL;
    }
    void *data = NULL;
    cache_header h;
    if (fread(&h, sizeof h, 1, f) != 1 || h.magic != CACHE_MAGIC || h.hash[0] != hash[0] || h.hash[1] != hash[1] ||
        h.size == 0 || h.size > ((uint64_t)1 << 32))
        goto bad;
    data = malloc(h.size);
    if (!data || fread(data, 1, h.size, f) != h.size || fnv1a(0xcbf29ce484222325ull, data, h.size) != h.checksum)
        goto bad;
    fclose(f);
    *out_size = h.size;
    hcl__log(HCL_LOG_DEBUG, "cache", "hit %s (%llu bytes)", path, (unsigned long long)h.size);
    return data;
bad:
    hcl__log(HCL_LOG_WARN, "cache", "ignoring unreadable or foreign cache file %s", path);
    free(data);
    fclose(f);
    return NULL;
}

void hcl__cache_store(const char *driver, const void *key, size_t key_size, const void *data, size_t size) {
    if (!driver || !key || !data || size == 0) return;
    uint64_t hash[2];
    key_hash(driver, key, key_size, hash);
    char dir[1024], path[1200], tmp[1300];
    if (cache_dir(driver, dir, sizeof dir) != 0 || cache_file(driver, hash, path, sizeof path) != 0) return;
    if (mkdir_p(dir) != 0) {
        hcl__log(HCL_LOG_WARN, "cache", "cannot create %s: %s", dir, strerror(errno));
        return;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%p", path, (long)getpid(), (void *)&hash);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) {
        hcl__log(HCL_LOG_WARN, "cache", "cannot write %s: %s", tmp, strerror(errno));
        return;
    }
    cache_header h = {CACHE_MAGIC, {hash[0], hash[1]}, size, fnv1a(0xcbf29ce484222325ull, data, size)};
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(tmp);
        return;
    }
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        hcl__log(HCL_LOG_WARN, "cache", "cannot store %s: %s", path, strerror(errno));
        unlink(tmp);
        return;
    }
    hcl__log(HCL_LOG_DEBUG, "cache", "stored %s (%zu bytes)", path, size);
}
