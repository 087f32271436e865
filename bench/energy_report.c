/* bench's energy figures in the table, JSON and CSV (energy.c measures them). */
#include "bench_lib.h"

#include <hcl/hcl_telemetry.h>

#include <math.h>
#include <string.h>

double energy_per_joule(const result *r, const measure *m) {
    if (!m->energy.measured || !(m->energy.avg_w > 0) || m->ran <= 0) return NAN;
    return rate_of(r, m) / m->energy.avg_w; /* GB/s / W = GB/J; GFLOP/s / W = GFLOP/J */
}

/* "GFLOP/J" or "GB/J" from the row's unit ("GFLOP/s", "GB/s"). */
static void per_joule_unit(const result *r, char *out, size_t size) {
    const char *u = unit_of(r);
    const char *slash = strstr(u, "/s");
    snprintf(out, size, "%.*s/J", slash ? (int)(slash - u) : (int)strlen(u), u);
}

/* "1755-1980" or "1980" MHz, "?" when unknown. */
static void range_text(char *out, size_t size, double lo, double hi) {
    if (!isfinite(lo))
        snprintf(out, size, "?");
    else if (lo == hi)
        snprintf(out, size, "%.0f", lo);
    else
        snprintf(out, size, "%.0f-%.0f", lo, hi);
}

static void throttle_words(uint32_t bits, char *out, size_t size) {
    out[0] = '\0';
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {
        {HCL_THROTTLE_POWER, "power cap"}, {HCL_THROTTLE_THERMAL, "thermal"}, {HCL_THROTTLE_HARDWARE, "hardware"}};
    size_t used = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (bits & names[i].bit)
            used +=
                (size_t)snprintf(out + used, used < size ? size - used : 0, "%s%s", used ? ", " : "", names[i].name);
}

void print_energy_line(const device_run *dr, const result *r) {
    const measure *m = &r->hcl;
    if (!dr->energy.active || !m->present || m->ran <= 0) return;
    const row_energy *e = &m->energy;
    if (!e->measured) {
        print_wrappedf(stdout, "        energy: ", "            ", "not measured: %s", e->note);
        return;
    }
    char unit[24], sm[24], mem[24], clocks[96] = "", thr[64] = "";
    per_joule_unit(r, unit, sizeof unit);
    range_text(sm, sizeof sm, e->sm_min, e->sm_max);
    range_text(mem, sizeof mem, e->mem_min, e->mem_max);
    if (isfinite(e->sm_min) || isfinite(e->mem_min))
        snprintf(clocks, sizeof clocks, "; SM %s MHz, memory %s MHz", sm, mem);
    if (e->throttle & HCL_THROTTLE_SLOWDOWN) {
        char words[48];
        throttle_words(e->throttle, words, sizeof words);
        snprintf(thr, sizeof thr, "; ! throttled: %s", words);
    }
    print_wrappedf(stdout, "        energy: ", "            ",
                   "%.4g J/run, %.1f W over %.2f s, %d runs (%s); %.4g %s%s%s", e->avg_w * m->med_s, e->avg_w,
                   e->window_s, e->runs, e->method, energy_per_joule(r, m), unit, clocks, thr);
}

void json_energy(FILE *f, const result *r, const measure *m) {
    const row_energy *e = &m->energy;
    fputs(", \"energy\": ", f);
    if (!e->measured) {
        fputs("null", f);
        return;
    }
    char unit[24];
    per_joule_unit(r, unit, sizeof unit);
    fputs("{\"method\": ", f);
    json_str(f, e->method);
    json_field_num(f, "window_s", e->window_s);
    fprintf(f, ", \"start_unix\": %.3f", e->start_unix);
    fprintf(f, ", \"runs\": %d, \"samples\": %d", e->runs, e->samples);
    json_field_num(f, "joules", e->joules);
    json_field_num(f, "avg_power_w", e->avg_w);
    json_field_num(f, "energy_per_run_j", e->avg_w * m->med_s);
    json_field_num(f, "work_per_joule", energy_per_joule(r, m));
    json_field_str(f, "work_per_joule_unit", unit);
    json_field_num(f, "sm_clock_min_mhz", e->sm_min);
    json_field_num(f, "sm_clock_max_mhz", e->sm_max);
    json_field_num(f, "mem_clock_min_mhz", e->mem_min);
    json_field_num(f, "mem_clock_max_mhz", e->mem_max);
    fprintf(f, ", \"throttled\": %s, \"throttle_reasons\": ", (e->throttle & HCL_THROTTLE_SLOWDOWN) ? "true" : "false");
    if (e->throttle_known)
        fprintf(f, "%u", (unsigned)e->throttle);
    else
        fputs("null", f);
    fputs("}", f);
}

void json_device_energy(FILE *f, const device_run *dr) {
    const device_energy *de = &dr->energy;
    fputs(",\n     \"telemetry\": {\"active\": ", f);
    fputs(de->active ? "true" : "false", f);
    json_field_str(f, "source", de->source);
    json_field_str(f, "detail", de->detail);
    fprintf(f, ", \"energy_counter\": %s", de->has_counter ? "true" : "false");
    json_field_num(f, "window_min_s", de->window_min_s);
    fputs(", \"idle\": ", f);
    if (!de->idle_measured) {
        fputs("null}", f);
        return;
    }
    fputs("{\"method\": ", f);
    json_str(f, de->idle_method);
    json_field_num(f, "power_w", de->idle_w);
    json_field_num(f, "window_s", de->idle_s);
    json_field_num(f, "sm_clock_mhz", de->idle_sm);
    json_field_num(f, "mem_clock_mhz", de->idle_mem);
    json_field_num(f, "temperature_c", de->idle_temp);
    fputs("}}", f);
}

void csv_energy(FILE *f, const device_run *dr, const result *r) {
    const row_energy *e = r ? &r->hcl.energy : NULL;
    if (!e || !e->measured) {
        for (int i = 0; i < ENERGY_CSV_COLUMNS - 1; i++) fputc(',', f);
        csv_num(f, dr->energy.idle_measured ? dr->energy.idle_w : NAN);
        return;
    }
    char unit[24];
    per_joule_unit(r, unit, sizeof unit);
    fprintf(f, ",%s", e->method);
    csv_num(f, e->window_s);
    fprintf(f, ",%d", e->runs);
    csv_num(f, e->joules);
    csv_num(f, e->avg_w);
    csv_num(f, e->avg_w * r->hcl.med_s);
    csv_num(f, energy_per_joule(r, &r->hcl));
    fprintf(f, ",%s", unit);
    csv_num(f, e->sm_min);
    csv_num(f, e->sm_max);
    csv_num(f, e->mem_min);
    csv_num(f, e->mem_max);
    fprintf(f, ",%s", (e->throttle & HCL_THROTTLE_SLOWDOWN) ? "true" : "false");
    if (e->throttle_known)
        fprintf(f, ",%u", (unsigned)e->throttle);
    else
        fputs(",", f);
    csv_num(f, dr->energy.idle_measured ? dr->energy.idle_w : NAN);
}

void energy_flat(flat_row *f, const result *r) {
    double pj = energy_per_joule(r, &r->hcl);
    if (!isfinite(pj)) return;
    f->per_joule = pj;
    f->avg_w = r->hcl.energy.avg_w;
    per_joule_unit(r, f->per_joule_unit, sizeof f->per_joule_unit);
    f->throttled = (r->hcl.energy.throttle & HCL_THROTTLE_SLOWDOWN) != 0;
}
