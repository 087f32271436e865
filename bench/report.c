/* What bench prints and writes: the per-device table, the --all summary of kernels x devices, JSON and CSV. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *type_name(hcl_device_type t) {
    return t == HCL_DEVICE_TYPE_CPU           ? "CPU"
           : t == HCL_DEVICE_TYPE_GPU         ? "GPU"
           : t == HCL_DEVICE_TYPE_ACCELERATOR ? "accelerator"
                                              : "other";
}

/* The detail of a check (JSON, CSV, --verbose): "verified: max err 1e-07 <= tol 2e-07 (all 100)", "FAILED: ...",
 * "ERROR", "not checked" */
static void check_text(const measure *m, char *out, size_t size) {
    if (m->checked && !(m->err <= m->tol))
        snprintf(out, size, "FAILED: max err %.3g > tol %.3g (%s)", m->err, m->tol, m->check);
    else if (m->failed)
        snprintf(out, size, "ERROR (a call failed)");
    else if (m->checked)
        snprintf(out, size, "verified: max err %.3g <= tol %.3g (%s)", m->err, m->tol, m->check);
    else
        snprintf(out, size, "not checked");
}

/* The table's check column: "ok", "FAILED" (a wrong result), "ERROR" (a call failed), "-" (not checked). */
static const char *check_word(const measure *m) {
    if (m->checked && !(m->err <= m->tol)) return "FAILED";
    if (m->failed) return "ERROR";
    return m->checked ? "ok" : "-";
}

/* The table's spread column: "1.03 ", "1.35*" (noisy), "-" (fewer than 2 runs). */
static void spread_cell(const measure *m, double threshold, char *out, size_t size) {
    double s = spread_of(m->ran, m->min_s, m->max_s);
    const char *mark = is_noisy(s, threshold) ? "*" : " ";
    if (!isfinite(s))
        snprintf(out, size, "- ");
    else if (s < 9.995)
        snprintf(out, size, "%.2f%s", s, mark);
    else if (s < 99.95)
        snprintf(out, size, "%.1f%s", s, mark);
    else
        snprintf(out, size, ">99%s", mark);
}

void print_header(const bdev *b, const device_run *dr) {
    const hcl_device_info *i = &b->info;
    char line[1024];
    snprintf(line, sizeof line, "%s:%" PRIu32 " %s (%s, %s, %" PRIu32 " compute units, %.1f GiB)", i->backend, i->index,
             i->name, i->vendor, type_name(i->type), i->compute_units, (double)i->global_mem_bytes / 1073741824.0);
    print_wrapped(stdout, "device:    ", "           ", line);
    print_wrapped(stdout, "identity:  ", "           ", i->identity);
    print_wrapped(stdout, "driver:    ", "           ", i->driver_version);
    print_wrapped(stdout, "sizes:     ", "           ", dr->plan_note);
    print_wrapped(stdout, "gate:      ", "           ", dr->gate_note);
    printf("baselines:\n");
    static const char *const what[BASE_COUNT] = {"gemm", "copy", "reduce", "gemm", "gemm", "gemm"};
    for (int k = 0; k < BASE_COUNT; k++) {
        const base_info *bi = &dr->bases[k];
        if (!bi->applicable) continue;
        char first[32];
        snprintf(first, sizeof first, "  %-7s ", what[k]);
        if (bi->available) {
            snprintf(line, sizeof line, "%s: %s%s%s", bi->name, bi->library, bi->version[0] ? ", " : "", bi->version);
            print_wrapped(stdout, first, "          ", line);
            print_wrapped(stdout, "          ", "          ", bi->note);
        } else {
            print_wrappedf(stdout, first, "          ", "%s: not available: %s", bi->name, bi->reason);
        }
    }
    if (!dr->bases[BASE_GEMM].applicable && !dr->bases[BASE_COPY].applicable)
        printf("  none for backend %s\n", i->backend);
    printf("\n");
}

/* The table's columns (BENCH_WIDTH at most; tools-bench-width checks every line): kernel, shape, unit; HCL's
 * median and best rate, spread, check; the baseline's name, median rate, spread, check; HCL/base. The baseline's
 * name gives up the columns a longer shape takes. */
#define ROW_FMT "%-7s %-19s %-7s %7s %7s %6s %-6s  %-*.*s %7s %6s %-6s %8s\n"
enum { NAME_W = 21 };

void print_table_header(void) {
    printf(ROW_FMT, "kernel", "shape", "unit", "median", "best", "spread", "check", NAME_W, NAME_W, "baseline",
           "median", "spread", "check", "HCL/base");
    fflush(stdout);
}

/* --verbose: one measure's times and check under its row. */
static void print_detail(const result *r, const measure *m, const char *who) {
    char line[1024], first[48], best[16], chk[256];
    if (!m->present) return;
    snprintf(first, sizeof first, "        %s: ", who);
    format_rate(best, sizeof best, rate_at(r, m, m->min_s));
    check_text(m, chk, sizeof chk);
    if (m->ran > 0)
        snprintf(line, sizeof line,
                 "%d timed run%s; first call %.4g ms; median %.4g ms, min %.4g ms, max %.4g ms; best %s %s; %s", m->ran,
                 m->ran == 1 ? "" : "s", 1e3 * m->first_s, 1e3 * m->med_s, 1e3 * m->min_s, 1e3 * m->max_s, best,
                 unit_of(r), chk);
    else
        snprintf(line, sizeof line, "no timed run; %s", chk);
    print_wrapped(stdout, first, "            ", line);
}

