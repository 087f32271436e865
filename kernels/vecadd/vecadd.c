/* Host vecadd: c[i] = a[i] + b[i].
 *
 * c may be a or b. gcc only vectorises a loop over possibly aliasing arrays behind a run-time overlap check,
 * which an exact alias fails, so each legal aliasing case gets its own loop whose pointers cannot overlap
 * (restrict); each is split over the cores in static contiguous chunks.
 */
#include "hcl_host_kernels.h"

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
void hcl__host_vecadd_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    hcl__host_vecadd_f32((size_t) * (const uint64_t *)args[3], *(const float *const *)args[0],
                         *(const float *const *)args[1], *(float *const *)args[2]);
}
