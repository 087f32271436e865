/* Loader and selection conformance: driver modules that are missing, of the wrong ABI, without an entry point,
 * failing their init, or fine but without devices (the test modules of testdriver.c, in their own folder
 * build/conformance/testdrivers); and the selector syntax, in the API and in the environment.
 * Each test sets its environment before its first HCL call: initialisation happens once per process, and
 * Criterion runs every test in a process of its own.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"
#include "testdriver.h"

#include <hcl/hcl_driver.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HCL_CONF_TESTDRIVER_RELDIR
#error "HCL_CONF_TESTDRIVER_RELDIR must name the folder of the test driver modules, relative to the program's"
#endif

/* The test driver folder, found from the program's own location so that a build folder can be moved (it is
 * sent to other machines to run). `suffix` is appended ("" or "/override"). */
static const char *testdriver_dir(const char *prefix, const char *suffix) {
    static char path[4096 + 256];
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        CHECK(false, "readlink(/proc/self/exe) failed");
        return "/nonexistent";
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    if (strlen(prefix) + strlen(exe) + strlen(HCL_CONF_TESTDRIVER_RELDIR) + strlen(suffix) + 2 > sizeof path) {
        CHECK(false, "the program's path is too long");
        return "/nonexistent";
    }
    snprintf(path, sizeof path, "%.64s%.4095s/%s%.16s", prefix, exe, HCL_CONF_TESTDRIVER_RELDIR, suffix);
    return path;
}
#define TESTDRIVER_DIR testdriver_dir("", "")

#define KNOWN_LIST HCL_BACKEND_BUILTIN_NAMES /* "cuda, hip, levelzero, opencl, host": the build's list */
#define SENTINEL_DEVICE ((hcl_device)(uintptr_t)0x5e5e5e50u)

