/* hcl._hcl: modules (from every source kind HCL takes), kernels, typed scalars and kernel launches. */
#include "hclpy.h"

#include <string.h>

PyObject *hclpy_ModuleType, *hclpy_KernelType, *hclpy_ScalarType;

static PyObject *str_buf, *str_offset; /* "_buf", "_offset": the attributes an hcl.Array argument has */
static PyObject *arg_hook;             /* hcl's Python function that turns other objects into arguments */

/* ---------------- Scalar ---------------- */

/* Scalar(data: bytes, type_name: str): a value argument of 1..16 bytes (hcl.int32(3), hcl.float32(1.5), ...). */
static PyObject *scalar_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"data", "type_name", NULL};
    PyObject *data, *name;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OU", kwlist, &data, &name)) return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) return NULL;
    if (view.len < 1 || view.len > 16) {
        PyBuffer_Release(&view);
        return PyErr_Format(PyExc_ValueError, "hcl.Scalar: %zd bytes (1..16)", view.len);
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    hclpy_scalar *self = (hclpy_scalar *)alloc(type, 0);
    if (self) {
        memcpy(self->bytes, view.buf, (size_t)view.len);
        self->size = (size_t)view.len;
        self->type_name = Py_NewRef(name);
    }
    PyBuffer_Release(&view);
    return (PyObject *)self;
}

static void scalar_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    Py_CLEAR(((hclpy_scalar *)obj)->type_name);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

static PyObject *scalar_repr(PyObject *obj) {
    hclpy_scalar *s = (hclpy_scalar *)obj;
    return PyUnicode_FromFormat("hcl.Scalar(%U, %zu bytes)", s->type_name, s->size);
}

static PyObject *scalar_bytes(PyObject *obj, void *closure) {
    (void)closure;
    hclpy_scalar *s = (hclpy_scalar *)obj;
    return PyBytes_FromStringAndSize((const char *)s->bytes, (Py_ssize_t)s->size);
}

static PyObject *scalar_type(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((hclpy_scalar *)obj)->type_name);
}

static PyGetSetDef scalar_getset[] = {
    {"data", scalar_bytes, NULL, "the value's bytes", NULL},
    {"type_name", scalar_type, NULL, "the type's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot scalar_slots[] = {
    {Py_tp_new, scalar_new},   {Py_tp_dealloc, scalar_dealloc},       {Py_tp_getset, scalar_getset},
    {Py_tp_repr, scalar_repr}, {Py_tp_doc, "A typed value argument"}, {0, NULL},
};

static PyType_Spec scalar_spec = {"hcl.Scalar", sizeof(hclpy_scalar), 0, Py_TPFLAGS_DEFAULT, scalar_slots};

/* ---------------- Module ---------------- */

static const struct {
    const char *name;
    hcl_source_kind kind;
} kinds[] = {
    {"opencl_c", HCL_SOURCE_OPENCL_C},
    {"cuda_c", HCL_SOURCE_CUDA_C},
    {"hip_c", HCL_SOURCE_HIP_C},
    {"spirv", HCL_SOURCE_SPIRV},
    {"cuda_binary", HCL_SOURCE_CUDA_BINARY},
    {"hip_binary", HCL_SOURCE_HIP_BINARY},
    {"host_table", HCL_SOURCE_HOST_TABLE},
    {"spirv_vulkan", HCL_SOURCE_SPIRV_VULKAN},
    {"glsl", HCL_SOURCE_GLSL},
};

static int parse_kind(PyObject *obj, hcl_source_kind *out) {
    if (PyLong_Check(obj)) {
        long v = PyLong_AsLong(obj);
        if (v == -1 && PyErr_Occurred()) return -1;
        *out = (hcl_source_kind)v; /* checked by hcl_module_create */
        return 0;
    }
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8AndSize(obj, NULL) : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a source kind is a str or an int");
        return -1;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(s, kinds[i].name) == 0) {
            *out = kinds[i].kind;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "unknown source kind %R (opencl_c, cuda_c, hip_c, spirv, cuda_binary, hip_binary, host_table, "
                 "spirv_vulkan, glsl)",
                 obj);
    return -1;
}

