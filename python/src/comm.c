/* hcl._hcl: communicators (hcl/hcl_comm.h): every device of one process at once (hcl_comm_create_all), or one rank
 * per process with an id handed over by the program (hcl_comm_get_id, hcl_comm_create), and the collectives. */
#include "hclpy.h"

#include <string.h>

PyObject *hclpy_CommType;

static PyObject *comm_wrap(hcl_comm h, PyObject *device) {
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)hclpy_CommType, Py_tp_alloc);
    hclpy_comm *self = (hclpy_comm *)alloc((PyTypeObject *)hclpy_CommType, 0);
    if (!self) {
        hcl_comm_release(h);
        return NULL;
    }
    self->h = h;
    self->device = Py_NewRef(device);
    return (PyObject *)self;
}

/* _comm_create_all(devices, engine=None) -> list of Comm, rank i on devices[i]. */
static PyObject *comm_create_all(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *devs;
    const char *engine = NULL;
    if (!PyArg_ParseTuple(args, "O|z", &devs, &engine)) return NULL;
    PyObject *fast = PySequence_Fast(devs, "devices must be a sequence of hcl.Device");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Size(fast);
    hcl_device *hs = PyMem_Calloc(n ? (size_t)n : 1, sizeof *hs);
    hcl_comm *cs = PyMem_Calloc(n ? (size_t)n : 1, sizeof *cs);
    PyObject *ret = NULL;
    if (!hs || !cs) {
        PyErr_NoMemory();
        goto cleanup;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PySequence_GetItem(fast, i);
        hs[i] = d ? hclpy_device_handle(d) : NULL;
        Py_XDECREF(d);
        if (!hs[i]) goto cleanup;
    }
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS st = hcl_comm_create_all((uint32_t)n, hs, engine, cs);
    Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) {
        hclpy_raise(st, NULL);
        goto cleanup;
    }
    ret = PyList_New(n);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!ret) { /* every communicator is released; the error stays set */
            hcl_comm_release(cs[i]);
            continue;
        }
        PyObject *dev = PySequence_GetItem(fast, i);
        PyObject *c = dev ? comm_wrap(cs[i], dev) : NULL; /* comm_wrap releases cs[i] itself on failure */
        if (!dev) hcl_comm_release(cs[i]);
        Py_XDECREF(dev);
        if (!c) {
            Py_CLEAR(ret);
            continue;
        }
        PyList_SetItem(ret, i, c);
    }
cleanup:
    PyMem_Free(hs);
    PyMem_Free(cs);
    Py_DECREF(fast);
    return ret;
}

/* _comm_get_id(device, engine=None) -> bytes (an hcl_comm_id, to hand to every rank). */
static PyObject *comm_get_id(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *dev;
    const char *engine = NULL;
    if (!PyArg_ParseTuple(args, "O|z", &dev, &engine)) return NULL;
    hcl_device d = hclpy_device_handle(dev);
    if (!d) return NULL;
    hcl_comm_id id;
    HCLPY_CALL(NULL, hcl_comm_get_id(d, engine, &id));
    return PyBytes_FromStringAndSize((const char *)&id, sizeof id);
}

/* _comm_create(device, size, rank, id_bytes) -> Comm. */
static PyObject *comm_create(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *dev;
    unsigned int size, rank;
    Py_buffer idb;
    if (!PyArg_ParseTuple(args, "OIIy*", &dev, &size, &rank, &idb)) return NULL;
    hcl_device d = hclpy_device_handle(dev);
    hcl_comm_id id;
    if (d && idb.len != (Py_ssize_t)sizeof id) {
        hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "comm id: wrong number of bytes");
        d = NULL;
    }
    if (!d) {
        PyBuffer_Release(&idb);
        return NULL;
    }
    memcpy(&id, idb.buf, sizeof id);
    PyBuffer_Release(&idb);
    hcl_comm c = NULL;
    HCLPY_CALL(NULL, hcl_comm_create(d, size, rank, &id, &c));
    return comm_wrap(c, dev);
}

static hcl_comm comm_handle(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)hclpy_CommType)) {
        PyErr_Format(PyExc_TypeError, "expected an hcl.Comm, got %S", (PyObject *)Py_TYPE(obj));
        return NULL;
    }
    hclpy_comm *c = (hclpy_comm *)obj;
    if (!c->h) hclpy_released("communicator");
    return c->h;
}

static void comm_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    hclpy_comm *self = (hclpy_comm *)obj;
    if (self->h) hcl_comm_release(self->h);
    self->h = NULL;
    Py_CLEAR(self->device);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

static PyObject *comm_release(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hcl_comm c = comm_handle(obj);
    if (!c) return NULL;
    ((hclpy_comm *)obj)->h = NULL;
    HCLPY_CALL(NULL, hcl_comm_release(c));
    Py_RETURN_NONE;
}

static PyObject *comm_info(PyObject *obj, void *closure) {
    (void)closure;
    hcl_comm c = comm_handle(obj);
    if (!c) return NULL;
    hcl_comm_info ci;
    HCLPY_QUICK(NULL, hcl_comm_get_info(c, &ci));
    return Py_BuildValue("{s:I,s:I,s:s,s:d}", "rank", ci.rank, "size", ci.size, "engine", ci.engine, "timeout",
                         ci.timeout);
}

static PyObject *comm_device(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((hclpy_comm *)obj)->device);
}

