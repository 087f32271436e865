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

/* A buffer of the queue's device holding `elems` elements of `type` (hcl__lookup_elems). */
static hcl_status get_elems(const builtin_ctx *ctx, hcl_buffer handle, const char *what, hcl_dtype type, size_t elems,
                            int elems_ok, hcl__buffer **out) {
    return hcl__lookup_elems(ctx->fn, ctx->q->dev, handle, what, type, elems, elems_ok, out);
}

/* A type argument that is an hcl_dtype. */
static hcl_status check_type(const builtin_ctx *ctx, const char *what, hcl_dtype type) {
    if (hcl_dtype_size(type)) return HCL_SUCCESS;
    return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: %s %d is not an hcl_dtype", ctx->fn, what, (int)type);
}

/* Elements spanned by a rows x cols matrix with leading dimension ld; 0 if empty. Returns 0 on overflow. */
static int span(size_t rows, size_t cols, size_t ld, size_t *out) {
    if (rows == 0 || cols == 0) {
        *out = 0;
        return 1;
    }
    size_t t;
    if (__builtin_mul_overflow(rows - 1, ld, &t) || __builtin_add_overflow(t, cols, out)) return 0;
    return 1;
}

static hcl_status empty_op(const builtin_ctx *ctx, hcl_event *out_event) {
    if (!out_event) return HCL_SUCCESS; /* nothing queued: nothing to trace either */
    void *native = NULL;
    hcl_status st = ctx->q->dev->drv->queue_marker(ctx->q->native, 0, NULL, &native);
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, ctx->fn);
    return hcl__wrap_event(ctx->fn, ctx->q, native, out_event);
}

static hcl_status finish_op(const builtin_ctx *ctx, hcl_status st, void *native, hcl_event *out_event) {
    if (st != HCL_SUCCESS) return hcl__prefix_message(st, ctx->fn);
    return hcl__wrap_event(ctx->fn, ctx->q, native, out_event);
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

static hcl_status vecadd(hcl_queue queue, hcl_dtype type, size_t n, hcl_buffer a, hcl_buffer b, hcl_buffer c,
                         hcl_event *out_event) {
    builtin_ctx ctx;
    hcl__buffer *ba, *bb, *bc;
    hcl_status st = get_queue("hcl_vecadd", queue, &ctx);
    if (st == HCL_SUCCESS) st = check_type(&ctx, "type", type);
    if (st == HCL_SUCCESS) st = get_elems(&ctx, a, "a", type, n, 1, &ba);
    if (st == HCL_SUCCESS) st = get_elems(&ctx, b, "b", type, n, 1, &bb);
    if (st == HCL_SUCCESS) st = get_elems(&ctx, c, "c", type, n, 1, &bc);
    if (st != HCL_SUCCESS) return st;
    hcl__builtin_call call = {.op = HCL_KOP_VECADD, .type = type, .n = n};
    return run(&ctx, n == 0, &call, ba, bb, bc, out_event);
}

HCL_API hcl_status hcl_vecadd(hcl_queue queue, hcl_dtype type, size_t n, hcl_buffer a, hcl_buffer b, hcl_buffer c,
                              hcl_event *out_event) {
    HCL__TRACED("hcl_vecadd", vecadd(queue, type, n, a, b, c, out_event), NULL, NULL, "type,n", type, n);
}

HCL_API hcl_status hcl_vecadd_f32(hcl_queue queue, size_t n, hcl_buffer a, hcl_buffer b, hcl_buffer c,
                                  hcl_event *out_event) {
    return hcl_vecadd(queue, HCL_DTYPE_F32, n, a, b, c, out_event);
}

/* The type rules of hcl_gemm (hcl.h). */
static hcl_status check_gemm_types(const builtin_ctx *ctx, hcl_dtype a_type, hcl_dtype b_type, hcl_dtype c_type,
                                   hcl_compute compute) {
    hcl_status st;
    if ((st = check_type(ctx, "a_type", a_type)) != HCL_SUCCESS ||
        (st = check_type(ctx, "b_type", b_type)) != HCL_SUCCESS ||
        (st = check_type(ctx, "c_type", c_type)) != HCL_SUCCESS)
        return st;
    if (a_type != b_type)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: a_type %s and b_type %s differ (they must be equal)",
                                ctx->fn, hcl_dtype_name(a_type), hcl_dtype_name(b_type));
    if (c_type != a_type && c_type != HCL_DTYPE_F32)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: c_type %s with %s inputs (c_type must be %s or f32)",
                                ctx->fn, hcl_dtype_name(c_type), hcl_dtype_name(a_type), hcl_dtype_name(a_type));
    if (compute != HCL_COMPUTE_F32 && compute != HCL_COMPUTE_TF32)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: compute %d is not an hcl_compute", ctx->fn,
                                (int)compute);
    if (compute == HCL_COMPUTE_TF32 && a_type != HCL_DTYPE_F32)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: HCL_COMPUTE_TF32 takes f32 inputs, not %s", ctx->fn,
                                hcl_dtype_name(a_type));
    const hcl_device_info *info = &ctx->q->dev->info;
    if (compute == HCL_COMPUTE_TF32 && !(info->matrix_types & HCL_TYPE_BIT_TF32))
        return hcl__set_message(HCL_ERROR_UNSUPPORTED,
                                "%s: %s:%u '%s' does not compute TF32 (no matrix unit that takes it through this "
                                "backend); use HCL_COMPUTE_F32",
                                ctx->fn, info->backend, info->index, info->name);
    return HCL_SUCCESS;
}

