/* kernels-mfma-emulation: the MFMA gemm kernels of kernels/gemm/gemm_mfma.cu run as host C++ with an EMULATION of
 * the matrix-core instruction, against a float64 reference. No AMD GPU runs here: this checks the kernels' own logic
 * (tiling, the global -> shared copy of every transpose, the edges, the double buffering, the lane layout of the
 * operands and results, alpha and beta, the grid stride), not the hardware.
 *
 * The kernel text is compiled as it is, with the HIP device names defined for the host: a block is 256 threads
 * (std::thread), __syncthreads a barrier of the block, __shared__ a static (one block runs at a time), and
 * v_mfma_f32_32x32x8{f16,bf16_1k} a function in which the 64 lanes of a wavefront exchange their operands through
 * memory and each lane computes its 16 results, following the register layout of AMD's matrix instruction calculator
 * for CDNA1-3 (github.com/ROCm/amd_matrix_instruction_calculator, checked for v_mfma_f32_32x32x8f16 on cdna1/2,
 * v_mfma_f32_32x32x8bf16_1k on cdna2 and their cdna3 names): operand lane l, item e holds A[l % 32][4 * (l / 32) + e]
 * and B[4 * (l / 32) + e][l % 32]; result register r of lane l is D[8 * (r / 4) + 4 * (l / 32) + r % 4][l % 32]. The
 * products are exact and summed in float64 here, then added to the float accumulator (the hardware sums in float32:
 * the tolerance covers the difference). The f16 / bf16 conversions are hcl_gpu_types.h's HIP ones.
 *
 * Shapes: 1, primes, sizes around the 128 x 128 tile and the K step of 32, all four transposes, every type pair,
 * alpha / beta (beta 0 over a C of NaN: not read), leading dimensions with padding and unaligned bases (the scalar
 * loads), a capped grid (the kernel strides over tiles). C is poisoned around the m x n block: unwritten or
 * overwritten elements fail. Exit status 0 when every case passed. */
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

/* ---- the HIP device environment, on the host ---- */
#define HCL_GPU_COMPAT_H 1 /* its names, defined here instead */
#define HCL_GPU_HIP_KERNEL 1
#define HCL_LAUNCH_BOUNDS(max_threads)
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static

struct hcl_emu_dim3 {
    unsigned x, y, z;
};
static thread_local hcl_emu_dim3 threadIdx;
static hcl_emu_dim3 blockIdx, gridDim;
static std::barrier<> *g_block_barrier;
static void __syncthreads() { g_block_barrier->arrive_and_wait(); }

struct uint4 {
    unsigned x, y, z, w;
};
struct float4 {
    float x, y, z, w;
};
struct float2 {
    float x, y;
};
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
static inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
static inline float2 make_float2(float x, float y) { return {x, y}; }
static inline float __int_as_float(int i) { return __builtin_bit_cast(float, i); }
static inline int __float_as_int(float f) { return __builtin_bit_cast(int, f); }

#include "hcl_gpu_types.h"

/* ---- the instruction ---- */
#define HCL_MFMA_HOST_EMULATION 1
struct hcl_mfma_frag {
    short v[4];
    short &operator[](int i) { return v[i]; }
    short operator[](int i) const { return v[i]; }
};
struct hcl_mfma_acc {
    float v[16];
    float &operator[](int i) { return v[i]; }
};

/* one wavefront's exchange: the operands of its 64 lanes */
struct hcl_emu_wave {
    hcl_mfma_frag a[64], b[64];
    std::barrier<> *bar;
};
static hcl_emu_wave g_wave[4];

template <typename T> static void hcl_mfma_32x32x8(hcl_mfma_acc &c, hcl_mfma_frag a, hcl_mfma_frag b) {
    const int lane = (int)threadIdx.x % 64;
    hcl_emu_wave &w = g_wave[threadIdx.x / 64];
    w.a[lane] = a, w.b[lane] = b;
    w.bar->arrive_and_wait(); /* every lane's operands are in */
    hcl_mfma_acc d;
    for (int r = 0; r < 16; r++) {
        const int i = 8 * (r / 4) + 4 * (lane / 32) + r % 4, j = lane % 32;
        double s = 0;
        for (int k = 0; k < 8; k++)
            s += (double)hcl_conv16<T>::to((unsigned short)w.a[i + 32 * (k / 4)][k % 4]) *
                 hcl_conv16<T>::to((unsigned short)w.b[j + 32 * (k / 4)][k % 4]);
        d[r] = (float)((double)c[r] + s);
    }
    w.bar->arrive_and_wait(); /* every lane has read them: the next instruction may overwrite */
    c = d;
}

#include "gemm/gemm_mfma.cu"

/* ---- the test ---- */
typedef unsigned long long u64;
typedef void (*kernel_fn)(u64 m, u64 n, u64 k, float alpha, const void *A, u64 lda, const void *B, u64 ldb, float beta,
                          void *C, u64 ldc);

