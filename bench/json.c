/* A small JSON reader (enough for bench's own files) and --compare: this run's rates against a saved run's. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;

typedef struct jval {
    jtype t;
    double num;
    int boolean;
    char *str;
    struct jval *items; /* array items or object values */
    char **keys;        /* object keys */
    int n;
} jval;

typedef struct jparser {
    const char *p, *end;
    char err[160];
    int depth;
} jparser;

static void jfree(jval *v) {
    free(v->str);
    for (int i = 0; i < v->n; i++) {
        jfree(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    memset(v, 0, sizeof *v);
}

static void skip_ws(jparser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static int fail(jparser *ps, const char *what) {
    if (!ps->err[0]) snprintf(ps->err, sizeof ps->err, "%s", what);
    return -1;
}

static void put_utf8(char *out, size_t *len, unsigned cp) {
    if (cp < 0x80) {
        out[(*len)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*len)++] = (char)(0xC0 | (cp >> 6));
        out[(*len)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*len)++] = (char)(0xE0 | (cp >> 12));
        out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*len)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*len)++] = (char)(0xF0 | (cp >> 18));
        out[(*len)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*len)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*len)++] = (char)(0x80 | (cp & 0x3F));
    }
}

static int hex4(const char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

static int parse_string(jparser *ps, char **out) {
    ps->p++; /* the opening quote */
    const char *start = ps->p;
    size_t cap = 0;
    for (const char *q = start; q < ps->end && *q != '"'; q++, cap++)
        if (*q == '\\') q++;
    char *s = malloc(cap * 4 + 1);
    if (!s) return fail(ps, "out of memory");
    size_t len = 0;
    while (ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20) {
            free(s);
            return fail(ps, "control character in a string");
        }
        if (c != '\\') {
            s[len++] = (char)c;
            continue;
        }
        if (ps->p >= ps->end) break;
        char e = *ps->p++;
        switch (e) {
        case '"': s[len++] = '"'; break;
        case '\\': s[len++] = '\\'; break;
        case '/': s[len++] = '/'; break;
        case 'b': s[len++] = '\b'; break;
        case 'f': s[len++] = '\f'; break;
        case 'n': s[len++] = '\n'; break;
        case 'r': s[len++] = '\r'; break;
        case 't': s[len++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (ps->end - ps->p < 4 || hex4(ps->p, &cp)) {
                free(s);
                return fail(ps, "bad \\u escape");
            }
            ps->p += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && ps->end - ps->p >= 6 && ps->p[0] == '\\' && ps->p[1] == 'u') {
                unsigned lo;
                if (!hex4(ps->p + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    ps->p += 6;
                }
            }
            put_utf8(s, &len, cp);
            break;
        }
        default: free(s); return fail(ps, "bad escape in a string");
        }
    }
    if (ps->p >= ps->end) {
        free(s);
        return fail(ps, "unterminated string");
    }
    ps->p++;
    s[len] = '\0';
    *out = s;
    return 0;
}

static int parse_value(jparser *ps, jval *v);

static int push(jparser *ps, jval *v, jval *item, char *key) {
    jval *items = realloc(v->items, (size_t)(v->n + 1) * sizeof *items);
    if (!items) return fail(ps, "out of memory");
    v->items = items;
    if (v->t == J_OBJ) {
        char **keys = realloc(v->keys, (size_t)(v->n + 1) * sizeof *keys);
        if (!keys) return fail(ps, "out of memory");
        v->keys = keys;
        v->keys[v->n] = key;
    }
    v->items[v->n++] = *item;
    return 0;
}

static int parse_container(jparser *ps, jval *v, int obj) {
    v->t = obj ? J_OBJ : J_ARR;
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
        ps->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(ps);
        if (obj) {
            if (ps->p >= ps->end || *ps->p != '"') return fail(ps, "expected a key");
            if (parse_string(ps, &key)) return -1;
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                return fail(ps, "expected ':'");
            }
            ps->p++;
        }
        jval item;
        memset(&item, 0, sizeof item);
        if (parse_value(ps, &item) || push(ps, v, &item, key)) {
            jfree(&item);
            free(key);
            return -1;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == (obj ? '}' : ']')) {
            ps->p++;
            return 0;
        }
        return fail(ps, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int parse_value(jparser *ps, jval *v) {
    skip_ws(ps);
    if (ps->p >= ps->end) return fail(ps, "unexpected end");
    if (++ps->depth > 64) return fail(ps, "nested too deeply");
    int rc = 0;
    char c = *ps->p;
    if (c == '{' || c == '[') {
        rc = parse_container(ps, v, c == '{');
    } else if (c == '"') {
        v->t = J_STR;
        rc = parse_string(ps, &v->str);
    } else if (!strncmp(ps->p, "true", 4) || !strncmp(ps->p, "false", 5)) {
        v->t = J_BOOL;
        v->boolean = c == 't';
        ps->p += v->boolean ? 4 : 5;
    } else if (!strncmp(ps->p, "null", 4)) {
        v->t = J_NULL;
        ps->p += 4;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        char *end = NULL;
        v->t = J_NUM;
        v->num = strtod(ps->p, &end);
        if (end == ps->p) rc = fail(ps, "bad number");
        ps->p = end;
    } else {
        rc = fail(ps, "unexpected character");
    }
    ps->depth--;
    return rc;
}

static const jval *get(const jval *o, const char *key) {
    if (!o || o->t != J_OBJ) return NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], key)) return &o->items[i];
    return NULL;
}

