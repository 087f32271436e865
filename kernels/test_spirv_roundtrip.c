/* ctest levelzero-spirv-roundtrip: the SPIR-V of the built-in kernels, executed with the core's launch plans.
 *
 * No Level Zero GPU runs here, so each SPIR-V program of the catalogue's CL family (kernels/catalogue.c: the very
 * bytes libhcl hands a Level Zero driver through module_create; this program links the same library, hcl_kernels)
 * is translated back to LLVM bitcode with `llvm-spirv -r`, loaded on PoCL (CPU) through clCreateProgramWithBinary
 * (testsupport/hcl_testsupport_cl.h, the harness the Level Zero fill round trip shares), and run with the core's own launch plans (kernels/<op>/plan.c, hcl_plan.h: the same kernels, work-group sizes,
 * group counts, arguments and dynamic local memory the core launches through a driver's kernel_launch) for several
 * device profiles: PoCL's own limits (a CPU: the plans' CPU choices), a large GPU, a GPU with a tiny group count
 * limit (softmax in row batches, capped grids), and a small GPU (gemm's 8 x 8 program, small groups). Every result
 * is checked against a float64 reference computed here with the conformance suite's tolerances
 * (conformance/test_gemm.c, test_softmax.c, test_reduce.c); outputs are poisoned first, so an unwritten element
 * fails.
 *
 * What this proves: the SPIR-V computes the right thing with the plans' arguments, through a translation round
 * trip. What it does not: that a Level Zero runtime compiles and runs it the same way (no such runtime here).
 *
 * With --il (ctest levelzero-spirv-il) the same SPIR-V goes unchanged to an OpenCL device that takes SPIR-V itself
 * (clCreateProgramWithILKHR: Intel's OpenCL CPU runtime, whose SPIR-V consumer is the one Intel's GPU runtimes build
 * on), with no translation between; the first profile then has that device's limits and its CPU choices.
 *
 * Usage: hcl-kernels-test-spirv-roundtrip LLVM_SPIRV WORK_DIR, or hcl-kernels-test-spirv-roundtrip --il. Exits 77
 * (skipped) without a PoCL device, or with --il without a device that takes SPIR-V. HCL_SEED sets the random seed
 * (printed). */
#define _POSIX_C_SOURCE 200809L
#include "hcl_host_kernels.h"
#include "hcl_plan.h"
#include "test_plan_devices.h"
#include "test_typed_data.h"

#include "hcl_testsupport.h"
#include "hcl_testsupport_cl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hcl_ts_cl g_cl;
static int g_il; /* --il: the SPIR-V through clCreateProgramWithILKHR, not llvm-spirv -r and PoCL */
static cl_kernel g_kernels[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS];
static uint64_t g_kmax[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS]; /* CL_KERNEL_WORK_GROUP_SIZE on PoCL */
static int g_checks;
static uint64_t g_rng; /* hcl_ts_splitmix64 state */

/* per kernel: runs, worst error as a fraction of its tolerance, largest absolute error */
static struct {
    long runs;
    double worst_ratio;
    double max_abs;
} g_stats[HCL_KPROG_COUNT][HCL_KPROG_MAX_KERNELS];

/* ---------------------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------------------- */
static double rnd(void) { return hcl_ts_rand_unit(&g_rng); }
static float rnd_float(float lo, float hi) { return hcl_ts_rand_float(&g_rng, lo, hi); }

#define fail(...) hcl_ts_cl_fail(&g_cl, __VA_ARGS__)
#define xmalloc hcl_ts_alloc
static cl_mem buffer(size_t bytes) { return hcl_ts_cl_buffer(&g_cl, bytes); }
static bool write_buf(cl_mem m, const void *src, size_t bytes) { return hcl_ts_cl_write(&g_cl, m, src, bytes); }
static bool read_buf(cl_mem m, void *dst, size_t bytes) { return hcl_ts_cl_read(&g_cl, m, dst, bytes); }

