/* HCL: a portable multi-vendor compute layer.
 *
 * One vendor-neutral C API for devices, queues, buffers, events, modules and kernel launches. Each call is
 * routed to a backend driver chosen at run time (cuda, hip, levelzero, opencl, vulkan, or the built-in host driver).
 *
 * Conventions that hold for every call in this header:
 *  - Every call returns an hcl_status. HCL_SUCCESS is 0; every error is negative.
 *  - A failing call leaves a thread-local message with the detail (the values involved, and the vendor's own
 *    error name when a vendor call failed): hcl_last_message(). A successful call does not clear it.
 *  - Handles are opaque. The creator owns a handle and releases it with the matching *_release call. A NULL
 *    or already released handle gives HCL_ERROR_INVALID_HANDLE, never a crash. Releasing a device releases
 *    nothing else: release its queues, buffers, events, modules and kernels first (the device stays alive
 *    internally until they are all released).
 *  - Objects used together must come from the same opened device; otherwise HCL_ERROR_DEVICE_MISMATCH.
 *  - Out-parameters are named out_* and come last; they are written only on success.
 *  - Nothing in the library aborts or exits the process.
 *  - The library is thread-safe for distinct objects; a queue must not be used from two threads at once.
 */
#ifndef HCL_HCL_H
#define HCL_HCL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(HCL_BUILDING_LIBRARY)
#define HCL_API __attribute__((visibility("default")))
#else
#define HCL_API
#endif

/* The version of this header. It is the project's one version: CMakeLists.txt reads these three lines for
 * project(VERSION), the shared library's soname, hcl.pc and hclConfigVersion.cmake. hcl_version() gives the
 * version of the library a program runs with, which may be newer than the header it was built with. */
#define HCL_VERSION_MAJOR 0
#define HCL_VERSION_MINOR 1
#define HCL_VERSION_PATCH 0
#define HCL__VERSION_TEXT2(x) #x
#define HCL__VERSION_TEXT(x) HCL__VERSION_TEXT2(x)
/* "0.1.0": the header's version as text. */
#define HCL_VERSION_STRING                                                                                             \
    HCL__VERSION_TEXT(HCL_VERSION_MAJOR)                                                                               \
    "." HCL__VERSION_TEXT(HCL_VERSION_MINOR) "." HCL__VERSION_TEXT(HCL_VERSION_PATCH)
/* One number for comparisons: major * 10000 + minor * 100 + patch (0.1.0 is 100). */
#define HCL_VERSION_NUMBER (HCL_VERSION_MAJOR * 10000 + HCL_VERSION_MINOR * 100 + HCL_VERSION_PATCH)

/* ---------------------------------------------------------------------------------------------------------
 * Status codes: one X-macro list, X(NAME, value, "text").
 * Besides the statuses each call lists, any call that reaches a GPU runtime may return HCL_ERROR_DEVICE_LOST once
 * a kernel faulted on that device (an illegal address, a failed launch, an ECC error): the device's later calls
 * return it too; release its objects and open it again (docs/backends.md, "Device faults": on NVIDIA the process
 * keeps a faulted device lost, and only a new process gets it back).
 * ------------------------------------------------------------------------------------------------------- */
#define HCL_STATUS_MAP(X)                                                                                              \
    X(SUCCESS, 0, "success")                                                                                           \
    X(ERROR_INVALID_ARGUMENT, -1, "invalid argument")                                                                  \
    X(ERROR_INVALID_HANDLE, -2, "NULL, released or wrong-type handle")                                                 \
    X(ERROR_OUT_OF_RANGE, -3, "offset or size outside the buffer")                                                     \
    X(ERROR_OUT_OF_MEMORY, -4, "out of host or device memory")                                                         \
    X(ERROR_DEVICE_MISMATCH, -5, "objects belong to different devices")                                                \
    X(ERROR_UNKNOWN_BACKEND, -6, "unknown backend name")                                                               \
    X(ERROR_BACKEND_UNAVAILABLE, -7, "backend is not available on this machine")                                       \
    X(ERROR_DEVICE_NOT_FOUND, -8, "no such device")                                                                    \
    X(ERROR_DRIVER_LOAD, -9, "driver module could not be loaded")                                                      \
    X(ERROR_DRIVER_VERSION, -10, "driver module has an incompatible ABI version")                                      \
    X(ERROR_VENDOR, -11, "vendor runtime call failed")                                                                 \
    X(ERROR_BUILD, -12, "kernel source or binary failed to build")                                                     \
    X(ERROR_NOT_FOUND, -13, "kernel name not found in module")                                                         \
    X(ERROR_UNSUPPORTED, -14, "operation or source kind not supported by this backend")                                \
    X(ERROR_INTERNAL, -15, "internal error")                                                                           \
    X(ERROR_DEVICE_LOST, -16, "the device faulted; release its objects and open it again")                             \
    X(ERROR_TIMEOUT, -17, "another rank or the engine did not answer within the timeout")

typedef enum hcl_status {
#define HCL__STATUS_ENUM(name, value, text) HCL_##name = value,
    HCL_STATUS_MAP(HCL__STATUS_ENUM)
#undef HCL__STATUS_ENUM
} hcl_status;

/* The enum name of a status ("HCL_ERROR_OUT_OF_RANGE"); "HCL_STATUS_UNKNOWN" for a value not in the list.
 * The string is static. */
HCL_API const char *hcl_status_name(hcl_status status);
/* A one-line description of a status ("offset or size outside the buffer"). The string is static. */
HCL_API const char *hcl_status_text(hcl_status status);
/* The version of the library this program runs with, at run time: returns its text ("0.1.0", static) and, for
 * each out-parameter that is not NULL, the number. Compare with HCL_VERSION_* to see whether the program was built
 * against an older header than the library it loaded. Never fails. */
