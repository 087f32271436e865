/* --plot FILE.svg: one panel per kernel (bench --comm: per collective, its bus bandwidth at each size), one bar per (shape, device): HCL's rate at the median (solid, coloured by
 * backend) with a whisker from its slowest to its fastest run, the baseline's (light, below it, named, with its
 * whisker) and, with --compare, the saved run's median as a black tick. Each panel has its own linear x axis from
 * 0 with ticks, grid lines and its unit (GB/s or GFLOP/s). The values are written in a column right of the axis,
 * where no bar, whisker or tick reaches. Plain SVG 1.1, no script, no external resource; the title names no path. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <math.h>
#include <string.h>

static void xml_text(FILE *f, const char *s) {
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f); break;
        }
    }
}

/* A colour pair per backend by its place in the library's backend list (hcl_backend_get_info: the build's list,
 * then HCL_EXTRA_DRIVERS), so a backend keeps its colour from plot to plot; a name the library does not list (a
 * saved run from another build) takes the next pair in order of appearance. */
static const char *colour(const char *backend, int light) {
    static const struct {
        const char *solid, *pale;
    } palette[] = {
        {"#5f9600", "#c9e39f"}, {"#b8860b", "#ecd9a6"}, {"#6a4c93", "#d2c5e6"}, {"#d1495b", "#f2bcc3"},
        {"#3e6fb0", "#b9cde8"}, {"#2a9d8f", "#b3e0da"}, {"#e76f51", "#f6c9bd"}, {"#8d6e63", "#d7ccc8"},
    };
    static char names[32][32];
    static int count = -1;
    if (count < 0) {
        uint32_t n = 0;
        count = 0;
        if (hcl_backend_count(&n) != HCL_SUCCESS) n = 0;
        for (uint32_t i = 0; i < n && count < 32; i++) {
            hcl_backend_info bi;
            if (hcl_backend_get_info(i, &bi) == HCL_SUCCESS) snprintf(names[count++], sizeof names[0], "%s", bi.name);
        }
    }
    int k = 0;
    while (k < count && strncmp(names[k], backend, sizeof names[0] - 1)) k++;
    if (k == count) {
        if (count == 32) return light ? "#dddddd" : "#777777";
        snprintf(names[count++], sizeof names[0], "%s", backend);
    }
    k %= (int)(sizeof palette / sizeof palette[0]);
    return light ? palette[k].pale : palette[k].solid;
}

/* Layout, in pixels: row labels left of `left`, the bars' axis from `left` to `left + bar_w`, the value labels in
 * their own column right of the axis (so neither a whisker nor the --compare tick can cover them). */
enum { width = 1360, left = 330, bar_w = 560, label_x = left + bar_w + 16, row_h = 34, hcl_h = 16, base_h = 9 };
enum { axis_h = 44 }; /* below a panel's rows: the axis, its tick labels and its title */

/* The axis: a step of 1, 2, 2.5 or 5 times a power of ten that gives about 5 ticks up to at least mx. */
static double axis_step(double mx) {
    double raw = mx / 5.0, p = pow(10.0, floor(log10(raw))), m = raw / p;
    return p * (m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 2.5 ? 2.5 : m <= 5.0 ? 5.0 : 10.0);
}

static void fmt_tick(char *out, size_t size, double v, double step) {
    if (step >= 1.0)
        snprintf(out, size, "%.0f", v);
    else
        snprintf(out, size, "%.*f", step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3, v);
}

/* A min-max whisker: a line from the slowest run's rate to the fastest's, with end caps. */
static void whisker(FILE *f, double x0, double x1, double yc, double cap, double stroke) {
    if (!(x1 > x0)) return;
    fprintf(f,
            "<g class=\"whisker\" stroke=\"#222\" stroke-width=\"%.1f\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
            "y2=\"%.1f\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><line x1=\"%.1f\" y1=\"%.1f\" "
            "x2=\"%.1f\" y2=\"%.1f\"/></g>\n",
            stroke, x0, yc, x1, yc, x0, yc - cap, x0, yc + cap, x1, yc - cap, x1, yc + cap);
}

