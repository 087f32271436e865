/* bench's telemetry: a sampler thread per device that reads its power, energy counter, clocks and throttle reasons
 * (hcl_telemetry.h), each row's energy window (the timed runs, extended to --energy-window seconds), and the idle
 * power. The timed runs' thread only reads the energy counter at a window's two ends, outside the timed runs. */
#define _POSIX_C_SOURCE 200809L
#include "bench_lib.h"

#include <hcl/hcl_telemetry.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLES 65536 /* a ring: 20 minutes at 20 ms */

typedef struct sample {
    double t, power, energy, sm, mem; /* NaN: unknown */
    uint32_t throttle;
    int throttle_known;
} sample;

typedef struct bench_sampler {
    uint32_t index; /* the device's global index */
    unsigned interval_ms;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop, running;
    long count; /* samples taken (the ring holds the last SAMPLES) */
    sample ring[SAMPLES];
} bench_sampler;

static const uint32_t sample_fields = HCL_TELEMETRY_BIT(HCL_TELEMETRY_POWER) | HCL_TELEMETRY_BIT(HCL_TELEMETRY_ENERGY) |
                                      HCL_TELEMETRY_BIT(HCL_TELEMETRY_CLOCK_SM) |
                                      HCL_TELEMETRY_BIT(HCL_TELEMETRY_CLOCK_MEMORY) |
                                      HCL_TELEMETRY_BIT(HCL_TELEMETRY_THROTTLE);

static double field(const hcl_telemetry *t, hcl_telemetry_field f) {
    return t->fields[f].known ? t->fields[f].value : NAN;
}

/* One reading as a sample (t: the bench clock, now_s, at the reading). */
static int read_sample(uint32_t index, uint32_t fields, sample *out) {
    hcl_telemetry t;
    if (hcl_device_get_telemetry_by_index(index, fields, &t) != HCL_SUCCESS) return 0;
    out->t = now_s();
    out->power = field(&t, HCL_TELEMETRY_POWER);
    out->energy = field(&t, HCL_TELEMETRY_ENERGY);
    out->sm = field(&t, HCL_TELEMETRY_CLOCK_SM);
    out->mem = field(&t, HCL_TELEMETRY_CLOCK_MEMORY);
    out->throttle_known = t.fields[HCL_TELEMETRY_THROTTLE].known;
    out->throttle = out->throttle_known ? (uint32_t)t.fields[HCL_TELEMETRY_THROTTLE].value : 0;
    return 1;
}

