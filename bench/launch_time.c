/* The launch-cost comparison's shared parts: the empty kernel's sources (PTX and OpenCL C, the same code for HCL's
 * launch and the raw vendor call), and the timing of launch sides whose rounds alternate. launch.c times HCL's side;
 * the vendor baselines (baselines_cuda.c, baselines_opencl.c) time theirs beside it. */
#include "bench_lib.h"

const char bench_empty_ptx[] = ".version 7.0\n"
                               ".target sm_75\n"
                               ".address_size 64\n"
                               "\n"
                               ".visible .entry hcl_bench_empty()\n"
                               "{\n"
                               "\tret;\n"
                               "}\n";

const char bench_empty_cl[] = "__kernel void hcl_bench_empty(void) { }\n";

/* One round of a side: n_submit launches then one wait, then n_sync launches each waited for. */
static int round_of(launch_side *s, int n_submit, int n_sync, double *sub, double *syn) {
    if (s->enter && s->enter(s->err, s->err_size)) return 1;
    int bad = 0;
    double t0 = now_s();
    for (int i = 0; i < n_submit && !bad; i++) bad = s->fn(&s->ctx, i == n_submit - 1, s->err, s->err_size);
    double t1 = now_s();
    for (int i = 0; i < n_sync && !bad; i++) bad = s->fn(&s->ctx, 1, s->err, s->err_size);
    double t2 = now_s();
    if (s->leave) s->leave();
    *sub = (t1 - t0) / n_submit * 1e6;
    *syn = (t2 - t1) / n_sync * 1e6;
    return bad;
}

int launches_before_wait(int n_submit) { return n_submit > LAUNCH_WARMUP ? n_submit : LAUNCH_WARMUP; }

void time_launches(launch_side *sides, int count, int n_submit, int n_sync) {
    enum { ROUNDS = 7 };
    double sub[LAUNCH_SIDES_MAX][ROUNDS], syn[LAUNCH_SIDES_MAX][ROUNDS];
    int failed[LAUNCH_SIDES_MAX] = {0};
    if (count > LAUNCH_SIDES_MAX) count = LAUNCH_SIDES_MAX;
    for (int k = 0; k < count; k++) { /* warm-up: first-launch work, lazy loading, clocks */
        sides[k].ran = 0;
        double a, b;
        failed[k] = round_of(&sides[k], LAUNCH_WARMUP, 1, &a, &b);
    }
    for (int r = 0; r < ROUNDS; r++)
        for (int i = 0; i < count; i++) {
            const int k = r % 2 ? count - 1 - i : i;
            if (!failed[k]) failed[k] = round_of(&sides[k], n_submit, n_sync, &sub[k][r], &syn[k][r]);
        }
    for (int k = 0; k < count; k++) {
        if (failed[k]) continue;
        sort_doubles(sub[k], ROUNDS);
        sort_doubles(syn[k], ROUNDS);
        sides[k].submit_us = sub[k][ROUNDS / 2];
        sides[k].sync_us = syn[k][ROUNDS / 2];
        sides[k].ran = 1;
    }
}

void time_raw_beside(launch_side *hcl, int nhcl, const launch_side *raw, const launch_side *timed, int n_submit,
                     int n_sync, launch_cost *lc) {
    launch_side sides[LAUNCH_SIDES_MAX];
    int n = 0;
    for (int i = 0; i < nhcl && n < 2; i++) sides[n++] = hcl[i]; /* HCL first, as the rows read */
    const int r = n;
    sides[n++] = *raw;
    if (timed) sides[n++] = *timed;
    time_launches(sides, n, n_submit, n_sync);
    if ((lc->vendor_ran = sides[r].ran))
        lc->vendor_submit_us = sides[r].submit_us, lc->vendor_sync_us = sides[r].sync_us;
    if (timed && (lc->timed_ran = sides[r + 1].ran))
        lc->timed_submit_us = sides[r + 1].submit_us, lc->timed_sync_us = sides[r + 1].sync_us;
    for (int i = 0; i < r; i++) hcl[i] = sides[i];
}
