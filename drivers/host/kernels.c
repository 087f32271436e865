/* The host driver's built-in kernels: the C11 sources of kernels/<name>/<name>.c, run on the driver's own
 * buffers (whose native objects are their data pointers), synchronously, timed by the event. */
#include "host.h"

#include "hcl_host_kernels.h"

hcl_status hcl__host_builtin_vecadd(void *queue, size_t n, void *a, void *b, void *c, void **out_event) {
    (void)queue;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host vecadd_f32", out_event, &event);
    if (status != HCL_SUCCESS)
        return status;
    hcl__host_vecadd_f32(n, a, b, c);
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}

hcl_status hcl__host_builtin_gemm(void *queue, const hcl_gemm_args *args, void **out_event) {
    (void)queue;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host gemm_f32", out_event, &event);
    if (status != HCL_SUCCESS)
        return status;
    if (hcl__host_gemm_f32(args->trans_a == HCL_TRANS, args->trans_b == HCL_TRANS, args->m, args->n, args->k,
                           args->alpha, args->a, args->lda, args->b, args->ldb, args->beta, args->c, args->ldc) != 0) {
        hcl__host_event_release(event);
        return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY,
                             "host gemm_f32: out of host memory for the packing buffers (m=%zu n=%zu k=%zu); C is "
                             "unchanged",
                             args->m, args->n, args->k);
    }
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}

hcl_status hcl__host_builtin_softmax(void *queue, size_t rows, size_t cols, void *in, void *out, void **out_event) {
    (void)queue;
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host softmax_f32", out_event, &event);
    if (status != HCL_SUCCESS)
        return status;
    hcl__host_softmax_f32(rows, cols, in, out);
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}

hcl_status hcl__host_builtin_reduce(void *queue, hcl_reduce_op op, size_t n, void *in, void *out, void **out_event) {
    (void)queue;
    int kernel_op;
    switch (op) {
    case HCL_REDUCE_SUM: kernel_op = HCL__HOST_REDUCE_SUM; break;
    case HCL_REDUCE_MAX: kernel_op = HCL__HOST_REDUCE_MAX; break;
    case HCL_REDUCE_MIN: kernel_op = HCL__HOST_REDUCE_MIN; break;
    default:
        return HCL_HOST_FAIL(HCL_ERROR_INVALID_ARGUMENT, "host reduce_f32: unknown reduce op %d", (int)op);
    }
    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host reduce_f32", out_event, &event);
    if (status != HCL_SUCCESS)
        return status;
    hcl__host_reduce_f32(kernel_op, n, in, out);
    hcl__host_event_end(event, out_event);
    return HCL_SUCCESS;
}
