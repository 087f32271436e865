/* The host (C11) sources of the built-in kernels.
 *
 * Plain C functions over plain pointers and sizes: they know nothing of the HCL API. The host driver calls
 * them on its own buffers. Each runs to completion before it returns and spreads its work over the cores
 * with OpenMP when the build has it (serially otherwise). None of them exits, aborts or prints.
 */
#ifndef HCL_HOST_KERNELS_H
#define HCL_HOST_KERNELS_H

#include "hcl/hcl.h"
#include "hcl_plan.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* OpenMP pragmas that vanish (without an unknown-pragma warning) when the build has no OpenMP. */
#ifdef _OPENMP
#define HCL__OMP(...) _Pragma(#__VA_ARGS__)
#else
#define HCL__OMP(...)
#endif

/* The instruction set of every host kernel (kernels/host_isa.c), one choice for all of them: the best level this CPU
 * runs, or the one HCL_HOST_ISA names ("avx512", "avx2", "generic") when the CPU runs it. Found once per process
 * (CPUID traps to the hypervisor in a virtual machine, and the kernels ask for every piece). Levels are ordered: a
 * CPU that runs one runs every lower one. Without x86-64 and GCC or clang the only level is generic. */
enum { HCL__HOST_ISA_GENERIC = 0, HCL__HOST_ISA_AVX2 = 1, HCL__HOST_ISA_AVX512 = 2 };
int hcl__host_isa(void);
/* "generic", "avx2", "avx512" (HCL_HOST_ISA's spelling); "unknown" for another value. */
const char *hcl__host_isa_name(int level);
/* For tests: make hcl__host_isa answer `level` (a lower one than the CPU's runs too), or choose by CPU and
 * HCL_HOST_ISA again (-1). Returns 0, or -1 when this CPU cannot run that level (the choice is then unchanged). Not
 * while a kernel runs, nor between sizing a GEMM's workspace and running it. */
int hcl__host_isa_force(int level);
/* 0 when HCL_HOST_ISA is unset, empty or a level this CPU runs; else -1 with why in reason (the name is unknown, or
 * this CPU cannot run it: which levels it runs). The core makes the host backend unavailable with this reason then
 * (api/src/loader.c), so a forced level never silently becomes another. */
int hcl__host_isa_refusal(char *reason, size_t reason_size);
/* The CPU's 16-bit arithmetic, from CPUID whatever HCL_HOST_ISA forces: HCL__HOST_CPU_FP16 (AVX512-FP16) and
 * HCL__HOST_CPU_BF16 (AVX512-BF16), each only where the OS saves the zmm registers; 0 elsewhere. */
enum { HCL__HOST_CPU_FP16 = 1, HCL__HOST_CPU_BF16 = 2 };
unsigned hcl__host_cpu_features(void);

/* float32 <-> f16 / bf16 (kernels/host_convert.c): round to nearest even, a NaN becomes a quiet NaN, overflow gives
 * infinity, f16 subnormals kept. The public hcl_f32_to_f16 etc. are these. */
uint16_t hcl__f32_to_f16(float value);
float hcl__f16_to_f32(uint16_t value);
uint16_t hcl__f32_to_bf16(float value);
float hcl__bf16_to_f32(uint16_t value);
/* n elements of `type` at src -> floats at dst, and back (HCL_DTYPE_F32 copies). Vector code where the CPU has
 * AVX-512F or AVX2 + F16C (hcl_host_simd.h, at hcl__host_isa's level), the same bits as the scalar functions above. */
void hcl__host_widen(hcl_dtype type, const void *src, float *dst, size_t n);
void hcl__host_narrow(hcl_dtype type, const float *src, void *dst, size_t n);

/* c[i] = a[i] + b[i] for i < n. c may be the same array as a or b (or both); otherwise the arrays must not
 * overlap. */
void hcl__host_vecadd_f32(size_t n, const float *a, const float *b, float *c);

/* GEMM with BLAS meaning on row-major matrices, the shape and types of `g` (kernels/hcl_plan.h: hcl_kgemm):
 * C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n, C m x n. A is m x k (lda >= k) when not transposed,
 * else k x m (lda >= m); likewise B (ldb >= n, or >= k transposed); ldc >= n. When beta is 0, C is not read (NaN in C
 * does not propagate); when k is 0 or alpha is 0, A and B are not read and C = beta * C. m = 0 or n = 0 does nothing.
 * C must not overlap A or B. A and B are f32, f16 or bf16 (ab_type; 16-bit elements are widened exactly while
 * packing); C is f32 or ab_type: a 16-bit C is accumulated in a float copy in the workspace and rounded once.
 * Accumulates in float (fused multiply-add where the CPU has it), in blocks of k. g->compute is not looked at (the
 * core never sends TF32 to the host).
 * `workspace`: at least hcl__host_gemm_workspace_bytes(g) bytes, or NULL to have it allocated here. Returns 0, or -1
 * when workspace is NULL and it could not be allocated; C is then unchanged. */
