/* Copies between buffers of two devices, and the peer-access query.
 *
 * Two devices of one backend whose driver says they reach each other's memory (peer_access, ABI 2.2) copy with the
 * driver's buffer_copy_peer on the caller's queue: an ordinary command, with its wait list and event. Everything
 * else (two backends, a driver without the entries, GPUs without peer access) is staged through host memory: the
 * caller's queue does its device's half, an internal queue of the other device the other half, and the copy runs in
 * chunks through two staging slots, so that the read of chunk i+1 (into one slot) overlaps the write of chunk i
 * (from the other). Device commands of two devices cannot wait for each other's events, so the host waits: for the
 * caller's wait list first, then for each read before its chunk is written, and for a slot's write before the slot is
 * read into again. A staged copy is complete when the call returns.
 *
 * The staging memory and the internal queue are kept per device and reused across calls, because making them per
 * call costs more than a small copy (a page-locked allocation is a system call and a page-table walk; a queue is a
 * vendor object, a thread on some OpenCL runtimes). They live until the device closes (hcl__peer_fini). A staged
 * copy holds the peer locks of both its devices, taken in address order so that two copies in opposite directions
 * cannot deadlock; staged copies touching a device are therefore serialised, which costs nothing here since each of
 * them already fills the host links they share. The staging memory comes from a device whose driver pins host
 * memory (host_alloc: CUDA, HIP, Level Zero), the caller's when both do, so that its transfers run at the DMA rate;
 * else it is ordinary aligned memory. */
#include "core.h"

#include <stdlib.h>

/* Bytes per chunk unless HCL_STAGING_CHUNK says otherwise (measured on PoCL: see docs/architecture.md). */
#define PEER_CHUNK_DEFAULT ((size_t)4 << 20)

void hcl__peer_init(hcl__device *dev) {
    pthread_mutex_init(&dev->peer_lock, NULL);
    dev->stage = NULL;
    dev->stage_size = 0;
    dev->stage_from_driver = 0;
    dev->peer_queue = NULL;
}

static void stage_free(hcl__device *dev) {
    if (!dev->stage) return;
    if (dev->stage_from_driver)
        dev->drv->host_free(dev->native, dev->stage);
    else
        free(dev->stage);
    dev->stage = NULL;
    dev->stage_size = 0;
}

void hcl__peer_fini(hcl__device *dev) {
    if (dev->peer_queue) {
        /* every staged copy waited for its commands; finish anyway, as hcl_queue_release does */
        dev->drv->queue_finish(dev->peer_queue);
        dev->drv->queue_destroy(dev->peer_queue);
        dev->peer_queue = NULL;
    }
    stage_free(dev);
    pthread_mutex_destroy(&dev->peer_lock);
}

/* HCL_STAGING_CHUNK: bytes, with an optional K or M suffix (KiB, MiB); 0, junk or unset: the default. */
static size_t chunk_size(void) {
    const char *env = getenv("HCL_STAGING_CHUNK");
    if (!env || !*env) return PEER_CHUNK_DEFAULT;
    char *end = NULL;
    unsigned long long v = strtoull(env, &end, 10);
    const int shift = end && (*end == 'k' || *end == 'K') ? 10 : end && (*end == 'm' || *end == 'M') ? 20 : 0;
    if (shift) {
        v <<= shift;
        end++;
    }
    if (!end || *end || v == 0 || v > ((size_t)1 << 30)) {
        hcl__log(HCL_LOG_WARN, "core", "HCL_STAGING_CHUNK=\"%s\" is not a size from 1 to 1G: using %zu", env,
                 PEER_CHUNK_DEFAULT);
        return PEER_CHUNK_DEFAULT;
    }
    return (size_t)v;
}

