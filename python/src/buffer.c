/* hcl._hcl: buffers (device memory) and their transfers. Host data moves through the buffer protocol (bytes,
 * bytearray, memoryview, NumPy arrays, hcl.HostMemory): the module needs no NumPy to build. */
#include "hclpy.h"

#include <string.h>

PyObject *hclpy_BufferType;

hcl_buffer hclpy_buffer_handle(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)hclpy_BufferType)) {
        PyErr_Format(PyExc_TypeError, "expected an hcl.Buffer, got %S", (PyObject *)Py_TYPE(obj));
        return NULL;
    }
    hclpy_buffer *b = (hclpy_buffer *)obj;
    if (!b->h) hclpy_released("buffer");
    return b->h;
}

/* A Buffer object of `type` over h (size bytes on Device `dev`), holding `owner` (NULL: none); h is released when
 * the object cannot be made. */
static PyObject *buffer_object(PyTypeObject *type, hcl_buffer h, PyObject *dev, size_t size, PyObject *owner) {
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    hclpy_buffer *self = (hclpy_buffer *)alloc(type, 0);
    if (!self) {
        hcl_buffer_release(h);
        return NULL;
    }
    self->h = h;
    self->device = Py_NewRef(dev);
    self->size = size;
    self->pending = NULL;
    self->pending_owner = NULL;
    self->owner = owner ? Py_NewRef(owner) : NULL;
    return (PyObject *)self;
}

/* Buffer(device, size): hcl_buffer_create (contents undefined). */
static PyObject *buffer_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"device", "size", NULL};
    PyObject *dev, *size_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO", kwlist, &dev, &size_obj)) return NULL;
    hcl_device d = hclpy_device_handle(dev);
    if (!d) return NULL;
    size_t size;
    if (PyLong_Check(size_obj) && PyLong_AsLongLong(size_obj) < 0 && !PyErr_Occurred())
        return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "hcl.Buffer: negative size");
    PyErr_Clear();
    if (hclpy_size(size_obj, &size) < 0) return NULL;
    hcl_buffer h = NULL;
    HCLPY_CALL(NULL, hcl_buffer_create(d, size, 0, &h));
    return buffer_object(type, h, dev, size, NULL);
}

/* Buffer.wrap(device, address, size, owner): hcl_buffer_wrap_native over `size` bytes at `address`, memory another
 * library allocated through the backend's API (a CUdeviceptr, a HIP device pointer, a host pointer). The buffer holds
 * `owner` (what keeps that memory alive) until it is released; HCL never frees the memory. */
static PyObject *buffer_wrap(PyObject *cls, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"device", "address", "size", "owner", NULL};
    PyObject *dev, *addr, *size_obj, *owner = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O", kwlist, &dev, &addr, &size_obj, &owner)) return NULL;
    hcl_device d = hclpy_device_handle(dev);
    if (!d) return NULL;
    void *p = PyLong_AsVoidPtr(addr);
    if (!p && PyErr_Occurred()) return NULL;
    size_t size;
    if (hclpy_size(size_obj, &size) < 0) return NULL;
    hcl_buffer h = NULL;
    HCLPY_CALL(NULL, hcl_buffer_wrap_native(d, p, size, 0, &h));
    return buffer_object((PyTypeObject *)cls, h, dev, size, owner);
}

void hclpy_buffer_used(PyObject *buf, PyObject *owner, hcl_queue q) {
    if (!buf || !PyObject_TypeCheck(buf, (PyTypeObject *)hclpy_BufferType)) return;
    hclpy_buffer *b = (hclpy_buffer *)buf;
    if (b->pending == q && b->pending_owner == owner) return;
    PyObject *old = b->pending_owner;
    b->pending = q;
    b->pending_owner = Py_NewRef(owner);
    Py_XDECREF(old);
}

/* Finish the queue of the buffer's last asynchronous command, if that queue is still alive (a released queue waited
 * for its commands already). Errors are not reported: the command's own event or the next finish reports them. */