static const char *get_str(const jval *o, const char *key) {
    const jval *v = get(o, key);
    return v && v->t == J_STR ? v->str : "";
}

static double get_num(const jval *o, const char *key) {
    const jval *v = get(o, key);
    return v && v->t == J_NUM ? v->num : 0.0;
}

/* One measure object of a saved run: its median rate, best and worst rate and spread, from its times (files
 * written before the spread fields have the times too). */
static void load_measure(const jval *m, double *rate, double *best, double *worst, double *spread) {
    double med = get_num(m, "median_ms"), mn = get_num(m, "min_ms"), mx = get_num(m, "max_ms");
    *rate = get_num(m, "rate");
    *best = mn > 0 ? *rate * med / mn : 0.0;
    *worst = mx > 0 ? *rate * med / mx : 0.0;
    *spread = spread_of((int)get_num(m, "runs"), mn, mx);
}

int load_json_rows(const char *path, flat_row **out, int *count, char *err, size_t err_size) {
    *out = NULL;
    *count = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "cannot open %s: %s", path, strerror(errno));
        return 1;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    for (size_t got; text && (got = fread(text + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            char *t = realloc(text, cap *= 2);
            if (!t) {
                free(text);
                text = NULL;
            }
            text = t;
        }
    }
    fclose(f);
    if (!text) {
        snprintf(err, err_size, "out of memory reading %s", path);
        return 1;
    }
    jparser ps = {text, text + len, "", 0};
    jval root;
    memset(&root, 0, sizeof root);
    int rc = parse_value(&ps, &root);
    skip_ws(&ps);
    if (!rc && ps.p != ps.end) rc = fail(&ps, "text after the JSON value");
    if (rc) {
        snprintf(err, err_size, "%s: not valid JSON at byte %ld: %s", path, (long)(ps.p - text), ps.err);
        jfree(&root);
        free(text);
        return 1;
    }
    free(text);
    if (strncmp(get_str(&root, "schema"), "hcl-bench/", 10)) {
        snprintf(err, err_size, "%s: not a bench JSON file (no \"schema\": \"hcl-bench/...\")", path);
        jfree(&root);
        return 1;
    }
    const jval *devs = get(&root, "devices");
    int n = 0;
    for (int d = 0; devs && devs->t == J_ARR && d < devs->n; d++) {
        const jval *res = get(&devs->items[d], "results");
        n += res && res->t == J_ARR ? res->n : 0;
    }
    flat_row *rows = xcalloc((size_t)(n ? n : 1), sizeof *rows);
    n = 0;
    for (int d = 0; devs && devs->t == J_ARR && d < devs->n; d++) {
        const jval *dev = &devs->items[d], *res = get(dev, "results");
        for (int i = 0; res && res->t == J_ARR && i < res->n; i++) {
            const jval *r = &res->items[i], *h = get(r, "hcl"), *b = get(r, "baseline");
            flat_row *fr = &rows[n++];
            snprintf(fr->backend, sizeof fr->backend, "%s", get_str(dev, "backend"));
            snprintf(fr->device, sizeof fr->device, "%s", get_str(dev, "name"));
            snprintf(fr->identity, sizeof fr->identity, "%s", get_str(dev, "identity"));
            snprintf(fr->kernel, sizeof fr->kernel, "%s", get_str(r, "kernel"));
            snprintf(fr->shape, sizeof fr->shape, "%s", get_str(r, "shape"));
            snprintf(fr->unit, sizeof fr->unit, "%s", get_str(r, "unit"));
            load_measure(h, &fr->rate, &fr->best_rate, &fr->worst_rate, &fr->spread);
            const jval *ver = get(h, "verified");
            fr->verified = ver && ver->t == J_BOOL && ver->boolean;
            if (b && b->t == J_OBJ) {
                load_measure(b, &fr->base_rate, &fr->base_best, &fr->base_worst, &fr->base_spread);
                snprintf(fr->base_name, sizeof fr->base_name, "%s", get_str(b, "name"));
            }
        }
    }
    jfree(&root);
    *out = rows;
    *count = n;
    return 0;
}

