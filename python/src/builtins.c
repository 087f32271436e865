/* hcl._hcl: the built-in kernels (hcl_vecadd, hcl_gemm, hcl_softmax, hcl_reduce) on buffers. The hcl package's
 * functions of the same names check shapes and types of arrays and call these. */
#include "hclpy.h"

/* `q` is an hcl.Queue, or an hcl.Device for its default queue; *lock gets the queue's lock. */
static hcl_queue queue_of(PyObject *q, PyThread_type_lock *lock) {
    if (q == Py_None) {
        PyErr_SetString(PyExc_TypeError, "expected an hcl.Queue or an hcl.Device, got None");
        return NULL;
    }
    return hclpy_pick_queue(q, q, lock);
}

static PyObject *queue_device(PyObject *q) {
    if (PyObject_TypeCheck(q, (PyTypeObject *)hclpy_DeviceType)) return q;
    return ((hclpy_queue *)q)->device;
}

/* The result of a built-in: an event when asked for, else None; the buffers used are marked pending on the queue. */
static PyObject *done(hcl_status st, int want, hcl_event ev, PyObject *q, hcl_queue qh, PyObject *b1, PyObject *b2,
                      PyObject *b3) {
    if (st != HCL_SUCCESS) return hclpy_raise(st, NULL);
    hclpy_buffer_used(b1, q, qh);
    hclpy_buffer_used(b2, q, qh);
    hclpy_buffer_used(b3, q, qh);
    if (want) return hclpy_event_new(ev, queue_device(q));
    Py_RETURN_NONE;
}

/* A buffer argument that may be None (passed to the C call as NULL, for it to report). */
static int opt_buffer(PyObject *o, hcl_buffer *out) {
    if (o == Py_None) {
        *out = NULL;
        return 0;
    }
    *out = hclpy_buffer_handle(o);
    return *out ? 0 : -1;
}

/* _vecadd(queue, dtype, n, a, b, c, event) */
static PyObject *py_vecadd(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *qo, *ao, *bo, *co;
    int dtype, want;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OinOOOp", &qo, &dtype, &n, &ao, &bo, &co, &want)) return NULL;
    PyThread_type_lock lock = NULL;
    hcl_queue q = queue_of(qo, &lock);
    hcl_buffer a, b, c;
    if (!q || opt_buffer(ao, &a) < 0 || opt_buffer(bo, &b) < 0 || opt_buffer(co, &c) < 0) return NULL;
    if (n < 0) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "vecadd: negative n");
    hcl_event ev = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
    st = hcl_vecadd(q, (hcl_dtype)dtype, (size_t)n, a, b, c, want ? &ev : NULL);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS return done(st, want, ev, qo, q, ao, bo, co);
}

/* _gemm(queue, trans_a, trans_b, m, n, k, alpha, a_type, a, lda, b_type, b, ldb, beta, c_type, c, ldc, compute,
 * event) */
static PyObject *py_gemm(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *qo, *ao, *bo, *co;
    int ta, tb, at, bt, ct, compute, want;
    Py_ssize_t m, n, k, lda, ldb, ldc;
    float alpha, beta;
    if (!PyArg_ParseTuple(args,
                          "Oiinnnf"
                          "iOn"
                          "iOnf"
                          "iOnip",
                          &qo, &ta, &tb, &m, &n, &k, &alpha, &at, &ao, &lda, &bt, &bo, &ldb, &beta, &ct, &co, &ldc,
                          &compute, &want))
        return NULL;
    PyThread_type_lock lock = NULL;
    hcl_queue q = queue_of(qo, &lock);
    hcl_buffer a, b, c;
    if (!q || opt_buffer(ao, &a) < 0 || opt_buffer(bo, &b) < 0 || opt_buffer(co, &c) < 0) return NULL;
    if (m < 0 || n < 0 || k < 0 || lda < 0 || ldb < 0 || ldc < 0)
        return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "gemm: a negative size or leading dimension");
    hcl_event ev = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock(lock, WAIT_LOCK);
    st = hcl_gemm(q, (hcl_transpose)ta, (hcl_transpose)tb, (size_t)m, (size_t)n, (size_t)k, alpha, (hcl_dtype)at, a,
                  (size_t)lda, (hcl_dtype)bt, b, (size_t)ldb, beta, (hcl_dtype)ct, c, (size_t)ldc, (hcl_compute)compute,
                  want ? &ev : NULL);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS return done(st, want, ev, qo, q, ao, bo, co);
}