void print_row(const device_run *dr, const result *r, const options *o) {
    char rate[16], best[16], brate[16], ratio[16] = "-", spread[16], bspread[16] = "-";
    const measure *h = &r->hcl, *bm = &r->base;
    format_rate(rate, sizeof rate, rate_of(r, h));
    format_rate(best, sizeof best, rate_at(r, h, h->min_s));
    format_rate(brate, sizeof brate, rate_of(r, bm));
    spread_cell(h, o->noise, spread, sizeof spread);
    if (bm->ran > 0) {
        spread_cell(bm, o->noise, bspread, sizeof bspread);
        double q = rate_of(r, h) / rate_of(r, bm);
        if (h->ran > 0) snprintf(ratio, sizeof ratio, q >= 0.1 && q < 9999.995 ? "%.2f" : "%.3g", q);
    }
    int over = (int)strlen(r->shape) - 19, name_w = NAME_W - (over > 0 ? over : 0);
    if (name_w < 6) name_w = 6;
    printf(ROW_FMT, kernel_names[r->kernel], r->shape, unit_of(r), rate, best, spread, check_word(h), name_w, name_w,
           bm->name[0] ? bm->name : "(none)", brate, bspread, bm->present ? check_word(bm) : "", ratio);
    print_energy_line(dr, r);
    if (o->verbose) {
        print_detail(r, h, "HCL");
        print_detail(r, bm, bm->name);
        const char *basis = "";
        double frac = peak_fraction(dr, r, &basis);
        if (isfinite(frac))
            printf("        peak: HCL's median rate is %.3f of the device's %s peak\n", frac, basis);
        else
            print_wrappedf(stdout, "        peak: ", "            ", "no fraction (%s)", basis);
    }
    char who[96];
    if (h->error[0]) print_wrapped(stdout, "        error (HCL): ", "            ", h->error);
    if (bm->error[0]) {
        snprintf(who, sizeof who, "        error (%s): ", bm->name);
        print_wrapped(stdout, who, "            ", bm->error);
    }
    fflush(stdout);
}

void print_table_footer(const device_run *dr, const options *o) {
    int noisy = 0, timed = 0;
    for (int i = 0; i < dr->nresults; i++) {
        const measure *h = &dr->results[i].hcl, *bm = &dr->results[i].base;
        timed += h->ran > 0;
        noisy += is_noisy(spread_of(h->ran, h->min_s, h->max_s), o->noise) ||
                 is_noisy(spread_of(bm->ran, bm->min_s, bm->max_s), o->noise);
    }
    char line[512];
    if (noisy)
        snprintf(line, sizeof line,
                 "%d of %d rows noisy (*: a spread above %.2f): their rates move by up to the spread from run to run; "
                 "more --repeats, a quieter machine or a larger --scale steady them",
                 noisy, dr->nresults, o->noise);
    else
        snprintf(line, sizeof line, "no row noisy: every spread is at most %.2f%s", o->noise,
                 timed ? "" : " (nothing was timed)");
    print_wrapped(stdout, "", "", line);
    print_gemm_summary(dr);
    const base_info *g = &dr->bases[BASE_GEMM];
    if (g->available && g->generic)
        print_wrappedf(stdout, "", "",
                       "! %s fell back to its %s kernels, which lack this CPU's AVX2/FMA: its rates understate "
                       "OpenBLAS (set OPENBLAS_CORETYPE to the CPU's core, e.g. Haswell or SkylakeX)",
                       g->name, g->corename);
    fflush(stdout);
}

/* The traced launch's figures (s 0: submit, 1: launch+sync; NAN where a row it needs did not run): HCL traced minus
 * HCL untraced; the raw call timed as the tracer times a command minus the raw call (the vendor's own timing calls);
 * and HCL's own traced overhead, the first minus the second. On the host backend there is no vendor call at all (the
 * host driver's event is HCL's own), so its own overhead is the whole traced cost. */
static double launch_traced_cost(const launch_cost *lc, int s) {
    if (!lc->ran || !lc->traced_ran) return NAN;
    return s ? lc->traced_sync_us - lc->hcl_sync_us : lc->traced_submit_us - lc->hcl_submit_us;
}

static double launch_vendor_timing(const launch_cost *lc, int s) {
    if (!lc->vendor_ran || !lc->timed_ran) return NAN;
    return s ? lc->timed_sync_us - lc->vendor_sync_us : lc->timed_submit_us - lc->vendor_submit_us;
}

static double launch_own_overhead(const device_run *dr, int s) {
    const launch_cost *lc = &dr->launch;
    if (!strcmp(dr->info.backend, "host")) return launch_traced_cost(lc, s);
    return launch_traced_cost(lc, s) - launch_vendor_timing(lc, s);
}

static const char *launch_own_basis(const device_run *dr) {
    return !strcmp(dr->info.backend, "host") ? "HCL traced - HCL untraced (no vendor call on host)"
                                             : "(HCL traced - HCL untraced) - (raw timed - raw)";
}

/* One line of the launch table: a label, then submit and launch+sync (and the module time when module_s >= 0). */
static void launch_line(const char *label, double submit, double sync, double module_s) {
    printf("  %-40s submit %8.2f   launch+sync %8.2f", label, submit, sync);
    if (module_s >= 0) printf("   (module %.1f ms)", 1e3 * module_s);
    printf("\n");
}

/* A row that did not run: its label and why. */
static void launch_not(const char *label, const char *reason) {
    char first[128];
    snprintf(first, sizeof first, "  %-40s ", label);
    print_wrapped(stdout, first, "    ", reason);
}

