/* The driver kit's device list and the table entries built on it: init, shutdown, device_count, device_info.
 *
 * A driver keeps one entry per device, of a type of its own that holds the device's hcl_device_info and whatever
 * the driver needs to open it later (a cl_device_id, a ze_device_handle_t, a CUdevice). Its `start` lists them:
 *     hcl__ocl_device_entry *e = hcl__kit_device_add();   // zeroed; info.backend and info.index are set
 *     ... describe it ...
 *     hcl__kit_device_keep();                             // counted (an entry not kept is reused by the next add)
 * and its device_open finds one with hcl__kit_device_find. */
#ifndef HCL_DRIVERS_COMMON_DEVICES_H
#define HCL_DRIVERS_COMMON_DEVICES_H

#include "hcl/hcl_driver.h"

#include <stddef.h>
#include <stdint.h>

/* What the kit needs of the driver it is linked with: each driver defines this once (driver.c). */
typedef struct hcl_kit_driver {
    const char *name;   /* the backend, as in the driver's table ("opencl") */
    size_t entry_size;  /* the driver's device entry */
    size_t info_offset; /* of the entry's hcl_device_info */
    /* Open the vendor runtime and list its devices (hcl__kit_device_add / keep). On failure write why into
     * `reason` (the dlerror text or the vendor's error name: what hcl-info shows) and return a status; the devices
     * listed so far are dropped. `version` (may be left empty) receives the runtime's version text. */
    hcl_status (*start)(char *reason, size_t reason_size, char *version, size_t version_size);
} hcl_kit_driver;

extern const hcl_kit_driver hcl__kit_driver;
/* Define hcl__kit_driver for an entry type whose hcl_device_info member is named `info`. */
#define HCL_KIT_DRIVER(backend, entry_type, start_fn)                                                                  \
    const hcl_kit_driver hcl__kit_driver = {(backend), sizeof(entry_type), offsetof(entry_type, info), (start_fn)}

/* ---- the table entries ---- */
/* Take the core's services, then start the driver once (later calls give the version of the first). */
hcl_status hcl__kit_init(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                         size_t version_size);
/* Forget the devices; the vendor library stays loaded (symbols.h). The core closes every device first. */
void hcl__kit_shutdown(void);
hcl_status hcl__kit_device_count(uint32_t *out_count);
hcl_status hcl__kit_device_info(uint32_t index, hcl_device_info *out_info);

/* ---- for start and device_open ---- */
/* A zeroed entry at the end of the list, info.backend and info.index filled; NULL when out of host memory (with
 * the message set). Pointers to entries stay valid until the next add; after start they are stable. */
void *hcl__kit_device_add(void);
/* Count the entry of the last add (writing its identity if the driver did not: hcl__kit_identity). */
void hcl__kit_device_keep(void);
/* The entry of device `index`, or NULL. */
void *hcl__kit_device_entry(uint32_t index);
/* The entry of device `index`, or HCL_ERROR_DEVICE_NOT_FOUND with "<driver>: device <index> of <count>". */
hcl_status hcl__kit_device_find(uint32_t index, void **out_entry);
/* How many devices are kept. */
uint32_t hcl__kit_devices(void);
/* device_open's start: the entry of device `index` (as hcl__kit_device_find) and a zeroed device object of
 * `device_size` bytes for the caller to fill and free; HCL_ERROR_DEVICE_NOT_FOUND or HCL_ERROR_OUT_OF_MEMORY. */
hcl_status hcl__kit_device_new(uint32_t index, size_t device_size, void **out_entry, void **out_device);

/* ---- for get_native ---- */
/* get_native where the native device and queue are pointer-sized handles held in the driver's device object (at
 * `device_offset`) and queue object (at `queue_offset`), and a buffer's native object is the buffer itself. */
hcl_status hcl__kit_get_native(hcl_native_kind kind, void *object, size_t device_offset, size_t queue_offset,
                               void **out_native);

#endif /* HCL_DRIVERS_COMMON_DEVICES_H */
