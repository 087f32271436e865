/* Helpers shared by bench's files: the clock, memory, bounded text copies, printing text wrapped to the table's
 * width, the report files (opening and closing them, their JSON values and CSV number cells), and the progress line. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void *xcalloc(size_t count, size_t size) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "bench: out of host memory\n");
        exit(1);
    }
    return p;
}

void copy_text(char *dst, size_t size, const char *src) {
    if (!size) return;
    size_t n = strlen(src);
    if (n >= size) n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void print_wrapped(FILE *f, const char *first, const char *indent, const char *text) {
    const char *prefix = first;
    size_t width = BENCH_WIDTH;
    const char *p = text;
    do {
        size_t room = width > strlen(prefix) ? width - strlen(prefix) : 1;
        size_t n = strlen(p);
        if (n > room) {
            /* the last space that keeps the line within the width; a word longer than a line is cut at a space
             * after it (a long path stays whole) */
            size_t cut = room;
            while (cut > 0 && p[cut] != ' ') cut--;
            if (cut == 0) {
                cut = room;
                while (p[cut] && p[cut] != ' ') cut++;
            }
            n = cut;
        }
        fprintf(f, "%s%.*s\n", prefix, (int)n, p);
        p += n;
        while (*p == ' ') p++;
        prefix = indent;
    } while (*p);
}

void print_wrappedf(FILE *f, const char *first, const char *indent, const char *fmt, ...) {
    char text[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    print_wrapped(f, first, indent, text);
}

void format_rate(char *out, size_t size, double v) {
    if (!(v > 0) || !isfinite(v))
        snprintf(out, size, "-");
    else if (v >= 9999.5)
        snprintf(out, size, v < 9999999.5 ? "%.0f" : "%.2g", v);
    else if (v >= 99.995)
        snprintf(out, size, "%.1f", v);
    else if (v >= 0.9995)
        snprintf(out, size, "%.2f", v);
    else
        snprintf(out, size, "%.3g", v);
}

void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

void json_num(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, "%.15g", v);
    else
        fputs("null", f); /* JSON has no NaN or infinity */
}

void json_field_num(FILE *f, const char *key, double v) {
    fprintf(f, ", \"%s\": ", key);
    json_num(f, v);
}

void json_field_str(FILE *f, const char *key, const char *s) {
    fprintf(f, ", \"%s\": ", key);
    json_str(f, s);
}

void csv_num(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, ",%.6g", v);
    else
        fputs(",", f);
}

FILE *report_open(const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "bench: cannot write %s\n", path);
    return f;
}

int report_close(FILE *f) {
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    return bad;
}

/* ---------------------------------------------------------------------------------------------------------
 * The progress line on stderr: rewritten in place on a terminal (at most 10 times a second), otherwise one line
 * every 10 s, so a CI log shows that a long run is alive without drowning in it.
 * ------------------------------------------------------------------------------------------------------- */
static struct {
    int enabled, tty, shown;
    double last;
    char prefix[64];
} prog;

void progress_start(int enabled) {
    prog.enabled = enabled;
    prog.tty = isatty(STDERR_FILENO);
}

void progress_prefix(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prog.prefix, sizeof prog.prefix, fmt, ap);
    va_end(ap);
}

void progress(const char *fmt, ...) {
    if (!prog.enabled) return;
    double t = now_s();
    if (t - prog.last < (prog.tty ? 0.1 : 10.0)) return;
    prog.last = t;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (prog.tty) {
        fprintf(stderr, "\r\033[K%s%s%s", prog.prefix, prog.prefix[0] ? " " : "", line);
        prog.shown = 1;
    } else {
        fprintf(stderr, "bench: %s%s%s ...\n", prog.prefix, prog.prefix[0] ? " " : "", line);
    }
    fflush(stderr);
}

void progress_done(void) {
    if (prog.tty && prog.shown) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
        prog.shown = 0;
        prog.last = 0.0;
    }
}
