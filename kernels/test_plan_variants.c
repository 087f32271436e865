/* kernels-plan-variants: the kernel variants a plan can be forced to (HCL_GEMM_VARIANT, HCL_SOFTMAX_VARIANT,
 * HCL_REDUCE_VARIANT; hcl_variants.def), checked without a device on the devices of test_plan_devices.h (sm_90, sm_80,
 * AMD gfx90a and gfx1030, NVIDIA's OpenCL, PoCL on a CPU):
 *  - the parser: names in any case, "auto", unknown names listing the known ones;
 *  - representative calls: the kernels each forced variant launches, and its refusals, each naming the variable, the
 *    variant and why;
 *  - a sweep over shapes x devices x variants: forcing the variant the plan chose by itself gives the very same plan
 *    (so a forced run proves the code the plan runs unforced), and forcing any other variant gives a plan of that
 *    variant's kernels or a refusal naming it, never another variant's kernels.
 * Exit status: 0 when every check passed, 1 otherwise (each failure printed). */
#include "hcl_plan.h"
#include "hcl_testsupport.h"
#include "test_plan_devices.h"

#include <stdio.h>
#include <string.h>

/* One built-in call of an op with variants. */
typedef struct vcall {
    hcl_kop op;
    hcl_kgemm g;       /* gemm */
    hcl_dtype type;    /* softmax, reduce */
    size_t rows, cols; /* softmax */
    size_t n;          /* reduce */
} vcall;

/* The calls of each op: a gemm C = A B (rows padded by `pad`), a softmax of rows x cols, a sum of n. */
static vcall gemm_call(hcl_dtype ab, hcl_dtype c, hcl_compute compute, int ta, int tb, size_t m, size_t n, size_t k,
                       size_t pad) {
    vcall v = {HCL_KOP_GEMM, hcl_test_gemm(ab, c, compute, ta, tb, m, n, k, pad), HCL_DTYPE_F32, 0, 0, 0};
    return v;
}
static vcall softmax_call(hcl_dtype type, size_t rows, size_t cols) {
    vcall v = {HCL_KOP_SOFTMAX, hcl_test_gemm(type, type, HCL_COMPUTE_F32, 0, 0, 1, 1, 1, 0), type, rows, cols, 0};
    return v;
}
static vcall reduce_call(hcl_dtype type, size_t n) {
    vcall v = {HCL_KOP_REDUCE, hcl_test_gemm(type, type, HCL_COMPUTE_F32, 0, 0, 1, 1, 1, 0), type, 0, 0, n};
    return v;
}

/* The plan of c on dev with variant v forced (HCL_KVARIANT_AUTO: none). */
static hcl_status plan_with(hcl_kdevice dev, hcl_kvariant v, const vcall *c, hcl_kplan *p) {
    dev.variant[c->op] = v;
    switch (c->op) {
    case HCL_KOP_GEMM: return hcl_plan_gemm(&dev, &c->g, p);
    case HCL_KOP_SOFTMAX: return hcl_plan_softmax(&dev, c->type, c->rows, c->cols, p);
    default: return hcl_plan_reduce(&dev, c->type, HCL_REDUCE_SUM, c->n, p);
    }
}

/* Whether s starts with prefix. */
static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Whether launch l is one of variant v's kernels; launches every variant shares (the split-K sum, TF32's transposed
 * copy, the k = 0 scale kernel) are of every variant. */
