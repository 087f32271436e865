/* Shared declarations of the OpenCL driver: the symbol table, the native objects behind the core's handles,
 * and the one error macro used at every OpenCL call site. */
#ifndef HCL_OPENCL_INTERNAL_H
#define HCL_OPENCL_INTERNAL_H

#include "hcl/hcl_driver.h"
#include "symbols.h"

#include <CL/cl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define HCL_OCL_NAME "opencl"

/* ---- the symbol table (filled by driver.c from libOpenCL through dlsym) ---- */
typedef struct hcl__ocl_symbols {
#define HCL__OCL_SYM_FIELD(name) __typeof__(name) *name;
    HCL_OCL_SYMBOLS(HCL__OCL_SYM_FIELD)
#undef HCL__OCL_SYM_FIELD
} hcl__ocl_symbols;

extern hcl__ocl_symbols hcl__cl;
extern const hcl_driver_host *hcl__ocl_host;

/* ---- errors ---- */
/* "CL_INVALID_BUFFER_SIZE" for -61; "CL_UNKNOWN_ERROR" for a code not in the table. */
const char *hcl__ocl_error_name(cl_int err);

/* How a failed call maps to a status: HCL_OCL_CALL gives HCL_ERROR_VENDOR; HCL_OCL_ALLOC (a call that
 * allocates) gives HCL_ERROR_OUT_OF_MEMORY for the out-of-memory codes. */
enum { HCL_OCL_CALL = 0, HCL_OCL_ALLOC = 1 };

/* Set the thread's message to "<fn>: <CL name> (<code>); <detail>" and return the mapped status. */
hcl_status hcl__ocl_fail(cl_int err, int mode, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Evaluate an OpenCL call (or an error code it returned); on failure set `status` with the message and jump to
 * `cleanup`. Every OpenCL call site goes through this macro, so messages read the same everywhere:
 *   HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateBuffer", "size %zu bytes", size); */
#define HCL_OCL_CHECK(expr, mode, fn, ...)                                                                  \
    do {                                                                                                    \
        cl_int hcl_ocl_err_ = (expr);                                                                       \
        if (hcl_ocl_err_ != CL_SUCCESS) {                                                                   \
            status = hcl__ocl_fail(hcl_ocl_err_, (mode), (fn), __VA_ARGS__);                                \
            goto cleanup;                                                                                   \
        }                                                                                                   \
    } while (0)

#define HCL_OCL_LOG(...) hcl__ocl_host->log(HCL_LOG_DEBUG, HCL_OCL_NAME, __VA_ARGS__)

/* ---- devices (driver.c) ---- */
typedef struct hcl__ocl_device_entry {
    cl_platform_id platform;
    cl_device_id id;
    hcl_device_info info;
    char device_version[128]; /* CL_DEVICE_VERSION, part of the program cache key */
    char platform_version[128];
    uint32_t base_align_bytes; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8: sub-buffer offsets must be multiples */
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
    cl_mem marker_mem;      /* 4 bytes that markers fill (see hcl__ocl_queue_marker) */
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
/* Build a program for one device from OpenCL C, through the on-disk binary cache. Returns HCL_ERROR_BUILD
 * with the build log in the message when the source does not compile. */
hcl_status hcl__ocl_program_build(hcl__ocl_device *dev, const char *source, size_t length, const char *options,
                                  cl_program *out_program);
/* Set the arguments of `kernel` and enqueue it (the caller holds the kernel's lock). */
hcl_status hcl__ocl_enqueue(hcl__ocl_queue *q, cl_kernel kernel, const char *what, cl_uint dims,
                            const size_t *global, const size_t *local, uint32_t num_wait, void *const *wait,
                            cl_event *out_event);

/* ---- driver entry points, by file ---- */
hcl_status hcl__ocl_queue_create(void *device, void **out_queue);
void hcl__ocl_queue_destroy(void *queue);
hcl_status hcl__ocl_queue_finish(void *queue);
hcl_status hcl__ocl_queue_marker(void *queue, uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__ocl_event_wait(void *event);
void hcl__ocl_event_release(void *event);
hcl_status hcl__ocl_event_elapsed(void *start, void *end, double *out_seconds);

hcl_status hcl__ocl_buffer_alloc(void *device, size_t size, void **out_mem);
void hcl__ocl_buffer_free(void *device, void *mem);
hcl_status hcl__ocl_buffer_write(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                                 uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__ocl_buffer_read(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                                uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__ocl_buffer_copy(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset,
                                size_t size, int blocking, uint32_t num_wait, void *const *wait, void **out_event);
hcl_status hcl__ocl_buffer_fill(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                                size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                                void **out_event);

hcl_status hcl__ocl_module_create(void *device, const hcl_module_source *sources, uint32_t count,
                                  void **out_module);
void hcl__ocl_module_destroy(void *module);
hcl_status hcl__ocl_kernel_create(void *module, const char *name, void **out_kernel);
void hcl__ocl_kernel_destroy(void *kernel);
hcl_status hcl__ocl_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                  uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait,
                                  void *const *wait, void **out_event);


#endif /* HCL_OPENCL_INTERNAL_H */
