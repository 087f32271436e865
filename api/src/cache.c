/* The on-disk cache of compilation results, offered to drivers through hcl_driver_host.
 * Location: $HCL_CACHE_DIR, else $XDG_CACHE_HOME/hcl, else $HOME/.cache/hcl; one folder per driver.
 *
 * A file is named by a 128-bit hash of (HCL version, driver, key) and holds, in this order:
 *   header   magic "HCLCACH2", the stored key's size, the payload's size, an FNV-1a checksum of key and payload
 *            (four little-endian-as-the-host uint64)
 *   key      the whole key: the HCL version, NUL, the driver name, NUL, the driver's key bytes
 *   payload  the driver's data
 * A load compares the whole key, not only the hash, so a file holding another key's data (a collision, a copied
 * or forged file) is a miss. It opens only regular files (O_NOFOLLOW | O_NONBLOCK, then fstat: a FIFO, device or
 * symbolic link at an entry's path is ignored, never waited on or followed; the driver folder itself must not be a
 * link), and checks the header's sizes against the file's real size before it allocates anything.
 * Files are written to a temporary name "<entry>.tmp.<pid>.<n>" and renamed into place, so parallel processes
 * never see half a file; each store removes the temporaries that killed writers left (writer gone and the file
 * older than HCL__CACHE_TEMP_DEAD_S, or any temporary older than HCL__CACHE_TEMP_MAX_S). */
#define _DEFAULT_SOURCE 1
#include "core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#ifndef HCL_VERSION_STRING
#define HCL_VERSION_STRING "0"
#endif

#define CACHE_MAGIC 0x32484341434c4348ull /* "HCLCACH2" */
#define CACHE_NAME_MAX 64                 /* 32 hex digits + ".bin" + a temporary's suffix */
#define HCL__CACHE_TEMP_DEAD_S 60         /* a dead writer's temporary, untouched this long, is removed */
#define HCL__CACHE_TEMP_MAX_S 3600        /* any temporary untouched this long is removed */

typedef struct cache_header {
    uint64_t magic;
    uint64_t key_size; /* the stored key: version, NUL, driver, NUL, the driver's key */
    uint64_t size;     /* the payload */
    uint64_t checksum; /* FNV-1a over the stored key, then the payload */
} cache_header;

/* The stored key of an entry: HCL version, driver and the driver's key, each part's size known. */
typedef struct cache_key {
    const char *driver;
    const void *key;
    size_t key_size;
    size_t total; /* bytes of the stored key */
} cache_key;

static const char cache_version[] = HCL_VERSION_STRING;

#define FNV_SEED 0xcbf29ce484222325ull

