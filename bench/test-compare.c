/* ctest tools-bench-compare-logic: bench's noise rules and --compare at the unit level. The spread of a
 * measurement, when a row is noisy, the verdict on a change (significant only outside both runs' spread), and the
 * same through two saved JSON files written here with known times: load_json_rows must recover each row's median,
 * best and worst rate and spread (from the times, so files older than the spread fields compare too), and
 * print_compare must print each row's verdict and the counts, within 120 columns even at its widest; and how many
 * groups a communication row takes (comm_groups). Links noise.c, json.c and util.c only. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

/* bench --comm's groups a row: more for short groups (up to 201, about 0.3 s in all), not with --quick or --repeats,
 * fewer (at least 3) past about 3 s, the default otherwise. */
static void comm_group_rule(void) {
    options o;
    memset(&o, 0, sizeof o);
    o.repeats = 7;
    HCL_TS_CHECK(comm_groups(&o, 0.8e-3) == 201, "0.8 ms a pair of groups: 201 (the cap), got %d",
                 comm_groups(&o, 0.8e-3));
    HCL_TS_CHECK(comm_groups(&o, 3e-3) == 100, "3 ms a pair: 100 (0.3 s), got %d", comm_groups(&o, 3e-3));
    HCL_TS_CHECK(comm_groups(&o, 0.1) == 7, "0.1 s a pair: the default 7, got %d", comm_groups(&o, 0.1));
    HCL_TS_CHECK(comm_groups(&o, 1.0) == 3, "1 s a pair: 3 (about 3 s), got %d", comm_groups(&o, 1.0));
    HCL_TS_CHECK(comm_groups(&o, 0.0) == 7, "an unmeasured pair: the default, got %d", comm_groups(&o, 0.0));
    o.quick = 1;
    HCL_TS_CHECK(comm_groups(&o, 0.8e-3) == 7, "--quick: no more groups, got %d", comm_groups(&o, 0.8e-3));
    o.quick = 0;
    o.repeats = 11, o.repeats_set = 1;
    HCL_TS_CHECK(comm_groups(&o, 0.8e-3) == 11 && comm_groups(&o, 1.0) == 11, "--repeats 11 is kept, got %d / %d",
                 comm_groups(&o, 0.8e-3), comm_groups(&o, 1.0));
}

