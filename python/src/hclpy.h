/* The Python binding's shared declarations: the object types of the extension module hcl._hcl and the helpers
 * every file uses. The binding is built on CPython's stable ABI (Py_LIMITED_API, abi3) and on HCL's public C API
 * only (hcl/hcl.h, hcl/hcl_comm.h). */
#ifndef HCLPY_H
#define HCLPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <hcl/hcl.h>
#include <hcl/hcl_comm.h>

/* A device handle; `queue` is its default queue, created on first use and released with the device. */
typedef struct {
    PyObject_HEAD hcl_device h;
    hcl_queue queue;
    PyThread_type_lock qlock; /* held around every call on `queue` (a queue must not be used by two threads at once) */
    Py_ssize_t host_allocs;   /* live hcl.HostMemory of this device: hcl_host_free needs the device handle */
} hclpy_device;

/* A queue; `owned` is 0 for the device's default queue (released with the device, not here). */
typedef struct {
    PyObject_HEAD hcl_queue h;
    PyObject *device;
    int owned;
    PyThread_type_lock lock; /* held around every call on the queue; the device's qlock when not owned */
} hclpy_queue;

typedef struct {
    PyObject_HEAD hcl_event h;
    PyObject *device;
    PyObject *keep; /* host memory an asynchronous transfer still uses (released with the event) */
} hclpy_event;

typedef struct {
    PyObject_HEAD hcl_buffer h;
    PyObject *device;
    size_t size;
    /* The queue of the last asynchronous command that used the buffer, and the hcl.Queue or hcl.Device that owns it:
     * releasing the buffer (explicitly or when collected) finishes that queue first, since the C API must not see a
     * buffer released under a pending command, and Python drops temporaries at once. */
    hcl_queue pending;
    PyObject *pending_owner;
    /* Buffer.wrap: the object that keeps the wrapped memory alive (a DLPack holder, a tensor), dropped only after
     * hcl_buffer_release; NULL for memory HCL allocated. */
    PyObject *owner;
} hclpy_buffer;

typedef struct {
    PyObject_HEAD void *ptr;
    size_t size;
    PyObject *device;
    Py_ssize_t exports; /* live memoryviews: free refuses while any remains */
} hclpy_hostmem;

typedef struct {
    PyObject_HEAD hcl_module h;
    PyObject *device;
    PyObject *keep; /* what host-table sources point into (names and ctypes functions) */
} hclpy_module;

typedef struct {
    PyObject_HEAD hcl_kernel h;
    PyObject *module;
    PyObject *device;
    PyObject *name;
} hclpy_kernel;

/* A typed scalar kernel argument: its bytes as the kernel sees them, and its type's name. */
typedef struct {
    PyObject_HEAD unsigned char bytes[16];
    size_t size;
    PyObject *type_name;
} hclpy_scalar;

typedef struct {
    PyObject_HEAD hcl_comm h;
    PyObject *device;
} hclpy_comm;

/* The module's types, made from specs at import. */
extern PyObject *hclpy_DeviceType, *hclpy_QueueType, *hclpy_EventType, *hclpy_BufferType, *hclpy_HostMemoryType,
    *hclpy_ModuleType, *hclpy_KernelType, *hclpy_ScalarType, *hclpy_CommType;

/* Raise the exception class of `status` with hcl_last_message() (or `detail` when not NULL); returns NULL. */
PyObject *hclpy_raise(hcl_status status, const char *detail);
/* Raise hcl.InvalidHandleError for a Python object whose handle was released already; returns NULL. */
PyObject *hclpy_released(const char *what);

/* Type checks and handle access: each returns NULL (or 0) with an exception set on a wrong type or a released
 * object. */
