/* hcl_testsupport: what the conformance suite, bench and the driver tests share to judge a result: float64
 * references computed on the host by plain code (never by a driver), the tolerance rules per kernel, poisoning,
 * comparison, seeded random inputs, and for the plain-C tests a check counter and a few checks through the API.
 * Static library, C11; only those API checks (api.c) call HCL: the references use hcl/hcl.h for its enums.
 *
 * Tolerance rules. A reference function fills out_ref and, when out_tol is not NULL, out_tol under one of two
 * rules; hcl_ts_compare then passes element i when |got - ref| <= tol_scale * out_tol[i].
 *
 *   HCL_TS_CONFORMANCE (conformance suite, driver tests; tol_scale 1, out_tol is an absolute tolerance):
 *     vecadd   exact: ref is the float64 sum rounded once to float32, the only correct float32 sum.
 *     gemm     (k + 3) FLT_EPSILON (|alpha| sum_p |a_ip b_pj| + |beta c_ij|) + FLT_MIN: the forward error bound
 *              of a float32 dot product of length k (any order, with or without FMA), plus the roundings of alpha*,
 *              beta* and the final sum, doubled for slack. An element read from the wrong place errs by ~|a||b|.
 *     softmax  rtol |ref| + 4 FLT_MIN with rtol = 1e-5 max(1, sqrt(cols / 256)): a few ulp of exp and the division,
 *              and the row sum's error growing like sqrt(cols); the absolute term lets results below FLT_MIN flush
 *              to zero. Exactly 0 where the input is -inf.
 *     reduce   sum: 4 (sqrt(n) + log2(n) + 1) 2^-24 sum |x_i| when n > 1, else 0 (exact); max, min: exact. Sums of
 *              small integers are exact in any order: a caller that sums them passes a tolerance of 0.
 *
 *   HCL_TS_BENCH (bench; tol_scale is hcl_ts_bench_rtol(), out_tol is the scale of a relative error, so that
 *   hcl_ts_cmp.max_rel is the relative error bench reports):
 *     vecadd   2^-23 relative to |ref| (ref: the float64 sum, not rounded): one rounding is at most 2^-24.
 *     gemm     min(k + 1, 64) 2^-23 relative to sum_p |a_ip b_pj|: above any float32 summation order, and below the
 *              ~2^-11 / sqrt(k) that TF32 or fp16 inputs give up to k of about 10^4, so a GEMM that quietly drops
 *              to TF32 fails.
 *     softmax  (cols + 32) 2^-24 relative to ref: the float32 row sum is good to about cols 2^-24; exp adds a few
 *              ulp.
 *     reduce   1e-6 relative to sum |x_i| (sum only): far above what a sequential, blocked or tree sum of random
 *              data gives and far below a lost block of elements.
 *   Scales are floored at FLT_MIN (softmax's ref is not: bench's inputs keep it far above).
 *
 *   Typed built-ins (hcl_vecadd, hcl_softmax, hcl_reduce, hcl_gemm in f16 / bf16 / TF32; HCL_TS_CONFORMANCE only).
 *   The test rounds its inputs to the storage type first (hcl_convert), so the reference is computed on exactly
 *   the stored values and a 16-bit input carries no error of its own; hcl.h asks for float32 arithmetic inside and
 *   one rounding to nearest even of a 16-bit output. With u the unit roundoff of a type (hcl_ts_unit_roundoff:
 *   f32 2^-24, f16 2^-11, bf16 2^-8; TF32 2^-10, see gemm) and u_acc = 2^-24 (float32 arithmetic):
 *     vecadd   exact: ref = hcl_ts_round_to(type, a + b). The float32 sum of two f16 (bf16) values rounded again to
 *              16 bits is the correctly rounded sum: a double rounding can only go wrong where the exact sum has bits
 *              both at the 16-bit tie position and below float32's last place, 13 (16) places apart, which two
 *              values of 11 (8) significant bits cannot span.
 *     reduce   the float32 rule above as it is: the input is exact and the output (ONE float32) is float32.
 *     softmax  the float32 rule, plus the output rounding (hcl_ts_add_output_rounding).
 *     gemm     hcl_ts_ref_gemm_typed:
 *                tol = E (1 + u_out) + (u_out + u_acc) |ref| + tiny_out,
 *                E   = g(k) u_acc (|alpha| S + |beta c|) [+ 2 u_tf32 |alpha| S for TF32],   S = sum_p |a_ip b_pj|,
 *                g(k) = min(2 (k + 3), 8 (sqrt(k) + log2(k + 1) + 1)),
 *              u_out the unit roundoff of C's type (0 for f32: its rounding is in E), tiny_out half the smallest f16
 *              subnormal (2^-25) for f16 plus FLT_MIN (a flushed float32 subnormal). E is the error of float32
 *              products and sums: the deterministic bound 2 (k + 3) u_acc S of the float32 rule for small k and,
 *              above k of about 300, the probabilistic bound of Higham and Mary (rounding errors of random data are
 *              independent and of mean zero, so they grow like sqrt(k); lambda = 8 with the log2 term for blocked
 *              and tree orders, as the reduce rule), which only holds for inputs like the suite's (uniform, mixed
 *              signs). Matrix units that align and truncate inside a block of products (tensor cores) err with a
 *              bias, about (k / block) u_acc |partial sum|: with mixed signs |partial sum| ~ sqrt(k) << S, about 50x
 *              below E at any k for blocks of 8. TF32 keeps 10 fraction bits of each factor, rounded (mma.sync after cvt.rna)
 *              or truncated (Hopper's wgmma reading float32 from shared memory): u_tf32 = 2^-10 covers both, and a
 *              product errs by at most 2 u_tf32 |a b|. The 16-bit output adds one rounding of the float32 result: u_out |result| <=
 *              u_out (|ref| + E), and the float32 rounding before it u_acc |ref|.
 *              Sharpness: a GEMM that accumulates in 16 bits errs by about sqrt(k) u_16 rms|partial sum|; with inputs
 *              uniform in [-1, 1] at k = 4096 that is ~0.15 (f16) against a tolerance of ~0.04, and the suite checks
 *              that a simulated 16-bit accumulation fails (core/gemm_tolerance_sharp) while float32 ones pass.
 *              (Products rounded once to 16 bits and summed in float32 are not caught: that error only grows like
 *              sqrt(k) u_16 |a b|.)
 *
 * Poison: a quiet NaN with a payload no arithmetic produces (HCL_TS_POISON_BITS). Outputs are poisoned before a
 * run, so an element that was never written fails the comparison and says so.
 */
