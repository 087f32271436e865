/* hcl._hcl: DLPack capsules both ways. The Python layer (hcl/_array.py) decides what may be shared; this file only
 * builds a capsule over memory HCL owns (kept alive by a Python owner) and opens a capsule that another library made.
 */
#include "hclpy.h"
#include "dlpack.h"

#include <stdlib.h>
#include <string.h>

/* What a capsule we produce owns: the managed tensor, its shape and strides, and a reference to the owner. */
typedef struct {
    DLManagedTensor legacy;
    DLManagedTensorVersioned versioned;
    int64_t dims[2 * 32];
    PyObject *owner;
} export_ctx;

static void drop_owner(export_ctx *ctx) {
    /* The consumer may call the deleter from any thread, with or without the GIL. */
    if (Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_XDECREF(ctx->owner);
        PyGILState_Release(g);
    }
    free(ctx);
}

static void legacy_deleter(DLManagedTensor *self) { drop_owner((export_ctx *)self->manager_ctx); }
static void versioned_deleter(DLManagedTensorVersioned *self) { drop_owner((export_ctx *)self->manager_ctx); }

/* A capsule never consumed deletes its tensor. */
static void legacy_capsule_destructor(PyObject *cap) {
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *t = PyCapsule_GetPointer(cap, "dltensor");
        if (t && t->deleter) t->deleter(t);
    }
}
static void versioned_capsule_destructor(PyObject *cap) {
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *t = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (t && t->deleter) t->deleter(t);
    }
}

/* _to_dlpack(owner, address, device_type, device_id, shape, strides, code, bits, byte_offset, versioned, read_only)
 * -> capsule over `address` (+ byte_offset) that keeps `owner` alive until the consumer deletes it. */
static PyObject *to_dlpack(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *owner, *addr, *shape, *strides;
    int dev_type, dev_id, code, bits, versioned, read_only;
    unsigned long long byte_offset;
    if (!PyArg_ParseTuple(args, "OOiiO!O!iiKpp", &owner, &addr, &dev_type, &dev_id, &PyTuple_Type, &shape,
                          &PyTuple_Type, &strides, &code, &bits, &byte_offset, &versioned, &read_only))
        return NULL;
    Py_ssize_t nd = PyTuple_Size(shape);
    if (nd > 32 || PyTuple_Size(strides) != nd) return PyErr_Format(PyExc_ValueError, "bad shape/strides for DLPack");
    void *p = PyLong_AsVoidPtr(addr);
    if (!p && PyErr_Occurred()) return NULL;
    export_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < nd; i++) {
        ctx->dims[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
        ctx->dims[32 + i] = PyLong_AsLongLong(PyTuple_GetItem(strides, i));
    }
    if (PyErr_Occurred()) {
        free(ctx);
        return NULL;
    }
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.data = p;
    t.device.device_type = dev_type;
    t.device.device_id = dev_id;
    t.ndim = (int32_t)nd;
    t.dtype.code = (uint8_t)code;
    t.dtype.bits = (uint8_t)bits;
    t.dtype.lanes = 1;
    t.shape = ctx->dims;
    t.strides = ctx->dims + 32;
    t.byte_offset = byte_offset;
    ctx->owner = Py_NewRef(owner);
    PyObject *cap;
    if (versioned) {
        ctx->versioned.version.major = 1;
        ctx->versioned.version.minor = 0;
        ctx->versioned.manager_ctx = ctx;
        ctx->versioned.deleter = versioned_deleter;
        ctx->versioned.flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
        ctx->versioned.dl_tensor = t;
        cap = PyCapsule_New(&ctx->versioned, "dltensor_versioned", versioned_capsule_destructor);
    } else {
        ctx->legacy.dl_tensor = t;
        ctx->legacy.manager_ctx = ctx;
        ctx->legacy.deleter = legacy_deleter;
        cap = PyCapsule_New(&ctx->legacy, "dltensor", legacy_capsule_destructor);
    }
    if (!cap) {
        Py_DECREF(ctx->owner);
        free(ctx);
    }
    return cap;
}

/* The owner of a consumed foreign tensor: deleting it calls the producer's deleter. */
static void holder_legacy(PyObject *cap) {
    DLManagedTensor *t = PyCapsule_GetPointer(cap, "hcl.dlpack_holder");
    if (t && t->deleter) t->deleter(t);
}
static void holder_versioned(PyObject *cap) {
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(cap, "hcl.dlpack_holder_v");
    if (t && t->deleter) t->deleter(t);
}

/* _from_dlpack(capsule) -> (address, device_type, device_id, shape, strides or None, code, bits, lanes, read_only,
 * holder): takes ownership of the capsule's tensor (renames it "used_..."); `holder` releases it when collected. The
 * address has the tensor's byte_offset applied. */
static PyObject *from_dlpack(PyObject *self, PyObject *cap) {
    (void)self;
    DLTensor *t;
    PyObject *holder;
    int read_only = 0;
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m->version.major != 1)
            return PyErr_Format(PyExc_BufferError, "DLPack version %u.%u is not supported (1.x is)",
                                (unsigned)m->version.major, (unsigned)m->version.minor);
        holder = PyCapsule_New(m, "hcl.dlpack_holder_v", holder_versioned);
        if (!holder) return NULL;
        PyCapsule_SetName(cap, "used_dltensor_versioned");
        t = &m->dl_tensor;
        read_only = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        holder = PyCapsule_New(m, "hcl.dlpack_holder", holder_legacy);
        if (!holder) return NULL;
        PyCapsule_SetName(cap, "used_dltensor");
        t = &m->dl_tensor;
    } else {
        return PyErr_Format(PyExc_BufferError, "not a DLPack capsule (or one already consumed)");
    }
    PyObject *shape = PyTuple_New(t->ndim), *strides = t->strides ? PyTuple_New(t->ndim) : Py_NewRef(Py_None);
    for (int32_t i = 0; shape && strides && i < t->ndim; i++) {
        PyTuple_SetItem(shape, i, PyLong_FromLongLong(t->shape[i]));
        if (t->strides) PyTuple_SetItem(strides, i, PyLong_FromLongLong(t->strides[i]));
    }
    PyObject *ret = NULL;
    if (shape && strides)
        ret = Py_BuildValue("(NiiOOiiiON)", PyLong_FromVoidPtr((char *)t->data + t->byte_offset),
                            (int)t->device.device_type, (int)t->device.device_id, shape, strides, (int)t->dtype.code,
                            (int)t->dtype.bits, (int)t->dtype.lanes, read_only ? Py_True : Py_False, Py_NewRef(holder));
    Py_XDECREF(shape);
    Py_XDECREF(strides);
    Py_DECREF(holder);
    return ret;
}

static PyMethodDef dlpack_functions[] = {
    {"_to_dlpack", to_dlpack, METH_VARARGS, NULL},
    {"_from_dlpack", from_dlpack, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int hclpy_init_dlpack(PyObject *m) { return PyModule_AddFunctions(m, dlpack_functions); }
