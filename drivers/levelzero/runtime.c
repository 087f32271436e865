/* The Level Zero runtime as every file of the driver uses it: libze_loader opened and its symbol table resolved (by the
 * kit), the result names and the failure message of a Level Zero call. Below every other file of the driver: it calls
 * none of them. */
#include "internal.h"

#include <stdarg.h>

hcl__ze_symbols hcl__ze;

/* ---------------------------------------------------------------------------------------------------------
 * Result names (ze_api.h, API 1.4; later versions' codes read as ZE_RESULT_UNKNOWN_CODE with their number)
 * ------------------------------------------------------------------------------------------------------- */
#define HCL_ZE_RESULTS(X)                                                                                              \
    X(ZE_RESULT_SUCCESS)                                                                                               \
    X(ZE_RESULT_NOT_READY)                                                                                             \
    X(ZE_RESULT_ERROR_DEVICE_LOST)                                                                                     \
    X(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)                                                                              \
    X(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)                                                                            \
    X(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)                                                                            \
    X(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)                                                                             \
    X(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)                                                                           \
    X(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE)                                                                       \
    X(ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX)                                                                        \
    X(ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE)                                                                        \
    X(ZE_RESULT_EXP_ERROR_REMOTE_DEVICE)                                                                               \
    X(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS)                                                                        \
    X(ZE_RESULT_ERROR_NOT_AVAILABLE)                                                                                   \
    X(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE)                                                                          \
    X(ZE_RESULT_WARNING_DROPPED_DATA)                                                                                  \
    X(ZE_RESULT_ERROR_UNINITIALIZED)                                                                                   \
    X(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)                                                                             \
    X(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)                                                                             \
    X(ZE_RESULT_ERROR_INVALID_ARGUMENT)                                                                                \
    X(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)                                                                             \
    X(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)                                                                            \
    X(ZE_RESULT_ERROR_INVALID_NULL_POINTER)                                                                            \
    X(ZE_RESULT_ERROR_INVALID_SIZE)                                                                                    \
    X(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)                                                                                \
    X(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)                                                                           \
    X(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)                                                                  \
    X(ZE_RESULT_ERROR_INVALID_ENUMERATION)                                                                             \
    X(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)                                                                         \
    X(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)                                                                        \
    X(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)                                                                           \
    X(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)                                                                             \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)                                                                             \
    X(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)                                                                           \
    X(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)                                                                    \
    X(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)                                                                  \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)                                                                   \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)                                                                    \
    X(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE)                                                                  \
    X(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)                                                                         \
    X(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)                                                                       \
    X(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)                                                                             \
    X(ZE_RESULT_WARNING_ACTION_REQUIRED)                                                                               \
    X(ZE_RESULT_ERROR_UNKNOWN)

const char *hcl__ze_result_name(ze_result_t r) {
    switch (r) {
#define HCL__ZE_RESULT_CASE(name)                                                                                      \
    case name: return #name;
        HCL_ZE_RESULTS(HCL__ZE_RESULT_CASE)
#undef HCL__ZE_RESULT_CASE
    default: break;
    }
    return "ZE_RESULT_UNKNOWN_CODE";
}

hcl_status hcl__ze_fail(ze_result_t r, const char *fn, const char *fmt, ...) {
    hcl_status status = HCL_ERROR_VENDOR;
    switch (r) {
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: status = HCL_ERROR_OUT_OF_MEMORY; break;
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
    case ZE_RESULT_ERROR_MODULE_LINK_FAILURE:
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY: status = HCL_ERROR_BUILD; break;
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME: status = HCL_ERROR_NOT_FOUND; break;
    default: break;
    }
    return HCL_KIT_VENDOR_FAIL(status, fn, hcl__ze_result_name(r), r, HCL_KIT_CODE_HEX, NULL, fmt);
}

/* ---------------------------------------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------------------------------------- */
#define HCL__ZE_SYMBOL(name) HCL_KIT_SYMBOL(hcl__ze_symbols, name)
static const hcl_kit_symbol g_symbols[] = {HCL_ZE_SYMBOLS(HCL__ZE_SYMBOL)};

/* HCL_LEVELZERO_LIBRARY alone when it is set, else the loader's soname, then the development name. */
hcl_status hcl__ze_load(char *reason, size_t reason_size) {
    static const char *const names[] = {"libze_loader.so.1", "libze_loader.so"};
    void *library = NULL;
    hcl_status status = hcl__kit_library_open("HCL_LEVELZERO_LIBRARY", names, 2, &library, reason, reason_size);
    if (status != HCL_SUCCESS) return status;
    return hcl__kit_resolve(library, g_symbols, sizeof g_symbols / sizeof g_symbols[0], &hcl__ze,
                            "the Level Zero loader", "a Level Zero 1.0 loader is needed", reason, reason_size);
}