/* Module(device, sources): hcl_module_create. sources: a sequence of (kind, data, options=None, keep=None); data is
 * str or bytes, or for host_table a sequence of (name, address) with address an int (a C function pointer, e.g. from
 * ctypes); `keep` is held as long as the module lives (the ctypes functions behind the addresses). The driver takes
 * the first source it can run. Compiles with the GIL released. */
static PyObject *module_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"device", "sources", NULL};
    PyObject *dev, *sources;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO", kwlist, &dev, &sources)) return NULL;
    hcl_device d = hclpy_device_handle(dev);
    if (!d) return NULL;
    PyObject *fast = PySequence_Fast(sources, "sources must be a sequence of (kind, data, options) tuples");
    if (!fast) return NULL;
    Py_ssize_t n = PySequence_Size(fast);
    PyObject *keep = PyList_New(0);
    hcl_module_source *src = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *src);
    hcl_host_function **tables = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *tables);
    PyObject *ret = NULL;
    if (!keep || !src || !tables) {
        PyErr_NoMemory();
        goto cleanup;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_GetItem(fast, i);
        if (!item) goto cleanup;
        PyObject *kind_obj = NULL, *data = NULL, *opts = Py_None, *extra = NULL; /* extra: kept alive only */
        int ok = PyArg_ParseTuple(item, "OO|OO", &kind_obj, &data, &opts, &extra);
        if (ok) PyList_Append(keep, item);
        Py_DECREF(item);
        if (!ok || parse_kind(kind_obj, &src[i].kind) < 0) goto cleanup;
        if (opts != Py_None && !(src[i].options = PyUnicode_AsUTF8AndSize(opts, NULL))) goto cleanup;
        if (src[i].kind == HCL_SOURCE_HOST_TABLE) {
            PyObject *fns = PySequence_Fast(data, "a host_table source is a sequence of (name, address)");
            if (!fns) goto cleanup;
            PyList_Append(keep, fns);
            Py_DECREF(fns);
            Py_ssize_t nf = PySequence_Size(fns);
            tables[i] = PyMem_Calloc(nf > 0 ? (size_t)nf : 1, sizeof(hcl_host_function));
            if (!tables[i]) {
                PyErr_NoMemory();
                goto cleanup;
            }
            for (Py_ssize_t j = 0; j < nf; j++) {
                PyObject *fi = PySequence_GetItem(fns, j);
                PyObject *fname = NULL, *addr = NULL;
                int fok = fi && PyArg_ParseTuple(fi, "UO", &fname, &addr);
                Py_XDECREF(fi);
                if (!fok) goto cleanup;
                void *p = PyLong_AsVoidPtr(addr);
                if (!p && PyErr_Occurred()) goto cleanup;
                tables[i][j].name = PyUnicode_AsUTF8AndSize(fname, NULL);
                tables[i][j].fn = (hcl_host_kernel_fn)(uintptr_t)p;
                if (!tables[i][j].name) goto cleanup;
            }
            src[i].data = tables[i];
            src[i].size = (size_t)nf;
        } else if (PyUnicode_Check(data)) {
            Py_ssize_t len;
            src[i].data = PyUnicode_AsUTF8AndSize(data, &len);
            src[i].size = (size_t)len;
            if (!src[i].data) goto cleanup;
        } else if (PyBytes_Check(data)) {
            char *p;
            Py_ssize_t len;
            if (PyBytes_AsStringAndSize(data, &p, &len) < 0) goto cleanup;
            src[i].data = p;
            src[i].size = (size_t)len;
        } else {
            PyErr_Format(PyExc_TypeError, "source %zd: data must be str or bytes, got %S", i,
                         (PyObject *)Py_TYPE(data));
            goto cleanup;
        }
    }
    hcl_module h = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS st = hcl_module_create(d, src, (uint32_t)n, &h);
    Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) {
        hclpy_raise(st, NULL);
        goto cleanup;
    }
    allocfunc alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    hclpy_module *self = (hclpy_module *)alloc(type, 0);
    if (!self) {
        hcl_module_release(h);
        goto cleanup;
    }
    self->h = h;
    self->device = Py_NewRef(dev);
    self->keep = Py_NewRef(keep); /* host functions are called through their pointers as long as the module lives */
    ret = (PyObject *)self;