static int launch_of(const hcl_klaunch *l, hcl_kvariant v) {
    const char *k = hcl_test_kernel_name(l);
    if (l->prog == HCL_KPROG_VK_COOP)
        return starts(k, "hcl_gemm_coop64_") ? v == HCL_KVARIANT_GEMM_VK_COOP64 : v == HCL_KVARIANT_GEMM_VK_COOP;
    if (l->prog == HCL_KPROG_VK || l->prog == HCL_KPROG_VK16) {
        /* Vulkan's gemm: the tile in the kernel's name (hcl_gemm_128_, hcl_gemm_128x64_, hcl_gemm_dot_,
         * hcl_gemm_splitk_, hcl_gemm_gemv_, else 64 x 64) */
        if (starts(k, "hcl_gemm_")) {
            const char *t = k + strlen("hcl_gemm_");
            return v == HCL_KVARIANT_GEMM_VK_SIMT128      ? starts(t, "128_")
                   : v == HCL_KVARIANT_GEMM_VK_SIMT128X64 ? starts(t, "128x64_")
                   : v == HCL_KVARIANT_GEMM_VK_DOT        ? starts(t, "dot_")
                   : v == HCL_KVARIANT_GEMM_VK_SPLITK     ? starts(t, "splitk_")
                   : v == HCL_KVARIANT_GEMM_VK_GEMV       ? starts(t, "gemv_")
                   : v == HCL_KVARIANT_GEMM_VK_SIMT64
                       ? !starts(t, "128") && !starts(t, "dot_") && !starts(t, "splitk_") && !starts(t, "gemv_")
                       : 0;
        }
        /* Vulkan's softmax: the subgroup kernel, the parts kernel, or the work-group kernel keeping values (its last
         * argument 1) or streaming every word (0) */
        const int group =
            starts(k, "hcl_softmax_") && !starts(k, "hcl_softmax_rows_") && !starts(k, "hcl_softmax_parts_");
        uint32_t keep = 0;
        if (group) memcpy(&keep, l->args[l->num_args - 1].value, sizeof keep);
        return v == HCL_KVARIANT_SOFTMAX_SUBGROUP   ? starts(k, "hcl_softmax_rows_")
               : v == HCL_KVARIANT_SOFTMAX_PARTS    ? starts(k, "hcl_softmax_parts_")
               : v == HCL_KVARIANT_SOFTMAX_CACHED   ? group && keep
               : v == HCL_KVARIANT_SOFTMAX_STREAMED ? group && !keep
                                                    : 0;
    }
    if (starts(k, "hcl_gemm_splitk_sum_") || starts(k, "hcl_transpose_") || starts(k, "hcl_gemm_scale_")) return 1;
    switch (v) {
    case HCL_KVARIANT_GEMM_WGMMA: return starts(k, "hcl_gemm_wg_") || starts(k, "hcl_gemm_wg64_");
    case HCL_KVARIANT_GEMM_MMA_SPLITK: return starts(k, "hcl_gemm_tc_splitk_");
    case HCL_KVARIANT_GEMM_MMA: return starts(k, "hcl_gemm_tc_") && !starts(k, "hcl_gemm_tc_splitk_");
    case HCL_KVARIANT_GEMM_MFMA: return starts(k, "hcl_gemm_mfma_");
    case HCL_KVARIANT_GEMM_SIMT_SPLITK: return starts(k, "hcl_gemm_splitk_f32_");
    case HCL_KVARIANT_GEMM_ROWS:
        return starts(k, "hcl_gemm_rows"); /* hcl_gemm_rows_* (GPU), hcl_gemm_rows<MR>_* (CL) */
    case HCL_KVARIANT_GEMM_SMALLK: return starts(k, "hcl_gemm_smallk_");
    case HCL_KVARIANT_GEMM_SIMT:
        if (l->prog != HCL_KPROG_GPU)
            return (l->prog == HCL_KPROG_CL_GEMM16 || l->prog == HCL_KPROG_CL_GEMM8) && !starts(k, "hcl_gemm_rows");
        return starts(k, "hcl_gemm_f32_") || starts(k, "hcl_gemm_f16_") || starts(k, "hcl_gemm_bf16_");
    case HCL_KVARIANT_GEMM_SIMT16: return l->prog == HCL_KPROG_CL_GEMM16 && !starts(k, "hcl_gemm_rows");
    case HCL_KVARIANT_GEMM_SIMT8: return l->prog == HCL_KPROG_CL_GEMM8 && !starts(k, "hcl_gemm_rows");
    case HCL_KVARIANT_GEMM_XMX: return l->prog == HCL_KPROG_CL_GEMM_XMX8 || l->prog == HCL_KPROG_CL_GEMM_XMX16;
    case HCL_KVARIANT_SOFTMAX_WARP: return starts(k, "hcl_softmax_warp");
    case HCL_KVARIANT_SOFTMAX_SPLIT: return starts(k, "hcl_softmax_split1_");
    case HCL_KVARIANT_SOFTMAX_CLUSTER: return starts(k, "hcl_softmax_split") && !starts(k, "hcl_softmax_split1_");
    case HCL_KVARIANT_SOFTMAX_STAGED: return starts(k, "hcl_softmax_block_staged_");
    case HCL_KVARIANT_SOFTMAX_ROWS8: return starts(k, "hcl_softmax_rows8_");
    case HCL_KVARIANT_SOFTMAX_ROWS: return starts(k, "hcl_softmax_rows_");
    case HCL_KVARIANT_SOFTMAX_CACHED: return starts(k, "hcl_softmax_cached_");
    case HCL_KVARIANT_SOFTMAX_CACHED64: return starts(k, "hcl_softmax_cached64_");
    case HCL_KVARIANT_SOFTMAX_PARTS: return starts(k, "hcl_softmax_parts_");
    case HCL_KVARIANT_SOFTMAX_STREAMED:
        return starts(k, "hcl_softmax_block_")
                   ? !starts(k, "hcl_softmax_block_staged_")
                   : !strcmp(k, "hcl_softmax_f32") || !strcmp(k, "hcl_softmax_f16") || !strcmp(k, "hcl_softmax_bf16");
    case HCL_KVARIANT_REDUCE_VECTOR: return l->block.x > 16;
    case HCL_KVARIANT_REDUCE_RUNS: return l->block.x <= 16;
    default: return 0;
    }
}

/* Whether every launch of p is of variant v. */
static int plan_of(const hcl_kplan *p, hcl_kvariant v) {
    for (size_t i = 0; i < p->count; i++)
        if (!launch_of(&p->launch[i], v)) return 0;
    return p->count > 0;
}

/* Whether two plans launch the same kernels with the same shapes, arguments and scratch. */
static int same_plan(const hcl_kplan *a, const hcl_kplan *b) {
    if (a->count != b->count || a->scratch_bytes != b->scratch_bytes || a->scratch_zeroed != b->scratch_zeroed)
        return 0;
    for (size_t i = 0; i < a->count; i++) {
        const hcl_klaunch *x = &a->launch[i], *y = &b->launch[i];
        if (x->prog != y->prog || x->kernel != y->kernel || memcmp(&x->grid, &y->grid, sizeof x->grid) ||
            memcmp(&x->block, &y->block, sizeof x->block) || x->shared_bytes != y->shared_bytes ||
            x->num_args != y->num_args)
            return 0;
        for (uint32_t j = 0; j < x->num_args; j++) {
            const hcl_kparg *p = &x->args[j], *q = &y->args[j];
            if (p->kind != q->kind || p->slot != q->slot || p->offset != q->offset || p->size != q->size ||
                memcmp(p->value, q->value, p->size))
                return 0;
        }
    }
    return 1;
}

