/* What the transfer and peak sections print and write (JSON), and each row's fraction of the device's peak. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <math.h>
#include <string.h>

/* A peak is the best run's rate (the headline figure of clpeak and BabelStream): the ceiling the device reached. */
static double rate_best(const peak_rate *p) { return p->ran && p->m.min_s > 0 ? p->work / p->m.min_s / 1e9 : 0.0; }

/* A gemm row of the llm set: the least bytes its GEMM moves, A and B read once and C written once (beta 0). */
static double gemm_min_bytes(const result *r) {
    const double m = (double)r->dims[0], n = (double)r->dims[1], k = (double)r->dims[2];
    return (m * k + k * n + m * n) * (double)hcl_dtype_size(bench_dtype(r->type));
}

/* A measure's median rate in GB/s against the copy rate (for the llm set's gemm rows, of the bytes the GEMM moves);
 * NaN, with *basis saying why, without a copy rate. */
static double copy_fraction(const device_run *dr, const result *r, const measure *m, const char **basis) {
    const peak_result *p = &dr->peak;
    const double copy = measure_ok(&p->copy.m) ? rate_best(&p->copy) : 0.0;
    if (!(copy > 0)) {
        *basis = p->ran ? "none: the copy was not measured" : "none: no peak section (--no-peak)";
        return NAN;
    }
    const double rate =
        r->is_flops ? (m->ran > 0 && m->med_s > 0 ? gemm_min_bytes(r) / m->med_s / 1e9 : 0.0) : rate_of(r, m);
    *basis = r->is_flops ? "copy (A, B and C moved once)" : "copy";
    return rate / copy;
}

double base_copy_fraction(const device_run *dr, const result *r) {
    const char *basis;
    return r->kernel == K_GEMM && r->set == GS_LLM && measure_ok(&r->base) ? copy_fraction(dr, r, &r->base, &basis)
                                                                           : NAN;
}

double peak_fraction(const device_run *dr, const result *r, const char **basis) {
    const peak_result *p = &dr->peak;
    const double rate = rate_of(r, &r->hcl);
    if (!(rate > 0)) {
        *basis = "no HCL rate";
        return NAN;
    }
    /* a GB/s row, or an llm row (its decode rows are bound by reading the weights; prefill's by the matrix unit,
     * whose peak bench does not know) */
    if (!r->is_flops || (r->kernel == K_GEMM && r->set == GS_LLM)) return copy_fraction(dr, r, &r->hcl, basis);
    const hcl_device_info *i = &dr->info;
    const uint32_t bit = r->type == BT_TF32 ? HCL_TYPE_BIT_TF32 : HCL_TYPE_BIT(bench_dtype(r->type));
    if (r->type != BT_F32 && (i->matrix_types & bit)) {
        *basis = "none: the matrix unit's peak is not known to bench";
        return NAN;
    }
    /* the higher of the two: a CPU's clock can run above the one it reports (turbo), so the chain can beat it */
    double fma = measure_ok(&p->fp32.m) ? rate_best(&p->fp32) : 0.0;
    if (p->theoretical_gflops > 0 && p->theoretical_gflops >= fma) {
        *basis = "f32 theoretical";
        return rate / p->theoretical_gflops;
    }
    if (fma > 0) {
        *basis = p->theoretical_gflops > 0 ? "f32 measured (above the theoretical)" : "f32 measured";
        return rate / fma;
    }
    *basis = p->ran ? "none: no theoretical or measured f32 peak" : "none: no peak section (--no-peak)";
    return NAN;
}

/* ---------------------------------------------------------------------------------------------------------
 * Printing
 * ------------------------------------------------------------------------------------------------------- */
static const char *word(const measure *m) {
    if (m->checked && !(m->err <= m->tol)) return "FAILED";
    if (m->failed) return "ERROR";
    return m->checked ? "ok" : "-";
}