HCL_API const char *hcl_version(uint32_t *out_major, uint32_t *out_minor, uint32_t *out_patch);

/* The detail message of the last failing call on this thread ("" if none yet). The string belongs to the
 * library and stays valid until the next HCL call on this thread. */
HCL_API const char *hcl_last_message(void);

/* ---------------------------------------------------------------------------------------------------------
 * Handles
 * ------------------------------------------------------------------------------------------------------- */
typedef struct hcl_device_s *hcl_device;
typedef struct hcl_queue_s *hcl_queue;
typedef struct hcl_buffer_s *hcl_buffer;
typedef struct hcl_event_s *hcl_event;
typedef struct hcl_module_s *hcl_module;
typedef struct hcl_kernel_s *hcl_kernel;

/* ---------------------------------------------------------------------------------------------------------
 * Backends and devices
 *
 * Backends are known by name: "cuda", "hip", "levelzero", "opencl", "host" (plus any out-of-tree driver
 * named in HCL_EXTRA_DRIVERS). Driver modules are loaded on the first call that needs them.
 * ------------------------------------------------------------------------------------------------------- */
#define HCL_NAME_MAX 256
#define HCL_REASON_MAX 2048

typedef struct hcl_backend_info {
    char name[32];                  /* "cuda", "opencl", ... */
    int available;                  /* 1: the driver loaded and its runtime initialised */
    uint32_t device_count;          /* devices it offers (0 when unavailable) */
    char module_path[HCL_NAME_MAX]; /* the driver module that was loaded ("(built in)" for host) */
    char version[HCL_NAME_MAX];     /* driver/runtime version text when available */
    char reason[HCL_REASON_MAX];    /* why it is unavailable: dlerror or vendor error text and the paths tried */
} hcl_backend_info;

typedef enum hcl_device_type {
    HCL_DEVICE_TYPE_CPU = 1,
    HCL_DEVICE_TYPE_GPU = 2,
    HCL_DEVICE_TYPE_ACCELERATOR = 3,
    HCL_DEVICE_TYPE_OTHER = 4
} hcl_device_type;

/* Element types of buffers that the built-in kernels read and write. f16 is IEEE binary16; bf16 is the upper half
 * of an IEEE binary32 (8 exponent bits, 7 fraction bits). The built-ins compute in float32 whatever the storage
 * type; the values are the enum's indices in hcl_device_info.native_types and .matrix_types. */
typedef enum hcl_dtype { HCL_DTYPE_F32 = 0, HCL_DTYPE_F16 = 1, HCL_DTYPE_BF16 = 2 } hcl_dtype;
#define HCL_DTYPE_COUNT 3
/* Bit of a type in hcl_device_info.native_types / .matrix_types. */
#define HCL_TYPE_BIT(dtype) (1u << (unsigned)(dtype))
/* Bit of TF32 (float32 inputs rounded to a 10-bit fraction inside the matrix unit) in .matrix_types. */
#define HCL_TYPE_BIT_TF32 (1u << 16)

/* The matrix-multiply unit the built-in GEMM uses on a device through its backend. */
typedef enum hcl_matrix_unit {
    HCL_MATRIX_UNIT_NONE = 0,        /* none, or none this backend can reach (OpenCL C on NVIDIA GPUs) */
    HCL_MATRIX_UNIT_TENSOR_CORE = 1, /* NVIDIA tensor cores */
    HCL_MATRIX_UNIT_MFMA = 2,        /* AMD matrix cores (MFMA instructions) */
    HCL_MATRIX_UNIT_XMX = 3          /* Intel Xe matrix extensions */
} hcl_matrix_unit;

typedef struct hcl_device_info {
    char backend[32]; /* backend name */
    uint32_t index;   /* index among this backend's devices ("opencl:1" has index 1) */
    char name[HCL_NAME_MAX];
    char vendor[HCL_NAME_MAX];
    char driver_version[HCL_NAME_MAX];
    hcl_device_type type;
    uint32_t compute_units; /* SMs, CUs, EUs, or CPU cores */
    uint64_t global_mem_bytes;
    uint64_t max_alloc_bytes;     /* largest single buffer */
    uint64_t max_work_group_size; /* threads per block / work-items per work-group */
    uint64_t local_mem_bytes;     /* shared / local memory per work-group */
    uint32_t clock_mhz;           /* 0 when unknown */
    int has_uuid;                 /* 1: uuid holds the runtime's device UUID */
    uint8_t uuid[16];
    char identity[80];             /* stable identity: "uuid:<32 hex>" where the runtime gives one, else
                                     "<backend>:<vendor>:<name>:<index>" */
    uint64_t arg_offset_alignment; /* a buffer kernel argument's offset must be a multiple of this many bytes
                                      (1: any offset; OpenCL needs CL_DEVICE_MEM_BASE_ADDR_ALIGN for sub-buffers) */
    char arch[32];                 /* architecture name where the runtime gives one: "sm_90", "gfx90a", "x86-64";
                                      "" when unknown */
    uint32_t native_types;         /* HCL_TYPE_BIT(t) for each type the device does arithmetic in natively (f32
                                      always; f16 with cl_khr_fp16 or on NVIDIA/AMD GPUs; bf16 where the ISA has it).
                                      The built-ins take f16 and bf16 buffers on every device either way. */
    hcl_matrix_unit matrix_unit;   /* the matrix unit the built-in GEMM uses here (HCL_MATRIX_UNIT_NONE: none) */
    uint32_t matrix_types;         /* HCL_TYPE_BIT(t) and HCL_TYPE_BIT_TF32 for the input types that unit multiplies;
                                      hcl_gemm with HCL_COMPUTE_TF32 needs HCL_TYPE_BIT_TF32 here */
    /* ---- Appended after HCL 0.1.0's layout (fields are only ever appended; see hcl_device_get_info). What a kernel
     * writer looks up first, as deviceQuery, clinfo and rocminfo show it. In every field below 0 means "the runtime
     * does not say" (unknown), never a real limit of zero. ---- */
    uint32_t subgroup_size;    /* lanes that run in lockstep: NVIDIA warp 32, AMD wavefront 64 (gfx9) or 32 (gfx10+),
                                       OpenCL and Level Zero: the vendor's sub-group size (the smallest where the compiler
                                       picks among several), 1 on CPU devices (a work-group runs as a loop) */
    uint32_t has_fp16;         /* 1: the device does half-precision arithmetic (the f16 bit of native_types, or the
                                       runtime's fp16 capability); 0: it does not, or the runtime does not say */
    uint32_t has_fp64;         /* 1: the device does double-precision arithmetic; 0: it does not, or unknown */
    uint32_t memory_clock_mhz; /* peak memory clock (CUDA/HIP: the memory clock rate attribute; Level Zero: the
                                       memory's maxClockRate); 0 unknown (OpenCL and the host do not say) */
    uint32_t memory_bus_width_bits;  /* global memory bus width; 0 unknown */
    uint64_t max_work_item_sizes[3]; /* work-items per work-group in x, y, z (CUDA/HIP: the max block dimensions);
                                        max_work_group_size bounds their product */
    uint64_t max_grid_size[3]; /* work-groups per launch in x, y, z (CUDA/HIP: the max grid dimensions); 0 where the
                                        runtime states no limit (OpenCL) */
    uint64_t peak_memory_bandwidth; /* bytes per second, computed from the two fields above as deviceQuery and
                                        bandwidthTest do: 2 (double data rate) x memory clock x bus width / 8; 0 when
                                        either is unknown. A ceiling, not a measurement */
    uint64_t l2_cache_bytes;        /* the cache in front of global memory: the GPU's L2 (CUDA/HIP), the host CPU's
                                        L2 (one core's), OpenCL's CL_DEVICE_GLOBAL_MEM_CACHE_SIZE (a GPU's L2; CPU
                                        runtimes such as PoCL give their last-level cache); 0 unknown */
} hcl_device_info;

