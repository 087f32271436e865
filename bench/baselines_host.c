/* The host backend's baselines, made fair to HCL's host driver:
 *
 *   - a parallel copy (as STREAM and BabelStream copy): the bytes split into one contiguous slice per thread, each
 *     slice memcpy'd by one OpenMP thread, on exactly as many threads as the host driver runs its kernels on (the
 *     count the driver states in its backend version, "..., 2 threads, ..."); the number of threads that really ran
 *     is checked on every call, so a copy that ran on fewer is an error, not a slower baseline;
 *   - OpenBLAS cblas_sgemm, opened with dlopen, on the same number of threads (openblas_set_num_threads), with its
 *     kernels chosen for the CPU: when OPENBLAS_CORETYPE is unset, bench sets it before opening the library (SkylakeX
 *     on a CPU with AVX-512F, Haswell with AVX2 and FMA), since a DYNAMIC_ARCH build can misread a virtual CPU and
 *     fall back to its generic Prescott kernels (seen on the GPU test machine: 5x slower). The core it chose
 *     (openblas_get_corename) is in the baseline's name, and a core without the CPU's AVX2/FMA is marked as a
 *     fallback ("!" after the name in the table, "generic_fallback" in the JSON). */
#define _POSIX_C_SOURCE 200809L

#include "vendor.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(BENCH_HAVE_CBLAS)
#include <cblas.h>
#endif

/* ---------------------------------------------------------------------------------------------------------
 * The host driver's thread count
 * ------------------------------------------------------------------------------------------------------- */
int host_threads(char *how, size_t size) {
    uint32_t count = 0;
    if (hcl_backend_count(&count) == HCL_SUCCESS)
        for (uint32_t i = 0; i < count; i++) {
            hcl_backend_info bi;
            if (hcl_backend_get_info(i, &bi) != HCL_SUCCESS || strcmp(bi.name, "host")) continue;
            /* "hcl-host 0.1.0, OpenMP 201511, 2 threads, gemm avx512" */
            for (const char *p = strchr(bi.version, ','); p; p = strchr(p + 1, ',')) {
                int n = 0;
                char word[16];
                if (sscanf(p + 1, " %d %15[a-z]", &n, word) == 2 && n > 0 && !strcmp(word, "threads")) {
                    if (how) snprintf(how, size, "the host driver's thread count (its version: %s)", bi.version);
                    return n;
                }
            }
        }
    int n = 1;
#if defined(_OPENMP)
    n = omp_get_max_threads();
#endif
    if (how) snprintf(how, size, "omp_get_max_threads() (the host driver states no thread count)");
    return n > 0 ? n : 1;
}

/* ---------------------------------------------------------------------------------------------------------
 * The parallel copy
 * ------------------------------------------------------------------------------------------------------- */
static int copy_threads; /* the host driver's, from host_open */

/* A copy of bytes split into one slice per thread, on `threads` OpenMP threads; *out_ran: the threads that ran.
 * Returns 0, or 1 when another number of threads ran. */
static int host_parallel_copy(void *dst, const void *src, size_t bytes, int threads, int *out_ran) {
    int ran = 1;
#if defined(_OPENMP)
#pragma omp parallel num_threads(threads)
    {
        const size_t t = (size_t)omp_get_thread_num(), n = (size_t)omp_get_num_threads();
        /* slices start on 64-byte boundaries (cache lines), so no two threads write one line */
        size_t lo = bytes / n * t & ~(size_t)63, hi = t + 1 == n ? bytes : bytes / n * (t + 1) & ~(size_t)63;
        if (hi > lo) memcpy((char *)dst + lo, (const char *)src + lo, hi - lo);
        if (t == 0) ran = (int)n;
    }
#else
    memcpy(dst, src, bytes);
#endif
    *out_ran = ran;
    return ran == threads ? 0 : 1;
}

/* ---------------------------------------------------------------------------------------------------------
 * OpenBLAS
 * ------------------------------------------------------------------------------------------------------- */
