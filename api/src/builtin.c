/* Built-in kernels: shapes validated against the buffers here, then run as launches of the device's built-in
 * programs (builtin_runner.c, following kernels/<op>/plan.c). Empty shapes launch nothing: they complete through a
 * marker (or, for reduce, a write of the identity). */
#include "core.h"

#include <math.h>
#include <stdio.h>

typedef struct builtin_ctx {
    const char *fn;
    hcl__queue *q;
} builtin_ctx;

static hcl_status get_queue(const char *fn, hcl_queue queue, builtin_ctx *ctx) {
    ctx->fn = fn;
    return hcl__lookup(queue, HCL__H_QUEUE, (void **)&ctx->q, fn, "queue");
}

/* Look up a buffer of the queue's device holding at least `elems` floats (elems_ok 0: overflowed). */
static hcl_status get_floats(const builtin_ctx *ctx, hcl_buffer handle, const char *what, size_t elems, int elems_ok,
                             hcl__buffer **out) {
    hcl__buffer *b;
    hcl_status st = hcl__lookup(handle, HCL__H_BUFFER, (void **)&b, ctx->fn, what);
    if (st != HCL_SUCCESS) return st;
    if (b->dev != ctx->q->dev)
        return hcl__set_message(HCL_ERROR_DEVICE_MISMATCH, "%s: %s belongs to another device than the queue", ctx->fn,
                                what);
    if (!elems_ok)
        return hcl__set_message(HCL_ERROR_OUT_OF_RANGE, "%s: the shape of %s overflows the address space", ctx->fn,
                                what);
    if (elems > b->size / sizeof(float))
        return hcl__set_message(HCL_ERROR_OUT_OF_RANGE, "%s: %s needs %zu floats (%zu bytes) but holds %zu bytes",
                                ctx->fn, what, elems, elems * sizeof(float), b->size);
    *out = b;
    return HCL_SUCCESS;
}

/* Elements spanned by a rows x cols matrix with leading dimension ld; 0 if empty. Returns 0 on overflow. */
static int span(size_t rows, size_t cols, size_t ld, size_t *out) {
    if (rows == 0 || cols == 0) {
        *out = 0;
        return 1;
    }
    size_t t;
    if (__builtin_mul_overflow(rows - 1, ld, &t) || __builtin_add_overflow(t, cols, out) || *out > SIZE_MAX / 4)
        return 0;
    return 1;
}

static hcl_status empty_op(const builtin_ctx *ctx, hcl_event *out_event) {
    if (!out_event) return HCL_SUCCESS;
    void *native = NULL;
    hcl_status st = ctx->q->dev->drv->queue_marker(ctx->q->native, 0, NULL, &native);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, ctx->fn);
    return hcl__wrap_event(ctx->fn, ctx->q->dev, native, out_event);
}

static hcl_status finish_op(const builtin_ctx *ctx, hcl_status st, void *native, hcl_event *out_event) {
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, ctx->fn);
    return hcl__wrap_event(ctx->fn, ctx->q->dev, native, out_event);
}

/* Run the call as launches of the built-in programs or, when its shape is empty, complete it through a marker. */
static hcl_status run(const builtin_ctx *ctx, int empty, hcl__builtin_call *call, hcl__buffer *a, hcl__buffer *b,
                      hcl__buffer *c, hcl_event *out_event) {
    if (empty) return empty_op(ctx, out_event);
    call->mem[HCL_KSLOT_A] = a ? a->native : NULL;
    call->mem[HCL_KSLOT_B] = b ? b->native : NULL;
    call->mem[HCL_KSLOT_C] = c ? c->native : NULL;
    return hcl__builtin_run(ctx->fn, ctx->q, call, out_event);
}

HCL_API hcl_status hcl_vecadd_f32(hcl_queue queue, size_t n, hcl_buffer a, hcl_buffer b, hcl_buffer c,
                                  hcl_event *out_event) {
    builtin_ctx ctx;
    hcl__buffer *ba, *bb, *bc;
    hcl_status st = get_queue("hcl_vecadd_f32", queue, &ctx);
    int ok = n <= SIZE_MAX / 4;
    if (st == HCL_SUCCESS) st = get_floats(&ctx, a, "a", n, ok, &ba);
    if (st == HCL_SUCCESS) st = get_floats(&ctx, b, "b", n, ok, &bb);
    if (st == HCL_SUCCESS) st = get_floats(&ctx, c, "c", n, ok, &bc);
    if (st != HCL_SUCCESS) return st;
    hcl__builtin_call call = {.op = HCL_KOP_VECADD, .n = n};
    return run(&ctx, n == 0, &call, ba, bb, bc, out_event);
}