void print_device_extras(const device_run *dr) {
    const launch_cost *lc = &dr->launch;
    char line[1024];
    if (lc->ran || lc->error[0]) {
        snprintf(line, sizeof line,
                 "launch cost of an empty kernel, microseconds per launch (submit: %d launches then one wait; "
                 "launch+sync: each of %d waited for; median of 7 rounds%s):",
                 lc->n_submit, lc->n_sync, lc->vendor_ran || lc->traced_ran ? ", the rows' rounds alternating" : "");
        printf("\n");
        print_wrapped(stdout, "", "  ", line);
        if (lc->ran)
            launch_line("HCL hcl_kernel_launch", lc->hcl_submit_us, lc->hcl_sync_us, lc->hcl_module_s);
        else if (lc->unsupported)
            print_wrapped(stdout, "  ", "    ", lc->error);
        else
            print_wrapped(stdout, "  HCL: error: ", "    ", lc->error);
        if (lc->traced_ran)
            launch_line("HCL hcl_kernel_launch, traced", lc->traced_submit_us, lc->traced_sync_us, -1);
        else if (lc->ran && lc->traced_reason[0]) {
            char why[400];
            snprintf(why, sizeof why, "%s%s", strncmp(lc->traced_reason, "not measured", 12) ? "error: " : "",
                     lc->traced_reason);
            launch_not("HCL hcl_kernel_launch, traced", why);
        }
        if (lc->vendor_ran) {
            launch_line(lc->vendor_name, lc->vendor_submit_us, lc->vendor_sync_us, lc->vendor_module_s);
            if (lc->timed_ran) {
                launch_line(lc->timed_name, lc->timed_submit_us, lc->timed_sync_us, -1);
            } else if (lc->timed_name[0]) {
                char why[400];
                snprintf(why, sizeof why, "not measured: %s", lc->timed_reason[0] ? lc->timed_reason : "(no reason)");
                launch_not(lc->timed_name, why);
            }
            launch_line("HCL/raw", lc->ran ? lc->hcl_submit_us / lc->vendor_submit_us : NAN,
                        lc->ran ? lc->hcl_sync_us / lc->vendor_sync_us : NAN, -1);
        } else {
            char why[400];
            snprintf(why, sizeof why, "not measured: %s", lc->vendor_reason);
            launch_not(lc->vendor_name[0] ? lc->vendor_name : "raw vendor call", why);
        }
        if (lc->traced_ran) {
            launch_line("traced - untraced (HCL)", launch_traced_cost(lc, 0), launch_traced_cost(lc, 1), -1);
            if (lc->timed_ran)
                launch_line("raw timed - raw (the vendor's timing)", launch_vendor_timing(lc, 0),
                            launch_vendor_timing(lc, 1), -1);
            if (isfinite(launch_own_overhead(dr, 0)))
                launch_line("HCL's own traced overhead", launch_own_overhead(dr, 0), launch_own_overhead(dr, 1), -1);
            else
                launch_not("HCL's own traced overhead", "not measured: needs the raw call timed and untimed");
        }
    }
    const user_kernel *uk = &dr->uk;
    if (uk->ran || uk->error[0]) {
        snprintf(line, sizeof line,
                 "user kernel from source (%s, y = a*x + y, n = 1000003; cache folder %s):", uk->kind,
                 uk->cache_dir[0] ? uk->cache_dir : "(none)");
        printf("\n");
        print_wrapped(stdout, "", "  ", line);
        if (uk->ran) {
            snprintf(line, sizeof line, "hcl_module_create: %.2f ms, %s; again in this process: %.2f ms, %s",
                     1e3 * uk->create_s[0], uk->cache[0], 1e3 * uk->create_s[1], uk->cache[1]);
            print_wrapped(stdout, "  ", "    ", line);
        }
        if (uk->checked)
            printf("  result %s (max err %.3g relative to |a*x|+|y|, tol %.3g)\n", uk->failed ? "FAILED" : "verified",
                   uk->err, ldexp(1.0, -22));
        if (uk->error[0]) print_wrapped(stdout, "  error: ", "    ", uk->error);
    }
    fflush(stdout);
}

void print_startup(const startup *su) {
    if (!su->ran && !su->error[0]) return;
    char line[1024];
    if (su->ran) {
        int n = snprintf(line, sizeof line, "%s: first kernel done %.1f ms after main()", su->device,
                         1e3 * su->from_main_s);
        if (su->exec_known && n > 0 && (size_t)n < sizeof line)
            n += snprintf(line + n, sizeof line - (size_t)n,
                          ", %.0f ms after the process started (/proc/self/stat, 10 ms ticks)", 1e3 * su->from_exec_s);
        if (n > 0 && (size_t)n < sizeof line)
            snprintf(line + n, sizeof line - (size_t)n,
                     "; hcl_device_open %.1f ms, queue + buffers %.1f ms, first vecadd call to completion %.1f ms "
                     "(module load or build included); result %s",
                     1e3 * su->open_s, 1e3 * su->setup_s, 1e3 * su->first_kernel_s,
                     su->verified ? "verified" : "WRONG");
        print_wrapped(stdout, "start-up:  ", "           ", line);
    }
    if (su->error[0]) print_wrapped(stdout, "start-up:  error: ", "           ", su->error);
}

/* ---------------------------------------------------------------------------------------------------------
 * --all: one table of kernels x devices
 * ------------------------------------------------------------------------------------------------------- */
static const result *find_result(const device_run *dr, int kernel, const char *shape) {
    for (int i = 0; i < dr->nresults; i++)
        if (dr->results[i].kernel == kernel && !strcmp(dr->results[i].shape, shape)) return &dr->results[i];
    return NULL;
}

/* A speedup in a few characters: "x1.23", "x12.3", "x123". */
static void format_speedup(char *out, size_t size, double v) {
    if (!isfinite(v) || !(v > 0))
        snprintf(out, size, "x?");
    else
        snprintf(out, size, v < 9.995 ? "x%.2f" : v < 99.95 ? "x%.1f" : "x%.0f", v);
}

/* The matrix's columns in blocks of MATRIX_COLS devices, so each line fits BENCH_WIDTH. */
enum { MATRIX_COLS = 3, CELL_W = 26 };

