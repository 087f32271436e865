/* The noise rules: a measurement's summary of its timed runs (median, fastest, slowest), how many runs a slow row
 * keeps (and how many groups a communication row takes), its spread (slowest over fastest timed run), when a row
 * counts as noisy, and when a change between two runs (--compare) counts as significant rather than within the runs'
 * noise. */
#include "bench_lib.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void sort_doubles(double *v, size_t n) { qsort(v, n, sizeof v[0], cmp_double); }

void measure_summarize(measure *m, double *times) {
    sort_doubles(times, (size_t)m->ran);
    m->min_s = times[0];
    m->max_s = times[m->ran - 1];
    m->med_s = m->ran % 2 ? times[m->ran / 2] : 0.5 * (times[m->ran / 2 - 1] + times[m->ran / 2]);
}

int repeats_within_budget(double run_s, int repeats, int repeats_set) {
    if (repeats_set || !(run_s * repeats > 3.0)) return repeats;
    int fewer = (int)(3.0 / run_s);
    return fewer < 3 ? 3 : fewer;
}

/* Without --repeats (and without --quick), a row whose groups are short takes more of them: as many as fill about
 * COMM_FILL_S of timed groups (its figures together), up to COMM_MAX_GROUPS. A row of 1 MiB takes 15-25 us an
 * iteration on two GPUs, 0.3-0.5 ms a group: the default 7 groups left its median to the host's jitter (the same build
 * read 0.93 to 1.01 of NCCL from run to run), where 201 groups of each figure hold it within about 0.01. Long rows
 * keep the usual rule (fewer, at least 3, past about 3 s in all). */
#define COMM_FILL_S 0.3
#define COMM_MAX_GROUPS 201

int comm_groups(const options *o, double first_pair_s) {
    int repeats = repeats_within_budget(first_pair_s, o->repeats, o->repeats_set);
    if (o->repeats_set || o->quick || !(first_pair_s > 0)) return repeats;
    const double fill = COMM_FILL_S / first_pair_s;
    if (fill > repeats) repeats = fill > COMM_MAX_GROUPS ? COMM_MAX_GROUPS : (int)fill;
    return repeats;
}

double spread_of(int runs, double min_s, double max_s) {
    if (runs < 2 || !(min_s > 0) || !(max_s >= min_s) || !isfinite(max_s)) return NAN;
    return max_s / min_s;
}

int is_noisy(double spread, double threshold) { return isfinite(spread) && spread > threshold; }

cmp_verdict compare_verdict(double ratio, double spread_old, double spread_new) {
    if (!(ratio > 0) || !isfinite(ratio)) return CMP_NO_RATE;
    if (!(spread_old >= 1) || !(spread_new >= 1) || !isfinite(spread_old) || !isfinite(spread_new))
        return CMP_NO_SPREAD;
    double s = fmax(spread_old, spread_new); /* outside [1/s, s] for the wider one: outside both */
    if (ratio > s) return CMP_FASTER;
    if (ratio < 1.0 / s) return CMP_SLOWER;
    return CMP_NOISE;
}

const char *verdict_text(cmp_verdict v) {
    switch (v) {
    case CMP_FASTER: return "faster (significant)";
    case CMP_SLOWER: return "slower (significant)";
    case CMP_NOISE: return "within noise";
    case CMP_NO_SPREAD: return "spread unknown";
    case CMP_NO_RATE: break;
    }
    return "no rate";
}