static void set_env(const char *name, const char *value) {
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void environment(const char *driver_path, const char *extras, const char *backend, const char *device) {
    set_env("HCL_DRIVER_PATH", driver_path);
    set_env("HCL_EXTRA_DRIVERS", extras);
    set_env("HCL_BACKEND", backend);
    set_env("HCL_DEVICE", device);
}

static bool backend_named(const char *name, hcl_backend_info *out, uint32_t *out_index) {
    uint32_t count = 0;
    if (!CHECK_ST(HCL_SUCCESS, hcl_backend_count(&count))) return false;
    for (uint32_t i = 0; i < count; i++) {
        if (!CHECK_ST(HCL_SUCCESS, hcl_backend_get_info(i, out))) return false;
        if (strcmp(out->name, name) == 0) {
            if (out_index) *out_index = i;
            return true;
        }
    }
    return CHECK(false, "backend \"%s\" is not in the list of %u backends", name, count);
}

/* Open `selector`, expect `want`; on success, check the device's backend and index and release it. */
static void open_expect(const char *selector, hcl_status want, const char *backend, uint32_t index) {
    hcl_device d = NULL;
    conf_prime_message();
    hcl_status st = hcl_device_open(selector, &d);
    char expr[128];
    snprintf(expr, sizeof expr, "hcl_device_open(%s%s%s)", selector ? "\"" : "", selector ? selector : "NULL",
             selector ? "\"" : "");
    if (!conf_status_at(st, want, expr, __FILE__, __LINE__) || st != HCL_SUCCESS) return;
    hcl_device_info info;
    if (CHECK_ST(HCL_SUCCESS, hcl_device_get_info(d, &info)))
        CHECK(strcmp(info.backend, backend) == 0 && info.index == index, "%s opened %s:%u, expected %s:%u", expr,
              info.backend, info.index, backend, index);
    CHECK_ST(HCL_SUCCESS, hcl_device_release(d));
}

/* The backend and index that an unset selector must pick: the first GPU of cuda, hip, levelzero, opencl, vulkan,
 * else the host device. */
static void default_device(char *backend, size_t size, uint32_t *index) {
    snprintf(backend, size, "host");
    *index = 0;
    uint32_t n = 0;
    if (!CHECK_ST(HCL_SUCCESS, hcl_device_count(&n))) return;
    for (uint32_t i = 0; i < n; i++) {
        hcl_device_info di;
        if (!CHECK_ST(HCL_SUCCESS, hcl_device_get_info_by_index(i, &di))) return;
        if (di.type == HCL_DEVICE_TYPE_GPU && strcmp(di.backend, "host") != 0) {
            snprintf(backend, size, "%s", di.backend);
            *index = di.index;
            return;
        }
    }
}

/* The library lists the build's backends (HCL_BACKENDS in the root CMakeLists.txt), in its order, each embedded
 * one built in and available, then the HCL_EXTRA_DRIVERS names. */
CONF_GLOBAL_TEST(loader, build_list) {
    static const struct {
        const char *name;
        bool embedded;
    } list[] = {
#define EMBEDDED_MODULE false
#define EMBEDDED_EMBEDDED true
#define X(name, build, role) {#name, EMBEDDED_##build},
        HCL_BACKEND_LIST(X)
#undef X
#undef EMBEDDED_MODULE
#undef EMBEDDED_EMBEDDED
    };
    environment(testdriver_dir("", ""), "testok", NULL, NULL);
    uint32_t count = 0;
    REQUIRE_OK(hcl_backend_count(&count));
    REQUIRE(count == CONF_NUM_BACKENDS + 1, "%u backends: the build's %d and one extra", count, CONF_NUM_BACKENDS);
    for (uint32_t i = 0; i < count; i++) {
        hcl_backend_info bi;
        if (!CHECK_ST(HCL_SUCCESS, hcl_backend_get_info(i, &bi))) continue;
        const char *want = i < CONF_NUM_BACKENDS ? list[i].name : "testok";
        CHECK(strcmp(bi.name, want) == 0, "backend %u is \"%s\", expected \"%s\"", i, bi.name, want);
        if (i < CONF_NUM_BACKENDS && list[i].embedded)
            CHECK(bi.available && strcmp(bi.module_path, "(built in)") == 0,
                  "embedded backend %s: available %d, module \"%s\" (%s)", bi.name, bi.available, bi.module_path,
                  bi.reason);
    }
}

CONF_GLOBAL_TEST(loader, unknown_backend) {
    environment(NULL, NULL, NULL, NULL);
    static const char *sel[] = {"nosuch", "nosuch:0", "cud", "hosts"};
    for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
        hcl_device d = SENTINEL_DEVICE;
        if (CHECK_ST(HCL_ERROR_UNKNOWN_BACKEND, hcl_device_open(sel[i], &d))) CHECK_MSG_HAS(KNOWN_LIST);
        CHECK(d == SENTINEL_DEVICE, "a failing hcl_device_open wrote its out-parameter");
    }
    if (CHECK_ST(HCL_ERROR_UNKNOWN_BACKEND, hcl_device_open("nosuch", &(hcl_device){NULL}))) CHECK_MSG_HAS("nosuch");
}

CONF_GLOBAL_TEST(loader, missing_module) {
    char dir[] = "/tmp/hcl-conformance-empty-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp");
    environment(dir, "testmissing", NULL, NULL);
    hcl_backend_info bi;
    uint32_t index = 0, count = 0;
    if (CHECK_ST(HCL_SUCCESS, hcl_backend_count(&count)))
        CHECK(count == CONF_NUM_BACKENDS + 1, "%u backends with one extra driver named", count);
    if (backend_named("testmissing", &bi, &index)) {
        CHECK(index == CONF_NUM_BACKENDS, "the extra backend is at %u, after the built-in ones", index);
        CHECK(!bi.available && bi.device_count == 0, "a missing module is available (%u devices)", bi.device_count);
        CHECK(strstr(bi.reason, "libhcl-testmissing.so") != NULL, "the reason should name the module: \"%s\"",
              bi.reason);
        CHECK(strstr(bi.reason, dir) != NULL, "the reason should list the paths tried (%s): \"%s\"", dir, bi.reason);
    }
    if (CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_device_open("testmissing", &(hcl_device){NULL})))
        CHECK_MSG_HAS("libhcl-testmissing.so");
    /* The rest still works. */
    open_expect("host", HCL_SUCCESS, "host", 0);
    rmdir(dir);
}

/* Backend `name`, in the environment set, is unavailable with no devices and a reason that mentions each of needles;
 * opening it is HCL_ERROR_BACKEND_UNAVAILABLE with a message that mentions them too; the host backend still opens.
 * out_bi (may be NULL): the backend's info, when it is listed (the return value). */