/* The refusal text a forced variant v of op starts its why with. */
static void refusal_prefix(hcl_kop op, hcl_kvariant v, char *buf, size_t size) {
    snprintf(buf, size, "%s=%s cannot run this call: ", hcl_kvariant_env(op), hcl_kvariant_get(v)->name);
}

/* c on dev with v forced: a plan whose first launch runs `first` and whose last runs `last` (NULL: not checked). */
static void expect(const char *what, hcl_kdevice dev, hcl_kvariant v, const vcall *c, const char *first,
                   const char *last) {
    hcl_kplan p;
    const hcl_status st = plan_with(dev, v, c, &p);
    HCL_TS_CHECK(st == HCL_SUCCESS, "%s: status %d (%s)", what, (int)st, p.why);
    if (st == HCL_SUCCESS && p.count) {
        const char *f = hcl_test_kernel_name(&p.launch[0]), *z = hcl_test_kernel_name(&p.launch[p.count - 1]);
        HCL_TS_CHECK(!strcmp(f, first) && (!last || !strcmp(z, last)), "%s: kernels %s .. %s, expected %s .. %s", what,
                     f, z, first, last ? last : "(any)");
        printf("ok   %-44s %-12s %s%s%s\n", what, hcl_kvariant_get(v)->name, f, p.count > 1 ? " .. " : "",
               p.count > 1 ? z : "");
    }
    hcl_kplan_free(&p);
}

/* c on dev with v forced: refused (HCL_ERROR_UNSUPPORTED), the why naming the variable and the variant, and `needle`. */
static void refuse(const char *what, hcl_kdevice dev, hcl_kvariant v, const vcall *c, const char *needle) {
    hcl_kplan p;
    char prefix[96];
    refusal_prefix(c->op, v, prefix, sizeof prefix);
    const hcl_status st = plan_with(dev, v, c, &p);
    HCL_TS_CHECK(st == HCL_ERROR_UNSUPPORTED && starts(p.why, prefix) && strstr(p.why, needle),
                 "%s: status %d, why '%s'; expected HCL_ERROR_UNSUPPORTED, '%s...' with '%s'", what, (int)st, p.why,
                 prefix, needle);
    if (st == HCL_ERROR_UNSUPPORTED) printf("ok   %-44s %-12s refused: %s\n", what, hcl_kvariant_get(v)->name, p.why);
    hcl_kplan_free(&p);
}

static void parser(void) {
    hcl_kvariant v = HCL_KVARIANT_COUNT;
    char why[512] = "";
    HCL_TS_CHECK(hcl_kvariant_parse(HCL_KOP_GEMM, " WGMMA ", &v, why, sizeof why) == HCL_SUCCESS &&
                     v == HCL_KVARIANT_GEMM_WGMMA,
                 "' WGMMA ' parsed as %d", (int)v);
    HCL_TS_CHECK(hcl_kvariant_parse(HCL_KOP_SOFTMAX, "rows8", &v, why, sizeof why) == HCL_SUCCESS &&
                     v == HCL_KVARIANT_SOFTMAX_ROWS8,
                 "'rows8' parsed as %d", (int)v);
    static const char *const autos[] = {"auto", "AUTO", "", "  "};
    for (size_t i = 0; i < sizeof autos / sizeof autos[0]; i++)
        HCL_TS_CHECK(hcl_kvariant_parse(HCL_KOP_REDUCE, autos[i], &v, why, sizeof why) == HCL_SUCCESS &&
                         v == HCL_KVARIANT_AUTO,
                     "'%s' is not auto", autos[i]);
    HCL_TS_CHECK(hcl_kvariant_parse(HCL_KOP_GEMM, NULL, &v, why, sizeof why) == HCL_SUCCESS && v == HCL_KVARIANT_AUTO,
                 "unset is not auto");
    /* unknown, or another op's: an error that lists the op's own */
    hcl_status st = hcl_kvariant_parse(HCL_KOP_GEMM, "tensor", &v, why, sizeof why);
    HCL_TS_CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(why, "HCL_GEMM_VARIANT=\"tensor\"") &&
                     strstr(why, "known: auto, wgmma, mma, mma-splitk, mfma, simt, simt-splitk, rows, smallk, simt16, "
                                 "simt8, xmx"),
                 "'tensor': status %d, why '%s'", (int)st, why);
    st = hcl_kvariant_parse(HCL_KOP_SOFTMAX, "wgmma", &v, why, sizeof why);
    HCL_TS_CHECK(st == HCL_ERROR_INVALID_ARGUMENT &&
                     strstr(why, "known: auto, warp, split, cluster, staged, rows8, rows, subgroup, cached, cached64, "
                                 "parts, streamed"),
                 "softmax 'wgmma': status %d, why '%s'", (int)st, why);
    st = hcl_kvariant_parse(HCL_KOP_REDUCE, "runs2", &v, why, sizeof why);
    HCL_TS_CHECK(st == HCL_ERROR_INVALID_ARGUMENT && strstr(why, "known: auto, vector, runs"),
                 "reduce 'runs2': status %d, why '%s'", (int)st, why);
    HCL_TS_CHECK(hcl_kvariant_env(HCL_KOP_VECADD) == NULL &&
                     !strcmp(hcl_kvariant_env(HCL_KOP_GEMM), "HCL_GEMM_VARIANT"),
                 "the override variables");
    static const char *const isas[] = {"generic", "avx2", "avx512"};
    HCL_TS_CHECK(hcl_kchoice_parse("Avx2", isas, 3, NULL, 0) == 1 && hcl_kchoice_parse("sse", isas, 3, NULL, 0) == -2,
                 "hcl_kchoice_parse over another list");
}

