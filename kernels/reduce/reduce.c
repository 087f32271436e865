/* Host reduce: sum, max or min of n floats, deterministic.
 *
 * The input is cut into chunks whose size depends on n only (at least HCL_REDUCE_CHUNK_MIN elements, at
 * most HCL_REDUCE_MAX_CHUNKS chunks), never on the number of threads. Each chunk is reduced with
 * HCL_REDUCE_LANES independent accumulators (which vectorise without reassociating anything, so the result
 * does not depend on the vector width either), the lanes are combined pairwise, and the chunk results are
 * combined in chunk order. Threads only decide who computes which chunk, not what is computed.
 * Sums accumulate in double (each lane sees at most n / (chunks * lanes) terms), then round once.
 */
#include "hcl_host_kernels.h"

#include <math.h>
#include <stdint.h>

#define HCL_REDUCE_LANES 16
#define HCL_REDUCE_CHUNK_MIN 16384
#define HCL_REDUCE_MAX_CHUNKS 1024

static double hcl_reduce_chunk_sum(const float *restrict x, size_t n) {
    double lane[HCL_REDUCE_LANES];
    for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] = 0.0;
    size_t j = 0;
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] += (double)x[j + l];
    }
    for (int l = 0; j < n; ++j, ++l) lane[l] += (double)x[j];
    for (int width = HCL_REDUCE_LANES / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
    return lane[0];
}

/* NaN never wins a comparison, so NaN inputs are skipped (as fmaxf/fminf do). */
static float hcl_reduce_chunk_max(const float *restrict x, size_t n) {
    float lane[HCL_REDUCE_LANES];
    for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] = -INFINITY;
    size_t j = 0;
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] = x[j + l] > lane[l] ? x[j + l] : lane[l];
    }
    for (int l = 0; j < n; ++j, ++l) lane[l] = x[j] > lane[l] ? x[j] : lane[l];
    for (int width = HCL_REDUCE_LANES / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] = lane[l + width] > lane[l] ? lane[l + width] : lane[l];
    return lane[0];
}

static float hcl_reduce_chunk_min(const float *restrict x, size_t n) {
    float lane[HCL_REDUCE_LANES];
    for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] = INFINITY;
    size_t j = 0;
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] = x[j + l] < lane[l] ? x[j + l] : lane[l];
    }
    for (int l = 0; j < n; ++j, ++l) lane[l] = x[j] < lane[l] ? x[j] : lane[l];
    for (int width = HCL_REDUCE_LANES / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] = lane[l + width] < lane[l] ? lane[l + width] : lane[l];
    return lane[0];
}

static int hcl_reduce_all_nan(const float *x, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (x[i] == x[i]) return 0;
    return 1;
}

/* The reduction of one chunk of `len` elements of `type` starting at element `begin`: 16-bit chunks are widened in
 * pieces of HCL_REDUCE_PIECE floats (on the stack), each piece reduced as a float chunk and the pieces combined in
 * order, so the result depends on n only, as for f32. */
#define HCL_REDUCE_PIECE 2048
static double hcl_reduce_chunk(int op, hcl_dtype type, const void *in, size_t begin, size_t len) {
    if (type == HCL_DTYPE_F32) {
        const float *x = (const float *)in + begin;
        return op == HCL__HOST_REDUCE_SUM   ? hcl_reduce_chunk_sum(x, len)
               : op == HCL__HOST_REDUCE_MAX ? hcl_reduce_chunk_max(x, len)
                                            : hcl_reduce_chunk_min(x, len);
    }
    float piece[HCL_REDUCE_PIECE];
    double result = op == HCL__HOST_REDUCE_SUM ? 0.0 : op == HCL__HOST_REDUCE_MAX ? -INFINITY : INFINITY;
    for (size_t p = 0; p < len; p += HCL_REDUCE_PIECE) {
        const size_t plen = len - p < HCL_REDUCE_PIECE ? len - p : HCL_REDUCE_PIECE;
        hcl__host_widen(type, (const uint16_t *)in + begin + p, piece, plen);
        if (op == HCL__HOST_REDUCE_SUM) {
            result += hcl_reduce_chunk_sum(piece, plen);
        } else if (op == HCL__HOST_REDUCE_MAX) {
            const double v = hcl_reduce_chunk_max(piece, plen);
            result = v > result ? v : result;
        } else {
            const double v = hcl_reduce_chunk_min(piece, plen);
            result = v < result ? v : result;
        }
    }
    return result;
}