cleanup:
    for (Py_ssize_t i = 0; tables && i < n; i++) PyMem_Free(tables[i]);
    PyMem_Free(tables);
    PyMem_Free(src);
    Py_XDECREF(keep);
    Py_DECREF(fast);
    return ret;
}

static void module_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    hclpy_module *self = (hclpy_module *)obj;
    if (self->h) hcl_module_release(self->h);
    self->h = NULL;
    Py_CLEAR(self->keep);
    Py_CLEAR(self->device);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

static hcl_module module_handle(PyObject *obj) {
    if (!PyObject_TypeCheck(obj, (PyTypeObject *)hclpy_ModuleType)) {
        PyErr_Format(PyExc_TypeError, "expected an hcl.Module, got %S", (PyObject *)Py_TYPE(obj));
        return NULL;
    }
    hclpy_module *m = (hclpy_module *)obj;
    if (!m->h) hclpy_released("module");
    return m->h;
}

/* release(): hcl_module_release (its kernels must be released first: the C API refuses otherwise). */
static PyObject *module_release(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hcl_module m = module_handle(obj);
    if (!m) return NULL;
    HCLPY_QUICK(NULL, hcl_module_release(m));
    ((hclpy_module *)obj)->h = NULL;
    Py_RETURN_NONE;
}

static PyObject *kernel_make(PyObject *module, PyObject *name);

/* kernel(name) -> Kernel: hcl_kernel_create. */
static PyObject *module_kernel(PyObject *obj, PyObject *name) { return kernel_make(obj, name); }

static PyObject *ctx_enter(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    return Py_NewRef(obj);
}

static PyObject *module_exit(PyObject *obj, PyObject *args) {
    (void)args;
    if (((hclpy_module *)obj)->h) return module_release(obj, NULL) ? Py_NewRef(Py_False) : NULL;
    Py_RETURN_FALSE;
}

static PyObject *module_device(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((hclpy_module *)obj)->device);
}

