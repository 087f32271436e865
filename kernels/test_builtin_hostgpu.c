/* The built-in GPU kernels (kernels/<op>/<op>.cu) as host code, on the parameters of a launch exactly as a driver
 * passes them, for the HIP runtime stand-in (drivers/hip/test_fakehip.c): a wrong argument order or width shows as
 * a wrong result, a missing argument as an out-of-bounds read under ASan. The softmax warp kernels also check that
 * the launch gives a row enough lanes for the device's wavefront width (a plan shaped for a wider one would leave
 * rows unwritten on the GPU). See test_builtins.h. */
#include "test_builtins.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARG(T, i) (*(T *)params[i])
#define PTR(T, i) ((T *)ARG(void *, i))

typedef unsigned long long u64;

static float fold(int op, float a, float b) { return op == 0 ? a + b : op == 1 ? fmaxf(a, b) : fminf(a, b); }

/* The sum over q in [q0, q1) of op(A)[r][q] * op(B)[q][j], in double. */
static double product(const float *a, u64 lda, int ta, const float *b, u64 ldb, int tb, u64 r, u64 j, u64 q0, u64 q1) {
    double s = 0;
    for (u64 q = q0; q < q1; q++)
        s += (double)(ta ? a[q * lda + r] : a[r * lda + q]) * (tb ? b[j * ldb + q] : b[q * ldb + j]);
    return s;
}

/* C = alpha * op(A) op(B) + beta * C (C unread at beta 0), as the GPU kernels round it. */
static void gemm_ref(u64 m, u64 n, u64 k, float alpha, const float *a, u64 lda, int ta, const float *b, u64 ldb, int tb,
                     float beta, float *c, u64 ldc) {
    for (u64 r = 0; r < m; r++)
        for (u64 j = 0; j < n; j++) {
            float v = alpha * (float)product(a, lda, ta, b, ldb, tb, r, j, 0, k);
            c[r * ldc + j] = beta != 0.0f ? v + beta * c[r * ldc + j] : v;
        }
}