static void rules(void) {
    HCL_TS_CHECK(isnan(spread_of(1, 1.0, 1.0)), "one run: spread unknown");
    HCL_TS_CHECK(isnan(spread_of(0, 0.0, 0.0)), "no run: spread unknown");
    HCL_TS_CHECK(isnan(spread_of(3, 0.0, 1.0)), "a zero time: spread unknown");
    HCL_TS_CHECK(near(spread_of(3, 2.0, 2.5), 1.25), "spread 2.5/2.0 = 1.25, got %g", spread_of(3, 2.0, 2.5));
    HCL_TS_CHECK(near(spread_of(2, 1.0, 1.0), 1.0), "equal times: spread 1");
    HCL_TS_CHECK(!is_noisy(1.10, 1.10), "a spread equal to the threshold is not noisy");
    HCL_TS_CHECK(is_noisy(1.1001, 1.10), "a spread above the threshold is noisy");
    HCL_TS_CHECK(!is_noisy(NAN, 1.10), "an unknown spread is not called noisy");

    static const struct {
        double ratio, spread_old, spread_new;
        cmp_verdict want;
    } cases[] = {
        {1.05, 1.10, 1.02, CMP_NOISE},      /* inside the old run's spread */
        {1.15, 1.10, 1.02, CMP_FASTER},     /* outside both */
        {0.85, 1.10, 1.02, CMP_SLOWER},     /* below 1/spread of both */
        {1.15, 1.02, 1.20, CMP_NOISE},      /* inside the new run's spread only: still noise */
        {0.85, 1.02, 1.20, CMP_NOISE},      /* 1/1.20 = 0.833 < 0.85 */
        {0.80, 1.02, 1.20, CMP_SLOWER},     /* 0.80 < 0.833 */
        {1.10, 1.10, 1.10, CMP_NOISE},      /* on the edge: not outside */
        {1.0 / 1.10, 1.10, 1.0, CMP_NOISE}, /* the lower edge */
        {1.0001, 1.0, 1.0, CMP_FASTER},     /* two noiseless runs: any change counts */
        {1.95, 2.00, 1.01, CMP_NOISE},      /* the x1.95 on a noisy reduce: within noise */
        {1.50, NAN, 1.01, CMP_NO_SPREAD},   /* a run of one timed run */
        {1.50, 1.01, NAN, CMP_NO_SPREAD},   {0.0, 1.01, 1.01, CMP_NO_RATE}, {NAN, 1.01, 1.01, CMP_NO_RATE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cmp_verdict got = compare_verdict(cases[i].ratio, cases[i].spread_old, cases[i].spread_new);
        HCL_TS_CHECK(got == cases[i].want, "case %zu: ratio %g, spreads %g/%g: got '%s', want '%s'", i, cases[i].ratio,
                     cases[i].spread_old, cases[i].spread_new, verdict_text(got), verdict_text(cases[i].want));
    }
}

/* A saved run with one device and the given rows: each row {shape, runs, median, min, max ms} at work 1e9 bytes, so
 * its median rate is 1000 / median_ms GB/s. old_format leaves out the fields the spread change added. */
typedef struct row {
    const char *shape;
    int runs;
    double med, mn, mx;
} row;

static void write_run_of(const char *path, const char *backend, const char *device, const row *rows, int n,
                         int old_format) {
    FILE *f = fopen(path, "w");
    HCL_TS_CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fprintf(f,
            "{\"schema\": \"hcl-bench/1\", \"devices\": [{\"selector\": \"%s:0\", \"status\": \"ran\", "
            "\"backend\": \"%s\", \"name\": \"%s\", \"identity\": \"%s:%s:0\", \"results\": [",
            backend, backend, device, backend, device);
    for (int i = 0; i < n; i++) {
        const row *r = &rows[i];
        fprintf(f,
                "%s{\"kernel\": \"vecadd\", \"type\": \"f32\", \"shape\": \"%s\", \"unit\": \"GB/s\", \"hcl\": "
                "{\"runs\": %d, \"median_ms\": %.17g, \"min_ms\": %.17g, \"max_ms\": %.17g, \"work\": 1e9, "
                "\"rate\": %.17g, \"verified\": true",
                i ? ", " : "", r->shape, r->runs, r->med, r->mn, r->mx, 1000.0 / r->med);
        if (!old_format)
            fprintf(f, ", \"median_rate\": %.17g, \"best_rate\": %.17g, \"spread\": %.17g", 1000.0 / r->med,
                    1000.0 / r->mn, r->mx / r->mn);
        fputs("}, \"baseline\": null}", f);
    }
    fputs("]}]}\n", f);
    fclose(f);
}

static void write_run(const char *path, const row *rows, int n, int old_format) {
    write_run_of(path, "host", "Test CPU", rows, n, old_format);
}

static const flat_row *find(const flat_row *rows, int n, const char *shape) {
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].shape, shape)) return &rows[i];
    return NULL;
}

/* Run print_compare with stdout caught in a temporary file; returns its text (malloc'd). */
static char *compare_text(const char *old_path, const flat_row *o, int no, const flat_row *r, int nr, int *matched) {
    FILE *tmp = tmpfile();
    HCL_TS_CHECK(tmp != NULL, "tmpfile");
    if (!tmp) return NULL;
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    dup2(fileno(tmp), STDOUT_FILENO);
    *matched = print_compare(old_path, o, no, r, nr);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    long len = ftell(tmp);
    char *text = calloc((size_t)len + 1, 1);
    rewind(tmp);
    if (text && fread(text, 1, (size_t)len, tmp) != (size_t)len) text[0] = '\0';
    fclose(tmp);
    return text;
}