/* Number of backends known (built-in and named in HCL_EXTRA_DRIVERS). Loads every driver module on first
 * use. Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT (out_count NULL). */
HCL_API hcl_status hcl_backend_count(uint32_t *out_count);
/* Describe backend `index` (0 <= index < hcl_backend_count): available or not, with the reason.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT (out_info NULL), HCL_ERROR_DEVICE_NOT_FOUND (index out of
 * range). */
HCL_API hcl_status hcl_backend_get_info(uint32_t index, hcl_backend_info *out_info);

/* Number of devices over every available backend, in backend order cuda, hip, levelzero, opencl, vulkan, host.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT. */
HCL_API hcl_status hcl_device_count(uint32_t *out_count);
/* Properties of device `index` in the global list of hcl_device_count, without opening it.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT, HCL_ERROR_DEVICE_NOT_FOUND.
 * ABI: hcl_device_info only grows at the end. This header maps hcl_device_get_info_by_index and hcl_device_get_info
 * to the *_v2 symbols, which write the whole struct as declared above; a program built against HCL 0.1.0's header
 * calls the unsuffixed symbols, which the library still exports and which write only the fields that header had
 * (up to matrix_types), so an old binary's smaller struct is never overrun (CUDA 12 did the same for
 * cudaGetDeviceProperties). */
HCL_API hcl_status hcl_device_get_info_by_index_v2(uint32_t index, hcl_device_info *out_info);
#define hcl_device_get_info_by_index hcl_device_get_info_by_index_v2

/* Open a device by selector and return an owned handle (release with hcl_device_release).
 * selector: NULL or "" means the environment: HCL_BACKEND (a name or a comma-separated preference list) and
 * HCL_DEVICE (an index within that backend); with neither set, the first GPU of cuda, hip, levelzero,
 * opencl, else the host device. Otherwise "backend", "backend:N" or a comma list of those ("cuda,opencl:1").
 * "backend:N" is exactly its device N. A backend named without an index ("opencl", HCL_BACKEND=opencl) and without
 * HCL_DEVICE opens its first GPU, else its first accelerator, else its first CPU (else device 0): with PoCL as
 * OpenCL platform 0 beside NVIDIA's, "opencl" is the NVIDIA GPU and "opencl:0" PoCL's CPU. hcl-info shows what
 * each backend's name opens.
 * An explicitly named backend that is unavailable fails with its reason: there is no silent fallback to a
 * backend that was not named.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT (malformed selector, out_device NULL),
 * HCL_ERROR_UNKNOWN_BACKEND (message lists the known names), HCL_ERROR_BACKEND_UNAVAILABLE (message gives
 * the reason), HCL_ERROR_DEVICE_NOT_FOUND, HCL_ERROR_VENDOR, HCL_ERROR_OUT_OF_MEMORY (also when a backend that
 * was asked for could not start for want of host memory: the next call tries to start it again). */
HCL_API hcl_status hcl_device_open(const char *selector, hcl_device *out_device);
/* Release a device handle. Objects created from it must be released first; those still alive keep the
 * underlying device context until they go. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE. */
HCL_API hcl_status hcl_device_release(hcl_device device);
/* Properties of an opened device. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT.
 * (hcl_device_get_info is this header's name for hcl_device_get_info_v2: see hcl_device_get_info_by_index.) */
HCL_API hcl_status hcl_device_get_info_v2(hcl_device device, hcl_device_info *out_info);
#define hcl_device_get_info hcl_device_get_info_v2

/* ---------------------------------------------------------------------------------------------------------
 * Queues: in order. Commands run in the order they were submitted.
 * ------------------------------------------------------------------------------------------------------- */