/* One row: HCL's bar with its whisker, the baseline's below it, the saved run's tick; the labels in their column.
 * Returns the next row's y. */
static int bar_pair(FILE *f, const flat_row *r, const flat_row *old_rows, int nold, double scale_max, double noise,
                    int y) {
    char label[256], v[32];
    double px = bar_w / scale_max;
    snprintf(label, sizeof label, "%s  %s", r->shape, r->backend);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 13);
    xml_text(f, label);
    fputs("</text>\n", f);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" fill=\"#666\">", left - 8, y + 25);
    xml_text(f, r->device);
    fputs("</text>\n", f);
    fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", left, y,
            px * r->rate, hcl_h, colour(r->backend, 0));
    whisker(f, left + px * r->worst_rate, left + px * r->best_rate, y + hcl_h / 2.0, 4.0, 1.3);
    format_rate(v, sizeof v, r->rate);
    int n = snprintf(label, sizeof label, "%s", v);
    if (isfinite(r->spread)) n += snprintf(label + n, sizeof label - (size_t)n, ", spread %.2f", r->spread);
    if (is_noisy(r->spread, noise)) n += snprintf(label + n, sizeof label - (size_t)n, " noisy");
    if (!r->verified) n += snprintf(label + n, sizeof label - (size_t)n, " (not verified)");
    if (r->per_joule > 0)
        n += snprintf(label + n, sizeof label - (size_t)n, "; %.4g %s at %.0f W%s", r->per_joule, r->per_joule_unit,
                      r->avg_w, r->throttled ? " THROTTLED" : "");
    const flat_row *o = nold ? find_old(old_rows, nold, r) : NULL;
    if (o && o->rate > 0 && r->rate > 0) {
        double ratio = r->rate / o->rate;
        format_rate(v, sizeof v, o->rate);
        snprintf(label + n, sizeof label - (size_t)n, "; then %s: x%.3g, %s", v, ratio,
                 verdict_text(compare_verdict(ratio, o->spread, r->spread)));
    }
    fprintf(f, "<text class=\"value\" x=\"%d\" y=\"%d\">", label_x, y + 12);
    xml_text(f, label);
    fputs("</text>\n", f);
    if (r->base_rate > 0) {
        int by = y + hcl_h + 2;
        fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", left, by,
                px * r->base_rate, base_h, colour(r->backend, 1));
        whisker(f, left + px * r->base_worst, left + px * r->base_best, by + base_h / 2.0, 3.0, 1.0);
        format_rate(v, sizeof v, r->base_rate);
        snprintf(label, sizeof label, "%s %s (HCL/baseline %.2f)%s", v, r->base_name, r->rate / r->base_rate,
                 is_noisy(r->base_spread, noise) ? " noisy" : "");
        fprintf(f, "<text class=\"value\" x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#555\">", label_x, by + 8);
        xml_text(f, label);
        fputs("</text>\n", f);
    }
    if (o && o->rate > 0) {
        double ox = left + px * o->rate;
        fprintf(f,
                "<line class=\"compare\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\" "
                "stroke-width=\"2\"/>\n",
                ox, y - 3, ox, y + hcl_h + 3);
    }
    return y + row_h;
}

static int first_of_shape(const flat_row *rows, int i) {
    for (int j = 0; j < i; j++)
        if (!strcmp(rows[j].kernel, rows[i].kernel) && !strcmp(rows[j].shape, rows[i].shape)) return 0;
    return 1;
}

/* A panel's x axis below its rows (y0: the rows' top, y1: their bottom): grid lines, the axis line, ticks with
 * their values, and the axis title with the unit. */