static bool expect_refused(const char *name, const char *const *needles, size_t n_needles, hcl_backend_info *out_bi) {
    hcl_backend_info bi;
    const bool listed = backend_named(name, &bi, NULL);
    if (listed) {
        CHECK(!bi.available && bi.device_count == 0, "module %s was accepted (%s)", name, bi.module_path);
        CHECK(bi.reason[0] != 0, "module %s refused without a reason", name);
        for (size_t i = 0; i < n_needles; i++)
            CHECK(strstr(bi.reason, needles[i]) != NULL, "the reason should mention \"%s\": \"%s\"", needles[i],
                  bi.reason);
        cr_log_info("%s: %s", name, bi.reason);
        if (out_bi) *out_bi = bi;
    }
    if (CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_device_open(name, &(hcl_device){NULL})))
        for (size_t i = 0; i < n_needles; i++) CHECK_MSG_HAS(needles[i]);
    open_expect("host", HCL_SUCCESS, "host", 0);
    return listed;
}

/* The test driver `name` (TESTDRIVER_DIR) is refused (expect_refused). */
static void check_refused(const char *name, const char *const *needles, size_t n_needles) {
    environment(TESTDRIVER_DIR, name, NULL, NULL);
    expect_refused(name, needles, n_needles, NULL);
}

CONF_GLOBAL_TEST(loader, bad_abi) {
    char have[16], want[16];
    snprintf(have, sizeof have, "%d", HCL_DRIVER_ABI_MAJOR + 1);
    snprintf(want, sizeof want, "%d", HCL_DRIVER_ABI_MAJOR);
    const char *needles[] = {"ABI", have, want};
    check_refused("testbadabi", needles, 3);
}

CONF_GLOBAL_TEST(loader, no_entry_point) {
    const char *needles[] = {HCL_DRIVER_ENTRY_NAME};
    check_refused("testnoentry", needles, 1);
}

CONF_GLOBAL_TEST(loader, init_failure) {
    const char *needles[] = {TESTDRV_INITFAIL_REASON};
    check_refused("testinitfail", needles, 1);
}

CONF_GLOBAL_TEST(loader, small_table) { check_refused("testsmalltable", NULL, 0); }

CONF_GLOBAL_TEST(loader, driver_without_devices) {
    environment(TESTDRIVER_DIR, "testok", NULL, NULL);
    hcl_backend_info bi;
    if (backend_named("testok", &bi, NULL)) {
        CHECK(bi.available, "testok is unavailable: %s", bi.reason);
        CHECK(bi.device_count == 0, "testok offers %u devices", bi.device_count);
        CHECK(strstr(bi.module_path, "testdrivers/") && strstr(bi.module_path, "libhcl-testok.so"),
              "module_path \"%s\"", bi.module_path);
        CHECK(strstr(bi.version, TESTDRV_OK_VERSION) != NULL, "version \"%s\"", bi.version);
    }
    open_expect("testok", HCL_ERROR_DEVICE_NOT_FOUND, NULL, 0);
    open_expect("testok:0", HCL_ERROR_DEVICE_NOT_FOUND, NULL, 0);
    open_expect("host", HCL_SUCCESS, "host", 0);
}

CONF_GLOBAL_TEST(loader, extra_drivers_in_order) {
    static const char *names[] = {"testok", "testinitfail", "testbadabi", "testnoentry"};
    static const int avail[] = {1, 0, 0, 0};
    /* The path is a list: a folder that does not exist comes first. */
    environment(testdriver_dir("/nonexistent/hcl-conformance:", ""), "testok,testinitfail,testbadabi,testnoentry", NULL,
                NULL);
    uint32_t count = 0;
    REQUIRE_OK(hcl_backend_count(&count));
    REQUIRE(count == CONF_NUM_BACKENDS + 4, "%u backends with four extra drivers named", count);
    for (uint32_t i = 0; i < 4; i++) {
        hcl_backend_info bi;
        if (!CHECK_ST(HCL_SUCCESS, hcl_backend_get_info(CONF_NUM_BACKENDS + i, &bi))) continue;
        CHECK(strcmp(bi.name, names[i]) == 0, "backend %u is \"%s\", expected \"%s\"", CONF_NUM_BACKENDS + i, bi.name,
              names[i]);
        CHECK(bi.available == avail[i], "%s: available = %d (%s)", bi.name, bi.available, bi.reason);
    }
}