#if defined(BENCH_HAVE_CBLAS)
static struct {
    __typeof__(cblas_sgemm) *cblas_sgemm;
    __typeof__(openblas_get_config) *openblas_get_config;           /* optional */
    __typeof__(openblas_get_num_threads) *openblas_get_num_threads; /* optional */
    __typeof__(openblas_set_num_threads) *openblas_set_num_threads; /* optional */
    __typeof__(openblas_get_corename) *openblas_get_corename;       /* optional */
    int ok;
    char coretype[160]; /* how OPENBLAS_CORETYPE was set */
    char reason[1200];
} ob;
static lib lib_openblas;

/* The OpenBLAS core that fits this CPU's SGEMM, or NULL: only x86 CPUs with AVX2 and FMA have a choice to get wrong.
 */
static const char *best_coretype(void) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return "SkylakeX";
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
    return NULL;
}

/* 1 when an OpenBLAS core name lacks the AVX2/FMA kernels this CPU could run (Prescott, Core2, Sandybridge, ...). */
static int openblas_generic(const char *corename) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const char *const avx2_cores[] = {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids", NULL};
    __builtin_cpu_init();
    if (!corename || !*corename || !__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return 0;
    for (int i = 0; avx2_cores[i]; i++)
        if (!strcasecmp(corename, avx2_cores[i])) return 0;
    return 1;
#else
    (void)corename;
    return 0;
#endif
}

static void openblas_load(void) {
    static const char *const cands[] = {"libopenblas.so.0", "libopenblas.so", NULL};
    if (lib_openblas.tried) return;
    const char *set = getenv("OPENBLAS_CORETYPE"), *best = best_coretype();
    if (set && *set)
        snprintf(ob.coretype, sizeof ob.coretype, "OPENBLAS_CORETYPE=%s (from the environment)", set);
    else if (best && setenv("OPENBLAS_CORETYPE", best, 1) == 0)
        snprintf(ob.coretype, sizeof ob.coretype, "OPENBLAS_CORETYPE=%s (set by bench: the CPU has %s)", best,
                 strcmp(best, "Haswell") ? "AVX-512F" : "AVX2 and FMA");
    else
        snprintf(ob.coretype, sizeof ob.coretype, "OpenBLAS's own choice");
    lib_open(&lib_openblas, "HCL_OPENBLAS_LIBRARY", cands);
    char missing[256] = "";
    ob.cblas_sgemm = (__typeof__(ob.cblas_sgemm))lib_sym(&lib_openblas, "cblas_sgemm", missing, sizeof missing);
#define OB_OPTIONAL(name) ob.name = (__typeof__(ob.name))lib_sym(&lib_openblas, #name, NULL, 0)
    OB_OPTIONAL(openblas_get_config);
    OB_OPTIONAL(openblas_get_num_threads);
    OB_OPTIONAL(openblas_set_num_threads);
    OB_OPTIONAL(openblas_get_corename);
#undef OB_OPTIONAL
    ob.ok = lib_ready(&lib_openblas, "OpenBLAS", missing, ob.reason, sizeof ob.reason);
}

static void openblas_open(base_info *g, int threads) {
    openblas_load();
    if (!ob.ok) {
        copy_text(g->reason, sizeof g->reason, ob.reason);
        return;
    }
    g->available = 1;
    copy_text(g->library, sizeof g->library, lib_openblas.path);
    if (ob.openblas_get_corename) copy_text(g->corename, sizeof g->corename, ob.openblas_get_corename());
    g->generic = openblas_generic(g->corename);
    if (ob.openblas_set_num_threads) ob.openblas_set_num_threads(threads);
    g->threads = ob.openblas_get_num_threads ? ob.openblas_get_num_threads() : 0;
    if (g->corename[0]) snprintf(g->name, sizeof g->name, "OpenBLAS %.40s%s", g->corename, g->generic ? "!" : "");
    if (ob.openblas_get_config) copy_text(g->version, sizeof g->version, ob.openblas_get_config());
    hcl_ts_appendf(g->note, sizeof g->note,
                   "; core %s (%s)%s; %d threads (openblas_set_num_threads(%d), the host driver's count)%s",
                   g->corename[0] ? g->corename : "unknown (no openblas_get_corename)", ob.coretype,
                   g->generic ? ", a FALLBACK: its kernels lack the CPU's AVX2/FMA" : "", g->threads, threads,
                   !ob.openblas_set_num_threads ? ": NOT SET (no openblas_set_num_threads)"
                   : g->threads != threads      ? ": NOT MET"
                                                : "");
}
#endif

void host_open(bdev *b) {
    base_info *g = &b->run->bases[BASE_GEMM], *c = &b->run->bases[BASE_COPY];
    char how[HCL_NAME_MAX + 96];
    int threads = host_threads(how, sizeof how);
    copy_threads = threads;
    char name[64], note[2048]; /* set_base cuts it to the note's size */
    snprintf(name, sizeof name, "memcpy, %d thread%s", threads, threads == 1 ? "" : "s");
#if defined(_OPENMP)
    snprintf(note, sizeof note,
             "a parallel copy as STREAM's and BabelStream's: one contiguous slice per OpenMP thread, each memcpy'd, "
             "on %d threads (%s; the count that ran is checked every call), counted read + write; wall clock",
             threads, how);
#else
    snprintf(note, sizeof note,
             "memcpy on 1 thread (bench was built without OpenMP; %s says %d), counted read + write; wall clock", how,
             threads);
    copy_threads = 1;
#endif
    set_base(c, name, note);
    c->threads = copy_threads;
    c->available = 1;
    snprintf(c->library, sizeof c->library, "libc");
    set_base(g, "OpenBLAS SGEMM", "cblas_sgemm (CblasRowMajor) on the HCL buffers' data pointers; wall clock");
#if defined(BENCH_HAVE_CBLAS)
    openblas_open(g, threads);
#else
    NOT_BUILT(g, "cblas.h");
#endif
}

static void *host_ptr(hcl_buffer buf) {
    void *p = NULL;
    hcl_buffer_get_native(buf, &p);
    return p;
}

int host_gemm(size_t m, size_t n, size_t k, hcl_buffer A, hcl_buffer B, hcl_buffer C, double *out_s, measure *ms) {
#if defined(BENCH_HAVE_CBLAS)
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX) {
        snprintf(ms->error, sizeof ms->error, "cblas_sgemm takes int dimensions");
        return 1;
    }
    const float *a = host_ptr(A), *bb = host_ptr(B);
    float *c = host_ptr(C);
    double t0 = now_s();
    ob.cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, a, (int)k, bb, (int)n, 0.0f,
                   c, (int)n);
    *out_s = now_s() - t0;
    return 0;
