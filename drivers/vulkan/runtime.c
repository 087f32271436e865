/* The Vulkan runtime as every file of the driver uses it: the loader opened (by the kit), the instance created and the
 * symbol table resolved through vkGetInstanceProcAddr, the result names and the failure message of a Vulkan call.
 * Below every other file of the driver: it calls none of them. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

hcl__vk_symbols hcl__vk;
VkInstance hcl__vk_instance;

/* ---- result names (vulkan_core.h, Vulkan 1.3) ---- */
#define HCL_VK_RESULTS(X)                                                                                              \
    X(VK_SUCCESS)                                                                                                      \
    X(VK_NOT_READY)                                                                                                    \
    X(VK_TIMEOUT)                                                                                                      \
    X(VK_EVENT_SET)                                                                                                    \
    X(VK_EVENT_RESET)                                                                                                  \
    X(VK_INCOMPLETE)                                                                                                   \
    X(VK_ERROR_OUT_OF_HOST_MEMORY)                                                                                     \
    X(VK_ERROR_OUT_OF_DEVICE_MEMORY)                                                                                   \
    X(VK_ERROR_INITIALIZATION_FAILED)                                                                                  \
    X(VK_ERROR_DEVICE_LOST)                                                                                            \
    X(VK_ERROR_MEMORY_MAP_FAILED)                                                                                      \
    X(VK_ERROR_LAYER_NOT_PRESENT)                                                                                      \
    X(VK_ERROR_EXTENSION_NOT_PRESENT)                                                                                  \
    X(VK_ERROR_FEATURE_NOT_PRESENT)                                                                                    \
    X(VK_ERROR_INCOMPATIBLE_DRIVER)                                                                                    \
    X(VK_ERROR_TOO_MANY_OBJECTS)                                                                                       \
    X(VK_ERROR_FORMAT_NOT_SUPPORTED)                                                                                   \
    X(VK_ERROR_FRAGMENTED_POOL)                                                                                        \
    X(VK_ERROR_UNKNOWN)                                                                                                \
    X(VK_ERROR_OUT_OF_POOL_MEMORY)                                                                                     \
    X(VK_ERROR_INVALID_EXTERNAL_HANDLE)                                                                                \
    X(VK_ERROR_FRAGMENTATION)                                                                                          \
    X(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)                                                                         \
    X(VK_PIPELINE_COMPILE_REQUIRED)                                                                                    \
    X(VK_ERROR_VALIDATION_FAILED_EXT)                                                                                  \
    X(VK_ERROR_INVALID_SHADER_NV)                                                                                      \
    X(VK_ERROR_NOT_PERMITTED_KHR)

const char *hcl__vk_result_name(VkResult r) {
    switch (r) {
#define HCL__VK_RESULT_CASE(name)                                                                                      \
    case name: return #name;
        HCL_VK_RESULTS(HCL__VK_RESULT_CASE)
#undef HCL__VK_RESULT_CASE
    default: break;
    }
    return "VK_RESULT_UNKNOWN_CODE";
}

hcl_status hcl__vk_fail(VkResult r, const char *fn, const char *fmt, ...) {
    hcl_status status = HCL_ERROR_VENDOR;
    switch (r) {
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY: status = HCL_ERROR_OUT_OF_MEMORY; break;
    case VK_ERROR_INVALID_SHADER_NV: status = HCL_ERROR_BUILD; break;
    case VK_ERROR_FEATURE_NOT_PRESENT:
    case VK_ERROR_EXTENSION_NOT_PRESENT: status = HCL_ERROR_UNSUPPORTED; break;
    default: break;
    }
    return HCL_KIT_VENDOR_FAIL(status, fn, hcl__vk_result_name(r), r, HCL_KIT_CODE_DECIMAL, NULL, fmt);
}

/* ---- loading ---- */
typedef struct {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr;
} loader_symbols;
static const hcl_kit_symbol g_loader_symbols[] = {HCL_KIT_SYMBOL(loader_symbols, vkGetInstanceProcAddr)};

typedef struct {
    const char *name;
    size_t offset;
} proc;
#define HCL__VK_PROC(name) {#name, offsetof(hcl__vk_symbols, name)},
static const proc g_global[] = {HCL_VK_GLOBAL_SYMBOLS(HCL__VK_PROC)};
static const proc g_instance[] = {HCL_VK_SYMBOLS(HCL__VK_PROC)};

/* Resolve procs[0..count) through vkGetInstanceProcAddr(instance, ...); the first missing one's name or NULL. */
static const char *resolve(VkInstance instance, const proc *procs, size_t count) {
    for (size_t i = 0; i < count; i++) {
        PFN_vkVoidFunction f = hcl__vk.vkGetInstanceProcAddr(instance, procs[i].name);
        if (!f) return procs[i].name;
        memcpy((char *)&hcl__vk + procs[i].offset, &f, sizeof f);
    }
    return NULL;
}

hcl_status hcl__vk_load(char *reason, size_t reason_size, char *version, size_t version_size) {
    static const char *const names[] = {"libvulkan.so.1", "libvulkan.so"};
    void *library = NULL;
    loader_symbols ls = {0};
    hcl_status status = hcl__kit_library_open("HCL_VULKAN_LIBRARY", names, 2, &library, reason, reason_size);
    if (status != HCL_SUCCESS) return status;
    status = hcl__kit_resolve(library, g_loader_symbols, 1, &ls, "the Vulkan loader", "a Vulkan loader is needed",
                              reason, reason_size);
    if (status != HCL_SUCCESS) return status;
    hcl__vk.vkGetInstanceProcAddr = ls.vkGetInstanceProcAddr;
    const char *missing = resolve(VK_NULL_HANDLE, g_global, sizeof g_global / sizeof g_global[0]);
    if (missing) {
        snprintf(reason, reason_size, "the Vulkan loader %s lacks %s (a Vulkan 1.1 loader is needed)",
                 hcl__kit_library_name(), missing);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    uint32_t api = 0;
    VkResult r = hcl__vk.vkEnumerateInstanceVersion(&api);
    if (r != VK_SUCCESS || api < VK_API_VERSION_1_2) {
        snprintf(reason, reason_size, "the Vulkan loader %s offers Vulkan %u.%u; HCL needs 1.2 (timeline semaphores)",
                 hcl__kit_library_name(), VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    snprintf(version, version_size, "Vulkan loader %u.%u.%u (%s)", VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api),
             VK_API_VERSION_PATCH(api), hcl__kit_library_name());
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "hcl",
                             .pEngineName = "hcl",
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    r = hcl__vk.vkCreateInstance(&ci, NULL, &hcl__vk_instance);
    if (r != VK_SUCCESS) {
        snprintf(reason, reason_size, "vkCreateInstance: %s (%d)%s", hcl__vk_result_name(r), (int)r,
                 r == VK_ERROR_INCOMPATIBLE_DRIVER ? ": the Vulkan loader found no driver (ICD); a vendor's Vulkan "
                                                     "driver or Mesa's lavapipe (mesa-vulkan-drivers) is needed "
                                                     "(NVIDIA's libGLX_nvidia.so.0 also fails this way where "
                                                     "libX11 and libXext are missing: an ICD file naming "
                                                     "libEGL_nvidia.so.0 reaches the same driver, "
                                                     "docs/backends.md)"
                                                   : "");
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    missing = resolve(hcl__vk_instance, g_instance, sizeof g_instance / sizeof g_instance[0]);
    if (missing) {
        snprintf(reason, reason_size, "the Vulkan instance lacks %s (a Vulkan 1.2 loader and driver are needed)",
                 missing);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    return HCL_SUCCESS;
}