hcl_device hclpy_device_handle(PyObject *obj);
hcl_queue hclpy_queue_handle(PyObject *obj);
hcl_buffer hclpy_buffer_handle(PyObject *obj);
hcl_event hclpy_event_handle(PyObject *obj);
/* The queue to submit to: `queue` when it is not None (an hcl.Queue, or an hcl.Device for its default queue), else
 * the default queue of the device `device`; *out_lock gets the lock to hold (with the GIL released) around every call
 * on it, since Python threads that release the GIL could otherwise use one queue at once. */
hcl_queue hclpy_pick_queue(PyObject *queue, PyObject *device, PyThread_type_lock *out_lock);
/* The object that owns the queue hclpy_pick_queue picks for the same arguments (an hcl.Queue or hcl.Device). */
PyObject *hclpy_queue_owner(PyObject *queue, PyObject *device);
/* Record that a command on `q` (owned by `owner`) uses buffer object `buf` (an hcl.Buffer; anything else is ignored). */
void hclpy_buffer_used(PyObject *buf, PyObject *owner, hcl_queue q);
/* The default queue of a device object (created on first use); NULL with an exception set on failure. */
hcl_queue hclpy_device_default_queue(hclpy_device *dev);
/* A new event object owning `h`, of device `device`. */
PyObject *hclpy_event_new(hcl_event h, PyObject *device);
/* The same, keeping `keep` alive until the event is released (host memory of an asynchronous transfer). */
PyObject *hclpy_event_new_keep(hcl_event h, PyObject *device, PyObject *keep);
/* A wait list from a sequence of events (None: empty); *out_list is PyMem-allocated (free with PyMem_Free). */
int hclpy_wait_list(PyObject *seq, uint32_t *out_count, hcl_event **out_list);
/* A Python int from a size_t, and back (with an OverflowError or TypeError set on failure, returning -1). */
int hclpy_size(PyObject *obj, size_t *out);

/* Adds the types and functions of each file to the module (errors.c: the exception classes); return 0 on success,
 * -1 with an exception. */
int hclpy_init_errors(PyObject *m);
int hclpy_init_device(PyObject *m);
int hclpy_init_hostmem(PyObject *m);
int hclpy_init_buffer(PyObject *m);
int hclpy_init_kernel(PyObject *m);
int hclpy_init_builtins(PyObject *m);
int hclpy_init_dlpack(PyObject *m);
int hclpy_init_comm(PyObject *m);

/* Run `call` on a queue with the GIL released and the queue's lock held; on failure raise and return `fail`. */
#define HCLPY_QCALL(fail, lock, call)                                                                                  \
    do {                                                                                                               \
        hcl_status st_;                                                                                                \
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock((lock), WAIT_LOCK);                                               \
        st_ = (call);                                                                                                  \
        PyThread_release_lock((lock));                                                                                 \
        Py_END_ALLOW_THREADS if (st_ != HCL_SUCCESS) {                                                                 \
            hclpy_raise(st_, NULL);                                                                                    \
            return fail;                                                                                               \
        }                                                                                                              \
    } while (0)

/* Run `call` (an expression giving an hcl_status) with the GIL released; on failure raise and return `fail`. */
#define HCLPY_CALL(fail, call)                                                                                         \
    do {                                                                                                               \
        hcl_status st_;                                                                                                \
        Py_BEGIN_ALLOW_THREADS st_ = (call);                                                                           \
        Py_END_ALLOW_THREADS if (st_ != HCL_SUCCESS) {                                                                 \
            hclpy_raise(st_, NULL);                                                                                    \
            return fail;                                                                                               \
        }                                                                                                              \
    } while (0)

/* The same for a call that never waits (it keeps the GIL). */
#define HCLPY_QUICK(fail, call)                                                                                        \
    do {                                                                                                               \
        hcl_status st_ = (call);                                                                                       \
        if (st_ != HCL_SUCCESS) {                                                                                      \
            hclpy_raise(st_, NULL);                                                                                    \
            return fail;                                                                                               \
        }                                                                                                              \
    } while (0)

#endif /* HCLPY_H */