#ifndef HCL_TESTSUPPORT_H
#define HCL_TESTSUPPORT_H

#include <hcl/hcl.h>
#include <hcl/hcl_comm.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum hcl_ts_rule { HCL_TS_CONFORMANCE = 0, HCL_TS_BENCH = 1 } hcl_ts_rule;
typedef enum hcl_ts_kernel { HCL_TS_VECADD = 0, HCL_TS_GEMM, HCL_TS_SOFTMAX, HCL_TS_REDUCE } hcl_ts_kernel;

/* ---- float64 references ---- */

/* ref[i] = a[i] + b[i] in float64; under HCL_TS_CONFORMANCE rounded once to float32 (tol 0), under HCL_TS_BENCH
 * as it is (tol |ref|). */
void hcl_ts_ref_vecadd(hcl_ts_rule rule, const float *a, const float *b, size_t n, double *out_ref, double *out_tol);

/* C = alpha op(A) op(B) + beta C in float64, row-major like hcl_gemm_f32, with BLAS's meaning: beta 0 does not
 * read C (c may be NULL), alpha 0 or k 0 reads neither A nor B (they may hold NaN) and gives beta C. c is read at
 * c[i * ldc + j]; out_ref and out_tol are m x n with leading dimension n. Each element is summed in order of p. */
void hcl_ts_ref_gemm(hcl_ts_rule rule, hcl_transpose trans_a, hcl_transpose trans_b, size_t m, size_t n, size_t k,
                     float alpha, const float *a, size_t lda, const float *b, size_t ldb, float beta, const float *c,
                     size_t ldc, double *out_ref, double *out_tol);

/* Row-wise softmax of rows x cols floats, stable (max subtracted), with PyTorch's meaning of the special values: an
 * input of -inf gives exactly 0; a row of only -inf, or one holding NaN or +inf, gives NaN throughout. */
void hcl_ts_ref_softmax(hcl_ts_rule rule, const float *x, size_t rows, size_t cols, double *out_ref, double *out_tol);

