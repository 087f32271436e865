/* The gemm plan's CL part (kernels/gemm/plan_family.h). */
#include "plan_family.h"

#include <stdio.h>
#include <string.h>

/* ---- CL (kernels/gemm/gemm.cl): a WG x WG work-group per 8*WG square tile of C, WG fixed per program ---- */
static size_t cl_wg(hcl_kprog prog) { return prog == HCL_KPROG_CL_GEMM16 ? 16 : 8; }

/* two k-major 16 x (8*WG + 4) float tiles */
static uint64_t cl_local_bytes(size_t wg) { return 2u * 16u * (8u * (uint64_t)wg + 4u) * sizeof(float); }

static int cl_fits(const hcl_kdevice *dev, size_t wg) {
    return (!dev->max_group_size || wg * wg <= dev->max_group_size) &&
           (!dev->local_mem || cl_local_bytes(wg) <= dev->local_mem);
}

/* GPU: 16 x 16 work-items, 128 x 128 tiles, the next step prefetched into registers (H100: about 32-38 TFLOP/s at
 * 4096^3, against 22-25 for 64 x 64 tiles). CPU: 8 x 8 work-items, no prefetch: PoCL runs a group's work-items as
 * a loop, and there this was fastest (about 20 GFLOP/s at 512^3 on 2 cores, against 15 for 16 x 16). Also GPUs too
 * small for 16 x 16. */
hcl_kprog hcl_plan_gemm_cl_program(const hcl_kdevice *dev) {
    if (!dev->is_cpu && cl_fits(dev, 16)) return HCL_KPROG_CL_GEMM16;
    return cl_fits(dev, 8) ? HCL_KPROG_CL_GEMM8 : HCL_KPROG_COUNT;
}

/* ---- XMX (kernels/gemm/gemm_xmx.cl): f16 and bf16 on Intel's matrix unit, where the OpenCL driver found
 * cl_intel_subgroup_matrix_multiply_accumulate (matrix_unit XMX, matrix_types f16 | bf16). A work-group of SG x 4
 * work-items per 64 x 4*SG tile of C, SG the device's smallest sub-group size (the extension's built-ins take sub-groups
 * of 8 where that is 8, of 16 where it is 16); two tiles of 32-bit k pairs in local memory. ---- */
#define XMX_NSG 4u
#define XMX_TM 64u
static uint64_t xmx_local_bytes(size_t sg) { /* 64 x 17 words of A, 16 x (4*SG + 1) of B */
    return (uint64_t)(XMX_TM * 17u + 16u * (4u * sg + 1u)) * 4u;
}

/* The XMX program for this call, or HCL_KPROG_COUNT: the plain gemm.cl program runs it (f32, no matrix unit, a device
 * too small for the XMX work-group), the reason in out->why. */
static hcl_kprog xmx_program(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out) {
    if (dev->matrix_unit != HCL_MATRIX_UNIT_XMX || (g->ab_type != HCL_DTYPE_F16 && g->ab_type != HCL_DTYPE_BF16) ||
        !(dev->matrix_types & HCL_TYPE_BIT(g->ab_type)) || (dev->subgroup_width != 8 && dev->subgroup_width != 16)) {
        hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                       "the XMX kernels take f16 and bf16 inputs on devices with "
                       "cl_intel_subgroup_matrix_multiply_accumulate for their type and sub-groups of 8 or 16 (here %s "
                       "inputs, %s, sub-groups of %u)",
                       hcl_kdtype_name(g->ab_type), dev->matrix_unit == HCL_MATRIX_UNIT_XMX ? "XMX" : "no XMX",
                       dev->subgroup_width);
        return HCL_KPROG_COUNT;
    }
    const size_t sg = dev->subgroup_width;
    if ((dev->max_group_size && dev->max_group_size < sg * XMX_NSG) ||
        (dev->local_mem && dev->local_mem < xmx_local_bytes(sg))) {
        hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                       "the XMX kernels need work-groups of %zu work-items and %llu bytes of local memory",
                       sg * XMX_NSG, (unsigned long long)xmx_local_bytes(sg));
        return HCL_KPROG_COUNT;
    }
    return sg == 8 ? HCL_KPROG_CL_GEMM_XMX8 : HCL_KPROG_CL_GEMM_XMX16;
}

/* The gemm.cl program of the variant forced (simt16, simt8) or the one that fits the device; HCL_KPROG_COUNT, with
 * the reason in out->why, when that does not fit. */