HCL_API hcl_status hcl_gemm_f32(hcl_queue queue, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n,
                                size_t k, float alpha, hcl_buffer a, size_t lda, hcl_buffer b, size_t ldb, float beta,
                                hcl_buffer c, size_t ldc, hcl_event *out_event) {
    builtin_ctx ctx;
    hcl_status st = get_queue("hcl_gemm_f32", queue, &ctx);
    if (st != HCL_SUCCESS) return st;
    const char *fn = ctx.fn;
    if ((trans_a != HCL_NO_TRANS && trans_a != HCL_TRANS) || (trans_b != HCL_NO_TRANS && trans_b != HCL_TRANS))
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: trans_a %d / trans_b %d must be HCL_NO_TRANS or HCL_TRANS", fn, (int)trans_a,
                                (int)trans_b);
    /* Stored shapes (row-major): A is m x k, or k x m when transposed; likewise B. */
    size_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
    size_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
    if (lda < (a_cols ? a_cols : 1) || ldb < (b_cols ? b_cols : 1) || ldc < (n ? n : 1))
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: leading dimensions lda %zu, ldb %zu, ldc %zu must be at least %zu, %zu, %zu", fn,
                                lda, ldb, ldc, a_cols ? a_cols : 1, b_cols ? b_cols : 1, n ? n : (size_t)1);
    if (!isfinite(alpha) && k > 0 && m > 0 && n > 0) hcl__log(HCL_LOG_DEBUG, "core", "%s: alpha is not finite", fn);
    size_t ea = 0, eb = 0, ec = 0;
    int oka = span(a_rows, a_cols, lda, &ea), okb = span(b_rows, b_cols, ldb, &eb), okc = span(m, n, ldc, &ec);
    hcl__buffer *ba, *bb, *bc;
    if ((st = get_floats(&ctx, a, "a", ea, oka, &ba)) != HCL_SUCCESS ||
        (st = get_floats(&ctx, b, "b", eb, okb, &bb)) != HCL_SUCCESS ||
        (st = get_floats(&ctx, c, "c", ec, okc, &bc)) != HCL_SUCCESS)
        return st;
    if (bc == ba || bc == bb)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: c must not be the same buffer as a or b", fn);
    hcl__builtin_call call = {.op = HCL_KOP_GEMM, .gemm = {trans_a, trans_b, m, n, k, alpha, beta, lda, ldb, ldc}};
    return run(&ctx, m == 0 || n == 0, &call, ba, bb, bc, out_event);
}

HCL_API hcl_status hcl_softmax_f32(hcl_queue queue, size_t rows, size_t cols, hcl_buffer in, hcl_buffer out,
                                   hcl_event *out_event) {
    size_t elems;
    int ok = !__builtin_mul_overflow(rows, cols, &elems) && elems <= SIZE_MAX / 4;
    builtin_ctx ctx;
    hcl_status st = get_queue("hcl_softmax_f32", queue, &ctx);
    if (st != HCL_SUCCESS) return st;
    hcl__buffer *bi, *bo;
    if ((st = get_floats(&ctx, in, "in", elems, ok, &bi)) != HCL_SUCCESS ||
        (st = get_floats(&ctx, out, "out", elems, ok, &bo)) != HCL_SUCCESS)
        return st;
    hcl__builtin_call call = {.op = HCL_KOP_SOFTMAX, .rows = rows, .cols = cols};
    return run(&ctx, rows == 0 || cols == 0, &call, bi, NULL, bo, out_event);
}

HCL_API hcl_status hcl_reduce_f32(hcl_queue queue, hcl_reduce_op op, size_t n, hcl_buffer in, hcl_buffer out,
                                  hcl_event *out_event) {
    builtin_ctx ctx;
    hcl_status st = get_queue("hcl_reduce_f32", queue, &ctx);
    if (st != HCL_SUCCESS) return st;
    if (op != HCL_REDUCE_SUM && op != HCL_REDUCE_MAX && op != HCL_REDUCE_MIN)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: op %d is not an hcl_reduce_op", ctx.fn, (int)op);
    hcl__buffer *bi, *bo;
    if ((st = get_floats(&ctx, in, "in", n, n <= SIZE_MAX / 4, &bi)) != HCL_SUCCESS ||
        (st = get_floats(&ctx, out, "out", 1, 1, &bo)) != HCL_SUCCESS)
        return st;
    if (bi == bo)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: out must not be the same buffer as in", ctx.fn);
    if (n == 0) {
        static const float identity[3] = {0.0f, -INFINITY, INFINITY};
        void *native = NULL;
        st = ctx.q->dev->drv->buffer_write(ctx.q->native, bo->native, 0, sizeof(float), &identity[op], 0, 0, NULL,
                                           out_event ? &native : NULL);
        return finish_op(&ctx, st, native, out_event);
    }
    hcl__builtin_call call = {.op = HCL_KOP_REDUCE, .reduce_op = op, .n = n};
    return run(&ctx, 0, &call, bi, NULL, bo, out_event);
}