#define V(op, id) HCL_KVARIANT_##op##_##id
#define F32 HCL_DTYPE_F32
#define F16 HCL_DTYPE_F16
#define BF16 HCL_DTYPE_BF16
#define TF32 HCL_COMPUTE_TF32
#define FLOAT HCL_COMPUTE_F32

/* The gemm variants on NVIDIA GPUs: sm_90 and sm_80. */
static void gemm_nvidia(void) {
    const hcl_kdevice h = hcl_test_gpu(90), a = hcl_test_gpu(80);
    const vcall f16 = gemm_call(F16, F16, FLOAT, 0, 0, 1024, 1024, 1024, 0); /* auto on sm_90: wgmma */
    expect("sm_90 f16 1024^3", h, V(GEMM, WGMMA), &f16, "hcl_gemm_wg64_f16_f16_nn", NULL);
    expect("sm_90 f16 1024^3", h, V(GEMM, MMA), &f16, "hcl_gemm_tc_f16_f16_nn", NULL);
    expect("sm_90 f16 1024^3", h, V(GEMM, MMA_SPLITK), &f16, "hcl_gemm_tc_splitk_f16_nn", "hcl_gemm_splitk_sum_f16");
    expect("sm_90 f16 1024^3", h, V(GEMM, SIMT), &f16, "hcl_gemm_f16_f16_64_nn", NULL);
    refuse("sm_90 f16 1024^3", h, V(GEMM, MFMA), &f16, "MFMA kernels");
    refuse("sm_90 f16 1024^3", h, V(GEMM, ROWS), &f16, "at most 16 rows or 16 columns (here 1024 x 1024)");
    refuse("sm_90 f16 1024^3", h, V(GEMM, XMX), &f16, "the CUDA/HIP kernels");
    const vcall tf32 = gemm_call(F32, F32, TF32, 1, 0, 301, 497, 77, 3);
    expect("sm_90 TF32 tn", h, V(GEMM, WGMMA), &tf32, "hcl_transpose_f32", "hcl_gemm_wg_tf32_f32_tt");
    expect("sm_90 TF32 tn", h, V(GEMM, MMA), &tf32, "hcl_gemm_tc_tf32_f32_tn", NULL);
    refuse("sm_90 TF32 tn", h, V(GEMM, SIMT), &tf32, "TF32 needs a matrix unit");
    expect("sm_90 TF32 tn k 77", h, V(GEMM, MMA_SPLITK), &tf32, "hcl_gemm_tc_splitk_tf32_tn",
           "hcl_gemm_splitk_sum_f32");
    const vcall tf32k64 = gemm_call(F32, F32, TF32, 1, 0, 301, 497, 64, 3);
    refuse("sm_90 TF32 tn k 64", h, V(GEMM, MMA_SPLITK), &tf32k64, "two slices of k");
    /* wgmma's own limits: a row of A that is not a 16-byte multiple; an sm_80 part */
    const vcall odd = gemm_call(F16, F16, FLOAT, 0, 1, 300, 300, 300, 3);
    refuse("sm_90 f16 lda 303", h, V(GEMM, WGMMA), &odd, "lda 303");
    expect("sm_90 f16 lda 303", h, V(GEMM, MMA), &odd, "hcl_gemm_tc_f16_f16_nt", NULL);
    refuse("sm_80 f16 1024^3", a, V(GEMM, WGMMA), &f16, "sm_90 (this device: sm_80)");
    expect("sm_80 f16 1024^3", a, V(GEMM, MMA), &f16, "hcl_gemm_tc_f16_f16_nn", NULL);
    /* f32 (no TF32): the SIMT side; the tensor-core variants refuse */
    const vcall sq = gemm_call(F32, F32, FLOAT, 0, 0, 2048, 2048, 2048, 0);
    expect("sm_90 f32 2048^3", h, V(GEMM, SIMT), &sq, "hcl_gemm_f32_256_nn", NULL);
    expect("sm_90 f32 2048^3 (split anyway)", h, V(GEMM, SIMT_SPLITK), &sq, "hcl_gemm_splitk_f32_128_nn",
           "hcl_gemm_splitk_sum_f32");
    refuse("sm_90 f32 2048^3", h, V(GEMM, WGMMA), &sq, "no matrix-unit gemm for f32 inputs");
    refuse("sm_90 f32 2048^3", h, V(GEMM, ROWS), &sq, "at most 16 rows or 16 columns");
    refuse("sm_90 f32 2048^3", h, V(GEMM, SMALLK), &sq, "k of at most 8");
    const vcall row = gemm_call(F32, F32, FLOAT, 0, 1, 1, 4096, 4096, 0);
    expect("sm_90 f32 1 x 4096 x 4096", h, V(GEMM, ROWS), &row, "hcl_gemm_rows_f32_1_t", "hcl_gemm_splitk_sum_f32");
    /* the rows kernels: every type, TF32 in float, few columns on swapped operands, a short k only when forced */
    const vcall r16 = gemm_call(F16, F16, FLOAT, 0, 0, 16, 4096, 4096, 0),
                r17 = gemm_call(BF16, F32, FLOAT, 0, 1, 17, 4096, 4096, 0);
    expect("sm_90 f16 16 x 4096 x 4096", h, V(GEMM, ROWS), &r16, "hcl_gemm_rows_f16_16_n", "hcl_gemm_splitk_sum_f16");
    expect("sm_90 f16 16 x 4096 x 4096", h, V(GEMM, MMA), &r16, "hcl_gemm_tc_f16_f16_nn", NULL);
    refuse("sm_90 bf16 17 x 4096 x 4096", h, V(GEMM, ROWS), &r17, "at most 16 rows or 16 columns (here 17 x 4096)");
    const vcall r3tf32 = gemm_call(F32, F32, TF32, 1, 1, 3, 4096, 4096, 0);
    expect("sm_90 TF32 3 x 4096 x 4096 tt", h, V(GEMM, ROWS), &r3tf32, "hcl_gemm_rows_f32_4_t",
           "hcl_gemm_splitk_sum_f32");
    const vcall col = gemm_call(BF16, BF16, FLOAT, 1, 0, 4096, 5, 4096, 0);
    expect("sm_80 bf16 4096 x 5 x 4096 tn", a, V(GEMM, ROWS), &col, "hcl_gemm_rows_bf16_8_n",
           "hcl_gemm_splitk_sum_bf16");
    const vcall rowk = gemm_call(F16, F32, FLOAT, 0, 0, 4, 4096, 63, 0);
    expect("sm_90 f16 -> f32 4 x 4096 x 63", h, V(GEMM, ROWS), &rowk, "hcl_gemm_rows_f16_4_n",
           "hcl_gemm_splitk_sum_f32");
    expect("sm_90 f32 1 x 4096 x 4096", h, V(GEMM, SIMT), &row, "hcl_gemm_f32_64_nt", NULL);
    const vcall shortk = gemm_call(F32, F32, FLOAT, 1, 1, 1000, 1000, 5, 0);
    expect("sm_80 f32 k 5", a, V(GEMM, SMALLK), &shortk, "hcl_gemm_smallk_f32", NULL);
    refuse("sm_80 f32 k 5", a, V(GEMM, SIMT_SPLITK), &shortk, "two slices of k");
    /* k 0: the scale kernel whatever is forced (there is no product) */
    const vcall k0 = gemm_call(F16, F16, FLOAT, 0, 0, 33, 65, 0, 0);
    expect("sm_90 f16 k 0", h, V(GEMM, WGMMA), &k0, "hcl_gemm_scale_f16", NULL);
}