CONF_GLOBAL_TEST(loader, selector_syntax) {
    environment(NULL, NULL, NULL, NULL);
    hcl_backend_info host;
    REQUIRE(backend_named("host", &host, NULL), "host backend");
    open_expect("host", HCL_SUCCESS, "host", 0);
    open_expect("host:0", HCL_SUCCESS, "host", 0);
    char sel[32];
    snprintf(sel, sizeof sel, "host:%u", host.device_count);
    open_expect(sel, HCL_ERROR_DEVICE_NOT_FOUND, NULL, 0);
    open_expect("host:5", HCL_ERROR_DEVICE_NOT_FOUND, NULL, 0);
    static const char *malformed[] = {"host:x",   "host:", ":",     ":0",    "host:1x",
                                      "host:0:0", ",",     "host,", ",host", "host:-"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
        open_expect(malformed[i], HCL_ERROR_INVALID_ARGUMENT, NULL, 0);
    /* An index too large for any integer type is no device (or malformed), never device 0 or a crash. */
    hcl_device d = NULL;
    CHECK_ST2(HCL_ERROR_DEVICE_NOT_FOUND, HCL_ERROR_INVALID_ARGUMENT,
              hcl_device_open("host:99999999999999999999999", &d));
    CHECK_ST2(HCL_ERROR_DEVICE_NOT_FOUND, HCL_ERROR_INVALID_ARGUMENT, hcl_device_open("host:4294967296", &d));
}

CONF_GLOBAL_TEST(loader, selector_lists) {
    environment(TESTDRIVER_DIR, "testinitfail,testbadabi,testok", NULL, NULL);
    if (CHECK_ST(HCL_ERROR_UNKNOWN_BACKEND, hcl_device_open("nosuch,host", &(hcl_device){NULL})))
        CHECK_MSG_HAS(KNOWN_LIST);
    /* The first available named backend that has the device wins. */
    hcl_backend_info cuda;
    if (backend_named("cuda", &cuda, NULL)) {
        bool cuda_ok = cuda.available && cuda.device_count > 0;
        open_expect("cuda,host", HCL_SUCCESS, cuda_ok ? "cuda" : "host", 0);
    }
    open_expect("testinitfail,host", HCL_SUCCESS, "host", 0);
    open_expect("testok,host", HCL_SUCCESS, "host", 0);
    open_expect("host:5,host:0", HCL_SUCCESS, "host", 0);
    /* None available: every reason. */
    if (CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_device_open("testinitfail,testbadabi", &(hcl_device){NULL}))) {
        CHECK_MSG_HAS(TESTDRV_INITFAIL_REASON);
        CHECK_MSG_HAS("ABI");
    }
}

/* HCL_BACKEND and HCL_DEVICE apply to a NULL or "" selector only. One test per environment. */
CONF_GLOBAL_TEST(loader, env_backend) {
    environment(NULL, NULL, "host", NULL);
    open_expect(NULL, HCL_SUCCESS, "host", 0);
    open_expect("", HCL_SUCCESS, "host", 0);
}

CONF_GLOBAL_TEST(loader, env_device) {
    environment(NULL, NULL, "host", "0");
    open_expect(NULL, HCL_SUCCESS, "host", 0);
}

CONF_GLOBAL_TEST(loader, env_device_missing) {
    environment(NULL, NULL, "host", "99");
    open_expect(NULL, HCL_ERROR_DEVICE_NOT_FOUND, NULL, 0);
    open_expect("host", HCL_SUCCESS, "host", 0); /* an explicit selector ignores the environment */
}

CONF_GLOBAL_TEST(loader, env_unknown) {
    environment(NULL, NULL, "nosuch", NULL);
    if (CHECK_ST(HCL_ERROR_UNKNOWN_BACKEND, hcl_device_open(NULL, &(hcl_device){NULL}))) CHECK_MSG_HAS(KNOWN_LIST);
    open_expect("host", HCL_SUCCESS, "host", 0);
}

CONF_GLOBAL_TEST(loader, env_unavailable) {
    environment(TESTDRIVER_DIR, "testinitfail", "testinitfail", NULL);
    if (CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_device_open(NULL, &(hcl_device){NULL})))
        CHECK_MSG_HAS(TESTDRV_INITFAIL_REASON);
}