/* Create an in-order queue on a device (owned by the caller). Returns HCL_SUCCESS,
 * HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT, HCL_ERROR_OUT_OF_MEMORY, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_queue_create(hcl_device device, hcl_queue *out_queue);
/* Wait for every submitted command to finish, then release the queue. Returns HCL_SUCCESS,
 * HCL_ERROR_INVALID_HANDLE, HCL_ERROR_VENDOR (the queue is released even then). */
HCL_API hcl_status hcl_queue_release(hcl_queue queue);
/* Block until every command submitted to the queue has finished. Returns HCL_SUCCESS,
 * HCL_ERROR_INVALID_HANDLE, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_queue_finish(hcl_queue queue);
/* Submit a marker: an event that completes when everything submitted before it has completed; its start
 * and end time are the same instant. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE,
 * HCL_ERROR_INVALID_ARGUMENT, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_queue_marker(hcl_queue queue, hcl_event *out_event);

/* ---------------------------------------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------------------------------------- */
/* Block until the command behind the event has finished. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE,
 * HCL_ERROR_VENDOR (the command failed on the device). */
HCL_API hcl_status hcl_event_wait(hcl_event event);
/* Release an event (after waiting for it if it is still pending). Returns HCL_SUCCESS,
 * HCL_ERROR_INVALID_HANDLE. */
HCL_API hcl_status hcl_event_release(hcl_event event);
/* Device-side time in seconds from the start of the command behind `start` to the end of the command
 * behind `end` (the same event for the duration of one command). Waits for both.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT, HCL_ERROR_DEVICE_MISMATCH,
 * HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_event_elapsed(hcl_event start, hcl_event end, double *out_seconds);

/* ---------------------------------------------------------------------------------------------------------
 * Buffers: device memory of a fixed size. Every offset and size is checked against the buffer.
 *
 * The *_async forms take a wait list (events that must complete first, possibly from other queues of the
 * same device) and may return an event (out_event may be NULL). Host memory passed to an async form must
 * stay valid and unchanged until the command completes. The blocking forms return when the command is done.
 * A transfer of size 0 is valid and does nothing (its event, if asked for, completes at once).
 * ------------------------------------------------------------------------------------------------------- */
/* Create a buffer of `size` bytes (> 0) on a device; contents undefined. flags must be 0 (reserved).
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (size 0, unknown flags,
 * out_buffer NULL), HCL_ERROR_OUT_OF_MEMORY (size above the device's max_alloc_bytes or the allocation
 * failed), HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_buffer_create(hcl_device device, size_t size, uint32_t flags, hcl_buffer *out_buffer);
/* Release a buffer. The caller must not release a buffer that pending commands still use.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE. */
HCL_API hcl_status hcl_buffer_release(hcl_buffer buffer);
/* The size in bytes of a buffer. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT. */
HCL_API hcl_status hcl_buffer_size(hcl_buffer buffer, size_t *out_size);

/* Copy `size` bytes from host memory `src` to the buffer at `offset`; blocks until done.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (src NULL with size > 0),
 * HCL_ERROR_OUT_OF_RANGE (offset + size beyond the buffer), HCL_ERROR_DEVICE_MISMATCH, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_buffer_write(hcl_queue queue, hcl_buffer dst, size_t offset, size_t size, const void *src);
/* Copy `size` bytes of the buffer from `offset` to host memory `dst`; blocks until done. Statuses as
 * hcl_buffer_write. */
HCL_API hcl_status hcl_buffer_read(hcl_queue queue, hcl_buffer src, size_t offset, size_t size, void *dst);
/* Copy `size` bytes between buffers; blocks until done. Overlapping ranges of one buffer give
 * HCL_ERROR_INVALID_ARGUMENT. The buffers may belong to two devices (a peer copy), and the queue to either of them:
 * between devices of one backend with direct peer access (hcl_device_peer_access) the vendor's peer copy runs on the
 * queue (cuMemcpyPeerAsync, hipMemcpyPeerAsync); otherwise, and between backends, the copy is staged through
 * page-locked host memory in pipelined chunks, using an internal queue on the other device. Commands on the other
 * device that write src or read dst must have finished (hcl_queue_finish, hcl_event_wait) before the call.
 * Statuses as hcl_buffer_write. */
HCL_API hcl_status hcl_buffer_copy(hcl_queue queue, hcl_buffer dst, size_t dst_offset, hcl_buffer src,
                                   size_t src_offset, size_t size);
/* Fill `size` bytes from `offset` with a repeated pattern of pattern_size bytes (1, 2, 4, 8, 16, 32, 64 or
 * 128); offset and size must be multiples of pattern_size. Blocks until done. Statuses as hcl_buffer_write. */
HCL_API hcl_status hcl_buffer_fill(hcl_queue queue, hcl_buffer buffer, size_t offset, size_t size, const void *pattern,
                                   size_t pattern_size);

/* Asynchronous forms: same checks and statuses as the blocking forms, plus HCL_ERROR_INVALID_ARGUMENT for a
 * wait list that is NULL with num_wait > 0, and HCL_ERROR_INVALID_HANDLE / HCL_ERROR_DEVICE_MISMATCH for a
 * bad event in it (the wait list's events belong to the queue's device). A staged copy between devices (see
 * hcl_buffer_copy) waits for its wait list and completes before hcl_buffer_copy_async returns; its event is then
 * already complete. */
HCL_API hcl_status hcl_buffer_write_async(hcl_queue queue, hcl_buffer dst, size_t offset, size_t size, const void *src,
                                          uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event);
HCL_API hcl_status hcl_buffer_read_async(hcl_queue queue, hcl_buffer src, size_t offset, size_t size, void *dst,
                                         uint32_t num_wait, const hcl_event *wait_list, hcl_event *out_event);
HCL_API hcl_status hcl_buffer_copy_async(hcl_queue queue, hcl_buffer dst, size_t dst_offset, hcl_buffer src,
                                         size_t src_offset, size_t size, uint32_t num_wait, const hcl_event *wait_list,
                                         hcl_event *out_event);