static PyObject *comm_set_timeout(PyObject *obj, PyObject *arg) {
    hcl_comm c = comm_handle(obj);
    double s = c ? PyFloat_AsDouble(arg) : 0;
    if (!c || (s == -1.0 && PyErr_Occurred())) return NULL;
    HCLPY_QUICK(NULL, hcl_comm_set_timeout(c, s));
    Py_RETURN_NONE;
}

static PyObject *comm_finish(PyObject *obj, PyObject *qo) {
    hcl_comm c = comm_handle(obj);
    PyThread_type_lock lock = NULL;
    hcl_queue q = c ? hclpy_pick_queue(qo, ((hclpy_comm *)obj)->device, &lock) : NULL;
    if (!q) return NULL;
    HCLPY_QCALL(NULL, lock, hcl_comm_finish(c, q));
    Py_RETURN_NONE;
}

static int opt_buffer(PyObject *o, hcl_buffer *out) {
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    *out = hclpy_buffer_handle(o);
    return *out ? 0 : -1;
}

/* _collective(name, queue, dtype, op, root_or_peer, count, send, recv): one call of hcl_comm_<name>; the buffers
 * are hcl.Buffer or None. Waits (GIL released) only as long as the engine's call itself does. */
static PyObject *comm_collective(PyObject *obj, PyObject *args) {
    const char *name;
    PyObject *qo, *so, *ro;
    int dtype, op;
    unsigned int root;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "sOiIinOO", &name, &qo, &dtype, &root, &op, &count, &so, &ro)) return NULL;
    hcl_comm c = comm_handle(obj);
    PyThread_type_lock lock = NULL;
    hcl_queue q = c ? hclpy_pick_queue(qo, ((hclpy_comm *)obj)->device, &lock) : NULL;
    hcl_buffer s, r;
    if (!q || opt_buffer(so, &s) < 0 || opt_buffer(ro, &r) < 0) return NULL;
    if (count < 0) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "negative count");
    hcl_dtype t = (hcl_dtype)dtype;
    hcl_comm_op o = (hcl_comm_op)op;
    size_t n = (size_t)count;
    hcl_status st = HCL_ERROR_INVALID_ARGUMENT;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
    if (!strcmp(name, "all_reduce"))
        st = hcl_comm_all_reduce(c, q, t, o, n, s, r, 0, NULL, NULL);
    else if (!strcmp(name, "reduce"))
        st = hcl_comm_reduce(c, q, t, o, root, n, s, r, 0, NULL, NULL);
    else if (!strcmp(name, "broadcast"))
        st = hcl_comm_broadcast(c, q, t, root, n, s, r, 0, NULL, NULL);
    else if (!strcmp(name, "all_gather"))
        st = hcl_comm_all_gather(c, q, t, n, s, r, 0, NULL, NULL);
    else if (!strcmp(name, "reduce_scatter"))
        st = hcl_comm_reduce_scatter(c, q, t, o, n, s, r, 0, NULL, NULL);
    else if (!strcmp(name, "send"))
        st = hcl_comm_send(c, q, t, n, s, root, 0, NULL, NULL);
    else if (!strcmp(name, "recv"))
        st = hcl_comm_recv(c, q, t, n, r, root, 0, NULL, NULL);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    PyObject *owner = hclpy_queue_owner(qo, ((hclpy_comm *)obj)->device);
    hclpy_buffer_used(so, owner, q);
    hclpy_buffer_used(ro, owner, q);
    Py_RETURN_NONE;
}

static PyObject *group_start(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    HCLPY_QUICK(NULL, hcl_comm_group_start());
    Py_RETURN_NONE;
}

static PyObject *group_end(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    HCLPY_CALL(NULL, hcl_comm_group_end());
    Py_RETURN_NONE;
}

static PyMethodDef comm_methods[] = {
    {"release", comm_release, METH_NOARGS, "Release the communicator."},
    {"set_timeout", comm_set_timeout, METH_O, "Seconds a collective waits for the other ranks."},
    {"finish", comm_finish, METH_O, "finish(queue_or_None): hcl_comm_finish on a queue (None: the default one)."},
    {"_collective", comm_collective, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef comm_getset[] = {
    {"info", comm_info, NULL, "rank, size, engine, timeout", NULL},
    {"device", comm_device, NULL, "the rank's device", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot comm_slots[] = {
    {Py_tp_dealloc, comm_dealloc},
    {Py_tp_methods, comm_methods},
    {Py_tp_getset, comm_getset},
    {Py_tp_doc, "A communicator rank (hcl.comm_create_all, hcl.comm_create)."},
    {0, NULL},
};

static PyType_Spec comm_spec = {"hcl.Comm", sizeof(hclpy_comm), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
                                comm_slots};

static PyMethodDef comm_functions[] = {
    {"_comm_create_all", comm_create_all, METH_VARARGS, NULL},
    {"_comm_get_id", comm_get_id, METH_VARARGS, NULL},
    {"_comm_create", comm_create, METH_VARARGS, NULL},
    {"comm_group_start", group_start, METH_NOARGS, "hcl_comm_group_start"},
    {"comm_group_end", group_end, METH_NOARGS, "hcl_comm_group_end (GIL released)"},
    {NULL, NULL, 0, NULL},
};

int hclpy_init_comm(PyObject *m) {
    hclpy_CommType = PyType_FromSpec(&comm_spec);
    if (!hclpy_CommType || PyModule_AddObjectRef(m, "Comm", hclpy_CommType) < 0) return -1;
    return PyModule_AddFunctions(m, comm_functions);
}
