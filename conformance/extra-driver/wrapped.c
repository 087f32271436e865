/* libhcl-wrapped.so: the host driver's code as an out-of-tree driver module named "wrapped".
 *
 * The conformance suite's proof that a driver HCL's build does not know (one named in HCL_EXTRA_DRIVERS) is
 * listed by hcl-info and runs the whole suite. This file is all the module adds to the host driver's sources:
 * the entry point a module exports, returning a copy of the host driver's table under another name (and without
 * the host's name in the device identity). It sees only the public driver ABI (hcl/hcl_driver.h) and the function
 * the host driver's own files define.
 */
#include <hcl/hcl_driver.h>

#include <pthread.h>

#define WRAPPED_NAME "wrapped"

/* Defined by the host driver's sources (drivers/host), compiled into this module with hidden visibility. */
const hcl_driver_table *hcl__host_driver_table(void);

static const hcl_driver_table *host_table;
static hcl_driver_table wrapped_table;
static pthread_once_t wrapped_once = PTHREAD_ONCE_INIT;

/* The host driver writes an identity that starts with its own name; without one (and without a UUID) the core
 * makes "<backend>:<vendor>:<name>:<index>" from the name this module is loaded under. */
static hcl_status wrapped_device_info(uint32_t index, hcl_device_info *out_info) {
    hcl_status st = host_table->device_info(index, out_info);
    if (st == HCL_SUCCESS && !out_info->has_uuid) out_info->identity[0] = '\0';
    return st;
}

static void wrapped_make(void) {
    host_table = hcl__host_driver_table();
    wrapped_table = *host_table;
    wrapped_table.name = WRAPPED_NAME;
    wrapped_table.device_info = wrapped_device_info;
}

__attribute__((visibility("default"))) const hcl_driver_table *hcl_driver_entry(void);

const hcl_driver_table *hcl_driver_entry(void) {
    pthread_once(&wrapped_once, wrapped_make);
    return &wrapped_table;
}