static void *sampler_main(void *arg) {
    bench_sampler *s = arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        pthread_mutex_unlock(&s->lock);
        sample x;
        int ok = read_sample(s->index, sample_fields, &x);
        pthread_mutex_lock(&s->lock);
        if (ok) s->ring[s->count++ % SAMPLES] = x;
        long long ns = next.tv_nsec + (long long)s->interval_ms * 1000000ll;
        next.tv_sec += (time_t)(ns / 1000000000ll);
        next.tv_nsec = (long)(ns % 1000000000ll);
        while (!s->stop) { /* CLOCK_MONOTONIC for the wait too (the condition's clock) */
            if (pthread_cond_timedwait(&s->wake, &s->lock, &next) != 0) break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* The statistics of the samples taken in [t0, t1] and of `last` (a reading at the window's end): mean power, clocks'
 * range, throttle bits, and the energy counter's rate between its first and last update seen in the window (NaN
 * when they span less than half the window): a counter that steps only now and then (NVML does not document its
 * update period) and is read only at the window's ends is off by up to a step, which this rate is not. Returns the
 * number of samples used. */
static int window_stats(bench_sampler *s, double t0, double t1, const sample *last, double *mean_w, double *update_w,
                        row_energy *e) {
    double psum = 0, prev = NAN, ta = NAN, ea = NAN, tb = NAN, eb = NAN;
    int pn = 0, n = 0;
    e->sm_min = e->sm_max = e->mem_min = e->mem_max = NAN;
    e->throttle = 0;
    e->throttle_known = 0;
    pthread_mutex_lock(&s->lock);
    long first = s->count > SAMPLES ? s->count - SAMPLES : 0;
    for (long i = first; i <= s->count; i++) {
        const sample *x = i < s->count ? &s->ring[i % SAMPLES] : last;
        if (i < s->count && (x->t < t0 || x->t > t1)) continue;
        n++;
        if (isfinite(x->power)) psum += x->power, pn++;
        if (isfinite(x->sm)) {
            if (!(x->sm >= e->sm_min)) e->sm_min = x->sm;
            if (!(x->sm <= e->sm_max)) e->sm_max = x->sm;
        }
        if (isfinite(x->mem)) {
            if (!(x->mem >= e->mem_min)) e->mem_min = x->mem;
            if (!(x->mem <= e->mem_max)) e->mem_max = x->mem;
        }
        e->throttle |= x->throttle;
        e->throttle_known |= x->throttle_known;
        if (isfinite(x->energy)) {
            if (isfinite(prev) && x->energy != prev) { /* the counter stepped since the previous sample */
                if (!isfinite(ta)) ta = x->t, ea = x->energy;
                tb = x->t, eb = x->energy;
            }
            prev = x->energy;
        }
    }
    pthread_mutex_unlock(&s->lock);
    *mean_w = pn ? psum / pn : NAN;
    *update_w = tb - ta >= 0.5 * (t1 - t0) && eb >= ea ? (eb - ea) / (tb - ta) : NAN;
    return n;
}

/* CLOCK_REALTIME minus now_s()'s CLOCK_MONOTONIC, taken once. */
static double unix_offset(void) {
    static double offset = NAN;
    if (isnan(offset)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        offset = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec - now_s();
    }
    return offset;
}

/* The energy and mean power over [t0, now] from the counter (e0 at t0) or the power samples; 0 when neither. */
static int window_energy(bdev *b, double t0, double e0, row_energy *e) {
    sample last;
    if (!read_sample(b->sampler->index, sample_fields, &last)) {
        snprintf(e->note, sizeof e->note, "the telemetry read at the window's end failed");
        return 0;
    }
    double mean_w = NAN, update_w = NAN;
    e->window_s = last.t - t0;
    e->start_unix = t0 + unix_offset();
    e->samples = window_stats(b->sampler, t0, last.t, &last, &mean_w, &update_w, e);
    if (isfinite(update_w)) {
        snprintf(e->method, sizeof e->method, "energy counter");
        e->joules = update_w * e->window_s;
    } else if (isfinite(e0) && isfinite(last.energy) && last.energy >= e0) {
        snprintf(e->method, sizeof e->method, "energy counter");
        e->joules = last.energy - e0;
    } else if (isfinite(mean_w)) {
        snprintf(e->method, sizeof e->method, "power samples");
        e->joules = mean_w * e->window_s;
    } else {
        snprintf(e->note, sizeof e->note, "neither the energy counter nor the power could be read in the window");
        return 0;
    }
    e->avg_w = e->window_s > 0 ? e->joules / e->window_s : NAN;
    e->measured = 1;
    return 1;
}

static double energy_now(bdev *b) {
    sample x;
    if (!b->sampler || !b->run->energy.has_counter ||
        !read_sample(b->sampler->index, HCL_TELEMETRY_BIT(HCL_TELEMETRY_ENERGY), &x))
        return NAN;
    return x.energy;
}

int energy_window(bdev *b, one_run_fn fn, void *ctx, measure *m) {
    memset(&m->energy, 0, sizeof m->energy);
    if (!b->sampler || !b->energy_rows) return 0;
    const double e0 = energy_now(b), t0 = now_s();
    int runs = 0;
    double s = 0;
    while (runs == 0 || (now_s() - t0 < b->run->energy.window_min_s && runs < 1000000)) {
        progress("%s:%u energy window (%d runs, %.2f s)", b->info.backend, b->info.index, runs, now_s() - t0);
        if (fn(b, ctx, &s, m)) {
            m->failed = 1;
            return 1;
        }
        runs++;
    }
    m->energy.runs = runs;
    window_energy(b, t0, e0, &m->energy);
    return 0;
}

void energy_start(bdev *b) {
    device_energy *de = &b->run->energy;
    memset(de, 0, sizeof *de);
    de->idle_w = de->idle_s = de->idle_sm = de->idle_mem = de->idle_temp = NAN;
    de->window_min_s = b->opt->energy_window;
    if (!b->opt->energy) {
        snprintf(de->detail, sizeof de->detail, "not read (--no-energy)");
        print_wrapped(stdout, "energy:    ", "           ", "not measured: --no-energy");
        return;
    }
    uint32_t n = 0, index = UINT32_MAX;
    if (hcl_device_count(&n) == HCL_SUCCESS)
        for (uint32_t i = 0; i < n && index == UINT32_MAX; i++) {
            hcl_device_info d;
            if (hcl_device_get_info_by_index(i, &d) == HCL_SUCCESS && strcmp(d.backend, b->info.backend) == 0 &&
                d.index == b->info.index)
                index = i;
        }
    hcl_telemetry t;
    if (index == UINT32_MAX || hcl_device_get_telemetry_by_index(index, 0, &t) != HCL_SUCCESS) {
        snprintf(de->detail, sizeof de->detail, "the device is not in the library's device list");
        print_wrappedf(stdout, "energy:    ", "           ", "not measured: %s", de->detail);
        return;
    }
    copy_text(de->source, sizeof de->source, t.source);
    copy_text(de->detail, sizeof de->detail, t.detail);
    de->has_counter = t.fields[HCL_TELEMETRY_ENERGY].known;
    if (!de->has_counter && !t.fields[HCL_TELEMETRY_POWER].known) {
        print_wrappedf(stdout, "energy:    ", "           ", "not measured: %s",
                       t.source[0] ? t.fields[HCL_TELEMETRY_POWER].reason : t.detail);
        return;
    }
    bench_sampler *s = calloc(1, sizeof *s);
    if (!s) return;
    s->index = index;
    s->interval_ms = b->cpu ? 250 : 20; /* a CPU device's sampler would take time from its kernels' cores */
    pthread_mutex_init(&s->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&s->thread, NULL, sampler_main, s) != 0) {
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        free(s);
        print_wrapped(stdout, "energy:    ", "           ", "not measured: the sampler thread did not start");
        return;
    }
    s->running = 1;
    b->sampler = s;
    de->active = 1;
    /* idle: a second with nothing submitted */
    progress("%s:%u idle power (1 s)", b->info.backend, b->info.index);
    row_energy e;
    memset(&e, 0, sizeof e);
    double t0 = now_s(), e0 = energy_now(b);
    struct timespec one = {1, 0};
    nanosleep(&one, NULL);
    progress_done();
    if (window_energy(b, t0, e0, &e)) {
        de->idle_measured = 1;
        de->idle_w = e.avg_w;
        de->idle_s = e.window_s;
        de->idle_sm = e.sm_min;
        de->idle_mem = e.mem_min;
        copy_text(de->idle_method, sizeof de->idle_method, e.method);
    }
    if (hcl_device_get_telemetry_by_index(index, HCL_TELEMETRY_BIT(HCL_TELEMETRY_TEMPERATURE), &t) == HCL_SUCCESS)
        de->idle_temp = field(&t, HCL_TELEMETRY_TEMPERATURE);
    char line[1024];
    int used = snprintf(line, sizeof line, "%s, %s; idle ", de->source, de->detail);
    if (de->idle_measured)
        used += snprintf(line + used, sizeof line - (size_t)used, "%.1f W over %.1f s (%s)", de->idle_w, de->idle_s,
                         de->idle_method);
    else
        used += snprintf(line + used, sizeof line - (size_t)used, "power not read: %s", e.note);
    if (isfinite(de->idle_sm)) used += snprintf(line + used, sizeof line - (size_t)used, ", SM %.0f MHz", de->idle_sm);
    if (isfinite(de->idle_mem))
        used += snprintf(line + used, sizeof line - (size_t)used, ", memory %.0f MHz", de->idle_mem);
    if (isfinite(de->idle_temp)) snprintf(line + used, sizeof line - (size_t)used, ", %.0f C", de->idle_temp);
    print_wrapped(stdout, "energy:    ", "           ", line);
    print_wrappedf(stdout, "           ", "           ",
                   "each row: its timed runs' window (at least %.2f s, more runs of the same call when shorter): "
                   "joules, average W, work per joule (median rate / average W), clocks seen; ! a throttled row",
                   de->window_min_s);
}

void energy_stop(bdev *b) {
    bench_sampler *s = b->sampler;
    if (!s) return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
    b->sampler = NULL;
}
