/* The exception classes of hcl (one per HCL status, under hcl.Error) and the helpers every file of the extension
 * raises them with; a leaf: it calls no other file of the extension. */
#include "hclpy.h"

#include <stdio.h>
#include <string.h>

/* The exception classes, indexed by -status (status 0 has none). */
#define HCLPY_MAX_STATUS 32
static PyObject *error_base;
static PyObject *error_class[HCLPY_MAX_STATUS];

PyObject *hclpy_raise(hcl_status status, const char *detail) {
    int idx = -(int)status;
    PyObject *cls = (idx > 0 && idx < HCLPY_MAX_STATUS && error_class[idx]) ? error_class[idx] : error_base;
    const char *msg = detail ? detail : hcl_last_message();
    if (!msg || !*msg) msg = hcl_status_text(status);
    PyObject *text = PyUnicode_FromFormat("%s: %s", hcl_status_name(status), msg);
    if (!text) return NULL;
    PyObject *exc = PyObject_CallFunctionObjArgs(cls, text, NULL);
    Py_DECREF(text);
    if (!exc) return NULL;
    PyObject *st = PyLong_FromLong((long)status);
    PyObject *name = PyUnicode_FromString(hcl_status_name(status));
    PyObject *message = PyUnicode_FromString(msg);
    if (st && name && message && PyObject_SetAttrString(exc, "status", st) == 0 &&
        PyObject_SetAttrString(exc, "status_name", name) == 0 && PyObject_SetAttrString(exc, "message", message) == 0)
        PyErr_SetObject(cls, exc);
    Py_XDECREF(st);
    Py_XDECREF(name);
    Py_XDECREF(message);
    Py_DECREF(exc);
    return NULL;
}

PyObject *hclpy_released(const char *what) {
    char text[160];
    snprintf(text, sizeof text, "this %s was released", what);
    return hclpy_raise(HCL_ERROR_INVALID_HANDLE, text);
}

int hclpy_size(PyObject *obj, size_t *out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "expected an int, got %S", (PyObject *)Py_TYPE(obj));
        return -1;
    }
    size_t v = PyLong_AsSize_t(obj);
    if (v == (size_t)-1 && PyErr_Occurred()) return -1;
    *out = v;
    return 0;
}

/* "ERROR_INVALID_ARGUMENT" -> "InvalidArgumentError"; "ERROR_TIMEOUT" -> "TimeoutError". */
static void class_name(const char *status_name, char *out, size_t cap) {
    const char *s = status_name;
    if (strncmp(s, "HCL_", 4) == 0) s += 4;
    if (strncmp(s, "ERROR_", 6) == 0) s += 6;
    size_t n = 0;
    int upper = 1;
    for (; *s && n + 6 < cap; s++) {
        if (*s == '_') {
            upper = 1;
            continue;
        }
        char c = *s;
        out[n++] = upper ? c : (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        upper = 0;
    }
    memcpy(out + n, "Error", 6);
}

/* The Python built-in exception each class also derives from, so that ordinary handlers catch them too. */
static PyObject *builtin_base(hcl_status st) {
    switch (st) {
    case HCL_ERROR_INVALID_ARGUMENT: return PyExc_ValueError;
    case HCL_ERROR_OUT_OF_RANGE: return PyExc_IndexError;
    case HCL_ERROR_OUT_OF_MEMORY: return PyExc_MemoryError;
    case HCL_ERROR_NOT_FOUND: return PyExc_LookupError;
    case HCL_ERROR_UNSUPPORTED: return PyExc_NotImplementedError;
    case HCL_ERROR_TIMEOUT: return PyExc_TimeoutError;
    default: return NULL;
    }
}

int hclpy_init_errors(PyObject *m) {
    error_base = PyErr_NewExceptionWithDoc("hcl.Error",
                                           "An HCL call failed: .status (the hcl_status value), .status_name "
                                           "(\"HCL_ERROR_...\") and .message (hcl_last_message()).",
                                           NULL, NULL);
    if (!error_base || PyModule_AddObjectRef(m, "Error", error_base) < 0) return -1;
    static const hcl_status all[] = {
#define HCLPY_ST(name, value, text) HCL_##name,
        HCL_STATUS_MAP(HCLPY_ST)
#undef HCLPY_ST
    };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int idx = -(int)all[i];
        if (idx <= 0 || idx >= HCLPY_MAX_STATUS) continue;
        char short_name[64], full[80];
        class_name(hcl_status_name(all[i]), short_name, sizeof short_name);
        snprintf(full, sizeof full, "hcl.%s", short_name);
        PyObject *extra = builtin_base(all[i]);
        PyObject *bases = extra ? PyTuple_Pack(2, error_base, extra) : PyTuple_Pack(1, error_base);
        if (!bases) return -1;
        error_class[idx] = PyErr_NewExceptionWithDoc(full, hcl_status_text(all[i]), bases, NULL);
        Py_DECREF(bases);
        if (!error_class[idx] || PyModule_AddObjectRef(m, short_name, error_class[idx]) < 0) return -1;
    }
    return 0;
}
