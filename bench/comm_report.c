/* bench --comm's files: JSON (schema hcl-bench-comm/1; the transfer section in the kernel bench's form), CSV (one
 * line per row of every section) and the plot's rows (plot.c draws them: one panel of bus bandwidth per collective);
 * and the slowest host link of the ranks, which the JSON and comm.c's last section report. */
#define _POSIX_C_SOURCE 200809L

#include "comm_lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One timed figure of `bytes` per iteration, its rate scaled by factor (the bus bandwidth's; 1 for algbw). */
static void jmeasure(FILE *f, const char *key, const measure *m, double bytes, double factor) {
    fprintf(f, ", \"%s\": ", key);
    if (!m->present) {
        fputs("null", f);
        return;
    }
    fputs("{\"name\": ", f);
    json_str(f, m->name);
    fprintf(f, ", \"runs\": %d", m->ran);
    json_field_num(f, "median_us", 1e6 * m->med_s);
    json_field_num(f, "min_us", 1e6 * m->min_s);
    json_field_num(f, "max_us", 1e6 * m->max_s);
    double ok = m->ran && m->med_s > 0 ? 1.0 : NAN;
    json_field_num(f, "algbw", ok * bytes / m->med_s / 1e9);
    json_field_num(f, "busbw", ok * bytes / m->med_s / 1e9 * factor);
    json_field_num(f, "spread", spread_of(m->ran, m->min_s, m->max_s));
    fprintf(f, ", \"verified\": %s", m->checked && measure_ok(m) ? "true" : "false");
    json_field_num(f, "max_error", m->checked ? m->err : NAN);
    json_field_str(f, "check", m->check);
    json_field_str(f, "error", m->error);
    fputs("}", f);
}

int comm_write_json(const char *path, const comm_run *cr, double total_s, int failures) {
    FILE *f = report_open(path);
    if (!f) return 1;
    const options *o = cr->opt;
    fprintf(f, "{\"schema\": \"hcl-bench-comm/1\", \"version\": \"%s\", \"seed\": %llu, \"iters\": %d, \"repeats\": %d",
            BENCH_VERSION, (unsigned long long)o->seed, o->comm_iters, o->repeats);
    fputs(", \"timing\": \"host wall-clock per group of iters, ended by finishing every rank's queue; median group\"",
          f);
    fputs(",\n \"devices\": [", f);
    for (int i = 0; i < cr->ndevs; i++) {
        fprintf(f, "%s{\"selector\": ", i ? ", " : "");
        json_str(f, cr->devs[i].selector);
        json_field_str(f, "name", cr->devs[i].info.name);
        json_field_str(f, "identity", cr->devs[i].info.identity);
        fprintf(f, ", \"rank\": %s}", i < cr->nranks ? "true" : "false");
    }
    fputs("],\n \"transfer_devices\": [", f);
    for (int x = 0; x < cr->nxfer; x++) {
        fprintf(f, "%s{\"selector\": ", x ? ", " : "");
        json_str(f, cr->xfer_runs[x].selector);
        json_sections(f, &cr->xfer_runs[x], o->noise);
        fputs("}", f);
    }
    int lx, ldir;
    size_t lbytes;
    double lgbs;
    fputs("],\n \"slowest_link\": ", f);
    if (comm_slowest_link(cr, &lx, &ldir, &lbytes, &lgbs)) {
        fputs("{\"selector\": ", f);
        json_str(f, cr->xfer_runs[lx].selector);
        json_field_str(f, "direction", ldir == XFER_H2D ? "H2D" : "D2H");
        fprintf(f, ", \"bytes\": %zu, \"gbs\": ", lbytes);
        json_num(f, lgbs);
        fputs("}", f);
    } else {
        fputs("null", f);
    }
    fputs(",\n \"peer_baseline\": ", f);
    json_str(f, cr->peer_note);
    fputs(",\n \"peers\": [", f);
    for (int i = 0; i < cr->npeers; i++) {
        const peer_row *r = &cr->peers[i];
        fprintf(f, "%s\n  {\"from\": ", i ? "," : "");
        json_str(f, cr->devs[r->src].selector);
        json_field_str(f, "to", cr->devs[r->dst].selector);
        fprintf(f, ", \"path\": \"%s\", \"bytes\": %zu, \"skipped\": ", r->direct ? "direct" : "staged", r->bytes);
        json_str(f, r->skipped);
        jmeasure(f, "hcl", &r->hcl, (double)r->bytes, 1.0);
        jmeasure(f, "baseline", &r->base, (double)r->bytes, 1.0);
        fputs("}", f);
    }
    fputs("],\n \"engine\": ", f);
    json_str(f, cr->engine);
    fprintf(f, ", \"ranks\": %d, \"collective_baseline\": ", cr->nranks);
    json_str(f, cr->base_note);
    fputs(",\n \"collectives\": [", f);
    for (int i = 0; i < cr->ncolls; i++) {
        const coll_row *r = &cr->colls[i];
        double factor = comm_bus_factor(r->op, cr->nranks);
        fprintf(f, "%s\n  {\"op\": \"%s\", \"type\": \"%s\", \"bytes\": %zu, \"count\": %zu, \"bus_factor\": %.15g",
                i ? "," : "", comm_op_names[r->op], type_names[r->type], r->bytes, r->count, factor);
        json_field_str(f, "skipped", r->skipped);
        jmeasure(f, "hcl", &r->hcl, (double)r->bytes, factor);
        jmeasure(f, "baseline", &r->base, (double)r->bytes, factor);
        json_field_num(f, "ratio", r->busbw > 0 && r->base_busbw > 0 ? r->busbw / r->base_busbw : NAN);
        fputs("}", f);
    }
    fprintf(f, "],\n \"summary\": {\"failures\": %d, \"total_s\": %.3f}}\n", failures, total_s);
    return report_close(f);
}

