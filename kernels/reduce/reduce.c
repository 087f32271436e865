/* Host reduce: sum, max or min of n floats, deterministic.
 *
 * The input is cut into chunks whose size depends on n only (at least HCL_REDUCE_CHUNK_MIN elements, at
 * most HCL_REDUCE_MAX_CHUNKS chunks), never on the number of threads. Each chunk is reduced with
 * HCL_REDUCE_LANES independent accumulators (which vectorise without reassociating anything, so the result
 * does not depend on the vector width either), the lanes are combined pairwise, and the chunk results are
 * combined in chunk order. Threads only decide who computes which chunk, not what is computed.
 * Sums accumulate in double (each lane sees at most n / (chunks * lanes) terms), then round once.
 * 16-bit inputs are widened exactly and reduced with the same lanes in the same order, so their result is the float32
 * reduction of the widened values, bit for bit: in registers where the CPU has AVX-512F or AVX2 + F16C
 * (hcl_host_simd.h; through a buffer, the stores and reloads halved the rate), else through a float buffer on the stack.
 */
#include "hcl_host_kernels.h"
#include "hcl_host_simd.h"

#include <math.h>
#include <stdint.h>

#define HCL_REDUCE_LANES 16
#define HCL_REDUCE_CHUNK_MIN 16384
#define HCL_REDUCE_MAX_CHUNKS 1024

/* Each chunk reduction in two steps, so that the 16-bit forms share them: `_lanes` adds the first n - n % LANES
 * elements into the lanes (element j to lane j % LANES, in order), `_finish` the remaining ones (lane by lane from
 * lane 0) and combines the lanes pairwise. NaN never wins a comparison, so NaN inputs are skipped (as fmaxf/fminf do). */
static size_t hcl_reduce_sum_lanes(double *lane, const float *restrict x, size_t n) {
    size_t j = 0;
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] += (double)x[j + l];
    }
    return j;
}

static double hcl_reduce_sum_finish(double *lane, const float *x, size_t n) {
    for (size_t l = 0; l < n; ++l) lane[l] += (double)x[l];
    for (int width = HCL_REDUCE_LANES / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
    return lane[0];
}

static size_t hcl_reduce_max_lanes(float *lane, const float *restrict x, size_t n) {
    size_t j = 0;
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] = x[j + l] > lane[l] ? x[j + l] : lane[l];
    }
    return j;
}

static float hcl_reduce_max_finish(float *lane, const float *x, size_t n) {
    for (size_t l = 0; l < n; ++l) lane[l] = x[l] > lane[l] ? x[l] : lane[l];
    for (int width = HCL_REDUCE_LANES / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] = lane[l + width] > lane[l] ? lane[l + width] : lane[l];
    return lane[0];
}

static size_t hcl_reduce_min_lanes(float *lane, const float *restrict x, size_t n) {
    size_t j = 0;
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_REDUCE_LANES; ++l) lane[l] = x[j + l] < lane[l] ? x[j + l] : lane[l];
    }
    return j;
}

static float hcl_reduce_min_finish(float *lane, const float *x, size_t n) {
    for (size_t l = 0; l < n; ++l) lane[l] = x[l] < lane[l] ? x[l] : lane[l];
    for (int width = HCL_REDUCE_LANES / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] = lane[l + width] < lane[l] ? lane[l + width] : lane[l];
    return lane[0];
}

/* The lanes' starting values and the whole reduction of n floats. */
typedef struct hcl_reduce_lanes {
    double sum[HCL_REDUCE_LANES];
    float ext[HCL_REDUCE_LANES]; /* max or min */
} hcl_reduce_lanes;

static void hcl_reduce_lanes_init(int op, hcl_reduce_lanes *lanes) {
    for (int l = 0; l < HCL_REDUCE_LANES; ++l) {
        lanes->sum[l] = 0.0;
        lanes->ext[l] = op == HCL__HOST_REDUCE_MAX ? -INFINITY : INFINITY;
    }
}

static size_t hcl_reduce_lanes_add(int op, hcl_reduce_lanes *lanes, const float *x, size_t n) {
    return op == HCL__HOST_REDUCE_SUM   ? hcl_reduce_sum_lanes(lanes->sum, x, n)
           : op == HCL__HOST_REDUCE_MAX ? hcl_reduce_max_lanes(lanes->ext, x, n)
                                        : hcl_reduce_min_lanes(lanes->ext, x, n);
}

static double hcl_reduce_lanes_finish(int op, hcl_reduce_lanes *lanes, const float *x, size_t n) {
    return op == HCL__HOST_REDUCE_SUM   ? hcl_reduce_sum_finish(lanes->sum, x, n)
           : op == HCL__HOST_REDUCE_MAX ? hcl_reduce_max_finish(lanes->ext, x, n)
                                        : hcl_reduce_min_finish(lanes->ext, x, n);
}

#ifdef HCL_HOST_SIMD_X86
/* The 16-bit lanes steps in registers: each returns how many leading elements it added (a multiple of the lanes). The
 * lanes get the same values in the same order as hcl_reduce_*_lanes (max_ps(x, lane) is x > lane ? x : lane). */
