/* What the engines share (comm_engine.h): host staging memory, the copies between a device buffer and the host through
 * the buffer's driver, the host reductions (float32 arithmetic for every type), and the clock of their timeouts. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "comm_engine.h"
#include "hcl_host_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

double hcl__comm_now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

hcl_status hcl__comm_host_reserve(hcl__comm_host_mem *mem, hcl__device *dev, size_t bytes) {
    if (mem->ptr && mem->size >= bytes) return HCL_SUCCESS;
    hcl__comm_host_free(mem);
    /* grow by half again, so that a run of slowly growing messages does not reallocate each time */
    size_t want = bytes + bytes / 2 < bytes ? bytes : bytes + bytes / 2;
    want = (want + 4095) & ~(size_t)4095;
    if (want < bytes) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "%zu bytes of host staging memory", bytes);
    if (dev && HCL_DRIVER_HAS(dev->drv, host_alloc) && HCL_DRIVER_HAS(dev->drv, host_free) &&
        dev->drv->host_alloc(dev->native, want, &mem->ptr) == HCL_SUCCESS) {
        mem->dev = dev;
        hcl__device_ref(dev);
    } else if (!(mem->ptr = aligned_alloc(4096, want))) {
        return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host staging memory", want);
    }
    mem->size = want;
    return HCL_SUCCESS;
}

void hcl__comm_host_free(hcl__comm_host_mem *mem) {
    if (mem->ptr) {
        if (mem->dev) {
            mem->dev->drv->host_free(mem->dev->native, mem->ptr);
            hcl__device_unref(mem->dev);
        } else {
            free(mem->ptr);
        }
    }
    mem->ptr = NULL;
    mem->dev = NULL;
    mem->size = 0;
}

hcl_status hcl__comm_stage_in(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes, void *host) {
    if (!bytes) return HCL_SUCCESS;
    return q->dev->drv->buffer_read(q->native, buf->native, offset, bytes, host, 1, 0, NULL, NULL);
}

hcl_status hcl__comm_stage_out(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes, const void *host) {
    if (!bytes) return HCL_SUCCESS;
    return q->dev->drv->buffer_write(q->native, buf->native, offset, bytes, host, 1, 0, NULL, NULL);
}

hcl_status hcl__comm_stage_in_async(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes, void *host,
                                    void **out_event) {
    *out_event = NULL;
    if (!bytes) return HCL_SUCCESS;
    return q->dev->drv->buffer_read(q->native, buf->native, offset, bytes, host, 0, 0, NULL, out_event);
}

hcl_status hcl__comm_stage_out_async(hcl__queue *q, hcl__buffer *buf, size_t offset, size_t bytes, const void *host,
                                     void **out_event) {
    *out_event = NULL;
    if (!bytes) return HCL_SUCCESS;
    return q->dev->drv->buffer_write(q->native, buf->native, offset, bytes, host, 0, 0, NULL, out_event);
}

int hcl__comm_stage_done(hcl__queue *q, void **event, hcl_status *st) {
    if (*event && HCL_DRIVER_HAS(q->dev->drv, event_query)) {
        int done = 0;
        hcl_status s = q->dev->drv->event_query(*event, &done);
        if (s == HCL_SUCCESS && !done) return 0;
        if (s != HCL_SUCCESS && *st == HCL_SUCCESS) *st = s;
    }
    hcl__comm_stage_wait(q, event, st);
    return 1;
}

void hcl__comm_stage_wait(hcl__queue *q, void **event, hcl_status *st) {
    if (!*event) return;
    hcl_status w = q->dev->drv->event_wait(*event);
    q->dev->drv->event_release(*event);
    *event = NULL;
    if (*st == HCL_SUCCESS) *st = w;
}

/* out[i] = op(a[i], b[i]) for i < n on floats: plain loops that gcc vectorises (max and min as comparisons, not fmaxf,
 * which would need -ffast-math to vectorise). Written once for combine and combine2 below, which each expand it over
 * their own restrict parameters. */
#define COMBINE_LOOPS(op, out, a, b, n)                                                                                \
    switch (op) {                                                                                                      \
    case HCL_COMM_SUM:                                                                                                 \
        for (size_t i = 0; i < (n); i++) (out)[i] = (a)[i] + (b)[i];                                                   \
        break;                                                                                                         \
    case HCL_COMM_PROD:                                                                                                \
        for (size_t i = 0; i < (n); i++) (out)[i] = (a)[i] * (b)[i];                                                   \
        break;                                                                                                         \
    case HCL_COMM_MAX:                                                                                                 \
        for (size_t i = 0; i < (n); i++) (out)[i] = (b)[i] > (a)[i] ? (b)[i] : (a)[i];                                 \
        break;                                                                                                         \
    case HCL_COMM_MIN:                                                                                                 \
        for (size_t i = 0; i < (n); i++) (out)[i] = (b)[i] < (a)[i] ? (b)[i] : (a)[i];                                 \
        break;                                                                                                         \
    }

