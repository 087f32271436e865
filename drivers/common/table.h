/* The driver kit's table helpers: the entries every driver has, declared and listed under the driver's prefix.
 *
 * A driver names its queue, event, buffer, module and kernel entry points <prefix>_<entry> (hcl__ocl_queue_create,
 * hcl__ocl_buffer_write, ...), declares them with HCL_KIT_DECLARE_ENTRIES(prefix) and fills its table with
 *     static const hcl_driver_table g_table = {
 *         HCL_KIT_TABLE_HEAD("opencl", ocl_device_open, ocl_device_close), // and the kit's init, shutdown, ...
 *         HCL_KIT_TABLE_ENTRIES(hcl__ocl)                                   // queues, events, buffers, modules, limits
 *         HCL_KIT_TABLE_NATIVE(NULL, NULL, ocl_get_native),                 // host memory, native objects
 *     };
 *     HCL_KIT_DRIVER_ENTRY(g_table)                                         // the module's exported entry point
 * The prototypes come from the one list below, so an entry point whose signature is not the table's does not
 * compile. */
#ifndef HCL_DRIVERS_COMMON_TABLE_H
#define HCL_DRIVERS_COMMON_TABLE_H

#include "devices.h"

/* The table's size and ABI, the backend's name, the kit's lifecycle entries and the driver's device_open/close. */
#define HCL_KIT_TABLE_HEAD(backend, device_open_fn, device_close_fn)                                                   \
    .size = sizeof(hcl_driver_table), .abi_major = HCL_DRIVER_ABI_MAJOR, .abi_minor = HCL_DRIVER_ABI_MINOR,            \
    .name = (backend), .init = hcl__kit_init, .shutdown = hcl__kit_shutdown, .device_count = hcl__kit_device_count,    \
    .device_info = hcl__kit_device_info, .device_open = (device_open_fn), .device_close = (device_close_fn)

/* The optional page-locked host memory and interop entries (NULL, NULL: the core's aligned memory; get_native may be
 * NULL: no native objects). docs/driver-abi.md says what each absent entry means. */
#define HCL_KIT_TABLE_NATIVE(host_alloc_fn, host_free_fn, get_native_fn)                                               \
    .host_alloc = (host_alloc_fn), .host_free = (host_free_fn), .get_native = (get_native_fn)

/* X(prefix, entry, return type, parameters) for each entry a driver implements under its prefix. */
#define HCL_KIT_ENTRIES(X, p)                                                                                          \
    X(p, queue_create, hcl_status, (void *device, void **out_queue))                                                   \
    X(p, queue_destroy, void, (void *queue))                                                                           \
    X(p, queue_finish, hcl_status, (void *queue))                                                                      \
    X(p, queue_marker, hcl_status, (void *queue, uint32_t num_wait, void *const *wait, void **out_event))              \
    X(p, event_wait, hcl_status, (void *event))                                                                        \
    X(p, event_release, void, (void *event))                                                                           \
    X(p, event_elapsed, hcl_status, (void *start, void *end, double *out_seconds))                                     \
    X(p, buffer_alloc, hcl_status, (void *device, size_t size, void **out_mem))                                        \
    X(p, buffer_free, void, (void *device, void *mem))                                                                 \
    X(p, buffer_write, hcl_status,                                                                                     \
      (void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking, uint32_t num_wait,           \
       void *const *wait, void **out_event))                                                                           \
    X(p, buffer_read, hcl_status,                                                                                      \
      (void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking, uint32_t num_wait,                 \
       void *const *wait, void **out_event))                                                                           \
    X(p, buffer_copy, hcl_status,                                                                                      \
      (void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size, int blocking,             \
       uint32_t num_wait, void *const *wait, void **out_event))                                                        \
    X(p, buffer_fill, hcl_status,                                                                                      \
      (void *queue, void *mem, size_t offset, size_t size, const void *pattern, size_t pattern_size, int blocking,     \
       uint32_t num_wait, void *const *wait, void **out_event))                                                        \
    X(p, module_create, hcl_status,                                                                                    \
      (void *device, const hcl_module_source *sources, uint32_t count, void **out_module))                             \
    X(p, module_destroy, void, (void *module))                                                                         \
    X(p, kernel_create, hcl_status, (void *module, const char *name, void **out_kernel))                               \
    X(p, kernel_destroy, void, (void *kernel))                                                                         \
    X(p, kernel_launch, hcl_status,                                                                                    \
      (void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes, uint32_t num_args,               \
       const hcl_driver_arg *args, uint32_t num_wait, void *const *wait, void **out_event))

/* The optional launch-limit entries, which every in-tree driver gives: after the others in the table; designated
 * initialisers place them. */
#define HCL_KIT_ENTRIES_LIMITS(X, p)                                                                                   \
    X(p, device_limits, hcl_status, (void *device, hcl_driver_limits *out))                                            \
    X(p, kernel_max_group, hcl_status, (void *kernel, uint64_t *out_max))

#define HCL__KIT_DECLARE(p, entry, ret, params) ret p##_##entry params;
#define HCL__KIT_INIT(p, entry, ret, params) .entry = p##_##entry,
/* Declare the driver's <prefix>_<entry> functions. */
#define HCL_KIT_DECLARE_ENTRIES(prefix)                                                                                \
    HCL_KIT_ENTRIES(HCL__KIT_DECLARE, prefix) HCL_KIT_ENTRIES_LIMITS(HCL__KIT_DECLARE, prefix)
/* Their part of the table initialiser. */
#define HCL_KIT_TABLE_ENTRIES(prefix)                                                                                  \
    HCL_KIT_ENTRIES(HCL__KIT_INIT, prefix) HCL_KIT_ENTRIES_LIMITS(HCL__KIT_INIT, prefix)

/* A driver module's exported entry point (HCL_DRIVER_ENTRY_NAME), giving its table. */
#define HCL_KIT_DRIVER_ENTRY(table)                                                                                    \
    __attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void);                             \
    __attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void) { return &(table); }

#endif /* HCL_DRIVERS_COMMON_TABLE_H */