static int hcl_reduce_all_nan_typed(hcl_dtype type, const void *in, size_t n) {
    if (type == HCL_DTYPE_F32) return hcl_reduce_all_nan(in, n);
    const uint16_t *x = in;
    const uint16_t exp_mask = type == HCL_DTYPE_F16 ? 0x7c00u : 0x7f80u,
                   frac_mask = type == HCL_DTYPE_F16 ? 0x3ffu : 0x7fu;
    for (size_t i = 0; i < n; ++i)
        if ((x[i] & exp_mask) != exp_mask || !(x[i] & frac_mask)) return 0;
    return 1;
}

/* hcl__host_reduce_f32 over elements of any type. */
static int hcl_reduce_typed(int op, hcl_dtype type, size_t n, const void *in, float *out) {
    if (op != HCL__HOST_REDUCE_SUM && op != HCL__HOST_REDUCE_MAX && op != HCL__HOST_REDUCE_MIN) return -1;
    if (n == 0) {
        out[0] = op == HCL__HOST_REDUCE_SUM ? 0.0f : op == HCL__HOST_REDUCE_MAX ? -INFINITY : INFINITY;
        return 0;
    }
    size_t chunk = (n + HCL_REDUCE_MAX_CHUNKS - 1) / HCL_REDUCE_MAX_CHUNKS;
    chunk = (chunk + 63) / 64 * 64;
    if (chunk < HCL_REDUCE_CHUNK_MIN) chunk = HCL_REDUCE_CHUNK_MIN;
    const long long chunks = (long long)((n + chunk - 1) / chunk);
    double partial[HCL_REDUCE_MAX_CHUNKS];
    partial[0] = 0.0; /* chunks >= 1 always writes it; this only tells the compiler so */

    HCL__OMP(omp parallel for schedule(static) if (chunks > 1))
    for (long long q = 0; q < chunks; ++q) {
        const size_t begin = (size_t)q * chunk;
        partial[q] = hcl_reduce_chunk(op, type, in, begin, n - begin < chunk ? n - begin : chunk);
    }

    double result = partial[0];
    for (long long q = 1; q < chunks; ++q) {
        if (op == HCL__HOST_REDUCE_SUM)
            result += partial[q];
        else if (op == HCL__HOST_REDUCE_MAX)
            result = partial[q] > result ? partial[q] : result;
        else
            result = partial[q] < result ? partial[q] : result;
    }
    /* The identity survives only when every input was the identity or NaN: all NaN gives NaN (fmaxf). */
    if (op == HCL__HOST_REDUCE_MAX && result == -INFINITY && hcl_reduce_all_nan_typed(type, in, n)) result = NAN;
    if (op == HCL__HOST_REDUCE_MIN && result == INFINITY && hcl_reduce_all_nan_typed(type, in, n)) result = NAN;
    out[0] = (float)result;
    return 0;
}

int hcl__host_reduce_f32(int op, size_t n, const float *in, float *out) {
    return hcl_reduce_typed(op, HCL_DTYPE_F32, n, in, out);
}

/* The host-table form (hcl_host_kernels.h): one work-group runs the whole call (the op was checked by the core). */
void hcl__host_reduce_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    (void)hcl__host_reduce_f32((int)*(const uint32_t *)args[3], (size_t) * (const uint64_t *)args[2],
                               *(const float *const *)args[0], *(float *const *)args[1]);
}

void hcl__host_reduce_f16_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    (void)hcl_reduce_typed((int)*(const uint32_t *)args[3], HCL_DTYPE_F16, (size_t) * (const uint64_t *)args[2],
                           *(const void *const *)args[0], *(float *const *)args[1]);
}

void hcl__host_reduce_bf16_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    (void)hcl_reduce_typed((int)*(const uint32_t *)args[3], HCL_DTYPE_BF16, (size_t) * (const uint64_t *)args[2],
                           *(const void *const *)args[0], *(float *const *)args[1]);
}