static uint64_t fnv1a(uint64_t h, const void *data, size_t size) {
    const unsigned char *p = data;
    for (size_t i = 0; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* FNV-1a of the stored key, continuing from h. */
static uint64_t key_fnv(uint64_t h, const cache_key *k) {
    h = fnv1a(h, cache_version, sizeof cache_version);
    h = fnv1a(h, k->driver, strlen(k->driver) + 1);
    return fnv1a(h, k->key, k->key_size);
}

static void key_hash(const cache_key *k, uint64_t out[2]) {
    static const uint64_t seeds[2] = {FNV_SEED, 0x84222325cbf29ce4ull};
    for (int i = 0; i < 2; i++) {
        uint64_t h = fnv1a(seeds[i], &k->key_size, sizeof k->key_size);
        h = key_fnv(h, k);
        /* final avalanche (splitmix64) so the two halves differ well */
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebull;
        h ^= h >> 31;
        out[i] = h;
    }
}

/* A driver name is one plain path component. */
static int driver_name_ok(const char *driver) {
    return driver[0] && strcmp(driver, ".") != 0 && strcmp(driver, "..") != 0 && !strchr(driver, '/') &&
           strlen(driver) < 64;
}

/* The key of (driver, key), or -1 when the driver name is not usable as a folder name. */
static int make_key(const char *driver, const void *key, size_t key_size, cache_key *out) {
    if (!driver_name_ok(driver) || key_size > SIZE_MAX / 2) return -1;
    out->driver = driver;
    out->key = key;
    out->key_size = key_size;
    out->total = sizeof cache_version + strlen(driver) + 1 + key_size;
    return 0;
}

/* The cache root into buf; returns 0 on success. */
static int cache_root(char *buf, size_t size) {
    const char *env = getenv("HCL_CACHE_DIR");
    int n;
    if (env && *env)
        n = snprintf(buf, size, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        n = snprintf(buf, size, "%s/hcl", env);
    else if ((env = getenv("HOME")) && *env)
        n = snprintf(buf, size, "%s/.cache/hcl", env);
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

/* Open the driver's folder (creating root and folder when `create`); -1 with errno set when it cannot. The root
 * may be a link (the user's choice); the driver's folder inside it may not. `where` receives its path. */
static int open_dir(const char *driver, int create, char *where, size_t where_size) {
    char root[1024];
    if (cache_root(root, sizeof root) != 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(where, where_size, "%s/%s", root, driver);
    if (create && mkdir_p(root) != 0) return -1;
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0) return -1;
    if (create && mkdirat(rootfd, driver, 0755) != 0 && errno != EEXIST) {
        int e = errno;
        close(rootfd);
        errno = e;
        return -1;
    }
    int fd = openat(rootfd, driver, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(rootfd);
    errno = e;
    return fd;
}

static void entry_name(const cache_key *k, char *name, size_t size) {
    uint64_t hash[2];
    key_hash(k, hash);
    snprintf(name, size, "%016llx%016llx.bin", (unsigned long long)hash[0], (unsigned long long)hash[1]);
}

/* Read exactly size bytes; 0 on success. */
static int read_all(int fd, void *buf, size_t size) {
    unsigned char *p = buf;
    while (size > 0) {
        ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t size) {
    const unsigned char *p = buf;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return -1;
        }
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Compare the stored key (read from fd) with k; 0 when equal. Reads in pieces, so a key costs no allocation. */
static int key_matches(int fd, const cache_key *k, uint64_t *checksum) {
    const size_t drv = strlen(k->driver) + 1;
    const struct {
        const void *data;
        size_t size;
    } parts[3] = {{cache_version, sizeof cache_version}, {k->driver, drv}, {k->key, k->key_size}};
    unsigned char buf[4096];
    for (int i = 0; i < 3; i++) {
        const unsigned char *want = parts[i].data;
        for (size_t done = 0; done < parts[i].size;) {
            size_t n = parts[i].size - done < sizeof buf ? parts[i].size - done : sizeof buf;
            if (read_all(fd, buf, n) != 0 || memcmp(buf, want + done, n) != 0) return -1;
            *checksum = fnv1a(*checksum, buf, n);
            done += n;
        }
    }
    return 0;
}

void *hcl__cache_load(const char *driver, const void *key, size_t key_size, size_t *out_size) {
    cache_key k;
    if (!driver || !key || !out_size || make_key(driver, key, key_size, &k) != 0) return NULL;
    char dir[1100], name[CACHE_NAME_MAX];
    int dirfd = open_dir(driver, 0, dir, sizeof dir);
    if (dirfd < 0) {
        if (errno == ELOOP || errno == ENOTDIR)
            hcl__log(HCL_LOG_WARN, "cache", "ignoring %s: not a folder (a link or a file); no cache", dir);
        else
            hcl__log(HCL_LOG_DEBUG, "cache", "miss: no folder %s (%s)", dir, strerror(errno));
        return NULL;
    }
    entry_name(&k, name, sizeof name);
    void *data = NULL;
    const char *why = NULL;
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT)
            hcl__log(HCL_LOG_DEBUG, "cache", "miss %s/%s", dir, name);
        else
            hcl__log(HCL_LOG_WARN, "cache", "ignoring %s/%s: %s", dir, name,
                     errno == ELOOP ? "a symbolic link (never followed)" : strerror(errno));
        close(dirfd);
        return NULL;
    }
    close(dirfd);
    struct stat st;
    cache_header h;
    uint64_t sum = FNV_SEED;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        why = "not a regular file";
    } else if (read_all(fd, &h, sizeof h) != 0 || h.magic != CACHE_MAGIC) {
        why = "not a cache file of this HCL (bad header)";
    } else if (h.key_size != k.total || h.size == 0 || (uint64_t)st.st_size < sizeof h ||
               h.key_size > (uint64_t)st.st_size - sizeof h || h.size != (uint64_t)st.st_size - sizeof h - h.key_size) {
        why = "its header's sizes do not match the file (truncated, grown or foreign)";
    } else if (key_matches(fd, &k, &sum) != 0) {
        why = "it holds another key's data";
    } else if (h.size > SIZE_MAX || !(data = malloc((size_t)h.size))) {
        why = "out of memory";
    } else if (read_all(fd, data, (size_t)h.size) != 0 || fnv1a(sum, data, (size_t)h.size) != h.checksum) {
        why = "checksum mismatch (corrupted)";
    }
    close(fd);
    if (why) {
        hcl__log(HCL_LOG_WARN, "cache", "ignoring %s/%s: %s", dir, name, why);
        free(data);
        return NULL;
    }
    *out_size = (size_t)h.size;
    hcl__log(HCL_LOG_DEBUG, "cache", "hit %s/%s (%llu bytes)", dir, name, (unsigned long long)h.size);
    return data;
}

void hcl__cache_evict(const char *driver, const void *key, size_t key_size) {
    cache_key k;
    if (!driver || !key || make_key(driver, key, key_size, &k) != 0) return;
    char dir[1100], name[CACHE_NAME_MAX];
    int dirfd = open_dir(driver, 0, dir, sizeof dir);
    if (dirfd < 0) return;
    entry_name(&k, name, sizeof name);
    if (unlinkat(dirfd, name, 0) == 0)
        hcl__log(HCL_LOG_DEBUG, "cache", "evicted %s/%s", dir, name);
    else if (errno != ENOENT)
        hcl__log(HCL_LOG_WARN, "cache", "cannot evict %s/%s: %s", dir, name, strerror(errno));
    close(dirfd);
}

/* A temporary "<entry>.tmp.<pid>.<n>" is stale when its writer is gone and it has not changed for a while, or when
 * it is very old (the pid may have been reused, or belong to another PID namespace). */
static int temp_is_stale(int dirfd, const char *name, time_t now) {
    const char *tag = strstr(name, ".bin.tmp.");
    if (!tag) return 0;
    char *end = NULL;
    errno = 0;
    long pid = strtol(tag + 9, &end, 10);
    if (errno || end == tag + 9 || *end != '.' || pid <= 0) return 0;
    struct stat st;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
    const double age = difftime(now, st.st_mtime);
    if (age > HCL__CACHE_TEMP_MAX_S) return 1;
    if (pid == (long)getpid() || age <= HCL__CACHE_TEMP_DEAD_S) return 0;
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

static void remove_stale_temps(int dirfd, const char *dir) {
    int fd = dup(dirfd);
    if (fd < 0) return;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    const time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!temp_is_stale(dirfd, e->d_name, now)) continue;
        if (unlinkat(dirfd, e->d_name, 0) == 0)
            hcl__log(HCL_LOG_INFO, "cache", "removed %s/%s, a temporary file a killed writer left", dir, e->d_name);
    }
    closedir(d);
}

void hcl__cache_store(const char *driver, const void *key, size_t key_size, const void *data, size_t size) {
    static atomic_uint serial;
    cache_key k;
    if (!driver || !key || !data || size == 0 || make_key(driver, key, key_size, &k) != 0) return;
    char dir[1100], name[CACHE_NAME_MAX], tmp[CACHE_NAME_MAX + 48];
    int dirfd = open_dir(driver, 1, dir, sizeof dir);
    if (dirfd < 0) {
        hcl__log(HCL_LOG_WARN, "cache", "cannot use %s: %s; not cached", dir, strerror(errno));
        return;
    }
    remove_stale_temps(dirfd, dir);
    entry_name(&k, name, sizeof name);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%u", name, (long)getpid(), atomic_fetch_add(&serial, 1));
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        hcl__log(HCL_LOG_WARN, "cache", "cannot write %s/%s: %s; not cached", dir, tmp, strerror(errno));
        close(dirfd);
        return;
    }
    cache_header h = {CACHE_MAGIC, k.total, size, fnv1a(key_fnv(FNV_SEED, &k), data, size)};
    const size_t drv = strlen(driver) + 1;
    int ok = write_all(fd, &h, sizeof h) == 0 && write_all(fd, cache_version, sizeof cache_version) == 0 &&
             write_all(fd, driver, drv) == 0 && write_all(fd, key, key_size) == 0 && write_all(fd, data, size) == 0;
    int e = errno;
    ok = (close(fd) == 0) && ok;
    if (!ok || renameat(dirfd, tmp, dirfd, name) != 0) {
        if (ok) e = errno;
        hcl__log(HCL_LOG_WARN, "cache", "cannot store %s/%s: %s; not cached", dir, name, strerror(e));
        unlinkat(dirfd, tmp, 0);
    } else {
        hcl__log(HCL_LOG_DEBUG, "cache", "stored %s/%s (%zu bytes)", dir, name, size);
    }
    close(dirfd);
}