/* The gemm variants on AMD GPUs and OpenCL devices. */
static void gemm_other(void) {
    const hcl_kdevice mi = hcl_test_amd("gfx90a"), rdna = hcl_test_amd("gfx1030");
    const vcall bf16 = gemm_call(BF16, F32, FLOAT, 1, 0, 500, 300, 200, 0);
    expect("gfx90a bf16 -> f32 tn", mi, V(GEMM, MFMA), &bf16, "hcl_gemm_mfma_bf16_f32_tn", NULL);
    expect("gfx90a bf16 -> f32 tn", mi, V(GEMM, SIMT), &bf16, "hcl_gemm_bf16_f32_64_tn", NULL);
    refuse("gfx90a bf16 -> f32 tn", mi, V(GEMM, MMA), &bf16, "tensor cores of sm_80");
    refuse("gfx1030 bf16 -> f32 tn", rdna, V(GEMM, MFMA), &bf16, "no matrix-unit gemm for bf16");
    const hcl_kdevice nv = hcl_test_cl_gpu(), pocl = hcl_test_pocl();
    const vcall f32 = gemm_call(F32, F32, FLOAT, 0, 0, 1000, 1000, 1000, 0);
    expect("NVIDIA OpenCL f32", nv, V(GEMM, SIMT), &f32, "hcl_gemm_nn_f32", NULL);
    expect("NVIDIA OpenCL f32 (program 8 x 8)", nv, V(GEMM, SIMT8), &f32, "hcl_gemm_nn_f32", NULL);
    refuse("NVIDIA OpenCL f32", nv, V(GEMM, XMX), &f32, "cl_intel_subgroup_matrix_multiply_accumulate");
    refuse("NVIDIA OpenCL f32", nv, V(GEMM, WGMMA), &f32, "which have the variants simt, rows, simt16, simt8, xmx");
    expect("PoCL f32 (program 16 x 16)", pocl, V(GEMM, SIMT16), &f32, "hcl_gemm_nn_f32", NULL);
    /* few rows: a CPU's rows kernels, a GPU's over slices of k */
    const vcall r4 = gemm_call(F32, F32, FLOAT, 0, 0, 4, 4096, 4096, 0),
                r16 = gemm_call(F16, F16, FLOAT, 0, 1, 9, 4096, 4096, 0);
    const vcall r17 = gemm_call(F32, F32, FLOAT, 0, 0, 17, 4096, 4096, 0);
    expect("NVIDIA OpenCL f32 4 x 4096 x 4096", nv, V(GEMM, ROWS), &r4, "hcl_gemm_rowsk4_n_f32", NULL);
    expect("NVIDIA OpenCL f16 9 x 4096 x 4096 nt", nv, V(GEMM, ROWS), &r16, "hcl_gemm_rowsk16_t_f16", NULL);
    /* 16-bit B at 4 rows: the wide kernels where their column ranges fill the GPU, else the others */
    const vcall w4 = gemm_call(F16, F16, FLOAT, 0, 0, 4, 14336, 4096, 0),
                n4 = gemm_call(BF16, F32, FLOAT, 0, 0, 1, 4096, 4096, 0);
    expect("NVIDIA OpenCL f16 4 x 14336 x 4096", nv, V(GEMM, ROWS), &w4, "hcl_gemm_rowsk4w_n_f16", NULL);
    expect("NVIDIA OpenCL bf16 -> f32 1 x 4096 x 4096", nv, V(GEMM, ROWS), &n4, "hcl_gemm_rowsk4_n_bf16_f32", NULL);
    expect("PoCL f32 4 x 4096 x 4096", pocl, V(GEMM, ROWS), &r4, "hcl_gemm_rows4_n_f32", NULL);
    refuse("NVIDIA OpenCL f32 17 x 4096 x 4096", nv, V(GEMM, ROWS), &r17, "at most 16 rows (here 17)");
    hcl_kdevice tiny = pocl;
    tiny.max_group_size = 128;
    refuse("a CPU of groups of 128", tiny, V(GEMM, SIMT16), &f32, "work-groups of 256 work-items");
    /* the program, which the kernel name does not tell */
    hcl_kplan p;
    hcl_kdevice d = nv;
    d.variant[HCL_KOP_GEMM] = V(GEMM, SIMT8);
    const hcl_status st = hcl_plan_gemm(&d, &f32.g, &p);
    HCL_TS_CHECK(st == HCL_SUCCESS && p.launch[0].prog == HCL_KPROG_CL_GEMM8 && p.launch[0].block.x == 8,
                 "NVIDIA OpenCL simt8: status %d, program %s, block %u", (int)st,
                 hcl_kprogram_get(p.launch[0].prog)->name, p.launch[0].block.x);
    hcl_kplan_free(&p);
    /* the host family has no variants */
    hcl_kdevice host = pocl;
    host.family = HCL_KFAMILY_HOST;
    refuse("host f32", host, V(GEMM, SIMT), &f32, "the host C kernels");
}

