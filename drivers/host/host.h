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

#include <stdint.h>

#define HCL_HOST_NAME "host"
#define HCL_HOST_ALIGN 64
#define HCL_HOST_MAX_WORK_GROUP 1024
#define HCL_HOST_LOCAL_MEM (64 * 1024)

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

/* The services the core gave at init (never NULL after a successful init). */
extern const hcl_driver_host *hcl__host_services;

/* Set this thread's message through the core, returning `status`. */
#define HCL_HOST_FAIL(status, ...) hcl__host_services->set_message((status), __VA_ARGS__)

uint64_t hcl__host_now_ns(void);
/* Round size up to a multiple of `align` (a power of two); 0 on overflow. */
size_t hcl__host_round_up(size_t size, size_t align);

/* A command's event: started before the command runs, when out_event is not NULL (else *cmd is NULL and
 * nothing is recorded). Returns HCL_ERROR_OUT_OF_MEMORY (message set) when the event cannot be allocated:
 * then the command must not run. */
hcl_status hcl__host_event_begin(const char *what, void **out_event, hcl_host_event **cmd);
/* Record the end of the command and hand the event out. */
void hcl__host_event_end(hcl_host_event *cmd, void **out_event);

/* The entries of the driver table, one group per file. */
hcl_status hcl__host_queue_create(void *device, void **out_queue);
void hcl__host_queue_destroy(void *queue);
hcl_status hcl__host_queue_finish(void *queue);
hcl_status hcl__host_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__host_event_wait(void *event);
void hcl__host_event_release(void *event);
hcl_status hcl__host_event_elapsed(void *start, void *end, double *out_seconds);

hcl_status hcl__host_buffer_alloc(void *device, size_t size, void **out_mem);
void hcl__host_buffer_free(void *device, void *mem);
hcl_status hcl__host_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                  uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__host_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                                 uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__host_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset,
                                 size_t size, int blocking, uint32_t num_wait, void *const *wait,
                                 void **out_event);
hcl_status hcl__host_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                                 size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                                 void **out_event);

hcl_status hcl__host_module_create(void *device, const hcl_module_source *sources, uint32_t count,
                                   void **out_module);
void hcl__host_module_destroy(void *module);
hcl_status hcl__host_kernel_create(void *module, const char *name, void **out_kernel);
void hcl__host_kernel_destroy(void *kernel);
hcl_status hcl__host_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                   uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait,
                                   void *const *wait, void **out_event);


#endif /* HCL_DRIVERS_HOST_HOST_H */
