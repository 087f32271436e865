/* Shared declarations of the OpenCL driver: the symbol table, the native objects behind the core's handles,
 * and the one error macro used at every OpenCL call site. Built on the driver kit (drivers/common/kit.h). */
#ifndef HCL_OPENCL_INTERNAL_H
#define HCL_OPENCL_INTERNAL_H

#include "hcl/hcl_driver.h"
#include "kit.h"
#include "symbols.h"
#include "table.h"

#include <CL/cl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define HCL_OCL_NAME "opencl"

/* ---- the symbol table (filled by driver.c from libOpenCL, hcl__kit_resolve) ---- */
typedef struct hcl__ocl_symbols {
    HCL_OCL_SYMBOLS(HCL_KIT_SYMBOL_FIELD)
    HCL_OCL_SYMBOLS_OPTIONAL(HCL_KIT_SYMBOL_FIELD)
} hcl__ocl_symbols;

extern hcl__ocl_symbols hcl__cl;
/* The core's services are the kit's; the name stays for the built-in code (kernels.c). */
#define hcl__ocl_host hcl__kit_host

/* ---- errors ---- */
/* "CL_INVALID_BUFFER_SIZE" for -61; "CL_UNKNOWN_ERROR" for a code not in the table. */
const char *hcl__ocl_error_name(cl_int err);

/* How a failed call maps to a status: HCL_OCL_CALL gives HCL_ERROR_VENDOR; HCL_OCL_ALLOC (a call that
 * allocates) gives HCL_ERROR_OUT_OF_MEMORY for the out-of-memory codes. */
enum { HCL_OCL_CALL = 0, HCL_OCL_ALLOC = 1 };

/* Set the thread's message to "<fn>: <CL name> (<code>); <detail>" and return the mapped status. */
hcl_status hcl__ocl_fail(cl_int err, int mode, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The kit's error check for an OpenCL call (or an error code it returned); on failure `status` is set and the code
 * jumps to `cleanup`. Every OpenCL call site goes through it:
 *   HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateBuffer", "size %zu bytes", size); */
#define HCL_OCL_CHECK(expr, mode, fn, ...) HCL_KIT_CHECK(cl_int, expr, CL_SUCCESS, hcl__ocl_fail, mode, fn, __VA_ARGS__)

#define HCL_OCL_LOG(...) HCL_KIT_LOG(__VA_ARGS__)

/* ---- devices (driver.c) ---- */
typedef struct hcl__ocl_device_entry {
    cl_platform_id platform;
    cl_device_id id;
    hcl_device_info info;
    char device_version[128]; /* CL_DEVICE_VERSION, part of the program cache key */
    char platform_version[128];
    uint32_t base_align_bytes; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8: sub-buffer offsets must be multiples */
    hcl_driver_limits limits;  /* device_limits */
} hcl__ocl_device_entry;

const hcl__ocl_device_entry *hcl__ocl_device_entry_get(uint32_t index);

/* An opened device: one context for one device, created in device_open. */
typedef struct hcl__ocl_device {
    const hcl__ocl_device_entry *entry;
    cl_device_id id;
    cl_context context;
} hcl__ocl_device;

typedef struct hcl__ocl_queue {
    hcl__ocl_device *device;
    cl_command_queue queue;
    _Atomic(cl_mem) marker_mem; /* 4 bytes that markers fill (see hcl__ocl_queue_marker); made by the first marker */
} hcl__ocl_queue;

/* An event: the first and the last OpenCL command of one HCL command (they differ for the two-pass reduce),
 * so elapsed time covers all of it. `marker` events are one instant: their end time stands for their start. */
typedef struct hcl__ocl_event {
    cl_event first;
    cl_event last;
    int marker;
} hcl__ocl_event;

/* ---- queues and events (queue.c) ---- */
/* Translate a core wait list (hcl__ocl_event pointers) into cl_events. Uses `stack` when it is big enough,
 * else allocates (*out_heap then holds what to free). */
hcl_status hcl__ocl_wait_list(uint32_t num_wait, void *const *wait, cl_event *stack, uint32_t stack_count,
                              cl_event **out_list, cl_event **out_heap);
/* Wrap cl_events into an hcl__ocl_event (takes ownership of both references; `last` may equal `first`). On
 * failure the cl_events are released. */
hcl_status hcl__ocl_event_wrap(cl_event first, cl_event last, int marker, void **out_event);
/* Blocking completion: wait for `ev` if given, else clFinish the queue. */
hcl_status hcl__ocl_complete(hcl__ocl_queue *q, cl_event ev);

/* ---- programs (module.c) ---- */
/* Build a program for one device from OpenCL C, through the on-disk binary cache when use_cache (then
 * *out_from_cache, if given, says whether the program came from it); without use_cache the cache entry is evicted and
 * the source built and stored again. Returns HCL_ERROR_BUILD with the build log in the message when the source does
 * not compile. */
hcl_status hcl__ocl_program_build(hcl__ocl_device *dev, const char *source, size_t length, const char *options,
                                  int use_cache, cl_program *out_program, int *out_from_cache);
/* Set the arguments of `kernel` and enqueue it (the caller holds the kernel's lock). */
hcl_status hcl__ocl_enqueue(hcl__ocl_queue *q, cl_kernel kernel, const char *what, cl_uint dims, const size_t *global,
                            const size_t *local, uint32_t num_wait, void *const *wait, cl_event *out_event);

/* ---- driver entry points (queue.c, memory.c, module.c) ---- */
HCL_KIT_DECLARE_ENTRIES(hcl__ocl)
/* kernel_params (optional entry): from clGetKernelArgInfo (the driver builds every program with -cl-kernel-arg-info). */
hcl_status hcl__ocl_kernel_params(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                  uint32_t *out_flags);
/* event_query (optional entry): the command's execution status, without waiting (queue.c). */
hcl_status hcl__ocl_event_query(void *event, int *out_done);

#endif /* HCL_OPENCL_INTERNAL_H */
