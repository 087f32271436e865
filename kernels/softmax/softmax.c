/* Host softmax, row by row: max, then exp(x - max) and its sum, then a scale by 1 / sum.
 *
 * libm's expf is a scalar call that stops gcc from vectorising the loop, so exp has its own plain-C routine
 * (Cephes' expf: round to n = x / ln2, a degree-6 polynomial on the remainder, times 2^n built in the
 * exponent bits) written with selects only, which gcc vectorises. Sums and maxima use several independent
 * lanes so that the loops vectorise without reassociating floating-point arithmetic (no -ffast-math), which
 * also keeps the result independent of the vector width the compiler picked.
 */
#include "hcl_host_kernels.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define HCL_SOFTMAX_LANES 16
/* Below this many elements one core is faster than waking the others. */
#define HCL_SOFTMAX_PARALLEL_MIN 32768

/* Every helper is inlined into each per-ISA row function below, so that all of it is compiled for that ISA. */
#define HCL_SOFTMAX_INLINE static inline __attribute__((always_inline))

/* exp(x) for x <= 0 (softmax only ever asks for x - max(row)), -inf (gives 0) and NaN (gives NaN). Results
 * below about 2^-126 flush to 0. */
HCL_SOFTMAX_INLINE float hcl_softmax_exp(float x) {
    float xs = x == x ? x : 0.0f; /* keeps the float-to-int conversion below defined for NaN */
    xs = xs < -88.0f ? -88.0f : xs;
    xs = xs > 0.0f ? 0.0f : xs;
    /* n = round(xs / ln2) by the 1.5 * 2^23 trick (valid without -ffast-math, which this file never has). */
    float n = xs * 1.44269504088896341f + 12582912.0f;
    n -= 12582912.0f;
    /* r = xs - n * ln2 in two steps (Cody-Waite), so r is exact enough for the polynomial. */
    float r = xs - n * 0.693359375f;
    r = r + n * 2.12194440e-4f;
    const float z = r * r;
    float y = 1.9875691500e-4f;
    y = y * r + 1.3981999507e-3f;
    y = y * r + 8.3334519073e-3f;
    y = y * r + 4.1665795894e-2f;
    y = y * r + 1.6666665459e-1f;
    y = y * r + 5.0000001201e-1f;
    y = y * z + r + 1.0f;
    /* 2^n with n in [-127, 0]: n = -127 gives the bit pattern of 0, which is how -inf and very negative
     * inputs become 0. */
    const int32_t bits = ((int32_t)n + 127) * (1 << 23);
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    const float e = y * scale;
    return x == x ? e : x;
}

HCL_SOFTMAX_INLINE float hcl_softmax_row_max(const float *restrict x, size_t n) {
    float lane[HCL_SOFTMAX_LANES];
    for (int l = 0; l < HCL_SOFTMAX_LANES; ++l) lane[l] = -INFINITY;
    size_t j = 0;
    for (; j + HCL_SOFTMAX_LANES <= n; j += HCL_SOFTMAX_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_SOFTMAX_LANES; ++l) lane[l] = x[j + l] > lane[l] ? x[j + l] : lane[l];
    }
    /* NaN entries never win a comparison: they are skipped here and turn the whole row into NaN through
     * exp(NaN - max) in the sum. */
    float m = -INFINITY;
    for (; j < n; ++j) m = x[j] > m ? x[j] : m;
    for (int l = 0; l < HCL_SOFTMAX_LANES; ++l) m = lane[l] > m ? lane[l] : m;
    return m;
}

/* Pairwise sum of the lanes, in a fixed order. */
HCL_SOFTMAX_INLINE float hcl_softmax_lane_sum(float *lane) {
    for (int width = HCL_SOFTMAX_LANES / 2; width > 0; width /= 2)
        for (int l = 0; l < width; ++l) lane[l] += lane[l + width];
    return lane[0];
}

/* out[j] = exp(in[j] - m). The first n - n % LANES values are added to lane[j % LANES]; the others are summed in order
 * into the return value (so a row done in pieces of a multiple of LANES, with the same lanes, sums as the whole row).
 * Inlined into a restrict wrapper for each aliasing case so the loop vectorises without an overlap check (which
 * in-place would fail). */
HCL_SOFTMAX_INLINE float hcl_softmax_exp_body(const float *in, float *out, size_t n, float m, float *lane) {
    size_t j = 0;
    for (; j + HCL_SOFTMAX_LANES <= n; j += HCL_SOFTMAX_LANES) {
        HCL__OMP(omp simd)
        for (int l = 0; l < HCL_SOFTMAX_LANES; ++l) {
            const float e = hcl_softmax_exp(in[j + l] - m);
            out[j + l] = e;
            lane[l] += e;
        }
    }
    float tail = 0.0f;
    for (; j < n; ++j) {
        const float e = hcl_softmax_exp(in[j] - m);
        out[j] = e;
        tail += e;
    }
    return tail;
}