/* The softmax variants: sm_90, sm_80, NVIDIA's OpenCL, Vulkan's GPU and lavapipe, PoCL. */
static void softmax(void) {
    const hcl_kdevice h = hcl_test_gpu(90), a = hcl_test_gpu(80), nv = hcl_test_cl_gpu(), pocl = hcl_test_pocl();
    const vcall s100 = softmax_call(F32, 64, 100), s4k = softmax_call(F16, 64, 4096);
    const vcall s100k = softmax_call(F32, 8, 100000), s300k = softmax_call(F32, 4, 300000);
    expect("sm_90 f32 x 100", h, V(SOFTMAX, WARP), &s100, "hcl_softmax_warp8_f32", NULL);
    expect("sm_90 f32 x 100", h, V(SOFTMAX, SPLIT), &s100, "hcl_softmax_split1_32_f32", NULL);
    expect("sm_90 f32 x 100", h, V(SOFTMAX, CLUSTER), &s100, "hcl_softmax_split2_32_f32", NULL);
    expect("sm_90 f32 x 100", h, V(SOFTMAX, STAGED), &s100, "hcl_softmax_block_staged_f32", NULL);
    expect("sm_90 f32 x 100", h, V(SOFTMAX, STREAMED), &s100, "hcl_softmax_block_f32", NULL);
    refuse("sm_90 f16 x 4096", h, V(SOFTMAX, WARP), &s4k, "at most 2048 columns");
    const vcall s2k = softmax_call(F16, 64, 2048), s16k = softmax_call(BF16, 9, 16384);
    expect("sm_90 f16 x 2048", h, V(SOFTMAX, WARP), &s2k, "hcl_softmax_warp64_f16", NULL);
    expect("sm_90 bf16 x 16384", h, V(SOFTMAX, SPLIT), &s16k, "hcl_softmax_split1_64_bf16", NULL);
    expect("sm_90 f16 x 4096", h, V(SOFTMAX, SPLIT), &s4k, "hcl_softmax_split1_32_f16", NULL);
    refuse("sm_90 f32 x 100000", h, V(SOFTMAX, SPLIT), &s100k, "at most 32768 columns");
    refuse("sm_90 f32 x 100000", h, V(SOFTMAX, STAGED), &s100k, "401024 bytes");
    expect("sm_90 f32 x 100000", h, V(SOFTMAX, CLUSTER), &s100k, "hcl_softmax_split8_32_f32", NULL);
    refuse("sm_90 f32 x 300000", h, V(SOFTMAX, CLUSTER), &s300k, "8 blocks");
    refuse("sm_80 f32 x 100", a, V(SOFTMAX, CLUSTER), &s100, "clusters need sm_90");
    refuse("sm_90 f32 x 100", h, V(SOFTMAX, ROWS), &s100, "the variants warp, split, cluster, staged, streamed");
    const vcall c64 = softmax_call(F32, 100, 64), c300 = softmax_call(F32, 100, 300), c4k = softmax_call(BF16, 9, 4096);
    const vcall c16k = softmax_call(F32, 9, 16384), c64k = softmax_call(F32, 9, 65536),
                c65537 = softmax_call(F32, 9, 65537);
    expect("NVIDIA OpenCL f32 x 64", nv, V(SOFTMAX, ROWS8), &c64, "hcl_softmax_rows8_f32", NULL);
    expect("NVIDIA OpenCL f32 x 64", nv, V(SOFTMAX, ROWS), &c64, "hcl_softmax_rows_f32", NULL);
    refuse("NVIDIA OpenCL f32 x 300", nv, V(SOFTMAX, ROWS8), &c300, "at most 256 columns");
    expect("NVIDIA OpenCL bf16 x 4096", nv, V(SOFTMAX, CACHED), &c4k, "hcl_softmax_cached_bf16", NULL);
    expect("NVIDIA OpenCL bf16 x 4096", nv, V(SOFTMAX, CACHED64), &c4k, "hcl_softmax_cached64_bf16", NULL);
    expect("NVIDIA OpenCL bf16 x 4096", nv, V(SOFTMAX, PARTS), &c4k, "hcl_softmax_parts_bf16", NULL);
    expect("NVIDIA OpenCL bf16 x 4096", nv, V(SOFTMAX, STREAMED), &c4k, "hcl_softmax_bf16", NULL);
    refuse("NVIDIA OpenCL f32 x 16384", nv, V(SOFTMAX, CACHED), &c16k, "at most 4096 columns");
    expect("NVIDIA OpenCL f32 x 65536", nv, V(SOFTMAX, PARTS), &c64k, "hcl_softmax_parts_f32", NULL);
    refuse("NVIDIA OpenCL f32 x 65537", nv, V(SOFTMAX, PARTS), &c65537, "whole vectors of 4");
    refuse("NVIDIA OpenCL f32 x 65536", nv, V(SOFTMAX, WARP), &c64k, "the OpenCL C kernels");
    /* Vulkan: the parts kernel on a GPU (the H200) and on lavapipe, forced; rows not of whole 16-byte words refused */
    const hcl_kdevice vk = hcl_test_vk(0), lvp = hcl_test_vk(1);
    const vcall v16 = softmax_call(F16, 3, 16), v262k = softmax_call(BF16, 2, 262152);
    expect("Vulkan f32 x 65536", vk, V(SOFTMAX, PARTS), &c64k, "hcl_softmax_parts_f32", NULL);
    expect("Vulkan f32 x 65536", vk, V(SOFTMAX, CACHED), &c64k, "hcl_softmax_f32", NULL);
    expect("lavapipe f32 x 65536", lvp, V(SOFTMAX, PARTS), &c64k, "hcl_softmax_parts_f32", NULL);
    expect("lavapipe f16 x 16", lvp, V(SOFTMAX, PARTS), &v16, "hcl_softmax_parts_f16", NULL);
    expect("Vulkan bf16 x 262152", vk, V(SOFTMAX, PARTS), &v262k, "hcl_softmax_parts_bf16", NULL);
    refuse("Vulkan f32 x 65537", vk, V(SOFTMAX, PARTS), &c65537, "whole 16-byte words");
    refuse("Vulkan f32 x 65536", vk, V(SOFTMAX, ROWS), &c64k, "the variants subgroup, cached, parts, streamed");
    expect("PoCL f32 x 300 (a GPU's kernel)", pocl, V(SOFTMAX, CACHED), &c300, "hcl_softmax_cached_f32", NULL);
    expect("PoCL f32 x 300", pocl, V(SOFTMAX, STREAMED), &c300, "hcl_softmax_f32", NULL);
    /* the CPU form of the streamed kernel: a work-item a row */
    hcl_kplan p;
    hcl_kdevice d = pocl;
    d.variant[HCL_KOP_SOFTMAX] = V(SOFTMAX, STREAMED);
    const hcl_status st = hcl_plan_softmax(&d, F32, 100, 300, &p);
    HCL_TS_CHECK(st == HCL_SUCCESS && p.launch[0].block.x == 1, "PoCL streamed: status %d, groups of %u", (int)st,
                 p.launch[0].block.x);
    hcl_kplan_free(&p);
}

