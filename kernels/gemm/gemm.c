/* Host SGEMM: C = alpha * op(A) * op(B) + beta * C on row-major matrices (BLAS meaning).
 *
 * The usual cache-blocked scheme (Goto / BLIS): for each block of KC rows of op(B) and NC of its columns,
 * the block of op(B) is packed into NR-wide micro-panels and each block of MB rows of op(A) into MR-tall
 * micro-panels, both contiguous, aligned and zero-padded to whole panels. Packing is where the transposes
 * are handled, so the rest sees one layout. A micro-kernel then computes one MR x NR tile of C over KC in
 * registers, and a store step applies alpha and beta to the valid part of the tile. The tiles of C are
 * spread over the cores in MC x NB blocks (a B micro-panel stays in L1 while the A panels of the block
 * stream from L2).
 *
 * The micro-kernels are plain C loops with constant bounds; gcc unrolls and vectorises them into register
 * tiles. Builds are for the baseline ISA, so the micro-kernel is compiled a few times with a target
 * attribute (AVX-512, AVX2+FMA, baseline) and the one this CPU can run is chosen at run time: binaries
 * built on one machine stay safe on another.
 */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HCL_GEMM_X86 1
#endif

/* Depth of a packed block: a 32-wide B micro-panel of KC rows is 32 KiB (L1). */
#define HCL_GEMM_KC 256
/* Columns of op(B) packed at once (KC x NC floats = 4 MiB, shared by the threads, from L3). */
#define HCL_GEMM_NC 4096
/* Rows of op(A) packed at once (MB x KC floats = 2 MiB). */
#define HCL_GEMM_MB 2048
/* Largest micro-tile over every ISA: the size of the accumulator buffer. */
#define HCL_GEMM_TILE_MAX (16 * 32)

/* Computes the full mr x nr tile acc = A_panel * B_panel over kc (panels as packed below) and writes it
 * row-major (nr floats per row) to acc_out. */
typedef void (*hcl_gemm_micro_fn)(size_t kc, const float *restrict a, const float *restrict b, float *restrict acc_out);

#define HCL_GEMM_MADD_PLAIN(x, y, acc) ((acc) + (x) * (y))
#define HCL_GEMM_MADD_FUSED(x, y, acc) fmaf((x), (y), (acc))

/* One micro-kernel: MR_ x NR_ accumulators that gcc keeps in vector registers (checked in the generated
 * assembly: for AVX-512 12x32 it is 24 zmm accumulators, two loads and one broadcast per row per k). */
#define HCL_GEMM_DEFINE_MICRO(name, attr, MR_, NR_, MADD)                                                              \
    attr static void name(size_t kc, const float *restrict a, const float *restrict b, float *restrict acc_out) {      \
        float acc[MR_][NR_];                                                                                           \
        for (int i = 0; i < MR_; ++i)                                                                                  \
            for (int j = 0; j < NR_; ++j) acc[i][j] = 0.0f;                                                            \
        for (size_t p = 0; p < kc; ++p) {                                                                              \
            const float *restrict ap = a + p * (MR_);                                                                  \
            const float *restrict bp = b + p * (NR_);                                                                  \
            for (int i = 0; i < MR_; ++i) {                                                                            \
                const float ai = ap[i];                                                                                \
                for (int j = 0; j < NR_; ++j) acc[i][j] = MADD(ai, bp[j], acc[i][j]);                                  \
            }                                                                                                          \
        }                                                                                                              \
        memcpy(acc_out, acc, sizeof acc);                                                                              \
    }

/* fmaf would be a library call without hardware FMA: the baseline kernel multiplies and adds. */
HCL_GEMM_DEFINE_MICRO(hcl_gemm_micro_generic, , 4, 8, HCL_GEMM_MADD_PLAIN)
#ifdef HCL_GEMM_X86
HCL_GEMM_DEFINE_MICRO(hcl_gemm_micro_avx2, __attribute__((target("avx2,fma"))), 4, 24, HCL_GEMM_MADD_FUSED)
HCL_GEMM_DEFINE_MICRO(hcl_gemm_micro_avx512, __attribute__((target("avx512f,fma"))), 12, 32, HCL_GEMM_MADD_FUSED)
#endif

typedef struct hcl_gemm_isa {
    const char *name;
    size_t mr, nr; /* micro-tile */
    size_t mc, nb; /* block of C one thread takes at a time (multiples of mr, nr) */
    hcl_gemm_micro_fn micro;
} hcl_gemm_isa;

