/* bench --comm's NVIDIA baselines, called directly on HCL's own buffers and streams (the native handles of
 * hcl_device_get_native, hcl_queue_get_native, hcl_buffer_get_native):
 *   NCCL (the library HCL's nccl engine opened, else libnccl.so.2; HCL_BENCH_NCCL_LIBRARY names another):
 *        ncclCommInitAll over the ranks' CUDA devices, each collective issued for every rank between
 *        ncclGroupStart and ncclGroupEnd on the rank's CUstream;
 *   libcuda (libcuda.so.1): cuMemcpyPeerAsync between two devices' buffers on the source's stream.
 * Both opened with dlopen; their few declarations are written here by hand (NCCL's and CUDA's own ABI). */
#define _POSIX_C_SOURCE 200809L

#include "comm_lib.h"
#include "vendor.h"

#include <stdlib.h>
#include <string.h>

/* ---- CUDA driver API (cuda.h) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
#define CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704
typedef CUresult (*cuCtxPushCurrent_fn)(CUcontext);
typedef CUresult (*cuCtxPopCurrent_fn)(CUcontext *);
typedef CUresult (*cuCtxGetDevice_fn)(CUdevice *);
typedef CUresult (*cuCtxEnablePeerAccess_fn)(CUcontext, unsigned);
typedef CUresult (*cuDeviceCanAccessPeer_fn)(int *, CUdevice, CUdevice);
typedef CUresult (*cuMemcpyPeerAsync_fn)(CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream);
typedef CUresult (*cuStreamSynchronize_fn)(CUstream);
typedef CUresult (*cuGetErrorName_fn)(CUresult, const char **);

typedef struct cu_api {
    lib l;
    cuCtxPushCurrent_fn push;
    cuCtxPopCurrent_fn pop;
    cuCtxGetDevice_fn get_device;
    cuCtxEnablePeerAccess_fn enable_peer;
    cuDeviceCanAccessPeer_fn can_access;
    cuMemcpyPeerAsync_fn memcpy_peer;
    cuStreamSynchronize_fn sync;
    cuGetErrorName_fn error_name;
} cu_api;

static int cu_open(cu_api *cu, char *reason, size_t size) {
    static const char *const cands[] = {"libcuda.so.1", "libcuda.so", NULL};
    char missing[256] = "";
    memset(cu, 0, sizeof *cu);
    lib_open(&cu->l, NULL, cands);
    cu->push = (cuCtxPushCurrent_fn)lib_sym(&cu->l, "cuCtxPushCurrent_v2", missing, sizeof missing);
    cu->pop = (cuCtxPopCurrent_fn)lib_sym(&cu->l, "cuCtxPopCurrent_v2", missing, sizeof missing);
    cu->get_device = (cuCtxGetDevice_fn)lib_sym(&cu->l, "cuCtxGetDevice", missing, sizeof missing);
    cu->enable_peer = (cuCtxEnablePeerAccess_fn)lib_sym(&cu->l, "cuCtxEnablePeerAccess", missing, sizeof missing);
    cu->can_access = (cuDeviceCanAccessPeer_fn)lib_sym(&cu->l, "cuDeviceCanAccessPeer", missing, sizeof missing);
    cu->memcpy_peer = (cuMemcpyPeerAsync_fn)lib_sym(&cu->l, "cuMemcpyPeerAsync", missing, sizeof missing);
    cu->sync = (cuStreamSynchronize_fn)lib_sym(&cu->l, "cuStreamSynchronize", missing, sizeof missing);
    cu->error_name = (cuGetErrorName_fn)lib_sym(&cu->l, "cuGetErrorName", missing, sizeof missing);
    return lib_ready(&cu->l, "libcuda", missing, reason, size) ? 0 : 1;
}

static const char *cu_error(const cu_api *cu, CUresult r) {
    const char *name = NULL;
    if (cu->error_name && cu->error_name(r, &name) == 0 && name) return name;
    return "CUDA_ERROR_?";
}

/* The CUDA ordinal behind a device's CUcontext. */
static int cu_ordinal(const cu_api *cu, hcl_device dev, CUcontext *out_ctx, CUdevice *out_dev, char *err,
                      size_t err_size) {
    void *ctx = NULL;
    hcl_status st = hcl_device_get_native(dev, &ctx);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(err, err_size, st, "hcl_device_get_native");
        return 1;
    }
    CUcontext popped;
    CUresult r = cu->push(ctx);
    if (r == 0) {
        r = cu->get_device(out_dev);
        cu->pop(&popped);
    }
    if (r) {
        snprintf(err, err_size, "cuCtxGetDevice: %s (%d)", cu_error(cu, r), r);
        return 1;
    }
    *out_ctx = ctx;
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------
 * cuMemcpyPeerAsync
 * ------------------------------------------------------------------------------------------------------- */