/* The reduction of x[0..n) in float64: the sum, or max / min skipping NaN (as fmax / fmin do). n 0 gives the
 * identity (0, -inf, +inf). Returns the reference; *out_tol (may be NULL) gets the rule's tolerance. */
double hcl_ts_ref_reduce(hcl_ts_rule rule, hcl_reduce_op op, const float *x, size_t n, double *out_tol);

/* A communicator reduction's element in float64: op over ranks r < `ranks` of x[r][i] (max / min as fmax / fmin).
 * *out_mag (may be NULL) gets the sum of the inputs' magnitudes, for the tolerance of a sum. */
double hcl_ts_ref_comm(hcl_comm_op op, const float *const *x, size_t ranks, size_t i, double *out_mag);

/* ---- typed references (the typed rules above) ---- */

/* The unit roundoff of a storage type: 2^-24 (f32), 2^-11 (f16), 2^-8 (bf16); 0 for a value outside hcl_dtype. */
double hcl_ts_unit_roundoff(hcl_dtype type);
/* x rounded to nearest, ties to even, to `type` (f32, f16, bf16; overflow to +-inf, subnormals kept, NaN stays),
 * in double arithmetic by frexp / nearbyint: a reference written apart from the library's conversions. */
double hcl_ts_round_to(hcl_dtype type, double x);
/* tol[i] += (u_out + 2^-24) |ref[i]| + tiny_out: the one rounding of a float32 result to a 16-bit `type` (nothing
 * for f32). */
void hcl_ts_add_output_rounding(hcl_dtype type, const double *ref, double *tol, size_t n);
/* hcl_ts_ref_gemm's reference (a, b, c hold the stored values as floats; c is the initial C) with the typed GEMM
 * rule's tolerance for a C of c_type and the given compute. */
void hcl_ts_ref_gemm_typed(hcl_dtype c_type, hcl_compute compute, hcl_transpose trans_a, hcl_transpose trans_b,
                           size_t m, size_t n, size_t k, float alpha, const float *a, size_t lda, const float *b,
                           size_t ldb, float beta, const float *c, size_t ldc, double *out_ref, double *out_tol);

/* The relative tolerance of HCL_TS_BENCH for a kernel (size: k for gemm, cols for softmax; otherwise unused). */
double hcl_ts_bench_rtol(hcl_ts_kernel kernel, size_t size);

/* ---- poison ---- */

#define HCL_TS_POISON_BITS 0x7fc0deadu
float hcl_ts_poison(void);         /* the poison as a float */
bool hcl_ts_is_poison(float x);    /* bit for bit the poison */
uint32_t hcl_ts_f32_bits(float x); /* the bits of a float */
void hcl_ts_poison_fill(float *x, size_t n);
/* The index of the first element of x[0..n) that is not the poison (it was written), or n when there is none. */
size_t hcl_ts_first_unpoisoned(const float *x, size_t n);

/* ---- comparison ---- */

#define HCL_TS_LISTED 5 /* failures kept for the message */
typedef struct hcl_ts_miss {
    size_t index; /* counted over every element given to hcl_ts_compare since hcl_ts_cmp_init */
    float got;
    double ref, tol;
} hcl_ts_miss;

typedef struct hcl_ts_cmp {
    size_t count;  /* elements compared */
    size_t bad;    /* elements that failed; first[0].index is the first of them */
    size_t listed; /* entries of first[] filled: the first HCL_TS_LISTED failures */
    hcl_ts_miss first[HCL_TS_LISTED];
    double max_abs; /* largest |got - ref| where ref is finite and got is not NaN */
    double max_rel; /* largest |got - ref| / tol[i] (0 / 0 is 0); +inf for a failure that is not a distance (a NaN
                     * or the poison where a number was due, a wrong infinity, a number where NaN was due) */
} hcl_ts_cmp;

void hcl_ts_cmp_init(hcl_ts_cmp *c);

/* Whether one element passes: a NaN ref wants a NaN that is not the poison; an infinite ref, or a NaN got, wants
 * got == ref; else |got - ref| <= tol. The poison never passes. */
bool hcl_ts_close(float got, double ref, double tol);

/* Compare got[i] with ref[i] within tol_scale * tol[i] (tol NULL: within tol_scale; both 0: exact), adding to *c.
 * May be called several times on one hcl_ts_cmp (in chunks). Returns whether all n passed. */