/* Element types: data are drawn as floats and rounded to the type (test_typed_data.h); a 16-bit output is poisoned,
 * read back and widened; its one rounding adds (u + 2^-24) |ref| + a denormal's worth to the tolerance
 * (conformance/test_types.c says why). */
static const hcl_dtype g_types[] = {HCL_DTYPE_F32, HCL_DTYPE_F16, HCL_DTYPE_BF16};

/* ---------------------------------------------------------------------------------------------------------
 * The plan executor: what the core's builtin runner does through a driver's kernel_launch, done with OpenCL
 * ------------------------------------------------------------------------------------------------------- */
static const char *kernel_name(const hcl_klaunch *l) { return hcl_kprogram_get(l->prog)->kernels[l->kernel]; }

static int run_plan(const hcl_kplan *p, cl_mem const slots[HCL_KSLOT_COUNT], const char *what) {
    for (size_t li = 0; li < p->count; li++) {
        const hcl_klaunch *l = &p->launch[li];
        cl_kernel k = g_kernels[l->prog][l->kernel];
        if (!k) {
            fail("%s: launch %zu uses program %s, which is not of the CL family", what, li,
                 hcl_kprogram_get(l->prog)->name);
            return 0;
        }
        hcl_ts_cl_arg args[HCL_KLAUNCH_MAX_ARGS];
        for (uint32_t i = 0; i < l->num_args; i++) {
            const hcl_kparg *a = &l->args[i];
            if (a->kind == HCL_KPARG_MEM && !slots[a->slot]) {
                fail("%s: launch %zu argument %u uses slot %d, which this call has not", what, li, i, (int)a->slot);
                return 0;
            }
            args[i] = a->kind == HCL_KPARG_MEM ? (hcl_ts_cl_arg){true, slots[a->slot], a->offset, NULL, 0}
                                               : (hcl_ts_cl_arg){false, NULL, 0, a->value, a->size};
        }
        const uint32_t grid[3] = {l->grid.x, l->grid.y, l->grid.z}, block[3] = {l->block.x, l->block.y, l->block.z};
        char at[240];
        snprintf(at, sizeof at, "%s: launch %zu", what, li);
        if (!hcl_ts_cl_launch(&g_cl, k, kernel_name(l), grid, block, l->shared_bytes, l->num_args, args, at)) return 0;
    }
    return 1;
}

/* The plan's scratch memory, as the core provides it per queue (zeros first when the plan says so); NULL when the
 * plan uses none. */
static cl_mem scratch_for(const hcl_kplan *p) {
    if (!p->scratch_bytes) return NULL;
    cl_mem m = buffer(p->scratch_bytes);
    if (m && p->scratch_zeroed) {
        unsigned char *zeros = xmalloc(p->scratch_bytes);
        write_buf(m, zeros, p->scratch_bytes);
        free(zeros);
    }
    return m;
}

/* A plan whose scratch must start zeroed leaves it so for the next call (the core zeroes it only once). */
static void check_scratch_left_zeroed(cl_mem ms, const hcl_kplan *p, const char *what) {
    if (!ms || !p->scratch_zeroed) return;
    unsigned char *got = xmalloc(p->scratch_bytes);
    g_checks++;
    if (read_buf(ms, got, p->scratch_bytes))
        for (size_t i = 0; i < p->scratch_bytes; i++)
            if (got[i]) {
                fail("%s: the kernels left byte %zu of the scratch %u, not 0", what, i, got[i]);
                break;
            }
    free(got);
}

/* Compare n results with references within tolerances (tol 0: exact; a NaN reference needs a NaN that is not
 * the poison); account them to every kernel of the plan. */