CONF_GLOBAL_TEST(loader, env_list) {
    environment(TESTDRIVER_DIR, "testinitfail", "testinitfail,host", NULL);
    open_expect(NULL, HCL_SUCCESS, "host", 0);
}

CONF_GLOBAL_TEST(loader, env_device_malformed) {
    environment(NULL, NULL, "host", "x");
    open_expect(NULL, HCL_ERROR_INVALID_ARGUMENT, NULL, 0);
}

/* An empty HCL_BACKEND is no choice: the default rule applies. */
CONF_GLOBAL_TEST(loader, env_empty) {
    environment(NULL, NULL, "", NULL);
    char backend[32];
    uint32_t index;
    default_device(backend, sizeof backend, &index);
    open_expect(NULL, HCL_SUCCESS, backend, index);
}

/* HCL_DRIVER_PATH is searched before the folder of libhcl: a module there named like a built-in backend wins
 * (it is the test driver that fails its init). */
CONF_GLOBAL_TEST(loader, driver_path_first) {
    environment(testdriver_dir("", "/override"), NULL, NULL, NULL);
    const char *needles[] = {TESTDRV_INITFAIL_REASON}; /* the override module's init failure */
    expect_refused("opencl", needles, 1, NULL);
}

CONF_GLOBAL_TEST(loader, env_unset_default) {
    environment(NULL, NULL, NULL, NULL);
    char backend[32];
    uint32_t index;
    default_device(backend, sizeof backend, &index);
    cr_log_info("the default device here is %s:%u", backend, index);
    open_expect(NULL, HCL_SUCCESS, backend, index);
    open_expect("", HCL_SUCCESS, backend, index);
}

/* ---- broken modules: each is reported unavailable with its reason, and nothing hangs or crashes ---- */

/* A folder of its own holding `name`'s module made by make(path); the backend must be refused, its reason holding
 * `needle`. */
static void check_broken_module(const char *name, void (*make)(const char *path), const char *needle) {
    char dir[] = "/tmp/hcl-conformance-broken-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp");
    char path[sizeof dir + 64];
    snprintf(path, sizeof path, "%s/libhcl-%s.so", dir, name);
    make(path);
    environment(dir, name, NULL, NULL);
    expect_refused(name, &needle, 1, NULL);
    unlink(path);
    rmdir(dir);
}

/* The good test module, cut to `keep` of its bytes (keep < 0: its whole size + keep). */
static void copy_testok(const char *path, long keep) {
    char src[4096 + 64];
    snprintf(src, sizeof src, "%s/libhcl-testok.so", TESTDRIVER_DIR);
    FILE *in = fopen(src, "rb"), *out = fopen(path, "wb");
    if (!CHECK(in && out, "copy %s to %s", src, path)) goto done;
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    if (keep < 0) keep += size;
    for (long i = 0; i < keep; i++) {
        int c = fgetc(in);
        if (c == EOF) break;
        fputc(c, out);
    }
done:
    if (in) fclose(in);
    if (out) fclose(out);
}
static void make_half(const char *path) { copy_testok(path, 4096); }
static void make_cut_tail(const char *path) { copy_testok(path, -3000); }
static void make_fifo(const char *path) { CHECK(mkfifo(path, 0644) == 0, "mkfifo %s", path); }
static void make_folder(const char *path) { CHECK(mkdir(path, 0755) == 0, "mkdir %s", path); }

/* A module cut short dies with SIGBUS inside dlopen unless it is checked first. */
CONF_GLOBAL_TEST(loader, truncated_module) { check_broken_module("testtrunc", make_half, "truncated"); }

/* Cut near its end, inside its last loadable segment or after it. */
CONF_GLOBAL_TEST(loader, truncated_module_tail) {
    char dir[] = "/tmp/hcl-conformance-broken-XXXXXX";
    REQUIRE(mkdtemp(dir) != NULL, "mkdtemp");
    char path[sizeof dir + 64];
    snprintf(path, sizeof path, "%s/libhcl-testtail.so", dir);
    make_cut_tail(path);
    environment(dir, "testtail", NULL, NULL);
    hcl_backend_info bi;
    /* Either refused (a segment cut) or loaded whole (only section headers cut): never a crash. */
    if (backend_named("testtail", &bi, NULL)) cr_log_info("testtail: available %d: %s", bi.available, bi.reason);
    open_expect("host", HCL_SUCCESS, "host", 0);
    unlink(path);
    rmdir(dir);
}

