/* The built-in host CPU driver: what its files share.
 *
 * Native objects: a buffer is its data pointer itself (64-byte aligned host memory); a queue, an event, a
 * module and a kernel are the structs below; the device is one static description.
 *
 * The host queue is synchronous: every command runs to completion inside the call that submits it, on the
 * calling thread (kernels spread over the cores with OpenMP). In-order execution is then trivial, wait lists
 * are already satisfied when a command is submitted, and an event is complete as soon as it exists.
 */
#ifndef HCL_DRIVERS_HOST_HOST_H
#define HCL_DRIVERS_HOST_HOST_H

#include "hcl/hcl_driver.h"
#include "kit.h"
#include "table.h"

#include <stdint.h>

/* An OpenMP directive where the driver is built with OpenMP, nothing otherwise. */
#ifdef _OPENMP
#define HCL_HOST_OMP(...) _Pragma(#__VA_ARGS__)
#else
#define HCL_HOST_OMP(...)
#endif

#define HCL_HOST_NAME "host"
#define HCL_HOST_ALIGN 64
#define HCL_HOST_MAX_WORK_GROUP 1024
#define HCL_HOST_LOCAL_MEM (64 * 1024)

/* The one device: the kit's device entry, handed out by device_open as the native device. */
typedef struct hcl_host_device {
    hcl_device_info info;
} hcl_host_device;

typedef struct hcl_host_queue {
    hcl_host_device *device;
} hcl_host_queue;

/* Both times in nanoseconds of CLOCK_MONOTONIC. */
typedef struct hcl_host_event {
    uint64_t start_ns;
    uint64_t end_ns;
} hcl_host_event;

typedef struct hcl_host_module {
    uint32_t count;
    hcl_host_function *functions; /* names are copies owned by the module */
} hcl_host_module;

typedef struct hcl_host_kernel {
    hcl_host_kernel_fn fn;
    char *name; /* a copy, for messages */
} hcl_host_kernel;

/* The driver's table (the core calls this; the host driver has no module entry point). */
const hcl_driver_table *hcl__host_driver_table(void);

/* Set this thread's message through the core (the kit's services), returning `status`. */
#define HCL_HOST_FAIL(status, ...) HCL_KIT_FAIL((status), __VA_ARGS__)

uint64_t hcl__host_now_ns(void);
/* Round size up to a multiple of `align` (a power of two); 0 on overflow. */
size_t hcl__host_round_up(size_t size, size_t align);

/* event_query (optional entry): always done (queue.c). */
hcl_status hcl__host_event_query(void *event, int *out_done);
/* A command's event: started before the command runs, when out_event is not NULL (else *cmd is NULL and
 * nothing is recorded). Returns HCL_ERROR_OUT_OF_MEMORY (message set) when the event cannot be allocated:
 * then the command must not run. */
hcl_status hcl__host_event_begin(const char *what, void **out_event, hcl_host_event **cmd);
/* Record the end of the command and hand the event out. */
void hcl__host_event_end(hcl_host_event *cmd, void **out_event);

/* The entries of the driver table (queue.c, memory.c, module.c). */
HCL_KIT_DECLARE_ENTRIES(hcl__host)

#endif /* HCL_DRIVERS_HOST_HOST_H */
