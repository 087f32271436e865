/* Conformance of the calls that need no device: status names and texts, the thread-local message, the list of
 * backends and devices (with the appended hcl_device_info fields), hcl_version, the 0.1.0 hcl_device_info symbols;
 * and a check of the suite's own expected-failure logic.
 */
#define _GNU_SOURCE 1 /* RTLD_DEFAULT */
#include "common.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char *known_backends[CONF_NUM_BACKENDS] = {
#define X(name, build, role) #name,
    HCL_BACKEND_LIST(X)
#undef X
};

static void builtin_only(void) {
    unsetenv("HCL_EXTRA_DRIVERS");
    unsetenv("HCL_BACKEND");
    unsetenv("HCL_DEVICE");
}

CONF_GLOBAL_TEST(core, status_names) {
    struct {
        hcl_status status;
        const char *name, *text;
    } all[] = {
#define ENTRY(name, value, text) {HCL_##name, "HCL_" #name, text},
        HCL_STATUS_MAP(ENTRY)
#undef ENTRY
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        const char *name = hcl_status_name(all[i].status), *text = hcl_status_text(all[i].status);
        CHECK(name && strcmp(name, all[i].name) == 0, "hcl_status_name(%d) = \"%s\", expected \"%s\"",
              (int)all[i].status, name ? name : "(null)", all[i].name);
        CHECK(text && strcmp(text, all[i].text) == 0, "hcl_status_text(%d) = \"%s\", expected \"%s\"",
              (int)all[i].status, text ? text : "(null)", all[i].text);
    }
    static const int unknown[] = {1, 2, -18, -19, -100, 12345, -2147483647 - 1, 2147483647};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        const char *name = hcl_status_name((hcl_status)unknown[i]), *text = hcl_status_text((hcl_status)unknown[i]);
        CHECK(name && strcmp(name, "HCL_STATUS_UNKNOWN") == 0,
              "hcl_status_name(%d) = \"%s\", expected HCL_STATUS_UNKNOWN", unknown[i], name ? name : "(null)");
        CHECK(text && text[0], "hcl_status_text(%d) is %s", unknown[i], text ? "empty" : "NULL");
    }
}

static void *other_thread(void *arg) {
    char *out = arg;
    char before[256];
    const char *m = hcl_last_message();
    snprintf(before, sizeof before, "%s", m ? m : "(null)"); /* valid only until the next call */
    hcl_backend_info bi;
    hcl_status st = hcl_backend_get_info(987654, &bi);
    snprintf(out, 512, "%s|%d|%s", before, (int)st, hcl_last_message());
    return NULL;
}

CONF_GLOBAL_TEST(core, last_message) {
    builtin_only();
    const char *m = hcl_last_message();
    REQUIRE(m != NULL, "hcl_last_message() is NULL");
    CHECK(m[0] == 0, "hcl_last_message() before any failing call is \"%s\"", m);
    /* Raw calls here: CHECK_ST would set a message of its own first. */
    hcl_status st = hcl_backend_count(NULL);
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT, "hcl_backend_count(NULL) returned %s", hcl_status_name(st));
    char saved[HCL_REASON_MAX + 256];
    snprintf(saved, sizeof saved, "%s", hcl_last_message());
    CHECK(saved[0] != 0, "hcl_backend_count(NULL) left no message");
    uint32_t count = 0;
    st = hcl_backend_count(&count);
    CHECK(st == HCL_SUCCESS, "hcl_backend_count returned %s", hcl_status_name(st));
    CHECK(strcmp(hcl_last_message(), saved) == 0, "a successful call changed the message from \"%s\" to \"%s\"", saved,
          hcl_last_message());

    /* Thread-local: another thread starts with "" and its failure does not touch this thread's message. */
    char theirs[512] = "";
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, other_thread, theirs) == 0, "pthread_create");
    pthread_join(t, NULL);
    CHECK(strncmp(theirs, "|", 1) == 0, "a new thread's message before any call: \"%s\"", theirs);
    CHECK(strstr(theirs, "|-8|") != NULL && strlen(strstr(theirs, "|-8|")) > 4,
          "the other thread's hcl_backend_get_info(987654) should fail with DEVICE_NOT_FOUND and a message: \"%s\"",
          theirs);
    CHECK(strcmp(hcl_last_message(), saved) == 0, "another thread's failure changed this thread's message to \"%s\"",
          hcl_last_message());
}

