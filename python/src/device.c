/* hcl._hcl: devices, queues and events. */
#include "hclpy.h"

#include <stdio.h>

PyObject *hclpy_DeviceType, *hclpy_QueueType, *hclpy_EventType;

static int put(PyObject *d, const char *key, PyObject *value) {
    if (!value) return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

static PyObject *triple(const uint64_t v[3]) {
    return Py_BuildValue("(KKK)", (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)v[2]);
}

/* The fields of hcl_device_info as a dict (the device's attributes in Python). */
PyObject *hclpy_info_dict(const hcl_device_info *di) {
    static const char *types[] = {"?", "cpu", "gpu", "accelerator", "other"};
    static const char *units[] = {"none", "tensor_core", "mfma", "xmx"};
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    char uuid[33] = "";
    for (int i = 0; di->has_uuid && i < 16; i++) snprintf(uuid + 2 * i, 3, "%02x", di->uuid[i]);
    PyObject *ntypes = PyList_New(0), *mtypes = PyList_New(0);
    for (int t = 0; ntypes && mtypes && t < HCL_DTYPE_COUNT; t++) {
        PyObject *name = PyUnicode_FromString(hcl_dtype_name((hcl_dtype)t));
        if (!name) break;
        if (di->native_types & HCL_TYPE_BIT(t)) PyList_Append(ntypes, name);
        if (di->matrix_types & HCL_TYPE_BIT(t)) PyList_Append(mtypes, name);
        Py_DECREF(name);
    }
    if (mtypes && (di->matrix_types & HCL_TYPE_BIT_TF32)) {
        PyObject *name = PyUnicode_FromString("tf32");
        if (name) PyList_Append(mtypes, name);
        Py_XDECREF(name);
    }
    unsigned type = (unsigned)di->type <= 4 ? (unsigned)di->type : 0;
    unsigned unit = (unsigned)di->matrix_unit <= 3 ? (unsigned)di->matrix_unit : 0;
    if (put(d, "backend", PyUnicode_FromString(di->backend)) < 0 ||
        put(d, "index", PyLong_FromUnsignedLong(di->index)) < 0 || put(d, "name", PyUnicode_FromString(di->name)) < 0 ||
        put(d, "vendor", PyUnicode_FromString(di->vendor)) < 0 ||
        put(d, "driver_version", PyUnicode_FromString(di->driver_version)) < 0 ||
        put(d, "type", PyUnicode_FromString(types[type])) < 0 ||
        put(d, "compute_units", PyLong_FromUnsignedLong(di->compute_units)) < 0 ||
        put(d, "global_mem_bytes", PyLong_FromUnsignedLongLong(di->global_mem_bytes)) < 0 ||
        put(d, "max_alloc_bytes", PyLong_FromUnsignedLongLong(di->max_alloc_bytes)) < 0 ||
        put(d, "max_work_group_size", PyLong_FromUnsignedLongLong(di->max_work_group_size)) < 0 ||
        put(d, "local_mem_bytes", PyLong_FromUnsignedLongLong(di->local_mem_bytes)) < 0 ||
        put(d, "clock_mhz", PyLong_FromUnsignedLong(di->clock_mhz)) < 0 ||
        put(d, "uuid", di->has_uuid ? PyUnicode_FromString(uuid) : Py_NewRef(Py_None)) < 0 ||
        put(d, "identity", PyUnicode_FromString(di->identity)) < 0 ||
        put(d, "arg_offset_alignment", PyLong_FromUnsignedLongLong(di->arg_offset_alignment)) < 0 ||
        put(d, "arch", PyUnicode_FromString(di->arch)) < 0 || put(d, "native_types", Py_XNewRef(ntypes)) < 0 ||
        put(d, "matrix_unit", PyUnicode_FromString(units[unit])) < 0 ||
        put(d, "matrix_types", Py_XNewRef(mtypes)) < 0 ||
        put(d, "subgroup_size", PyLong_FromUnsignedLong(di->subgroup_size)) < 0 ||
        put(d, "has_fp16", PyBool_FromLong(di->has_fp16)) < 0 ||
        put(d, "has_fp64", PyBool_FromLong(di->has_fp64)) < 0 ||
        put(d, "memory_clock_mhz", PyLong_FromUnsignedLong(di->memory_clock_mhz)) < 0 ||
        put(d, "memory_bus_width_bits", PyLong_FromUnsignedLong(di->memory_bus_width_bits)) < 0 ||
        put(d, "max_work_item_sizes", triple(di->max_work_item_sizes)) < 0 ||
        put(d, "max_grid_size", triple(di->max_grid_size)) < 0 ||
        put(d, "peak_memory_bandwidth", PyLong_FromUnsignedLongLong(di->peak_memory_bandwidth)) < 0 ||
        put(d, "l2_cache_bytes", PyLong_FromUnsignedLongLong(di->l2_cache_bytes)) < 0) {
        Py_CLEAR(d);
    }
    Py_XDECREF(ntypes);
    Py_XDECREF(mtypes);
    return d;
}

/* ---------------- Device ---------------- */

hcl_device hclpy_device_handle(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)hclpy_DeviceType)) {
        PyErr_Format(PyExc_TypeError, "expected an hcl.Device, got %S", (PyObject *)Py_TYPE(obj));
        return NULL;
    }
    hclpy_device *d = (hclpy_device *)obj;
    if (!d->h) hclpy_released("device");
    return d->h;
}