HCL_API hcl_status hcl_buffer_fill_async(hcl_queue queue, hcl_buffer buffer, size_t offset, size_t size,
                                         const void *pattern, size_t pattern_size, uint32_t num_wait,
                                         const hcl_event *wait_list, hcl_event *out_event);

/* Whether `device` reaches `peer`'s memory directly (NVLink or PCIe peer-to-peer between two GPUs of one backend),
 * so that hcl_buffer_copy between them runs as the vendor's peer copy: *out_direct is 1, else 0 (copies between them
 * are then staged through host memory). A device and itself give 1. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE,
 * HCL_ERROR_INVALID_ARGUMENT (out_direct NULL), HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_device_peer_access(hcl_device device, hcl_device peer, int *out_direct);

/* ---------------------------------------------------------------------------------------------------------
 * Page-locked host memory
 * ------------------------------------------------------------------------------------------------------- */
/* Allocate `size` bytes of host memory (64-byte aligned) for fast transfers with this device: page-locked
 * (pinned) memory on cuda, hip and levelzero (zeMemAllocHost), so that the *_async transfers from and to it really
 * run asynchronously; ordinary
 * aligned host memory on backends that offer no portable pinning (host, opencl). The caller owns it and frees it
 * with hcl_host_free on the same device, before releasing the device.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (size 0, out_ptr NULL),
 * HCL_ERROR_OUT_OF_MEMORY, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_host_alloc(hcl_device device, size_t size, void **out_ptr);
/* Free memory from hcl_host_alloc (NULL does nothing). No pending command may still use it.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (ptr did not come from
 * hcl_host_alloc on this device, or was freed already). */
HCL_API hcl_status hcl_host_free(hcl_device device, void *ptr);

/* ---------------------------------------------------------------------------------------------------------
 * Interoperability: the vendor objects behind HCL handles, to call vendor libraries (cuBLAS, CLBlast, ...) on
 * HCL's memory and queues. HCL keeps ownership: do not release them, and do not use them after the HCL handle
 * is released.
 *   cuda:   device -> CUcontext (the primary context), queue -> CUstream, buffer -> CUdeviceptr (cast)
 *   opencl: device -> cl_context, queue -> cl_command_queue, buffer -> cl_mem
 *   vulkan: device -> VkDevice, queue -> VkQueue, buffer -> VkBuffer
 *   hip:    device -> a pointer to its hipDevice_t ordinal (for hipSetDevice), queue -> hipStream_t,
 *           buffer -> hipDeviceptr_t
 *   levelzero: device -> ze_context_handle_t, queue -> ze_command_list_handle_t (immediate), buffer -> the
 *           device pointer
 *   host:   buffer -> the data pointer; device and queue have none (HCL_ERROR_UNSUPPORTED)
 * Each returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (out_native NULL),
 * HCL_ERROR_UNSUPPORTED (the backend has no such object).
 * ------------------------------------------------------------------------------------------------------- */
HCL_API hcl_status hcl_device_get_native(hcl_device device, void **out_native);
HCL_API hcl_status hcl_queue_get_native(hcl_queue queue, void **out_native);
HCL_API hcl_status hcl_buffer_get_native(hcl_buffer buffer, void **out_native);
/* The other way: an HCL buffer over `size` bytes (> 0) of memory the application allocated through the backend's own
 * API on this device, without a copy (a torch or CuPy tensor's data, a NumPy array's):
 *   cuda:   a CUdeviceptr (cast to void *) of this device in its primary context (the CUDA runtime's, which torch
 *           and CuPy allocate in); the driver asks cuPointerGetAttribute and refuses a pointer of another device or
 *           of another context, host memory, or an allocation that ends before native + size
 *   hip:    a device pointer of this device (hipPointerGetAttributes checks its device and extent where it can)
 *   levelzero: a device or shared USM pointer of this device's context (zeMemGetAllocProperties checks it)
 *   host:   a host pointer (nothing to check)
 *   opencl: not supported (HCL_ERROR_UNSUPPORTED): a cl_mem cannot be made from an address, and an OpenCL buffer is
 *           shared as the cl_mem of hcl_buffer_get_native
 *   vulkan: not supported (HCL_ERROR_UNSUPPORTED): a VkBuffer is bound to memory the driver allocates; a Vulkan
 *           buffer is shared as the VkBuffer of hcl_buffer_get_native
 * HCL does not own the memory: hcl_buffer_release never frees it, and the application keeps it valid (and does not
 * free it) until the buffer is released and the commands that use it are complete. hcl_buffer_get_native of the
 * buffer gives `native` back. The buffer is used like any other (transfers, launches, built-ins) on queues of
 * `device`; ordering with the application's own work on that memory (its streams) is the application's to ensure.
 * flags must be 0 (reserved). Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (native
 * NULL, size 0, unknown flags, out_buffer NULL, or memory the driver can tell is not this device's or is shorter
 * than size), HCL_ERROR_UNSUPPORTED (the backend cannot wrap memory), HCL_ERROR_OUT_OF_MEMORY, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_buffer_wrap_native(hcl_device device, void *native, size_t size, uint32_t flags,
                                          hcl_buffer *out_buffer);

/* ---------------------------------------------------------------------------------------------------------
 * Modules and kernels
 *
 * A module is created from one or more sources; the driver takes the first form it can run, in the order
 * given, and fails with HCL_ERROR_UNSUPPORTED (listing the kinds given and the kinds it takes) if none fits.
 * ------------------------------------------------------------------------------------------------------- */
