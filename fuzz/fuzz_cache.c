/* Fuzz harness: the on-disk cache's reader (api/src/cache.c, compiled in) on fuzzed file content.
 *
 * At start a real entry is stored under a private $HCL_CACHE_DIR for a fixed key; each input then replaces that
 * entry's file, and hcl__cache_load must give NULL (a miss) or a payload whose size matches the file's header, never
 * a crash, an overlong read or an allocation the file cannot back. The seed corpus holds a valid entry. */
#include "cache.c"

#include <dirent.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char g_key[] = "device: fuzz\noptions: -O2\n__kernel void k(__global float *x) { x[0] = 1.0f; }";
static const char g_payload[] = "a program binary of 40 bytes, or so ...";
static char g_entry[1400], g_root[64];

/* the private cache folder goes when the fuzzer exits */
static void remove_cache(void) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/fuzz", g_root);
    if (g_entry[0]) remove(g_entry);
    remove(dir);
    remove(g_root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    /* in memory where there is /dev/shm: rewriting a file on ext4 flushes it to disk at every close */
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(g_root, sizeof g_root, "%s/hcl-fuzz-cache.%d", base, (int)getpid());
    setenv("HCL_CACHE_DIR", g_root, 1);
    atexit(remove_cache);
    hcl__cache_store("fuzz", g_key, sizeof g_key, g_payload, sizeof g_payload);
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/fuzz", g_root);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".bin") && !strstr(e->d_name, ".tmp"))
            snprintf(g_entry, sizeof g_entry, "%s/%s", dir, e->d_name);
    if (d) closedir(d);
    if (!g_entry[0]) {
        fprintf(stderr, "fuzz_cache: no entry was stored under %s\n", dir);
        abort();
    }
    if (getenv("FUZZ_CACHE_SEED")) { /* write a valid entry to that path: the seed corpus */
        size_t size = 0;
        void *p = hcl__cache_load("fuzz", g_key, sizeof g_key, &size);
        FILE *in = fopen(g_entry, "rb"), *out = fopen(getenv("FUZZ_CACHE_SEED"), "wb");
        int c;
        while (in && out && (c = fgetc(in)) != EOF) fputc(c, out);
        if (in) fclose(in);
        if (out) fclose(out);
        free(p);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *f = fopen(g_entry, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    size_t got = 0;
    void *p = hcl__cache_load("fuzz", g_key, sizeof g_key, &got);
    if (p) {
        /* a hit: the whole key matched and the payload is the rest of the file */
        cache_key k;
        if (make_key("fuzz", g_key, sizeof g_key, &k) != 0 || got == 0 || got + sizeof(cache_header) + k.total != size)
            abort();
        free(p);
    }
    return 0;
}