static void buffer_drain(hclpy_buffer *b) {
    PyObject *owner = b->pending_owner;
    hcl_queue q = b->pending;
    b->pending = NULL;
    b->pending_owner = NULL;
    if (!owner) return;
    PyThread_type_lock lock = NULL;
    int alive = 0;
    if (PyObject_TypeCheck(owner, (PyTypeObject *)hclpy_QueueType)) {
        hclpy_queue *qo = (hclpy_queue *)owner;
        alive = qo->h == q && (qo->owned || ((hclpy_device *)qo->device)->queue == q);
        lock = qo->lock;
    } else if (PyObject_TypeCheck(owner, (PyTypeObject *)hclpy_DeviceType)) {
        alive = ((hclpy_device *)owner)->queue == q;
        lock = ((hclpy_device *)owner)->qlock;
    }
    if (alive && q && lock) {
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
        hcl_queue_finish(q);
        PyThread_release_lock(lock);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(owner);
}

/* Before a blocking host transfer on queue `q`: a command of another queue still pending on the buffer finishes first
 * (on its own queue the order of the queue already holds). */
static void buffer_sync_for(PyObject *obj, hcl_queue q) {
    hclpy_buffer *b = (hclpy_buffer *)obj;
    if (b->pending_owner && b->pending != q) buffer_drain(b);
}

static void buffer_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    hclpy_buffer *self = (hclpy_buffer *)obj;
    buffer_drain(self);
    if (self->h) hcl_buffer_release(self->h);
    self->h = NULL;
    Py_CLEAR(self->owner); /* the wrapped memory's keeper, once HCL no longer uses the memory */
    Py_CLEAR(self->device);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

/* synchronize(): finish the queue of the buffer's last asynchronous command (launch, built-in, asynchronous transfer,
 * collective), so that its data is ready for any reader: DLPack export and host reads on another queue call it. */
static PyObject *buffer_synchronize(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    if (!hclpy_buffer_handle(obj)) return NULL;
    buffer_drain((hclpy_buffer *)obj);
    Py_RETURN_NONE;
}

/* release(): hcl_buffer_release now, after finishing the queue of its last asynchronous command. */
static PyObject *buffer_release(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hcl_buffer b = hclpy_buffer_handle(obj);
    if (!b) return NULL;
    buffer_drain((hclpy_buffer *)obj);
    ((hclpy_buffer *)obj)->h = NULL;
    hcl_status st = hcl_buffer_release(b);
    Py_CLEAR(((hclpy_buffer *)obj)->owner);
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    Py_RETURN_NONE;
}

/* Parse (data, offset=0, size=None, queue=None, wait=None, async_=False) for write/read. */
static PyObject *transfer(PyObject *obj, PyObject *args, PyObject *kwds, int is_write) {
    static char *kwlist[] = {"data", "offset", "size", "queue", "wait", "async_", NULL};
    PyObject *data, *queue = Py_None, *wait = Py_None, *size_obj = Py_None;
    Py_ssize_t offset = 0;
    int async = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|nOOOp", kwlist, &data, &offset, &size_obj, &queue, &wait, &async))
        return NULL;
    hcl_buffer b = hclpy_buffer_handle(obj);
    if (!b) return NULL;
    PyThread_type_lock lock = NULL;
    hcl_queue q = hclpy_pick_queue(queue, ((hclpy_buffer *)obj)->device, &lock);
    if (!q) return NULL;
    if (offset < 0) return hclpy_raise(HCL_ERROR_OUT_OF_RANGE, "negative offset");
    if (!async) buffer_sync_for(obj, q);
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, (is_write ? PyBUF_SIMPLE : PyBUF_WRITABLE) | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    size_t size = (size_t)view.len;
    if (size_obj != Py_None) {
        if (hclpy_size(size_obj, &size) < 0) {
            PyBuffer_Release(&view);
            return NULL;
        }
        if (size > (size_t)view.len) {
            PyBuffer_Release(&view);
            return hclpy_raise(HCL_ERROR_OUT_OF_RANGE, "size exceeds the host object's bytes");
        }
    }
    uint32_t nw = 0;
    hcl_event *wl = NULL;
    if (hclpy_wait_list(wait, &nw, &wl) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    hcl_status st;
    hcl_event ev = NULL;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
    if (async || nw) {
        st = is_write ? hcl_buffer_write_async(q, b, (size_t)offset, size, view.buf, nw, wl, async ? &ev : NULL)
                      : hcl_buffer_read_async(q, b, (size_t)offset, size, view.buf, nw, wl, async ? &ev : NULL);
        if (st == HCL_SUCCESS && !async) st = hcl_queue_finish(q);
    } else {
        st = is_write ? hcl_buffer_write(q, b, (size_t)offset, size, view.buf)
                      : hcl_buffer_read(q, b, (size_t)offset, size, view.buf);
    }
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS PyMem_Free(wl);
    if (st != HCL_SUCCESS) {
        PyBuffer_Release(&view);
        return hclpy_raise(st, NULL);
    }
    PyBuffer_Release(&view);
    /* The event keeps the host object alive until it is released (it must not be freed while the copy runs). */
    if (async) {
        hclpy_buffer_used(obj, hclpy_queue_owner(queue, ((hclpy_buffer *)obj)->device), q);
        return hclpy_event_new_keep(ev, ((hclpy_buffer *)obj)->device, data);
    }
    Py_RETURN_NONE;
}

static PyObject *buffer_write(PyObject *obj, PyObject *args, PyObject *kwds) { return transfer(obj, args, kwds, 1); }
static PyObject *buffer_read(PyObject *obj, PyObject *args, PyObject *kwds) { return transfer(obj, args, kwds, 0); }

/* copy_from(src, dst_offset=0, src_offset=0, size=None, queue=None, wait=None, async_=False): hcl_buffer_copy. */
static PyObject *buffer_copy_from(PyObject *obj, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"src", "dst_offset", "src_offset", "size", "queue", "wait", "async_", NULL};
    PyObject *src, *queue = Py_None, *wait = Py_None, *size_obj = Py_None;
    Py_ssize_t doff = 0, soff = 0;
    int async = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|nnOOOp", kwlist, &src, &doff, &soff, &size_obj, &queue, &wait,
                                     &async))
        return NULL;
    hcl_buffer d = hclpy_buffer_handle(obj), s = d ? hclpy_buffer_handle(src) : NULL;
    if (!s) return NULL;
    if (doff < 0 || soff < 0) return hclpy_raise(HCL_ERROR_OUT_OF_RANGE, "negative offset");
    size_t size = ((hclpy_buffer *)src)->size > (size_t)soff ? ((hclpy_buffer *)src)->size - (size_t)soff : 0;
    if (size_obj != Py_None && hclpy_size(size_obj, &size) < 0) return NULL;
    PyThread_type_lock lock = NULL;
    hcl_queue q = hclpy_pick_queue(queue, ((hclpy_buffer *)obj)->device, &lock);
    if (!q) return NULL;
    if (!async) {
        buffer_sync_for(obj, q);
        buffer_sync_for(src, q);
    }
    uint32_t nw = 0;
    hcl_event *wl = NULL, ev = NULL;
    if (hclpy_wait_list(wait, &nw, &wl) < 0) return NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
    if (async || nw) {
        st = hcl_buffer_copy_async(q, d, (size_t)doff, s, (size_t)soff, size, nw, wl, async ? &ev : NULL);
        if (st == HCL_SUCCESS && !async) st = hcl_queue_finish(q);
    } else
        st = hcl_buffer_copy(q, d, (size_t)doff, s, (size_t)soff, size);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS PyMem_Free(wl);
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    if (async) {
        PyObject *owner = hclpy_queue_owner(queue, ((hclpy_buffer *)obj)->device);
        hclpy_buffer_used(obj, owner, q);
        hclpy_buffer_used(src, owner, q);
        return hclpy_event_new(ev, ((hclpy_buffer *)obj)->device);
    }
    Py_RETURN_NONE;
}

