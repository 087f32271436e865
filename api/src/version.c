/* The library's version at run time: the HCL_VERSION_* of the header libhcl was built with. */
#include "core.h"

HCL_API const char *hcl_version(uint32_t *out_major, uint32_t *out_minor, uint32_t *out_patch) {
    if (out_major) *out_major = HCL_VERSION_MAJOR;
    if (out_minor) *out_minor = HCL_VERSION_MINOR;
    if (out_patch) *out_patch = HCL_VERSION_PATCH;
    return HCL_VERSION_STRING;
}
