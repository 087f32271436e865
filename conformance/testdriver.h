/* What the test driver modules (testdriver.c) say, shared with the loader tests that check it. */
#ifndef HCL_CONFORMANCE_TESTDRIVER_H
#define HCL_CONFORMANCE_TESTDRIVER_H

#define TESTDRV_INITFAIL_REASON "testinitfail: simulated vendor runtime failure VENDOR_ERROR_42 (-42)"
#define TESTDRV_OOM_REASON "testoomonce: out of host memory adding device 0"
#define TESTDRV_OK_VERSION "testok 1.0 (conformance test driver)"
/* The byte testunterminated fills its reason buffer with, and testmanydevices its version buffer. */
#define TESTDRV_FILL_CHAR 'x'

#endif /* HCL_CONFORMANCE_TESTDRIVER_H */