/* fill(pattern, offset=0, size=None, queue=None, wait=None, async_=False): hcl_buffer_fill with a bytes pattern. */
static PyObject *buffer_fill(PyObject *obj, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"pattern", "offset", "size", "queue", "wait", "async_", NULL};
    PyObject *pattern, *queue = Py_None, *wait = Py_None, *size_obj = Py_None;
    Py_ssize_t offset = 0;
    int async = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|nOOOp", kwlist, &pattern, &offset, &size_obj, &queue, &wait,
                                     &async))
        return NULL;
    hcl_buffer b = hclpy_buffer_handle(obj);
    if (!b) return NULL;
    if (offset < 0) return hclpy_raise(HCL_ERROR_OUT_OF_RANGE, "negative offset");
    size_t size = ((hclpy_buffer *)obj)->size > (size_t)offset ? ((hclpy_buffer *)obj)->size - (size_t)offset : 0;
    if (size_obj != Py_None && hclpy_size(size_obj, &size) < 0) return NULL;
    PyThread_type_lock lock = NULL;
    hcl_queue q = hclpy_pick_queue(queue, ((hclpy_buffer *)obj)->device, &lock);
    if (!q) return NULL;
    if (!async) buffer_sync_for(obj, q);
    Py_buffer view;
    if (PyObject_GetBuffer(pattern, &view, PyBUF_SIMPLE) < 0) return NULL;
    unsigned char pat[128];
    size_t plen = (size_t)view.len;
    if (plen <= sizeof pat) memcpy(pat, view.buf, plen);
    PyBuffer_Release(&view);
    uint32_t nw = 0;
    hcl_event *wl = NULL, ev = NULL;
    if (hclpy_wait_list(wait, &nw, &wl) < 0) return NULL;
    hcl_status st;
    /* A pattern over 128 bytes goes to the C call as it is, to be refused there with its own message. */
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
    if (async || nw) {
        st = hcl_buffer_fill_async(q, b, (size_t)offset, size, pat, plen, nw, wl, async ? &ev : NULL);
        if (st == HCL_SUCCESS && !async) st = hcl_queue_finish(q);
    } else
        st = hcl_buffer_fill(q, b, (size_t)offset, size, pat, plen);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS PyMem_Free(wl);
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    if (async) {
        hclpy_buffer_used(obj, hclpy_queue_owner(queue, ((hclpy_buffer *)obj)->device), q);
        return hclpy_event_new(ev, ((hclpy_buffer *)obj)->device);
    }
    Py_RETURN_NONE;
}