static void cstr(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A figure's CSV cell: 0 or less (a time or rate that was not measured) is an empty cell, as NaN is. */
static void cnum(FILE *f, double v) { csv_num(f, v > 0 ? v : NAN); }

static void cmeasure(FILE *f, const measure *m, double bytes, double factor) {
    int ok = m->present && m->ran && m->med_s > 0;
    cnum(f, ok ? 1e6 * m->med_s : NAN);
    cnum(f, ok ? bytes / m->med_s / 1e9 : NAN);
    cnum(f, ok ? bytes / m->med_s / 1e9 * factor : NAN);
    fprintf(f, ",%s", !m->present ? "" : m->checked && measure_ok(m) ? "yes" : "no");
}

int comm_write_csv(const char *path, const comm_run *cr) {
    FILE *f = report_open(path);
    if (!f) return 1;
    fputs("section,from,to,engine,op,type,bytes,count,time_us,algbw_gbs,busbw_gbs,verified,base,base_time_us,base_"
          "algbw_gbs,"
          "base_busbw_gbs,base_verified,ratio,skipped\n",
          f);
    for (int x = 0; x < cr->nxfer; x++) {
        const device_run *run = &cr->xfer_runs[x];
        for (int i = 0; i < run->xfer.nrows; i++) {
            const transfer_row *r = &run->xfer.rows[i];
            fprintf(f, "transfer,%s,%s,,%s %s,,%zu,", r->dir == XFER_H2D ? "host" : run->selector,
                    r->dir == XFER_H2D ? run->selector : "host", r->dir == XFER_H2D ? "H2D" : "D2H",
                    r->mem == XMEM_PINNED ? "page-locked" : "pageable", r->bytes);
            cmeasure(f, &r->m, (double)r->bytes, 1.0);
            fputs(",,,,,,,\n", f);
        }
    }
    for (int i = 0; i < cr->npeers; i++) {
        const peer_row *r = &cr->peers[i];
        fprintf(f, "peer,%s,%s,,%s,,%zu,", cr->devs[r->src].selector, cr->devs[r->dst].selector,
                r->direct ? "direct" : "staged", r->bytes);
        cmeasure(f, &r->hcl, (double)r->bytes, 1.0);
        fputs(",", f);
        cstr(f, r->base.name);
        cmeasure(f, &r->base, (double)r->bytes, 1.0);
        double a = measure_ok(&r->hcl) ? r->hcl.med_s : 0, b = measure_ok(&r->base) ? r->base.med_s : 0;
        cnum(f, a > 0 && b > 0 ? b / a : NAN);
        fputs(",", f);
        cstr(f, r->skipped);
        fputs("\n", f);
    }
    for (int i = 0; i < cr->ncolls; i++) {
        const coll_row *r = &cr->colls[i];
        double factor = comm_bus_factor(r->op, cr->nranks);
        fprintf(f, "collective,%s,%s,%s,%s,%s,%zu,%zu", cr->devs[0].selector, cr->devs[cr->nranks - 1].selector,
                cr->engine, comm_op_names[r->op], type_names[r->type], r->bytes, r->count);
        cmeasure(f, &r->hcl, (double)r->bytes, factor);
        fputs(",", f);
        cstr(f, r->base.name);
        cmeasure(f, &r->base, (double)r->bytes, factor);
        cnum(f, r->busbw > 0 && r->base_busbw > 0 ? r->busbw / r->base_busbw : NAN);
        fputs(",", f);
        cstr(f, r->skipped);
        fputs("\n", f);
    }
    return report_close(f);
}

int comm_flat_rows(const comm_run *cr, flat_row **out, int *count) {
    flat_row *rows = xcalloc((size_t)cr->ncolls + 1, sizeof *rows);
    int n = 0;
    const comm_dev *d = &cr->devs[0];
    for (int i = 0; i < cr->ncolls; i++) {
        const coll_row *r = &cr->colls[i];
        if (r->skipped[0] || !r->hcl.ran) continue;
        flat_row *f = &rows[n++];
        double factor = comm_bus_factor(r->op, cr->nranks);
        copy_text(f->backend, sizeof f->backend, d->info.backend);
        snprintf(f->device, sizeof f->device, "%d x %.200s, engine %.31s", cr->nranks, d->info.name, cr->engine);
        copy_text(f->identity, sizeof f->identity, d->info.identity);
        copy_text(f->kernel, sizeof f->kernel, comm_op_names[r->op]);
        char sz[32];
        comm_size_text(r->bytes, sz, sizeof sz);
        snprintf(f->shape, sizeof f->shape, "%s %s", sz, type_names[r->type]);
        snprintf(f->unit, sizeof f->unit, "GB/s busbw");
        const measure *m = &r->hcl;
        f->rate = r->busbw;
        f->best_rate = m->min_s > 0 ? r->bytes / m->min_s / 1e9 * factor : 0;
        f->worst_rate = m->max_s > 0 ? r->bytes / m->max_s / 1e9 * factor : 0;
        f->spread = spread_of(m->ran, m->min_s, m->max_s);
        f->verified = m->checked && measure_ok(m);
        if (r->base_busbw > 0) {
            const measure *b = &r->base;
            f->base_rate = r->base_busbw;
            f->base_best = b->min_s > 0 ? r->bytes / b->min_s / 1e9 * factor : 0;
            f->base_worst = b->max_s > 0 ? r->bytes / b->max_s / 1e9 * factor : 0;
            f->base_spread = spread_of(b->ran, b->min_s, b->max_s);
            copy_text(f->base_name, sizeof f->base_name, b->name);
        }
    }
    *out = rows;
    *count = n;
    return 0;
}

/* The slowest page-locked link of the ranks (each rank's H2D and D2H at its largest transfer size): 0 unless every
 * rank's link was measured (--comm-devices). */
int comm_slowest_link(const comm_run *cr, int *out_x, int *out_dir, size_t *out_bytes, double *out_gbs) {
    if (cr->nxfer != cr->nranks || cr->nranks < 2) return 0;
    int found = 0;
    for (int x = 0; x < cr->nxfer; x++) {
        const transfer_result *t = &cr->xfer_runs[x].xfer;
        size_t top = 0;
        for (int i = 0; i < t->nrows; i++)
            if (t->rows[i].mem == XMEM_PINNED && t->rows[i].bytes > top) top = t->rows[i].bytes;
        for (int i = 0; i < t->nrows; i++) {
            const transfer_row *r = &t->rows[i];
            if (r->mem != XMEM_PINNED || r->bytes != top || !measure_ok(&r->m) || !(r->m.med_s > 0)) continue;
            const double gbs = (double)r->bytes / r->m.med_s / 1e9;
            if (!found || gbs < *out_gbs) *out_x = x, *out_dir = r->dir, *out_bytes = r->bytes, *out_gbs = gbs;
            found = 1;
        }
    }
    return found;
}