/* A FIFO where a module should be hangs a reader (dlopen) forever unless only regular files are opened. */
CONF_GLOBAL_TEST(loader, fifo_module) { check_broken_module("testfifo", make_fifo, "not a regular file"); }

CONF_GLOBAL_TEST(loader, folder_module) { check_broken_module("testfolder", make_folder, "not a regular file"); }

CONF_GLOBAL_TEST(loader, data_entry_point) {
    const char *needles[] = {HCL_DRIVER_ENTRY_NAME, "not a function"};
    check_refused("testdataentry", needles, 2);
}

CONF_GLOBAL_TEST(loader, too_many_devices) {
    const char *needles[] = {"4294967295", "4096"};
    check_refused("testmanydevices", needles, 2);
    hcl_backend_info bi;
    if (backend_named("testmanydevices", &bi, NULL))
        CHECK(strlen(bi.version) < sizeof bi.version, "the version text is cut at its buffer");
    uint32_t n = 0;
    if (CHECK_ST(HCL_SUCCESS, hcl_device_count(&n))) CHECK(n < 4096, "%u devices counted", n);
}

/* The driver leaves its reason buffer without a NUL: the core cuts it (AddressSanitizer finds any over-read). */
CONF_GLOBAL_TEST(loader, unterminated_reason) {
    environment(TESTDRIVER_DIR, "testunterminated", NULL, NULL);
    hcl_backend_info bi;
    if (expect_refused("testunterminated", NULL, 0, &bi)) {
        size_t n = strnlen(bi.reason, sizeof bi.reason);
        CHECK(n > 100 && n < sizeof bi.reason, "the reason is %zu bytes", n);
        for (size_t i = 0; i < n; i++)
            if (!CHECK(bi.reason[i] == TESTDRV_FILL_CHAR, "reason byte %zu is 0x%02x", i, (unsigned char)bi.reason[i]))
                break;
    }
}

/* HCL_DEVICE is the index within the chosen backend on the default path too (HCL_BACKEND unset), whatever the
 * hardware: index 0 of the default backend, and an index past its devices is a clear error, never another device. */
CONF_GLOBAL_TEST(loader, env_default_device) {
    environment(NULL, NULL, NULL, NULL);
    char backend[32];
    uint32_t first_gpu;
    default_device(backend, sizeof backend, &first_gpu);
    environment(NULL, NULL, NULL, "0");
    open_expect(NULL, HCL_SUCCESS, backend, 0);
}

CONF_GLOBAL_TEST(loader, env_default_device_missing) {
    environment(NULL, NULL, NULL, NULL);
    char backend[32], selector[64];
    uint32_t first_gpu;
    default_device(backend, sizeof backend, &first_gpu);
    hcl_backend_info bi;
    REQUIRE(backend_named(backend, &bi, NULL), "the default backend");
    environment(NULL, NULL, NULL, "99");
    if (bi.device_count <= 99 && CHECK_ST(HCL_ERROR_DEVICE_NOT_FOUND, hcl_device_open(NULL, &(hcl_device){NULL}))) {
        CHECK_MSG_HAS("HCL_DEVICE");
        CHECK_MSG_HAS("default backend");
        CHECK_MSG_HAS(backend);
        CHECK_MSG_HAS("available: ");
    }
    /* the last device of the default backend is reachable through HCL_DEVICE */
    snprintf(selector, sizeof selector, "%u", bi.device_count - 1);
    environment(NULL, NULL, NULL, selector);
    open_expect(NULL, HCL_SUCCESS, backend, bi.device_count - 1);
}

/* A failing selection lists what is available instead. */
CONF_GLOBAL_TEST(loader, unavailable_lists_available) {
    environment(TESTDRIVER_DIR, "testinitfail", "testinitfail", NULL);
    if (CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_device_open(NULL, &(hcl_device){NULL}))) {
        CHECK_MSG_HAS(TESTDRV_INITFAIL_REASON);
        CHECK_MSG_HAS("available: ");
        CHECK_MSG_HAS("host (");
    }
    if (CHECK_ST(HCL_ERROR_BACKEND_UNAVAILABLE, hcl_device_open("testinitfail", &(hcl_device){NULL})))
        CHECK_MSG_HAS("available: ");
    if (CHECK_ST(HCL_ERROR_DEVICE_NOT_FOUND, hcl_device_open("host:7", &(hcl_device){NULL})))
        CHECK_MSG_HAS("available: ");
}