static PyObject *buffer_size(PyObject *obj, void *closure) {
    (void)closure;
    hcl_buffer b = hclpy_buffer_handle(obj);
    if (!b) return NULL;
    size_t s = 0;
    HCLPY_QUICK(NULL, hcl_buffer_size(b, &s));
    return PyLong_FromSize_t(s);
}

static PyObject *buffer_native(PyObject *obj, void *closure) {
    (void)closure;
    hcl_buffer b = hclpy_buffer_handle(obj);
    if (!b) return NULL;
    void *p = NULL;
    HCLPY_QUICK(NULL, hcl_buffer_get_native(b, &p));
    return PyLong_FromVoidPtr(p);
}

static PyObject *buffer_owner(PyObject *obj, void *closure) {
    (void)closure;
    PyObject *o = ((hclpy_buffer *)obj)->owner;
    return Py_NewRef(o ? o : Py_None);
}

static PyObject *buffer_device(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((hclpy_buffer *)obj)->device);
}

static PyObject *buffer_released(PyObject *obj, void *closure) {
    (void)closure;
    return PyBool_FromLong(((hclpy_buffer *)obj)->h == NULL);
}

static PyObject *ctx_enter(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    return Py_NewRef(obj);
}

static PyObject *buffer_exit(PyObject *obj, PyObject *args) {
    (void)args;
    if (((hclpy_buffer *)obj)->h) return buffer_release(obj, NULL) ? Py_NewRef(Py_False) : NULL;
    Py_RETURN_FALSE;
}

static PyMethodDef buffer_methods[] = {
    {"release", buffer_release, METH_NOARGS, "Release the buffer now."},
    {"wrap", (PyCFunction)(void (*)(void))buffer_wrap, METH_VARARGS | METH_KEYWORDS | METH_CLASS,
     "Buffer.wrap(device, address, size, owner=None): hcl_buffer_wrap_native over memory another library allocated "
     "(kept alive by `owner` until the buffer is released; never freed by HCL). The address must be valid memory of "
     "the device for `size` bytes: the host backend cannot check it."},
    {"synchronize", buffer_synchronize, METH_NOARGS, "Finish the queue of the buffer's last asynchronous command."},
    {"write", (PyCFunction)(void (*)(void))buffer_write, METH_VARARGS | METH_KEYWORDS,
     "write(data, offset=0, size=None, queue=None, wait=None, async_=False): host -> buffer."},
    {"read", (PyCFunction)(void (*)(void))buffer_read, METH_VARARGS | METH_KEYWORDS,
     "read(out, offset=0, size=None, queue=None, wait=None, async_=False): buffer -> a writable host object."},
    {"copy_from", (PyCFunction)(void (*)(void))buffer_copy_from, METH_VARARGS | METH_KEYWORDS,
     "copy_from(src, dst_offset=0, src_offset=0, size=None, queue=None, wait=None, async_=False)."},
    {"fill", (PyCFunction)(void (*)(void))buffer_fill, METH_VARARGS | METH_KEYWORDS,
     "fill(pattern_bytes, offset=0, size=None, queue=None, wait=None, async_=False)."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", buffer_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef buffer_getset[] = {
    {"size", buffer_size, NULL, "bytes (hcl_buffer_size)", NULL},
    {"native", buffer_native, NULL, "hcl_buffer_get_native (CUdeviceptr, cl_mem, host pointer) as an int", NULL},
    {"owner", buffer_owner, NULL, "what keeps a wrapped buffer's memory alive (Buffer.wrap), else None", NULL},
    {"device", buffer_device, NULL, "the buffer's device", NULL},
    {"released", buffer_released, NULL, "True once released", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot buffer_slots[] = {
    {Py_tp_new, buffer_new},
    {Py_tp_dealloc, buffer_dealloc},
    {Py_tp_methods, buffer_methods},
    {Py_tp_getset, buffer_getset},
    {Py_tp_doc, "Buffer(device, size): device memory of `size` bytes (hcl_buffer_create)."},
    {0, NULL},
};

static PyType_Spec buffer_spec = {"hcl.Buffer", sizeof(hclpy_buffer), 0, Py_TPFLAGS_DEFAULT, buffer_slots};

int hclpy_init_buffer(PyObject *m) {
    hclpy_BufferType = PyType_FromSpec(&buffer_spec);
    if (!hclpy_BufferType) return -1;
    return PyModule_AddObjectRef(m, "Buffer", hclpy_BufferType);
}
