/* ctest levelzero-unavailable: on a machine with the Level Zero loader but no Level Zero driver, the levelzero
 * backend must be reported unavailable with a reason that names zeInit's result (ZE_RESULT_..., with its code),
 * both by hcl_backend_get_info and in hcl-info's output (argv[1], when given).
 *
 * Exits 0 when both say so, 1 when they do not, 77 (skipped) where the premise does not hold: a Level Zero driver
 * is installed (the backend is available), or the loader itself is missing (zeInit never ran). */
#define _POSIX_C_SOURCE 200809L
#include <hcl/hcl.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "zeInit: ZE_RESULT_<NAME> (0x<8 hex digits>)" somewhere in text. */
static int names_zeinit_result(const char *text) {
    for (const char *p = strstr(text, "zeInit: ZE_RESULT_"); p; p = strstr(p + 1, "zeInit: ZE_RESULT_")) {
        const char *q = p + strlen("zeInit: ZE_RESULT_");
        while ((*q >= 'A' && *q <= 'Z') || *q == '_' || (*q >= '0' && *q <= '9')) q++;
        if (strncmp(q, " (0x", 4) == 0) return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    uint32_t count = 0;
    hcl_status st = hcl_backend_count(&count);
    if (st != HCL_SUCCESS) {
        printf("FAIL: hcl_backend_count: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return 1;
    }
    hcl_backend_info info;
    int found = 0;
    for (uint32_t i = 0; i < count && !found; i++) {
        st = hcl_backend_get_info(i, &info);
        if (st != HCL_SUCCESS) {
            printf("FAIL: hcl_backend_get_info(%u): %s: %s\n", i, hcl_status_name(st), hcl_last_message());
            return 1;
        }
        found = strcmp(info.name, "levelzero") == 0;
    }
    if (!found) {
        printf("FAIL: no backend named levelzero among %u\n", count);
        return 1;
    }
    if (info.available) {
        printf("SKIP: levelzero is available here (%u device(s), %s): this test is for a machine without a Level "
               "Zero driver\n",
               info.device_count, info.version);
        return 77;
    }
    printf("hcl_backend_get_info: levelzero unavailable: %s\n", info.reason);
    if (!names_zeinit_result(info.reason)) {
        if (strstr(info.reason, "libze_loader") && !strstr(info.reason, "libhcl-levelzero")) {
            printf("SKIP: the Level Zero loader (libze_loader.so.1, Debian package libze1) could not be opened, so "
                   "zeInit never ran\n");
            return 77;
        }
        printf("FAIL: the reason does not name zeInit's result (expected \"zeInit: ZE_RESULT_<NAME> (0x...)\"); "
               "was the driver module libhcl-levelzero.so found next to libhcl.so?\n");
        return 1;
    }
    if (argc < 2 || !argv[1][0]) {
        printf("PASS (hcl-info not built: only the API was checked)\n");
        return 0;
    }
    /* hcl-info prints "  levelzero  unavailable: <reason>" */
    FILE *f = popen(argv[1], "r");
    if (!f) {
        printf("FAIL: cannot run %s\n", argv[1]);
        return 1;
    }
    char line[4096];
    int line_ok = 0;
    while (fgets(line, sizeof line, f)) {
        if (!line_ok && strstr(line, "levelzero") && strstr(line, "unavailable:") && names_zeinit_result(line)) {
            printf("hcl-info: %s", line);
            line_ok = 1;
        }
    }
    int rc = pclose(f);
    if (rc != 0) {
        printf("FAIL: %s exited with status %d\n", argv[1], rc);
        return 1;
    }
    if (!line_ok) {
        printf("FAIL: hcl-info printed no line saying levelzero is unavailable with zeInit's result\n");
        return 1;
    }
    printf("PASS\n");
    return 0;
}