/* _softmax(queue, dtype, rows, cols, in, out, event) */
static PyObject *py_softmax(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *qo, *io, *oo;
    int dtype, want;
    Py_ssize_t rows, cols;
    if (!PyArg_ParseTuple(args, "OinnOOp", &qo, &dtype, &rows, &cols, &io, &oo, &want)) return NULL;
    PyThread_type_lock lock = NULL;
    hcl_queue q = queue_of(qo, &lock);
    hcl_buffer in, out;
    if (!q || opt_buffer(io, &in) < 0 || opt_buffer(oo, &out) < 0) return NULL;
    if (rows < 0 || cols < 0) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "softmax: a negative size");
    hcl_event ev = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS st =
        hcl_softmax(q, (hcl_dtype)dtype, (size_t)rows, (size_t)cols, in, out, want ? &ev : NULL);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS return done(st, want, ev, qo, q, io, oo, NULL);
}

/* _reduce(queue, dtype, op, n, in, out, event) */
static PyObject *py_reduce(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *qo, *io, *oo;
    int dtype, op, want;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "OiinOOp", &qo, &dtype, &op, &n, &io, &oo, &want)) return NULL;
    PyThread_type_lock lock = NULL;
    hcl_queue q = queue_of(qo, &lock);
    hcl_buffer in, out;
    if (!q || opt_buffer(io, &in) < 0 || opt_buffer(oo, &out) < 0) return NULL;
    if (n < 0) return hclpy_raise(HCL_ERROR_INVALID_ARGUMENT, "reduce: negative n");
    hcl_event ev = NULL;
    hcl_status st;
    Py_BEGIN_ALLOW_THREADS st =
        hcl_reduce(q, (hcl_dtype)dtype, (hcl_reduce_op)op, (size_t)n, in, out, want ? &ev : NULL);
    PyThread_release_lock(lock);
    Py_END_ALLOW_THREADS return done(st, want, ev, qo, q, io, oo, NULL);
}

/* _finish(queue_or_device): hcl_queue_finish of a queue or of a device's default queue, GIL released. */
static PyObject *py_finish(PyObject *self, PyObject *qo) {
    (void)self;
    PyThread_type_lock lock = NULL;
    hcl_queue q = queue_of(qo, &lock);
    if (!q) return NULL;
    HCLPY_QCALL(NULL, lock, hcl_queue_finish(q));
    Py_RETURN_NONE;
}

/* _queue_native(queue_or_device) -> int: hcl_queue_get_native (CUstream...), 0 where the backend has none. */
static PyObject *py_queue_native(PyObject *self, PyObject *qo) {
    (void)self;
    PyThread_type_lock lock = NULL;
    hcl_queue q = queue_of(qo, &lock);
    if (!q) return NULL;
    void *p = NULL;
    if (hcl_queue_get_native(q, &p) != HCL_SUCCESS) p = NULL;
    return PyLong_FromVoidPtr(p);
}

static PyMethodDef builtin_functions[] = {
    {"_vecadd", py_vecadd, METH_VARARGS, NULL},
    {"_gemm", py_gemm, METH_VARARGS, NULL},
    {"_softmax", py_softmax, METH_VARARGS, NULL},
    {"_reduce", py_reduce, METH_VARARGS, NULL},
    {"_finish", py_finish, METH_O, NULL},
    {"_queue_native", py_queue_native, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int hclpy_init_builtins(PyObject *m) { return PyModule_AddFunctions(m, builtin_functions); }
