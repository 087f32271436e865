/* The kit's unit tests' one check: count it, and print what failed (test_check.c). A test program ends with
 * test_check_report. Also the tests' one file reader. */
#ifndef HCL_DRIVERS_COMMON_TEST_CHECK_H
#define HCL_DRIVERS_COMMON_TEST_CHECK_H

#include <stddef.h>

/* Count a check; when !ok, count a failure and print "FAIL: <what>" to stderr. */
void check(int ok, const char *what);

/* Print "<name>: <checks> checks, <failed> failed" and give the exit status: 0 when none failed, else 1. */
int test_check_report(const char *name);

/* The whole file at path (malloc'd) and its size in *size; NULL (and 0) when it cannot be read or is empty. */
void *test_read_file(const char *path, size_t *size);

#endif /* HCL_DRIVERS_COMMON_TEST_CHECK_H */
