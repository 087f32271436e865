/* The gemm shape sets (--gemm-set) and their summary lines.
 *
 * The skinny set holds the shapes where a square-tuned GEMM loses most against a vendor library: a matrix-vector
 * product (m or n of 1), a few rows or columns (7, 127: less than one tile, and one short of a power of two), an
 * outer product (k of 1: no reduction at all, every element written once), k far above m and n (one small output
 * tile, a long reduction: split-k territory), and primes in all three dimensions (no dimension divides any tile).
 * The llm set holds the projections of an 8B-class language model (M tokens x N outputs x K inputs): attention
 * (4096 x 4096), key/value (1024 x 4096), gate/up (14336 x 4096), down (4096 x 14336) and vocabulary
 * (128256 x 4096), each at M = 1, 4, 16 (decode: the weights are read once, a memory-bound matrix-vector or
 * few-row product), 64, 256 and 1024 (prefill: compute-bound). A CPU device gets smaller shapes of the same kinds
 * (the llm set: N and K a quarter, M up to 256), so a 2-core run stays within its few minutes.
 *
 * Each set's summary, per type: the median and the worst over its shapes of HCL's rate over the baseline's, and
 * for the llm set the fraction of the device's copy rate its rows of M <= 16 reach (gemm_min_bytes), HCL's and the
 * baseline's. */
#include "bench_lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const size_t gpu_square[][3] = {{1024, 1024, 1024}, {2048, 2048, 2048}, {4096, 4096, 4096}, {8192, 8192, 8192}};
static const size_t cpu_square[][3] = {{256, 256, 256}, {512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}};
static const size_t quick_square[][3] = {{257, 255, 129}};

static const size_t gpu_skinny[][3] = {
    {1, 4096, 4096}, {4096, 1, 4096}, {7, 4096, 4096},     {4096, 7, 4096},  {127, 4096, 4096},  {4096, 127, 4096},
    {8191, 8191, 1}, {4093, 4099, 1}, {127, 127, 1048573}, {61, 67, 262139}, {1021, 1031, 1033}, {4093, 4091, 4099},
};
static const size_t cpu_skinny[][3] = {
    {1, 1024, 1024}, {1024, 1, 1024},   {7, 1024, 1024},  {1024, 7, 1024}, {127, 1024, 1024},  {1024, 127, 1024},
    {2039, 2053, 1}, {127, 127, 65537}, {31, 37, 262139}, {251, 257, 263}, {1021, 1031, 1033},
};
static const size_t quick_skinny[][3] = {{1, 257, 131}, {131, 7, 263}, {257, 263, 1}, {7, 61, 20011}};

/* the llm set: (N, K) of each projection, and the token counts M */
static const size_t gpu_llm_nk[][2] = {{4096, 4096}, {1024, 4096}, {14336, 4096}, {4096, 14336}, {128256, 4096}};
static const size_t cpu_llm_nk[][2] = {{1024, 1024}, {256, 1024}, {3584, 1024}, {1024, 3584}, {32064, 1024}};
static const size_t gpu_llm_m[] = {1, 4, 16, 64, 256, 1024};
static const size_t cpu_llm_m[] = {1, 4, 16, 64, 256};
static const size_t quick_llm[][3] = {{1, 263, 257}, {4, 67, 1031}, {16, 1031, 263}};

#define COUNT(a) ((int)(sizeof a / sizeof a[0]))

int gemm_set_shapes(int set, int cpu, int quick, size_t (*out)[3], int max) {
    const size_t(*list)[3];
    int n;
    if (set == GS_LLM && !quick) { /* every M of every projection */
        const size_t(*nk)[2] = cpu ? cpu_llm_nk : gpu_llm_nk;
        const size_t *ms = cpu ? cpu_llm_m : gpu_llm_m;
        const int nm = cpu ? COUNT(cpu_llm_m) : COUNT(gpu_llm_m);
        n = 0;
        for (int p = 0; p < COUNT(gpu_llm_nk); p++)
            for (int i = 0; i < nm && n < max; i++, n++) {
                out[n][0] = ms[i];
                out[n][1] = nk[p][0];
                out[n][2] = nk[p][1];
            }
        return n;
    }
    if (set == GS_SQUARE) {
        list = quick ? quick_square : cpu ? cpu_square : gpu_square;
        n = quick ? COUNT(quick_square) : cpu ? COUNT(cpu_square) : COUNT(gpu_square);
    } else if (set == GS_SKINNY) {
        list = quick ? quick_skinny : cpu ? cpu_skinny : gpu_skinny;
        n = quick ? COUNT(quick_skinny) : cpu ? COUNT(cpu_skinny) : COUNT(gpu_skinny);
    } else {
        list = quick_llm;
        n = COUNT(quick_llm);
    }
    if (n > max) n = max;
    memcpy(out, list, (size_t)n * sizeof *list);
    return n;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorts them in place). */
