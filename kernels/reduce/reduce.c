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

int hcl__host_reduce_f32(int op, size_t n, const float *in, float *out) {
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
        const size_t len = n - begin < chunk ? n - begin : chunk;
        if (op == HCL__HOST_REDUCE_SUM)
            partial[q] = hcl_reduce_chunk_sum(in + begin, len);
        else if (op == HCL__HOST_REDUCE_MAX)
            partial[q] = hcl_reduce_chunk_max(in + begin, len);
        else
            partial[q] = hcl_reduce_chunk_min(in + begin, len);
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
    if (op == HCL__HOST_REDUCE_MAX && result == -INFINITY && hcl_reduce_all_nan(in, n)) result = NAN;
    if (op == HCL__HOST_REDUCE_MIN && result == INFINITY && hcl_reduce_all_nan(in, n)) result = NAN;
    out[0] = (float)result;
    return 0;
}

/* The host-table form (hcl_host_kernels.h): one work-group runs the whole call (the op was checked by the core). */
void hcl__host_reduce_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    (void)hcl__host_reduce_f32((int)*(const uint32_t *)args[3], (size_t) * (const uint64_t *)args[2],
                               *(const float *const *)args[0], *(float *const *)args[1]);
}