HCL_HOST_AVX512 static size_t hcl_reduce_lanes16_avx512(int op, hcl_dtype t, hcl_reduce_lanes *lanes, const uint16_t *x,
                                                        size_t n) {
    enum { V = HCL_REDUCE_LANES / 16 }; /* vectors of floats per step */
    size_t j = 0;
    if (op == HCL__HOST_REDUCE_SUM) {
        __m512d s[2 * V];
        for (int k = 0; k < 2 * V; ++k) s[k] = _mm512_loadu_pd(lanes->sum + 8 * k);
        for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES)
            for (int k = 0; k < V; ++k) {
                const __m512 v = hcl__load16_avx512(t, x + j + 16 * k);
                const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
                s[2 * k] = _mm512_add_pd(s[2 * k], _mm512_cvtps_pd(_mm512_castps512_ps256(v)));
                s[2 * k + 1] = _mm512_add_pd(s[2 * k + 1], _mm512_cvtps_pd(hi));
            }
        for (int k = 0; k < 2 * V; ++k) _mm512_storeu_pd(lanes->sum + 8 * k, s[k]);
        return j;
    }
    __m512 e[V];
    for (int k = 0; k < V; ++k) e[k] = _mm512_loadu_ps(lanes->ext + 16 * k);
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES)
        for (int k = 0; k < V; ++k) {
            const __m512 v = hcl__load16_avx512(t, x + j + 16 * k);
            e[k] = op == HCL__HOST_REDUCE_MAX ? _mm512_max_ps(v, e[k]) : _mm512_min_ps(v, e[k]);
        }
    for (int k = 0; k < V; ++k) _mm512_storeu_ps(lanes->ext + 16 * k, e[k]);
    return j;
}

HCL_HOST_AVX2 static size_t hcl_reduce_lanes16_avx2(int op, hcl_dtype t, hcl_reduce_lanes *lanes, const uint16_t *x,
                                                    size_t n) {
    enum { V = HCL_REDUCE_LANES / 8 }; /* vectors of floats per step */
    size_t j = 0;
    if (op == HCL__HOST_REDUCE_SUM) {
        __m256d s[2 * V];
        for (int k = 0; k < 2 * V; ++k) s[k] = _mm256_loadu_pd(lanes->sum + 4 * k);
        for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES)
            for (int k = 0; k < V; ++k) {
                const __m256 v = hcl__load8_avx2(t, x + j + 8 * k);
                s[2 * k] = _mm256_add_pd(s[2 * k], _mm256_cvtps_pd(_mm256_castps256_ps128(v)));
                s[2 * k + 1] = _mm256_add_pd(s[2 * k + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)));
            }
        for (int k = 0; k < 2 * V; ++k) _mm256_storeu_pd(lanes->sum + 4 * k, s[k]);
        return j;
    }
    __m256 e[V];
    for (int k = 0; k < V; ++k) e[k] = _mm256_loadu_ps(lanes->ext + 8 * k);
    for (; j + HCL_REDUCE_LANES <= n; j += HCL_REDUCE_LANES)
        for (int k = 0; k < V; ++k) {
            const __m256 v = hcl__load8_avx2(t, x + j + 8 * k);
            e[k] = op == HCL__HOST_REDUCE_MAX ? _mm256_max_ps(v, e[k]) : _mm256_min_ps(v, e[k]);
        }
    for (int k = 0; k < V; ++k) _mm256_storeu_ps(lanes->ext + 8 * k, e[k]);
    return j;
}
#endif

/* The reduction of one chunk of `len` elements of `type` starting at element `begin`. 16-bit elements that the vector
 * code does not take are widened in pieces of HCL_REDUCE_PIECE floats (a multiple of the lanes) on the stack. */
#define HCL_REDUCE_PIECE 2048
static double hcl_reduce_chunk(int op, hcl_dtype type, const void *in, size_t begin, size_t len) {
    hcl_reduce_lanes lanes;
    hcl_reduce_lanes_init(op, &lanes);
    if (type == HCL_DTYPE_F32) {
        const float *x = (const float *)in + begin;
        const size_t done = hcl_reduce_lanes_add(op, &lanes, x, len);
        return hcl_reduce_lanes_finish(op, &lanes, x + done, len - done);
    }
    const uint16_t *x = (const uint16_t *)in + begin;
    size_t done = 0;
#ifdef HCL_HOST_SIMD_X86
    switch (hcl__host_isa()) {
    case HCL__HOST_ISA_AVX512: done = hcl_reduce_lanes16_avx512(op, type, &lanes, x, len); break;
    case HCL__HOST_ISA_AVX2: done = hcl_reduce_lanes16_avx2(op, type, &lanes, x, len); break;
    }
#endif
    float piece[HCL_REDUCE_PIECE];
    for (;;) {
        const size_t plen = len - done < HCL_REDUCE_PIECE ? len - done : HCL_REDUCE_PIECE;
        hcl__host_widen(type, x + done, piece, plen);
        const size_t added = hcl_reduce_lanes_add(op, &lanes, piece, plen);
        done += added;
        if (added < plen || done == len) return hcl_reduce_lanes_finish(op, &lanes, piece + added, plen - added);
    }
}

static int hcl_reduce_all_nan(const float *x, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (x[i] == x[i]) return 0;
    return 1;
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
void hcl__host_reduce_f32_kernel(const hcl_host_launch *launch, void *const *args) {
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