static void compare(const char *what, const hcl_kplan *p, const float *got, const double *ref, const double *tol,
                    size_t n) {
    hcl_ts_cmp c;
    hcl_ts_cmp_init(&c);
    g_checks++;
    char text[1200];
    if (!hcl_ts_compare(&c, got, ref, tol, tol ? 1.0 : 0.0, n))
        fail("%s: %s", what, hcl_ts_cmp_text(&c, text, sizeof text));
    for (size_t li = 0; li < p->count; li++) {
        const hcl_klaunch *l = &p->launch[li];
        g_stats[l->prog][l->kernel].runs++;
        g_stats[l->prog][l->kernel].worst_ratio = fmax(g_stats[l->prog][l->kernel].worst_ratio, c.max_rel);
        g_stats[l->prog][l->kernel].max_abs = fmax(g_stats[l->prog][l->kernel].max_abs, c.max_abs);
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * Profiles: device limits the plans are made for
 * ------------------------------------------------------------------------------------------------------- */
typedef struct {
    const char *name;
    hcl_kdevice dev;
} profile;

static profile g_profiles[4];
static int g_nprofiles;

/* hcl_kdevice.kernel_max_group: the kernels' work-group limits as PoCL gives them (CL_KERNEL_WORK_GROUP_SIZE); the
 * plans cap them further by the profile's device limits */
static uint64_t kernel_max_group(const hcl_kdevice *dev, hcl_kprog prog, int kernel) {
    (void)dev;
    if (prog < 0 || prog >= HCL_KPROG_COUNT || kernel < 0 || kernel >= HCL_KPROG_MAX_KERNELS) return 0;
    return g_kmax[prog][kernel];
}

static profile make_profile(const char *name, int is_cpu, uint64_t max_group, uint64_t local, uint32_t max_groups,
                            uint32_t cus) {
    profile p;
    memset(&p, 0, sizeof p);
    p.name = name;
    p.dev.family = HCL_KFAMILY_CL;
    p.dev.is_cpu = is_cpu;
    p.dev.compute_units = cus;
    p.dev.max_group_size = max_group;
    p.dev.local_mem = local;
    for (int d = 0; d < 3; d++) p.dev.max_groups[d] = max_groups;
    p.dev.kernel_max_group = kernel_max_group;
    return p;
}

/* ---------------------------------------------------------------------------------------------------------
 * vecadd
 * ------------------------------------------------------------------------------------------------------- */
static void check_vecadd(const profile *pr, hcl_dtype t, size_t n, int alias) {
    char what[160];
    snprintf(what, sizeof what, "[%s] vecadd %s n=%zu%s", pr->name, hcl_kdtype_name(t), n, alias ? " (c = a)" : "");
    hcl_kplan plan;
    if (hcl_plan_vecadd(&pr->dev, t, n, &plan) != HCL_SUCCESS) {
        fail("%s: no plan: %s", what, plan.why);
        hcl_kplan_free(&plan);
        return;
    }
    const size_t bytes = n * hcl_test_esize(t);
    float *a = xmalloc(n * 4), *b = xmalloc(n * 4), *c = xmalloc(n * 4);
    double *ref = xmalloc(n * 8), *tol = xmalloc(n * 8);
    for (size_t i = 0; i < n; i++) a[i] = rnd_float(-100, 100), b[i] = rnd_float(-100, 100);
    void *ra = hcl_test_to_type(t, a, n), *rb = hcl_test_to_type(t, b, n), *rc = hcl_test_poisoned(t, n);
    hcl_ts_ref_vecadd(HCL_TS_CONFORMANCE, a, b, n, ref, NULL);
    hcl_ts_add_output_rounding(t, ref, tol, n);
    cl_mem ma = buffer(bytes), mb = buffer(bytes), mc = alias ? ma : buffer(bytes);
    if (ma && mb && mc && write_buf(ma, ra, bytes) && write_buf(mb, rb, bytes) && (alias || write_buf(mc, rc, bytes))) {
        cl_mem slots[HCL_KSLOT_COUNT] = {ma, mb, mc, NULL};
        if (run_plan(&plan, slots, what) && read_buf(mc, rc, bytes)) {
            hcl__host_widen(t, rc, c, n);
            compare(what, &plan, c, ref, t == HCL_DTYPE_F32 ? NULL : tol, n);
        }
    }
    if (ma) clReleaseMemObject(ma);
    if (mb) clReleaseMemObject(mb);
    if (mc && !alias) clReleaseMemObject(mc);
    free(a), free(b), free(c), free(ref), free(tol), free(ra), free(rb), free(rc);
    hcl_kplan_free(&plan);
}

/* ---------------------------------------------------------------------------------------------------------
 * gemm (the conformance suite's reference and tolerance, as every kernel here)
 * ------------------------------------------------------------------------------------------------------- */
enum c_init { C_RANDOM, C_NAN };

static void check_gemm(const profile *pr, hcl_dtype abt, hcl_dtype ct, int ta, int tb, size_t m, size_t n, size_t k,
                       float alpha, float beta, enum c_init cinit, size_t pad) {
    char what[220];
    snprintf(what, sizeof what, "[%s] gemm %s -> %s %c%c m=%zu n=%zu k=%zu alpha=%g beta=%g%s pad=%zu", pr->name,
             hcl_kdtype_name(abt), hcl_kdtype_name(ct), ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, beta,
             cinit == C_NAN ? " C=NaN" : "", pad);
    if (hcl_plan_gemm_cl_program(&pr->dev) == HCL_KPROG_COUNT) {
        fail("%s: no gemm program fits the profile", what);
        return;
    }
    const hcl_kgemm g = hcl_test_gemm_run(abt, ct, ta, tb, m, n, k, alpha, beta, pad);
    hcl_kplan plan;
    hcl_status st = hcl_plan_gemm(&pr->dev, &g, &plan);
    /* refused for the profile's group count, or the sliced rows kernels (groups of 256) forced on a smaller GPU */
    if (st == HCL_ERROR_UNSUPPORTED &&
        (pr->dev.max_groups[0] || (pr->dev.variant[HCL_KOP_GEMM] == HCL_KVARIANT_GEMM_ROWS && !pr->dev.is_cpu &&
                                   pr->dev.max_group_size < 256))) {
        printf("     %s: not planned on this profile (as it should not be): %s\n", what, plan.why);
        hcl_kplan_free(&plan);
        return;
    }
    if (st != HCL_SUCCESS) {
        fail("%s: no plan: %s", what, plan.why);
        hcl_kplan_free(&plan);
        return;
    }
    hcl_test_gemm_data d;
    if (hcl_test_gemm_data_init(&d, &g, &g_rng, cinit == C_NAN, &g_cl)) {
        cl_mem ms = scratch_for(&plan);
        cl_mem slots[HCL_KSLOT_COUNT] = {d.ma, d.mb, d.mc, ms};
        if ((ms || !plan.scratch_bytes) && run_plan(&plan, slots, what) && hcl_test_gemm_data_read(&d, &g, &g_cl)) {
            hcl_ts_ref_gemm(HCL_TS_CONFORMANCE, g.trans_a, g.trans_b, m, n, k, alpha, d.a, g.lda, d.b, g.ldb, beta,
                            d.c0, g.ldc, d.ref, d.tol);
            hcl_ts_add_output_rounding(ct, d.ref, d.tol, m * n);
            compare(what, &plan, d.got, d.ref, d.tol, m * n);
            hcl_test_gemm_data_check_padding(&d, &g, &g_cl, what);
            check_scratch_left_zeroed(ms, &plan, what);
        }
        if (ms) clReleaseMemObject(ms);
    }
    hcl_test_gemm_data_free(&d);
    hcl_kplan_free(&plan);
}

/* ---------------------------------------------------------------------------------------------------------
 * softmax
 * ------------------------------------------------------------------------------------------------------- */
enum sm_gen { SM_RANDOM, SM_WITH_NEG_INF, SM_LARGE };

static void check_softmax(const profile *pr, hcl_dtype t, size_t rows, size_t cols, enum sm_gen gen, int in_place) {
    static const char *gen_name[] = {"uniform [-8, 8]", "-inf entries and a row of all -inf", "magnitudes to 80"};
    char what[200];
    snprintf(what, sizeof what, "[%s] softmax %s %zu x %zu, %s%s", pr->name, hcl_kdtype_name(t), rows, cols,
             gen_name[gen], in_place ? ", in place" : "");
    hcl_kplan plan;
    if (hcl_plan_softmax(&pr->dev, t, rows, cols, &plan) != HCL_SUCCESS) {
        fail("%s: no plan: %s", what, plan.why);
        hcl_kplan_free(&plan);
        return;
    }
    size_t n = rows * cols;
    float *x = xmalloc(n * 4), *y = xmalloc(n * 4);
    double *ref = xmalloc(n * 8), *tol = xmalloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        x[i] = gen == SM_LARGE ? rnd_float(-80, 80) : rnd_float(-8, 8);
        if (gen == SM_WITH_NEG_INF && rnd() < 0.25) x[i] = -INFINITY;
    }
    if (gen == SM_WITH_NEG_INF && rows > 1)
        for (size_t j = 0; j < cols; j++) x[(rows / 2) * cols + j] = -INFINITY; /* a row of all -inf: NaN */
    void *rx = hcl_test_to_type(t, x, n), *ry = hcl_test_poisoned(t, n);
    hcl_ts_ref_softmax(HCL_TS_CONFORMANCE, x, rows, cols, ref, tol);
    hcl_ts_add_output_rounding(t, ref, tol, n);
    const size_t bytes = n * hcl_test_esize(t);
    cl_mem mi = buffer(bytes), mo = in_place ? mi : buffer(bytes), ms = scratch_for(&plan);
    if (mi && mo && (ms || !plan.scratch_bytes) && write_buf(mi, rx, bytes) && (in_place || write_buf(mo, ry, bytes))) {
        cl_mem slots[HCL_KSLOT_COUNT] = {mi, NULL, mo, ms};
        if (run_plan(&plan, slots, what) && read_buf(mo, ry, bytes)) {
            hcl__host_widen(t, ry, y, n);
            compare(what, &plan, y, ref, tol, n);
            check_scratch_left_zeroed(ms, &plan, what);
        }
    }
    if (mi) clReleaseMemObject(mi);
    if (mo && !in_place) clReleaseMemObject(mo);
    if (ms) clReleaseMemObject(ms);
    free(x), free(y), free(ref), free(tol), free(rx), free(ry);
    hcl_kplan_free(&plan);
}

/* ---------------------------------------------------------------------------------------------------------
 * reduce
 * ------------------------------------------------------------------------------------------------------- */
static void check_reduce(const profile *pr, hcl_dtype t, hcl_reduce_op op, size_t n) {
    static const char *op_name[] = {"sum", "max", "min"};
    char what[160];
    snprintf(what, sizeof what, "[%s] reduce %s %s n=%zu", pr->name, op_name[op], hcl_kdtype_name(t), n);
    hcl_kplan plan;
    if (hcl_plan_reduce(&pr->dev, t, op, n, &plan) != HCL_SUCCESS) {
        fail("%s: no plan: %s", what, plan.why);
        hcl_kplan_free(&plan);
        return;
    }
    float *x = xmalloc(n * 4), got = hcl_ts_poison();
    for (size_t i = 0; i < n; i++) x[i] = rnd_float(-1, 1);
    if (op != HCL_REDUCE_SUM && n > 2) x[n / 3] = NAN; /* max and min skip NaN, as fmax and fmin do */
    void *rx = hcl_test_to_type(t, x, n);
    double ref, tol = 0.0;
    if (op == HCL_REDUCE_SUM) {
        double s = 0.0, abs_sum = 0.0;
        for (size_t i = 0; i < n; i++) s += x[i], abs_sum += fabs((double)x[i]);
        ref = s;
        if (n > 1) tol = 4.0 * (sqrt((double)n) + log2((double)n) + 1.0) * 0x1.0p-24 * abs_sum;
    } else {
        ref = op == HCL_REDUCE_MAX ? -INFINITY : INFINITY;
        for (size_t i = 0; i < n; i++) ref = op == HCL_REDUCE_MAX ? fmax(ref, x[i]) : fmin(ref, x[i]);
    }
    cl_mem mi = buffer(n * hcl_test_esize(t)), mo = buffer(4), ms = scratch_for(&plan);
    if (mi && mo && (ms || !plan.scratch_bytes) && write_buf(mi, rx, n * hcl_test_esize(t)) && write_buf(mo, &got, 4)) {
        cl_mem slots[HCL_KSLOT_COUNT] = {mi, NULL, mo, ms};
        if (run_plan(&plan, slots, what) && read_buf(mo, &got, 4)) {
            compare(what, &plan, &got, &ref, &tol, 1);
            check_scratch_left_zeroed(ms, &plan, what);
        }
    }
    if (mi) clReleaseMemObject(mi);
    if (mo) clReleaseMemObject(mo);
    if (ms) clReleaseMemObject(ms);
    free(x), free(rx);
    hcl_kplan_free(&plan);
}

/* ---------------------------------------------------------------------------------------------------------
 * Setup: PoCL, and every SPIR-V program of the catalogue through llvm-spirv -r
 * ------------------------------------------------------------------------------------------------------- */
static int load_program(hcl_kprog mi, const char *llvm_spirv, const char *dir) {
    const hcl_kprogram *def = hcl_kprogram_get(mi);
    const hcl_module_source *src = NULL;
    for (uint32_t i = 0; i < def->num_sources && !src; i++)
        if (def->sources[i].kind == HCL_SOURCE_SPIRV) src = &def->sources[i];
    if (!src) {
        fail("%s: this build embedded no SPIR-V of it (%s)", def->name, def->origin);
        return 0;
    }
    if (g_il)
        return hcl_ts_cl_load_il(&g_cl, def->name, def->origin, src->data, src->size, def->kernels, def->num_kernels,
                                 g_kernels[mi], g_kmax[mi]);
    return hcl_ts_cl_load_spirv(&g_cl, llvm_spirv, dir, def->name, def->origin, src->data, src->size, def->kernels,
                                def->num_kernels, g_kernels[mi], g_kmax[mi]);
}

/* The CL programs every device may run; those that need a device extension (the XMX gemm: PoCL has no
 * cl_intel_subgroup_matrix_multiply_accumulate, and the catalogue gives it no SPIR-V) are kernels-gemm-xmx-*'s. */
static int is_cl_program(int prog) {
    const hcl_kprogram *def = hcl_kprogram_get((hcl_kprog)prog);
    return def->family == HCL_KFAMILY_CL && !def->device_extension;
}

int main(int argc, char **argv) {
    g_il = argc == 2 && strcmp(argv[1], "--il") == 0;
    int rc = g_il ? hcl_ts_cl_open_il(&g_cl, "levelzero-spirv-il", "the SPIR-V built-ins through clCreateProgramWithIL",
                                      &g_rng)
                  : hcl_ts_cl_start(&g_cl, argc, argv, "levelzero-spirv-roundtrip", &g_rng);
    if (rc != 0) return rc;
    int loaded = 1;
    for (int m = 0; m < HCL_KPROG_COUNT; m++)
        if (is_cl_program(m)) loaded &= load_program((hcl_kprog)m, argv[1], g_il ? NULL : argv[2]);
    if (!loaded) {
        hcl_ts_cl_close(&g_cl);
        printf("FAIL: not every SPIR-V program %s\n",
               g_il ? "was built from its SPIR-V" : "went through the round trip");
        return 1;
    }

    /* the device's own limits first (on a CPU: the plans' CPU choices) */
    g_profiles[g_nprofiles++] = make_profile(g_il ? "device" : "pocl-cpu", g_il ? g_cl.is_cpu : 1, g_cl.max_group_size,
                                             g_cl.local_mem, 0, g_cl.compute_units);
    g_profiles[g_nprofiles++] = make_profile("gpu", 0, 1024, 65536, 0, 64);
    g_profiles[g_nprofiles++] = make_profile("gpu-grid-3", 0, 256, 65536, 3, 64);
    g_profiles[g_nprofiles++] = make_profile("gpu-small", 0, 64, 12288, 0, 4);

    static const size_t vec_n[] = {1, 2, 3, 4, 5, 7, 8, 255, 256, 1023, 1025, 4099, 65539, 1000003};
    static const size_t red_n[] = {1, 2, 3, 4, 5, 15, 16, 17, 255, 256, 257, 1000, 4096, 65537, 1000003};
    static const size_t gemm_shapes[][3] = {{1, 1, 1},    {1, 7, 3},    {7, 1, 5},      {17, 19, 23},
                                            {64, 64, 16}, {65, 63, 17}, {128, 129, 33}, {130, 200, 70}};
    static const size_t sm_shapes[][2] = {
        {1, 1},   {1, 7},    {3, 16},   {5, 17},    {4, 100},   {7, 255}, {2, 1000}, {3, 4096},  {2, 16389}, {2, 16388},
        {19, 64}, {37, 300}, {2, 6148}, {1, 65540}, {1000, 20}, {999, 7}, {4097, 3}, {2, 16392}, {1, 65544}};
    for (int p = 0; p < g_nprofiles; p++) {
        const profile *pr = &g_profiles[p];
        int failures_before = g_cl.failures, checks_before = g_checks;
        /* f32 over every size; the 16-bit types (the same kernel bodies with another load and store) over the
         * sizes below 2^17 on two profiles, which keeps this test short */
        for (size_t ti = 0; ti < (p < 2 ? 3u : 1u); ti++) {
            const hcl_dtype t = g_types[ti];
            const size_t vmax = t == HCL_DTYPE_F32 ? SIZE_MAX : 131072;
            for (size_t i = 0; i < sizeof vec_n / sizeof vec_n[0]; i++)
                if (vec_n[i] <= vmax) check_vecadd(pr, t, vec_n[i], 0);
            check_vecadd(pr, t, 1001, 1);
            for (size_t i = 0; i < sizeof sm_shapes / sizeof sm_shapes[0]; i++) {
                if (sm_shapes[i][0] * sm_shapes[i][1] > vmax) continue;
                check_softmax(pr, t, sm_shapes[i][0], sm_shapes[i][1], SM_RANDOM, 0);
                check_softmax(pr, t, sm_shapes[i][0], sm_shapes[i][1], SM_WITH_NEG_INF, 0);
            }
            check_softmax(pr, t, 13, 300, SM_LARGE, 0);
            check_softmax(pr, t, 11, 77, SM_RANDOM, 1);
            for (int op = 0; op < 3; op++)
                for (size_t i = 0; i < sizeof red_n / sizeof red_n[0]; i++)
                    if (red_n[i] <= vmax) check_reduce(pr, t, (hcl_reduce_op)op, red_n[i]);
        }
        /* gemm: every shape in f32; the 16-bit combinations over every transpose on a few shapes */
        static const hcl_dtype gemm_types[][2] = {{HCL_DTYPE_F32, HCL_DTYPE_F32},
                                                  {HCL_DTYPE_F16, HCL_DTYPE_F16},
                                                  {HCL_DTYPE_F16, HCL_DTYPE_F32},
                                                  {HCL_DTYPE_BF16, HCL_DTYPE_BF16},
                                                  {HCL_DTYPE_BF16, HCL_DTYPE_F32}};
        for (size_t gt = 0; gt < (p < 2 ? sizeof gemm_types / sizeof gemm_types[0] : 1u); gt++) {
            const hcl_dtype abt = gemm_types[gt][0], ct = gemm_types[gt][1];
            for (int ta = 0; ta < 2; ta++)
                for (int tb = 0; tb < 2; tb++) {
                    for (size_t i = gt == 0 ? 0 : 3; i < sizeof gemm_shapes / sizeof gemm_shapes[0];
                         i += gt == 0 ? 1 : 2)
                        check_gemm(pr, abt, ct, ta, tb, gemm_shapes[i][0], gemm_shapes[i][1], gemm_shapes[i][2], 1.5f,
                                   0.5f, C_RANDOM, i % 3);
                    /* few rows (the rows kernels, 4 and 16 at once: a CPU's, and a GPU's over slices of k), k over
                     * two chunks of A's staging, and in 3 or 4 slices (GPU profiles); forced, as the other shapes
                     * would not reach them */
                    profile rows = *pr;
                    rows.dev.variant[HCL_KOP_GEMM] = HCL_KVARIANT_GEMM_ROWS;
                    check_gemm(&rows, abt, ct, ta, tb, 3, 70, 300, 1.5f, 0.5f, C_RANDOM, 1);
                    check_gemm(&rows, abt, ct, ta, tb, 16, 33, 257, 1.5f, 0.5f, C_RANDOM, 2);
                    check_gemm(&rows, abt, ct, ta, tb, 2, 67, 777, 1.0f, 0.0f, C_NAN, 0);
                    check_gemm(&rows, abt, ct, ta, tb, 5, 130, 1100, 1.5f, 0.5f, C_RANDOM, 1);
                    /* slices of several chunks of op(A), where the group count caps the slices (gpu-grid-3) */
                    check_gemm(&rows, abt, ct, ta, tb, 2, 130, 3500, 1.0f, 0.5f, C_RANDOM, 2);
                    /* B's rows in whole 16-byte words (ldb 520): on a GPU of 4 compute units, whose few groups
                     * the wide 16-bit n kernels fill (plan_cl.c), their one-load path over two groups of 256 columns
                     * and a ragged third, k in 8 slices */
                    profile rows4 = rows;
                    rows4.dev.compute_units = 4;
                    check_gemm(&rows4, abt, ct, ta, tb, 4, 517, 2100, 1.5f, 0.5f, C_RANDOM, 3);
                    check_gemm(pr, abt, ct, ta, tb, 33, 31, 29, 1.0f, 0.0f, C_NAN, 2);   /* beta 0: C not read */
                    check_gemm(pr, abt, ct, ta, tb, 9, 10, 0, 1.0f, 2.0f, C_RANDOM, 1);  /* k 0: C = beta C */
                    check_gemm(pr, abt, ct, ta, tb, 9, 10, 11, 0.0f, 0.5f, C_RANDOM, 0); /* alpha 0: C = beta C */
                }
        }
        printf("%s profile %-10s (group <= %llu, local %llu B, group count <= %u, %u CUs): %d checks, %d failed\n",
               g_cl.failures == failures_before ? "ok  " : "FAIL", pr->name, (unsigned long long)pr->dev.max_group_size,
               (unsigned long long)pr->dev.local_mem, pr->dev.max_groups[0], pr->dev.compute_units,
               g_checks - checks_before, g_cl.failures - failures_before);
    }

    printf("\nper kernel (every SPIR-V program, run from its SPIR-V on %s): runs, largest error as a fraction of the "
           "tolerance, largest absolute error\n",
           g_il ? g_cl.device_name : "PoCL");
    for (int m = 0; m < HCL_KPROG_COUNT; m++) {
        if (!is_cl_program(m)) continue;
        const hcl_kprogram *def = hcl_kprogram_get((hcl_kprog)m);
        for (uint32_t k = 0; k < def->num_kernels; k++) {
            printf("  %-10s %-24s %5ld runs   err/tol %.3f   max |err| %.3g\n", def->name, def->kernels[k],
                   g_stats[m][k].runs, g_stats[m][k].worst_ratio, g_stats[m][k].max_abs);
            if (g_stats[m][k].runs == 0) fail("kernel '%s' of %s was never run", def->kernels[k], def->name);
        }
    }
    hcl_ts_cl_close(&g_cl);
    printf("%s: %d checks, %d failures\n", g_cl.failures ? "FAIL" : "PASS", g_checks, g_cl.failures);
    return g_cl.failures ? 1 : 0;
}
