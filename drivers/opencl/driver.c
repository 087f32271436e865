/* The OpenCL driver: entry point, loading libOpenCL, error names, device discovery and opening. The lifecycle,
 * the device list and the library loading are the driver kit's (drivers/common). */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_DEVICE_UUID_KHR
#define CL_DEVICE_UUID_KHR 0x106A
#endif
/* Vendor extension queries of the sub-group width (cl_nv_device_attribute_query, cl_amd_device_attribute_query,
 * cl_intel_required_subgroup_size); CL/cl_ext.h is not needed for three numbers. */
#define HCL_CL_DEVICE_WARP_SIZE_NV 0x4003
#define HCL_CL_DEVICE_WAVEFRONT_WIDTH_AMD 0x4043
#define HCL_CL_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108

hcl__ocl_symbols hcl__cl;
#ifdef HCL_FAULT_INJECTION
const long long hcl__kit_fault_code = CL_OUT_OF_HOST_MEMORY; /* what an injected OpenCL call returns (fault.h) */
#endif

/* ---------------------------------------------------------------------------------------------------------
 * Error names
 * ------------------------------------------------------------------------------------------------------- */
static const struct {
    cl_int code;
    const char *name;
} g_errors[] = {
    {0, "CL_SUCCESS"},
    {-1, "CL_DEVICE_NOT_FOUND"},
    {-2, "CL_DEVICE_NOT_AVAILABLE"},
    {-3, "CL_COMPILER_NOT_AVAILABLE"},
    {-4, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
    {-5, "CL_OUT_OF_RESOURCES"},
    {-6, "CL_OUT_OF_HOST_MEMORY"},
    {-7, "CL_PROFILING_INFO_NOT_AVAILABLE"},
    {-8, "CL_MEM_COPY_OVERLAP"},
    {-9, "CL_IMAGE_FORMAT_MISMATCH"},
    {-10, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
    {-11, "CL_BUILD_PROGRAM_FAILURE"},
    {-12, "CL_MAP_FAILURE"},
    {-13, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
    {-14, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
    {-15, "CL_COMPILE_PROGRAM_FAILURE"},
    {-16, "CL_LINKER_NOT_AVAILABLE"},
    {-17, "CL_LINK_PROGRAM_FAILURE"},
    {-18, "CL_DEVICE_PARTITION_FAILED"},
    {-19, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
    {-30, "CL_INVALID_VALUE"},
    {-31, "CL_INVALID_DEVICE_TYPE"},
    {-32, "CL_INVALID_PLATFORM"},
    {-33, "CL_INVALID_DEVICE"},
    {-34, "CL_INVALID_CONTEXT"},
    {-35, "CL_INVALID_QUEUE_PROPERTIES"},
    {-36, "CL_INVALID_COMMAND_QUEUE"},
    {-37, "CL_INVALID_HOST_PTR"},
    {-38, "CL_INVALID_MEM_OBJECT"},
    {-39, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
    {-40, "CL_INVALID_IMAGE_SIZE"},
    {-41, "CL_INVALID_SAMPLER"},
    {-42, "CL_INVALID_BINARY"},
    {-43, "CL_INVALID_BUILD_OPTIONS"},
    {-44, "CL_INVALID_PROGRAM"},
    {-45, "CL_INVALID_PROGRAM_EXECUTABLE"},
    {-46, "CL_INVALID_KERNEL_NAME"},
    {-47, "CL_INVALID_KERNEL_DEFINITION"},
    {-48, "CL_INVALID_KERNEL"},
    {-49, "CL_INVALID_ARG_INDEX"},
    {-50, "CL_INVALID_ARG_VALUE"},
    {-51, "CL_INVALID_ARG_SIZE"},
    {-52, "CL_INVALID_KERNEL_ARGS"},
    {-53, "CL_INVALID_WORK_DIMENSION"},
    {-54, "CL_INVALID_WORK_GROUP_SIZE"},
    {-55, "CL_INVALID_WORK_ITEM_SIZE"},
    {-56, "CL_INVALID_GLOBAL_OFFSET"},
    {-57, "CL_INVALID_EVENT_WAIT_LIST"},
    {-58, "CL_INVALID_EVENT"},
    {-59, "CL_INVALID_OPERATION"},
    {-60, "CL_INVALID_GL_OBJECT"},
    {-61, "CL_INVALID_BUFFER_SIZE"},
    {-62, "CL_INVALID_MIP_LEVEL"},
    {-63, "CL_INVALID_GLOBAL_WORK_SIZE"},
    {-64, "CL_INVALID_PROPERTY"},
    {-65, "CL_INVALID_IMAGE_DESCRIPTOR"},
    {-66, "CL_INVALID_COMPILER_OPTIONS"},
    {-67, "CL_INVALID_LINKER_OPTIONS"},
    {-68, "CL_INVALID_DEVICE_PARTITION_COUNT"},
    /* OpenCL 2.x and 3.0: a newer runtime may return them to a 1.2 caller */
    {-69, "CL_INVALID_PIPE_SIZE"},
    {-70, "CL_INVALID_DEVICE_QUEUE"},
    {-71, "CL_INVALID_SPEC_ID"},
    {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
    /* extensions */
    {-1000, "CL_INVALID_GL_SHAREGROUP_REFERENCE_KHR"},
    {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
    {-1002, "CL_INVALID_D3D10_DEVICE_KHR"},
    {-1003, "CL_INVALID_D3D10_RESOURCE_KHR"},
    {-1004, "CL_D3D10_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1005, "CL_D3D10_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1006, "CL_INVALID_D3D11_DEVICE_KHR"},
    {-1007, "CL_INVALID_D3D11_RESOURCE_KHR"},
    {-1008, "CL_D3D11_RESOURCE_ALREADY_ACQUIRED_KHR"},
    {-1009, "CL_D3D11_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1010, "CL_INVALID_DX9_MEDIA_ADAPTER_KHR"},
    {-1011, "CL_INVALID_DX9_MEDIA_SURFACE_KHR"},
    {-1012, "CL_DX9_MEDIA_SURFACE_ALREADY_ACQUIRED_KHR"},
    {-1013, "CL_DX9_MEDIA_SURFACE_NOT_ACQUIRED_KHR"},
    {-1057, "CL_DEVICE_PARTITION_FAILED_EXT"},
    {-1058, "CL_INVALID_PARTITION_COUNT_EXT"},
    {-1059, "CL_INVALID_PARTITION_NAME_EXT"},
    {-1092, "CL_EGL_RESOURCE_NOT_ACQUIRED_KHR"},
    {-1093, "CL_INVALID_EGL_OBJECT_KHR"},
    {-1094, "CL_INVALID_ACCELERATOR_INTEL"},
    {-1095, "CL_INVALID_ACCELERATOR_TYPE_INTEL"},
    {-1096, "CL_INVALID_ACCELERATOR_DESCRIPTOR_INTEL"},
    {-1097, "CL_ACCELERATOR_TYPE_NOT_SUPPORTED_INTEL"},
    {-1098, "CL_INVALID_VA_API_MEDIA_ADAPTER_INTEL"},
    {-1099, "CL_INVALID_VA_API_MEDIA_SURFACE_INTEL"},
    {-1100, "CL_VA_API_MEDIA_SURFACE_ALREADY_ACQUIRED_INTEL"},
    {-1101, "CL_VA_API_MEDIA_SURFACE_NOT_ACQUIRED_INTEL"},
    {-1108, "CL_COMMAND_TERMINATED_ITSELF_WITH_FAILURE_ARM"},
    {-1121, "CL_CONTEXT_TERMINATED_KHR"},
    {-1138, "CL_INVALID_COMMAND_BUFFER_KHR"},
    {-1139, "CL_INVALID_SYNC_POINT_WAIT_LIST_KHR"},
    {-1140, "CL_INCOMPATIBLE_COMMAND_QUEUE_KHR"},
    {-1141, "CL_INVALID_MUTABLE_COMMAND_KHR"},
    {-1142, "CL_INVALID_SEMAPHORE_KHR"},
    /* NVIDIA's runtime returns -9999 (it has no name) for a kernel that faulted, e.g. an out-of-bounds access */
    {-9999, "NVIDIA_KERNEL_FAULT"},
};

const char *hcl__ocl_error_name(cl_int err) {
    for (size_t i = 0; i < sizeof g_errors / sizeof g_errors[0]; i++)
        if (g_errors[i].code == err) return g_errors[i].name;
    return "CL_UNKNOWN_ERROR";
}

hcl_status hcl__ocl_fail(cl_int err, int mode, const char *fn, const char *fmt, ...) {
    hcl_status status = HCL_ERROR_VENDOR;
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
        (mode == HCL_OCL_ALLOC && err == CL_OUT_OF_RESOURCES))
        status = HCL_ERROR_OUT_OF_MEMORY;
    if (err == -9999) status = HCL_ERROR_DEVICE_LOST; /* NVIDIA: the device faulted earlier in this process */
    return HCL_KIT_VENDOR_FAIL(status, fn, hcl__ocl_error_name(err), err, HCL_KIT_CODE_DECIMAL, NULL, fmt);
}

/* ---------------------------------------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------------------------------------- */
#define HCL__OCL_SYMBOL(name) HCL_KIT_SYMBOL(hcl__ocl_symbols, name)
#define HCL__OCL_SYMBOL_OPT(name) HCL_KIT_SYMBOL_OPTIONAL(hcl__ocl_symbols, name)
static const hcl_kit_symbol g_symbols[] = {HCL_OCL_SYMBOLS(HCL__OCL_SYMBOL)
                                               HCL_OCL_SYMBOLS_OPTIONAL(HCL__OCL_SYMBOL_OPT)};

/* HCL_OPENCL_LIBRARY alone when it is set, else the ICD loader's soname, then the development name. */
static hcl_status load(char *reason, size_t reason_size) {
    static const char *const names[] = {"libOpenCL.so.1", "libOpenCL.so"};
    void *library = NULL;
    hcl_status status = hcl__kit_library_open("HCL_OPENCL_LIBRARY", names, 2, &library, reason, reason_size);
    if (status != HCL_SUCCESS) return status;
    return hcl__kit_resolve(library, g_symbols, sizeof g_symbols / sizeof g_symbols[0], &hcl__cl, "the OpenCL library",
                            "an OpenCL 1.2 loader is needed", reason, reason_size);
}

/* ---------------------------------------------------------------------------------------------------------
 * Devices
 * ------------------------------------------------------------------------------------------------------- */
static void device_string(cl_device_id id, cl_device_info what, char *out, size_t size) {
    out[0] = '\0';
    size_t got = 0;
    if (hcl__cl.clGetDeviceInfo(id, what, size - 1, out, &got) != CL_SUCCESS) {
        out[0] = '\0';
        return;
    }
    out[size - 1] = '\0';
    /* some runtimes pad names with trailing blanks */
    size_t n = strlen(out);
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\n')) out[--n] = '\0';
}

static uint64_t device_u64(cl_device_id id, cl_device_info what, size_t width) {
    uint64_t v64 = 0;
    uint32_t v32 = 0;
    size_t v_size = 0;
    if (width == 8) {
        if (hcl__cl.clGetDeviceInfo(id, what, sizeof v64, &v64, NULL) != CL_SUCCESS) return 0;
        return v64;
    }
    if (width == sizeof(size_t)) {
        if (hcl__cl.clGetDeviceInfo(id, what, sizeof v_size, &v_size, NULL) != CL_SUCCESS) return 0;
        return v_size;
    }
    if (hcl__cl.clGetDeviceInfo(id, what, sizeof v32, &v32, NULL) != CL_SUCCESS) return 0;
    return v32;
}

/* The width of the device's sub-groups (warps, wavefronts) from the vendor's extension query; 1 on a CPU (a
 * work-group runs as a loop); 0 when the runtime does not say. */
static uint32_t subgroup_width(const hcl__ocl_device_entry *e, const char *ext) {
    cl_uint width = 0;
    if (e->info.type == HCL_DEVICE_TYPE_CPU) return 1;
    if (strstr(ext, "cl_nv_device_attribute_query") &&
        hcl__cl.clGetDeviceInfo(e->id, HCL_CL_DEVICE_WARP_SIZE_NV, sizeof width, &width, NULL) == CL_SUCCESS)
        return width;
    if (strstr(ext, "cl_amd_device_attribute_query") &&
        hcl__cl.clGetDeviceInfo(e->id, HCL_CL_DEVICE_WAVEFRONT_WIDTH_AMD, sizeof width, &width, NULL) == CL_SUCCESS)
        return width;
    /* Intel's compiler picks one of several per kernel: the smallest is the one a plan can count on */
    size_t sizes[16], got = 0;
    if (strstr(ext, "cl_intel_required_subgroup_size") &&
        hcl__cl.clGetDeviceInfo(e->id, HCL_CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &got) == CL_SUCCESS)
        for (size_t i = 0; i < got / sizeof sizes[0] && i < 16; i++)
            if (sizes[i] && (!width || sizes[i] < width)) width = (cl_uint)sizes[i];
    return width;
}

/* What clinfo shows a kernel writer beyond the basics: the sub-group width, fp64 (a non-zero CL_DEVICE_DOUBLE_FP_CONFIG,
 * core from OpenCL 1.2 or cl_khr_fp64), the work-item sizes per dimension and the global memory cache. OpenCL gives
 * neither the memory clock nor the bus width: they stay 0 (unknown), and with them the peak bandwidth. */
static void describe_limits(hcl__ocl_device_entry *e) {
    hcl_device_info *info = &e->info;
    info->subgroup_size = e->limits.subgroup_width;
    info->has_fp64 = device_u64(e->id, CL_DEVICE_DOUBLE_FP_CONFIG, 8) != 0;
    size_t sizes[16] = {0}, got = 0;
    if (hcl__cl.clGetDeviceInfo(e->id, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof sizes, sizes, &got) == CL_SUCCESS)
        for (size_t i = 0; i < 3 && i < got / sizeof sizes[0]; i++) info->max_work_item_sizes[i] = sizes[i];
    info->l2_cache_bytes = device_u64(e->id, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, 8);
}

static void describe_device(hcl__ocl_device_entry *e) {
    hcl_device_info *info = &e->info;
    device_string(e->id, CL_DEVICE_NAME, info->name, sizeof info->name);
    device_string(e->id, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    device_string(e->id, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    device_string(e->id, CL_DEVICE_VERSION, e->device_version, sizeof e->device_version);
    cl_device_type type = 0;
    if (hcl__cl.clGetDeviceInfo(e->id, CL_DEVICE_TYPE, sizeof type, &type, NULL) != CL_SUCCESS) type = 0;
    info->type = (type & CL_DEVICE_TYPE_GPU)           ? HCL_DEVICE_TYPE_GPU
                 : (type & CL_DEVICE_TYPE_CPU)         ? HCL_DEVICE_TYPE_CPU
                 : (type & CL_DEVICE_TYPE_ACCELERATOR) ? HCL_DEVICE_TYPE_ACCELERATOR
                                                       : HCL_DEVICE_TYPE_OTHER;
    info->compute_units = (uint32_t)device_u64(e->id, CL_DEVICE_MAX_COMPUTE_UNITS, 4);
    info->global_mem_bytes = device_u64(e->id, CL_DEVICE_GLOBAL_MEM_SIZE, 8);
    info->max_alloc_bytes = device_u64(e->id, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 8);
    info->max_work_group_size = device_u64(e->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof(size_t));
    info->local_mem_bytes = device_u64(e->id, CL_DEVICE_LOCAL_MEM_SIZE, 8);
    info->clock_mhz = (uint32_t)device_u64(e->id, CL_DEVICE_MAX_CLOCK_FREQUENCY, 4);
    uint32_t align_bits = (uint32_t)device_u64(e->id, CL_DEVICE_MEM_BASE_ADDR_ALIGN, 4);
    e->base_align_bytes = align_bits >= 8 ? align_bits / 8 : 1;
    info->arg_offset_alignment = e->base_align_bytes;

    size_t ext_size = 0;
    char *ext = NULL;
    if (hcl__cl.clGetDeviceInfo(e->id, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) == CL_SUCCESS && ext_size > 0 &&
        (ext = calloc(1, ext_size + 1)) != NULL &&
        hcl__cl.clGetDeviceInfo(e->id, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) != CL_SUCCESS)
        ext[0] = '\0';
    /* The UUID lets one GPU seen through CUDA and OpenCL be recognised as one (the kit writes the identity). */
    unsigned char uuid[16];
    if (ext && strstr(ext, "cl_khr_device_uuid") != NULL &&
        hcl__cl.clGetDeviceInfo(e->id, CL_DEVICE_UUID_KHR, sizeof uuid, uuid, NULL) == CL_SUCCESS)
        hcl__kit_device_uuid(info, uuid);
    /* Half-precision arithmetic with cl_khr_fp16 (the plans decide the types: kernels/plan_types.c). NVIDIA's compute
     * capability names the architecture. */
    info->has_fp16 = ext && strstr(ext, "cl_khr_fp16") ? 1u : 0u;
    cl_uint cc[2] = {0, 0};
    if (ext && strstr(ext, "cl_nv_device_attribute_query") &&
        hcl__cl.clGetDeviceInfo(e->id, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, sizeof cc[0], &cc[0],
                                NULL) == CL_SUCCESS &&
        hcl__cl.clGetDeviceInfo(e->id, 0x4001 /* CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV */, sizeof cc[1], &cc[1],
                                NULL) == CL_SUCCESS)
        snprintf(info->arch, sizeof info->arch, "sm_%u%u", (unsigned)cc[0], (unsigned)cc[1]);
    /* OpenCL states no limit on the number of work-groups (max_groups and max_grid_size stay 0) */
    e->limits.subgroup_width = subgroup_width(e, ext ? ext : "");
    describe_limits(e);
    /* The matrix unit OpenCL C reaches: Intel's XMX through cl_intel_subgroup_matrix_multiply_accumulate (not NVIDIA's
     * tensor cores). Which types the built-ins run on it, and at which sub-group sizes, is the plans' decision. */
    info->matrix_unit =
        ext && strstr(ext, "cl_intel_subgroup_matrix_multiply_accumulate") ? HCL_MATRIX_UNIT_XMX : HCL_MATRIX_UNIT_NONE;
    free(ext);
}

static void platform_string(cl_platform_id p, cl_platform_info what, char *out, size_t size) {
    out[0] = '\0';
    if (hcl__cl.clGetPlatformInfo(p, what, size - 1, out, NULL) != CL_SUCCESS) out[0] = '\0';
    out[size - 1] = '\0';
}

/* The runtime ran out of memory: the start fails with HCL_ERROR_OUT_OF_MEMORY, which the core tries again later,
 * rather than leave the backend (or a platform) without devices for the life of the process. */
static int out_of_memory(cl_int err) { return err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES; }

/* The kit's start: load libOpenCL, then list every device of every platform, in platform order. */
static hcl_status start(char *reason, size_t reason_size, char *version, size_t version_size) {
    hcl_status status = load(reason, reason_size);
    if (status != HCL_SUCCESS) return status;
    cl_platform_id *platforms = NULL;
    cl_uint num_platforms = 0;
    cl_int err = HCL_KIT_FAULT(cl_int, hcl__cl.clGetPlatformIDs(0, NULL, &num_platforms));
    if (err != CL_SUCCESS || num_platforms == 0) {
        if (err != CL_SUCCESS)
            snprintf(reason, reason_size, "clGetPlatformIDs: %s (%d)%s", hcl__ocl_error_name(err), (int)err,
                     out_of_memory(err) ? "" : ": no OpenCL platform (no ICD registered?)");
        else
            snprintf(reason, reason_size, "clGetPlatformIDs: no OpenCL platform found (0 platforms)");
        return out_of_memory(err) ? HCL_ERROR_OUT_OF_MEMORY : HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    platforms = calloc(num_platforms, sizeof *platforms);
    if (!platforms) {
        snprintf(reason, reason_size, "out of host memory listing %u platforms", num_platforms);
        return HCL_ERROR_OUT_OF_MEMORY;
    }
    err = HCL_KIT_FAULT(cl_int, hcl__cl.clGetPlatformIDs(num_platforms, platforms, NULL));
    if (err != CL_SUCCESS) {
        snprintf(reason, reason_size, "clGetPlatformIDs: %s (%d)", hcl__ocl_error_name(err), (int)err);
        status = out_of_memory(err) ? HCL_ERROR_OUT_OF_MEMORY : HCL_ERROR_BACKEND_UNAVAILABLE;
        goto cleanup;
    }
    HCL_OCL_LOG("clGetPlatformIDs: %u platform(s)", num_platforms);

    for (cl_uint p = 0; p < num_platforms; p++) {
        char pname[128], pversion[128];
        platform_string(platforms[p], CL_PLATFORM_NAME, pname, sizeof pname);
        platform_string(platforms[p], CL_PLATFORM_VERSION, pversion, sizeof pversion);
        if (p == 0 && version && version_size) snprintf(version, version_size, "%s (%s)", pversion, pname);
        cl_uint n = 0;
        err = HCL_KIT_FAULT(cl_int, hcl__cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n));
        if (err == CL_DEVICE_NOT_FOUND || (err == CL_SUCCESS && n == 0)) {
            HCL_OCL_LOG("platform %u '%s' (%s): no devices", p, pname, pversion);
            continue;
        }
        if (out_of_memory(err)) {
            snprintf(reason, reason_size, "clGetDeviceIDs: %s (%d) on platform %u '%s'", hcl__ocl_error_name(err),
                     (int)err, p, pname);
            status = HCL_ERROR_OUT_OF_MEMORY;
            goto cleanup;
        }
        if (err != CL_SUCCESS) {
            HCL_OCL_LOG("platform %u '%s': clGetDeviceIDs: %s (%d); platform skipped", p, pname,
                        hcl__ocl_error_name(err), (int)err);
            continue;
        }
        cl_device_id *ids = calloc(n, sizeof *ids);
        if (!ids) {
            snprintf(reason, reason_size, "out of host memory listing devices");
            status = HCL_ERROR_OUT_OF_MEMORY;
            goto cleanup;
        }
        err = HCL_KIT_FAULT(cl_int, hcl__cl.clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n, ids, NULL));
        if (out_of_memory(err)) {
            snprintf(reason, reason_size, "clGetDeviceIDs: %s (%d) on platform %u '%s'", hcl__ocl_error_name(err),
                     (int)err, p, pname);
            status = HCL_ERROR_OUT_OF_MEMORY;
            free(ids);
            goto cleanup;
        }
        if (err != CL_SUCCESS) {
            HCL_OCL_LOG("platform %u '%s': clGetDeviceIDs: %s (%d); platform skipped", p, pname,
                        hcl__ocl_error_name(err), (int)err);
            free(ids);
            continue;
        }
        HCL_OCL_LOG("platform %u '%s' (%s): %u device(s)", p, pname, pversion, n);
        for (cl_uint d = 0; d < n; d++) {
            hcl__ocl_device_entry *e = hcl__kit_device_add();
            if (!e) {
                snprintf(reason, reason_size, "out of host memory listing devices");
                status = HCL_ERROR_OUT_OF_MEMORY;
                free(ids);
                goto cleanup;
            }
            e->platform = platforms[p];
            e->id = ids[d];
            snprintf(e->platform_version, sizeof e->platform_version, "%s", pversion);
            describe_device(e);
            hcl__kit_device_keep();
            HCL_OCL_LOG("device %u: %s (%s), %u compute units, sub-groups of %u, %s", e->info.index, e->info.name,
                        e->info.vendor, e->info.compute_units, e->limits.subgroup_width, e->info.identity);
        }
        free(ids);
    }
cleanup:
    free(platforms);
    return status;
}

HCL_KIT_DRIVER(HCL_OCL_NAME, hcl__ocl_device_entry, start);

/* The context is made here, never at init: a process that forks after init (Criterion) must not inherit one. */
static hcl_status ocl_device_open(uint32_t index, void **out_device) {
    hcl__ocl_device_entry *e = NULL;
    hcl__ocl_device *dev = NULL;
    hcl_status status = hcl__kit_device_new(index, sizeof *dev, (void **)&e, (void **)&dev);
    if (status != HCL_SUCCESS) return status;
    dev->entry = e;
    dev->id = e->id;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)e->platform, 0};
    cl_int err = CL_SUCCESS;
    dev->context = hcl__cl.clCreateContext(props, 1, &dev->id, NULL, NULL, &err);
    HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateContext", "device %u '%s'", index, e->info.name);
    HCL_OCL_LOG("device %u '%s': context created", index, e->info.name);
    *out_device = dev;
    return HCL_SUCCESS;
cleanup:
    free(dev);
    return status;
}

static void ocl_device_close(void *device) {
    hcl__ocl_device *dev = device;
    if (!dev) return;
    if (dev->context) hcl__cl.clReleaseContext(dev->context);
    free(dev);
}

/* Interop: device -> cl_context, queue -> cl_command_queue, buffer -> cl_mem (HCL keeps ownership). */
static hcl_status ocl_get_native(hcl_native_kind kind, void *object, void **out_native) {
    return hcl__kit_get_native(kind, object, offsetof(hcl__ocl_device, context), offsetof(hcl__ocl_queue, queue),
                               out_native);
}

hcl_status hcl__ocl_device_limits(void *device, hcl_driver_limits *out) {
    *out = ((const hcl__ocl_device *)device)->entry->limits;
    return HCL_SUCCESS;
}

static const hcl_driver_table g_table = {
    HCL_KIT_TABLE_HEAD(HCL_OCL_NAME, ocl_device_open, ocl_device_close),
    HCL_KIT_TABLE_ENTRIES(hcl__ocl)
    /* no portable page-locking in OpenCL 1.2: the core hands out aligned host memory */
    HCL_KIT_TABLE_NATIVE(NULL, NULL, ocl_get_native),
    .kernel_params = hcl__ocl_kernel_params,
    .event_query = hcl__ocl_event_query,
};

HCL_KIT_DRIVER_ENTRY(g_table)
