/* Host vecadd: c[i] = a[i] + b[i].
 *
 * c may be a or b. gcc only vectorises a loop over possibly aliasing arrays behind a run-time overlap check,
 * which an exact alias fails, so each legal aliasing case gets its own loop whose pointers cannot overlap
 * (restrict); each is split over the cores in static contiguous chunks.
 */
#include "hcl_host_kernels.h"
#include "hcl_host_simd.h"

#include <stdint.h>

/* Below this many elements one core is faster than waking the others. */
#define HCL_VECADD_PARALLEL_MIN 32768

static void hcl_vecadd_distinct(size_t n, const float *restrict a, const float *restrict b, float *restrict c) {
    const long long count = (long long)n;
    HCL__OMP(omp parallel for simd schedule(static) if (n >= HCL_VECADD_PARALLEL_MIN))
    for (long long i = 0; i < count; ++i) c[i] = a[i] + b[i];
}

/* c[i] += b[i] (c was a) or c[i] = b[i] + c[i] (c was b): addition of two floats commutes exactly. */
static void hcl_vecadd_into(size_t n, const float *restrict b, float *restrict c) {
    const long long count = (long long)n;
    HCL__OMP(omp parallel for simd schedule(static) if (n >= HCL_VECADD_PARALLEL_MIN))
    for (long long i = 0; i < count; ++i) c[i] = c[i] + b[i];
}

static void hcl_vecadd_double(size_t n, float *restrict c) {
    const long long count = (long long)n;
    HCL__OMP(omp parallel for simd schedule(static) if (n >= HCL_VECADD_PARALLEL_MIN))
    for (long long i = 0; i < count; ++i) c[i] = c[i] + c[i];
}

static int hcl_vecadd_overlap(const float *x, const float *y, size_t n) {
    const uintptr_t px = (uintptr_t)x, py = (uintptr_t)y, bytes = (uintptr_t)n * sizeof(float);
    return px < py + bytes && py < px + bytes;
}

void hcl__host_vecadd_f32(size_t n, const float *a, const float *b, float *c) {
    if (n == 0) return;
    if (c == a && c == b) {
        hcl_vecadd_double(n, c);
    } else if (c == a && !hcl_vecadd_overlap(c, b, n)) {
        hcl_vecadd_into(n, b, c);
    } else if (c == b && !hcl_vecadd_overlap(c, a, n)) {
        hcl_vecadd_into(n, a, c);
    } else if (hcl_vecadd_overlap(c, a, n) || hcl_vecadd_overlap(c, b, n)) {
        /* Partial overlap is not a legal call, but keep it defined: one element after the other. */
        for (size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
    } else {
        hcl_vecadd_distinct(n, a, b, c);
    }
}

/* The host-table form (hcl_host_kernels.h): one work-group runs the whole call. */
void hcl__host_vecadd_f32_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    hcl__host_vecadd_f32((size_t) * (const uint64_t *)args[3], *(const float *const *)args[0],
                         *(const float *const *)args[1], *(float *const *)args[2]);
}

/* 16-bit vecadd, each element widened to float, added, rounded once, in chunks of HCL_VECADD_CHUNK elements spread over
 * the cores. c may be a or b: every element is read before it is written. Where the CPU has AVX-512F or AVX2 + F16C the
 * conversions stay in registers (hcl_host_simd.h); elsewhere, and for the last few elements, the chunk is widened into
 * buffers on the stack (256: at 1024 the two buffers lay 4 KiB apart, where loads of one alias stores to the other,
 * and the loop ran at half the rate). The vector code is called from the parallel loop, not written in it: clang
 * outlines an OpenMP region into a function without the target attribute. */
#define HCL_VECADD_CHUNK 256

/* Each does the first n - n % width elements and returns how many. */
typedef size_t (*hcl_vecadd_16_fn)(hcl_dtype t, size_t n, const uint16_t *a, const uint16_t *b, uint16_t *c);
static size_t hcl_vecadd_16_none(hcl_dtype t, size_t n, const uint16_t *a, const uint16_t *b, uint16_t *c) {
    return (void)t, (void)n, (void)a, (void)b, (void)c, 0;
}
#ifdef HCL_HOST_SIMD_X86
#define HCL_VECADD_16_SIMD(isa, attr, width, load, store, add)                                                         \
    attr static size_t hcl_vecadd_16_##isa(hcl_dtype t, size_t n, const uint16_t *a, const uint16_t *b, uint16_t *c) { \
        size_t i = 0;                                                                                                  \
        for (; i + width <= n; i += width) store(t, c + i, add(load(t, a + i), load(t, b + i)));                       \
        return i;                                                                                                      \
    }
HCL_VECADD_16_SIMD(avx512, HCL_HOST_AVX512, 16, hcl__load16_avx512, hcl__store16_avx512, _mm512_add_ps)
HCL_VECADD_16_SIMD(avx2, HCL_HOST_AVX2, 8, hcl__load8_avx2, hcl__store8_avx2, _mm256_add_ps)
static const hcl_vecadd_16_fn hcl_vecadd_16_simd[] = {hcl_vecadd_16_none, hcl_vecadd_16_avx2, hcl_vecadd_16_avx512};
#else
static const hcl_vecadd_16_fn hcl_vecadd_16_simd[] = {hcl_vecadd_16_none};
#endif

static void hcl_vecadd_16(hcl_dtype type, size_t n, const uint16_t *a, const uint16_t *b, uint16_t *c) {
    const hcl_vecadd_16_fn simd = hcl_vecadd_16_simd[hcl__host_isa()];
    const long long chunks = (long long)((n + HCL_VECADD_CHUNK - 1) / HCL_VECADD_CHUNK);
    HCL__OMP(omp parallel for schedule(static) if (n >= HCL_VECADD_PARALLEL_MIN))
    for (long long q = 0; q < chunks; ++q) {
        size_t begin = (size_t)q * HCL_VECADD_CHUNK;
        size_t len = n - begin < HCL_VECADD_CHUNK ? n - begin : HCL_VECADD_CHUNK;
        const size_t done = simd(type, len, a + begin, b + begin, c + begin);
        begin += done, len -= done;
        if (len == 0) continue;
        float x[HCL_VECADD_CHUNK], y[HCL_VECADD_CHUNK];
        hcl__host_widen(type, a + begin, x, len);
        hcl__host_widen(type, b + begin, y, len);
        for (size_t i = 0; i < len; ++i) x[i] += y[i];
        hcl__host_narrow(type, x, c + begin, len);
    }
}

void hcl__host_vecadd_f16_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    hcl_vecadd_16(HCL_DTYPE_F16, (size_t) * (const uint64_t *)args[3], *(const uint16_t *const *)args[0],
                  *(const uint16_t *const *)args[1], *(uint16_t *const *)args[2]);
}

void hcl__host_vecadd_bf16_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    hcl_vecadd_16(HCL_DTYPE_BF16, (size_t) * (const uint64_t *)args[3], *(const uint16_t *const *)args[0],
                  *(const uint16_t *const *)args[1], *(uint16_t *const *)args[2]);
}