/* kernel K with untyped buffers */
template <typename TAB, typename TC,
          void (*K)(u64, u64, u64, float, const TAB *, u64, const TAB *, u64, float, TC *, u64)>
static void call(u64 m, u64 n, u64 k, float alpha, const void *A, u64 lda, const void *B, u64 ldb, float beta, void *C,
                 u64 ldc) {
    K(m, n, k, alpha, (const TAB *)A, lda, (const TAB *)B, ldb, beta, (TC *)C, ldc);
}
#define KERNEL_ROW(T, TAB, TC)                                                                                         \
    {                                                                                                                  \
        call<TAB, TC, hcl_gemm_mfma_##T##_nn>, call<TAB, TC, hcl_gemm_mfma_##T##_nt>,                                  \
            call<TAB, TC, hcl_gemm_mfma_##T##_tn>, call<TAB, TC, hcl_gemm_mfma_##T##_tt>                               \
    }
/* [type pair][transpose]: f16 -> f16, f16 -> f32, bf16 -> bf16, bf16 -> f32; nn, nt, tn, tt */
static const kernel_fn g_kernels[4][4] = {
    KERNEL_ROW(f16_f16, hcl_f16_t, hcl_f16_t), KERNEL_ROW(f16_f32, hcl_f16_t, float),
    KERNEL_ROW(bf16_bf16, hcl_bf16_t, hcl_bf16_t), KERNEL_ROW(bf16_f32, hcl_bf16_t, float)};
static const char *const g_type_names[4] = {"f16 -> f16", "f16 -> f32", "bf16 -> bf16", "bf16 -> f32"};