typedef enum hcl_source_kind {
    HCL_SOURCE_OPENCL_C = 1,     /* OpenCL C text (opencl) */
    HCL_SOURCE_CUDA_C = 2,       /* CUDA C++ text, compiled with NVRTC (cuda) */
    HCL_SOURCE_HIP_C = 3,        /* HIP C++ text, compiled with hiprtc (hip) */
    HCL_SOURCE_SPIRV = 4,        /* SPIR-V binary (levelzero) */
    HCL_SOURCE_CUDA_BINARY = 5,  /* fatbin, cubin or PTX (cuda) */
    HCL_SOURCE_HIP_BINARY = 6,   /* HIP code object or bundle (hip) */
    HCL_SOURCE_HOST_TABLE = 7,   /* a table of C functions (host): data points to an hcl_host_function array */
    HCL_SOURCE_SPIRV_VULKAN = 8, /* SPIR-V of Vulkan compute shaders (vulkan; docs/backends.md: its launch ABI) */
    HCL_SOURCE_GLSL = 9          /* GLSL text of one Vulkan compute shader, compiled at run time (vulkan) */
} hcl_source_kind;

/* The enum name of a source kind ("HCL_SOURCE_CUDA_C"), or "HCL_SOURCE_UNKNOWN". Inline, so drivers and tools can
 * use it without linking libhcl. */
static inline const char *hcl_source_kind_name(hcl_source_kind kind) {
    switch (kind) {
    case HCL_SOURCE_OPENCL_C: return "HCL_SOURCE_OPENCL_C";
    case HCL_SOURCE_CUDA_C: return "HCL_SOURCE_CUDA_C";
    case HCL_SOURCE_HIP_C: return "HCL_SOURCE_HIP_C";
    case HCL_SOURCE_SPIRV: return "HCL_SOURCE_SPIRV";
    case HCL_SOURCE_CUDA_BINARY: return "HCL_SOURCE_CUDA_BINARY";
    case HCL_SOURCE_HIP_BINARY: return "HCL_SOURCE_HIP_BINARY";
    case HCL_SOURCE_HOST_TABLE: return "HCL_SOURCE_HOST_TABLE";
    case HCL_SOURCE_SPIRV_VULKAN: return "HCL_SOURCE_SPIRV_VULKAN";
    case HCL_SOURCE_GLSL: return "HCL_SOURCE_GLSL";
    }
    return "HCL_SOURCE_UNKNOWN";
}

typedef struct hcl_module_source {
    hcl_source_kind kind;
    const void *data;    /* text, binary, or hcl_host_function[] */
    size_t size;         /* bytes of text/binary (a text may omit its NUL); entries for HCL_SOURCE_HOST_TABLE */
    const char *options; /* build options passed to the compiler (may be NULL) */
} hcl_module_source;

typedef struct hcl_dim3 {
    uint32_t x, y, z;
} hcl_dim3;

/* Host kernels. A host kernel is called once per work-group (possibly from several threads at once for
 * different groups) and loops over the work-items of its group itself. */
typedef struct hcl_host_launch {
    hcl_dim3 group_id; /* this work-group's index in the grid */
    hcl_dim3 grid;     /* work-groups in the grid */
    hcl_dim3 block;    /* work-items per work-group */
    void *shared;      /* dynamic local memory of this group (NULL when 0 bytes were asked for) */
    size_t shared_size;
} hcl_host_launch;
/* args[i] points to the i-th launch argument: for a buffer argument, to a `void *` holding the buffer's
 * data address (with its offset applied); for a value argument, to the value's bytes. */
typedef void (*hcl_host_kernel_fn)(const hcl_host_launch *launch, void *const *args);
typedef struct hcl_host_function {
    const char *name;
    hcl_host_kernel_fn fn;
} hcl_host_function;

/* Build a module on a device from `count` candidate sources (owned by the caller; copied as needed, so they
 * may be freed after the call). Compilation results are cached on disk ($HCL_CACHE_DIR, default
 * ~/.cache/hcl). Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (count 0, NULL
 * data, bad kind), HCL_ERROR_UNSUPPORTED, HCL_ERROR_BUILD (the message holds the build log),
 * HCL_ERROR_OUT_OF_MEMORY, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_module_create(hcl_device device, const hcl_module_source *sources, uint32_t count,
                                     hcl_module *out_module);
/* Release a module. Its kernels must be released first (they keep it alive until then).
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE. */
HCL_API hcl_status hcl_module_release(hcl_module module);
/* Look up a kernel by name. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT,
 * HCL_ERROR_NOT_FOUND, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_kernel_create(hcl_module module, const char *name, hcl_kernel *out_kernel);
/* The most work-items a block (work-group) of this kernel may have on its device: what the kernel's registers and
 * local memory leave of the device's max_work_group_size, as the runtime reports it (CUDA's
 * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, OpenCL's CL_KERNEL_WORK_GROUP_SIZE); the device's figure where the
 * backend does not say. hcl_kernel_launch refuses larger blocks. Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE,
 * HCL_ERROR_INVALID_ARGUMENT (out_max NULL). */
HCL_API hcl_status hcl_kernel_get_max_group_size(hcl_kernel kernel, uint64_t *out_max);
/* Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE. */
HCL_API hcl_status hcl_kernel_release(hcl_kernel kernel);

typedef enum hcl_arg_kind {
    HCL_ARG_BUFFER = 1, /* a buffer; the kernel sees a pointer to its first byte plus offset */
    HCL_ARG_VALUE = 2   /* `size` bytes copied from `value` (a scalar or a plain struct) */
} hcl_arg_kind;

typedef struct hcl_arg {
    hcl_arg_kind kind;
    hcl_buffer buffer; /* HCL_ARG_BUFFER */
    size_t offset;     /* HCL_ARG_BUFFER: byte offset into the buffer (< its size, and a multiple of the
                           device's arg_offset_alignment) */
    const void *value; /* HCL_ARG_VALUE */
    size_t size;       /* HCL_ARG_VALUE: bytes (1..256) */
} hcl_arg;