struct cuda_peer {
    cu_api cu;
    CUcontext sctx, dctx;   /* the bound pair (cuda_peer_bind) */
    void *sp, *dp, *stream; /* source and destination addresses, the source's stream */
    int bound;
};

int cuda_peer_open(cuda_peer **out, char *note, size_t note_size) {
    cuda_peer *cp = xcalloc(1, sizeof *cp);
    if (cu_open(&cp->cu, note, note_size)) {
        free(cp);
        return 1;
    }
    snprintf(note, note_size,
             "cuMemcpyPeerAsync (%s, called directly on the same buffers and the source's stream; peer access enabled "
             "where the devices can reach each other)",
             cp->cu.l.path);
    *out = cp;
    return 0;
}

void cuda_peer_close(cuda_peer *cp) { free(cp); }

int cuda_peer_bind(cuda_peer *cp, const comm_dev *dst, hcl_buffer dbuf, const comm_dev *src, hcl_buffer sbuf, char *err,
                   size_t err_size) {
    const cu_api *cu = &cp->cu;
    CUcontext popped;
    CUdevice sdev, ddev;
    cp->bound = 0;
    if (cu_ordinal(cu, src->device, &cp->sctx, &sdev, err, err_size) ||
        cu_ordinal(cu, dst->device, &cp->dctx, &ddev, err, err_size))
        return 1;
    hcl_status st = hcl_buffer_get_native(sbuf, &cp->sp);
    if (st == HCL_SUCCESS) st = hcl_buffer_get_native(dbuf, &cp->dp);
    if (st == HCL_SUCCESS) st = hcl_queue_get_native(src->queue, &cp->stream);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(err, err_size, st, "native handles");
        return 1;
    }
    CUresult r = cu->push(cp->sctx);
    if (r) {
        snprintf(err, err_size, "cuCtxPushCurrent: %s (%d)", cu_error(cu, r), r);
        return 1;
    }
    int can = 0;
    if (cu->can_access(&can, sdev, ddev) == 0 && can) {
        r = cu->enable_peer(cp->dctx, 0);
        if (r == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) r = 0;
    }
    cu->pop(&popped);
    if (r) snprintf(err, err_size, "cuCtxEnablePeerAccess: %s (%d)", cu_error(cu, r), r);
    cp->bound = !r;
    return r != 0;
}

int cuda_peer_copy(cuda_peer *cp, size_t bytes, int finish, char *err, size_t err_size) {
    const cu_api *cu = &cp->cu;
    CUcontext popped;
    if (!cp->bound) {
        snprintf(err, err_size, "cuMemcpyPeerAsync: no pair bound");
        return 1;
    }
    CUresult r = cu->push(cp->sctx);
    if (r) {
        snprintf(err, err_size, "cuCtxPushCurrent: %s (%d)", cu_error(cu, r), r);
        return 1;
    }
    const char *what = "cuMemcpyPeerAsync";
    r = cu->memcpy_peer((CUdeviceptr)(uintptr_t)cp->dp, cp->dctx, (CUdeviceptr)(uintptr_t)cp->sp, cp->sctx, bytes,
                        cp->stream);
    if (!r && finish) {
        what = "cuStreamSynchronize";
        r = cu->sync(cp->stream);
    }
    cu->pop(&popped);
    if (r) snprintf(err, err_size, "%s: %s (%d)", what, cu_error(cu, r), r);
    return r != 0;
}