static PyMethodDef module_methods[] = {
    {"kernel", module_kernel, METH_O, "kernel(name) -> hcl.Kernel"},
    {"release", module_release, METH_NOARGS, "Release the module (its kernels first)."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", module_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef module_getset[] = {
    {"device", module_device, NULL, "the module's device", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot module_slots[] = {
    {Py_tp_new, module_new},
    {Py_tp_dealloc, module_dealloc},
    {Py_tp_methods, module_methods},
    {Py_tp_getset, module_getset},
    {Py_tp_doc, "Module(device, sources): sources is a sequence of (kind, data, options); kinds: opencl_c, cuda_c, "
                "hip_c, spirv, cuda_binary, hip_binary, host_table, spirv_vulkan, glsl (one Vulkan compute shader)."},
    {0, NULL},
};

static PyType_Spec module_spec = {"hcl.Module", sizeof(hclpy_module), 0, Py_TPFLAGS_DEFAULT, module_slots};

/* ---------------- Kernel ---------------- */

static PyObject *kernel_make(PyObject *module, PyObject *name) {
    hcl_module m = module_handle(module);
    if (!m) return NULL;
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "a kernel name is a str");
        return NULL;
    }
    hcl_kernel h = NULL;
    HCLPY_CALL(NULL, hcl_kernel_create(m, s, &h));
    allocfunc alloc = (allocfunc)PyType_GetSlot((PyTypeObject *)hclpy_KernelType, Py_tp_alloc);
    hclpy_kernel *self = (hclpy_kernel *)alloc((PyTypeObject *)hclpy_KernelType, 0);
    if (!self) {
        hcl_kernel_release(h);
        return NULL;
    }
    self->h = h;
    self->module = Py_NewRef(module);
    self->device = Py_NewRef(((hclpy_module *)module)->device);
    self->name = Py_NewRef(name);
    return (PyObject *)self;
}

static void kernel_dealloc(PyObject *obj) {
    PyTypeObject *tp = Py_TYPE(obj);
    hclpy_kernel *self = (hclpy_kernel *)obj;
    if (self->h) hcl_kernel_release(self->h);
    self->h = NULL;
    Py_CLEAR(self->module);
    Py_CLEAR(self->device);
    Py_CLEAR(self->name);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(obj);
    Py_DECREF(tp);
}

static PyObject *kernel_release(PyObject *obj, PyObject *noargs) {
    (void)noargs;
    hclpy_kernel *self = (hclpy_kernel *)obj;
    if (!self->h) return hclpy_released("kernel");
    hcl_kernel h = self->h;
    self->h = NULL;
    HCLPY_QUICK(NULL, hcl_kernel_release(h));
    Py_RETURN_NONE;
}

/* A grid or block: an int or a tuple of 1 to 3 ints (missing dimensions are 1). */
static int parse_dim3(PyObject *obj, hcl_dim3 *out, const char *what) {
    uint64_t v[3] = {1, 1, 1};
    if (PyLong_Check(obj)) {
        v[0] = PyLong_AsUnsignedLongLong(obj);
        if (PyErr_Occurred()) goto bad;
    } else if (PyTuple_Check(obj) && PyTuple_Size(obj) >= 1 && PyTuple_Size(obj) <= 3) {
        for (Py_ssize_t i = 0; i < PyTuple_Size(obj); i++) {
            v[i] = PyLong_AsUnsignedLongLong(PyTuple_GetItem(obj, i));
            if (PyErr_Occurred()) goto bad;
        }
    } else {
        PyErr_Format(PyExc_TypeError, "%s must be an int or a tuple of 1 to 3 ints, got %R", what, obj);
        return -1;
    }
    for (int i = 0; i < 3; i++)
        if (v[i] > UINT32_MAX) goto bad;
    out->x = (uint32_t)v[0], out->y = (uint32_t)v[1], out->z = (uint32_t)v[2];
    return 0;
bad:
    PyErr_Clear();
    hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, what[0] == 'g' ? "grid: a dimension is negative or above 2^32-1"
                                                           : "block: a dimension is negative or above 2^32-1");
    return -1;
}

#define HCLPY_MAX_ARGS 64

/* One launch argument from a Python object; `hold` receives a reference the caller drops after the launch. */
static int to_arg(PyObject *a, Py_ssize_t i, hcl_arg *out, PyObject **hold, PyObject **bufobj) {
    if (PyObject_TypeCheck(a, (PyTypeObject *)hclpy_BufferType)) {
        hclpy_buffer *b = (hclpy_buffer *)a;
        if (!b->h) {
            hclpy_released("buffer");
            return -1;
        }
        *out = hcl_arg_buffer(b->h);
        *bufobj = a;
        return 0;
    }
    if (PyObject_TypeCheck(a, (PyTypeObject *)hclpy_ScalarType)) {
        hclpy_scalar *s = (hclpy_scalar *)a;
        *out = hcl_arg_value(s->bytes, s->size);
        return 0;
    }
    if (PyBytes_Check(a)) {
        char *p;
        Py_ssize_t len;
        if (PyBytes_AsStringAndSize(a, &p, &len) < 0) return -1;
        *out = hcl_arg_value(p, (size_t)len);
        return 0;
    }
    if (PyLong_Check(a) || PyFloat_Check(a) || PyBool_Check(a)) {
        PyErr_Format(PyExc_TypeError,
                     "argument %zd: a Python %S has no C type: pass hcl.int32(v), hcl.uint64(v), hcl.float32(v), ...",
                     i, (PyObject *)Py_TYPE(a));
        return -1;
    }
    PyObject *buf = PyObject_GetAttr(a, str_buf);
    if (!buf) {
        PyErr_Clear();
        if (!arg_hook) {
            PyErr_Format(PyExc_TypeError, "argument %zd: %S is not a kernel argument", i, (PyObject *)Py_TYPE(a));
            return -1;
        }
        /* hcl's hook: a DLPack tensor wrapped in place (or an error saying why it cannot be); the result is an
         * hcl.Array, held until the launch has been submitted. */
        PyObject *arr = PyObject_CallFunctionObjArgs(arg_hook, a, NULL);
        if (!arr) return -1;
        *hold = arr;
        buf = PyObject_GetAttr(arr, str_buf);
        a = arr;
        if (!buf) return -1;
    }
    if (!PyObject_TypeCheck(buf, (PyTypeObject *)hclpy_BufferType) || !((hclpy_buffer *)buf)->h) {
        Py_DECREF(buf);
        if (!PyErr_Occurred()) hclpy_released("buffer of this array");
        return -1;
    }
    PyObject *off = PyObject_GetAttr(a, str_offset);
    size_t offset = 0;
    int rc = off ? hclpy_size(off, &offset) : -1;
    Py_XDECREF(off);
    if (rc == 0) {
        *out = hcl_arg_buffer(((hclpy_buffer *)buf)->h);
        out->offset = offset;
        *bufobj = buf;
    }
    Py_DECREF(buf); /* the array (or the caller's args) keeps it alive */
    return rc;
}