/* The old row for a new one: the same device identity, else the same device name, else the same backend; always
 * the same kernel and shape. */
const flat_row *find_old(const flat_row *old_rows, int nold, const flat_row *r) {
    for (int pass = 0; pass < 3; pass++)
        for (int i = 0; i < nold; i++) {
            const flat_row *o = &old_rows[i];
            if (strcmp(o->backend, r->backend) || strcmp(o->kernel, r->kernel) || strcmp(o->shape, r->shape)) continue;
            if ((pass == 0 && !strcmp(o->identity, r->identity)) || (pass == 1 && !strcmp(o->device, r->device)) ||
                pass == 2)
                return o;
        }
    return NULL;
}

/* The table's spread pair "1.05/1.20" (then/now), "-" for an unknown one. */
static void spread_pair(char *out, size_t size, double then, double now) {
    char a[16] = "-", b[16] = "-";
    if (isfinite(then)) snprintf(a, sizeof a, then < 9.995 ? "%.2f" : then < 99.95 ? "%.1f" : ">99", then);
    if (isfinite(now)) snprintf(b, sizeof b, now < 9.995 ? "%.2f" : now < 99.95 ? "%.1f" : ">99", now);
    snprintf(out, size, "%s/%s", a, b);
}

int print_compare(const char *old_path, const flat_row *old_rows, int nold, const flat_row *rows, int nrows) {
    char line[1024];
    snprintf(line, sizeof line,
             "compare with %s: HCL's median rate now / then (>1: faster now), rows matched by backend, device, kernel "
             "and shape. A change is significant only when now/then lies outside [1/spread, spread] of both runs "
             "(spread: slowest / fastest timed run, then/now); otherwise it is within noise.",
             old_path);
    printf("\n");
    print_wrapped(stdout, "==== ", "     ", line);
    printf("\n%-9s %-7s %-19s %-7s %8s %8s %8s %-9s  %s\n", "backend", "kernel", "shape", "unit", "then", "now",
           "now/then", "spreads", "verdict");
    int matched = 0, count[CMP_NO_RATE + 1] = {0};
    double logsum = 0.0;
    for (int i = 0; i < nrows; i++) {
        const flat_row *r = &rows[i], *o = find_old(old_rows, nold, r);
        char then[16] = "-", now[16], ratio_s[16] = "-", spreads[32] = "", verdict[64] = "(new row)";
        format_rate(now, sizeof now, r->rate);
        if (o) {
            double ratio = o->rate > 0 && r->rate > 0 ? r->rate / o->rate : NAN;
            cmp_verdict v = compare_verdict(ratio, o->spread, r->spread);
            count[v]++;
            format_rate(then, sizeof then, o->rate);
            if (isfinite(ratio))
                snprintf(ratio_s, sizeof ratio_s, ratio >= 0.1 && ratio < 999.5 ? "%.3f" : "%.3g", ratio);
            spread_pair(spreads, sizeof spreads, o->spread, r->spread);
            snprintf(verdict, sizeof verdict, "%s%s", verdict_text(v),
                     strcmp(o->device, r->device) ? " (other device)" : "");
            if (isfinite(ratio)) {
                matched++;
                logsum += log(ratio);
            }
        }
        printf("%-9s %-7s %-19s %-7s %8s %8s %8s %-9s  %s\n", r->backend, r->kernel, r->shape, r->unit, then, now,
               ratio_s, spreads, verdict);
    }
    if (matched) {
        snprintf(line, sizeof line,
                 "%d rows matched; geometric mean now/then %.3f; %d significant (%d faster, %d slower), %d within "
                 "noise%s",
                 matched, exp(logsum / matched), count[CMP_FASTER] + count[CMP_SLOWER], count[CMP_FASTER],
                 count[CMP_SLOWER], count[CMP_NOISE], count[CMP_NO_SPREAD] ? ", " : "");
        if (count[CMP_NO_SPREAD])
            snprintf(line + strlen(line), sizeof line - strlen(line),
                     "%d with a spread unknown (fewer than 2 timed runs: nothing called significant)",
                     count[CMP_NO_SPREAD]);
        printf("\n");
        print_wrapped(stdout, "", "  ", line);
    } else {
        printf("\nno row matched the saved run\n");
    }
    fflush(stdout);
    return matched;
}
