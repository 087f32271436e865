/* The driver kit: what every HCL driver is built on (docs/architecture.md, "Layers"). A static library, linked into
 * each driver module and into libhcl for the host driver; each of those binaries holds one driver, so the kit's
 * state is the state of the driver it is linked with.
 *
 * A driver defines hcl__kit_driver (devices.h: its name, its device entry and `start`, which opens the vendor
 * runtime and lists the devices) and points its table's init, shutdown, device_count and device_info at the kit's.
 * The rest are helpers:
 *   check.h    the one error check at vendor call sites, and the failure message every driver writes;
 *   symbols.h  the vendor library, opened through the core's open_library, and its symbol table;
 *   devices.h  the device list and the lifecycle entry points;
 *   table.h    the driver table's common entries, declared and listed under the driver's prefix;
 *   below      which module source a driver takes, the cache key and build-failure message of a program, the
 *              check of a launch's argument count, and a device's identity text. */
#ifndef HCL_DRIVERS_COMMON_KIT_H
#define HCL_DRIVERS_COMMON_KIT_H

#include "hcl/hcl_driver.h"

#include "check.h"
#include "devices.h"
#include "params.h"
#include "symbols.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* The end of a create entry point: on success hand `object` out through `*out` and return HCL_SUCCESS; on failure
 * free() it and return `status` (for objects that own nothing else yet). */
static inline hcl_status hcl__kit_give(hcl_status status, void *object, void **out) {
    if (status == HCL_SUCCESS)
        *out = object;
    else
        free(object);
    return status;
}

/* ---- module sources (sources.c) ---- */
/* The bit of a source kind in a set of kinds. */
#define HCL_KIT_KIND(kind) (1u << (unsigned)(kind))

/* The first of the `count` sources whose kind is in `kinds` (HCL_KIT_KIND bits), or NULL. A driver takes the first
 * source it can run, in the caller's order. */
const hcl_module_source *hcl__kit_source_pick(const hcl_module_source *sources, uint32_t count, unsigned kinds);

/* HCL_ERROR_UNSUPPORTED with "<driver>: no source it can take among the <count> given; it takes <what>", `what`
 * a printf format. The core appends the list of the kinds that were given. */
hcl_status hcl__kit_source_unsupported(uint32_t count, const char *what_fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- building programs (build.c) ---- */
/* The key of a program in the core's on-disk cache: the printf-formatted header (every input that changes the
 * binary: device, driver version, options, one per line), then `payload` (the source or SPIR-V) as it is. malloc'd,
 * NUL-terminated (free() it); NULL when out of host memory. The core hashes it with the HCL version. */
char *hcl__kit_cache_key(const void *payload, size_t payload_size, size_t *out_size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* HCL_ERROR_BUILD with "<detail>; build log[ (truncated)]:\n<the log's head>" (log may be NULL). */
hcl_status hcl__kit_build_failed(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A launch of kernel `name` gives `num_args` arguments, plus, when `shared_bytes` > 0, the dynamic local memory as one
 * more (a trailing __local parameter, as OpenCL C and SPIR-V kernels declare it). HCL_SUCCESS when that is the
 * `declared` count of parameters, or when the count is not known (UINT32_MAX); else HCL_ERROR_INVALID_ARGUMENT with
 * "<driver>: kernel '<name>' declares <declared> parameters; the launch gives <num_args> argument(s)[ plus ...]". */
hcl_status hcl__kit_launch_arity(const char *name, uint32_t declared, uint32_t num_args, size_t shared_bytes);

/* ---- identity (identity.c) ---- */
/* Give the device the runtime's UUID, unless it is all zero (which identifies nothing: the Level Zero null driver
 * gives one). Returns whether it did. */
int hcl__kit_device_uuid(hcl_device_info *info, const void *uuid16);

/* Write info->identity: "uuid:<32 hex digits>" when the device has a UUID (the same text the core writes, so one GPU
 * seen through two backends reads the same), else "<backend>:<vendor>:<name>:<where>", `where` being the device's
 * index when NULL, or what tells the device apart better (HIP: its PCI address). hcl__kit_device_keep calls it
 * for a device whose identity is still empty. */
void hcl__kit_identity(hcl_device_info *info, const char *where);

#endif /* HCL_DRIVERS_COMMON_KIT_H */