hcl_queue hclpy_device_default_queue(hclpy_device *dev) {
    if (!dev->h) {
        hclpy_released("device");
        return NULL;
    }
    if (!dev->queue) {
        hcl_queue q = NULL;
        HCLPY_QUICK(NULL, hcl_queue_create(dev->h, &q)); /* with the GIL: two threads must not both create it */
        dev->queue = q;
    }
    return dev->queue;
}

/* Device(selector=None): hcl_device_open (None or "" reads HCL_BACKEND / HCL_DEVICE). */
static PyObject *device_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"selector", NULL};
    const char *selector = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|z", kwlist, &selector)) return NULL;
    PyThread_type_lock lock = PyThread_allocate_lock();
    if (!lock) return PyErr_NoMemory();
    hcl_device h = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS st = hcl_device_open(selector, &h);
    Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) {
        PyThread_free_lock(lock);
        return hclpy_raise(st, NULL);
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    hclpy_device *self = (hclpy_device *)alloc(type, 0);
    if (!self) {
        hcl_device_release(h);
        PyThread_free_lock(lock);
        return NULL;
    }
    self->h = h;
    self->queue = NULL;
    self->qlock = lock;
    self->host_allocs = 0;
    return (PyObject *)self;
}

static hcl_status device_close(hclpy_device *self) {
    hcl_status st = HCL_SUCCESS;
    if (self->queue) {
        hcl_queue q = self->queue;
        self->queue = NULL;
        PyThread_type_lock lock = self->qlock;
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
        st = hcl_queue_release(q);
        PyThread_release_lock(lock);
        Py_END_ALLOW_THREADS
    }
    if (self->h) {
        hcl_device h = self->h;
        self->h = NULL;
        hcl_status st2 = hcl_device_release(h);
        if (st == HCL_SUCCESS) st = st2;
    }
    return st;
}

static void device_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    device_close((hclpy_device *)obj);
    if (((hclpy_device *)obj)->qlock) PyThread_free_lock(((hclpy_device *)obj)->qlock);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

/* release(): release the default queue and the device handle now (objects made from it keep it alive inside
 * libhcl until they go). A second release raises InvalidHandleError. */
static PyObject *device_release(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hclpy_device *self = (hclpy_device *)obj;
    if (!self->h) return hclpy_released("device");
    if (self->host_allocs > 0)
        return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT,
                           "hcl.Device.release: free its hcl.HostMemory first (hcl_host_free needs the device)");
    hcl_status st = device_close(self);
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    Py_RETURN_NONE;
}