static const hcl_gemm_isa hcl_gemm_isas[] = {
#ifdef HCL_GEMM_X86
    {"avx512", 12, 32, 12 * 8, 32 * 8, hcl_gemm_micro_avx512},
    {"avx2", 4, 24, 4 * 24, 24 * 8, hcl_gemm_micro_avx2},
#endif
    {"generic", 4, 8, 4 * 24, 8 * 16, hcl_gemm_micro_generic},
};
#define HCL_GEMM_ISA_COUNT (sizeof hcl_gemm_isas / sizeof hcl_gemm_isas[0])

static atomic_int hcl_gemm_isa_index = -1;

static int hcl_gemm_cpu_can(size_t index) {
#ifdef HCL_GEMM_X86
    const char *name = hcl_gemm_isas[index].name;
    __builtin_cpu_init();
    if (strcmp(name, "avx512") == 0) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
    if (strcmp(name, "avx2") == 0) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    (void)index;
#endif
    return 1;
}

static const hcl_gemm_isa *hcl_gemm_current_isa(void) {
    int index = atomic_load(&hcl_gemm_isa_index);
    if (index < 0) {
        /* The table is in order of preference and ends with the baseline, which every CPU runs. */
        index = (int)HCL_GEMM_ISA_COUNT - 1;
        for (size_t i = 0; i < HCL_GEMM_ISA_COUNT; ++i) {
            if (hcl_gemm_cpu_can(i)) {
                index = (int)i;
                break;
            }
        }
        atomic_store(&hcl_gemm_isa_index, index);
    }
    return &hcl_gemm_isas[index];
}

const char *hcl__host_gemm_isa(void) { return hcl_gemm_current_isa()->name; }

int hcl__host_gemm_force_isa(const char *isa) {
    if (isa == NULL || isa[0] == '\0') {
        atomic_store(&hcl_gemm_isa_index, -1);
        return 0;
    }
    for (size_t i = 0; i < HCL_GEMM_ISA_COUNT; ++i) {
        if (strcmp(hcl_gemm_isas[i].name, isa) == 0) {
            if (!hcl_gemm_cpu_can(i)) return -1;
            atomic_store(&hcl_gemm_isa_index, (int)i);
            return 0;
        }
    }
    return -1;
}

static size_t hcl_gemm_min(size_t x, size_t y) { return x < y ? x : y; }

static size_t hcl_gemm_round_up(size_t x, size_t to) { return (x + to - 1) / to * to; }

/* Pack `rows` (<= mr) rows of op(A) over kc, starting at `a` = &op(A)(i0, p0), where op(A)(i, p) is
 * a[i * rs + p * cs], into dst[p * mr + i], padding rows up to mr with zeros. The loop order follows the
 * contiguous direction of the source. */
static void hcl_gemm_pack_a(const float *a, size_t rs, size_t cs, size_t rows, size_t kc, size_t mr,
                            float *restrict dst) {
    if (cs == 1) {
        for (size_t i = 0; i < rows; ++i) {
            const float *restrict src = a + i * rs;
            for (size_t p = 0; p < kc; ++p) dst[p * mr + i] = src[p];
        }
    } else {
        for (size_t p = 0; p < kc; ++p) {
            const float *restrict src = a + p * cs;
            for (size_t i = 0; i < rows; ++i) dst[p * mr + i] = src[i];
        }
    }
    for (size_t p = 0; p < kc && rows < mr; ++p)
        for (size_t i = rows; i < mr; ++i) dst[p * mr + i] = 0.0f;
}

/* Pack `cols` (<= nr) columns of op(B) over kc, starting at `b` = &op(B)(p0, j0), where op(B)(p, j) is
 * b[p * rs + j * cs], into dst[p * nr + j], padding columns up to nr with zeros. */
static void hcl_gemm_pack_b(const float *b, size_t rs, size_t cs, size_t cols, size_t kc, size_t nr,
                            float *restrict dst) {
    if (cs == 1) {
        for (size_t p = 0; p < kc; ++p) {
            const float *restrict src = b + p * rs;
            float *restrict row = dst + p * nr;
            for (size_t j = 0; j < cols; ++j) row[j] = src[j];
            for (size_t j = cols; j < nr; ++j) row[j] = 0.0f;
        }
    } else {
        for (size_t j = 0; j < cols; ++j) {
            const float *restrict src = b + j * cs;
            for (size_t p = 0; p < kc; ++p) dst[p * nr + j] = src[p];
        }
        for (size_t p = 0; p < kc && cols < nr; ++p)
            for (size_t j = cols; j < nr; ++j) dst[p * nr + j] = 0.0f;
    }
}