int hcl_test_gpu_kernel_run(const char *name, void **params, unsigned grid_x, unsigned block_x, unsigned wave) {
    if (strcmp(name, "hcl_vecadd_f32") == 0) {
        const float *a = PTR(float, 0), *b = PTR(float, 1);
        float *c = PTR(float, 2);
        for (u64 i = 0, n = ARG(u64, 3); i < n; i++) c[i] = a[i] + b[i];
    } else if (strcmp(name, "hcl_gemm_scale_f32") == 0) {
        u64 m = ARG(u64, 0), n = ARG(u64, 1), ldc = ARG(u64, 4);
        float beta = ARG(float, 2), *c = PTR(float, 3);
        for (u64 r = 0; r < m; r++)
            for (u64 j = 0; j < n; j++) c[r * ldc + j] = beta != 0.0f ? beta * c[r * ldc + j] : 0.0f;
    } else if (strncmp(name, "hcl_gemm_f32_", 13) == 0) {
        size_t len = strlen(name);
        int ta = name[len - 2] == 't', tb = name[len - 1] == 't';
        gemm_ref(ARG(u64, 0), ARG(u64, 1), ARG(u64, 2), ARG(float, 3), PTR(float, 4), ARG(u64, 5), ta, PTR(float, 6),
                 ARG(u64, 7), tb, ARG(float, 8), PTR(float, 9), ARG(u64, 10));
    } else if (strcmp(name, "hcl_gemm_smallk_f32") == 0) {
        u64 n = ARG(u64, 1), k = ARG(u64, 2);
        if (k > 8 || (u64)grid_x * block_x < n) { /* the kernel holds k <= 8 values of B; a thread per column */
            fprintf(stderr, "test_builtin_hostgpu: %s with k %llu, %u blocks of %u for %llu columns\n", name, k, grid_x,
                    block_x, n);
            return 1;
        }
        gemm_ref(ARG(u64, 0), n, k, ARG(float, 7), PTR(float, 3), ARG(u64, 4), (int)ARG(unsigned, 11), PTR(float, 5),
                 ARG(u64, 6), (int)ARG(unsigned, 12), ARG(float, 8), PTR(float, 9), ARG(u64, 10));
    } else if (strncmp(name, "hcl_gemm_splitk_f32_", 20) == 0) {
        /* every slice of k (the grid's z) into its m x n partial product, alpha 1, beta 0 */
        size_t len = strlen(name);
        int ta = name[len - 2] == 't', tb = name[len - 1] == 't';
        u64 m = ARG(u64, 0), n = ARG(u64, 1), k = ARG(u64, 2), ks = ARG(u64, 3), lda = ARG(u64, 5), ldb = ARG(u64, 7);
        const float *a = PTR(float, 4), *b = PTR(float, 6);
        float *p = PTR(float, 8);
        if (ks == 0 || ks % 16) {
            fprintf(stderr, "test_builtin_hostgpu: %s with slices of %llu (not a multiple of 16)\n", name, ks);
            return 1;
        }
        for (u64 z = 0; z * ks < k; z++)
            for (u64 r = 0; r < m; r++)
                for (u64 j = 0; j < n; j++)
                    p[z * m * n + r * n + j] =
                        (float)product(a, lda, ta, b, ldb, tb, r, j, z * ks, k < (z + 1) * ks ? k : (z + 1) * ks);
    } else if (strncmp(name, "hcl_gemm_rows_f32_", 18) == 0) {
        /* every slice of k (the grid's y) into its rows x cols partial product, element (i, j) at i * p_i + j * p_j;
         * A' (i, p) at i * a_i + p * a_p, B' (p, j) at p * ldb + j (_n) or j * ldb + p (_t) */
        u64 rows = ARG(u64, 0), cols = ARG(u64, 1), k = ARG(u64, 2), ks = ARG(u64, 3), a_i = ARG(u64, 5),
            a_p = ARG(u64, 6), ldb = ARG(u64, 8), p_i = ARG(u64, 10), p_j = ARG(u64, 11);
        const float *a = PTR(float, 4), *b = PTR(float, 7);
        float *p = PTR(float, 9);
        const int kt = name[strlen(name) - 1] == 't', mr = atoi(name + 18);
        const u64 per_block = kt ? 32 : 128; /* gemm_rows.cu: 8 groups x 4 columns; 32 threads x 4 floats */
        if (ks == 0 || ks % 64 || (u64)mr < rows || (u64)grid_x * per_block < cols || block_x != 256) {
            fprintf(stderr, "test_builtin_hostgpu: %s for %llu x %llu, slices of %llu, %u blocks of %u\n", name, rows,
                    cols, ks, grid_x, block_x);
            return 1;
        }
        for (u64 z = 0; z * ks < k; z++)
            for (u64 i = 0; i < rows; i++)
                for (u64 j = 0; j < cols; j++) {
                    double sum = 0;
                    for (u64 q = z * ks; q < k && q < (z + 1) * ks; q++)
                        sum += (double)a[i * a_i + q * a_p] * b[kt ? j * ldb + q : q * ldb + j];
                    p[z * rows * cols + i * p_i + j * p_j] = (float)sum;
                }
    } else if (strcmp(name, "hcl_gemm_splitk_sum_f32") == 0) {
        /* gemm.cu's order: thread group h of `groups` adds slices h, h + groups, ...; then the groups in order */
        u64 m = ARG(u64, 0), n = ARG(u64, 1), slices = ARG(u64, 2), ldc = ARG(u64, 7), groups = ARG(u64, 8);
        const float *p = PTR(float, 3);
        float alpha = ARG(float, 4), beta = ARG(float, 5), *c = PTR(float, 6);
        if (groups == 0 || groups > 32 || block_x % groups) {
            fprintf(stderr, "test_builtin_hostgpu: %s with %llu groups, blocks of %u\n", name, groups, block_x);
            return 1;
        }
        for (u64 r = 0; r < m; r++)
            for (u64 j = 0; j < n; j++) {
                float s = 0;
                for (u64 h = 0; h < groups; h++) {
                    float t = 0;
                    for (u64 z = h; z < slices; z += groups) t += p[z * m * n + r * n + j];
                    s = h ? s + t : t;
                }
                c[r * ldc + j] = beta != 0.0f ? beta * c[r * ldc + j] + alpha * s : alpha * s;
            }
    } else if (strncmp(name, "hcl_softmax_", 12) == 0) {
        const float *in = PTR(float, 0);
        float *out = PTR(float, 1);
        u64 rows = ARG(u64, 2);
        unsigned cols = ARG(unsigned, 3);
        int v = 0, cs = 0, e = 0;
        if (sscanf(name, "hcl_softmax_split%d_%d_f32", &cs, &e) == 2 &&
            ((u64)cs * (u64)e * block_x < cols || grid_x % (unsigned)cs || (cs > 1 && wave != 32))) {
            /* CS blocks of block_x threads of E values must hold the row; CS > 1 is a cluster (NVIDIA only) */
            fprintf(stderr, "test_builtin_hostgpu: %s for %u columns, %u blocks of %u, on a wave%u device\n", name,
                    cols, grid_x, block_x, wave);
            return 1;
        }
        if (sscanf(name, "hcl_softmax_warp%d_f32", &v) == 1) {
            /* V values per lane of a wavefront: the row must fit, at this device's width */
            if ((u64)v * wave < cols || block_x % wave) {
                fprintf(stderr, "test_builtin_hostgpu: %s for %u columns, blocks of %u, on a wave%u device\n", name,
                        cols, block_x, wave);
                return 1;
            }
        }
        for (u64 r = 0; r < rows; r++) {
            const float *x = in + r * cols;
            float *y = out + r * cols;
            double mx = -INFINITY, s = 0;
            for (unsigned j = 0; j < cols; j++) mx = fmax(mx, x[j]);
            for (unsigned j = 0; j < cols; j++) s += x[j] == -INFINITY ? 0.0 : exp((double)x[j] - mx);
            for (unsigned j = 0; j < cols; j++) y[j] = (float)((x[j] == -INFINITY ? 0.0 : exp((double)x[j] - mx)) / s);
        }
    } else if (strncmp(name, "hcl_reduce_", 11) == 0) {
        int op = strstr(name, "_sum_") ? 0 : strstr(name, "_max_") ? 1 : 2;
        const float *in = PTR(float, 0);
        u64 n = ARG(u64, 1);
        float *out = PTR(float, 4);
        unsigned *ticket = PTR(unsigned, 3);
        if (*ticket != 0) { /* the core zeroes the scratch once; the kernel leaves the ticket 0 */
            fprintf(stderr, "test_builtin_hostgpu: %s with a ticket of %u\n", name, *ticket);
            return 1;
        }
        float acc = op == 0 ? 0.0f : op == 1 ? -INFINITY : INFINITY;
        for (u64 i = 0; i < n; i++) acc = fold(op, acc, in[i]);
        out[0] = acc;
    } else {
        return -1;
    }
    return 0;
}