/* At least `size` bytes of staging memory on dev (its peer lock held). */
static hcl_status stage_get(const char *fn, hcl__device *dev, size_t size) {
    if (dev->stage_size >= size) return HCL_SUCCESS;
    stage_free(dev);
    const int pin = HCL_DRIVER_HAS(dev->drv, host_alloc) && HCL_DRIVER_HAS(dev->drv, host_free);
    hcl_status st = HCL_SUCCESS;
    void *p = NULL;
    if (pin)
        st = dev->drv->host_alloc(dev->native, size, &p);
    else if (!(p = aligned_alloc(64, (size + 63) & ~(size_t)63)))
        st = hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of staging memory", size);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    dev->stage = p;
    dev->stage_size = size;
    dev->stage_from_driver = pin;
    return HCL_SUCCESS;
}

/* The internal queue of dev (its peer lock held). */
static hcl_status peer_queue(const char *fn, hcl__device *dev, void **out_queue) {
    if (!dev->peer_queue) {
        hcl_status st = dev->drv->queue_create(dev->native, &dev->peer_queue);
        if (st != HCL_SUCCESS) {
            dev->peer_queue = NULL;
            return hcl__prefix_message(st, fn);
        }
    }
    *out_queue = dev->peer_queue;
    return HCL_SUCCESS;
}

/* Wait for a write event of a slot and release it; keeps the first failure in *st. */
static void settle(hcl__device *dev, void **ev, hcl_status *st) {
    if (!*ev) return;
    hcl_status w = dev->drv->event_wait(*ev);
    dev->drv->event_release(*ev);
    *ev = NULL;
    if (*st == HCL_SUCCESS) *st = w;
}

/* The chunked copy: reads on rq (src's device), writes on wq (dst's device), through two slots of `chunk` bytes. */
static hcl_status staged_pipeline(hcl__buffer *dst, size_t dst_offset, hcl__buffer *src, size_t src_offset, size_t size,
                                  void *rq, void *wq, unsigned char *stage, size_t chunk) {
    const hcl_driver_table *rd = src->dev->drv, *wd = dst->dev->drv;
    void *written[2] = {NULL, NULL};
    hcl_status st = HCL_SUCCESS;
    int slot = 0;
    for (size_t done = 0; done < size && st == HCL_SUCCESS; done += chunk, slot ^= 1) {
        const size_t n = size - done < chunk ? size - done : chunk;
        unsigned char *buf = stage + (size_t)slot * chunk;
        settle(dst->dev, &written[slot], &st); /* the slot's last write has read it out */
        if (st != HCL_SUCCESS) break;
        void *read = NULL;
        if ((st = rd->buffer_read(rq, src->native, src_offset + done, n, buf, 0, 0, NULL, &read)) != HCL_SUCCESS) break;
        st = rd->event_wait(read);
        rd->event_release(read);
        if (st != HCL_SUCCESS) break;
        st = wd->buffer_write(wq, dst->native, dst_offset + done, n, buf, 0, 0, NULL, &written[slot]);
        if (st != HCL_SUCCESS) written[slot] = NULL;
    }
    settle(dst->dev, &written[0], &st);
    settle(dst->dev, &written[1], &st);
    return st;
}

