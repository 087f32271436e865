/* bench --comm: how a figure is timed (comm_lib.h says how, for HCL and every baseline alike): warm-up single iterations,
 * then groups of --comm-iters iterations, two figures' groups alternating so that a drift of the machine falls on
 * both. */
#include "comm_lib.h"

int comm_timed_pair(const options *o, const comm_timing *t, int count) {
    double times[2][BENCH_MAX_REPEATS];
    int repeats = o->repeats, failed = 0;
    for (int k = 0; k < count; k++) {
        t[k].m->present = 1;
        t[k].m->ran = 0;
        double t0 = now_s();
        for (int it = 0; it < o->warmup && !(failed & 1 << k); it++) {
            progress("%s (warm-up %d/%d)", t[k].what, it + 1, o->warmup);
            if (t[k].fn(t[k].ctx, 1, t[k].m->error, sizeof t[k].m->error)) failed |= 1 << k;
            if (it == 0) t[k].m->first_s = now_s() - t0;
        }
    }
    for (int r = 0; r < repeats && failed != (1 << count) - 1; r++)
        for (int i = 0; i < count; i++) {
            const int k = r % 2 ? count - 1 - i : i; /* a b, b a, a b, ...: a drift falls on both */
            if (failed & 1 << k) continue;
            progress("%s (run %d/%d)", t[k].what, r + 1, repeats);
            double s = now_s();
            for (int it = 0; it < o->comm_iters && !(failed & 1 << k); it++)
                if (t[k].fn(t[k].ctx, it == o->comm_iters - 1, t[k].m->error, sizeof t[k].m->error)) failed |= 1 << k;
            if (failed & 1 << k) continue;
            times[k][t[k].m->ran++] = (now_s() - s) / o->comm_iters;
            if (r == 0 && k == 0) repeats = comm_groups(o, times[0][0] * o->comm_iters * count);
        }
    for (int k = 0; k < count; k++) {
        if (failed & 1 << k)
            t[k].m->failed = 1;
        else
            measure_summarize(t[k].m, times[k]);
    }
    return failed;
}

int comm_timed(const options *o, const char *what, comm_iter_fn fn, void *ctx, measure *m) {
    const comm_timing t = {what, fn, ctx, m};
    return comm_timed_pair(o, &t, 1);
}