CONF_GLOBAL_TEST(core, backends) {
    builtin_only();
    uint32_t count = 0;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_backend_count(NULL));
    REQUIRE_OK(hcl_backend_count(&count));
    REQUIRE(count == CONF_NUM_BACKENDS, "%u backends without HCL_EXTRA_DRIVERS, expected %d", count, CONF_NUM_BACKENDS);
    hcl_backend_info bi;
    memset(&bi, 0x5a, sizeof bi);
    CHECK_ST(HCL_ERROR_DEVICE_NOT_FOUND, hcl_backend_get_info(count, &bi));
    CHECK_ST(HCL_ERROR_DEVICE_NOT_FOUND, hcl_backend_get_info(UINT32_MAX, &bi));
    CHECK(((unsigned char *)&bi)[0] == 0x5a, "a failing hcl_backend_get_info wrote its out-parameter");
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_backend_get_info(0, NULL));
    uint32_t devices = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!CHECK_ST(HCL_SUCCESS, hcl_backend_get_info(i, &bi))) continue;
        CHECK(strcmp(bi.name, known_backends[i]) == 0, "backend %u is \"%s\", expected \"%s\"", i, bi.name,
              known_backends[i]);
        if (bi.available) {
            cr_log_info("backend %s: available, %u device(s), module %s, version %s", bi.name, bi.device_count,
                        bi.module_path, bi.version);
            devices += bi.device_count;
        } else {
            cr_log_info("backend %s: unavailable: %s", bi.name, bi.reason);
            CHECK(bi.reason[0] != 0, "backend %s is unavailable without a reason", bi.name);
            CHECK(bi.device_count == 0, "unavailable backend %s offers %u devices", bi.name, bi.device_count);
        }
        if (strcmp(bi.name, "host") == 0) {
            CHECK(bi.available && bi.device_count >= 1, "the built-in host backend is not available: %s", bi.reason);
            CHECK(strcmp(bi.module_path, "(built in)") == 0, "host module_path \"%s\"", bi.module_path);
        } else if (bi.available) {
            char want[64];
            snprintf(want, sizeof want, "libhcl-%s.so", bi.name);
            CHECK(strstr(bi.module_path, want) != NULL, "backend %s loaded from \"%s\"", bi.name, bi.module_path);
        }
    }

    /* The global device list: every device of every available backend, in backend order. */
    uint32_t n = 0;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_device_count(NULL));
    REQUIRE_OK(hcl_device_count(&n));
    CHECK(n == devices, "hcl_device_count = %u, but the available backends offer %u", n, devices);
    hcl_device_info di;
    CHECK_ST(HCL_ERROR_DEVICE_NOT_FOUND, hcl_device_get_info_by_index(n, &di));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_device_get_info_by_index(0, NULL));
    int last_backend = -1;
    uint32_t next_index = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!CHECK_ST(HCL_SUCCESS, hcl_device_get_info_by_index(i, &di))) continue;
        int b = -1;
        for (int k = 0; k < CONF_NUM_BACKENDS; k++)
            if (strcmp(di.backend, known_backends[k]) == 0) b = k;
        if (!CHECK(b >= 0, "device %u has backend \"%s\"", i, di.backend)) continue;
        CHECK(b >= last_backend, "device %u (%s) comes after a device of a later backend", i, di.backend);
        if (b != last_backend) next_index = 0;
        CHECK(di.index == next_index, "device %u is %s:%u, expected index %u", i, di.backend, di.index, next_index);
        CHECK(di.identity[0] != 0 && di.name[0] != 0, "device %u has no name or identity", i);
        /* the appended properties (0 = unknown) agree with each other and with the older fields */
        CHECK(di.has_fp16 <= 1 && di.has_fp64 <= 1, "device %u: fp16 %u, fp64 %u are not flags", i, di.has_fp16,
              di.has_fp64);
        CHECK(!(di.native_types & HCL_TYPE_BIT(HCL_DTYPE_F16)) || di.has_fp16, "device %u: native f16 but no fp16", i);
        for (int k = 0; k < 3; k++)
            CHECK(di.max_work_item_sizes[k] <= di.max_work_group_size, "device %u: max work-item size %d %llu > %llu",
                  i, k, (unsigned long long)di.max_work_item_sizes[k], (unsigned long long)di.max_work_group_size);
        const uint64_t peak = di.memory_clock_mhz && di.memory_bus_width_bits
                                  ? 2ull * di.memory_clock_mhz * 1000000ull * (di.memory_bus_width_bits / 8u)
                                  : 0;
        CHECK(di.peak_memory_bandwidth == peak, "device %u: peak bandwidth %llu, from %u MHz x %u bits %llu", i,
              (unsigned long long)di.peak_memory_bandwidth, di.memory_clock_mhz, di.memory_bus_width_bits,
              (unsigned long long)peak);
        CHECK(di.type != HCL_DEVICE_TYPE_CPU || di.subgroup_size <= 1, "device %u: a CPU with sub-groups of %u", i,
              di.subgroup_size);
        cr_log_info("device %u: %s:%u \"%s\" %s", i, di.backend, di.index, di.name, di.identity);
        last_backend = b;
        next_index = di.index + 1;
    }
}