static hcl_status staged_copy(const char *fn, hcl__queue *q, hcl__buffer *dst, size_t dst_offset, hcl__buffer *src,
                              size_t src_offset, size_t size, uint32_t num_wait, void **wait, hcl_event *out_event) {
    hcl_status st = HCL_SUCCESS;
    for (uint32_t i = 0; i < num_wait && st == HCL_SUCCESS; i++) st = q->dev->drv->event_wait(wait[i]);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    hcl__device *other = q->dev == dst->dev ? src->dev : dst->dev;
    /* staging on the caller's device if its driver pins host memory, else on the other's if that one's does */
    hcl__device *stager = q->dev;
    if (!HCL_DRIVER_HAS(q->dev->drv, host_alloc) && HCL_DRIVER_HAS(other->drv, host_alloc)) stager = other;
    hcl__device *first = q->dev < other ? q->dev : other, *second = q->dev < other ? other : q->dev;
    pthread_mutex_lock(&first->peer_lock);
    pthread_mutex_lock(&second->peer_lock);
    size_t chunk = chunk_size();
    if (chunk > size) chunk = size;
    void *oq = NULL;
    if ((st = stage_get(fn, stager, 2 * chunk)) == HCL_SUCCESS && (st = peer_queue(fn, other, &oq)) == HCL_SUCCESS) {
        void *rq = q->dev == src->dev ? q->native : oq, *wq = q->dev == dst->dev ? q->native : oq;
        st = staged_pipeline(dst, dst_offset, src, src_offset, size, rq, wq, stager->stage, chunk);
        st = hcl__prefix_message(st, fn);
    }
    pthread_mutex_unlock(&second->peer_lock);
    pthread_mutex_unlock(&first->peer_lock);
    if (st != HCL_SUCCESS || !HCL__WANT_EVENT(out_event)) return st;
    void *native = NULL;
    if ((st = q->dev->drv->queue_marker(q->native, 0, NULL, &native)) != HCL_SUCCESS)
        return hcl__prefix_message(st, fn);
    return hcl__wrap_event(fn, q, native, out_event);
}

/* Direct access between two devices of one driver (0 when the driver has no peer_access entry). */
static hcl_status direct_access(hcl__device *a, hcl__device *b, int *out_direct) {
    *out_direct = a == b;
    if (a == b) return HCL_SUCCESS;
    if (a->drv != b->drv || !HCL_DRIVER_HAS(a->drv, peer_access)) return HCL_SUCCESS;
    int direct = 0;
    hcl_status st = a->drv->peer_access(a->native, b->native, &direct);
    if (st == HCL_SUCCESS) *out_direct = direct != 0;
    return st;
}

hcl_status hcl__peer_copy(const char *fn, hcl__queue *q, hcl__buffer *dst, size_t dst_offset, hcl__buffer *src,
                          size_t src_offset, size_t size, int blocking, uint32_t num_wait, void **wait,
                          hcl_event *out_event) {
    int direct = 0;
    hcl_status st = HCL_SUCCESS;
    if (HCL_DRIVER_HAS(q->dev->drv, buffer_copy_peer)) {
        /* the access the copy needs: the queue's device reaching the other's memory */
        hcl__device *other = q->dev == dst->dev ? src->dev : dst->dev;
        if ((st = direct_access(q->dev, other, &direct)) != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    }
    if (!direct) return staged_copy(fn, q, dst, dst_offset, src, src_offset, size, num_wait, wait, out_event);
    void *native = NULL, **evp = HCL__WANT_EVENT(out_event) ? &native : NULL;
    st = q->dev->drv->buffer_copy_peer(q->native, dst->dev->native, dst->native, dst_offset, src->dev->native,
                                       src->native, src_offset, size, blocking, num_wait, (void *const *)wait, evp);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    return hcl__wrap_event(fn, q, native, out_event);
}

HCL__TRACED_BODY hcl_status peer_access(hcl_device device, hcl_device peer, int *out_direct) {
    static const char fn[] = "hcl_device_peer_access";
    hcl__device *a, *b;
    hcl_status st = hcl__lookup(device, HCL__H_DEVICE, (void **)&a, fn, "device");
    if (st == HCL_SUCCESS) st = hcl__lookup_out(peer, HCL__H_DEVICE, (void **)&b, out_direct, fn, "peer", "out_direct");
    if (st != HCL_SUCCESS) return st;
    int direct = 0;
    if ((st = direct_access(a, b, &direct)) != HCL_SUCCESS) return hcl__prefix_message(st, fn);
    *out_direct = direct;
    return HCL_SUCCESS;
}

HCL_API hcl_status hcl_device_peer_access(hcl_device device, hcl_device peer, int *out_direct) {
    HCL__TRACED("hcl_device_peer_access", peer_access(device, peer, out_direct), NULL, NULL, NULL);
}