HCL_SOFTMAX_INLINE float hcl_softmax_exp_distinct(const float *restrict in, float *restrict out, size_t n, float m,
                                                  float *restrict lane) {
    return hcl_softmax_exp_body(in, out, n, m, lane);
}

HCL_SOFTMAX_INLINE float hcl_softmax_exp_inplace(float *restrict io, size_t n, float m, float *restrict lane) {
    return hcl_softmax_exp_body(io, io, n, m, lane);
}

HCL_SOFTMAX_INLINE void hcl_softmax_scale(float *restrict x, size_t n, float s) {
    for (size_t j = 0; j < n; ++j) x[j] *= s;
}

HCL_SOFTMAX_INLINE void hcl_softmax_row(const float *x, float *y, size_t cols) {
    const float m = hcl_softmax_row_max(x, cols);
    /* A row of all -inf has m = -inf, and exp(-inf - -inf) = exp(NaN) = NaN: the row becomes NaN (0/0), as
     * in PyTorch. */
    float lane[HCL_SOFTMAX_LANES] = {0.0f};
    const float tail =
        x == y ? hcl_softmax_exp_inplace(y, cols, m, lane) : hcl_softmax_exp_distinct(x, y, cols, m, lane);
    hcl_softmax_scale(y, cols, 1.0f / (hcl_softmax_lane_sum(lane) + tail));
}

/* A row of 16-bit elements: the float32 row of the widened elements, each result rounded once, bit for bit. A row of at
 * most HCL_SOFTMAX_PIECE elements is widened once into a float buffer on the stack (16 KiB) and done there; a longer one
 * likewise in `row` (cols floats of the plan's scratch) when the caller has it. Without it (a host kernel does not
 * allocate) a longer row goes by pieces of the stack buffer (a multiple of the lanes, which carry over from piece to
 * piece): a first pass finds the maximum, a second sums exp(x - max), a third computes exp(x - max) again, scales it by
 * 1 / sum and rounds it into the output, twice the exps, which is what a row costs on the host. in == out is fine: a
 * row (piece) is read whole before it is written. */
#define HCL_SOFTMAX_PIECE 4096
HCL_SOFTMAX_INLINE void hcl_softmax_row16(hcl_dtype type, const uint16_t *x, uint16_t *y, size_t cols, float *row) {
    _Alignas(64) float piece[HCL_SOFTMAX_PIECE];
    if (cols <= HCL_SOFTMAX_PIECE || row != NULL) {
        float *buf = cols <= HCL_SOFTMAX_PIECE ? piece : row;
        hcl__host_widen(type, x, buf, cols);
        hcl_softmax_row(buf, buf, cols);
        hcl__host_narrow(type, buf, y, cols);
        return;
    }
    float m = -INFINITY;
    for (size_t j = 0; j < cols; j += HCL_SOFTMAX_PIECE) {
        const size_t len = cols - j < HCL_SOFTMAX_PIECE ? cols - j : HCL_SOFTMAX_PIECE;
        hcl__host_widen(type, x + j, piece, len);
        const float pm = hcl_softmax_row_max(piece, len);
        m = pm > m ? pm : m;
    }
    float lane[HCL_SOFTMAX_LANES] = {0.0f}, tail = 0.0f; /* only the last piece has a tail */
    for (size_t j = 0; j < cols; j += HCL_SOFTMAX_PIECE) {
        const size_t len = cols - j < HCL_SOFTMAX_PIECE ? cols - j : HCL_SOFTMAX_PIECE;
        hcl__host_widen(type, x + j, piece, len);
        tail += hcl_softmax_exp_inplace(piece, len, m, lane);
    }
    const float scale = 1.0f / (hcl_softmax_lane_sum(lane) + tail);
    for (size_t j = 0; j < cols; j += HCL_SOFTMAX_PIECE) {
        const size_t len = cols - j < HCL_SOFTMAX_PIECE ? cols - j : HCL_SOFTMAX_PIECE;
        float unused[HCL_SOFTMAX_LANES] = {0.0f};
        hcl__host_widen(type, x + j, piece, len);
        (void)hcl_softmax_exp_inplace(piece, len, m, unused);
        hcl_softmax_scale(piece, len, scale);
        hcl__host_narrow(type, piece, y + j, len);
    }
}