static hcl_kprog plain_program(const hcl_kdevice *dev, hcl_kplan *out) {
    const hcl_kvariant v = dev->variant[HCL_KOP_GEMM];
    const size_t wg = v == HCL_KVARIANT_GEMM_SIMT16 ? 16 : 8;
    const hcl_kprog prog =
        v == HCL_KVARIANT_GEMM_SIMT16 || v == HCL_KVARIANT_GEMM_SIMT8
            ? (cl_fits(dev, wg) ? (wg == 16 ? HCL_KPROG_CL_GEMM16 : HCL_KPROG_CL_GEMM8) : HCL_KPROG_COUNT)
            : hcl_plan_gemm_cl_program(dev);
    if (prog == HCL_KPROG_COUNT)
        hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                       "the built-in gemm needs work-groups of %zu work-items and %llu bytes of local memory; "
                       "the device allows %llu work-items and %llu bytes",
                       wg * wg, (unsigned long long)cl_local_bytes(wg), (unsigned long long)dev->max_group_size,
                       (unsigned long long)dev->local_mem);
    return prog;
}

/* ---- rows on a CPU (gemm.cl's hcl_gemm_rows<4|16>_<n|t>_*, in the program of 8 x 8 work-groups, which CPUs take): C
 * of at most CL_ROWS_MAX rows, a work-group of CL_ROWS_WG work-items per CL_ROWS_WG columns. ---- */
#define CL_ROWS_MAX 16
#define CL_ROWS_WG 64 /* gemm.cl's HCL_GEMM_ROWS_WG */
static hcl_status plan_rows(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    const hcl_kprog prog = HCL_KPROG_CL_GEMM8;
    if (!cl_fits(dev, 8) || (dev->max_group_size && dev->max_group_size < CL_ROWS_WG))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the OpenCL rows kernels need work-groups of %d work-items and the 8 x 8 program's %llu "
                              "bytes of local memory",
                              CL_ROWS_WG, (unsigned long long)cl_local_bytes(8));
    char base[40];
    snprintf(base, sizeof base, "hcl_gemm_rows%d_%c", g->m <= 4 ? 4 : 16, g->trans_b == HCL_TRANS ? 't' : 'n');
    if (g->c_type != g->ab_type)
        snprintf(base + strlen(base), sizeof base - strlen(base), "_%s", hcl_kdtype_name(g->ab_type));
    const int which = hcl_kplan_typed_kernel(out, prog, base, g->c_type);
    if (which < 0) return HCL_ERROR_UNSUPPORTED;
    const uint64_t kmax = dev->kernel_max_group ? dev->kernel_max_group(dev, prog, which) : 0;
    const size_t groups = hcl_ceil_div(g->n, CL_ROWS_WG);
    if (kmax && kmax < CL_ROWS_WG)
        return hcl_kplan_fail(
            out, HCL_ERROR_UNSUPPORTED,
            "the OpenCL rows kernel needs work-groups of %d work-items; the device allows %llu for it", CL_ROWS_WG,
            (unsigned long long)kmax);
    if (groups > hcl_known_or(dev->max_groups[0], UINT32_MAX))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the OpenCL rows kernel needs %zu work-groups; the device allows %llu", groups,
                              (unsigned long long)dev->max_groups[0]);
    const int no_product = g->k == 0 || g->alpha == 0.0f; /* A and B not read: C = beta * C */
    hcl_klaunch_1d(l, prog, which, groups, CL_ROWS_WG);
    hcl__gemm_args(l, g, no_product ? 0 : g->k, no_product ? 0.0f : g->alpha);
    hcl_klaunch_u64(l, g->trans_a == HCL_TRANS);
    return HCL_SUCCESS;
}

/* ---- rows over slices of k on a GPU (gemm.cl's hcl_gemm_rowsk<4|16>_<n|t>_*, in the program of 16 x 16 work-groups):
 * C of at most CL_ROWS_MAX rows, a work-group of CL_ROWSK_WG work-items per range of columns (64 of B's rows along C's
 * columns, n; 16 of its rows along k, t) and slice of k, in slices of whole chunks of 64 values of k and at least
 * CL_ROWSK_MIN_SLICE, as many as make about CL_ROWSK_GROUPS_PER_CU groups a compute unit (within the device's group
 * count). The slices' partials meet in the zeroed scratch (a ticket a range of columns, in whole lines of 64 words,
 * then slices x MR x the ranges' columns words). 16-bit B of at most 4 rows, n, takes the wide kernels
 * (hcl_gemm_rowsk4w_n_*: 256 columns a group, 16-byte loads) where those fill the GPU (below). ---- */
