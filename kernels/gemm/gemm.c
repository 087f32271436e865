/* Host SGEMM: C = alpha * op(A) * op(B) + beta * C on row-major matrices (BLAS meaning).
 *
 * The usual cache-blocked scheme (Goto / BLIS): for each block of KC rows of op(B) and NC of its columns,
 * the block of op(B) is packed into NR-wide micro-panels and each block of MC rows of op(A) into MR-tall
 * micro-panels, both contiguous, aligned and zero-padded to whole panels. Packing is where the transposes
 * are handled, so the rest sees one layout. A micro-kernel then computes one MR x NR tile of C over KC in
 * registers and updates C with alpha and beta in the same function (a tile at the edge of C goes through a
 * buffer and a store step for its valid part). C is cut into units of whole rows (or columns) that the threads
 * take in turn; each unit packs its own panels, so threads never wait for each other inside a call (see
 * hcl_gemm_split_for and kernels/gemm/gemm_pool.c for why).
 *
 * The micro-kernels are plain C loops with constant bounds; gcc unrolls and vectorises them into register
 * tiles. Builds are for the baseline ISA, so the micro-kernel is compiled a few times with a target
 * attribute (AVX-512, AVX2+FMA, baseline) and the one this CPU can run is chosen at run time: binaries
 * built on one machine stay safe on another.
 */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"
#include "gemm_pool.h"

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HCL_GEMM_X86 1
#endif

/* Depth of a packed block (k). A 32-wide B micro-panel of KC rows is 64 KiB, read from L2 once per A micro-panel of
 * the block; a deeper block reads and writes C less often (on a 2-core Zen 4, 512 was 5-10% faster than 256 at
 * 2048^3). Tunable at run time for measurements: HCL_GEMM_KC, multiples of 8 from 8 to 1024. */
#define HCL_GEMM_KC 512
#define HCL_GEMM_KC_MAX 1024
/* Columns of op(B) one thread packs at once (KC x NC floats: 2 MiB, from L2 or L3). */
#define HCL_GEMM_NC 1024
/* Largest micro-tile over every ISA: the size of the accumulator buffer for tiles at the edge of C. */
#define HCL_GEMM_TILE_MAX (16 * 32)
/* Below this many multiply-adds one thread does the whole product. */
#define HCL_GEMM_PARALLEL_MIN (1u << 21)

/* Computes the mr x nr tile acc = A_panel * B_panel over kc (panels as packed below). With acc_out NULL the tile is
 * whole and goes straight to C (row stride ldc): C = alpha * acc + beta * C, C not read when beta is 0. Otherwise it
 * is written row-major (nr floats per row) to acc_out for hcl_gemm_store (a tile at the edge of C). */
typedef void (*hcl_gemm_micro_fn)(size_t kc, const float *restrict a, const float *restrict b, float *restrict c,
                                  size_t ldc, float alpha, float beta, float *restrict acc_out);

#define HCL_GEMM_MADD_PLAIN(x, y, acc) ((acc) + (x) * (y))
#define HCL_GEMM_MADD_FUSED(x, y, acc) fmaf((x), (y), (acc))

/* One micro-kernel: MR_ x NR_ accumulators that gcc keeps in vector registers (checked in the generated
 * assembly: for AVX-512 12x32 it is 24 zmm accumulators, two loads and one broadcast per row per k, no spills).
 * The rows of the C tile are prefetched before the k loop: C is the one operand not packed, its rows are ldc apart
 * (often a power of two, so they share cache sets), and a miss there after the loop stalls the whole tile. The
 * update of C is in the same function so that it is compiled for the same ISA (whole vectors, no copy of acc). */