/* The reduce variants: the OpenCL plans' two forms; none on CUDA / HIP. */
static void reduce(void) {
    const hcl_kdevice h = hcl_test_gpu(90), nv = hcl_test_cl_gpu(), pocl = hcl_test_pocl();
    const vcall r = reduce_call(F32, 1u << 20);
    refuse("sm_90 f32 2^20", h, V(REDUCE, VECTOR), &r, "one kernel per type, no variants");
    static const struct {
        const char *what;
        int cpu;
        hcl_kvariant v;
        uint32_t block;
        uint64_t chunk;
    } cases[] = {{"NVIDIA OpenCL f32 2^20", 0, V(REDUCE, VECTOR), 256, 1},
                 {"NVIDIA OpenCL f32 2^20", 0, V(REDUCE, RUNS), 16, 64},
                 {"PoCL f32 2^20", 1, V(REDUCE, VECTOR), 256, 1},
                 {"PoCL f32 2^20", 1, V(REDUCE, RUNS), 16, 4096}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcl_kplan p;
        const hcl_status st = plan_with(cases[i].cpu ? pocl : nv, cases[i].v, &r, &p);
        uint64_t chunk = 0;
        if (st == HCL_SUCCESS) memcpy(&chunk, p.launch[0].args[5].value, sizeof chunk);
        HCL_TS_CHECK(st == HCL_SUCCESS && p.launch[0].block.x == cases[i].block && chunk == cases[i].chunk,
                     "%s %s: status %d, groups of %u, chunk %llu; expected %u, %llu", cases[i].what,
                     hcl_kvariant_get(cases[i].v)->name, (int)st, st == HCL_SUCCESS ? p.launch[0].block.x : 0,
                     (unsigned long long)chunk, cases[i].block, (unsigned long long)cases[i].chunk);
        hcl_kplan_free(&p);
    }
}

