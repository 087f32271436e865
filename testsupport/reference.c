/* Float64 references and the tolerance rules (hcl_testsupport.h states the rules and why). */
#include "hcl_testsupport.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

void hcl_ts_ref_vecadd(hcl_ts_rule rule, const float *a, const float *b, size_t n, double *out_ref, double *out_tol) {
    for (size_t i = 0; i < n; i++) {
        double s = (double)a[i] + (double)b[i];
        if (rule == HCL_TS_CONFORMANCE) {
            /* float64 holds more than twice float32's precision, so rounding its sum once is the float32 sum */
            out_ref[i] = (double)(float)s;
            if (out_tol) out_tol[i] = 0.0;
        } else {
            out_ref[i] = s;
            if (out_tol) out_tol[i] = fmax(fabs(s), (double)FLT_MIN);
        }
    }
}

/* Columns of C a block: where B is transposed, a block's columns of B are copied into a k x REF_COLS buffer first. */
#define REF_COLS 256

void hcl_ts_ref_gemm(hcl_ts_rule rule, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n, size_t k,
                     float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta, const float *c,
                     size_t ldc, double *out_ref, double *out_tol) {
    const double al = alpha, be = beta;
    const int ta = trans_a != HCL_NO_TRANS, tb = trans_b != HCL_NO_TRANS;
    for (size_t i = 0; i < m * n; i++) {
        out_ref[i] = 0.0;
        if (out_tol) out_tol[i] = 0.0;
    }
    /* Each element's k products are summed (and their |a b| beside them) in order of p, a block of REF_COLS columns at
     * a time with p outside the loop over the block's columns, so that B is read along rows of k x n (B itself, or a
     * copy of the block's columns where B is transposed) and the loop over columns vectorises; the order of each
     * element's sum is the same whichever the layout. */
    const int copied = tb && al != 0.0 && k > 0 && n > 0;
    float *panel = copied ? malloc(k * REF_COLS * sizeof *panel) : NULL;
    if (copied && !panel) abort();
    for (size_t j0 = 0; al != 0.0 && j0 < n; j0 += REF_COLS) {
        const size_t w = n - j0 < REF_COLS ? n - j0 : REF_COLS;
        const float *bp = b + j0; /* element (p, j) of the block at bp[p * ldp + j] */
        size_t ldp = ldb;
        if (tb) {
            for (size_t j = 0; j < w; j++)
                for (size_t p = 0; p < k; p++) panel[p * REF_COLS + j] = b[(j0 + j) * ldb + p];
            bp = panel;
            ldp = REF_COLS;
        }
        for (size_t i = 0; i < m; i++) {
            double *restrict sum = out_ref + i * n + j0;
            double *restrict bound = out_tol ? out_tol + i * n + j0 : NULL;
            for (size_t p = 0; p < k; p++) {
                const double av = ta ? a[p * lda + i] : a[i * lda + p];
                const float *restrict brow = bp + p * ldp;
                if (bound)
                    for (size_t j = 0; j < w; j++) {
                        const double t = av * (double)brow[j];
                        sum[j] += t;
                        bound[j] += fabs(t);
                    }
                else
                    for (size_t j = 0; j < w; j++) sum[j] += av * (double)brow[j];
            }
        }
    }
    free(panel);
    for (size_t i = 0; i < m; i++) {
        double *sum = out_ref + i * n, *bound = out_tol ? out_tol + i * n : NULL;
        for (size_t j = 0; j < n; j++) {
            double cterm = be != 0.0 ? be * (double)c[i * ldc + j] : 0.0;
            sum[j] = al * sum[j] + cterm;
            if (!bound) continue;
            double scale = fabs(al) * bound[j] + fabs(cterm);
            bound[j] = rule == HCL_TS_CONFORMANCE ? (double)(k + 3) * FLT_EPSILON * scale + FLT_MIN
                                                  : fmax(scale, (double)FLT_MIN);
        }
    }
}

void hcl_ts_ref_softmax(hcl_ts_rule rule, const float *x, size_t rows, size_t cols, double *out_ref, double *out_tol) {
    double rtol = 1e-5 * fmax(1.0, sqrt((double)cols / 256.0));
    for (size_t r = 0; r < rows; r++) {
        const float *row = x + r * cols;
        double mx = -INFINITY, sum = 0.0;
        for (size_t j = 0; j < cols; j++) mx = fmax(mx, (double)row[j]);
        for (size_t j = 0; j < cols; j++) sum += exp((double)row[j] - mx);
        for (size_t j = 0; j < cols; j++) {
            size_t i = r * cols + j;
            double tol = 0.0;
            if (mx == -INFINITY) { /* only -inf (and NaN): 0 / 0 */
                out_ref[i] = NAN;
            } else {
                out_ref[i] = exp((double)row[j] - mx) / sum;
                if (rule == HCL_TS_BENCH)
                    tol = out_ref[i];
                else if (row[j] != -INFINITY)
                    tol = rtol * out_ref[i] + 4.0 * FLT_MIN;
            }
            if (out_tol) out_tol[i] = tol;
        }
    }
}

