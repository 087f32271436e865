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
 * The prototypes come from the driver ABI's one list (hcl_driver.h), so an entry point whose signature is not the
 * table's does not compile. */
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

/* The entries a driver implements under its prefix: the ABI's object group and its launch limits
 * (HCL_DRIVER_ENTRIES_OBJECTS, HCL_DRIVER_ENTRIES_LIMITS in hcl_driver.h, the one list of the table), declared and
 * placed in the table by designated initialisers. */
#define HCL__KIT_DECLARE(p, ret, entry, params) ret p##_##entry params;
#define HCL__KIT_INIT(p, ret, entry, params) .entry = p##_##entry,
/* Declare the driver's <prefix>_<entry> functions. */
#define HCL_KIT_DECLARE_ENTRIES(prefix)                                                                                \
    HCL_DRIVER_ENTRIES_OBJECTS(HCL__KIT_DECLARE, prefix) HCL_DRIVER_ENTRIES_LIMITS(HCL__KIT_DECLARE, prefix)
/* Their part of the table initialiser. */
#define HCL_KIT_TABLE_ENTRIES(prefix)                                                                                  \
    HCL_DRIVER_ENTRIES_OBJECTS(HCL__KIT_INIT, prefix) HCL_DRIVER_ENTRIES_LIMITS(HCL__KIT_INIT, prefix)

/* A driver module's exported entry point (HCL_DRIVER_ENTRY_NAME), giving its table. */
#define HCL_KIT_DRIVER_ENTRY(table)                                                                                    \
    __attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void);                             \
    __attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void) { return &(table); }

#endif /* HCL_DRIVERS_COMMON_TABLE_H */