static void print_matrix_block(const device_run *const *cols, int ncols, const device_run *host, const options *o) {
    printf("%-7s %-19s %-7s", "kernel", "shape", "unit");
    for (int c = 0; c < ncols; c++) {
        char h[64];
        snprintf(h, sizeof h, "%s:%u (%s)", cols[c]->info.backend, cols[c]->info.index, type_name(cols[c]->info.type));
        printf("  %-*s", c + 1 < ncols ? CELL_W : 0, h);
    }
    printf("\n");
    for (int k = 0; k < K_COUNT; k++) {
        /* every shape any device of this block ran for this kernel, in the order first seen */
        char shapes[BENCH_MAX_CASES * 4][64];
        int nshapes = 0;
        for (int c = 0; c < ncols; c++)
            for (int i = 0; i < cols[c]->nresults; i++) {
                const result *r = &cols[c]->results[i];
                int seen = 0;
                for (int s = 0; s < nshapes; s++) seen |= r->kernel == k && !strcmp(shapes[s], r->shape);
                if (r->kernel == k && !seen && nshapes < BENCH_MAX_CASES * 4)
                    snprintf(shapes[nshapes++], sizeof shapes[0], "%s", r->shape);
            }
        for (int s = 0; s < nshapes; s++) {
            printf("%-7s %-19s %-7s", kernel_names[k], shapes[s], k == K_GEMM ? "GFLOP/s" : "GB/s");
            const result *hr = host ? find_result(host, k, shapes[s]) : NULL;
            for (int c = 0; c < ncols; c++) {
                const result *r = find_result(cols[c], k, shapes[s]);
                char cell[96] = "-", v[16];
                if (r && r->hcl.ran > 0) {
                    double rate = rate_of(r, &r->hcl);
                    format_rate(v, sizeof v, rate);
                    int noisy = is_noisy(spread_of(r->hcl.ran, r->hcl.min_s, r->hcl.max_s), o->noise);
                    int n = snprintf(cell, sizeof cell, "%s%s", v, noisy ? "*" : "");
                    if (!measure_ok(&r->hcl)) {
                        n += snprintf(cell + n, sizeof cell - (size_t)n, " FAILED");
                    } else if (hr && hr->hcl.ran > 0 && cols[c] != host) {
                        format_speedup(v, sizeof v, rate / rate_of(hr, &hr->hcl));
                        n += snprintf(cell + n, sizeof cell - (size_t)n, " (%s)", v);
                    }
                    if (r->base.ran > 0)
                        snprintf(cell + n, sizeof cell - (size_t)n, " [%.2f]", rate / rate_of(r, &r->base));
                } else if (r) {
                    snprintf(cell, sizeof cell, "ERROR");
                }
                printf("  %-*s", c + 1 < ncols ? CELL_W : 0, cell);
            }
            printf("\n");
        }
        if (!nshapes) continue;
        /* per kernel: the largest error, and the best rate's speedup over the host's best */
        double host_best = 0.0;
        for (int i = 0; host && i < host->nresults; i++)
            if (host->results[i].kernel == k)
                host_best = fmax(host_best, rate_of(&host->results[i], &host->results[i].hcl));
        printf("%-7s %-27s", "", "largest error (best xN)");
        for (int c = 0; c < ncols; c++) {
            double err = 0.0, best = 0.0;
            int any = 0, ok = 1;
            for (int i = 0; i < cols[c]->nresults; i++) {
                const result *r = &cols[c]->results[i];
                if (r->kernel != k) continue;
                any = 1;
                ok &= measure_ok(&r->hcl) && r->hcl.checked;
                err = fmax(err, r->hcl.err);
                best = fmax(best, rate_of(r, &r->hcl));
            }
            char cell[96] = "-", v[16];
            if (any) {
                int n = snprintf(cell, sizeof cell, "%.2g%s", err, ok ? "" : " (not all ok)");
                if (host_best > 0 && cols[c] != host) {
                    format_speedup(v, sizeof v, best / host_best);
                    snprintf(cell + n, sizeof cell - (size_t)n, " (%s)", v);
                }
            }
            printf("  %-*s", c + 1 < ncols ? CELL_W : 0, cell);
        }
        printf("\n");
    }
}

void print_matrix(const device_run *runs, int nruns, const options *o) {
    const device_run *host = NULL, *cols[BENCH_MAX_DEVICES];
    int ncols = 0;
    for (int d = 0; d < nruns; d++) {
        if (!runs[d].opened) continue;
        cols[ncols++] = &runs[d];
        if (!host && !strcmp(runs[d].info.backend, "host")) host = &runs[d];
    }
    printf("\n==== summary: HCL's rate at the median per device (* noisy: spread above %.2f); (xN) = speedup over\n"
           "     the host driver at the same shape; [r] = HCL / the device's baseline\n",
           o->noise);
    for (int c = 0; c < ncols; c += MATRIX_COLS) {
        printf("\n");
        print_matrix_block(cols + c, ncols - c < MATRIX_COLS ? ncols - c : MATRIX_COLS, host, o);
    }
    printf("\ndevices:\n");
    for (int d = 0; d < nruns; d++) {
        const device_run *dr = &runs[d];
        char first[64], line[1024];
        snprintf(first, sizeof first, "  %-10s ", dr->selector);
        if (dr->opened) {
            int n =
                snprintf(line, sizeof line, "%s, %s, identity %s", dr->info.name, dr->info.vendor, dr->info.identity);
            for (int e = 0; e < d && n > 0 && (size_t)n < sizeof line; e++)
                if (runs[e].opened && !strcmp(runs[e].info.identity, dr->info.identity)) {
                    snprintf(line + n, sizeof line - (size_t)n, " (the same device as %s)", runs[e].selector);
                    break;
                }
            print_wrapped(stdout, first, "             ", line);
        } else {
            print_wrappedf(stdout, first, "             ", "%s: %s", dr->unavailable ? "unavailable" : "not run",
                           dr->error);
        }
    }
    fflush(stdout);
}

/* ---------------------------------------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------------------------------------- */
/* An object's opening, with a leading "name" when there is one. */
static void jopen(FILE *f, const char *name) {
    fputs("{", f);
    if (name) {
        fputs("\"name\": ", f);
        json_str(f, name);
        fputs(", ", f);
    }
}

/* One measure. "rate" is the median's (the field older files have); median_rate repeats it under the name that
 * sits beside best_rate (the fastest run's) and worst_rate (the slowest's); spread = max_ms / min_ms (null with
 * fewer than 2 runs); noisy = spread above the run's noise_threshold. */
static void jmeasure(FILE *f, const result *r, const measure *m, int is_base, double noise) {
    double spread = spread_of(m->ran, m->min_s, m->max_s);
    jopen(f, is_base ? m->name : NULL);
    fprintf(f, "\"runs\": %d", m->ran);
    json_field_num(f, "first_ms", 1e3 * m->first_s);
    json_field_num(f, "median_ms", 1e3 * m->med_s);
    json_field_num(f, "min_ms", 1e3 * m->min_s);
    json_field_num(f, "max_ms", 1e3 * m->max_s);
    json_field_num(f, "work", is_base ? r->base_work : r->work);
    json_field_num(f, "rate", rate_of(r, m));
    json_field_num(f, "median_rate", rate_of(r, m));
    json_field_num(f, "best_rate", rate_at(r, m, m->min_s));
    json_field_num(f, "worst_rate", rate_at(r, m, m->max_s));
    json_field_num(f, "spread", spread);
    fprintf(f, ", \"noisy\": %s", is_noisy(spread, noise) ? "true" : "false");
    fprintf(f, ", \"checked\": %s, \"verified\": %s", m->checked ? "true" : "false",
            m->checked && measure_ok(m) ? "true" : "false");
    json_field_num(f, "max_error", m->err);
    json_field_num(f, "tolerance", m->tol);
    json_field_str(f, "check", m->check);
    json_field_str(f, "error", m->error);
    json_energy(f, r, m);
    fputs("}", f);
}