/* A driver whose start fails for want of host memory: hcl_device_open says HCL_ERROR_OUT_OF_MEMORY (hcl.h), not that
 * the backend is unavailable, and its message does not list that backend as available; the next call starts it. */
CONF_GLOBAL_TEST(loader, driver_out_of_memory) {
    environment(TESTDRIVER_DIR, "testoomonce", NULL, NULL);
    if (CHECK_ST(HCL_ERROR_OUT_OF_MEMORY, hcl_device_open("testoomonce", &(hcl_device){NULL}))) {
        CHECK_MSG_HAS(TESTDRV_OOM_REASON);
        CHECK_MSG_HAS("out of host memory starting testoomonce");
        CHECK(strstr(hcl_last_message(), "available") == NULL, "the message lists available backends: %s",
              hcl_last_message());
    }
    /* started now: one device, whose open the test driver does not implement */
    CHECK_ST(HCL_ERROR_DEVICE_NOT_FOUND, hcl_device_open("testoomonce", &(hcl_device){NULL}));
    hcl_backend_info bi;
    if (backend_named("testoomonce", &bi, NULL)) {
        CHECK(bi.available, "testoomonce is unavailable after its retry: %s", bi.reason);
        CHECK(bi.device_count == 1, "testoomonce offers %u devices", bi.device_count);
    }
}

/* ---- HCL_LOG: the documented names and numbers, and a warning for anything else ---- */

/* Run hcl_device_open("host") (which logs "opened host:0" at info) with HCL_LOG=value and stderr in a file; give what
 * was written. */
static const char *log_output(const char *value) {
    static char text[16384];
    text[0] = '\0';
    environment(NULL, NULL, NULL, NULL);
    setenv("HCL_LOG", value, 1);
    char path[] = "/tmp/hcl-conformance-log-XXXXXX";
    int fd = mkstemp(path);
    if (!CHECK(fd >= 0, "mkstemp")) return text;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    hcl_device d = NULL;
    hcl_status st = hcl_device_open("host", &d);
    if (st == HCL_SUCCESS) hcl_device_release(d);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK(st == HCL_SUCCESS, "hcl_device_open(host) with HCL_LOG=%s: %s", value, hcl_status_name(st));
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    return text;
}

static void check_log(const char *value, bool want_info, bool want_debug, bool want_warning) {
    const char *out = log_output(value);
    CHECK((strstr(out, "info: opened host:0") != NULL) == want_info, "HCL_LOG=%s: info lines %s:\n%s", value,
          want_info ? "missing" : "present", out);
    CHECK((strstr(out, "] debug: ") != NULL) == want_debug, "HCL_LOG=%s: debug lines %s:\n%s", value,
          want_debug ? "missing" : "present", out);
    CHECK((strstr(out, "is not a log level") != NULL) == want_warning, "HCL_LOG=%s: warning %s:\n%s", value,
          want_warning ? "missing" : "present", out);
    if (want_warning)
        CHECK(strstr(out, "error, warn, info or debug, or 0 to 3") != NULL, "the warning lists the values:\n%s", out);
}

CONF_GLOBAL_TEST(loader, log_info) { check_log("info", true, false, false); }
CONF_GLOBAL_TEST(loader, log_debug_upper) { check_log("DEBUG", true, true, false); }
CONF_GLOBAL_TEST(loader, log_number_2) { check_log("2", true, false, false); }
CONF_GLOBAL_TEST(loader, log_number_3) { check_log("3", true, true, false); }
CONF_GLOBAL_TEST(loader, log_number_0) { check_log("0", false, false, false); }
CONF_GLOBAL_TEST(loader, log_error) { check_log("error", false, false, false); }
CONF_GLOBAL_TEST(loader, log_unknown_name) { check_log("verbose", false, false, true); }
CONF_GLOBAL_TEST(loader, log_unknown_number) { check_log("7", false, false, true); }