#define HCL_GEMM_DEFINE_MICRO(name, attr, MR_, NR_, MADD)                                                              \
    attr static void name(size_t kc, const float *restrict a, const float *restrict b, float *restrict c, size_t ldc,  \
                          float alpha, float beta, float *restrict acc_out) {                                          \
        float acc[MR_][NR_];                                                                                           \
        if (acc_out == NULL)                                                                                           \
            for (int i = 0; i < MR_; ++i) {                                                                            \
                __builtin_prefetch(c + (size_t)i * ldc, 1, 3);                                                         \
                __builtin_prefetch(c + (size_t)i * ldc + NR_ - 1, 1, 3);                                               \
            }                                                                                                          \
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
        if (acc_out != NULL) {                                                                                         \
            memcpy(acc_out, acc, sizeof acc);                                                                          \
        } else if (beta == 0.0f) {                                                                                     \
            for (int i = 0; i < MR_; ++i)                                                                              \
                for (int j = 0; j < NR_; ++j) c[(size_t)i * ldc + j] = alpha * acc[i][j];                              \
        } else if (beta == 1.0f) {                                                                                     \
            for (int i = 0; i < MR_; ++i)                                                                              \
                for (int j = 0; j < NR_; ++j) c[(size_t)i * ldc + j] += alpha * acc[i][j];                             \
        } else {                                                                                                       \
            for (int i = 0; i < MR_; ++i)                                                                              \
                for (int j = 0; j < NR_; ++j)                                                                          \
                    c[(size_t)i * ldc + j] = alpha * acc[i][j] + beta * c[(size_t)i * ldc + j];                        \
        }                                                                                                              \
    }

/* fmaf would be a library call without hardware FMA: the baseline kernel multiplies and adds. */
HCL_GEMM_DEFINE_MICRO(hcl_gemm_micro_generic, , 4, 8, HCL_GEMM_MADD_PLAIN)
#ifdef HCL_GEMM_X86
HCL_GEMM_DEFINE_MICRO(hcl_gemm_micro_avx2, __attribute__((target("avx2,fma"))), 4, 24, HCL_GEMM_MADD_FUSED)
HCL_GEMM_DEFINE_MICRO(hcl_gemm_micro_avx512, __attribute__((target("avx512f,fma"))), 12, 32, HCL_GEMM_MADD_FUSED)
#endif

/* One micro-kernel and the blocking that goes with it. Everything that sizes or walks a packed block is derived from
 * these numbers: mc and nc are whole micro-panels (multiples of mr and nr), so the workspace (hcl_gemm_slot) and the
 * packing (hcl_gemm_unit, padding each block's last panel to full width) describe the same bytes. */
typedef struct hcl_gemm_isa {
    size_t mr, nr; /* micro-tile */
    size_t mc;     /* rows of op(A) packed at once (mc x KC floats stay in L2) */
    size_t nc;     /* columns of op(B) packed at once: HCL_GEMM_NC rounded down to whole panels */
    hcl_gemm_micro_fn micro;
} hcl_gemm_isa;

/* A micro-kernel of MR x NR with MC_PANELS A micro-panels per packed block of op(A). */
#define HCL_GEMM_ISA(MR, NR, MC_PANELS, micro)                                                                         \
    { (MR), (NR), (MR) * (MC_PANELS), HCL_GEMM_NC / (NR) * (NR), (micro) }

/* Indexed by hcl__host_isa()'s level (HCL__HOST_ISA_*). */
static const hcl_gemm_isa hcl_gemm_isas[] = {
    HCL_GEMM_ISA(4, 8, 48, hcl_gemm_micro_generic),
#ifdef HCL_GEMM_X86
    HCL_GEMM_ISA(4, 24, 48, hcl_gemm_micro_avx2),
    HCL_GEMM_ISA(12, 32, 16, hcl_gemm_micro_avx512),
#endif
};

static const hcl_gemm_isa *hcl_gemm_current_isa(void) { return &hcl_gemm_isas[hcl__host_isa()]; }

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

/* Pack a KC x ncb block of op(B), starting at `b` = &op(B)(p0, j0), where op(B)(p, j) is b[p * rs + j * cs], into
 * NR-wide micro-panels: column j at dst[(j / nr) * nr * kc + p * nr + j % nr], the last panel padded with zeros.
 * Row-major B (cs 1) is read a row at a time, each row scattered over the panels: the source is then read in order
 * (prefetched), not a 128-byte piece per row ldb apart; whole panel rows are copied with a constant size. */