#else
    (void)m, (void)n, (void)k, (void)A, (void)B, (void)C, (void)out_s;
    snprintf(ms->error, sizeof ms->error, "OpenBLAS was not built");
    return 1;
#endif
}

int host_copy(hcl_buffer src, hcl_buffer dst, size_t bytes, double *out_s, measure *ms) {
    void *d = host_ptr(dst);
    const void *s = host_ptr(src);
    int ran = 0;
    double t0 = now_s();
    int rc = host_parallel_copy(d, s, bytes, copy_threads, &ran);
    *out_s = now_s() - t0;
    if (rc)
        snprintf(ms->error, sizeof ms->error, "the copy ran on %d threads, not the host driver's %d", ran,
                 copy_threads);
    return rc;
}

void host_print_libs(void) {
#if defined(BENCH_HAVE_CBLAS)
    openblas_load();
    char v[512] = "";
    if (ob.ok) {
        if (ob.openblas_get_config) copy_text(v, sizeof v, ob.openblas_get_config());
        const char *core = ob.openblas_get_corename ? ob.openblas_get_corename() : "unknown";
        hcl_ts_appendf(v, sizeof v, "; core %s (%s)%s", core, ob.coretype,
                       openblas_generic(core) ? ", a FALLBACK: its kernels lack the CPU's AVX2/FMA" : "");
    }
    print_lib("OpenBLAS", &lib_openblas, ob.ok, ob.reason, v);
#else
    printf("  %-22s not built: OpenBLAS's cblas.h was not found when bench was built\n", "OpenBLAS");
#endif
}