/* a[i] = op(a[i], b[i]). */
static void combine(hcl_comm_op op, float *restrict a, const float *restrict b, size_t n) {
    COMBINE_LOOPS(op, a, a, b, n)
}

/* out[i] = op(a[i], b[i]): the first two ranks in one pass, without copying the first. Kept apart from combine: one
 * loop serving both (out == a for in place, no restrict) measured 1.7x slower in place at -O3, as gcc then versions it
 * for aliasing. */
static void combine2(hcl_comm_op op, float *restrict out, const float *restrict a, const float *restrict b, size_t n) {
    COMBINE_LOOPS(op, out, a, b, n)
}

#define WIDEN_BLOCK 2048 /* floats widened at a time from 16-bit input (on the stack) */

void hcl__comm_reduce_f32(hcl_comm_op op, float *acc, const void *src, hcl_dtype type, size_t n, int first) {
    if (type == HCL_DTYPE_F32) {
        if (first)
            memcpy(acc, src, n * sizeof(float));
        else
            combine(op, acc, src, n);
        return;
    }
    if (first) {
        hcl__host_widen(type, src, acc, n);
        return;
    }
    float tmp[WIDEN_BLOCK];
    const uint16_t *s = src;
    for (size_t i = 0; i < n; i += WIDEN_BLOCK) {
        const size_t m = n - i < WIDEN_BLOCK ? n - i : WIDEN_BLOCK;
        hcl__host_widen(type, s + i, tmp, m);
        combine(op, acc + i, tmp, m);
    }
}

void hcl__comm_reduce_typed(hcl_comm_op op, hcl_dtype type, void *inout, const void *in, size_t n) {
    if (type == HCL_DTYPE_F32) {
        combine(op, inout, in, n);
        return;
    }
    float a[WIDEN_BLOCK], b[WIDEN_BLOCK];
    uint16_t *io = inout;
    const uint16_t *s = in;
    for (size_t i = 0; i < n; i += WIDEN_BLOCK) {
        const size_t m = n - i < WIDEN_BLOCK ? n - i : WIDEN_BLOCK;
        hcl__host_widen(type, io + i, a, m);
        hcl__host_widen(type, s + i, b, m);
        combine(op, a, b, m);
        hcl__host_narrow(type, a, io + i, m);
    }
}

hcl_status hcl__comm_side_queue(hcl__queue *side, hcl__queue *q) {
    const hcl_driver_table *d = q->dev->drv;
    hcl_status st;
    if (!side->native) {
        if ((st = d->queue_create(q->dev->native, &side->native)) != HCL_SUCCESS) {
            side->native = NULL;
            return hcl__prefix_message(st, "creating a queue for a communicator");
        }
        side->dev = q->dev;
        hcl__device_ref(q->dev);
    }
    void *before = NULL, *after = NULL;
    if ((st = d->queue_marker(q->native, 0, NULL, &before)) == HCL_SUCCESS)
        st = d->queue_marker(side->native, 1, &before, &after);
    if (before) d->event_release(before);
    if (after) d->event_release(after);
    return st == HCL_SUCCESS ? st : hcl__prefix_message(st, "ordering a communicator's queue");
}

void hcl__comm_side_queue_free(hcl__queue *side) {
    if (!side->native) return;
    side->dev->drv->queue_finish(side->native); /* every command was waited for; finish anyway, as queue_release does */
    hcl__builtins_queue_release(side);
    side->dev->drv->queue_destroy(side->native);
    hcl__device_unref(side->dev);
    side->native = NULL;
    side->dev = NULL;
}

hcl_status hcl__comm_scratch_reserve(hcl__buffer *b, hcl__device *dev, size_t bytes, const char *what) {
    if (b->native && b->size < bytes) hcl__comm_scratch_free(b);
    if (b->native) return HCL_SUCCESS;
    hcl_status st = dev->drv->buffer_alloc(dev->native, bytes, &b->native);
    if (st != HCL_SUCCESS) {
        b->native = NULL;
        return hcl__prefix_message(st, what);
    }
    b->dev = dev, b->size = bytes;
    hcl__device_ref(dev);
    return HCL_SUCCESS;
}

