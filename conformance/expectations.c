/* Per-backend declarations of the conformance suite.
 *
 * CONF_UNSUPPORTED: the backend cannot run the case at all; the test is skipped with the reason.
 * CONF_XFAIL: a known bug. The test still runs; it must fail, and its first failure must contain `match`.
 *   Confirmed, it is reported as skipped ("expected failure") with the observed failure, never as passed;
 *   if it passes, or fails some other way, the test fails so that the fix (or the new bug) is noticed.
 *   An entry names the issue it stands for in its reason.
 * Entries are keyed by backend name. A backend outside the build's list (an HCL_EXTRA_DRIVERS name) that the suite
 * knows is an alias of a built-in one (conf_aliases): it is held to that backend's entries, after its own.
 */
#include "common.h"

const conf_expectation conf_expectations[] = {
    {"host", "api", "module_build_error", CONF_UNSUPPORTED,
     "host modules are tables of C functions: nothing is compiled, so nothing can fail to build", NULL},
    {"levelzero", "api", "module_build_error", CONF_UNSUPPORTED,
     "levelzero takes SPIR-V binaries only; the suite carries no SPIR-V with a build error", NULL},
    {"host", "api", "kernel_build_options", CONF_UNSUPPORTED,
     "host modules are tables of C functions: there is no compiler to pass build options to", NULL},
    {"host", "api", "kernel_arg_check", CONF_UNSUPPORTED,
     "host modules are tables of C functions (name, pointer) that declare no parameters: arguments cannot be checked",
     NULL},
    {"levelzero", "api", "kernel_*", CONF_UNSUPPORTED,
     "the suite carries no SPIR-V build of its user kernel (it has OpenCL C, CUDA C, HIP C and host C)", NULL},
#define GLSL_ONLY(backend)                                                                                             \
    {                                                                                                                  \
        backend, "api", "glsl_newer_compiler", CONF_UNSUPPORTED,                                                       \
            "GLSL sources (HCL_SOURCE_GLSL) are the Vulkan backend's", NULL                                            \
    }
    GLSL_ONLY("host"),
    GLSL_ONLY("opencl"),
    GLSL_ONLY("cuda"),
    GLSL_ONLY("hip"),
    GLSL_ONLY("levelzero"),
#undef GLSL_ONLY
};
const size_t conf_num_expectations = sizeof conf_expectations / sizeof conf_expectations[0];

/* Backends outside the build's list that the suite knows. */
const conf_alias conf_aliases[] = {
    {"wrapped", "host",
     "conformance/extra-driver: the host driver's code built out of tree as libhcl-wrapped.so (HCL_EXTRA_DRIVERS)"},
};
const size_t conf_num_aliases = sizeof conf_aliases / sizeof conf_aliases[0];

/* Their own entries, looked up before those of the backend they are like (none today). */
const conf_expectation conf_alias_expectations[1] = {{0}};
const size_t conf_num_alias_expectations = 0;