/* One 16-bit element of A or B, widened exactly. */
static inline float hcl_gemm_load16(const uint16_t *p, size_t i, int bf16) {
    return bf16 ? hcl__bf16_to_f32(p[i]) : hcl__f16_to_f32(p[i]);
}

/* hcl_gemm_pack_a for 16-bit A: the same layout, each element widened to float while packing. */
static void hcl_gemm_pack_a16(const uint16_t *a, size_t rs, size_t cs, size_t rows, size_t kc, size_t mr, int bf16,
                              float *restrict dst) {
    for (size_t p = 0; p < kc; ++p) {
        for (size_t i = 0; i < rows; ++i) dst[p * mr + i] = hcl_gemm_load16(a, i * rs + p * cs, bf16);
        for (size_t i = rows; i < mr; ++i) dst[p * mr + i] = 0.0f;
    }
}

/* hcl_gemm_pack_b for 16-bit B. */
static void hcl_gemm_pack_b16(const uint16_t *b, size_t rs, size_t cs, size_t cols, size_t kc, size_t nr, int bf16,
                              float *restrict dst) {
    for (size_t p = 0; p < kc; ++p) {
        for (size_t j = 0; j < cols; ++j) dst[p * nr + j] = hcl_gemm_load16(b, p * rs + j * cs, bf16);
        for (size_t j = cols; j < nr; ++j) dst[p * nr + j] = 0.0f;
    }
}

/* Write the valid rows x cols part of a micro-tile to C. The first block of k applies beta (and does not
 * read C when beta is 0, so NaN there does not propagate); later blocks add to what the first wrote. */
static void hcl_gemm_store(float *restrict c, size_t ldc, const float *restrict acc, size_t nr, size_t rows,
                           size_t cols, float alpha, float beta, int first) {
    for (size_t i = 0; i < rows; ++i) {
        float *restrict ci = c + i * ldc;
        const float *restrict ai = acc + i * nr;
        if (!first) {
            for (size_t j = 0; j < cols; ++j) ci[j] += alpha * ai[j];
        } else if (beta == 0.0f) {
            for (size_t j = 0; j < cols; ++j) ci[j] = alpha * ai[j];
        } else {
            for (size_t j = 0; j < cols; ++j) ci[j] = alpha * ai[j] + beta * ci[j];
        }
    }
}

/* C = beta * C, without reading C when beta is 0. */
static void hcl_gemm_scale(size_t m, size_t n, float beta, float *c, size_t ldc) {
    if (beta == 1.0f) return;
    const long long rows = (long long)m;
    HCL__OMP(omp parallel for schedule(static) if ((double)m * (double)n > 65536.0))
    for (long long i = 0; i < rows; ++i) {
        float *restrict row = c + (size_t)i * ldc;
        if (beta == 0.0f) {
            for (size_t j = 0; j < n; ++j) row[j] = 0.0f;
        } else {
            for (size_t j = 0; j < n; ++j) row[j] *= beta;
        }
    }
}

/* The packed blocks of op(A) and op(B) for this shape on the current micro-kernel, each rounded to 64 bytes. */
static void hcl_gemm_workspace(size_t m, size_t n, size_t k, size_t *out_a_bytes, size_t *out_b_bytes) {
    const hcl_gemm_isa *isa = hcl_gemm_current_isa();
    const size_t kc_max = hcl_gemm_min(k, HCL_GEMM_KC);
    *out_a_bytes =
        hcl_gemm_round_up(hcl_gemm_round_up(hcl_gemm_min(m, HCL_GEMM_MB), isa->mr) * kc_max * sizeof(float), 64);
    *out_b_bytes =
        hcl_gemm_round_up(hcl_gemm_round_up(hcl_gemm_min(n, HCL_GEMM_NC), isa->nr) * kc_max * sizeof(float), 64);
}

/* Bytes of the float copy of C that a 16-bit C is accumulated in (0 for a float C or no product). */
static size_t hcl_gemm_cbuf_bytes(const hcl_kgemm *g) {
    if (g->c_type == HCL_DTYPE_F32 || g->k == 0 || g->alpha == 0.0f) return 0;
    return hcl_gemm_round_up(g->m * g->n * sizeof(float), 64);
}