/* hcl_version: the library's version is the header's (they are built together here), in text and numbers. */
CONF_GLOBAL_TEST(core, version) {
    uint32_t major = 99, minor = 99, patch = 99;
    const char *text = hcl_version(&major, &minor, &patch);
    REQUIRE(text != NULL, "hcl_version returned NULL");
    CHECK(strcmp(text, HCL_VERSION_STRING) == 0, "hcl_version() = \"%s\", the header says \"%s\"", text,
          HCL_VERSION_STRING);
    CHECK(major == HCL_VERSION_MAJOR && minor == HCL_VERSION_MINOR && patch == HCL_VERSION_PATCH,
          "hcl_version numbers %u.%u.%u, the header's %d.%d.%d", major, minor, patch, HCL_VERSION_MAJOR,
          HCL_VERSION_MINOR, HCL_VERSION_PATCH);
    char numbers[64];
    snprintf(numbers, sizeof numbers, "%u.%u.%u", major, minor, patch);
    CHECK(strcmp(numbers, text) == 0, "hcl_version text \"%s\" and numbers %s differ", text, numbers);
    CHECK(hcl_version(NULL, NULL, NULL) == text, "hcl_version with NULL out-parameters gives another string");
    CHECK(HCL_VERSION_NUMBER == HCL_VERSION_MAJOR * 10000 + HCL_VERSION_MINOR * 100 + HCL_VERSION_PATCH,
          "HCL_VERSION_NUMBER %d", HCL_VERSION_NUMBER);
}

/* ABI: a program built against HCL 0.1.0's header calls the unsuffixed symbols with a struct that ends at
 * matrix_types. They must write that prefix, the same as the _v2 symbols, and nothing after it. */