/* median, best, spread of one measure of `work` units, in a table cell each. */
static void cells(const measure *m, double work, char *med, char *best, char *spread, size_t size) {
    format_rate(med, size, m->ran && m->med_s > 0 ? work / m->med_s / 1e9 : 0.0);
    format_rate(best, size, m->ran && m->min_s > 0 ? work / m->min_s / 1e9 : 0.0);
    double s = spread_of(m->ran, m->min_s, m->max_s);
    if (isfinite(s))
        snprintf(spread, size, "%.2f", s);
    else
        snprintf(spread, size, "-");
}

#define PEAK_FMT "  %-5s %-30s %-7s %8s %8s %5s%1s %-6s %s\n"

static void peak_line(const char *what, const peak_rate *p, const char *unit, const char *extra, double noise) {
    char med[16], best[16], spread[16], first[64];
    if (p->skipped[0]) {
        snprintf(first, sizeof first, "  %-5s skipped: ", what);
        print_wrapped(stdout, first, "          ", p->skipped);
        return;
    }
    cells(&p->m, p->work, med, best, spread, sizeof med);
    printf(PEAK_FMT, what, p->kernel, unit, med, best, spread,
           is_noisy(spread_of(p->m.ran, p->m.min_s, p->m.max_s), noise) ? "*" : "", word(&p->m), extra);
    if (p->m.error[0]) print_wrapped(stdout, "        error: ", "          ", p->m.error);
}

void print_peak(const device_run *dr, const options *o) {
    const peak_result *p = &dr->peak;
    if (!p->ran) return;
    printf("peak (as clpeak; median and best of the timed runs, device time; every output checked):\n");
    printf(PEAK_FMT, "", "kernel", "unit", "median", "best", "sprea", "d", "check", "best/theoretical");
    char extra[64] = "";
    peak_line("copy", &p->copy, "GB/s", "", o->noise);
    if (p->theoretical_gflops > 0 && rate_best(&p->fp32) > 0)
        snprintf(extra, sizeof extra, "%.2f", rate_best(&p->fp32) / p->theoretical_gflops);
    peak_line("fp32", &p->fp32, "GFLOP/s", extra, o->noise);
    peak_line("fp16", &p->fp16, "GFLOP/s", "", o->noise);
    char line[512];
    if (p->theoretical_gflops > 0)
        snprintf(line, sizeof line, "%.1f GFLOP/s = %s", p->theoretical_gflops, p->theoretical_how);
    else
        snprintf(line, sizeof line, "%s", p->theoretical_how);
    print_wrapped(stdout, "  theoretical fp32: ", "    ", line);
    print_wrapped(
        stdout, "  ", "  ",
        "each row's fraction of peak (HCL's median rate over: GB/s rows, this copy's best rate; GFLOP/s rows, "
        "the higher of the theoretical fp32 peak and the fp32 chain's best rate) is under --verbose and in "
        "the JSON and CSV");
    printf("\n");
    fflush(stdout);
}