size_t hcl__host_gemm_workspace_bytes(const hcl_kgemm *g) {
    if (g->m == 0 || g->n == 0 || g->k == 0) return 0;
    size_t a_bytes, b_bytes;
    hcl_gemm_workspace(g->m, g->n, g->k, &a_bytes, &b_bytes);
    return a_bytes + b_bytes + hcl_gemm_cbuf_bytes(g) + 64; /* + 64: the caller's memory need not be 64-byte aligned */
}

/* C = alpha * op(A) * op(B) + beta * C with float C, A and B of `ab` (f32, or 16-bit widened while packing), the
 * packed blocks at ap and bp (as hcl_gemm_workspace sizes them). */
static void hcl_gemm_run(int trans_a, int trans_b, size_t m, size_t n, size_t k, float alpha, hcl_dtype ab,
                         const void *a, size_t lda, const void *b, size_t ldb, float beta, float *c, size_t ldc,
                         float *ap, float *bp) {
    const hcl_gemm_isa *isa = hcl_gemm_current_isa();
    const size_t mr = isa->mr, nr = isa->nr, mc = isa->mc, nb = isa->nb;
    /* op(A)(i, p) = a[i * rs_a + p * cs_a]; op(B)(p, j) = b[p * rs_b + j * cs_b]. */
    const size_t rs_a = trans_a ? 1 : lda, cs_a = trans_a ? lda : 1;
    const size_t rs_b = trans_b ? 1 : ldb, cs_b = trans_b ? ldb : 1;

    const int bf16 = ab == HCL_DTYPE_BF16;
    /* Below this much work the threads cost more than they bring. */
    const int parallel = (double)m * (double)n * (double)k >= 262144.0;
    (void)parallel; /* unused without OpenMP */

    for (size_t jc = 0; jc < n; jc += HCL_GEMM_NC) {
        const size_t ncb = hcl_gemm_min(HCL_GEMM_NC, n - jc);
        const long long b_panels = (long long)((ncb + nr - 1) / nr);
        for (size_t pc = 0; pc < k; pc += HCL_GEMM_KC) {
            const size_t kc = hcl_gemm_min(HCL_GEMM_KC, k - pc);
            const int first = pc == 0;
            for (size_t ic = 0; ic < m; ic += HCL_GEMM_MB) {
                const size_t mb = hcl_gemm_min(HCL_GEMM_MB, m - ic);
                const long long a_panels = (long long)((mb + mr - 1) / mr);
                const long long tiles_m = (long long)((mb + mc - 1) / mc);
                const long long tiles_n = (long long)((ncb + nb - 1) / nb);
                const int pack_b = ic == 0; /* the packed block of op(B) serves every block of rows */
                /* Two synchronisations a block, not four: the panels of op(B) (when this block packs them) and of
                 * op(A) are one work-sharing loop, whose barrier is the only one before the tiles; the tile loop's
                 * own barrier is dropped (nowait), as the region's end joins the threads anyway. Each barrier costs a
                 * scheduler slice when a thread is descheduled (a busy machine), so fewer is steadier. */
                const long long b_items = pack_b ? b_panels : 0, pack_items = b_items + a_panels;
                HCL__OMP(omp parallel if (parallel)) {
                    HCL__OMP(omp for schedule(static))
                    for (long long q = 0; q < pack_items; ++q) {
                        if (q < b_items) {
                            const size_t j = (size_t)q * nr;
                            const size_t at = pc * rs_b + (jc + j) * cs_b, cols = hcl_gemm_min(nr, ncb - j);
                            if (ab == HCL_DTYPE_F32)
                                hcl_gemm_pack_b((const float *)b + at, rs_b, cs_b, cols, kc, nr, bp + j * kc);
                            else
                                hcl_gemm_pack_b16((const uint16_t *)b + at, rs_b, cs_b, cols, kc, nr, bf16,
                                                  bp + j * kc);
                        } else {
                            const size_t i = (size_t)(q - b_items) * mr;
                            const size_t at = (ic + i) * rs_a + pc * cs_a, rows = hcl_gemm_min(mr, mb - i);
                            if (ab == HCL_DTYPE_F32)
                                hcl_gemm_pack_a((const float *)a + at, rs_a, cs_a, rows, kc, mr, ap + i * kc);
                            else
                                hcl_gemm_pack_a16((const uint16_t *)a + at, rs_a, cs_a, rows, kc, mr, bf16,
                                                  ap + i * kc);
                        }
                    }
                    HCL__OMP(omp for schedule(dynamic, 1) collapse(2) nowait)
                    for (long long tm = 0; tm < tiles_m; ++tm) {
                        for (long long tn = 0; tn < tiles_n; ++tn) {
                            _Alignas(64) float acc[HCL_GEMM_TILE_MAX];
                            const size_t i_begin = (size_t)tm * mc, i_end = hcl_gemm_min(mb, i_begin + mc);
                            const size_t j_begin = (size_t)tn * nb, j_end = hcl_gemm_min(ncb, j_begin + nb);
                            for (size_t jr = j_begin; jr < j_end; jr += nr) {
                                const size_t cols = hcl_gemm_min(nr, j_end - jr);
                                for (size_t ir = i_begin; ir < i_end; ir += mr) {
                                    const size_t rows = hcl_gemm_min(mr, i_end - ir);
                                    isa->micro(kc, ap + ir * kc, bp + jr * kc, acc);
                                    hcl_gemm_store(c + (ic + ir) * ldc + jc + jr, ldc, acc, nr, rows, cols, alpha, beta,
                                                   first);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/* 16-bit C = beta * C (k or alpha 0), without reading C when beta is 0; one rounding per element. */
static void hcl_gemm_scale16(size_t m, size_t n, float beta, hcl_dtype type, uint16_t *c, size_t ldc) {
    if (beta == 1.0f) return;
    for (size_t i = 0; i < m; ++i) {
        uint16_t *row = c + i * ldc;
        for (size_t j = 0; j < n; ++j) {
            const float v = beta == 0.0f
                                ? 0.0f
                                : beta * (type == HCL_DTYPE_BF16 ? hcl__bf16_to_f32(row[j]) : hcl__f16_to_f32(row[j]));
            row[j] = type == HCL_DTYPE_BF16 ? hcl__f32_to_bf16(v) : hcl__f32_to_f16(v);
        }
    }
}

int hcl__host_gemm(const hcl_kgemm *g, const void *a, const void *b, void *c, void *workspace) {
    const size_t m = g->m, n = g->n, k = g->k;
    if (m == 0 || n == 0) return 0;
    if (k == 0 || g->alpha == 0.0f) {
        if (g->c_type == HCL_DTYPE_F32)
            hcl_gemm_scale(m, n, g->beta, c, g->ldc);
        else
            hcl_gemm_scale16(m, n, g->beta, g->c_type, c, g->ldc);
        return 0;
    }
    size_t a_bytes, b_bytes;
    hcl_gemm_workspace(m, n, k, &a_bytes, &b_bytes);
    float *ap, *owned = NULL;
    if (workspace != NULL) {
        ap = (float *)hcl_gemm_round_up((size_t)(uintptr_t)workspace, 64);
    } else {
        owned = aligned_alloc(64, a_bytes + b_bytes + hcl_gemm_cbuf_bytes(g));
        if (owned == NULL) return -1;
        ap = owned;
    }
    float *bp = ap + a_bytes / sizeof(float);
    const int ta = g->trans_a == HCL_TRANS, tb = g->trans_b == HCL_TRANS;
    if (g->c_type == HCL_DTYPE_F32) {
        hcl_gemm_run(ta, tb, m, n, k, g->alpha, g->ab_type, a, g->lda, b, g->ldb, g->beta, c, g->ldc, ap, bp);
    } else {
        /* a 16-bit C is accumulated in a float copy (rows of n) and rounded once at the end */
        float *cf = bp + b_bytes / sizeof(float);
        uint16_t *c16 = c;
        if (g->beta != 0.0f)
            for (size_t i = 0; i < m; ++i) hcl__host_widen(g->c_type, c16 + i * g->ldc, cf + i * n, n);
        hcl_gemm_run(ta, tb, m, n, k, g->alpha, g->ab_type, a, g->lda, b, g->ldb, g->beta, cf, n, ap, bp);
        for (size_t i = 0; i < m; ++i) hcl__host_narrow(g->c_type, cf + i * n, c16 + i * g->ldc, n);
    }
    free(owned);
    return 0;
}

/* The host-table form (hcl_host_kernels.h): one work-group runs the whole call; the core provides the workspace. */
void hcl__host_gemm_kernel(const hcl_host_launch *launch, void *const *args) {
    (void)launch;
    (void)hcl__host_gemm(args[4], *(const void *const *)args[0], *(const void *const *)args[1], *(void *const *)args[2],
                         *(void *const *)args[3]);
}