/* Convenience constructors for hcl_arg. */
static inline hcl_arg hcl_arg_buffer(hcl_buffer b) {
    hcl_arg a = {HCL_ARG_BUFFER, b, 0, NULL, 0};
    return a;
}
static inline hcl_arg hcl_arg_value(const void *v, size_t size) {
    hcl_arg a = {HCL_ARG_VALUE, NULL, 0, v, size};
    return a;
}

/* Launch a kernel: `grid` work-groups of `block` work-items each (CUDA's grid/block; OpenCL's global size is
 * grid*block), with `shared_bytes` of dynamic local memory per group. On OpenCL the dynamic local memory is
 * passed as one extra `__local` pointer argument after the given ones; on CUDA/HIP it is the kernel's
 * `extern __shared__` array; on host it is hcl_host_launch.shared.
 * The core checks the shape before the backend sees it: a zero dimension; a block above max_work_group_size or
 * the kernel's own largest group; a grid dimension above the device's work-group count limit where the backend
 * states one (CUDA/HIP, Level Zero, host); 2^63 or more work-items in all (products are overflow-checked); the
 * message names the limit. Per-dimension block limits (CUDA's 1024 x 1024 x 64) are the backend's to report.
 * The arguments are checked against the kernel's declared parameters where the backend knows them: their count (on
 * OpenCL and Level Zero without the __local parameter that shared_bytes fills; a kernel whose last parameter is
 * __local needs shared_bytes > 0), a buffer where a value goes, a value where a buffer goes, and a value of the wrong
 * size; the message names the parameter (index, and name and type where known). OpenCL and Level Zero know every
 * parameter; CUDA and HIP know kinds for kernels built from source (CUDA also sizes, from its driver, for binaries);
 * HIP code objects and host function tables declare none, so their launches are checked for argument kinds only.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT (a zero or oversized dimension,
 * block above max_work_group_size, shared_bytes above local_mem_bytes, bad argument kind or size, arguments that do
 * not match the kernel's parameters, NULL
 * args with num_args > 0, a buffer argument's offset that is not a multiple of the device's
 * arg_offset_alignment), HCL_ERROR_OUT_OF_RANGE (a buffer argument's offset at or past its size),
 * HCL_ERROR_DEVICE_MISMATCH, HCL_ERROR_VENDOR. */
HCL_API hcl_status hcl_kernel_launch(hcl_queue queue, hcl_kernel kernel, hcl_dim3 grid, hcl_dim3 block,
                                     size_t shared_bytes, uint32_t num_args, const hcl_arg *args, uint32_t num_wait,
                                     const hcl_event *wait_list, hcl_event *out_event);

/* ---------------------------------------------------------------------------------------------------------
 * Built-in kernels. Each is submitted to the queue and runs the current backend's own source of the kernel;
 * out_event (may be NULL) returns an event for timing. Buffers hold elements of the call's type (hcl_dtype)
 * from byte offset 0 and must be large enough for the shape (else HCL_ERROR_OUT_OF_RANGE). Whatever the storage
 * type, the arithmetic is float32: f16 and bf16 inputs are widened exactly, results are rounded to the output
 * type once, to nearest even. Common statuses: HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE, HCL_ERROR_INVALID_ARGUMENT
 * (also a type that is not an hcl_dtype), HCL_ERROR_OUT_OF_RANGE, HCL_ERROR_DEVICE_MISMATCH, HCL_ERROR_VENDOR,
 * HCL_ERROR_BUILD (the backend's kernel source failed to build on first use), HCL_ERROR_UNSUPPORTED (the device
 * cannot run the call in that type: the message names the device and the type).
 * The *_f32 forms are the typed forms with HCL_DTYPE_F32.
 * ------------------------------------------------------------------------------------------------------- */
/* c[i] = a[i] + b[i] for i < n, all three of `type`. n = 0 does nothing. c may be a or b. */
HCL_API hcl_status hcl_vecadd(hcl_queue queue, hcl_dtype type, size_t n, hcl_buffer a, hcl_buffer b, hcl_buffer c,
                              hcl_event *out_event);
HCL_API hcl_status hcl_vecadd_f32(hcl_queue queue, size_t n, hcl_buffer a, hcl_buffer b, hcl_buffer c,
                                  hcl_event *out_event);

typedef enum hcl_transpose { HCL_NO_TRANS = 0, HCL_TRANS = 1 } hcl_transpose;

/* How hcl_gemm multiplies. Accumulation is float32 in every mode. */
typedef enum hcl_compute {
    HCL_COMPUTE_F32 = 0, /* products of the inputs as stored (f16 and bf16 widen exactly), summed in float32 */
    HCL_COMPUTE_TF32 = 1 /* f32 inputs only: rounded to TF32 (10 fraction bits) on the matrix unit; only where
                            hcl_device_info.matrix_types has HCL_TYPE_BIT_TF32, else HCL_ERROR_UNSUPPORTED */
} hcl_compute;

/* GEMM with BLAS meaning on row-major matrices: C = alpha * op(A) * op(B) + beta * C, where op(A) is m x k,
 * op(B) is k x n and C is m x n. A is m x k (lda >= k) when trans_a is HCL_NO_TRANS, else k x m (lda >= m);
 * likewise B; ldc >= n. As in BLAS, when beta is 0 C is not read (NaN in C does not propagate), and when k is
 * 0 or alpha is 0, C = beta * C. m = 0 or n = 0 does nothing. C must not overlap A or B.
 * Types: a_type and b_type must be equal; c_type is a_type or HCL_DTYPE_F32 (f16 x f16 -> f32 is the usual
 * mixed-precision form); alpha and beta are float32 and the sum is float32, rounded to c_type once at the end.
 * HCL_COMPUTE_TF32 takes f32 inputs only and is never used unless asked for.
 * Statuses: the common ones (bad transpose value, leading dimension, mismatched types, TF32 with 16-bit inputs,
 * a compute value that is not an hcl_compute: HCL_ERROR_INVALID_ARGUMENT; TF32 on a device without it:
 * HCL_ERROR_UNSUPPORTED). */