/* launch(grid, block, args=(), queue=None, shared=0, wait=None, event=False): hcl_kernel_launch. Arguments: hcl.Array
 * (its buffer at its offset), hcl.Buffer, hcl.Scalar (hcl.int32(3)...), bytes (raw value), or a DLPack tensor HCL can
 * wrap in place. Returns an hcl.Event when event=True. */
static PyObject *kernel_launch(PyObject *obj, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"grid", "block", "args", "queue", "shared", "wait", "event", NULL};
    PyObject *grid_o, *block_o, *kargs = NULL, *queue = Py_None, *wait = Py_None;
    Py_ssize_t shared = 0;
    int want_event = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO|OOnOp", kwlist, &grid_o, &block_o, &kargs, &queue, &shared, &wait,
                                     &want_event))
        return NULL;
    hclpy_kernel *self = (hclpy_kernel *)obj;
    if (!self->h) return hclpy_released("kernel");
    hcl_dim3 grid, block;
    if (parse_dim3(grid_o, &grid, "grid") < 0 || parse_dim3(block_o, &block, "block") < 0) return NULL;
    if (shared < 0) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "shared: negative size");
    PyThread_type_lock lock = NULL;
    hcl_queue q = hclpy_pick_queue(queue, self->device, &lock);
    if (!q) return NULL;
    hcl_arg cargs[HCLPY_MAX_ARGS];
    PyObject *hold[HCLPY_MAX_ARGS];
    PyObject *bufobj[HCLPY_MAX_ARGS]; /* the hcl.Buffer behind each buffer argument (borrowed), else NULL */
    Py_ssize_t n = 0;
    PyObject *fast = NULL;
    if (kargs && kargs != Py_None) {
        fast = PySequence_Fast(kargs, "args must be a sequence");
        if (!fast) return NULL;
        n = PySequence_Size(fast);
        if (n > HCLPY_MAX_ARGS) {
            Py_DECREF(fast);
            return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "more than 64 kernel arguments");
        }
    }
    PyObject *ret = NULL;
    Py_ssize_t done = 0;
    for (; done < n; done++) {
        PyObject *a = PyTuple_Check(fast) ? PyTuple_GetItem(fast, done) : PyList_GetItem(fast, done);
        hold[done] = NULL;
        bufobj[done] = NULL;
        if (!a || to_arg(a, done, &cargs[done], &hold[done], &bufobj[done]) < 0) goto cleanup;
    }
    uint32_t nw = 0;
    hcl_event *wl = NULL, ev = NULL;
    if (hclpy_wait_list(wait, &nw, &wl) < 0) goto cleanup;
    hcl_status st;
    hcl_kernel k = self->h;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
    st = hcl_kernel_launch(q, k, grid, block, (size_t)shared, (uint32_t)n, n ? cargs : NULL, nw, wl,
                           want_event ? &ev : NULL);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS PyMem_Free(wl);
    if (st != HCL_SUCCESS) {
        hclpy_raise(st, NULL);
        goto cleanup;
    }
    PyObject *owner = hclpy_queue_owner(queue, self->device);
    for (Py_ssize_t i = 0; i < n; i++) hclpy_buffer_used(bufobj[i], owner, q);
    ret = want_event ? hclpy_event_new(ev, self->device) : Py_NewRef(Py_None);
