/* hcl._hcl: the extension module's entry point, the listing of backends, devices and communicator engines, and the
 * host conversions between float32, f16 and bf16 (the exception classes: errors.c). */
#include "hclpy.h"

#include <stdio.h>
#include <string.h>

/* Set d[key] = value (a new reference, stolen); -1 on failure. */
static int put(PyObject *d, const char *key, PyObject *value) {
    if (!value) return -1;
    int rc = PyDict_SetItemString(d, key, value);
    Py_DECREF(value);
    return rc;
}

/* backends() -> list of dicts: name, available, device_count, module_path, version, reason. */
static PyObject *py_backends(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    uint32_t n = 0;
    HCLPY_CALL(NULL, hcl_backend_count(&n));
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list && i < n; i++) {
        hcl_backend_info bi;
        hcl_status st;
        Py_BEGIN_ALLOW_THREADS st = hcl_backend_get_info(i, &bi);
        Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) {
            Py_DECREF(list);
            return hclpy_raise(st, NULL);
        }
        PyObject *d = PyDict_New();
        if (!d || put(d, "name", PyUnicode_FromString(bi.name)) < 0 ||
            put(d, "available", PyBool_FromLong(bi.available)) < 0 ||
            put(d, "device_count", PyLong_FromUnsignedLong(bi.device_count)) < 0 ||
            put(d, "module_path", PyUnicode_FromString(bi.module_path)) < 0 ||
            put(d, "version", PyUnicode_FromString(bi.version)) < 0 ||
            put(d, "reason", PyUnicode_FromString(bi.reason)) < 0 || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(d);
    }
    return list;
}

PyObject *hclpy_info_dict(const hcl_device_info *di);

/* devices() -> list of info dicts of every device of every available backend (hcl_device_get_info_by_index). */
static PyObject *py_devices(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    uint32_t n = 0;
    HCLPY_CALL(NULL, hcl_device_count(&n));
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list && i < n; i++) {
        hcl_device_info di;
        hcl_status st;
        Py_BEGIN_ALLOW_THREADS st = hcl_device_get_info_by_index(i, &di);
        Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) {
            Py_DECREF(list);
            return hclpy_raise(st, NULL);
        }
        PyObject *d = hclpy_info_dict(&di);
        if (!d || PyList_Append(list, d) < 0) Py_CLEAR(list);
        Py_XDECREF(d);
    }
    return list;
}

/* comm_engines() -> list of dicts: name, backends, available, library, version, reason. */
static PyObject *py_comm_engines(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    uint32_t n = 0;
    HCLPY_CALL(NULL, hcl_comm_engine_count(&n));
    PyObject *list = PyList_New(0);
    for (uint32_t i = 0; list && i < n; i++) {
        hcl_comm_engine_info ei;
        hcl_status st;
        Py_BEGIN_ALLOW_THREADS st = hcl_comm_engine_get_info(i, &ei);
        Py_END_ALLOW_THREADS if (st != HCL_SUCCESS) {
            Py_DECREF(list);
            return hclpy_raise(st, NULL);
        }
        PyObject *d = PyDict_New();
        if (!d || put(d, "name", PyUnicode_FromString(ei.name)) < 0 ||
            put(d, "backends", PyUnicode_FromString(ei.backends)) < 0 ||
            put(d, "available", PyBool_FromLong(ei.available)) < 0 ||
            put(d, "library", PyUnicode_FromString(ei.library)) < 0 ||
            put(d, "version", PyUnicode_FromString(ei.version)) < 0 ||
            put(d, "reason", PyUnicode_FromString(ei.reason)) < 0 || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(list);
            break;
        }
        Py_DECREF(d);
    }
    return list;
}

/* version() -> "0.1.0" (the library's, hcl_version). */
static PyObject *py_version(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    return PyUnicode_FromString(hcl_version(NULL, NULL, NULL));
}

/* status_name(int) -> "HCL_ERROR_..." */
static PyObject *py_status_name(PyObject *self, PyObject *arg) {
    (void)self;
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return NULL;
    return PyUnicode_FromString(hcl_status_name((hcl_status)v));
}

/* last_message() -> hcl_last_message() of this thread. */
static PyObject *py_last_message(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    return PyUnicode_FromString(hcl_last_message());
}