/* One side of the launch cost: null when it did not run. */
static void jlaunch(FILE *f, int ran, const char *name, double submit_us, double sync_us, double module_s) {
    if (!ran) {
        fputs("null", f);
        return;
    }
    jopen(f, name);
    fputs("\"submit_us\": ", f);
    json_num(f, submit_us);
    json_field_num(f, "sync_us", sync_us);
    json_field_num(f, "module_ms", 1e3 * module_s);
    fputs("}", f);
}

/* A submit and launch+sync pair of derived figures: null when either is unknown. */
static void jpair(FILE *f, double submit_us, double sync_us) {
    if (!isfinite(submit_us) || !isfinite(sync_us)) {
        fputs("null", f);
        return;
    }
    fputs("{\"submit_us\": ", f);
    json_num(f, submit_us);
    json_field_num(f, "sync_us", sync_us);
    fputs("}", f);
}

int write_json(const char *path, const options *o, const startup *su, const device_run *runs, int nruns, double total_s,
               int failures) {
    FILE *f = report_open(path);
    if (!f) return 1;
    char host[256] = "", date[64] = "";
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "{\n  \"schema\": \"hcl-bench/1\",\n  \"hcl_version\": \"%d.%d.%d\",\n  \"date\": \"%s\",\n",
            HCL_VERSION_MAJOR, HCL_VERSION_MINOR, HCL_VERSION_PATCH, date);
    fputs("  \"host\": {\"hostname\": ", f);
    json_str(f, host);
    fprintf(f, ", \"online_cpus\": %ld},\n", sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(f,
            "  \"options\": {\"all\": %s, \"quick\": %s, \"seed\": %" PRIu64 ", \"repeats\": %d, \"warmup\": %d, "
            "\"verify\": %s, \"baselines\": %s, \"scale\": ",
            o->all ? "true" : "false", o->quick ? "true" : "false", o->seed, o->repeats, o->warmup,
            o->verify ? "true" : "false", o->baselines ? "true" : "false");
    json_num(f, o->scale);
    json_field_num(f, "noise_threshold", o->noise);
    fputs(", \"gemm_sets\": [", f);
    for (int g = 0, first = 1; g < GS_COUNT; g++)
        if (o->gemm_sets & (1u << g)) fprintf(f, "%s\"%s\"", first ? "" : ", ", gemm_set_names[g]), first = 0;
    fputs("]", f);
    fputs("},\n  \"units\": {\"rate\": \"GB/s (BabelStream bytes: vecadd 3, softmax 2, reduce 1 element per element; "
          "copy baselines read + write) or GFLOP/s (gemm: 2mnk)\", \"times\": \"ms, device time of each run\", "
          "\"spread\": \"max_ms / min_ms of the timed runs (= best_rate / worst_rate); noisy: above "
          "options.noise_threshold\"},\n",
          f);
    fputs("  \"startup\": ", f);
    if (su->ran || su->error[0]) {
        fputs("{\"device\": ", f);
        json_str(f, su->device);
        json_field_num(f, "from_main_ms", su->ran ? 1e3 * su->from_main_s : NAN);
        json_field_num(f, "from_process_start_ms", su->ran && su->exec_known ? 1e3 * su->from_exec_s : NAN);
        json_field_str(f, "process_start_source", "/proc/self/stat starttime (clock ticks)");
        json_field_num(f, "device_open_ms", 1e3 * su->open_s);
        json_field_num(f, "setup_ms", 1e3 * su->setup_s);
        json_field_num(f, "first_kernel_ms", 1e3 * su->first_kernel_s);
        fprintf(f, ", \"verified\": %s", su->verified ? "true" : "false");
        json_field_str(f, "error", su->error);
        fputs("},\n", f);
    } else {
        fputs("null,\n", f);
    }
    fputs("  \"devices\": [", f);
    for (int d = 0; d < nruns; d++) {
        const device_run *dr = &runs[d];
        const hcl_device_info *i = &dr->info;
        fprintf(f, "%s\n    {\"selector\": ", d ? "," : "");
        json_str(f, dr->selector);
        fprintf(f, ", \"status\": \"%s\", \"error\": ", dr->opened ? "ran" : dr->unavailable ? "unavailable" : "error");
        json_str(f, dr->error);
        if (!dr->opened) {
            fputs("}", f);
            continue;
        }
        fputs(",\n     \"backend\": ", f);
        json_str(f, i->backend);
        fprintf(f, ", \"index\": %u", i->index);
        json_field_str(f, "name", i->name);
        json_field_str(f, "vendor", i->vendor);
        json_field_str(f, "identity", i->identity);
        json_field_str(f, "driver_version", i->driver_version);
        fprintf(f, ", \"type\": \"%s\", \"compute_units\": %u, \"global_mem_bytes\": %" PRIu64, type_name(i->type),
                i->compute_units, i->global_mem_bytes);
        /* what hcl-info shows a kernel writer (hcl_device_info; 0 or "": the runtime does not say) */
        json_field_str(f, "arch", i->arch);
        fprintf(
            f,
            ",\n     \"properties\": {\"subgroup_size\": %u, \"has_fp16\": %s, \"has_fp64\": %s, \"clock_mhz\": %u, "
            "\"memory_clock_mhz\": %u, \"memory_bus_width_bits\": %u, \"peak_memory_bandwidth\": %" PRIu64
            ", \"l2_cache_bytes\": %" PRIu64 ", \"max_work_group_size\": %" PRIu64
            ", \"max_work_item_sizes\": [%" PRIu64 ", %" PRIu64 ", %" PRIu64 "], \"max_grid_size\": [%" PRIu64
            ", %" PRIu64 ", %" PRIu64 "], \"local_mem_bytes\": %" PRIu64 "}",
            i->subgroup_size, i->has_fp16 ? "true" : "false", i->has_fp64 ? "true" : "false", i->clock_mhz,
            i->memory_clock_mhz, i->memory_bus_width_bits, (uint64_t)i->peak_memory_bandwidth,
            (uint64_t)i->l2_cache_bytes, i->max_work_group_size, (uint64_t)i->max_work_item_sizes[0],
            (uint64_t)i->max_work_item_sizes[1], (uint64_t)i->max_work_item_sizes[2], (uint64_t)i->max_grid_size[0],
            (uint64_t)i->max_grid_size[1], (uint64_t)i->max_grid_size[2], i->local_mem_bytes);
        json_field_str(f, "sizes", dr->plan_note);
        fprintf(f, ", \"gate_bytes\": %zu", dr->gate_bytes);
        json_field_str(f, "gate", dr->gate_note);
        json_field_num(f, "wall_s", dr->wall_s);
        json_device_energy(f, dr);
        fputs(",\n     \"baselines\": [", f);
        int first = 1;
        for (int k = 0; k < BASE_COUNT; k++) {
            const base_info *bi = &dr->bases[k];
            if (!bi->applicable) continue;
            fprintf(f, "%s\n       {\"name\": ", first ? "" : ",");
            first = 0;
            json_str(f, bi->name);
            fprintf(f, ", \"available\": %s", bi->available ? "true" : "false");
            json_field_str(f, "library", bi->library);
            json_field_str(f, "version", bi->version);
            json_field_str(f, "note", bi->note);
            json_field_str(f, "reason", bi->available ? "" : bi->reason);
            if (bi->threads) fprintf(f, ", \"threads\": %d", bi->threads);
            if (bi->corename[0]) {
                json_field_str(f, "corename", bi->corename);
                fprintf(f, ", \"generic_fallback\": %s", bi->generic ? "true" : "false");
            }
            fputs("}", f);
        }
        fputs("],\n     \"results\": [", f);
        for (int k = 0; k < dr->nresults; k++) {
            const result *r = &dr->results[k];
            fprintf(f, "%s\n       {\"kernel\": \"%s\", \"type\": \"%s\", \"shape\": ", k ? "," : "",
                    kernel_names[r->kernel], type_names[r->type]);
            json_str(f, r->shape);
            fprintf(f, ", \"dims\": [%zu, %zu, %zu], \"unit\": \"%s\"", r->dims[0], r->dims[1], r->dims[2], unit_of(r));
            if (r->kernel == K_GEMM) /* the set of a default shape; null for --gemm's one shape */
                fprintf(f, ", \"gemm_set\": %s%s%s", r->set == GS_NONE ? "" : "\"",
                        r->set == GS_NONE ? "null" : gemm_set_names[r->set], r->set == GS_NONE ? "" : "\"");
            fputs(",\n        \"hcl\": ", f);
            jmeasure(f, r, &r->hcl, 0, o->noise);
            fputs(",\n        \"baseline\": ", f);
            if (r->base.present)
                jmeasure(f, r, &r->base, 1, o->noise);
            else
                fputs("null", f);
            json_field_num(f, "ratio",
                           r->base.ran > 0 && r->hcl.ran > 0 ? rate_of(r, &r->hcl) / rate_of(r, &r->base) : NAN);
            const char *basis = "";
            json_field_num(f, "peak_fraction", peak_fraction(dr, r, &basis));
            json_field_str(f, "peak_basis", basis);
            fputs("}", f);
        }
        gemm_summary gs;
        fputs("],\n     \"gemm_skinny\": ", f);
        if (gemm_skinny_summary(dr, &gs)) {
            fprintf(f, "{\"type\": \"f32\", \"shapes\": %d, \"left_out\": %d", gs.shapes, gs.missing);
            json_field_num(f, "median_ratio", gs.median_ratio);
            json_field_str(f, "baseline", gs.baseline);
            fputs("}", f);
        } else {
            fputs("null", f);
        }
        /* every set's summary in every type: median and worst ratio, the llm set's fraction of the copy rate */
        fputs(",\n     \"gemm_summaries\": [", f);
        for (int set = GS_SKINNY, first = 1; set < GS_COUNT; set++)
            for (int t = 0; t < BT_COUNT; t++) {
                if (!gemm_set_summary(dr, set, t, &gs)) continue;
                fprintf(f, "%s{\"set\": \"%s\", \"type\": \"%s\", \"shapes\": %d, \"left_out\": %d", first ? "" : ", ",
                        gemm_set_names[set], type_names[t], gs.shapes, gs.missing);
                json_field_num(f, "median_ratio", gs.median_ratio);
                json_field_num(f, "worst_ratio", gs.worst_ratio);
                json_field_str(f, "worst_shape", gs.worst_shape);
                json_field_str(f, "baseline", gs.baseline);
                if (set == GS_LLM) {
                    fprintf(f, ", \"few_rows\": {\"max_m\": %d, \"rows\": %d", GEMM_FEW_ROWS, gs.few);
                    json_field_num(f, "copy_fraction_median", gs.copy_median);
                    json_field_num(f, "copy_fraction_worst", gs.copy_worst);
                    json_field_num(f, "baseline_copy_fraction_median", gs.base_copy_median);
                    fputs("}", f);
                }
                fputs("}", f);
                first = 0;
            }
        fputs("]", f);
        const launch_cost *lc = &dr->launch;
        fputs(",\n     \"launch\": ", f);
        if (lc->ran || lc->error[0] || lc->vendor_reason[0]) {
            fprintf(f, "{\"unit\": \"us per launch\", \"n_submit\": %d, \"n_sync\": %d, \"hcl\": ", lc->n_submit,
                    lc->n_sync);
            jlaunch(f, lc->ran, NULL, lc->hcl_submit_us, lc->hcl_sync_us, lc->hcl_module_s);
            fputs(", \"vendor\": ", f);
            jlaunch(f, lc->vendor_ran, lc->vendor_name, lc->vendor_submit_us, lc->vendor_sync_us, lc->vendor_module_s);
            json_field_str(f, "error", lc->error);
            json_field_str(f, "vendor_reason", lc->vendor_ran ? "" : lc->vendor_reason);
            fputs(",\n      \"hcl_traced\": ", f);
            jlaunch(f, lc->traced_ran, NULL, lc->traced_submit_us, lc->traced_sync_us, lc->hcl_module_s);
            json_field_str(f, "traced_reason", lc->traced_ran ? "" : lc->traced_reason);
            fputs(", \"vendor_timed\": ", f);
            jlaunch(f, lc->timed_ran, lc->timed_name, lc->timed_submit_us, lc->timed_sync_us, lc->vendor_module_s);
            json_field_str(f, "vendor_timed_reason",
                           lc->timed_ran         ? ""
                           : lc->timed_reason[0] ? lc->timed_reason
                                                 : lc->vendor_reason);
            fputs(",\n      \"traced_over_untraced_us\": ", f);
            jpair(f, launch_traced_cost(lc, 0), launch_traced_cost(lc, 1));
            fputs(", \"vendor_timing_us\": ", f);
            jpair(f, launch_vendor_timing(lc, 0), launch_vendor_timing(lc, 1));
            fputs(", \"own_traced_overhead_us\": ", f);
            jpair(f, launch_own_overhead(dr, 0), launch_own_overhead(dr, 1));
            json_field_str(f, "own_traced_overhead_basis", launch_own_basis(dr));
            fputs("}", f);
        } else {
            fputs("null", f);
        }
        const user_kernel *uk = &dr->uk;
        fputs(",\n     \"user_kernel\": ", f);
        if (uk->ran || uk->error[0]) {
            fputs("{\"kind\": ", f);
            json_str(f, uk->kind);
            json_field_str(f, "cache_dir", uk->cache_dir);
            fputs(", \"create_ms\": [", f);
            json_num(f, 1e3 * uk->create_s[0]);
            fputs(", ", f);
            json_num(f, 1e3 * uk->create_s[1]);
            fputs("], \"cache\": [", f);
            json_str(f, uk->cache[0]);
            fputs(", ", f);
            json_str(f, uk->cache[1]);
            fprintf(f, "], \"verified\": %s", uk->checked && !uk->failed ? "true" : "false");
            json_field_num(f, "max_error", uk->err);
            json_field_str(f, "error", uk->error);
            fputs("}", f);
        } else {
            fputs("null", f);
        }
        json_sections(f, dr, o->noise);
        fputs("}", f);
    }
    fputs("\n  ],\n  \"summary\": {\"wall_s\": ", f);
    json_num(f, total_s);
    fprintf(f, ", \"failures\": %d, \"all_verified\": %s}\n}\n", failures, failures ? "false" : "true");
    int bad = report_close(f);
    if (bad) fprintf(stderr, "bench: error writing %s\n", path);
    return bad;
}