#define CL_ROWSK_WG 256
#define CL_ROWSK_MIN_SLICE 256
#define CL_ROWSK_GROUPS_PER_CU 4
static hcl_status plan_rowsk(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    const size_t mr = g->m <= 4 ? 4 : 16, cus = dev->compute_units ? dev->compute_units : 32;
    const size_t target = CL_ROWSK_GROUPS_PER_CU * cus,
                 min_slices = g->k / CL_ROWSK_MIN_SLICE ? g->k / CL_ROWSK_MIN_SLICE : 1;
    /* the wide n kernels of 16-bit B at 4 rows (hcl_gemm_rowsk4w_n_*: 8 columns a work-item, 256 a group) where their
     * column ranges in slices of CL_ROWSK_MIN_SLICE still make the groups wanted (H200, f16 / bf16 1 x 14336 x 4096
     * 1.14 -> 1.56, 1 x 4096 x 14336 0.97 -> 1.42 TFLOP/s; 4 x 4096 x 4096 4.81 -> 3.33 with its 256 groups) */
    const int wide = mr == 4 && g->trans_b != HCL_TRANS && g->ab_type != HCL_DTYPE_F32 &&
                     hcl_ceil_div(g->n, 256) * min_slices >= target;
    const size_t ncols = g->trans_b == HCL_TRANS ? 16 : wide ? 256 : 64;      /* a group's columns */
    const uint64_t local = (wide ? 4 * 1024 : mr * 256) * sizeof(float) + 16; /* op(A)'s chunk (gemm.cl's KC) */
    const hcl_kprog prog = HCL_KPROG_CL_GEMM16;
    if (!cl_fits(dev, 16) || (dev->local_mem && dev->local_mem < local))
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the OpenCL sliced rows kernels need work-groups of %d work-items and %llu bytes of "
                              "local memory (the 16 x 16 program's)",
                              CL_ROWSK_WG,
                              (unsigned long long)(local > cl_local_bytes(16) ? local : cl_local_bytes(16)));
    char base[40];
    snprintf(base, sizeof base, "hcl_gemm_rowsk%zu%s_%c", mr, wide ? "w" : "", g->trans_b == HCL_TRANS ? 't' : 'n');
    if (g->c_type != g->ab_type)
        snprintf(base + strlen(base), sizeof base - strlen(base), "_%s", hcl_kdtype_name(g->ab_type));
    const int which = hcl_kplan_typed_kernel(out, prog, base, g->c_type);
    if (which < 0) return HCL_ERROR_UNSUPPORTED;
    const uint64_t kmax = dev->kernel_max_group ? dev->kernel_max_group(dev, prog, which) : 0;
    if (kmax && kmax < CL_ROWSK_WG)
        return hcl_kplan_fail(
            out, HCL_ERROR_UNSUPPORTED,
            "the OpenCL sliced rows kernel needs work-groups of %d work-items; the device allows %llu for it",
            CL_ROWSK_WG, (unsigned long long)kmax);
    const int no_product = g->k == 0 || g->alpha == 0.0f; /* A and B not read: C = beta * C */
    const size_t k = no_product ? 0 : g->k, groups = hcl_ceil_div(g->n, ncols);
    size_t slices = 1, kslice = 64;
    if (k > 0) {
        slices = hcl_min_size(hcl_min_size(hcl_ceil_div(target, groups), k / CL_ROWSK_MIN_SLICE),
                              hcl_known_or(dev->max_groups[1], UINT32_MAX));
        if (slices < 1) slices = 1;
        kslice = hcl_ceil_div(hcl_ceil_div(k, slices), 64) * 64;
        slices = hcl_ceil_div(k, kslice);
    }
    if (groups > hcl_known_or(dev->max_groups[0], UINT32_MAX) || slices > hcl_known_or(dev->max_groups[1], UINT32_MAX))
        return hcl_kplan_fail(
            out, HCL_ERROR_UNSUPPORTED,
            "the OpenCL sliced rows kernel needs %zu x %zu work-groups; the device allows %llu x %llu", groups, slices,
            (unsigned long long)dev->max_groups[0], (unsigned long long)dev->max_groups[1]);
    out->scratch_bytes = (hcl_ceil_div(groups, 64) * 64 + (slices > 1 ? slices * mr * groups * ncols : 0)) * 4;
    out->scratch_zeroed = 1;
    hcl_klaunch_1d(l, prog, which, groups, CL_ROWSK_WG);
    l->grid.y = (uint32_t)slices;
    hcl__gemm_args(l, g, k, no_product ? 0.0f : g->alpha);
    hcl_klaunch_u64(l, g->trans_a == HCL_TRANS);
    hcl_klaunch_u64(l, kslice);
    hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    return HCL_SUCCESS;
}

/* C of few rows: the rows kernels of a CPU or of a GPU */
static hcl_status plan_few_rows(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    if (g->m > CL_ROWS_MAX)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "the OpenCL rows kernels take C of at most %d rows (here %zu)", CL_ROWS_MAX, g->m);
    return dev->is_cpu ? plan_rows(dev, g, out, l) : plan_rowsk(dev, g, out, l);
}

