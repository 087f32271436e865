/* hcl._hcl: host memory for fast transfers (hcl_host_alloc: page-locked on cuda, hip and levelzero), exposed through
 * the buffer protocol. */
#include "hclpy.h"

PyObject *hclpy_HostMemoryType;

static PyObject *ctx_enter(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    return Py_NewRef(obj);
}

/* HostMemory(device, size): hcl_host_alloc; exposes the buffer protocol (memoryview(h), numpy.frombuffer(h)). */
static PyObject *hostmem_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"device", "size", NULL};
    PyObject *dev;
    Py_ssize_t size;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "On", kwlist, &dev, &size)) return NULL;
    hcl_device d = hclpy_device_handle(dev);
    if (!d) return NULL;
    if (size < 0) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "HostMemory: negative size");
    void *p = NULL;
    HCLPY_CALL(NULL, hcl_host_alloc(d, (size_t)size, &p));
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    hclpy_hostmem *self = (hclpy_hostmem *)alloc(type, 0);
    if (!self) {
        hcl_host_free(d, p);
        return NULL;
    }
    self->ptr = p;
    self->size = (size_t)size;
    self->device = Py_NewRef(dev);
    ((hclpy_device *)dev)->host_allocs++;
    self->exports = 0;
    return (PyObject *)self;
}

static hcl_status hostmem_close(hclpy_hostmem *self) {
    if (!self->ptr) return HCL_SUCCESS;
    void *p = self->ptr;
    self->ptr = NULL;
    hclpy_device *dev = (hclpy_device *)self->device;
    dev->host_allocs--;
    return hcl_host_free(dev->h, p); /* the device cannot be released while host memory of it is alive */
}

static void hostmem_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    hclpy_hostmem *self = (hclpy_hostmem *)obj;
    hostmem_close(self);
    Py_CLEAR(self->device);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

/* free(): hcl_host_free now; refused while a memoryview of it is alive. */
static PyObject *hostmem_free(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hclpy_hostmem *self = (hclpy_hostmem *)obj;
    if (!self->ptr) return hclpy_released("host memory");
    if (self->exports > 0) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "HostMemory.free: memoryviews still use it");
    hcl_status st = hostmem_close(self);
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    Py_RETURN_NONE;
}

static int hostmem_getbuffer(PyObject *obj, Py_buffer *view, int flags) {
    hclpy_hostmem *self = (hclpy_hostmem *)obj;
    if (!self->ptr) {
        hclpy_released("host memory");
        return -1;
    }
    int rc = PyBuffer_FillInfo(view, obj, self->ptr, (Py_ssize_t)self->size, 0, flags);
    if (rc == 0) self->exports++;
    return rc;
}

static void hostmem_releasebuffer(PyObject *obj, Py_buffer *view) {
    (void)view;
    ((hclpy_hostmem *)obj)->exports--;
}

static PyObject *hostmem_size(PyObject *obj, void *closure) {
    (void)closure;
    return PyLong_FromSize_t(((hclpy_hostmem *)obj)->size);
}

static PyObject *hostmem_address(PyObject *obj, void *closure) {
    (void)closure;
    hclpy_hostmem *self = (hclpy_hostmem *)obj;
    if (!self->ptr) return hclpy_released("host memory");
    return PyLong_FromVoidPtr(self->ptr);
}

static PyObject *hostmem_exit(PyObject *obj, PyObject *args) {
    (void)args;
    hclpy_hostmem *self = (hclpy_hostmem *)obj;
    if (self->ptr && self->exports == 0) {
        hcl_status st = hostmem_close(self);
        if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    }
    Py_RETURN_FALSE;
}

static PyMethodDef hostmem_methods[] = {
    {"free", hostmem_free, METH_NOARGS, "Free the memory now (hcl_host_free)."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", hostmem_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef hostmem_getset[] = {
    {"size", hostmem_size, NULL, "bytes", NULL},
    {"address", hostmem_address, NULL, "the host address as an int", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot hostmem_slots[] = {
    {Py_tp_new, hostmem_new},
    {Py_tp_dealloc, hostmem_dealloc},
    {Py_tp_methods, hostmem_methods},
    {Py_tp_getset, hostmem_getset},
    {Py_bf_getbuffer, hostmem_getbuffer},
    {Py_bf_releasebuffer, hostmem_releasebuffer},
    {Py_tp_doc, "HostMemory(device, size): host memory for fast transfers (hcl_host_alloc; page-locked on "
                "cuda/hip/levelzero); a writable buffer-protocol object."},
    {0, NULL},
};

static PyType_Spec hostmem_spec = {"hcl.HostMemory", sizeof(hclpy_hostmem), 0, Py_TPFLAGS_DEFAULT, hostmem_slots};

int hclpy_init_hostmem(PyObject *m) {
    hclpy_HostMemoryType = PyType_FromSpec(&hostmem_spec);
    if (!hclpy_HostMemoryType) return -1;
    return PyModule_AddObjectRef(m, "HostMemory", hclpy_HostMemoryType);
}