static hcl_status gemm(hcl_queue queue, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n, size_t k,
                       float alpha, hcl_dtype a_type, hcl_buffer a, size_t lda, hcl_dtype b_type, hcl_buffer b,
                       size_t ldb, float beta, hcl_dtype c_type, hcl_buffer c, size_t ldc, hcl_compute compute,
                       hcl_event *out_event) {
    builtin_ctx ctx;
    hcl_status st = get_queue("hcl_gemm", queue, &ctx);
    if (st != HCL_SUCCESS) return st;
    const char *fn = ctx.fn;
    if ((trans_a != HCL_NO_TRANS && trans_a != HCL_TRANS) || (trans_b != HCL_NO_TRANS && trans_b != HCL_TRANS))
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                "%s: trans_a %d / trans_b %d must be HCL_NO_TRANS or HCL_TRANS", fn, (int)trans_a,
                                (int)trans_b);
    if ((st = check_gemm_types(&ctx, a_type, b_type, c_type, compute)) != HCL_SUCCESS) return st;
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
    if ((st = get_elems(&ctx, a, "a", a_type, ea, oka, &ba)) != HCL_SUCCESS ||
        (st = get_elems(&ctx, b, "b", b_type, eb, okb, &bb)) != HCL_SUCCESS ||
        (st = get_elems(&ctx, c, "c", c_type, ec, okc, &bc)) != HCL_SUCCESS)
        return st;
    if (bc == ba || bc == bb)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: c must not be the same buffer as a or b", fn);
    hcl__builtin_call call = {
        .op = HCL_KOP_GEMM,
        .gemm = {trans_a, trans_b, m, n, k, alpha, beta, lda, ldb, ldc, a_type, c_type, compute},
    };
    return run(&ctx, m == 0 || n == 0, &call, ba, bb, bc, out_event);
}

HCL_API hcl_status hcl_gemm(hcl_queue queue, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n, size_t k,
                            float alpha, hcl_dtype a_type, hcl_buffer a, size_t lda, hcl_dtype b_type, hcl_buffer b,
                            size_t ldb, float beta, hcl_dtype c_type, hcl_buffer c, size_t ldc, hcl_compute compute,
                            hcl_event *out_event) {
    HCL__TRACED("hcl_gemm",
                gemm(queue, trans_a, trans_b, m, n, k, alpha, a_type, a, lda, b_type, b, ldb, beta, c_type, c, ldc,
                     compute, out_event),
                NULL, NULL, "m,n,k,trans_a,trans_b,a_type,c_type", m, n, k, trans_a, trans_b, a_type, c_type);
}

HCL_API hcl_status hcl_gemm_f32(hcl_queue queue, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n,
                                size_t k, float alpha, hcl_buffer a, size_t lda, hcl_buffer b, size_t ldb, float beta,
                                hcl_buffer c, size_t ldc, hcl_event *out_event) {
    return hcl_gemm(queue, trans_a, trans_b, m, n, k, alpha, HCL_DTYPE_F32, a, lda, HCL_DTYPE_F32, b, ldb, beta,
                    HCL_DTYPE_F32, c, ldc, HCL_COMPUTE_F32, out_event);
}