/* Every call on every device under every variant of its op (see the head of the file). Counts what it saw. */
static void sweep(void) {
    const hcl_kdevice devices[] = {hcl_test_gpu(90),  hcl_test_gpu(80), hcl_test_amd("gfx90a"), hcl_test_amd("gfx1030"),
                                   hcl_test_cl_gpu(), hcl_test_pocl(),  hcl_test_vk(0),         hcl_test_vk(1)};
    static const char *const dev_names[] = {"sm_90",         "sm_80", "gfx90a",      "gfx1030",
                                            "NVIDIA OpenCL", "PoCL",  "Vulkan H200", "lavapipe"};
    vcall calls[64];
    size_t n = 0;
    static const size_t mnk[][3] = {{1, 1, 1},        {1, 4096, 4096},    {4096, 1, 300},  {7, 11, 13},
                                    {65, 63, 129},    {130, 67, 1000},    {61, 67, 16411}, {1000, 1000, 5},
                                    {2173, 2309, 45}, {1024, 1024, 1024}, {33, 35, 0}};
    static const struct {
        hcl_dtype ab, c;
        hcl_compute compute;
    } types[] = {{F32, F32, FLOAT}, {F16, F16, FLOAT}, {BF16, F32, FLOAT}, {F32, F32, TF32}};
    for (size_t s = 0; s < sizeof mnk / sizeof mnk[0]; s++)
        for (size_t t = 0; t < sizeof types / sizeof types[0] && n < 60; t++)
            calls[n++] = gemm_call(types[t].ab, types[t].c, types[t].compute, (int)(s & 1), (int)(s >> 1 & 1),
                                   mnk[s][0], mnk[s][1], mnk[s][2], s % 3);
    static const size_t cols[] = {1, 31, 64, 300, 1000, 2049, 4096, 16384, 65536, 131075, 262144};
    vcall more[48];
    size_t m = 0;
    for (size_t c = 0; c < sizeof cols / sizeof cols[0]; c++) {
        more[m++] = softmax_call(F32, 37, cols[c]);
        more[m++] = softmax_call(c & 1 ? F16 : BF16, 5, cols[c]);
    }
    more[m++] = reduce_call(F32, 1);
    more[m++] = reduce_call(BF16, (1u << 22) + 13);
    unsigned same = 0, forced = 0, refused = 0;
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++)
        for (size_t i = 0; i < n + m; i++) {
            const vcall *c = i < n ? &calls[i] : &more[i - n];
            hcl_kplan base;
            if (plan_with(devices[d], HCL_KVARIANT_AUTO, c, &base) != HCL_SUCCESS) {
                hcl_kplan_free(&base);
                continue; /* TF32 where there is none: the refusal is the core's */
            }
            for (int v = HCL_KVARIANT_AUTO + 1; v < HCL_KVARIANT_COUNT; v++) {
                if (hcl_kvariant_get((hcl_kvariant)v)->op != c->op) continue;
                hcl_kplan p;
                char prefix[96];
                const hcl_status st = plan_with(devices[d], (hcl_kvariant)v, c, &p);
                refusal_prefix(c->op, (hcl_kvariant)v, prefix, sizeof prefix);
                const int has = (hcl_kvariant_get((hcl_kvariant)v)->families & (1u << devices[d].family)) != 0;
                if (has && plan_of(&base, (hcl_kvariant)v)) {
                    HCL_TS_CHECK(st == HCL_SUCCESS && same_plan(&base, &p),
                                 "%s, call %zu: forcing %s, the plan's own choice (%s), changed the plan (status %d: "
                                 "%s)",
                                 dev_names[d], i, hcl_kvariant_get((hcl_kvariant)v)->name,
                                 hcl_test_kernel_name(&base.launch[0]), (int)st, p.why);
                    same++;
                } else if (has && st == HCL_SUCCESS) {
                    HCL_TS_CHECK(plan_of(&p, (hcl_kvariant)v), "%s, call %zu: forced %s launched %s", dev_names[d], i,
                                 hcl_kvariant_get((hcl_kvariant)v)->name, hcl_test_kernel_name(&p.launch[0]));
                    forced++;
                } else {
                    HCL_TS_CHECK(st == HCL_ERROR_UNSUPPORTED && starts(p.why, prefix),
                                 "%s, call %zu: forced %s: status %d, why '%s'", dev_names[d], i,
                                 hcl_kvariant_get((hcl_kvariant)v)->name, (int)st, p.why);
                    refused++;
                }
                hcl_kplan_free(&p);
            }
            hcl_kplan_free(&base);
        }
    HCL_TS_CHECK(same > 100 && forced > 100 && refused > 100, "the sweep saw too little");
    printf("sweep: %u forced variants the plan chose itself (the same plan), %u other variants planned, %u refused\n",
           same, forced, refused);
}

/* The user's table of variants (docs/architecture.md, "Kernel variants") has a row for every variant of the list. */
static void documented(const char *path) {
    FILE *f = fopen(path, "rb");
    HCL_TS_CHECK(f != NULL, "cannot read %s", path);
    if (!f) return;
    static char text[1 << 20];
    const size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    for (int v = HCL_KVARIANT_AUTO + 1; v < HCL_KVARIANT_COUNT; v++) {
        const hcl_kvariant_info *info = hcl_kvariant_get((hcl_kvariant)v);
        char row[96];
        snprintf(row, sizeof row, "| %s | `%s` |", hcl_kop_name(info->op), info->name);
        HCL_TS_CHECK(strstr(text, row) != NULL, "%s has no row '%s'", path, row);
    }
}

/* argv[1]: docs/architecture.md, whose table of variants is checked against the list. */
int main(int argc, char **argv) {
    if (argc > 1) documented(argv[1]);
    parser();
    gemm_nvidia();
    gemm_other();
    softmax();
    reduce();
    sweep();
    const int failures = hcl_ts_failures();
    printf("kernels-plan-variants: %s (%d failure%s)\n", failures ? "FAILED" : "passed", failures,
           failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