static PyObject *device_info(PyObject *obj, void *closure) {
    (void)closure;
    hcl_device h = hclpy_device_handle(obj);
    if (!h) return NULL;
    hcl_device_info di;
    HCLPY_QUICK(NULL, hcl_device_get_info(h, &di));
    return hclpy_info_dict(&di);
}

/* d.attr: the fields of hcl_device_info as attributes (d.name, d.backend, d.compute_units, ...). */
static PyObject *device_getattro(PyObject *obj, PyObject *name) {
    PyObject *r = PyObject_GenericGetAttr(obj, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    hclpy_device *self = (hclpy_device *)obj;
    if (!self->h) return NULL; /* keep the AttributeError */
    PyErr_Clear();
    PyObject *d = device_info(obj, NULL);
    if (!d) return NULL;
    r = PyDict_GetItemWithError(d, name);
    Py_XINCREF(r);
    Py_DECREF(d);
    if (!r && !PyErr_Occurred()) PyErr_Format(PyExc_AttributeError, "hcl.Device has no attribute %R", name);
    return r;
}

static PyObject *device_native(PyObject *obj, void *closure) {
    (void)closure;
    hcl_device h = hclpy_device_handle(obj);
    if (!h) return NULL;
    void *p = NULL;
    HCLPY_QUICK(NULL, hcl_device_get_native(h, &p));
    return PyLong_FromVoidPtr(p);
}

static PyObject *device_released(PyObject *obj, void *closure) {
    (void)closure;
    return PyBool_FromLong(((hclpy_device *)obj)->h == NULL);
}

/* The default queue as an hcl.Queue that does not own it (the device releases it). */
static PyObject *device_queue(PyObject *obj, void *closure) {
    (void)closure;
    hcl_queue q = hclpy_device_default_queue((hclpy_device *)obj);
    if (!q) return NULL;
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)hclpy_QueueType, Py_tp_alloc);
    hclpy_queue *qo = (hclpy_queue *)alloc((PyTypeObject *)hclpy_QueueType, 0);
    if (!qo) return NULL;
    qo->h = q;
    qo->device = Py_NewRef(obj);
    qo->owned = 0;
    qo->lock = ((hclpy_device *)obj)->qlock;
    return (PyObject *)qo;
}

/* peer_access(other) -> bool: hcl_device_peer_access. */
static PyObject *device_peer_access(PyObject *obj, PyObject *other) {
    hcl_device a = hclpy_device_handle(obj), b = a ? hclpy_device_handle(other) : NULL;
    if (!b) return NULL;
    int direct = 0;
    HCLPY_CALL(NULL, hcl_device_peer_access(a, b, &direct));
    return PyBool_FromLong(direct);
}

static PyObject *ctx_enter(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    return Py_NewRef(obj);
}

static PyObject *device_exit(PyObject *obj, PyObject *args) {
    (void)args;
    hclpy_device *self = (hclpy_device *)obj;
    if (self->h && self->host_allocs > 0) /* host memory still alive: the device is released when it is collected */
        Py_RETURN_FALSE;
    if (self->h) {
        hcl_status st = device_close(self);
        if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    }
    Py_RETURN_FALSE;
}

static PyObject *device_repr(PyObject *obj) {
    hclpy_device *self = (hclpy_device *)obj;
    if (!self->h) return PyUnicode_FromString("<hcl.Device (released)>");
    hcl_device_info di;
    if (hcl_device_get_info(self->h, &di) != HCL_SUCCESS) return PyUnicode_FromString("<hcl.Device>");
    return PyUnicode_FromFormat("<hcl.Device %s:%u %s>", di.backend, (unsigned)di.index, di.name);
}

