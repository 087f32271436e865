/* Per-backend declarations of the conformance suite.
 *
 * CONF_UNSUPPORTED: the backend cannot run the case at all; the test is skipped with the reason.
 * CONF_XFAIL: a known bug. The test still runs; it must fail, and its first failure must contain `match`.
 *   Confirmed, it is reported as skipped ("expected failure") with the observed failure, never as passed;
 *   if it passes, or fails some other way, the test fails so that the fix (or the new bug) is noticed.
 *   An entry names the issue it stands for in its reason.
 */
#include "common.h"

const conf_expectation conf_expectations[] = {
    {"host", "api", "module_build_error", CONF_UNSUPPORTED,
     "host modules are tables of C functions: nothing is compiled, so nothing can fail to build", NULL},
    {"levelzero", "api", "module_build_error", CONF_UNSUPPORTED,
     "levelzero takes SPIR-V binaries only; the suite carries no SPIR-V with a build error", NULL},
    {"host", "api", "kernel_build_options", CONF_UNSUPPORTED,
     "host modules are tables of C functions: there is no compiler to pass build options to", NULL},
    {"levelzero", "api", "kernel_*", CONF_UNSUPPORTED,
     "the suite carries no SPIR-V build of its user kernel (it has OpenCL C, CUDA C, HIP C and host C)", NULL},
};
const size_t conf_num_expectations = sizeof conf_expectations / sizeof conf_expectations[0];