/* The line of the compare table for a shape must carry the verdict. */
static void expect_line(const char *text, const char *shape, const char *verdict) {
    char key[64];
    snprintf(key, sizeof key, " %s ", shape);
    const char *p = text ? strstr(text, key) : NULL;
    const char *eol = p ? strchr(p, '\n') : NULL;
    const char *v = p ? strstr(p, verdict) : NULL;
    HCL_TS_CHECK(p && v && (!eol || v < eol), "compare line of %s does not say '%s'", shape, verdict);
}

static void files(const char *dir) {
    /* then: spreads 1.05, 1.30, 1.02, 1.02, (one run), 1.02; now: the rates below with spreads 1.02, 1.02, 1.25,
     * 1.02, 1.02, 1.02 */
    const row then[] = {
        {"a", 5, 1.00, 1.00, 1.05}, {"b", 5, 1.00, 0.90, 1.17}, {"c", 5, 1.00, 1.00, 1.02},
        {"d", 5, 1.00, 1.00, 1.02}, {"e", 1, 1.00, 1.00, 1.00}, {"f", 5, 1.00, 1.00, 1.02},
    };
    const row now[] = {
        {"a", 5, 0.80, 0.80, 0.816},  /* x1.25 faster, beyond 1.05 and 1.02: significant */
        {"b", 5, 0.80, 0.80, 0.816},  /* x1.25 but then's spread is 1.30: within noise */
        {"c", 5, 1.20, 1.00, 1.25},   /* x0.833, now's spread 1.25: within noise */
        {"d", 5, 1.20, 1.20, 1.224},  /* x0.833 beyond 1.02 both: slower, significant */
        {"e", 5, 0.50, 0.50, 0.51},   /* then had one run: spread unknown */
        {"f", 5, 1.01, 1.01, 1.0302}, /* x0.99 within 1.02: noise */
    };
    const int n = 6;
    char old_path[4096], new_path[4096], legacy_path[4096];
    snprintf(old_path, sizeof old_path, "%s/then.json", dir);
    snprintf(new_path, sizeof new_path, "%s/now.json", dir);
    snprintf(legacy_path, sizeof legacy_path, "%s/then-legacy.json", dir);
    write_run(old_path, then, n, 0);
    write_run(new_path, now, n, 0);
    write_run(legacy_path, then, n, 1);

    flat_row *o = NULL, *r = NULL, *l = NULL;
    int no = 0, nr = 0, nl = 0;
    char err[512] = "";
    HCL_TS_CHECK(!load_json_rows(old_path, &o, &no, err, sizeof err), "load %s: %s", old_path, err);
    HCL_TS_CHECK(!load_json_rows(new_path, &r, &nr, err, sizeof err), "load %s: %s", new_path, err);
    HCL_TS_CHECK(!load_json_rows(legacy_path, &l, &nl, err, sizeof err), "load %s: %s", legacy_path, err);
    HCL_TS_CHECK(no == n && nr == n && nl == n, "rows: %d, %d, %d (want %d each)", no, nr, nl, n);
    if (no != n || nr != n || nl != n) goto done;

    const cmp_verdict want[] = {CMP_FASTER, CMP_NOISE, CMP_NOISE, CMP_SLOWER, CMP_NO_SPREAD, CMP_NOISE};
    for (int i = 0; i < n; i++) {
        const flat_row *t = find(o, no, then[i].shape), *w = find(r, nr, now[i].shape),
                       *lg = find(l, nl, then[i].shape);
        HCL_TS_CHECK(t && w && lg, "row %s missing", then[i].shape);
        if (!t || !w || !lg) continue;
        HCL_TS_CHECK(near(t->rate, 1000.0 / then[i].med), "%s: rate %g", t->shape, t->rate);
        HCL_TS_CHECK(near(t->best_rate, 1000.0 / then[i].mn), "%s: best %g", t->shape, t->best_rate);
        HCL_TS_CHECK(near(t->worst_rate, 1000.0 / then[i].mx), "%s: worst %g", t->shape, t->worst_rate);
        if (then[i].runs > 1)
            HCL_TS_CHECK(near(t->spread, then[i].mx / then[i].mn), "%s: spread %g", t->shape, t->spread);
        else
            HCL_TS_CHECK(isnan(t->spread), "%s: one run, spread %g (want unknown)", t->shape, t->spread);
        /* a file without the new fields gives the same figures */
        HCL_TS_CHECK(near(lg->best_rate, t->best_rate) && (near(lg->spread, t->spread) || isnan(t->spread)),
                     "%s: the legacy file gives best %g spread %g", t->shape, lg->best_rate, lg->spread);
        cmp_verdict v = compare_verdict(w->rate / t->rate, t->spread, w->spread);
        HCL_TS_CHECK(v == want[i], "%s: now/then %.3f, spreads %.3f/%.3f: '%s', want '%s'", t->shape, w->rate / t->rate,
                     t->spread, w->spread, verdict_text(v), verdict_text(want[i]));
    }

    int matched = 0;
    char *text = compare_text("then.json", o, no, r, nr, &matched);
    HCL_TS_CHECK(matched == n, "print_compare matched %d rows, want %d", matched, n);
    static const char *const shapes[] = {"a", "b", "c", "d", "e", "f"};
    for (int i = 0; i < n; i++) expect_line(text, shapes[i], verdict_text(want[i]));
    HCL_TS_CHECK(text && strstr(text, "2 significant (1 faster, 1 slower), 3 within noise"),
                 "print_compare's summary does not count 2 significant and 3 within noise");
    HCL_TS_CHECK(text && strstr(text, "within noise, 1 with a spread"),
                 "print_compare's summary misses the unknown one");
    if (text) fputs(text, stdout);
    free(text);

    flat_row *missing = NULL;
    int nmissing = 0;
    HCL_TS_CHECK(load_json_rows("/nonexistent-hcl-bench/x.json", &missing, &nmissing, err, sizeof err) != 0,
                 "a missing file loads");
    free(missing);
done:
    free(o);
    free(r);
    free(l);
}