static void size_text(size_t bytes, char *out, size_t size) {
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(out, size, "%zu MiB", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(out, size, "%zu KiB", bytes >> 10);
    else
        snprintf(out, size, "%zu B", bytes);
}

static const char *const dir_names[XFER_DIRS] = {"H2D", "D2H"};
static const char *const mem_names[XMEM_KINDS] = {"pageable", "page-locked"};

void print_transfer(const device_run *dr, const options *o) {
    const transfer_result *t = &dr->xfer;
    if (!t->ran && !t->error[0]) return;
    printf("\n");
    print_wrappedf(stdout, "", "  ",
                   "transfer (hcl_buffer_write_async = H2D, hcl_buffer_read_async = D2H, device time of their events; "
                   "pageable: malloc; page-locked: %s; every copy checked bit for bit):",
                   t->pinned_note);
    printf("  %-9s %-11s %9s %-7s %8s %8s %6s %-6s\n", "direction", "memory", "size", "unit", "median", "best",
           "spread", "check");
    for (int i = 0; i < t->nrows; i++) {
        const transfer_row *r = &t->rows[i];
        char med[16], best[16], spread[16], sz[32];
        cells(&r->m, (double)r->bytes, med, best, spread, sizeof med);
        size_text(r->bytes, sz, sizeof sz);
        int noisy = is_noisy(spread_of(r->m.ran, r->m.min_s, r->m.max_s), o->noise);
        printf("  %-9s %-11s %9s %-7s %8s %8s %5s%s %-6s\n", dir_names[r->dir], mem_names[r->mem], sz, "GB/s", med,
               best, spread, noisy ? "*" : " ", word(&r->m));
        if (r->m.error[0]) print_wrapped(stdout, "        error: ", "          ", r->m.error);
    }
    if (t->error[0]) print_wrapped(stdout, "  error: ", "    ", t->error);
    fflush(stdout);
}

/* ---------------------------------------------------------------------------------------------------------
 * JSON: the device's "peak" and "transfer" members (after its results; null when the section did not run)
 * ------------------------------------------------------------------------------------------------------- */
/* One timed figure: runs, times, median/best/worst rate of `work` per run, spread, noisy, verified. */
static void jfigure(FILE *f, const measure *m, double work, double noise) {
    double spread = spread_of(m->ran, m->min_s, m->max_s);
    fprintf(f, "\"runs\": %d", m->ran);
    json_field_num(f, "median_ms", 1e3 * m->med_s);
    json_field_num(f, "min_ms", 1e3 * m->min_s);
    json_field_num(f, "max_ms", 1e3 * m->max_s);
    json_field_num(f, "work", work);
    json_field_num(f, "median_rate", m->ran && m->med_s > 0 ? work / m->med_s / 1e9 : NAN);
    json_field_num(f, "best_rate", m->ran && m->min_s > 0 ? work / m->min_s / 1e9 : NAN);
    json_field_num(f, "worst_rate", m->ran && m->max_s > 0 ? work / m->max_s / 1e9 : NAN);
    json_field_num(f, "spread", spread);
    fprintf(f, ", \"noisy\": %s, \"verified\": %s, \"check\": ", is_noisy(spread, noise) ? "true" : "false",
            m->checked && measure_ok(m) ? "true" : "false");
    json_str(f, m->check);
    json_field_str(f, "error", m->error);
}

static void jpeak(FILE *f, const char *key, const peak_rate *p, const char *unit, double noise) {
    fprintf(f, ",\n       \"%s\": {\"kernel\": ", key);
    json_str(f, p->kernel);
    fprintf(f, ", \"unit\": \"%s\", \"skipped\": ", unit);
    json_str(f, p->skipped);
    fputs(", ", f);
    jfigure(f, &p->m, p->work, noise);
    fputs("}", f);
}

void json_sections(FILE *f, const device_run *dr, double noise) {
    const peak_result *p = &dr->peak;
    fputs(",\n     \"peak\": ", f);
    if (p->ran) {
        fputs("{\"theoretical_fp32_gflops\": ", f);
        if (p->theoretical_gflops > 0)
            fprintf(f, "%.15g", p->theoretical_gflops);
        else
            fputs("null", f);
        json_field_str(f, "theoretical_how", p->theoretical_how);
        jpeak(f, "copy", &p->copy, "GB/s", noise);
        jpeak(f, "fp32", &p->fp32, "GFLOP/s", noise);
        jpeak(f, "fp16", &p->fp16, "GFLOP/s", noise);
        fputs("}", f);
    } else {
        fputs("null", f);
    }
    const transfer_result *t = &dr->xfer;
    fputs(",\n     \"transfer\": ", f);
    if (!t->ran && !t->error[0]) {
        fputs("null", f);
        return;
    }
    fputs("{\"unit\": \"GB/s\", \"pinned_note\": ", f);
    json_str(f, t->pinned_note);
    json_field_str(f, "error", t->error);
    fputs(", \"rows\": [", f);
    for (int i = 0; i < t->nrows; i++) {
        const transfer_row *r = &t->rows[i];
        fprintf(f, "%s\n       {\"direction\": \"%s\", \"memory\": \"%s\", \"bytes\": %zu, ", i ? "," : "",
                dir_names[r->dir], mem_names[r->mem], r->bytes);
        jfigure(f, &r->m, (double)r->bytes, noise);
        fputs("}", f);
    }
    fputs("]}", f);
}