CONF_GLOBAL_TEST(core, device_info_abi_0_1) {
    builtin_only();
    typedef hcl_status (*by_index_fn)(uint32_t, hcl_device_info *);
    typedef hcl_status (*of_device_fn)(hcl_device, hcl_device_info *);
    by_index_fn old_by_index = (by_index_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "hcl_device_get_info_by_index");
    of_device_fn old_of_device = (of_device_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "hcl_device_get_info");
    REQUIRE(old_by_index && old_of_device, "libhcl does not export the 0.1.0 symbols hcl_device_get_info(_by_index)");
    const size_t prefix = offsetof(hcl_device_info, subgroup_size);
    uint32_t n = 0;
    REQUIRE_OK(hcl_device_count(&n));
    for (uint32_t i = 0; i < n; i++) {
        hcl_device_info now, old;
        REQUIRE_OK(hcl_device_get_info_by_index(i, &now));
        memset(&old, 0xa5, sizeof old);
        REQUIRE_OK(old_by_index(i, &old));
        const unsigned char *tail = (const unsigned char *)&old + prefix;
        size_t touched = 0;
        for (size_t k = 0; k < sizeof old - prefix; k++) touched += tail[k] != 0xa5;
        CHECK(touched == 0, "device %u: the 0.1.0 hcl_device_get_info_by_index wrote %zu bytes past matrix_types", i,
              touched);
        CHECK(strcmp(old.name, now.name) == 0 && strcmp(old.backend, now.backend) == 0 && old.index == now.index &&
                  old.matrix_types == now.matrix_types && strcmp(old.identity, now.identity) == 0,
              "device %u: the 0.1.0 symbol's fields differ from hcl_device_get_info_by_index_v2's", i);
        if (strcmp(now.backend, "host") != 0) continue; /* open only the device every machine has */
        hcl_device dev = NULL;
        REQUIRE_OK(hcl_device_open("host", &dev));
        memset(&old, 0xa5, sizeof old);
        CHECK_ST(HCL_SUCCESS, old_of_device(dev, &old));
        touched = 0;
        for (size_t k = 0; k < sizeof old - prefix; k++) touched += tail[k] != 0xa5;
        CHECK(touched == 0, "the 0.1.0 hcl_device_get_info wrote %zu bytes past matrix_types", touched);
        CHECK(strcmp(old.name, now.name) == 0 && old.compute_units == now.compute_units,
              "the 0.1.0 hcl_device_get_info's fields differ");
        CHECK_ST(HCL_SUCCESS, hcl_device_release(dev));
    }
}

/* The suite's own expected-failure logic, which would otherwise only run once a backend has an entry. */
CONF_GLOBAL_TEST(core, suite_expectations) {
    conf_expectation e = {"host", "api", "x", CONF_XFAIL, "issue #0", "returned HCL_ERROR_VENDOR"};
    CHECK(conf_xfail_judge(&e, 0, "") == CONF_XFAIL_PASSED, "a pass of an expected failure must be noticed");
    CHECK(conf_xfail_judge(&e, 2, "x returned HCL_ERROR_VENDOR, expected HCL_SUCCESS") == CONF_XFAIL_CONFIRMED,
          "a failure for the declared reason must be confirmed");
    CHECK(conf_xfail_judge(&e, 1, "x returned HCL_ERROR_INTERNAL") == CONF_XFAIL_OTHER,
          "a failure for another reason must be noticed");
    for (size_t i = 0; i < conf_num_expectations; i++) {
        const conf_expectation *x = &conf_expectations[i];
        bool known = false;
        for (int k = 0; k < CONF_NUM_BACKENDS; k++) known = known || strcmp(x->backend, known_backends[k]) == 0;
        CHECK(known, "expectation %zu names backend \"%s\"", i, x->backend);
        CHECK(x->kind == CONF_UNSUPPORTED || x->kind == CONF_XFAIL, "expectation %zu has kind %d", i, (int)x->kind);
        CHECK(x->reason && x->reason[0], "expectation %zu has no reason", i);
        CHECK(x->kind != CONF_XFAIL || (x->match && x->match[0]), "expected failure %zu says not how it fails", i);
        CHECK(conf_find_expectation(x->backend, x->suite, x->test[strlen(x->test) - 1] == '*' ? "" : x->test) == x ||
                  x->test[strlen(x->test) - 1] == '*',
              "expectation %zu is shadowed by an earlier one", i);
    }
}