static hcl_status softmax(hcl_queue queue, hcl_dtype type, size_t rows, size_t cols, hcl_buffer in, hcl_buffer out,
                          hcl_event *out_event) {
    size_t elems;
    int ok = !__builtin_mul_overflow(rows, cols, &elems);
    builtin_ctx ctx;
    hcl_status st = get_queue("hcl_softmax", queue, &ctx);
    if (st == HCL_SUCCESS) st = check_type(&ctx, "type", type);
    if (st != HCL_SUCCESS) return st;
    hcl__buffer *bi, *bo;
    if ((st = get_elems(&ctx, in, "in", type, elems, ok, &bi)) != HCL_SUCCESS ||
        (st = get_elems(&ctx, out, "out", type, elems, ok, &bo)) != HCL_SUCCESS)
        return st;
    hcl__builtin_call call = {.op = HCL_KOP_SOFTMAX, .type = type, .rows = rows, .cols = cols};
    return run(&ctx, rows == 0 || cols == 0, &call, bi, NULL, bo, out_event);
}

HCL_API hcl_status hcl_softmax(hcl_queue queue, hcl_dtype type, size_t rows, size_t cols, hcl_buffer in, hcl_buffer out,
                               hcl_event *out_event) {
    HCL__TRACED("hcl_softmax", softmax(queue, type, rows, cols, in, out, out_event), NULL, NULL, "type,rows,cols", type,
                rows, cols);
}

HCL_API hcl_status hcl_softmax_f32(hcl_queue queue, size_t rows, size_t cols, hcl_buffer in, hcl_buffer out,
                                   hcl_event *out_event) {
    return hcl_softmax(queue, HCL_DTYPE_F32, rows, cols, in, out, out_event);
}

static hcl_status reduce(hcl_queue queue, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_buffer in, hcl_buffer out,
                         hcl_event *out_event) {
    builtin_ctx ctx;
    hcl_status st = get_queue("hcl_reduce", queue, &ctx);
    if (st == HCL_SUCCESS) st = check_type(&ctx, "type", type);
    if (st != HCL_SUCCESS) return st;
    if (op != HCL_REDUCE_SUM && op != HCL_REDUCE_MAX && op != HCL_REDUCE_MIN)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: op %d is not an hcl_reduce_op", ctx.fn, (int)op);
    hcl__buffer *bi, *bo;
    if ((st = get_elems(&ctx, in, "in", type, n, 1, &bi)) != HCL_SUCCESS ||
        (st = get_elems(&ctx, out, "out", HCL_DTYPE_F32, 1, 1, &bo)) != HCL_SUCCESS)
        return st;
    if (bi == bo)
        return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT, "%s: out must not be the same buffer as in", ctx.fn);
    if (n == 0) {
        static const float identity[3] = {0.0f, -INFINITY, INFINITY};
        void *native = NULL;
        st = ctx.q->dev->drv->buffer_write(ctx.q->native, bo->native, 0, sizeof(float), &identity[op], 0, 0, NULL,
                                           HCL__WANT_EVENT(out_event) ? &native : NULL);
        return finish_op(&ctx, st, native, out_event);
    }
    hcl__builtin_call call = {.op = HCL_KOP_REDUCE, .type = type, .reduce_op = op, .n = n};
    return run(&ctx, 0, &call, bi, NULL, bo, out_event);
}

HCL_API hcl_status hcl_reduce(hcl_queue queue, hcl_dtype type, hcl_reduce_op op, size_t n, hcl_buffer in,
                              hcl_buffer out, hcl_event *out_event) {
    HCL__TRACED("hcl_reduce", reduce(queue, type, op, n, in, out, out_event), NULL, NULL, "type,op,n", type, op, n);
}

HCL_API hcl_status hcl_reduce_f32(hcl_queue queue, hcl_reduce_op op, size_t n, hcl_buffer in, hcl_buffer out,
                                  hcl_event *out_event) {
    return hcl_reduce(queue, HCL_DTYPE_F32, op, n, in, out, out_event);
}