int hcl__host_gemm(const hcl_kgemm *g, const void *a, const void *b, void *c, void *workspace);
/* Bytes of workspace hcl__host_gemm needs for g with the current micro-kernel and OpenMP thread count (0 when it needs
 * none): one packed block of A and of B per thread that the call will use. Neither may change between this and the
 * call. hcl__host_gemm runs on its own worker threads (kernels/gemm/gemm_pool.c), as many as OpenMP's
 * omp_get_max_threads(), not in an OpenMP region. */
size_t hcl__host_gemm_workspace_bytes(const hcl_kgemm *g);

/* Row-wise softmax of a rows x cols row-major matrix: out[r][j] = exp(in[r][j] - max_r) / sum_j exp(...).
 * Numerically stable (the row maximum is subtracted first); -inf entries give 0; a row of all -inf, or one
 * that holds a NaN or +inf, gives NaN in every entry (as PyTorch). out may be in (in place); otherwise the
 * two must not overlap. exp is computed by an own vectorisable routine: relative error below 1e-7 (checked
 * over every float in [-87, 0]); results below 2^-126 (inputs more than ~87.3 below the row max) flush to 0.
 * The loops are compiled for AVX-512, AVX2 and the baseline ISA, chosen at run time; all give the same bits. */
void hcl__host_softmax_f32(size_t rows, size_t cols, const float *in, float *out);

/* Bytes of scratch the 16-bit host softmax of rows x cols elements can use: a float row per OpenMP thread (at most one
 * per row), so that exp runs once per element; 0 for f32, for rows its stack buffer holds and for rows above 2^20
 * elements. The kernel uses what it is given, for as many threads as it has room for. */
size_t hcl__host_softmax_scratch_bytes(hcl_dtype type, size_t rows, size_t cols);

enum { HCL__HOST_REDUCE_SUM = 0, HCL__HOST_REDUCE_MAX = 1, HCL__HOST_REDUCE_MIN = 2 };

/* out[0] = sum, max or min of in[0..n), n > 0 (op as the HCL__HOST_REDUCE_* values; any other op gives -1).
 * Deterministic: in[] is cut into chunks whose size depends on n only (not on the thread count); each
 * chunk is summed with several independent accumulators, and the chunk results are combined in chunk order,
 * so the same input gives the same bits on any schedule. Sums accumulate in double inside each chunk and
 * across chunks, then round once to float.
 * max/min ignore NaN inputs, as fmaxf/fminf do: the result is NaN only when every input is NaN.
 * Returns 0, or -1 for an unknown op. */
int hcl__host_reduce_f32(int op, size_t n, const float *in, float *out);

/* The built-ins as host kernels (hcl.h, hcl_host_kernel_fn), each run as one work-group over the whole call; the
 * table the catalogue gives the host family. Arguments, in order (buffers as data pointers, values by value):
 *   hcl_vecadd_<t>:  a, b, c, uint64 n
 *   hcl_gemm_<t>:    A, B, C, workspace (hcl__host_gemm_workspace_bytes), hcl_kgemm shape with the types
 *   hcl_softmax_<t>: in, out, uint64 rows, uint64 cols, scratch (hcl__host_softmax_scratch_bytes, or NULL), uint64
 *                    the scratch's bytes
 *   hcl_reduce_<t>:  in, out (one float), uint64 n, uint32 op (HCL__HOST_REDUCE_*)
 * <t> is f32, f16 or bf16 (the elements' type; gemm: A's and B's, one function for all three). The 16-bit forms
 * compute in float32 on the exactly widened elements and round each output once: vecadd and softmax give each element
 * the float32 kernel's value rounded; reduce gives hcl__host_reduce_f32 of the widened elements, bit for bit. */
void hcl__host_gemm_kernel(const hcl_host_launch *launch, void *const *args); /* every type: the arguments say */
/* hcl__host_<op>_<type>_kernel for vecadd, softmax and reduce and each type of hcl_dtypes.def */
#define HCL_DTYPE(id, t, bytes)                                                                                        \
    void hcl__host_vecadd_##t##_kernel(const hcl_host_launch *launch, void *const *args);                              \
    void hcl__host_softmax_##t##_kernel(const hcl_host_launch *launch, void *const *args);                             \
    void hcl__host_reduce_##t##_kernel(const hcl_host_launch *launch, void *const *args);
#include "hcl_dtypes.def"
#undef HCL_DTYPE

/* The host program (kernels/host_table.c): every host kernel by name, typed names as hcl_plan.h says. */
extern const hcl_host_function hcl__host_table[];
extern const size_t hcl__host_table_count;

#ifdef __cplusplus
}
#endif
#endif /* HCL_HOST_KERNELS_H */