static PyMethodDef device_methods[] = {
    {"release", device_release, METH_NOARGS, "Release the device handle now."},
    {"peer_access", device_peer_access, METH_O, "Whether this device reaches the other's memory directly."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", device_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef device_getset[] = {
    {"info", device_info, NULL, "hcl_device_info as a dict", NULL},
    {"native", device_native, NULL, "hcl_device_get_native (CUcontext, cl_context...) as an int", NULL},
    {"released", device_released, NULL, "True once released", NULL},
    {"queue", device_queue, NULL, "the device's default in-order queue", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot device_slots[] = {
    {Py_tp_new, device_new},
    {Py_tp_dealloc, device_dealloc},
    {Py_tp_methods, device_methods},
    {Py_tp_getset, device_getset},
    {Py_tp_getattro, device_getattro},
    {Py_tp_repr, device_repr},
    {Py_tp_doc, "Device(selector=None): an opened device (hcl_device_open: \"host\", \"cuda:0\", \"opencl,host\"; "
                "None reads HCL_BACKEND/HCL_DEVICE). Its info fields are attributes."},
    {0, NULL},
};

static PyType_Spec device_spec = {"hcl.Device", sizeof(hclpy_device), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                  device_slots};

/* ---------------- Queue ---------------- */

hcl_queue hclpy_queue_handle(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)hclpy_QueueType)) {
        PyErr_Format(PyExc_TypeError, "expected an hcl.Queue, got %S", (PyObject *)Py_TYPE(obj));
        return NULL;
    }
    hclpy_queue *q = (hclpy_queue *)obj;
    if (!q->h || (!q->owned && ((hclpy_device *)q->device)->queue != q->h)) {
        hclpy_released("queue");
        return NULL;
    }
    return q->h;
}

hcl_queue hclpy_pick_queue(PyObject *queue, PyObject *device, PyThread_type_lock *out_lock) {
    if (queue && queue != Py_None && !PyObject_TypeCheck(queue, (PyTypeObject *)hclpy_DeviceType)) {
        hcl_queue q = hclpy_queue_handle(queue);
        if (q) *out_lock = ((hclpy_queue *)queue)->lock;
        return q;
    }
    if (queue && queue != Py_None) device = queue;
    if (!PyObject_TypeCheck(device, (PyTypeObject *)hclpy_DeviceType)) {
        PyErr_Format(PyExc_TypeError, "expected an hcl.Device, got %S", (PyObject *)Py_TYPE(device));
        return NULL;
    }
    *out_lock = ((hclpy_device *)device)->qlock;
    return hclpy_device_default_queue((hclpy_device *)device);
}

PyObject *hclpy_queue_owner(PyObject *queue, PyObject *device) {
    if (queue && queue != Py_None) return queue;
    return device;
}

/* Queue(device): hcl_queue_create. */
static PyObject *queue_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"device", NULL};
    PyObject *dev;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O", kwlist, &dev)) return NULL;
    hcl_device d = hclpy_device_handle(dev);
    if (!d) return NULL;
    PyThread_type_lock lock = PyThread_allocate_lock();
    if (!lock) return PyErr_NoMemory();
    hcl_queue h = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS st = hcl_queue_create(d, &h);
    Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) {
        PyThread_free_lock(lock);
        return hclpy_raise(st, NULL);
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    hclpy_queue *self = (hclpy_queue *)alloc(type, 0);
    if (!self) {
        hcl_queue_release(h);
        PyThread_free_lock(lock);
        return NULL;
    }
    self->h = h;
    self->device = Py_NewRef(dev);
    self->owned = 1;
    self->lock = lock;
    return (PyObject *)self;
}

static hcl_status queue_close(hclpy_queue *self) {
    hcl_status st = HCL_SUCCESS;
    hcl_queue h = self->h;
    self->h = NULL;
    if (h && self->owned) {
        PyThread_type_lock lock = self->lock;
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
        st = hcl_queue_release(h);
        PyThread_release_lock(lock);
        Py_END_ALLOW_THREADS
    }
    return st;
}

static void queue_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    hclpy_queue *self = (hclpy_queue *)obj;
    queue_close(self);
    if (self->owned && self->lock) PyThread_free_lock(self->lock);
    self->lock = NULL;
    Py_CLEAR(self->device);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