void hcl__comm_scratch_free(hcl__buffer *b) {
    if (!b->native) return;
    b->dev->drv->buffer_free(b->dev->native, b->native);
    hcl__device_unref(b->dev);
    b->native = NULL;
    b->dev = NULL;
    b->size = 0;
}

/* Floats combined per task: a chunk is combined block by block on the host's cores (OpenMP, where the build has it). */
#define COMBINE_BLOCK ((size_t)1 << 16)

void hcl__comm_combine_ranks(hcl_comm_op op, hcl_dtype type, float *acc, const unsigned char *in, size_t stride,
                             uint32_t ranks, size_t n, int max_threads) {
    const size_t es = hcl_dtype_size(type), blocks = (n + COMBINE_BLOCK - 1) / COMBINE_BLOCK;
#ifdef _OPENMP
    const int threads = omp_get_max_threads() < max_threads ? omp_get_max_threads() : max_threads;
#pragma omp parallel for schedule(static) num_threads(threads) if (blocks > 1 && threads > 1)
#else
    (void)max_threads;
#endif
    for (size_t b = 0; b < blocks; b++) {
        const size_t lo = b * COMBINE_BLOCK, m = n - lo < COMBINE_BLOCK ? n - lo : COMBINE_BLOCK;
        const unsigned char *src = in + lo * es;
        uint32_t r = 0;
        if (type == HCL_DTYPE_F32 && ranks >= 2) {
            combine2(op, acc + lo, (const float *)src, (const float *)(src + stride), m);
            r = 2;
        }
        for (; r < ranks; r++) hcl__comm_reduce_f32(op, acc + lo, src + r * stride, type, m, r == 0);
    }
}

void hcl__comm_narrow(hcl_dtype type, const float *src, void *dst, size_t n) { hcl__host_narrow(type, src, dst, n); }

const char *hcl__coll_name(hcl__coll_kind kind) {
#define COLL_NAME(id, name) name,
    static const char *const names[] = {HCL__COLL_KINDS(COLL_NAME)};
#undef COLL_NAME
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *hcl__comm_op_name(hcl_comm_op op) {
    static const char *const names[] = {"sum", "prod", "max", "min"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

hcl__coll_sig hcl__coll_sig_of(const hcl__coll *op) {
    return (hcl__coll_sig){.kind = (int32_t)op->kind,
                           .type = (int32_t)op->type,
                           .op = (int32_t)op->op,
                           .root = (int32_t)op->root,
                           .count = op->count};
}

int hcl__coll_sig_diff(const hcl__coll_sig *a, const hcl__coll_sig *b, const char *a_where, const char *b_where,
                       char *out, size_t size) {
    int differ = 0;
    size_t at = 0;
    out[0] = 0;
#define FIELD(cond, name, fmt, va, vb)                                                                                 \
    if (cond) {                                                                                                        \
        int n_ = snprintf(out + at, at < size ? size - at : 0, "%s" name " " fmt " %s, " fmt " %s",                    \
                          differ ? "; " : "", va, a_where, vb, b_where);                                               \
        at += n_ > 0 ? (size_t)n_ : 0;                                                                                 \
        differ++;                                                                                                      \
    }
    FIELD(a->kind != b->kind, "collective", "%s", hcl__coll_name((hcl__coll_kind)a->kind),
          hcl__coll_name((hcl__coll_kind)b->kind))
    FIELD(a->type != b->type, "type", "%s", hcl_dtype_name((hcl_dtype)a->type), hcl_dtype_name((hcl_dtype)b->type))
    FIELD(a->op != b->op, "op", "%s", hcl__comm_op_name((hcl_comm_op)a->op), hcl__comm_op_name((hcl_comm_op)b->op))
    FIELD(a->root != b->root, "root", "%d", (int)a->root, (int)b->root)
    FIELD(a->count != b->count, "count", "%llu", (unsigned long long)a->count, (unsigned long long)b->count)
#undef FIELD
    return differ;
}
void hcl__comm_first_note(hcl__comm_first_failure *f, hcl_status st) {
    if (st == HCL_SUCCESS || f->status != HCL_SUCCESS) return;
    f->status = st;
    snprintf(f->why, sizeof f->why, "%s", hcl_last_message());
}

hcl_status hcl__comm_first_result(const hcl__comm_first_failure *f) {
    return f->status == HCL_SUCCESS ? HCL_SUCCESS : hcl__set_message(f->status, "%s", f->why);
}