bool hcl_ts_compare(hcl_ts_cmp *c, const float *got, const double *ref, const double *tol, double tol_scale, size_t n);

/* "N of M elements wrong:" and a line per listed failure ("[i] got G (0xBITS, poison: never written), expected R
 * within T"); "" when none failed. Returns text. */
const char *hcl_ts_cmp_text(const hcl_ts_cmp *c, char *text, size_t size);

/* ---- seeded random inputs (splitmix64) ---- */

/* The seed of a run: HCL_SEED (decimal or 0x hex) when it is set and a number, else one from the clock and the
 * process id, below 10^9 so that it is short to type back in. The caller prints it. */
uint64_t hcl_ts_seed(void);
uint64_t hcl_ts_splitmix64(uint64_t *state);                  /* next 64 random bits */
double hcl_ts_rand_unit(uint64_t *state);                     /* uniform in [0, 1), 53 bits */
float hcl_ts_rand_float(uint64_t *state, float lo, float hi); /* uniform in [lo, hi) */
int hcl_ts_rand_int(uint64_t *state, int lo, int hi);         /* uniform in [lo, hi] */
void hcl_ts_fill_uniform(uint64_t *state, float *x, size_t n, float lo, float hi);

/* ---- checks for the plain-C driver tests (conformance has its own, Criterion's) ---- */

/* Counts a check; a failing one prints "FAIL file:line: message". Returns ok. */
bool hcl_ts_check_at(bool ok, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
#define HCL_TS_CHECK(cond, ...) hcl_ts_check_at((cond), __FILE__, __LINE__, __VA_ARGS__)
/* The call must return HCL_SUCCESS; a failure prints the status and hcl_last_message(). */
#define HCL_TS_OK(call)                                                                                                \
    do {                                                                                                               \
        hcl_status st_ = (call);                                                                                       \
        HCL_TS_CHECK(st_ == HCL_SUCCESS, "%s: %s: %s", #call, hcl_status_name(st_), hcl_last_message());               \
    } while (0)
int hcl_ts_checks(void); /* checks counted so far */
/* Append printf text to the string in buf (size bytes in all), cut short when full. */
void hcl_ts_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int hcl_ts_failures(void); /* of those, the failed ones */

/* ---- files ---- */

/* The whole of the file at path (malloc'd; an empty file gives a block of one byte) and its size; NULL and 0 when it
 * cannot be read. */
void *hcl_ts_read_file(const char *path, size_t *out_size);

/* ---- checks through HCL's public API (testsupport/api.c, the one part that calls HCL) ---- */

/* A buffer of `bytes` on dev; a failure is counted, and gives NULL. */
hcl_buffer hcl_ts_buffer(hcl_device dev, size_t bytes);
/* hcl_buffer_fill with patterns of 1, 2, 4 ... 128 bytes, each at an offset of its own size and 13 times over, into b
 * (`bytes` >= 1792) holding 0xee elsewhere; every byte is read back and checked. Blocks. */
void hcl_ts_check_fills(hcl_queue q, hcl_buffer b, size_t bytes);
/* Launch the test kernel affine(float *out, float a, double b, unsigned n) of drivers/cudahip/test_kernels.cu
 * (out[i] = a * i + (float)b) from mod, with a 0.5, b 3.0, n 1000 on 4 x 256 work-items, and check every result: a
 * float and a double passed by value, in order. `from` names the module in messages. Returns whether it held. */
bool hcl_ts_check_affine(hcl_device dev, hcl_queue q, hcl_module mod, const char *from);
/* printf text, then ": <hcl_status_name(st)>: <hcl_last_message()>", into buf (size bytes in all, cut short when
 * full): a failed call as bench and the tests report it. */
void hcl_ts_status_text(char *buf, size_t size, hcl_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The arguments of a host kernel of the form (float *out, const float *in, float a, uint32_t n), as the host driver
 * hands them over (args[i] points at argument i's value). */
typedef struct hcl_ts_host_axpy_args {
    float *out;
    const float *in;
    float a;
    uint32_t n;
} hcl_ts_host_axpy_args;
hcl_ts_host_axpy_args hcl_ts_host_axpy(void *const *args);

#endif /* HCL_TESTSUPPORT_H */