/* One row, compiled once per instruction set and chosen at run time: builds target the baseline ISA, where
 * the exp loop is compute-bound (AVX-512 is about 2.5x faster here). Every variant computes the same bits:
 * the arithmetic is elementwise in a fixed order, and ISO C mode (-std=c11) does not contract it into FMA. */
typedef void (*hcl_softmax_row_fn)(hcl_dtype type, size_t cols, const void *x, void *y, float *row);
#define HCL_SOFTMAX_DEFINE_ROW(name, attr)                                                                             \
    attr static void name(hcl_dtype type, size_t cols, const void *x, void *y, float *row) {                           \
        if (type == HCL_DTYPE_F32)                                                                                     \
            hcl_softmax_row(x, y, cols);                                                                               \
        else                                                                                                           \
            hcl_softmax_row16(type, x, y, cols, row);                                                                  \
    }
HCL_SOFTMAX_DEFINE_ROW(hcl_softmax_row_generic, )
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
HCL_SOFTMAX_DEFINE_ROW(hcl_softmax_row_avx2, __attribute__((target("avx2"))))
HCL_SOFTMAX_DEFINE_ROW(hcl_softmax_row_avx512, __attribute__((target("avx512f"))))
#endif

static hcl_softmax_row_fn hcl_softmax_pick(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    switch (hcl__host_isa()) {
    case HCL__HOST_ISA_AVX512: return hcl_softmax_row_avx512;
    case HCL__HOST_ISA_AVX2: return hcl_softmax_row_avx2;
    }
#endif
    return hcl_softmax_row_generic;
}

/* Longer rows than this go by pieces even with scratch: it stays at most 4 MiB a thread. */
#define HCL_SOFTMAX_SCRATCH_MAX_COLS ((size_t)1 << 20)

size_t hcl__host_softmax_scratch_bytes(hcl_dtype type, size_t rows, size_t cols) {
    if (type == HCL_DTYPE_F32 || rows == 0 || cols <= HCL_SOFTMAX_PIECE || cols > HCL_SOFTMAX_SCRATCH_MAX_COLS)
        return 0;
    size_t threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads() > 1 ? (size_t)omp_get_max_threads() : 1;
#endif
    return (threads < rows ? threads : rows) * cols * sizeof(float);
}

/* The softmax of rows x cols elements of `type`; `scratch` (NULL, or `scratch_bytes` bytes) holds a float row per
 * thread, for the threads it has room for. */
static void hcl_softmax_typed(hcl_dtype type, size_t rows, size_t cols, const void *in, void *out, float *scratch,
                              size_t scratch_bytes) {
    if (rows == 0 || cols == 0) return;
    const hcl_softmax_row_fn row = hcl_softmax_pick();
    const size_t esize = type == HCL_DTYPE_F32 ? sizeof(float) : sizeof(uint16_t);
    const size_t rows_in_scratch = scratch != NULL ? scratch_bytes / (cols * sizeof(float)) : 0;
    const long long count = (long long)rows;
    const int parallel = rows > 1 && (double)rows * (double)cols >= HCL_SOFTMAX_PARALLEL_MIN;
    (void)parallel; /* unused without OpenMP */
    HCL__OMP(omp parallel for schedule(static) if (parallel))
    for (long long r = 0; r < count; ++r) {
        size_t thread = 0;
#ifdef _OPENMP
        thread = (size_t)omp_get_thread_num();
#endif
        float *own = thread < rows_in_scratch ? scratch + thread * cols : NULL;
        row(type, cols, (const char *)in + (size_t)r * cols * esize, (char *)out + (size_t)r * cols * esize, own);
    }
}

void hcl__host_softmax_f32(size_t rows, size_t cols, const float *in, float *out) {
    hcl_softmax_typed(HCL_DTYPE_F32, rows, cols, in, out, NULL, 0);
}

/* The host-table forms (hcl_host_kernels.h): one work-group runs the whole call. */
static void hcl_softmax_kernel(hcl_dtype type, void *const *args) {
    hcl_softmax_typed(type, (size_t) * (const uint64_t *)args[2], (size_t) * (const uint64_t *)args[3],
                      *(const void *const *)args[0], *(void *const *)args[1], *(float *const *)args[4],
                      (size_t) * (const uint64_t *)args[5]);
}

void hcl__host_softmax_f32_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    hcl_softmax_kernel(HCL_DTYPE_F32, args);
}

void hcl__host_softmax_f16_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    hcl_softmax_kernel(HCL_DTYPE_F16, args);
}

void hcl__host_softmax_bf16_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    hcl_softmax_kernel(HCL_DTYPE_BF16, args);
}
