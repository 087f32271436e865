/* What a row is: the names of the kernels, element types and gemm sets, a bench type's hcl_dtype, whether a measure
 * passed, and a row's unit and rates. Every other file of bench reads these; this one calls none of them. */
#include "bench_lib.h"

const char *const kernel_names[K_COUNT] = {"vecadd", "gemm", "softmax", "reduce"};
const char *const type_names[BT_COUNT] = {"f32", "tf32", "f16", "bf16"};
const char *const gemm_set_names[GS_COUNT] = {"square", "skinny", "llm"};

hcl_dtype bench_dtype(int type) {
    return type == BT_F16 ? HCL_DTYPE_F16 : type == BT_BF16 ? HCL_DTYPE_BF16 : HCL_DTYPE_F32;
}

int measure_ok(const measure *m) { return m->present && !m->failed && m->ran > 0 && (!m->checked || m->err <= m->tol); }

const char *unit_of(const result *r) { return r->is_flops ? "GFLOP/s" : "GB/s"; }

double rate_at(const result *r, const measure *m, double seconds) {
    double work = m == &r->base ? r->base_work : r->work;
    return m->ran > 0 && seconds > 0 ? work / seconds / 1e9 : 0.0;
}

/* Rate at the median: GB/s or GFLOP/s; 0 when it did not run. */
double rate_of(const result *r, const measure *m) { return rate_at(r, m, m->med_s); }