/* ---------------------------------------------------------------------------------------------------------
 * NCCL (nccl.h)
 * ------------------------------------------------------------------------------------------------------- */
typedef struct ncclComm *ncclComm_t;
typedef int ncclResult_t;
enum { ncclSum = 0 };
enum { ncclFloat16 = 6, ncclFloat32 = 7, ncclBfloat16 = 9 };
typedef ncclResult_t (*ncclCommInitAll_fn)(ncclComm_t *, int, const int *);
typedef ncclResult_t (*ncclCommDestroy_fn)(ncclComm_t);
typedef ncclResult_t (*ncclGetVersion_fn)(int *);
typedef const char *(*ncclGetErrorString_fn)(ncclResult_t);
typedef ncclResult_t (*ncclGroup_fn)(void);
typedef ncclResult_t (*ncclAllReduce_fn)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
typedef ncclResult_t (*ncclAllGather_fn)(const void *, void *, size_t, int, ncclComm_t, CUstream);
typedef ncclResult_t (*ncclReduceScatter_fn)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
typedef ncclResult_t (*ncclBroadcast_fn)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
typedef ncclResult_t (*ncclReduce_fn)(const void *, void *, size_t, int, int, int, ncclComm_t, CUstream);
typedef ncclResult_t (*ncclSend_fn)(const void *, size_t, int, int, ncclComm_t, CUstream);
typedef ncclResult_t (*ncclRecv_fn)(void *, size_t, int, int, ncclComm_t, CUstream);

struct nccl_base {
    lib l;
    cu_api cu;
    int n;
    ncclComm_t comms[COMM_MAX_DEVICES];
    void *sp[COMM_MAX_DEVICES], *rp[COMM_MAX_DEVICES], *stream[COMM_MAX_DEVICES]; /* each rank's, native */
    ncclCommInitAll_fn init_all;
    ncclCommDestroy_fn destroy;
    ncclGetVersion_fn version;
    ncclGetErrorString_fn error_string;
    ncclGroup_fn group_start, group_end;
    ncclAllReduce_fn all_reduce;
    ncclAllGather_fn all_gather;
    ncclReduceScatter_fn reduce_scatter;
    ncclBroadcast_fn broadcast;
    ncclReduce_fn reduce;
    ncclSend_fn send;
    ncclRecv_fn recv;
};

void nccl_base_close(nccl_base *nb) {
    for (int i = 0; i < nb->n; i++)
        if (nb->comms[i]) nb->destroy(nb->comms[i]);
    free(nb);
}