static void launch(kernel_fn fn, unsigned gx, unsigned gy, unsigned long long m, unsigned long long n,
                   unsigned long long k, float alpha, const void *A, unsigned long long lda, const void *B,
                   unsigned long long ldb, float beta, void *C, unsigned long long ldc) {
    std::barrier<> block(HCL_MFMA_THREADS);
    std::barrier<> waves[4] = {std::barrier<>(64), std::barrier<>(64), std::barrier<>(64), std::barrier<>(64)};
    g_block_barrier = &block;
    for (int w = 0; w < 4; w++) g_wave[w].bar = &waves[w];
    gridDim = {gx, gy, 1};
    for (unsigned by = 0; by < gy; by++)
        for (unsigned bx = 0; bx < gx; bx++) {
            blockIdx = {bx, by, 0};
            std::vector<std::thread> threads;
            threads.reserve(HCL_MFMA_THREADS);
            for (unsigned t = 0; t < HCL_MFMA_THREADS; t++)
                threads.emplace_back([=] {
                    threadIdx = {t, 0, 0};
                    fn(m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
                });
            for (auto &th : threads) th.join();
        }
}

static unsigned short to16(int bf16, float f) { return bf16 ? hcl_float_to_bf16(f) : hcl_float_to_f16(f); }
static float from16(int bf16, unsigned short h) { return bf16 ? hcl_bf16_to_float(h) : hcl_f16_to_float(h); }

static int g_failures, g_cases;

/* One case: C = alpha op(A) op(B) + beta C with kernel [types][trans] on a gx x gy grid (0: the plan's). pad: elements
 * added to each leading dimension; skew: elements the bases are moved by (1: not 16-byte aligned). */
static void run_case(int types, int trans, size_t m, size_t n, size_t k, float alpha, float beta, size_t pad,
                     size_t skew, unsigned gx, unsigned gy, std::mt19937 &rng) {
    const int bf16 = types >= 2, c16 = types == 0 || types == 2, ta = trans >> 1, tb = trans & 1;
    const size_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
    const size_t a_rows = ta ? k : m, b_rows = tb ? n : k;
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<unsigned short> A(a_rows * lda + skew + 8), B(b_rows * ldb + skew + 8);
    for (auto &x : A) x = to16(bf16, dist(rng));
    for (auto &x : B) x = to16(bf16, dist(rng));
    /* C: its m x n block random (or NaN when beta is 0: it must not be read), the rest a poison value */
    const float poison = 1234.5f;
    const size_t c_elems = m * ldc + skew + 8;
    std::vector<float> C32(c16 ? 0 : c_elems), ref(m * n);
    std::vector<unsigned short> C16(c16 ? c_elems : 0);
    std::vector<float> c_in(c_elems, poison);
    for (size_t r = 0; r < m; r++)
        for (size_t j = 0; j < n; j++) c_in[skew + r * ldc + j] = beta == 0.0f ? NAN : dist(rng);
    for (size_t i = 0; i < c_elems; i++) {
        if (c16)
            C16[i] = to16(bf16, c_in[i]), c_in[i] = from16(bf16, C16[i]);
        else
            C32[i] = c_in[i];
    }
    const unsigned short *a = A.data() + skew, *b = B.data() + skew;
    std::vector<double> mag(m * n);
    for (size_t r = 0; r < m; r++)
        for (size_t j = 0; j < n; j++) {
            double s = 0, sa = 0;
            for (size_t q = 0; q < k; q++) {
                const double p = (double)from16(bf16, ta ? a[q * lda + r] : a[r * lda + q]) *
                                 from16(bf16, tb ? b[j * ldb + q] : b[q * ldb + j]);
                s += p, sa += std::fabs(p);
            }
            const double c = c_in[skew + r * ldc + j];
            ref[r * n + j] = (float)(alpha * s + (beta != 0.0f ? beta * c : 0.0));
            mag[r * n + j] = std::fabs(alpha) * sa + (beta != 0.0f ? std::fabs(beta * c) : 0.0);
        }
    const unsigned grid_x = gx ? gx : (unsigned)((n + 127) / 128), grid_y = gy ? gy : (unsigned)((m + 127) / 128);
    void *Cp = c16 ? (void *)(C16.data() + skew) : (void *)(C32.data() + skew);
    launch(g_kernels[types][trans], grid_x, grid_y, m, n, k, alpha, a, lda, b, ldb, beta, Cp, ldc);

    /* float32 accumulation over k, then the rounding of a 16-bit C */
    const double eps_c = !c16 ? 0.0 : bf16 ? 1.0 / 256 : 1.0 / 2048;
    size_t bad = 0, shown = 0;
    for (size_t i = 0; i < c_elems; i++) {
        const float got = c16 ? from16(bf16, C16[i]) : C32[i];
        const size_t e = i >= skew ? i - skew : SIZE_MAX, r = e / ldc, j = e % ldc;
        const bool inside = e != SIZE_MAX && r < m && j < n;
        bool ok;
        double want;
        if (inside) {
            want = ref[r * n + j];
            const double tol = eps_c * std::fabs(want) + 1e-6 * (double)(k + 2) * mag[r * n + j] + (c16 ? 1e-7 : 1e-30);
            ok = std::isfinite(got) && std::fabs((double)got - want) <= tol;
        } else {
            want = c_in[i];
            ok = got == (float)want;
        }
        if (!ok) {
            if (shown++ < 3)
                printf("    %s (%zu, %zu): %.8g, expected %.8g\n", inside ? "C" : "outside C", inside ? r : 0,
                       inside ? j : i, (double)got, want);
            bad++;
        }
    }
    static const char *const tn[4] = {"nn", "nt", "tn", "tt"};
    g_cases++;
    if (bad) {
        g_failures++;
        printf("FAIL %s %s m=%zu n=%zu k=%zu alpha=%g beta=%g pad=%zu skew=%zu grid %ux%u: %zu wrong elements\n",
               g_type_names[types], tn[trans], m, n, k, (double)alpha, (double)beta, pad, skew, grid_x, grid_y, bad);
    } else {
        printf("ok   %s %s m=%zu n=%zu k=%zu alpha=%g beta=%g pad=%zu skew=%zu grid %ux%u\n", g_type_names[types],
               tn[trans], m, n, k, (double)alpha, (double)beta, pad, skew, grid_x, grid_y);
    }
}

int main(void) {
    const unsigned seed = 20261124u;
    printf("kernels-mfma-emulation: gemm_mfma.cu on the host with an EMULATED v_mfma_f32_32x32x8 (no AMD GPU), "
           "seed %u\n",
           seed);
    std::mt19937 rng(seed);
    /* every kernel: an awkward shape (primes, past one tile in m, not a K step) with alpha, beta and padding, and the
     * unaligned scalar path with beta 0 over NaN */
    for (int types = 0; types < 4; types++)
        for (int trans = 0; trans < 4; trans++) {
            run_case(types, trans, 131, 37, 41, 1.5f, -0.75f, 3, 0, 0, 0, rng);
            run_case(types, trans, 7, 130, 9, -1.0f, 0.0f, 0, 1, 0, 0, rng);
        }
    /* single elements, exact tiles and K steps, one past them; a capped grid over 3 x 2 tiles */
    run_case(0, 0, 1, 1, 1, 1.0f, 0.0f, 0, 0, 0, 0, rng);
    run_case(3, 3, 1, 1, 1, 2.0f, 0.5f, 1, 1, 0, 0, rng);
    run_case(1, 0, 128, 128, 32, 1.0f, 0.0f, 0, 0, 0, 0, rng);
    run_case(2, 1, 129, 127, 33, 1.0f, 1.0f, 8, 0, 0, 0, rng);
    run_case(0, 2, 257, 131, 97, 0.5f, 2.0f, 0, 0, 1, 1, rng);
    run_case(3, 1, 300, 200, 64, 1.0f, 0.0f, 5, 1, 2, 1, rng);
    /* leading dimensions of 8-element multiples, aligned bases: the 16-byte vector loads, partial tiles at the edges */
    run_case(2, 3, 200, 136, 72, 1.0f, -1.0f, 0, 0, 0, 0, rng);
    run_case(1, 2, 136, 264, 40, -0.5f, 0.0f, 0, 0, 0, 0, rng);
    printf("kernels-mfma-emulation: %s (%d of %d cases failed)\n", g_failures ? "FAILED" : "passed", g_failures,
           g_cases);
    return g_failures ? 1 : 0;
}