cleanup:
    for (Py_ssize_t i = 0; i < done; i++) Py_XDECREF(hold[i]);
    if (done < n) Py_XDECREF(hold[done]);
    Py_XDECREF(fast);
    return ret;
}

static PyObject *kernel_max_group(PyObject *obj, void *closure) {
    (void)closure;
    hclpy_kernel *self = (hclpy_kernel *)obj;
    if (!self->h) return hclpy_released("kernel");
    uint64_t v = 0;
    HCLPY_QUICK(NULL, hcl_kernel_get_max_group_size(self->h, &v));
    return PyLong_FromUnsignedLongLong(v);
}

static PyObject *kernel_name(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((hclpy_kernel *)obj)->name);
}

static PyObject *kernel_device(PyObject *obj, void *closure) {
    (void)closure;
    return Py_NewRef(((hclpy_kernel *)obj)->device);
}

static PyObject *kernel_exit(PyObject *obj, PyObject *args) {
    (void)args;
    if (((hclpy_kernel *)obj)->h) return kernel_release(obj, NULL) ? Py_NewRef(Py_False) : NULL;
    Py_RETURN_FALSE;
}

static PyMethodDef kernel_methods[] = {
    {"launch", (PyCFunction)(void (*)(void))kernel_launch, METH_VARARGS | METH_KEYWORDS,
     "launch(grid, block, args=(), queue=None, shared=0, wait=None, event=False)"},
    {"release", kernel_release, METH_NOARGS, "Release the kernel."},
    {"__enter__", ctx_enter, METH_NOARGS, NULL},
    {"__exit__", kernel_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef kernel_getset[] = {
    {"max_group_size", kernel_max_group, NULL, "hcl_kernel_get_max_group_size", NULL},
    {"name", kernel_name, NULL, "the kernel's name", NULL},
    {"device", kernel_device, NULL, "the kernel's device", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot kernel_slots[] = {
    {Py_tp_dealloc, kernel_dealloc},
    {Py_tp_methods, kernel_methods},
    {Py_tp_getset, kernel_getset},
    {Py_tp_doc, "A kernel of a module (Module.kernel(name))."},
    {0, NULL},
};

static PyType_Spec kernel_spec = {"hcl.Kernel", sizeof(hclpy_kernel), 0, Py_TPFLAGS_DEFAULT, kernel_slots};

/* _set_arg_hook(fn): the Python function launch calls for an argument that is none of its own types. */
static PyObject *set_arg_hook(PyObject *self, PyObject *fn) {
    (void)self;
    PyObject *old = arg_hook;
    arg_hook = Py_NewRef(fn);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef kernel_functions[] = {
    {"_set_arg_hook", set_arg_hook, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int hclpy_init_kernel(PyObject *m) {
    str_buf = PyUnicode_InternFromString("_buf");
    str_offset = PyUnicode_InternFromString("_offset");
    if (!str_buf || !str_offset) return -1;
    if (!(hclpy_ModuleType = PyType_FromSpec(&module_spec)) ||
        PyModule_AddObjectRef(m, "Module", hclpy_ModuleType) < 0 ||
        !(hclpy_KernelType = PyType_FromSpec(&kernel_spec)) ||
        PyModule_AddObjectRef(m, "Kernel", hclpy_KernelType) < 0 ||
        !(hclpy_ScalarType = PyType_FromSpec(&scalar_spec)) ||
        PyModule_AddObjectRef(m, "Scalar", hclpy_ScalarType) < 0 || PyModule_AddFunctions(m, kernel_functions) < 0)
        return -1;
    return 0;
}