HCL_API hcl_status hcl_gemm(hcl_queue queue, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n, size_t k,
                            float alpha, hcl_dtype a_type, hcl_buffer a, size_t lda, hcl_dtype b_type, hcl_buffer b,
                            size_t ldb, float beta, hcl_dtype c_type, hcl_buffer c, size_t ldc, hcl_compute compute,
                            hcl_event *out_event);
/* hcl_gemm with every type HCL_DTYPE_F32 and HCL_COMPUTE_F32 (SGEMM). */
HCL_API hcl_status hcl_gemm_f32(hcl_queue queue, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n,
                                size_t k, float alpha, hcl_buffer a, size_t lda, hcl_buffer b, size_t ldb, float beta,
                                hcl_buffer c, size_t ldc, hcl_event *out_event);

/* Row-wise softmax of a rows x cols row-major matrix: out[r][j] = exp(in[r][j] - max_r) / sum_j exp(...), in and
 * out of `type`. Numerically stable: large magnitudes do not overflow, -inf entries give 0, a row of all -inf
 * gives NaN (0/0, as in PyTorch). out may be in (in place). rows = 0 or cols = 0 does nothing. */
HCL_API hcl_status hcl_softmax(hcl_queue queue, hcl_dtype type, size_t rows, size_t cols, hcl_buffer in, hcl_buffer out,
                               hcl_event *out_event);
HCL_API hcl_status hcl_softmax_f32(hcl_queue queue, size_t rows, size_t cols, hcl_buffer in, hcl_buffer out,
                                   hcl_event *out_event);

typedef enum hcl_reduce_op { HCL_REDUCE_SUM = 0, HCL_REDUCE_MAX = 1, HCL_REDUCE_MIN = 2 } hcl_reduce_op;

/* out[0] = sum, max or min of in[0..n), in of `type`; out holds one float32 whatever the type (the sum of
 * many 16-bit values does not fit a 16-bit result). n = 0 gives the identity (0, -inf, +inf). The result is
 * deterministic: the same inputs on the same device give the same bits. out must not be in. */
HCL_API hcl_status hcl_reduce(hcl_queue queue, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_buffer in,
                              hcl_buffer out, hcl_event *out_event);
HCL_API hcl_status hcl_reduce_f32(hcl_queue queue, hcl_reduce_op op, size_t n, hcl_buffer in, hcl_buffer out,
                                  hcl_event *out_event);

/* ---------------------------------------------------------------------------------------------------------
 * Element types on the host
 * ------------------------------------------------------------------------------------------------------- */
/* "f32", "f16", "bf16"; "?" for a value that is not an hcl_dtype. */
HCL_API const char *hcl_dtype_name(hcl_dtype type);
/* Bytes per element (4, 2, 2); 0 for a value that is not an hcl_dtype. */
HCL_API size_t hcl_dtype_size(hcl_dtype type);
/* float32 -> f16 / bf16, rounded to nearest even; overflow gives +-inf, NaN stays NaN (quiet), f16 subnormals
 * are kept. Exact inverses: every f16 and bf16 value widens to float32 without rounding. */
HCL_API uint16_t hcl_f32_to_f16(float value);
HCL_API float hcl_f16_to_f32(uint16_t value);
HCL_API uint16_t hcl_f32_to_bf16(float value);
HCL_API float hcl_bf16_to_f32(uint16_t value);
/* Convert n elements of host memory from src_type to dst_type with the rules above (the same type copies).
 * dst and src must not overlap unless they are equal and the types have the same size. n = 0 does nothing.
 * Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT (a NULL pointer with n > 0, a type that is not an hcl_dtype). */
HCL_API hcl_status hcl_convert(hcl_dtype dst_type, void *dst, hcl_dtype src_type, const void *src, size_t n);

/* ---------------------------------------------------------------------------------------------------------
 * Tracing: a Chrome / Perfetto trace (Trace Event Format JSON) of the program's HCL calls and device work.
 * Every call that does work (opening and releasing objects, transfers, launches, built-ins, finishes and waits) is a
 * slice on its thread's track with its key arguments and the status it returned; every queued command is a slice
 * on its queue's track, timed from its device events, with a flow arrow from the call that queued it. Open the file
 * in https://ui.perfetto.dev or chrome://tracing. Setting HCL_TRACE=FILE in the environment starts a trace when
 * libhcl is loaded (the same as calling hcl_trace_start(FILE) first); HCL_TRACE_EVENTS sets how many records are
 * buffered between writes to the file (default 262144, 152 bytes each). With no trace running, the cost is a test
 * of one flag per call.
 * ------------------------------------------------------------------------------------------------------- */
/* Start writing a trace to `path` (created or truncated). Commands are timed on the device only while a trace runs:
 * the library then keeps every command's event until it reads its times (at hcl_queue_finish, hcl_queue_release, or
 * hcl_trace_stop). The file is complete, valid JSON after each write; the last write is at hcl_trace_stop or when the
 * program exits. Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT (path NULL or empty, the file cannot be created,
 * or a trace is already running), HCL_ERROR_OUT_OF_MEMORY. */
HCL_API hcl_status hcl_trace_start(const char *path);
/* Read the device times of the commands still pending (waiting for them), write the rest of the trace and close
 * the file. Call it while no other thread is calling HCL. Does nothing when no trace runs. Returns HCL_SUCCESS,
 * HCL_ERROR_INVALID_ARGUMENT (writing the file failed, e.g. the disk is full). */
HCL_API hcl_status hcl_trace_stop(void);

#ifdef __cplusplus
}
#endif
#endif /* HCL_HCL_H */