/* The compare table stays within BENCH_WIDTH columns at its widest: the longest backend name, a 19-character shape,
 * rates of 10^7, spreads of 10^4 and another device's run (" (other device)" after the verdict). */
static void widest(const char *dir) {
    const row then[] = {{"8192x8192x8192 tf32", 5, 1e-4, 1e-4, 1.0}, {"268435456 bf16", 5, 1e-4, 1e-4, 1e-4}};
    const row now[] = {{"8192x8192x8192 tf32", 5, 1e-4, 1e-4, 1.0}, {"268435456 bf16", 5, 1.0, 1e-4, 1.0}};
    char old_path[4096], new_path[4096];
    snprintf(old_path, sizeof old_path, "%s/wide-then.json", dir);
    snprintf(new_path, sizeof new_path, "%s/wide-now.json", dir);
    write_run_of(old_path, "levelzero", "Intel(R) Data Center GPU Max 1550", then, 2, 0);
    write_run_of(new_path, "levelzero", "Intel(R) Data Center GPU Max 1100", now, 2, 0);
    flat_row *o = NULL, *r = NULL;
    int no = 0, nr = 0, matched = 0;
    char err[512] = "";
    HCL_TS_CHECK(!load_json_rows(old_path, &o, &no, err, sizeof err), "load %s: %s", old_path, err);
    HCL_TS_CHECK(!load_json_rows(new_path, &r, &nr, err, sizeof err), "load %s: %s", new_path, err);
    char *text = o && r ? compare_text(old_path, o, no, r, nr, &matched) : NULL;
    HCL_TS_CHECK(text && strstr(text, "(other device)"), "the other device's run is not named");
    int lines = 0;
    for (const char *p = text; p && *p; lines++) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        HCL_TS_CHECK(len <= BENCH_WIDTH, "a compare line of %zu columns: %.*s", len, (int)len, p);
        p = eol ? eol + 1 : p + len;
    }
    HCL_TS_CHECK(lines >= 6, "the compare text has %d lines", lines);
    if (text) fputs(text, stdout);
    free(text);
    free(o);
    free(r);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : ".";
    rules();
    comm_group_rule();
    files(dir);
    widest(dir);
    printf("%d checks, %d failed\n", hcl_ts_checks(), hcl_ts_failures());
    return hcl_ts_failures() ? 1 : 0;
}
