/* Copies between two GPUs of this runtime (the optional driver entries peer_access, buffer_copy_peer): whether a device reaches another's memory, and the
 * runtime's peer copy. Shared by the CUDA and HIP drivers (gpu.h).
 *
 * Access is asked once per ordered pair of devices (cuDeviceCanAccessPeer / hipDeviceCanAccessPeer) and, when there is
 * some, enabled in both directions there and then (cuCtxEnablePeerAccess with each primary context current /
 * hipDeviceEnablePeerAccess with each device current; "already enabled", by us through another open of the device or
 * by another library sharing the primary context, is success), so that a copy issued on either device's stream reads
 * and writes the other's memory directly (NVLink or PCIe peer-to-peer) rather than through host memory. The answer is
 * remembered per device. The peer entry points are optional in the symbol list: without them every pair answers 0
 * and the core stages its copies. One GPU opened twice is the same memory: direct, without asking. */
#include "gpu.h"

#if HCL_GPU_CUDA
#define PEER_ID(d) ((d)->ctx) /* cuMemcpyPeerAsync names each side's context */
#define PEER_SYMBOLS_PRESENT                                                                                           \
    (hcl__gpu.cuDeviceCanAccessPeer && hcl__gpu.cuCtxEnablePeerAccess && hcl__gpu.cuMemcpyPeerAsync)
#else
#define PEER_ID(d) ((int)(d)->dev) /* hipMemcpyPeerAsync names each side's device */
#define PEER_SYMBOLS_PRESENT                                                                                           \
    (hcl__gpu.hipDeviceCanAccessPeer && hcl__gpu.hipDeviceEnablePeerAccess && hcl__gpu.hipMemcpyPeerAsync)
#endif

/* Let `from` (made current) reach `to`'s memory. */
static hcl_status enable(hcl__gpu_device *from, hcl__gpu_device *to) {
    hcl__gpu_scope scope;
    hcl_status st = hcl__gpu_enter(from, &scope);
    if (st != HCL_SUCCESS) return st;
#if HCL_GPU_CUDA
    hcl_gpu_result r = hcl__gpu.cuCtxEnablePeerAccess(to->ctx, 0);
    const char *call = "cuCtxEnablePeerAccess";
#else
    hcl_gpu_result r = hcl__gpu.hipDeviceEnablePeerAccess((int)to->dev, 0);
    const char *call = "hipDeviceEnablePeerAccess";
#endif
    if (r != HCL_GPU_SUCCESS && r != HCL_GPU_ERROR_PEER_ACCESS_ALREADY_ENABLED)
        st = hcl__gpu_fail(r, call, "device %u '%s' to device %u '%s'", from->index, from->name, to->index, to->name);
    else
        HCL_GPU_LOG("peer access %s: device %u '%s' -> device %u '%s'",
                    r == HCL_GPU_SUCCESS ? "enabled" : "was already enabled", from->index, from->name, to->index,
                    to->name);
    hcl__gpu_leave(&scope);
    return st;
}

static int can_access(hcl__gpu_device *a, hcl__gpu_device *b, hcl_status *st) {
    int can = 0;
    *st = HCL_GPU(DeviceCanAccessPeer, (&can, a->dev, b->dev), "device %u '%s' to device %u '%s'", a->index, a->name,
                  b->index, b->name);
    return *st == HCL_SUCCESS && can;
}

static signed char remembered(hcl__gpu_device *d, int ordinal) {
    if (ordinal < 0 || ordinal >= HCL_GPU_MAX_PEERS) return 0;
    pthread_mutex_lock(&d->lock);
    signed char v = d->peer[ordinal];
    pthread_mutex_unlock(&d->lock);
    return v;
}

static void remember(hcl__gpu_device *d, int ordinal, signed char v) {
    if (ordinal < 0 || ordinal >= HCL_GPU_MAX_PEERS) return;
    pthread_mutex_lock(&d->lock);
    d->peer[ordinal] = v;
    pthread_mutex_unlock(&d->lock);
}

hcl_status hcl__gpu_peer_access(void *device, void *peer, int *out_direct) {
    hcl__gpu_device *d = device, *p = peer;
    *out_direct = 0;
    if (d->dev == p->dev) {
        *out_direct = 1;
        return HCL_SUCCESS;
    }
    if (!PEER_SYMBOLS_PRESENT) return HCL_SUCCESS;
    const signed char known = remembered(d, (int)p->dev);
    if (known) {
        *out_direct = known > 0;
        return HCL_SUCCESS;
    }
    hcl_status st = HCL_SUCCESS;
    int direct = can_access(d, p, &st);
    if (st != HCL_SUCCESS) return st;
    if (direct && (st = enable(d, p)) != HCL_SUCCESS) return st;
    /* the other direction too, so that a copy on either device's queue goes direct */
    if (direct && can_access(p, d, &st) && (st = enable(p, d)) != HCL_SUCCESS) return st;
    if (st != HCL_SUCCESS) return st;
    remember(d, (int)p->dev, direct ? 1 : -1);
    HCL_GPU_LOG("device %u '%s' -> device %u '%s': %s", d->index, d->name, p->index, p->name,
                direct ? "direct peer access" : "no peer access (copies are staged by the core)");
    *out_direct = direct;
    return HCL_SUCCESS;
}

hcl_status hcl__gpu_buffer_copy_peer(void *queue, void *dst_device, void *dst, size_t dst_offset, void *src_device,
                                     void *src, size_t src_offset, size_t size, int blocking, uint32_t num_wait,
                                     void *const *wait, void **out_event) {
    hcl__gpu_device *dd = dst_device, *sd = src_device;
    hcl__gpu_cmd cmd;
    hcl_status st = hcl__gpu_cmd_begin(&cmd, queue, num_wait, wait, out_event);
    if (st != HCL_SUCCESS) return st;
    if (size > 0 && dd->dev == sd->dev) /* one GPU opened twice: one memory */
        st = HCL_GPU(MemcpyDtoDAsync,
                     (hcl__gpu_ptr_at(dst, dst_offset), hcl__gpu_ptr_at(src, src_offset), size, cmd.q->stream),
                     "device to device, dst_offset=%zu src_offset=%zu size=%zu", dst_offset, src_offset, size);
    else if (size > 0)
#if HCL_GPU_CUDA
        st = HCL_GPU_CALL(cuMemcpyPeerAsync,
                          (hcl__gpu_ptr_at(dst, dst_offset), PEER_ID(dd), hcl__gpu_ptr_at(src, src_offset), PEER_ID(sd),
                           size, cmd.q->stream),
#else
        st = HCL_GPU_CALL(hipMemcpyPeerAsync,
                          ((void *)hcl__gpu_ptr_at(dst, dst_offset), PEER_ID(dd),
                           (const void *)hcl__gpu_ptr_at(src, src_offset), PEER_ID(sd), size, cmd.q->stream),
#endif
                          "device %u '%s' to device %u '%s', dst_offset=%zu src_offset=%zu size=%zu", sd->index,
                          sd->name, dd->index, dd->name, dst_offset, src_offset, size);
    return hcl__gpu_cmd_end(&cmd, st, blocking, "a peer copy", out_event);
}