/* release(): wait for the queue and release it (the device's default queue is only detached). */
static PyObject *queue_release(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    if (!hclpy_queue_handle(obj)) return NULL;
    hcl_status st = queue_close((hclpy_queue *)obj);
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    Py_RETURN_NONE;
}

/* finish(): hcl_queue_finish, without the GIL. */
static PyObject *queue_finish(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hcl_queue q = hclpy_queue_handle(obj);
    if (!q) return NULL;
    HCLPY_QCALL(NULL, ((hclpy_queue *)obj)->lock, hcl_queue_finish(q));
    Py_RETURN_NONE;
}

/* marker() -> Event: hcl_queue_marker. */
static PyObject *queue_marker(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hcl_queue q = hclpy_queue_handle(obj);
    if (!q) return NULL;
    hcl_event e = NULL;
    HCLPY_QCALL(NULL, ((hclpy_queue *)obj)->lock, hcl_queue_marker(q, &e));
    return hclpy_event_new(e, ((hclpy_queue *)obj)->device);
}

static PyObject *queue_native(PyObject *obj, void *closure) {
    (void)closure;
    hcl_queue q = hclpy_queue_handle(obj);
    if (!q) return NULL;
    void *p = NULL;
    HCLPY_QUICK(NULL, hcl_queue_get_native(q, &p));
    return PyLong_FromVoidPtr(p);
}

static PyObject *queue_device(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((hclpy_queue *)obj)->device);
}

static PyObject *queue_exit(PyObject *obj, PyObject *args) {
    (void)args;
    if (((hclpy_queue *)obj)->h) {
        hcl_status st = queue_close((hclpy_queue *)obj);
        if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    }
    Py_RETURN_FALSE;
}

static PyMethodDef queue_methods[] = {
    {"release", queue_release, METH_NOARGS, "Wait for the queue, then release it."},
    {"finish", queue_finish, METH_NOARGS, "Block (GIL released) until every command has finished."},
    {"marker", queue_marker, METH_NOARGS, "An event that completes when everything before it has."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", queue_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef queue_getset[] = {
    {"native", queue_native, NULL, "hcl_queue_get_native (CUstream, cl_command_queue...) as an int", NULL},
    {"device", queue_device, NULL, "the queue's device", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot queue_slots[] = {
    {Py_tp_new, queue_new},
    {Py_tp_dealloc, queue_dealloc},
    {Py_tp_methods, queue_methods},
    {Py_tp_getset, queue_getset},
    {Py_tp_doc, "Queue(device): an in-order queue (hcl_queue_create)."},
    {0, NULL},
};

static PyType_Spec queue_spec = {"hcl.Queue", sizeof(hclpy_queue), 0, Py_TPFLAGS_DEFAULT, queue_slots};

/* ---------------- Event ---------------- */

hcl_event hclpy_event_handle(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)hclpy_EventType)) {
        PyErr_Format(PyExc_TypeError, "expected an hcl.Event, got %S", (PyObject *)Py_TYPE(obj));
        return NULL;
    }
    hclpy_event *e = (hclpy_event *)obj;
    if (!e->h) hclpy_released("event");
    return e->h;
}

PyObject *hclpy_event_new(hcl_event h, PyObject *device) {
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)hclpy_EventType, Py_tp_alloc);
    hclpy_event *self = (hclpy_event *)alloc((PyTypeObject *)hclpy_EventType, 0);
    if (!self) {
        hcl_event_release(h);
        return NULL;
    }
    self->h = h;
    self->device = Py_NewRef(device);
    self->keep = NULL;
    return (PyObject *)self;
}

PyObject *hclpy_event_new_keep(hcl_event h, PyObject *device, PyObject *keep) {
    PyObject *e = hclpy_event_new(h, device);
    if (e) ((hclpy_event *)e)->keep = Py_XNewRef(keep);
    return e;
}