double hcl_ts_ref_reduce(hcl_ts_rule rule, hcl_reduce_op op, const float *x, size_t n, double *out_tol) {
    double ref, tol = 0.0;
    if (op == HCL_REDUCE_SUM) {
        double s = 0.0, abs_sum = 0.0;
        for (size_t i = 0; i < n; i++) {
            s += (double)x[i];
            abs_sum += fabs((double)x[i]);
        }
        ref = s;
        if (rule == HCL_TS_BENCH)
            tol = fmax(abs_sum, (double)FLT_MIN);
        else if (n > 1)
            tol = 4.0 * (sqrt((double)n) + log2((double)n) + 1.0) * 0x1.0p-24 * abs_sum;
    } else {
        ref = op == HCL_REDUCE_MAX ? -INFINITY : INFINITY;
        for (size_t i = 0; i < n; i++) ref = op == HCL_REDUCE_MAX ? fmax(ref, x[i]) : fmin(ref, x[i]);
    }
    if (out_tol) *out_tol = tol;
    return ref;
}

double hcl_ts_bench_rtol(hcl_ts_kernel kernel, size_t size) {
    switch (kernel) {
    case HCL_TS_VECADD: return 0x1.0p-23;
    case HCL_TS_GEMM: return (double)(size + 1 < 64 ? size + 1 : 64) * 0x1.0p-23;
    case HCL_TS_SOFTMAX: return (double)(size + 32) * 0x1.0p-24;
    default: return 1e-6;
    }
}

double hcl_ts_unit_roundoff(hcl_dtype type) {
    switch (type) {
    case HCL_DTYPE_F32: return 0x1.0p-24;
    case HCL_DTYPE_F16: return 0x1.0p-11;
    case HCL_DTYPE_BF16: return 0x1.0p-8;
    }
    return 0.0;
}

double hcl_ts_round_to(hcl_dtype type, double x) {
    /* fraction bits, minimum normal exponent, largest finite value of each format */
    int frac = type == HCL_DTYPE_F16 ? 10 : type == HCL_DTYPE_BF16 ? 7 : 23;
    int emin = type == HCL_DTYPE_F16 ? -14 : -126;
    double max = type == HCL_DTYPE_F16 ? 65504.0 : type == HCL_DTYPE_BF16 ? 0x1.fep127 : (double)FLT_MAX;
    if (isnan(x) || isinf(x) || x == 0.0) return x;
    int e;
    frexp(fabs(x), &e); /* |x| = f 2^e with f in [0.5, 1): its last place at this precision is 2^(e - 1 - frac) */
    int q = (e - 1 < emin ? emin : e - 1) - frac;
    double v = ldexp(nearbyint(ldexp(fabs(x), -q)), q); /* exact scaling; nearbyint rounds ties to even */
    if (v > max) v = INFINITY;
    return x < 0 ? -v : v;
}

void hcl_ts_add_output_rounding(hcl_dtype type, const double *ref, double *tol, size_t n) {
    if (type == HCL_DTYPE_F32) return;
    double u = hcl_ts_unit_roundoff(type) + 0x1.0p-24, tiny = (type == HCL_DTYPE_F16 ? 0x1.0p-25 : 0.0) + FLT_MIN;
    for (size_t i = 0; i < n; i++) tol[i] += u * fabs(ref[i]) + tiny;
}

void hcl_ts_ref_gemm_typed(hcl_dtype c_type, hcl_compute compute, hcl_transpose trans_a, hcl_transpose trans_b,
                           size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b,
                           size_t ldb, float beta, const float *c, size_t ldc, double *out_ref, double *out_tol) {
    if (!out_tol) {
        hcl_ts_ref_gemm(HCL_TS_CONFORMANCE, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, out_ref,
                        NULL);
        return;
    }
    /* HCL_TS_BENCH's out_tol is max(|alpha| S + |beta c|, FLT_MIN): the scale of E */
    hcl_ts_ref_gemm(HCL_TS_BENCH, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, out_ref, out_tol);
    const double kk = (double)k, u_acc = 0x1.0p-24,
                 u_out = c_type == HCL_DTYPE_F32 ? 0.0 : hcl_ts_unit_roundoff(c_type);
    const double g = fmin(2.0 * (kk + 3.0), 8.0 * (sqrt(kk) + log2(kk + 1.0) + 1.0));
    for (size_t i = 0; i < m * n; i++) out_tol[i] *= g * u_acc;
    if (compute == HCL_COMPUTE_TF32 && alpha != 0.0f && k > 0) {
        /* |alpha| S alone (beta 0 does not read C): the scale of the inputs' rounding to TF32 */
        double *s = malloc(m * n * sizeof *s), *ignored = malloc(m * n * sizeof *ignored);
        if (!s || !ignored) abort();
        hcl_ts_ref_gemm(HCL_TS_BENCH, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, 0.0f, NULL, ldc, ignored, s);
        for (size_t i = 0; i < m * n; i++) out_tol[i] += 2.0 * 0x1.0p-10 * s[i];
        free(s);
        free(ignored);
    }
    double tiny = (c_type == HCL_DTYPE_F16 ? 0x1.0p-25 : 0.0) + FLT_MIN;
    for (size_t i = 0; i < m * n; i++)
        out_tol[i] = out_tol[i] * (1.0 + u_out) + (u_out + (u_out ? u_acc : 0.0)) * fabs(out_ref[i]) + tiny;
}

double hcl_ts_ref_comm(hcl_comm_op op, const float *const *x, size_t ranks, size_t i, double *out_mag) {
    double v = x[0][i], mag = fabs(v);
    for (size_t r = 1; r < ranks; r++) {
        const double y = x[r][i];
        mag += fabs(y);
        v = op == HCL_COMM_SUM ? v + y : op == HCL_COMM_PROD ? v * y : op == HCL_COMM_MAX ? fmax(v, y) : fmin(v, y);
    }
    if (out_mag) *out_mag = mag;
    return v;
}