static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int gemm_set_summary(const device_run *dr, int set, int type, gemm_summary *out) {
    memset(out, 0, sizeof *out);
    out->median_ratio = out->worst_ratio = out->copy_median = out->copy_worst = out->base_copy_median = NAN;
    double ratios[BENCH_MAX_CASES], copy[BENCH_MAX_CASES], base_copy[BENCH_MAX_CASES];
    int rows = 0, nbase_copy = 0;
    for (int i = 0; i < dr->nresults; i++) {
        const result *r = &dr->results[i];
        if (r->kernel != K_GEMM || r->set != set || r->type != type) continue;
        rows++;
        const char *basis;
        const double hf = set == GS_LLM && r->dims[0] <= GEMM_FEW_ROWS ? peak_fraction(dr, r, &basis) : NAN;
        if (hf == hf && measure_ok(&r->hcl)) {
            copy[out->few] = hf;
            if (!(out->copy_worst <= hf)) out->copy_worst = hf;
            out->few++;
            const double bf = base_copy_fraction(dr, r);
            if (bf == bf) base_copy[nbase_copy++] = bf;
        }
        /* only rows where both ran and passed their checks: a wrong answer has no rate worth comparing */
        if (!r->base.present || !measure_ok(&r->hcl) || !measure_ok(&r->base)) {
            out->missing++;
            continue;
        }
        if (!out->baseline[0]) copy_text(out->baseline, sizeof out->baseline, r->base.name);
        const double ratio = rate_of(r, &r->hcl) / rate_of(r, &r->base);
        if (!(out->worst_ratio <= ratio)) {
            out->worst_ratio = ratio;
            copy_text(out->worst_shape, sizeof out->worst_shape, r->shape);
        }
        ratios[out->shapes++] = ratio;
    }
    if (out->shapes) out->median_ratio = median_of(ratios, out->shapes);
    if (out->few) out->copy_median = median_of(copy, out->few);
    if (nbase_copy) out->base_copy_median = median_of(base_copy, nbase_copy);
    return rows > 0;
}

int gemm_skinny_summary(const device_run *dr, gemm_summary *out) {
    return gemm_set_summary(dr, GS_SKINNY, BT_F32, out);
}

void print_gemm_summary(const device_run *dr) {
    for (int set = GS_SKINNY; set < GS_COUNT; set++)
        for (int t = 0; t < BT_COUNT; t++) {
            gemm_summary s;
            if (!gemm_set_summary(dr, set, t, &s)) continue;
            char missing[96] = "", few[192] = "";
            if (s.missing)
                snprintf(missing, sizeof missing, "; %d shape%s left out (no baseline, or a check that failed)",
                         s.missing, s.missing == 1 ? "" : "s");
            if (s.few) {
                char base[32] = "none";
                if (s.base_copy_median == s.base_copy_median) snprintf(base, sizeof base, "%.2f", s.base_copy_median);
                snprintf(few, sizeof few,
                         "; m <= %d: %.2f of the copy rate for the bytes they move (median of %d; worst %.2f; the "
                         "baseline's %s)",
                         GEMM_FEW_ROWS, s.copy_median, s.few, s.copy_worst, base);
            }
            if (s.shapes)
                print_wrappedf(stdout, "", "  ",
                               "gemm %s: median HCL/baseline over %d shapes = %.2f, worst %.2f (%s) (%s rows, against "
                               "%s%s)%s",
                               gemm_set_names[set], s.shapes, s.median_ratio, s.worst_ratio, s.worst_shape,
                               type_names[t], s.baseline, missing, few);
            else
                print_wrappedf(stdout, "", "  ", "gemm %s: median HCL/baseline over 0 shapes = - (%s rows%s)%s",
                               gemm_set_names[set], type_names[t], missing, few);
        }
    fflush(stdout);
}