static void axis(FILE *f, int y0, int y1, double scale_max, double step, const char *unit) {
    double px = bar_w / scale_max;
    fputs("<g class=\"axis\">\n", f);
    for (int t = 0; t * step <= scale_max * (1 + 1e-9); t++) {
        double x = left + px * t * step;
        char v[32];
        fmt_tick(v, sizeof v, t * step, step);
        if (t) fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e4e4e4\"/>\n", x, y0, x, y1);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>\n", x, y1, x, y1 + 5);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\">%s</text>\n", x, y1 + 16, v);
    }
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, y1, left + bar_w, y1);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", left, y0, left, y1);
    fprintf(f, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">rate, ", left + bar_w / 2, y1 + 32);
    xml_text(f, unit);
    fputs(" (longer is faster)</text>\n</g>\n", f);
}

int write_svg(const char *path, const flat_row *rows, int nrows, const flat_row *old_rows, int nold, const char *title,
              double noise) {
    /* the panels: each kernel (bench --comm: each collective) in the order of its first row */
    const char *kernels[32];
    int npanels = 0;
    for (int i = 0; i < nrows && npanels < 32; i++) {
        int seen = 0;
        for (int k = 0; k < npanels; k++) seen |= !strcmp(kernels[k], rows[i].kernel);
        if (!seen) kernels[npanels++] = rows[i].kernel;
    }
    /* height: title + legend, per kernel a heading, its rows and its axis */
    int height = 96;
    for (int k = 0; k < npanels; k++) {
        int n = 0;
        for (int i = 0; i < nrows; i++) n += !strcmp(rows[i].kernel, kernels[k]);
        if (n) height += 32 + n * row_h + axis_h + 8;
    }
    height += 12;
    FILE *f = report_open(path);
    if (!f) return 1;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fputs("<text class=\"title\" x=\"16\" y=\"26\" font-size=\"17\" font-weight=\"bold\">", f);
    xml_text(f, title);
    fputs("</text>\n", f);
    fprintf(f,
            "<text x=\"16\" y=\"50\" fill=\"#333\">solid bar: HCL at the median of the timed runs; whisker: "
            "its slowest to its fastest run (min-max); light bar: the vendor baseline in the same run%s</text>\n",
            nold ? "; black tick: the --compare run's median" : "");
    fprintf(
        f,
        "<text x=\"16\" y=\"68\" fill=\"#333\">labels: the median rate, the spread (slowest / fastest run time; noisy "
        "above %.2f)%s</text>\n",
        noise, nold ? ", and the change since the --compare run (significant only outside both runs' spread)" : "");
    int y = 96;
    for (int k = 0; k < npanels; k++) {
        double mx = 0.0;
        int n = 0;
        const char *unit = "";
        for (int i = 0; i < nrows; i++) {
            const flat_row *r = &rows[i];
            if (strcmp(r->kernel, kernels[k])) continue;
            n++;
            unit = r->unit;
            mx = fmax(mx, fmax(fmax(r->rate, r->best_rate), fmax(r->base_rate, r->base_best)));
            const flat_row *o = nold ? find_old(old_rows, nold, r) : NULL;
            if (o) mx = fmax(mx, o->rate);
        }
        if (!n) continue;
        if (!(mx > 0) || !isfinite(mx)) mx = 1.0;
        double step = axis_step(mx), scale_max = ceil(mx / step - 1e-9) * step;
        fprintf(f, "<text x=\"16\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">", y + 18);
        xml_text(f, kernels[k]);
        fputs(" (", f);
        xml_text(f, unit);
        fputs(")</text>\n", f);
        int top = y + 28;
        y += 32;
        /* grid and axis first, so the bars and whiskers lie over the grid lines */
        axis(f, top, y + n * row_h, scale_max, step, unit);
        /* rows grouped by shape (in the order first seen), so the devices of one shape stand together */
        for (int i = 0; i < nrows; i++) {
            const flat_row *r = &rows[i];
            if (strcmp(r->kernel, kernels[k]) || !first_of_shape(rows, i)) continue;
            for (int j = i; j < nrows; j++) {
                if (strcmp(rows[j].kernel, kernels[k]) || strcmp(rows[j].shape, r->shape)) continue;
                y = bar_pair(f, &rows[j], old_rows, nold, scale_max, noise, y);
            }
        }
        y += axis_h + 8;
    }
    fputs("</svg>\n", f);
    return report_close(f);
}