/* convert(dst_dtype, dst, src_dtype, src, n): hcl_convert between two buffer-protocol objects, sizes checked. */
static PyObject *py_convert(PyObject *self, PyObject *args) {
    (void)self;
    int dt, stype;
    PyObject *dst_obj, *src_obj;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "iOiOn", &dt, &dst_obj, &stype, &src_obj, &n)) return NULL;
    if (n < 0) return PyErr_Format(PyExc_ValueError, "convert: negative count %zd", n);
    size_t dsz = hcl_dtype_size((hcl_dtype)dt), ssz = hcl_dtype_size((hcl_dtype)stype);
    if (!dsz || !ssz) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "convert: a type that is not an hcl_dtype");
    Py_buffer d, s;
    if (PyObject_GetBuffer(dst_obj, &d, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return NULL;
    if (PyObject_GetBuffer(src_obj, &s, PyBUF_C_CONTIGUOUS) < 0) {
        PyBuffer_Release(&d);
        return NULL;
    }
    PyObject *ret = NULL;
    if ((size_t)d.len < (size_t)n * dsz || (size_t)s.len < (size_t)n * ssz) {
        PyErr_Format(PyExc_ValueError, "convert: %zd elements need %zu and %zu bytes; got %zd and %zd", n,
                     (size_t)n * dsz, (size_t)n * ssz, d.len, s.len);
    } else {
        hcl_status st = hcl_convert((hcl_dtype)dt, d.buf, (hcl_dtype)stype, s.buf, (size_t)n);
        if (st != HCL_SUCCESS)
            hclpy_raise(st, NULL);
        else
            ret = Py_NewRef(Py_None);
    }
    PyBuffer_Release(&s);
    PyBuffer_Release(&d);
    return ret;
}

/* f32_to_f16(x) etc.: one value each way. */
static PyObject *py_f32_to_f16(PyObject *self, PyObject *arg) {
    (void)self;
    double v = PyFloat_AsDouble(arg);
    if (v == -1.0 && PyErr_Occurred()) return NULL;
    return PyLong_FromLong(hcl_f32_to_f16((float)v));
}
static PyObject *py_f16_to_f32(PyObject *self, PyObject *arg) {
    (void)self;
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (v < 0 || v > 0xffff) return PyErr_Format(PyExc_OverflowError, "f16 bits %ld outside 0..65535", v);
    return PyFloat_FromDouble(hcl_f16_to_f32((uint16_t)v));
}
static PyObject *py_f32_to_bf16(PyObject *self, PyObject *arg) {
    (void)self;
    double v = PyFloat_AsDouble(arg);
    if (v == -1.0 && PyErr_Occurred()) return NULL;
    return PyLong_FromLong(hcl_f32_to_bf16((float)v));
}
static PyObject *py_bf16_to_f32(PyObject *self, PyObject *arg) {
    (void)self;
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return NULL;
    if (v < 0 || v > 0xffff) return PyErr_Format(PyExc_OverflowError, "bf16 bits %ld outside 0..65535", v);
    return PyFloat_FromDouble(hcl_bf16_to_f32((uint16_t)v));
}

/* trace_start(path) / trace_stop(): hcl_trace_start / hcl_trace_stop. */
static PyObject *py_trace_start(PyObject *self, PyObject *arg) {
    (void)self;
    const char *path = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!path) return NULL;
    HCLPY_CALL(NULL, hcl_trace_start(path));
    Py_RETURN_NONE;
}
static PyObject *py_trace_stop(PyObject *self, PyObject *noargs) {
    (void)self, (void)noargs;
    HCLPY_CALL(NULL, hcl_trace_stop());
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"backends", py_backends, METH_NOARGS, "Every backend HCL knows, available or not (with the reason)."},
    {"devices", py_devices, METH_NOARGS, "The info of every device of every available backend."},
    {"comm_engines", py_comm_engines, METH_NOARGS, "The communicator engines, available or not (with the reason)."},
    {"version", py_version, METH_NOARGS, "The version of the libhcl this module runs with."},
    {"status_name", py_status_name, METH_O, "The name of an hcl_status value."},
    {"last_message", py_last_message, METH_NOARGS, "hcl_last_message() of this thread."},
    {"convert", py_convert, METH_VARARGS, "convert(dst_dtype, dst, src_dtype, src, n): hcl_convert."},
    {"f32_to_f16", py_f32_to_f16, METH_O, "float -> f16 bits (round to nearest even)."},
    {"f16_to_f32", py_f16_to_f32, METH_O, "f16 bits -> float."},
    {"f32_to_bf16", py_f32_to_bf16, METH_O, "float -> bf16 bits (round to nearest even)."},
    {"bf16_to_f32", py_bf16_to_f32, METH_O, "bf16 bits -> float."},
    {"trace_start", py_trace_start, METH_O, "Start a Perfetto trace of HCL calls into a file (hcl_trace_start)."},
    {"trace_stop", py_trace_stop, METH_NOARGS, "Finish the trace (hcl_trace_stop)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "hcl._hcl",
    "HCL's C API on CPython's stable ABI (use the hcl package).",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

/* The module's entry point. */
PyMODINIT_FUNC PyInit__hcl(void) {
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (hclpy_init_errors(m) < 0 || hclpy_init_device(m) < 0 || hclpy_init_hostmem(m) < 0 || hclpy_init_buffer(m) < 0 ||
        hclpy_init_kernel(m) < 0 || hclpy_init_builtins(m) < 0 || hclpy_init_dlpack(m) < 0 || hclpy_init_comm(m) < 0 ||
        PyModule_AddStringConstant(m, "HEADER_VERSION", HCL_VERSION_STRING) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