static void hcl_gemm_pack_b(const float *b, size_t rs, size_t cs, size_t ncb, size_t kc, size_t nr,
                            float *restrict dst) {
    if (cs == 1) {
        const size_t whole = ncb / nr * nr;
        for (size_t p = 0; p < kc; ++p) {
            const float *restrict src = b + p * rs;
            float *restrict row = dst + p * nr;
            size_t j = 0;
            if (nr == 32) {
                for (; j < whole; j += 32) memcpy(row + j * kc, src + j, 32 * sizeof(float));
            } else if (nr == 24) {
                for (; j < whole; j += 24) memcpy(row + j * kc, src + j, 24 * sizeof(float));
            } else {
                for (; j < whole; j += nr) memcpy(row + j * kc, src + j, nr * sizeof(float));
            }
            if (j < ncb) {
                float *restrict last = row + j * kc;
                for (size_t q = 0; q < nr; ++q) last[q] = j + q < ncb ? src[j + q] : 0.0f;
            }
        }
    } else {
        for (size_t j = 0; j < ncb; ++j) {
            const float *restrict src = b + j * cs;
            float *restrict panel = dst + j / nr * nr * kc + j % nr;
            for (size_t p = 0; p < kc; ++p) panel[p * nr] = src[p];
        }
        if (ncb % nr != 0) {
            float *restrict panel = dst + ncb / nr * nr * kc;
            for (size_t p = 0; p < kc; ++p)
                for (size_t j = ncb % nr; j < nr; ++j) panel[p * nr + j] = 0.0f;
        }
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

/* Write the valid rows x cols part of a micro-tile at the edge of C: C = alpha * acc + beta * C, C not read when beta
 * is 0 (so NaN there does not propagate). */
static void hcl_gemm_store(float *restrict c, size_t ldc, const float *restrict acc, size_t nr, size_t rows,
                           size_t cols, float alpha, float beta) {
    for (size_t i = 0; i < rows; ++i) {
        float *restrict ci = c + i * ldc;
        const float *restrict ai = acc + i * nr;
        if (beta == 0.0f) {
            for (size_t j = 0; j < cols; ++j) ci[j] = alpha * ai[j];
        } else if (beta == 1.0f) {
            for (size_t j = 0; j < cols; ++j) ci[j] += alpha * ai[j];
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

/* Depth of the packed blocks: HCL_GEMM_KC, or HCL_GEMM_KC from the environment (read once; for tuning runs). */
static size_t hcl_gemm_kc(void) {
    static atomic_size_t cached = 0;
    size_t kc = atomic_load(&cached);
    if (kc == 0) {
        kc = HCL_GEMM_KC;
        const char *text = getenv("HCL_GEMM_KC");
        if (text != NULL) {
            const long value = strtol(text, NULL, 10);
            if (value >= 8 && value <= HCL_GEMM_KC_MAX && value % 8 == 0) kc = (size_t)value;
        }
        atomic_store(&cached, kc);
    }
    return kc;
}

/* The threads the host driver runs kernels on. */
static size_t hcl_gemm_max_threads(void) {
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
    return threads > 1 ? (size_t)threads : 1;
#else
    return 1;
#endif
}

/* How C is cut into units of work for the threads: gm x gn units of `rows` x `cols` (multiples of mr, nr; the last
 * row and column of units may be smaller), taken by `threads` threads. */
typedef struct hcl_gemm_split {
    size_t threads, gm, gn, rows, cols;
} hcl_gemm_split;

/* Each unit runs the whole blocked product for its part of C with its own packed panels, so threads never wait for
 * each other inside a call (the caller waits for the last units at the end): on a busy machine a thread that waits at
 * a barrier for a descheduled partner spins through a scheduler slice (libgomp's default wait policy), which made
 * small products 50 times slower. The price is packing again: a row of units packs all of its columns of op(B), a
 * column of units all of its rows of op(A). So C is cut into 2 units a thread (taken in turn: a thread that keeps its
 * core takes more), of at least 2 micro-tiles each way, on the gm x gn grid that packs least, op(A)'s transposing
 * pack counted twice op(B)'s copy. On 2 cores at 2048^3 the process used 3.5% more CPU time than one thread; 4 units a
 * thread cost 12-15%. A small product runs on one thread. */
static hcl_gemm_split hcl_gemm_split_for(const hcl_gemm_isa *isa, size_t m, size_t n, size_t k) {
    hcl_gemm_split split = {hcl_gemm_max_threads(), 1, 1, 0, 0};
    if ((double)m * (double)n * (double)k < (double)HCL_GEMM_PARALLEL_MIN) split.threads = 1;
    const size_t t = split.threads;
    if (t > 1) {
        const size_t max_gm = m / (2 * isa->mr) > 0 ? m / (2 * isa->mr) : 1;
        const size_t max_gn = n / (2 * isa->nr) > 0 ? n / (2 * isa->nr) : 1;
        const size_t units = hcl_gemm_min(2 * t, max_gm * max_gn);
        double best = -1.0;
        for (size_t gn = 1; gn <= hcl_gemm_min(2 * t, max_gn); ++gn) {
            const size_t gm = hcl_gemm_min(max_gm, (units + gn - 1) / gn);
            if (gm * gn < units) continue;
            const double cost = (double)gm * (double)n + 2.0 * (double)gn * (double)m;
            if (best < 0.0 || cost < best) {
                best = cost;
                split.gm = gm;
                split.gn = gn;
            }
        }
    }
    split.rows = hcl_gemm_round_up((m + split.gm - 1) / split.gm, isa->mr);
    split.cols = hcl_gemm_round_up((n + split.gn - 1) / split.gn, isa->nr);
    split.gm = (m + split.rows - 1) / split.rows;
    split.gn = (n + split.cols - 1) / split.cols;
    split.threads = hcl_gemm_min(t, split.gm * split.gn);
    return split;
}

/* Bytes of one thread's packed op(A) block and op(B) block for this shape and split, each rounded to 64 bytes. */
static void hcl_gemm_slot(const hcl_gemm_isa *isa, const hcl_gemm_split *split, size_t k, size_t *out_a_bytes,
                          size_t *out_b_bytes) {
    const size_t kc_max = hcl_gemm_min(k, hcl_gemm_kc());
    *out_a_bytes = hcl_gemm_round_up(hcl_gemm_min(split->rows, isa->mc) * kc_max * sizeof(float), 64);
    *out_b_bytes = hcl_gemm_round_up(hcl_gemm_min(split->cols, isa->nc) * kc_max * sizeof(float), 64);
}

/* Bytes of the float copy of C that a 16-bit C is accumulated in (0 for a float C or no product). */
static size_t hcl_gemm_cbuf_bytes(const hcl_kgemm *g) {
    if (g->c_type == HCL_DTYPE_F32 || g->k == 0 || g->alpha == 0.0f) return 0;
    return hcl_gemm_round_up(g->m * g->n * sizeof(float), 64);
}

/* Packed blocks of every thread, then the float copy of a 16-bit C. */
static size_t hcl_gemm_packed_bytes(const hcl_kgemm *g) {
    const hcl_gemm_isa *isa = hcl_gemm_current_isa();
    const hcl_gemm_split split = hcl_gemm_split_for(isa, g->m, g->n, g->k);
    size_t a_bytes, b_bytes;
    hcl_gemm_slot(isa, &split, g->k, &a_bytes, &b_bytes);
    return split.threads * (a_bytes + b_bytes);
}

size_t hcl__host_gemm_workspace_bytes(const hcl_kgemm *g) {
    if (g->m == 0 || g->n == 0 || g->k == 0) return 0;
    return hcl_gemm_packed_bytes(g) + hcl_gemm_cbuf_bytes(g) + 64; /* + 64: the caller's memory need not be aligned */
}

/* One product's operands, as hcl_gemm_unit reads them. op(A)(i, p) = a[i * rs_a + p * cs_a]; op(B)(p, j) =
 * b[p * rs_b + j * cs_b]; A and B of type ab (f32, or 16-bit widened while packing). */
typedef struct hcl_gemm_args {
    const hcl_gemm_isa *isa;
    size_t m, n, k, kc;
    float alpha, beta;
    hcl_dtype ab;
    const void *a, *b;
    size_t rs_a, cs_a, rs_b, cs_b;
    float *c;
    size_t ldc;
} hcl_gemm_args;

/* C[i0:i1, j0:j1] = alpha * op(A) op(B) + beta * C over the whole of k (Goto's loops: NC columns of op(B) packed per
 * KC-deep block, mc rows of op(A) per block, then the micro-tiles with a B micro-panel held while the A micro-panels
 * of the block pass), with this thread's packed blocks ap and bp. */
static void hcl_gemm_unit(const hcl_gemm_args *x, size_t i0, size_t i1, size_t j0, size_t j1, float *ap, float *bp) {
    const hcl_gemm_isa *isa = x->isa;
    const size_t mr = isa->mr, nr = isa->nr;
    const int bf16 = x->ab == HCL_DTYPE_BF16;
    for (size_t jc = j0; jc < j1; jc += isa->nc) {
        const size_t ncb = hcl_gemm_min(isa->nc, j1 - jc);
        for (size_t pc = 0; pc < x->k; pc += x->kc) {
            const size_t kc = hcl_gemm_min(x->kc, x->k - pc);
            /* The first block of k applies beta (without reading C when it is 0); later ones add to it. */
            const float beta = pc == 0 ? x->beta : 1.0f;
            if (x->ab == HCL_DTYPE_F32) {
                hcl_gemm_pack_b((const float *)x->b + pc * x->rs_b + jc * x->cs_b, x->rs_b, x->cs_b, ncb, kc, nr, bp);
            } else {
                for (size_t j = 0; j < ncb; j += nr) {
                    const size_t at = pc * x->rs_b + (jc + j) * x->cs_b, cols = hcl_gemm_min(nr, ncb - j);
                    hcl_gemm_pack_b16((const uint16_t *)x->b + at, x->rs_b, x->cs_b, cols, kc, nr, bf16, bp + j * kc);
                }
            }
            for (size_t ic = i0; ic < i1; ic += isa->mc) {
                const size_t mcb = hcl_gemm_min(isa->mc, i1 - ic);
                for (size_t i = 0; i < mcb; i += mr) {
                    const size_t at = (ic + i) * x->rs_a + pc * x->cs_a, rows = hcl_gemm_min(mr, mcb - i);
                    if (x->ab == HCL_DTYPE_F32)
                        hcl_gemm_pack_a((const float *)x->a + at, x->rs_a, x->cs_a, rows, kc, mr, ap + i * kc);
                    else
                        hcl_gemm_pack_a16((const uint16_t *)x->a + at, x->rs_a, x->cs_a, rows, kc, mr, bf16,
                                          ap + i * kc);
                }
                for (size_t jr = 0; jr < ncb; jr += nr) {
                    const size_t cols = hcl_gemm_min(nr, ncb - jr);
                    for (size_t ir = 0; ir < mcb; ir += mr) {
                        const size_t rows = hcl_gemm_min(mr, mcb - ir);
                        float *c = x->c + (ic + ir) * x->ldc + jc + jr;
                        if (rows == mr && cols == nr) {
                            isa->micro(kc, ap + ir * kc, bp + jr * kc, c, x->ldc, x->alpha, beta, NULL);
                        } else {
                            _Alignas(64) float acc[HCL_GEMM_TILE_MAX];
                            isa->micro(kc, ap + ir * kc, bp + jr * kc, c, x->ldc, x->alpha, beta, acc);
                            hcl_gemm_store(c, x->ldc, acc, nr, rows, cols, x->alpha, beta);
                        }
                    }
                }
            }
        }
    }
}

/* A product spread over the threads: the shared counter of units taken, each thread's packed blocks. */
typedef struct hcl_gemm_job {
    hcl_gemm_args args;
    hcl_gemm_split split;
    size_t slot_floats, a_floats; /* one thread's share of the packed blocks; its op(A) block first */
    float *packed;
    atomic_size_t next; /* the next unit */
} hcl_gemm_job;

/* One thread's share (hcl_gemm_pool_fn): units taken in turn, not dealt out, so that a thread that keeps its core
 * does the work of one that lost it. */
static void hcl_gemm_share(void *ctx, size_t slot) {
    hcl_gemm_job *job = ctx;
    const hcl_gemm_split *split = &job->split;
    float *ap = job->packed + slot * job->slot_floats, *bp = ap + job->a_floats;
    const size_t units = split->gm * split->gn, m = job->args.m, n = job->args.n;
    for (size_t u = atomic_fetch_add(&job->next, 1); u < units; u = atomic_fetch_add(&job->next, 1)) {
        const size_t i0 = u / split->gn * split->rows, j0 = u % split->gn * split->cols;
        hcl_gemm_unit(&job->args, i0, hcl_gemm_min(m, i0 + split->rows), j0, hcl_gemm_min(n, j0 + split->cols), ap, bp);
    }
}

/* A C of one column or one row (n or m is 1) with float A and B is a matrix-vector product, out[o * os] = alpha *
 * sum_p X[o * xo + p * xq] v[p * vq] + beta * out[o * os] for o < len, without packing (which cost 20 times OpenBLAS's
 * time at 1024 x 1 x 1024 on 16 cores): X contiguous along p, a dot product per output in 16 chains; contiguous
 * along o, the outputs of a block updated once per p (axpy). Blocks of at most HCL_GEMV_BLOCK outputs, about four a
 * thread, are taken in turn by the threads (a 1024 x 1024 matrix is 4 MiB, more than one core reads at full speed). */
#define HCL_GEMV_BLOCK 256
#define HCL_GEMV_PARALLEL_MIN (1u << 16) /* len * k from which the threads share the work */
typedef struct hcl_gemv_job {
    size_t len, k, xo, xq, vq, os, block;
    float alpha, beta;
    const float *x, *v;
    float *out;
    atomic_size_t next;
} hcl_gemv_job;

static void hcl_gemv_block(const hcl_gemv_job *g, size_t o0, size_t o1) {
    float acc[HCL_GEMV_BLOCK];
    if (g->xq == 1) {
        for (size_t o = o0; o < o1; ++o) {
            const float *restrict x = g->x + o * g->xo;
            float part[16] = {0.0f};
            size_t p = 0;
            if (g->vq == 1)
                for (; p + 16 <= g->k; p += 16)
                    for (size_t u = 0; u < 16; ++u) part[u] += x[p + u] * g->v[p + u];
            for (; p < g->k; ++p) part[p % 16] += x[p] * g->v[p * g->vq];
            float sum = 0.0f;
            for (size_t u = 0; u < 16; ++u) sum += part[u];
            acc[o - o0] = sum;
        }
    } else {
        for (size_t o = o0; o < o1; ++o) acc[o - o0] = 0.0f;
        for (size_t p = 0; p < g->k; ++p) {
            const float *restrict x = g->x + p * g->xq + o0 * g->xo;
            const float w = g->v[p * g->vq];
            for (size_t o = 0; o < o1 - o0; ++o) acc[o] += x[o * g->xo] * w;
        }
    }
    for (size_t o = o0; o < o1; ++o) {
        float *c = g->out + o * g->os;
        *c = g->beta == 0.0f ? g->alpha * acc[o - o0] : g->alpha * acc[o - o0] + g->beta * *c;
    }
}

static void hcl_gemv_share(void *ctx, size_t slot) {
    (void)slot;
    hcl_gemv_job *g = ctx;
    const size_t blocks = (g->len + g->block - 1) / g->block;
    for (size_t b = atomic_fetch_add(&g->next, 1); b < blocks; b = atomic_fetch_add(&g->next, 1))
        hcl_gemv_block(g, b * g->block, hcl_gemm_min(g->len, (b + 1) * g->block));
}

/* C = alpha * op(A) * op(B) + beta * C with float C, A and B of `ab`, the packed blocks in `packed` (as
 * hcl_gemm_packed_bytes sizes them). */
static void hcl_gemm_run(int trans_a, int trans_b, size_t m, size_t n, size_t k, float alpha, hcl_dtype ab,
                         const void *a, size_t lda, const void *b, size_t ldb, float beta, float *c, size_t ldc,
                         float *packed) {
    if (ab == HCL_DTYPE_F32 && (m == 1 || n == 1)) {
        /* one column: X = op(A) (element (i, p)), v = op(B); one row: X = op(B)^T (element (j, p)), v = op(A) */
        const int col = n == 1;
        const size_t xo = col ? (trans_a ? 1 : lda) : (trans_b ? ldb : 1);
        const size_t xq = col ? (trans_a ? lda : 1) : (trans_b ? 1 : ldb);
        const size_t vq = col ? (trans_b ? 1 : ldb) : (trans_a ? lda : 1);
        const size_t len = col ? m : n;
        const size_t threads = (double)len * (double)k < (double)HCL_GEMV_PARALLEL_MIN ? 1 : hcl_gemm_max_threads();
        const size_t block =
            hcl_gemm_min(HCL_GEMV_BLOCK, hcl_gemm_round_up((len + 4 * threads - 1) / (4 * threads), 16));
        hcl_gemv_job g = {len, k, xo, xq, vq, col ? ldc : 1, block, alpha, beta, col ? a : b, col ? b : a, c, 0};
        (void)hcl__gemm_pool_run(hcl_gemm_min(threads, (len + block - 1) / block), hcl_gemv_share, &g);
        return;
    }
    const hcl_gemm_isa *isa = hcl_gemm_current_isa();
    const hcl_gemm_split split = hcl_gemm_split_for(isa, m, n, k);
    size_t a_bytes, b_bytes;
    hcl_gemm_slot(isa, &split, k, &a_bytes, &b_bytes);
    hcl_gemm_job job = {{isa, m, n, k, hcl_gemm_kc(), alpha, beta, ab, a, b, trans_a ? 1 : lda, trans_a ? lda : 1,
                         trans_b ? 1 : ldb, trans_b ? ldb : 1, c, ldc},
                        split,
                        (a_bytes + b_bytes) / sizeof(float),
                        a_bytes / sizeof(float),
                        packed,
                        0};
    (void)hcl__gemm_pool_run(split.threads, hcl_gemm_share, &job);
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
    const size_t packed_bytes = hcl_gemm_packed_bytes(g);
    float *packed, *owned = NULL;
    if (workspace != NULL) {
        packed = (float *)hcl_gemm_round_up((size_t)(uintptr_t)workspace, 64);
    } else {
        owned = aligned_alloc(64, packed_bytes + hcl_gemm_cbuf_bytes(g));
        if (owned == NULL) return -1;
        packed = owned;
    }
    const int ta = g->trans_a == HCL_TRANS, tb = g->trans_b == HCL_TRANS;
    if (g->c_type == HCL_DTYPE_F32) {
        hcl_gemm_run(ta, tb, m, n, k, g->alpha, g->ab_type, a, g->lda, b, g->ldb, g->beta, c, g->ldc, packed);
    } else {
        /* a 16-bit C is accumulated in a float copy (rows of n) and rounded once at the end */
        float *cf = packed + packed_bytes / sizeof(float);
        uint16_t *c16 = c;
        if (g->beta != 0.0f)
            for (size_t i = 0; i < m; ++i) hcl__host_widen(g->c_type, c16 + i * g->ldc, cf + i * n, n);
        hcl_gemm_run(ta, tb, m, n, k, g->alpha, g->ab_type, a, g->lda, b, g->ldb, g->beta, cf, n, packed);
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