/* ---------------------------------------------------------------------------------------------------------
 * CSV: one line per (device, kernel, shape), and two per device for the launch cost.
 * ------------------------------------------------------------------------------------------------------- */
static void cstr(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* A row's first columns: backend,index,device,identity,kernel,shape,type,unit */
static void crow(FILE *f, const device_run *dr, const char *kernel, const char *shape, const char *type,
                 const char *unit) {
    fprintf(f, "%s,%u,", dr->info.backend, dr->info.index);
    cstr(f, dr->info.name);
    fputc(',', f);
    cstr(f, dr->info.identity);
    fprintf(f, ",%s,%s,%s,%s", kernel, shape, type, unit);
}

/* A measure's noise columns: best and worst rate, spread, noisy (empty when it did not run). */
static void cnoise(FILE *f, const result *r, const measure *m, double noise) {
    double spread = spread_of(m->ran, m->min_s, m->max_s);
    csv_num(f, m->ran > 0 ? rate_at(r, m, m->min_s) : NAN);
    csv_num(f, m->ran > 0 ? rate_at(r, m, m->max_s) : NAN);
    csv_num(f, spread);
    fprintf(f, ",%s", m->ran > 0 ? (is_noisy(spread, noise) ? "true" : "false") : "");
}

int write_csv(const char *path, const device_run *runs, int nruns, double noise) {
    FILE *f = report_open(path);
    if (!f) return 1;
    fputs("backend,index,device,identity,kernel,shape,type,unit,hcl_median_ms,hcl_min_ms,hcl_max_ms,hcl_runs,hcl_rate,"
          "hcl_verified,hcl_max_error,hcl_tolerance,baseline,baseline_median_ms,baseline_rate,baseline_verified,"
          "ratio,hcl_best_rate,hcl_worst_rate,hcl_spread,hcl_noisy,hcl_first_ms,hcl_check,baseline_min_ms,"
          "baseline_max_ms,baseline_best_rate,baseline_worst_rate,baseline_spread,baseline_noisy,baseline_max_error,"
          "baseline_tolerance,baseline_check,hcl_peak_fraction,peak_basis,gemm_set" ENERGY_CSV_HEADER "\n",
          f);
    for (int d = 0; d < nruns; d++) {
        const device_run *dr = &runs[d];
        if (!dr->opened) continue;
        for (int k = 0; k < dr->nresults; k++) {
            const result *r = &dr->results[k];
            crow(f, dr, kernel_names[r->kernel], r->shape, type_names[r->type], unit_of(r));
            csv_num(f, 1e3 * r->hcl.med_s);
            csv_num(f, 1e3 * r->hcl.min_s);
            csv_num(f, 1e3 * r->hcl.max_s);
            fprintf(f, ",%d", r->hcl.ran);
            csv_num(f, rate_of(r, &r->hcl));
            fprintf(f, ",%s", r->hcl.checked && measure_ok(&r->hcl) ? "true" : "false");
            csv_num(f, r->hcl.err);
            csv_num(f, r->hcl.tol);
            fputc(',', f);
            cstr(f, r->base.present ? r->base.name : "");
            csv_num(f, r->base.ran ? 1e3 * r->base.med_s : NAN);
            csv_num(f, r->base.ran ? rate_of(r, &r->base) : NAN);
            fprintf(f, ",%s", !r->base.present ? "" : r->base.checked && measure_ok(&r->base) ? "true" : "false");
            csv_num(f, r->base.ran && r->hcl.ran ? rate_of(r, &r->hcl) / rate_of(r, &r->base) : NAN);
            /* the columns added with the noise figures (after the old ones, which keep their places) */
            char chk[256];
            cnoise(f, r, &r->hcl, noise);
            csv_num(f, r->hcl.ran > 0 ? 1e3 * r->hcl.first_s : NAN);
            check_text(&r->hcl, chk, sizeof chk);
            fputc(',', f);
            cstr(f, chk);
            csv_num(f, r->base.ran ? 1e3 * r->base.min_s : NAN);
            csv_num(f, r->base.ran ? 1e3 * r->base.max_s : NAN);
            cnoise(f, r, &r->base, noise);
            csv_num(f, r->base.present && r->base.checked ? r->base.err : NAN);
            csv_num(f, r->base.present && r->base.checked ? r->base.tol : NAN);
            fputc(',', f);
            if (r->base.present) {
                check_text(&r->base, chk, sizeof chk);
                cstr(f, chk);
            }
            const char *basis = "";
            csv_num(f, peak_fraction(dr, r, &basis));
            fputc(',', f);
            cstr(f, basis);
            fprintf(f, ",%s", r->kernel == K_GEMM && r->set != GS_NONE ? gemm_set_names[r->set] : "");
            csv_energy(f, dr, r);
            fputc('\n', f);
        }
        /* each set's summary per type: its median ratio in the ratio column, the baseline in the baseline column */
        gemm_summary gs;
        for (int set = GS_SKINNY; set < GS_COUNT; set++)
            for (int t = 0; t < BT_COUNT; t++) {
                if (!gemm_set_summary(dr, set, t, &gs)) continue;
                char shape[64];
                snprintf(shape, sizeof shape, "gemm %s median over %d shapes", gemm_set_names[set], gs.shapes);
                crow(f, dr, "summary", shape, type_names[t], "ratio");
                fputs(",,,,,,,,,", f);
                cstr(f, gs.baseline);
                fputs(",,,", f);
                csv_num(f, gs.median_ratio);
                /* the 17 noise, check and peak columns, and gemm_set */
                fprintf(f, ",,,,,,,,,,,,,,,,,,%s", gemm_set_names[set]);
                csv_energy(f, dr, NULL);
                fputc('\n', f);
            }
        const launch_cost *lc = &dr->launch;
        for (int s = 0; s < 2 && lc->ran; s++) {
            crow(f, dr, "launch", s ? "launch+sync" : "submit", "", "us");
            fputs(",,,,", f);
            fprintf(f, "%d", s ? lc->n_sync : lc->n_submit);
            csv_num(f, s ? lc->hcl_sync_us : lc->hcl_submit_us);
            fputs(",,,,", f);
            cstr(f, lc->vendor_ran ? lc->vendor_name : "");
            fputs(",", f);
            csv_num(f, lc->vendor_ran ? (s ? lc->vendor_sync_us : lc->vendor_submit_us) : NAN);
            fputs(",", f);
            double ratio = s ? lc->hcl_sync_us / lc->vendor_sync_us : lc->hcl_submit_us / lc->vendor_submit_us;
            csv_num(f, lc->vendor_ran ? ratio : NAN);
            fputs(",,,,,,,,,,,,,,,,,,", f); /* the 15 noise and check columns, the 2 peak ones, gemm_set */
            csv_energy(f, dr, NULL);
            fputc('\n', f);
        }
        /* the traced launch: HCL traced beside the raw call timed as the tracer times; the traced cost beside the
         * vendor's timing calls; HCL's own traced overhead */
        for (int row = 0; row < 3 && lc->ran && lc->traced_ran; row++)
            for (int s = 0; s < 2; s++) {
                static const char *const kinds[3] = {"launch-traced", "launch-traced-cost", "launch-own-overhead"};
                double mine = row == 0   ? (s ? lc->traced_sync_us : lc->traced_submit_us)
                              : row == 1 ? launch_traced_cost(lc, s)
                                         : launch_own_overhead(dr, s);
                double theirs = row == 0 ? (s ? lc->timed_sync_us : lc->timed_submit_us) : launch_vendor_timing(lc, s);
                const int base = row < 2 && lc->timed_ran;
                char name[160];
                snprintf(name, sizeof name, row == 0 ? "%s" : "%s - %s", lc->timed_name, lc->vendor_name);
                crow(f, dr, kinds[row], s ? "launch+sync" : "submit", "", "us");
                fputs(",,,,", f);
                fprintf(f, "%d", s ? lc->n_sync : lc->n_submit);
                csv_num(f, mine);
                fputs(",,,,", f);
                cstr(f, base ? name : "");
                fputs(",", f);
                csv_num(f, base ? theirs : NAN);
                fputs(",", f);
                csv_num(f, base && row == 0 ? mine / theirs : NAN);
                fputs(",,,,,,,,,,,,,,,,,,", f);
                csv_energy(f, dr, NULL);
                fputc('\n', f);
            }
    }
    return report_close(f);
}

/* ---------------------------------------------------------------------------------------------------------
 * Flat rows of this run, for --compare and --plot.
 * ------------------------------------------------------------------------------------------------------- */
int flatten_runs(const device_run *runs, int nruns, flat_row **out, int *count) {
    flat_row *rows = xcalloc((size_t)nruns * BENCH_MAX_CASES + 1, sizeof *rows);
    int n = 0;
    for (int d = 0; d < nruns; d++) {
        const device_run *dr = &runs[d];
        for (int k = 0; dr->opened && k < dr->nresults; k++) {
            const result *r = &dr->results[k];
            flat_row *f = &rows[n++];
            snprintf(f->backend, sizeof f->backend, "%s", dr->info.backend);
            snprintf(f->device, sizeof f->device, "%s", dr->info.name);
            snprintf(f->identity, sizeof f->identity, "%s", dr->info.identity);
            snprintf(f->kernel, sizeof f->kernel, "%s", kernel_names[r->kernel]);
            snprintf(f->shape, sizeof f->shape, "%s", r->shape);
            snprintf(f->unit, sizeof f->unit, "%s", unit_of(r));
            const measure *h = &r->hcl, *bm = &r->base;
            f->rate = rate_of(r, h);
            f->best_rate = rate_at(r, h, h->min_s);
            f->worst_rate = rate_at(r, h, h->max_s);
            f->spread = spread_of(h->ran, h->min_s, h->max_s);
            f->base_rate = bm->ran ? rate_of(r, bm) : 0.0;
            f->base_best = bm->ran ? rate_at(r, bm, bm->min_s) : 0.0;
            f->base_worst = bm->ran ? rate_at(r, bm, bm->max_s) : 0.0;
            f->base_spread = spread_of(bm->ran, bm->min_s, bm->max_s);
            energy_flat(f, r);
            snprintf(f->base_name, sizeof f->base_name, "%s", r->base.present ? r->base.name : "");
            f->verified = r->hcl.checked && measure_ok(&r->hcl);
        }
    }
    *out = rows;
    *count = n;
    return 0;
}