int nccl_base_open(const comm_dev *devs, int n, const hcl_buffer *send, const hcl_buffer *recv, nccl_base **out,
                   char *note, size_t note_size) {
    /* the library HCL's nccl engine opened first (the same NCCL, found where the engine found it), then the names */
    char engine_lib[HCL_NAME_MAX] = "";
    const char *cands[4];
    int k = 0;
    uint32_t ne = 0;
    if (hcl_comm_engine_count(&ne) != HCL_SUCCESS) ne = 0;
    for (uint32_t i = 0; i < ne; i++) {
        hcl_comm_engine_info e;
        if (hcl_comm_engine_get_info(i, &e) == HCL_SUCCESS && !strcmp(e.name, "nccl") && e.available && e.library[0])
            copy_text(engine_lib, sizeof engine_lib, e.library);
    }
    if (engine_lib[0]) cands[k++] = engine_lib;
    cands[k++] = "libnccl.so.2";
    cands[k++] = "libnccl.so";
    cands[k] = NULL;
    nccl_base *nb = xcalloc(1, sizeof *nb);
    char missing[512] = "", err[320];
    lib_open(&nb->l, "HCL_BENCH_NCCL_LIBRARY", cands);
#define SYM(field, name) nb->field = (__typeof__(nb->field))lib_sym(&nb->l, name, missing, sizeof missing)
    SYM(init_all, "ncclCommInitAll");
    SYM(destroy, "ncclCommDestroy");
    SYM(version, "ncclGetVersion");
    SYM(error_string, "ncclGetErrorString");
    SYM(group_start, "ncclGroupStart");
    SYM(group_end, "ncclGroupEnd");
    SYM(all_reduce, "ncclAllReduce");
    SYM(all_gather, "ncclAllGather");
    SYM(reduce_scatter, "ncclReduceScatter");
    SYM(broadcast, "ncclBroadcast");
    SYM(reduce, "ncclReduce");
    SYM(send, "ncclSend");
    SYM(recv, "ncclRecv");
#undef SYM
    if (!lib_ready(&nb->l, "libnccl.so.2 (HCL_BENCH_NCCL_LIBRARY)", missing, err, sizeof err)) {
        snprintf(note, note_size, "none: %s", err);
        free(nb);
        return 1;
    }
    if (cu_open(&nb->cu, err, sizeof err)) {
        snprintf(note, note_size, "none: %s", err);
        free(nb);
        return 1;
    }
    int ordinals[COMM_MAX_DEVICES];
    for (int i = 0; i < n; i++) {
        CUcontext ctx;
        hcl_status st = hcl_buffer_get_native(send[i], &nb->sp[i]);
        if (st == HCL_SUCCESS) st = hcl_buffer_get_native(recv[i], &nb->rp[i]);
        if (st == HCL_SUCCESS) st = hcl_queue_get_native(devs[i].queue, &nb->stream[i]);
        if (st != HCL_SUCCESS) {
            hcl_ts_status_text(err, sizeof err, st, "native handles of rank %d", i);
            snprintf(note, note_size, "none: %s", err);
            free(nb);
            return 1;
        }
        if (cu_ordinal(&nb->cu, devs[i].device, &ctx, &ordinals[i], err, sizeof err)) {
            snprintf(note, note_size, "none: %s: %s", devs[i].selector, err);
            free(nb);
            return 1;
        }
    }
    ncclResult_t r = nb->init_all(nb->comms, n, ordinals);
    if (r) {
        snprintf(note, note_size, "none: ncclCommInitAll over %d devices: %s (%d)", n, nb->error_string(r), r);
        free(nb);
        return 1;
    }
    nb->n = n;
    int v = 0;
    nb->version(&v);
    snprintf(note, note_size,
             "NCCL %d.%d.%d (%s) called directly: ncclCommInitAll over the same devices, each collective for every "
             "rank in one ncclGroupStart/End on the same buffers and streams, timed and checked as HCL's",
             v / 10000, v / 100 % 100, v % 100, nb->l.path);
    *out = nb;
    return 0;
}

int nccl_base_issue(nccl_base *nb, int op, hcl_dtype type, size_t count, char *err, size_t err_size) {
    const int dt = type == HCL_DTYPE_F16 ? ncclFloat16 : type == HCL_DTYPE_BF16 ? ncclBfloat16 : ncclFloat32;
    void *const *sp = nb->sp, *const *rp = nb->rp, *const *st = nb->stream;
    ncclResult_t r = nb->group_start();
    for (int i = 0; i < nb->n && !r; i++) {
        ncclComm_t c = nb->comms[i];
        switch (op) {
        case OP_ALL_REDUCE: r = nb->all_reduce(sp[i], rp[i], count, dt, ncclSum, c, st[i]); break;
        case OP_ALL_GATHER: r = nb->all_gather(sp[i], rp[i], count, dt, c, st[i]); break;
        case OP_REDUCE_SCATTER: r = nb->reduce_scatter(sp[i], rp[i], count, dt, ncclSum, c, st[i]); break;
        case OP_BROADCAST: r = nb->broadcast(sp[i], rp[i], count, dt, 0, c, st[i]); break;
        case OP_REDUCE: r = nb->reduce(sp[i], rp[i], count, dt, ncclSum, 0, c, st[i]); break;
        default:
            r = nb->send(sp[i], count, dt, (i + 1) % nb->n, c, st[i]);
            if (!r) r = nb->recv(rp[i], count, dt, (i + nb->n - 1) % nb->n, c, st[i]);
            break;
        }
    }
    ncclResult_t e = nb->group_end();
    if (!r) r = e;
    if (r) snprintf(err, err_size, "nccl %s: %s (%d)", comm_op_names[op], nb->error_string(r), r);
    return r != 0;
}