int hclpy_wait_list(PyObject *seq, uint32_t *out_count, hcl_event **out_list) {
    *out_count = 0;
    *out_list = NULL;
    if (!seq || seq == Py_None) return 0;
    PyObject *fast = PySequence_Fast(seq, "wait must be a sequence of hcl.Event");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Size(fast);
    if (n > 0) {
        *out_list = PyMem_Malloc(sizeof(hcl_event) * (size_t)n);
        if (!*out_list) {
            Py_DECREF(fast);
            PyErr_NoMemory();
            return -1;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PySequence_GetItem(fast, i);
        hcl_event h = e ? hclpy_event_handle(e) : NULL;
        Py_XDECREF(e);
        if (!h) {
            PyMem_Free(*out_list);
            *out_list = NULL;
            Py_DECREF(fast);
            return -1;
        }
        (*out_list)[i] = h;
    }
    Py_DECREF(fast);
    *out_count = (uint32_t)n;
    return 0;
}

static void event_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    hclpy_event *self = (hclpy_event *)obj;
    if (self->h) {
        hcl_event h = self->h;
        self->h = NULL;
        Py_BEGIN_ALLOW_THREADS hcl_event_release(h);
        Py_END_ALLOW_THREADS
    }
    Py_CLEAR(self->keep);
    Py_CLEAR(self->device);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

/* wait(): hcl_event_wait without the GIL. */
static PyObject *event_wait(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hcl_event e = hclpy_event_handle(obj);
    if (!e) return NULL;
    HCLPY_CALL(NULL, hcl_event_wait(e));
    Py_RETURN_NONE;
}

/* release(): hcl_event_release (waits for a pending command). */
static PyObject *event_release(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hcl_event e = hclpy_event_handle(obj);
    if (!e) return NULL;
    ((hclpy_event *)obj)->h = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS st = hcl_event_release(e);
    Py_END_ALLOW_THREADS Py_CLEAR(((hclpy_event *)obj)->keep);
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    Py_RETURN_NONE;
}

/* elapsed(end=None) -> seconds from this event's start to end's end (hcl_event_elapsed). */
static PyObject *event_elapsed(PyObject *obj, PyObject *args) {
    PyObject *end = Py_None;
    if (!PyArg_ParseTuple(args, "|O", &end)) return NULL;
    hcl_event a = hclpy_event_handle(obj);
    hcl_event b = a ? (end == Py_None ? a : hclpy_event_handle(end)) : NULL;
    if (!b) return NULL;
    double s = 0;
    HCLPY_CALL(NULL, hcl_event_elapsed(a, b, &s));
    return PyFloat_FromDouble(s);
}

static PyObject *event_exit(PyObject *obj, PyObject *args) {
    (void)args;
    if (((hclpy_event *)obj)->h) return event_release(obj, NULL) ? Py_NewRef(Py_False) : NULL;
    Py_RETURN_FALSE;
}

static PyMethodDef event_methods[] = {
    {"wait", event_wait, METH_NOARGS, "Block (GIL released) until the command has finished."},
    {"release", event_release, METH_NOARGS, "Release the event."},
    {"elapsed", event_elapsed, METH_VARARGS, "Device seconds from this event's start to end's end (or its own)."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", event_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot event_slots[] = {
    {Py_tp_dealloc, event_dealloc},
    {Py_tp_methods, event_methods},
    {Py_tp_doc, "An event returned by an asynchronous call or a marker."},
    {0, NULL},
};

static PyType_Spec event_spec = {"hcl.Event", sizeof(hclpy_event), 0, Py_TPFLAGS_DEFAULT, event_slots};

static int add_type(PyObject *m, PyType_Spec *spec, const char *name, PyObject **out) {
    *out = PyType_FromSpec(spec);
    if (!*out) return -1;
    return PyModule_AddObjectRef(m, name, *out);
}

int hclpy_init_device(PyObject *m) {
    if (add_type(m, &device_spec, "Device", &hclpy_DeviceType) < 0 ||
        add_type(m, &queue_spec, "Queue", &hclpy_QueueType) < 0 ||
        add_type(m, &event_spec, "Event", &hclpy_EventType) < 0)
        return -1;
    return 0;
}
