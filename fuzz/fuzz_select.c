/* Fuzz harness: device selection, the selector string and the environment (HCL_BACKEND, HCL_DEVICE, HCL_LOG).
 *
 * Input: up to four NUL-separated fields, the selector, HCL_BACKEND, HCL_DEVICE, HCL_LOG; a missing field is
 * unset (a NULL selector), a present one set, even when empty. hcl_device_open must give a device (released again) or
 * a failure status with a message, never a crash. HCL_LOG is read once by libhcl, so its parser (log.c, compiled in
 * here) is called directly for each input. The fuzz build has no driver modules: only the host backend is available,
 * every other name is a known but unavailable backend, so every input runs in-process in microseconds. */
#include "hcl/hcl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.c" /* read_level, the HCL_LOG parser (its own copy: libhcl's is hidden) */

#include <fcntl.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* libhcl reads HCL_LOG once: make that read see no value (errors only), so later inputs cannot make it chatty. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    unsetenv("HCL_LOG");
    hcl_device dev = NULL;
    if (hcl_device_open("no-such-backend", &dev) == HCL_SUCCESS) abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096) return 0;
    char buf[4097];
    memcpy(buf, data, size);
    buf[size] = '\0';
    const char *field[4] = {NULL, NULL, NULL, NULL};
    size_t at = 0;
    for (int i = 0; i < 4 && at <= size; i++) {
        field[i] = buf + at;
        at += strlen(buf + at) + 1;
    }
    static const char *const names[3] = {"HCL_BACKEND", "HCL_DEVICE", "HCL_LOG"};
    for (int i = 0; i < 3; i++) {
        if (field[i + 1])
            setenv(names[i], field[i + 1], 1);
        else
            unsetenv(names[i]);
    }
    hcl_device dev = NULL;
    hcl_status st = hcl_device_open(field[0], &dev);
    if (st == HCL_SUCCESS) {
        if (!dev || hcl_device_release(dev) != HCL_SUCCESS) abort();
    } else if (!hcl_last_message()[0] || dev != NULL) {
        fprintf(stderr, "hcl_device_open failed (%s) without a message or wrote its out-parameter\n",
                hcl_status_name(st));
        abort();
    }
    /* the HCL_LOG parser on this input's value; its warning about a bad value goes to /dev/null */
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    if (saved >= 0 && null >= 0) dup2(null, 2);
    log_level = HCL_LOG_ERROR;
    read_level();
    fflush(stderr);
    if (saved >= 0) dup2(saved, 2), close(saved);
    if (null >= 0) close(null);
    if (log_level < HCL_LOG_ERROR || log_level > HCL_LOG_DEBUG) abort();
    return 0;
}
