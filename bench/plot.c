/* --plot FILE.svg: one panel per kernel, one bar per (shape, device): HCL's rate (solid, coloured by backend), the
 * baseline's (light, below it, named) and, with --compare, the saved run's rate as a black tick. Each panel has
 * its own linear scale (GB/s or GFLOP/s). Plain SVG 1.1, no script, no external resource. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <math.h>
#include <string.h>

/* Layout, in pixels. */
enum { width = 1280, left = 330, bar_w = 600, row_h = 34, hcl_h = 16, base_h = 9 };

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

static void fmt_rate(char *out, size_t size, double v) {
    if (v >= 100)
        snprintf(out, size, "%.0f", v);
    else if (v >= 10)
        snprintf(out, size, "%.1f", v);
    else
        snprintf(out, size, "%.2f", v);
}

/* One row: HCL's bar, the baseline's below it, the saved run's tick; returns the next row's y. */
static int bar_pair(FILE *f, const flat_row *r, const flat_row *old_rows, int nold, double mx, int y) {
    char label[160], v[32];
    snprintf(label, sizeof label, "%s  %s", r->shape, r->backend);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 8, y + 13);
    xml_text(f, label);
    fputs("</text>\n", f);
    fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"10\" fill=\"#666\">", left - 8, y + 25);
    xml_text(f, r->device);
    fputs("</text>\n", f);
    double w = bar_w * r->rate / mx;
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", left, y, w, hcl_h,
            colour(r->backend, 0));
    fmt_rate(v, sizeof v, r->rate);
    fprintf(f, "<text x=\"%.1f\" y=\"%d\">%s%s</text>\n", left + w + 5, y + 12, v,
            r->verified ? "" : " (not verified)");
    if (r->base_rate > 0) {
        double bw = bar_w * r->base_rate / mx;
        fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>\n", left, y + hcl_h + 2, bw,
                base_h, colour(r->backend, 1));
        fmt_rate(v, sizeof v, r->base_rate);
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#555\">%s ", left + bw + 5, y + hcl_h + 10, v);
        xml_text(f, r->base_name);
        fprintf(f, " (HCL/baseline %.2f)</text>\n", r->rate / r->base_rate);
    }
    const flat_row *o = nold ? find_old(old_rows, nold, r) : NULL;
    if (o && o->rate > 0) {
        double ox = left + bar_w * o->rate / mx;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\" stroke-width=\"2\"/>\n", ox,
                y - 2, ox, y + hcl_h + 2);
    }
    return y + row_h;
}

static int first_of_shape(const flat_row *rows, int i) {
    for (int j = 0; j < i; j++)
        if (!strcmp(rows[j].kernel, rows[i].kernel) && !strcmp(rows[j].shape, rows[i].shape)) return 0;
    return 1;
}

int write_svg(const char *path, const flat_row *rows, int nrows, const flat_row *old_rows, int nold,
              const char *title) {
    static const char *const kernels[] = {"vecadd", "gemm", "softmax", "reduce"};
    /* height: title + legend, per kernel a heading, per row a bar pair */
    int height = 80;
    for (int k = 0; k < 4; k++) {
        int n = 0;
        for (int i = 0; i < nrows; i++) n += !strcmp(rows[i].kernel, kernels[k]);
        if (n) height += 40 + n * row_h;
    }
    height += 20;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bench: cannot write %s\n", path);
        return 1;
    }
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Arial, sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
    fputs("<text x=\"16\" y=\"26\" font-size=\"17\" font-weight=\"bold\">", f);
    xml_text(f, title);
    fputs("</text>\n", f);
    fprintf(f,
            "<text x=\"16\" y=\"50\" fill=\"#333\">solid bar: HCL's kernel (median); light bar: the vendor baseline "
            "in the same run%s; longer is faster</text>\n",
            nold ? "; black tick: the --compare run" : "");
    int y = 80;
    for (int k = 0; k < 4; k++) {
        double mx = 0.0;
        int n = 0;
        const char *unit = "";
        for (int i = 0; i < nrows; i++) {
            const flat_row *r = &rows[i];
            if (strcmp(r->kernel, kernels[k])) continue;
            n++;
            unit = r->unit;
            mx = fmax(mx, fmax(r->rate, r->base_rate));
            const flat_row *o = nold ? find_old(old_rows, nold, r) : NULL;
            if (o) mx = fmax(mx, o->rate);
        }
        if (!n) continue;
        if (!(mx > 0)) mx = 1.0;
        fprintf(f, "<text x=\"16\" y=\"%d\" font-size=\"15\" font-weight=\"bold\">%s (%s)</text>\n", y + 18, kernels[k],
                unit);
        fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n", left, y + 28, left,
                y + 32 + n * row_h);
        y += 32;
        /* rows grouped by shape (in the order first seen), so the devices of one shape stand together */
        for (int i = 0; i < nrows; i++) {
            const flat_row *r = &rows[i];
            if (strcmp(r->kernel, kernels[k]) || !first_of_shape(rows, i)) continue;
            for (int j = i; j < nrows; j++) {
                if (strcmp(rows[j].kernel, kernels[k]) || strcmp(rows[j].shape, r->shape)) continue;
                y = bar_pair(f, &rows[j], old_rows, nold, mx, y);
            }
        }
        y += 8;
    }
    fputs("</svg>\n", f);
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    return bad;
}