hcl_status hcl__plan_gemm_cl(const hcl_kdevice *dev, const hcl_kgemm *g, hcl_kplan *out, hcl_klaunch *l) {
    if (g->compute != HCL_COMPUTE_F32) /* the core refuses TF32: no OpenCL C gemm multiplies TF32 */
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "the OpenCL C gemm computes in float32 only");
    const hcl_kvariant v = dev->variant[HCL_KOP_GEMM];
    const hcl_kprog xmx =
        hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_XMX) ? xmx_program(dev, g, out) : HCL_KPROG_COUNT;
    if (xmx == HCL_KPROG_COUNT && v == HCL_KVARIANT_GEMM_XMX)
        return hcl_kvariant_settle(dev, HCL_KOP_GEMM, v, HCL_ERROR_UNSUPPORTED, out);
    /* a C of few rows where no matrix-unit kernel takes it: the rows kernels (the tiles would pad it to 64 rows). On a
     * CPU one launch of a work-item per column (PoCL, 2 cores, f32 1 x 1024 x 1024 0.33 -> 3.24 GFLOP/s, 16 x 3584 x
     * 1024 6.53 -> 21.2); on a GPU, where that leaves most of it idle, the rows over slices of k */
    hcl_status st;
    if (xmx == HCL_KPROG_COUNT &&
        (v == HCL_KVARIANT_GEMM_ROWS ||
         (g->m <= CL_ROWS_MAX && hcl_kvariant_allowed(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_ROWS))) &&
        ((st = hcl_kvariant_settle(dev, HCL_KOP_GEMM, HCL_KVARIANT_GEMM_ROWS, plan_few_rows(dev, g, out, l), out)) !=
             HCL_ERROR_UNSUPPORTED ||
         v == HCL_KVARIANT_GEMM_ROWS))
        return st;
    const hcl_kprog prog = xmx != HCL_KPROG_COUNT ? xmx : plain_program(dev, out);
    if (prog == HCL_KPROG_COUNT) return hcl_kvariant_settle(dev, HCL_KOP_GEMM, v, HCL_ERROR_UNSUPPORTED, out);
    /* hcl_gemm_<nn|nt|tn|tt>_<A's and B's type>[_f32 when C is f32 and they are not] (gemm.cl) */
    char base[40];
    snprintf(base, sizeof base, "hcl_gemm_%s", hcl__gemm_trans_name(g));
    if (g->c_type != g->ab_type)
        snprintf(base + strlen(base), sizeof base - strlen(base), "_%s", hcl_kdtype_name(g->ab_type));
    const int which = hcl_kplan_typed_kernel(out, prog, base, g->c_type);
    if (which < 0) return HCL_ERROR_UNSUPPORTED;
    /* the work-group (bx x by) and the tile of C it computes (tile_m x tile_n) */
    const size_t sg = dev->subgroup_width, wg = cl_wg(prog);
    const size_t bx = xmx != HCL_KPROG_COUNT ? sg : wg, by = xmx != HCL_KPROG_COUNT ? XMX_NSG : wg;
    const size_t tile_m = xmx != HCL_KPROG_COUNT ? XMX_TM : 8 * wg, tile_n = xmx != HCL_KPROG_COUNT ? 4 * sg : 8 * wg;
    uint64_t kmax = dev->kernel_max_group ? dev->kernel_max_group(dev, prog, which) : 0;
    if (kmax && kmax < bx * by)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "built-in '%s' of %s needs work-groups of %zu work-items; the device allows %llu for it",
                              hcl_kprogram_get(prog)->kernels[which], hcl_kprogram_get(prog)->name, bx * by,
                              (unsigned long long)kmax);
    size_t gx = hcl_ceil_div(g->n, tile_n), gy = hcl_ceil_div(g->m, tile_m);
    uint64_t mx = hcl_known_or(dev->max_groups[0], UINT32_MAX), my = hcl_known_or(dev->max_groups[1], UINT32_MAX);
    if (gx > mx || gy > my)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED,
                              "gemm %zu x %zu needs %zu x %zu work-groups; the device allows %llu x %llu", g->m, g->n,
                              gx, gy, (unsigned long long)mx, (unsigned long long)my);
    /* BLAS: with k or alpha 0, A and B are not read and C = beta * C */
    const int no_product = g->k == 0 || g->alpha == 0.0f;
    hcl_klaunch_1d(l, prog, which, gx, bx);
    l->grid.y = (uint32_t)gy;
    l->block.y = (uint32_t)by;
    hcl__gemm_args(l, g, no_product ? 0 : g->k, no_product ? 0.0f : g->alpha);
    return HCL_SUCCESS;
}
