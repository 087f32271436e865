/* The launch plan of softmax (hcl_plan.h): a row-wise softmax of rows x cols elements of one type. */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"
#include "plan_vk.h"

#include <stdio.h>

/* ---- GPU (kernels/softmax/softmax.cu) ---- */
#define GPU_WARP_THREADS 256      /* 8 rows per block at 32 lanes, 4 at 64 */
#define GPU_WARP_BLOCKS_PER_CU 64 /* the warp kernels' grid, at most (plan_gpu) */
#define GPU_MAX_COLS 0x7fffffffu
#define GPU_SPLIT_STAGE 128 /* bytes a thread of a cluster kernel holds (and stages): 32 floats, 64 16-bit values */

/* Threads per row for the block kernels: about two 16-byte vectors each (8 to 32 floats, 16 to 64 16-bit elements), so
 * that a 16-bit row is not spread over twice the threads of a float row of the same bytes (H100, 32768 x 4096 f16:
 * 512 threads of one vector each left each block waiting on one load per thread between its barriers). */
static size_t gpu_block_threads(hcl_dtype type, size_t cols) {
    const size_t per_thread = type == HCL_DTYPE_F32 ? 8 : 16;
    size_t t = 128;
    while (t < 1024 && t * per_thread < cols) t *= 2;
    return t;
}

/* The split kernel for rows of `cols` (hcl_softmax_split<CS>_<E>): a row over CS blocks of `threads` threads holding E
 * values each. Up to 32768 columns one block a row, 32 values a thread (split1_32), 16-bit rows above 4096 columns 64
 * (split1_64, at most 512 threads); longer rows, on sm_90, a cluster of 2, 4 or 8 blocks of 128 bytes a thread (32
 * floats, 64 16-bit values), the fewest blocks of at most 512 threads, else of 1024. 0: none fits (longer rows, or no
 * clusters). H100, 2^27 elements: 16 values a thread in clusters were slower at every length above 16384 (0.4-0.8 of
 * the copy rate against 0.7-0.9). H200, 2^27 elements, a block a row against the split1_16 kernel it replaced (16
 * values a thread, 1024 threads looping over rows at 16384 columns) and clusters above 16384: f32 0.97 / 0.97 / 0.89
 * of the copy rate at 4096 / 16384 / 32768 columns, against 0.92 / 0.89 / 0.81; f16 0.92 / 0.94 / 0.92 against
 * 0.71 / 0.67 / 0.79; bf16 0.93 / 0.85 / 0.84 against 0.71 / 0.66 / 0.79 (16-bit at 4096 columns: 64 values a thread
 * 0.93 / 0.86, at 16384 32 values 0.85 / 0.85; 65536 columns in 1024 threads of 64: 0.83 / 0.79, as the clusters). */
#define GPU_SPLIT1_COLS 32768
static int gpu_split(const hcl_kdevice *dev, hcl_dtype type, size_t cols, unsigned *cs, unsigned *e, size_t *threads) {
    const size_t max_threads = hcl_min_size(1024, hcl_known_or(dev->max_group_size, 1024));
    /* the blocks a row: 1 (split), 2 to 8 (cluster, sm_90), or either where nothing is forced */
    const hcl_kvariant v = dev->variant[HCL_KOP_SOFTMAX];
    const unsigned cs_min = v == HCL_KVARIANT_SOFTMAX_CLUSTER ? 2 : 1;
    const unsigned cs_max = dev->arch_level >= 90 && v != HCL_KVARIANT_SOFTMAX_SPLIT ? 8 : 1;
    for (size_t limit = hcl_min_size(512, max_threads); limit <= max_threads; limit *= 2)
        for (*cs = cs_min; *cs <= cs_max; *cs *= 2) {
            *e = type == HCL_DTYPE_F32 || (*cs == 1 && cols <= 32 * 128) ? 32 : 64;
            for (*threads = 64; *threads * *cs * *e < cols;) *threads *= 2;
            if (*cs == 1) {
                if (cols <= GPU_SPLIT1_COLS && *threads <= max_threads) return 1;
                continue;
            }
            /* clusters stage the next row in shared memory */
            if (*threads <= limit && *threads * GPU_SPLIT_STAGE + 1024 <= dev->local_mem) return 1;
        }
    return 0;
}

static hcl_status plan_gpu(const hcl_kdevice *dev, hcl_dtype type, size_t rows, size_t cols, hcl_kplan *out,
                           hcl_klaunch *l) {
    if (cols > GPU_MAX_COLS)
        return hcl_kplan_fail(out, HCL_ERROR_UNSUPPORTED, "softmax rows of %zu columns (above %u)", cols, GPU_MAX_COLS);
    const size_t max_gx = hcl_known_or(dev->max_groups[0], 65535);
    /* A warp kernel holds V values per lane, V * wave columns per row, wave rows per 256-thread block; `wave` is the
     * device's warp / wavefront width (32 on NVIDIA, 64 or 32 on AMD), which the kernel sees as warpSize. */
    const size_t wave = dev->subgroup_width ? dev->subgroup_width : 32;
    /* the warp kernels' widest row: 32 values a lane, 64 for 16-bit rows of whole vectors (warp64, 16-bit only) */
    const size_t warp_cols = (type != HCL_DTYPE_F32 && cols % 8 == 0 ? 64 : 32) * wave;
    unsigned cs, e;
    size_t threads;
    const hcl_kvariant v = dev->variant[HCL_KOP_SOFTMAX];
    const int split = hcl_kvariant_allowed(dev, HCL_KOP_SOFTMAX, HCL_KVARIANT_SOFTMAX_SPLIT) ||
                      hcl_kvariant_allowed(dev, HCL_KOP_SOFTMAX, HCL_KVARIANT_SOFTMAX_CLUSTER);
    /* whether the staged kernel takes the row: it fits the device's most shared memory per block with room for the
     * kernel's own */
    const int stages = dev->local_mem && cols * sizeof(float) + 1024 <= dev->local_mem;
    if (v == HCL_KVARIANT_SOFTMAX_WARP && cols > warp_cols)
        return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX, "the warp kernels hold rows of at most %zu columns (%zu)",
                                   warp_cols, cols);
    if (v == HCL_KVARIANT_SOFTMAX_STAGED && !stages)
        return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX,
                                   "the staged kernel holds a row of floats in shared memory: %zu columns need %zu "
                                   "bytes with its own 1024, the device has %llu a block",
                                   cols, cols * sizeof(float) + 1024, (unsigned long long)dev->local_mem);
    if (hcl_kvariant_allowed(dev, HCL_KOP_SOFTMAX, HCL_KVARIANT_SOFTMAX_WARP) && cols <= warp_cols) {
        size_t v = 1;
        while (v * wave < cols) v *= 2;
        /* Short rows of whole vectors: two vectors a lane, several rows a warp (the kernel takes the fewest lanes that
         * hold a row), where a lane of one value, or one 16-bit pair, a warp a row waited on latency (H100, 2^27
         * elements as rows of 32 / 64 / 128 columns: f32 0.38 / 0.65 / 0.88 of the copy rate -> 1.00 / 1.00 / 1.01,
         * bf16 0.19 / 0.35 / 0.53 -> 0.95 / 0.95 / 0.94). */
        size_t per_warp = 1;
        const size_t vec = type == HCL_DTYPE_F32 ? 4 : 8; /* values in 16 bytes */
        if (cols % vec == 0 && v < 2 * vec) v = 2 * vec;
        /* 16-bit rows of whole vectors are held as they came (softmax.cu, hcl_softmax_warp_held): 64 values, 128 bytes
         * a lane above 128 columns (the row over 2 lanes or more: one lane a row read 64 bytes a lane at 32 columns, 0.66
         * of the copy rate against 0.77 over 2 lanes), in the registers 32 floats take. H200, 2^27 elements as rows of
         * 256 / 1024 columns: f16 0.93 / 0.94 of the copy rate, bf16 0.92 / 0.93, against 0.74 / 0.89 held in warp16 /
         * warp32 (32 and 64 bytes a lane), 0.70-0.87 where those held floats. Rows of up to 128 columns take 16 values a
         * lane, two turns at once (H200, 2^27 elements as rows of 128 columns: f16 / bf16 0.92 / 0.91 against 0.81 /
         * 0.79 at 64 values a lane; the grids capped as below). */
        if (type != HCL_DTYPE_F32 && cols % 8 == 0 && cols > 128) v = 64;
        while (per_warp < wave && (wave / per_warp / 2) * v >= cols) per_warp *= 2;
        char base[48];
        snprintf(base, sizeof base, "hcl_softmax_warp%zu", v);
        int kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_GPU, base, type);
        if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
        /* At most GPU_WARP_BLOCKS_PER_CU blocks a compute unit, each warp looping over its rows (16-bit rows of at most
         * 128 columns: two turns' loads at once), where a block for every 8 warps' rows of short rows spent the time
         * starting blocks (H200, f32 / f16 rows of 32 and 64 columns: 0.90 / 0.69 and 0.90 / 0.70 of the copy rate
         * with a turn a warp, 0.97 / 0.96 and 0.96 / 0.94 at 64 blocks a compute unit; 32 blocks: 0.95 / 0.95, 128:
         * 0.99 / 0.88; 256 and 1024 columns unchanged at 0.96-0.98) */
        size_t gx = hcl_min_size(hcl_ceil_div(rows, GPU_WARP_THREADS / wave * per_warp), max_gx);
        if (dev->compute_units) gx = hcl_min_size(gx, (size_t)dev->compute_units * GPU_WARP_BLOCKS_PER_CU);
        hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, gx, GPU_WARP_THREADS);
    } else if (split && gpu_split(dev, type, cols, &cs, &e, &threads)) {
        char base[48];
        snprintf(base, sizeof base, "hcl_softmax_split%u_%u", cs, e);
        int kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_GPU, base, type);
        if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
        /* A block per row (split1_32, split1_64: many blocks share an SM, one folding while another loads). A cluster stages its blocks' next rows in shared memory (128 bytes a thread) while it folds the current
         * ones. Clusters: as many as the device runs at once where the driver says, each with an equal share of the
         * rows in one wave, since a last wave that is not full idles SMs (H100, 512 x 262144 f32, clusters of 8: 15
         * resident; 128 clusters of 4 rows ran at 0.84 of the copy rate, 16 clusters at 0.56, 15 at 0.89). Else a
         * few rows a cluster: 4 float rows, 2 16-bit rows (H100, 2^27 elements, 32768 to 262144 columns: f32
         * 0.92/0.91/0.90/0.84 at 4, 0.85/0.84/0.81/0.67 at 1; 16-bit 0.76-0.82 at 2). */
        size_t groups = rows;
        if (cs > 1) {
            const uint32_t resident = dev->kernel_max_clusters
                                          ? dev->kernel_max_clusters(dev, HCL_KPROG_GPU, kernel, cs, (uint32_t)threads,
                                                                     threads * GPU_SPLIT_STAGE)
                                          : 0;
            groups = resident ? resident : hcl_ceil_div(rows, type == HCL_DTYPE_F32 ? 4 : 2);
        }
        hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, hcl_min_size(hcl_min_size(rows, groups), max_gx / cs) * cs, threads);
        if (cs > 1) l->shared_bytes = threads * GPU_SPLIT_STAGE;
    } else if (v == HCL_KVARIANT_SOFTMAX_SPLIT || v == HCL_KVARIANT_SOFTMAX_CLUSTER) {
        return hcl_kvariant_refuse(
            out, dev, HCL_KOP_SOFTMAX, "%s (%zu columns)",
            v == HCL_KVARIANT_SOFTMAX_SPLIT
                ? "a block holds rows of at most 32768 columns (32 values a thread, 16-bit 64 in at most 512 threads)"
                : "clusters need sm_90 and hold rows of at most 8 blocks of 32 floats (64 16-bit "
                  "values) a thread, staged in shared memory",
            cols);
    } else {
        /* stage the row in shared memory when it fits the device's most per block with room for the kernel's own
         * (the driver opts a kernel in above CUDA's 48 KiB default; H100: 2.64 TB/s at 8192 x 16384 staged in
         * 64 KiB, 2.29 streamed; 2.03 against 1.95 at 4096 x 32768); not where the streamed kernel is forced */
        const int staged = stages && v != HCL_KVARIANT_SOFTMAX_STREAMED;
        const char *base = staged ? "hcl_softmax_block_staged" : "hcl_softmax_block";
        int kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_GPU, base, type);
        if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
        hcl_klaunch_1d(l, HCL_KPROG_GPU, kernel, hcl_min_size(rows, max_gx), gpu_block_threads(type, cols));
        l->shared_bytes = staged ? cols * sizeof(float) : 0;
    }
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, rows);
    hcl_klaunch_u32(l, (uint32_t)cols);
    return HCL_SUCCESS;
}

/* ---- CL (kernels/softmax/softmax.cl): one work-group per row (short rows: several), in batches of rows ---- */
/* The largest work-group for a kernel that needs a float of local memory per work-item: at most 1024, within the
 * kernel's and the device's limits and local memory, a multiple of 32 where it can be. */
static size_t cl_group_limit(const hcl_kdevice *dev, int kernel) {
    size_t g = (size_t)hcl_kgroup_max(dev, HCL_KPROG_CL_SOFTMAX, kernel, 1024);
    while (g > 1 && dev->local_mem && g * sizeof(float) > dev->local_mem) g /= 2;
    if (g >= 32) g -= g % 32;
    return g > 0 ? g : 1;
}

/* GPU, rows of up to 16 columns per work-item of the largest group: the cached kernel with just enough work-items (a
 * multiple of 32) for each to hold 16 columns in registers; the per-work-item cost of the folds dominates otherwise
 * (H100, 65536 x 1024: 2.9 TB/s with 64 work-items of 16 columns, 1.6 with 128 of 8, 0.9 with 256 of 4). Wider
 * rows of whole vectors of 4 up to 64 columns per work-item: the cached64 kernel likewise. NVIDIA's runtime
 * (580.159) reports CL_KERNEL_WORK_GROUP_SIZE 256 for these kernels (the reported limit is the contract), so there
 * float rows above 16384 columns of whole vectors go to the parts kernel: the fewest groups of 32 columns a work-item
 * that hold the row (at most the device's compute units, so that they run together). H100, 2^27 floats, 32768 to
 * 262144 columns: 0.88 to 0.82 of the copy rate, where the streamed kernel, reading each row twice, gave 0.64-0.66;
 * groups of 256, 512 or 1024 work-items measured the same. 16-bit rows of whole vectors of 8 take it too,
 * 64 columns a work-item held as 16-byte words (softmax.cl, hcl_softmax_hold_words): f16 0.82-0.88, bf16 0.77-0.78
 * against 0.57-0.59 streamed (held as floats: 0.46-0.50 from 8-byte loads, 0.65-0.71 / 0.61-0.64 from 16-byte
 * loads). Other wide rows: the streamed kernel, coalesced (chunk 1), the largest group. CPU: the streamed kernel
 * with one work-item per row over the whole row (a CPU device runs a group on one core, looping over its work-items:
 * wider groups only cost; on PoCL 3.1 this was fastest, and on Intel's OpenCL CPU runtime, which runs work-items in
 * SIMD lanes, one work-item a row with explicit vectors of 8 beat groups of 8-32 work-items streaming the row
 * together: 22 against 12.5 GB/s at 8192 x 1024 floats), which the kernel takes in vectors of 8 for any row length
 * (softmax.cl, hcl_softmax_row1: 2^23 floats, 2 cores, 256 to 262144 columns: 19-23 GB/s on Intel's runtime, 11-22
 * on PoCL, where the online vectors of 4 gave 6.2-7.3 and 5.8-6.7, and rows that are not whole vectors of 4, scalar,
 * 1-2). Short rows go several to a work-item (CL_CPU_ROW_ELEMENTS), since each work-group costs the runtime a task:
 * bench, 2^23 floats, Intel's runtime 6.7 -> 17.1 GB/s at 262144 x 32 (16 rows a work-item), 11.9 -> 20.3 at
 * 32768 x 256 (2). The rows are a work-item's, not a group's of several work-items (local sizes (1, R)): PoCL 3.1
 * computed rows in place wrongly there. The kernel takes the launch's row end where chunk goes, and divides the rows
 * evenly over the groups. */
#define CL_CPU_ROW_ELEMENTS 512 /* elements a CPU work-item takes at least, in whole rows, at most 64 rows */
#define CL_WS_ROWS_AT 256       /* bytes: the parts kernel's ticket, then its per-row words (softmax.cl) */
/* work-items a group of the rows kernel, at most 64 rows (devices may limit the second local size to 64) */
#define CL_ROWS_GROUP 256
#define CL_PARTS_COLS 32 /* float columns a work-item of the parts kernel holds (HCL_SOFTMAX_PARTS_V vectors of 4) */

/* The parts kernel's groups per row of `cols` columns, and its group size in *wg; 0 when the row needs more groups
 * than the device runs at once (its compute units) or a launch may have. */
static size_t cl_parts(const hcl_kdevice *dev, hcl_dtype type, size_t cols, size_t *wg) {
    const size_t per = type == HCL_DTYPE_F32 ? CL_PARTS_COLS : 2 * CL_PARTS_COLS; /* 16-bit: words of 8 */
    const size_t max = cl_group_limit(dev, hcl_kprogram_kernel(HCL_KPROG_CL_SOFTMAX, "hcl_softmax_parts_f32"));
    const size_t np = hcl_ceil_div(cols, per * max);
    if (np > dev->compute_units || np > hcl_known_or(dev->max_groups[0], UINT32_MAX)) return 0;
    *wg = hcl_min_size((hcl_ceil_div(hcl_ceil_div(cols, np), per) + 31) / 32 * 32, max);
    return np;
}

/* GPU rows of whole vectors of 4 up to 512 columns: the rows kernels, several rows a group, each over the fewest
 * work-items (a power of two, at most 32) of 16 columns (hcl_softmax_rows), or of 8 (hcl_softmax_rows8) for rows of up
 * to 32 columns. Returns the kernel's name without its type and sets *wg (the work-items a row) and *per_group (rows a
 * group, within the kernel's group limit); NULL when the rows kernels do not take the rows. H100, NVIDIA's OpenCL, 2^27
 * elements as rows of 32 / 64 / 128 / 256 / 512 columns, against the cached kernel's group a row: f32 0.91 / 0.97 /
 * 0.99 / 0.99 / 1.00 of the copy rate against 0.14 / 0.29 / 0.57 / 1.01 / 1.00, bf16 0.81 / 0.91 / 0.98 / 0.97 / 0.98
 * against 0.07 / 0.15 / 0.29 / 0.57 / 0.97, with 16 columns a work-item; 8 columns a work-item at 32 / 64 / 128 / 256
 * columns: f32 1.00 / 1.00 / 1.01 / 1.00 against 0.92 / 0.98 / 1.00 / 1.00, f16 0.99 / 0.97 / 0.97 / 0.96 against 0.81
 * / 0.97 / 0.99 / 0.99, bf16 0.91 / 0.90 / 0.89 / 0.88 against 0.80 / 0.96 / 0.99 / 0.99. */
static const char *cl_rows(const hcl_kdevice *dev, size_t cols, size_t *wg, size_t *per_group) {
    const hcl_kvariant v = dev->variant[HCL_KOP_SOFTMAX];
    /* columns a work-item: the forced variant's, else 8 for rows of up to 32 */
    const size_t per = v == HCL_KVARIANT_SOFTMAX_ROWS8 ? 8 : v == HCL_KVARIANT_SOFTMAX_ROWS || cols > 32 ? 16 : 8;
    if (cols % 4 != 0 || cols > per * 32) return NULL;
    const char *base = per == 8 ? "hcl_softmax_rows8" : "hcl_softmax_rows";
    char name[48];
    snprintf(name, sizeof name, "%s_f32", base);
    const size_t max = cl_group_limit(dev, hcl_kprogram_kernel(HCL_KPROG_CL_SOFTMAX, name));
    size_t lanes = 1;
    while (lanes * per < cols) lanes *= 2;
    if (lanes > max) return NULL;
    *wg = lanes;
    *per_group = hcl_min_size(64, hcl_min_size(CL_ROWS_GROUP, max) / lanes);
    return base;
}

/* The refusal of a call that the forced CL variant does not take (plan_cl tried it first). */
static hcl_status cl_refuse(const hcl_kdevice *dev, hcl_dtype type, size_t cols, size_t max_cached, size_t max64,
                            hcl_kplan *out) {
    const hcl_kvariant v = dev->variant[HCL_KOP_SOFTMAX];
    const int rows8 = v == HCL_KVARIANT_SOFTMAX_ROWS8;
    if (rows8 || v == HCL_KVARIANT_SOFTMAX_ROWS)
        return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX,
                                   "the rows kernel takes rows of whole vectors of 4 of at most %d columns (32 "
                                   "work-items of %d) within its group limit (%zu columns)",
                                   rows8 ? 256 : 512, rows8 ? 8 : 16, cols);
    if (v == HCL_KVARIANT_SOFTMAX_CACHED || v == HCL_KVARIANT_SOFTMAX_CACHED64)
        return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX,
                                   "the kernel holds rows%s of at most %zu columns (a work-group of %zu, %d columns a "
                                   "work-item; %zu here)",
                                   v == HCL_KVARIANT_SOFTMAX_CACHED64 ? " of whole vectors of 4" : "",
                                   v == HCL_KVARIANT_SOFTMAX_CACHED64 ? 64 * max64 : 16 * max_cached,
                                   v == HCL_KVARIANT_SOFTMAX_CACHED64 ? max64 : max_cached,
                                   v == HCL_KVARIANT_SOFTMAX_CACHED64 ? 64 : 16, cols);
    return hcl_kvariant_refuse(out, dev, HCL_KOP_SOFTMAX,
                               "the parts kernel takes rows of whole vectors of %d over at most %u work-groups (the "
                               "compute units) of %d columns a work-item (%zu columns)",
                               type == HCL_DTYPE_F32 ? 4 : 8, dev->compute_units,
                               type == HCL_DTYPE_F32 ? CL_PARTS_COLS : 2 * CL_PARTS_COLS, cols);
}

static hcl_status plan_cl(const hcl_kdevice *dev, hcl_dtype type, size_t rows, size_t cols, hcl_kplan *out) {
    const char *base = "hcl_softmax";
    size_t wg = 1, chunk = 1, parts = 0, per_group = 1; /* CPU: one work-item a group */
    size_t per_item = cols < CL_CPU_ROW_ELEMENTS ? hcl_min_size(64, CL_CPU_ROW_ELEMENTS / cols) : 1; /* its rows */
    const char *rows_kernel = NULL; /* several rows a group */
    /* a variant forced (HCL_SOFTMAX_VARIANT): it alone, on a CPU too (the streamed kernel there in its CPU form) */
    const hcl_kvariant v = dev->variant[HCL_KOP_SOFTMAX];
#define ALLOWED(id) hcl_kvariant_allowed(dev, HCL_KOP_SOFTMAX, HCL_KVARIANT_SOFTMAX_##id)
    if (!dev->is_cpu || (v != HCL_KVARIANT_AUTO && v != HCL_KVARIANT_SOFTMAX_STREAMED)) {
        size_t max_cached = cl_group_limit(dev, hcl_kprogram_kernel(HCL_KPROG_CL_SOFTMAX, "hcl_softmax_cached_f32"));
        size_t max64 = cl_group_limit(dev, hcl_kprogram_kernel(HCL_KPROG_CL_SOFTMAX, "hcl_softmax_cached64_f32"));
        per_item = 1;
        rows_kernel = ALLOWED(ROWS8) || ALLOWED(ROWS) ? cl_rows(dev, cols, &wg, &per_group) : NULL;
        if (rows_kernel) {
            base = rows_kernel;
        } else if (ALLOWED(CACHED) && cols <= 16 * max_cached) {
            base = "hcl_softmax_cached";
            wg = hcl_min_size((hcl_ceil_div(cols, 16) + 31) / 32 * 32, max_cached);
        } else if (ALLOWED(CACHED64) && cols % 4 == 0 && cols <= 64 * max64) {
            base = "hcl_softmax_cached64";
            wg = hcl_min_size((hcl_ceil_div(cols, 64) + 31) / 32 * 32, max64);
        } else if (ALLOWED(PARTS) && cols % (type == HCL_DTYPE_F32 ? 4 : 8) == 0 &&
                   (parts = cl_parts(dev, type, cols, &wg)) != 0) {
            base = "hcl_softmax_parts";
        } else if (ALLOWED(STREAMED)) {
            wg = cl_group_limit(dev, hcl_kprogram_kernel(HCL_KPROG_CL_SOFTMAX, "hcl_softmax_f32"));
        } else {
            return cl_refuse(dev, type, cols, max_cached, max64, out);
        }
    }
#undef ALLOWED
    /* batches of rows that keep each launch's group count modest and within the device's */
    const size_t batch =
        hcl_min_size((size_t)1 << 20, hcl_known_or(dev->max_groups[0], UINT32_MAX) / (parts ? parts : 1)) * per_group *
        per_item;
    const size_t count = hcl_ceil_div(rows, batch);
    const int which = hcl_kplan_typed_kernel(out, HCL_KPROG_CL_SOFTMAX, base, type);
    if (which < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_status st = hcl_kplan_init(out, count);
    if (st != HCL_SUCCESS) return st;
    if (parts) { /* per row of a launch: the arrivals, then (max, sum, state) a part */
        out->scratch_bytes = CL_WS_ROWS_AT + hcl_min_size(batch, rows) * (1 + 3 * parts) * sizeof(uint32_t);
        out->scratch_zeroed = 1;
    }
    for (size_t i = 0; i < count; i++) {
        const size_t r0 = i * batch, n = hcl_min_size(batch, rows - r0);
        hcl_klaunch *l = &out->launch[i];
        hcl_klaunch_1d(l, HCL_KPROG_CL_SOFTMAX, which, parts ? n * parts : hcl_ceil_div(n, per_group * per_item), wg);
        l->block.y = (uint32_t)per_group;
        /* a float a work-item for the folds; the parts kernel keeps 2 words after them */
        l->shared_bytes = (wg * l->block.y + (parts ? 2 : 0)) * sizeof(float);
        hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
        hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
        hcl_klaunch_u64(l, r0);
        hcl_klaunch_u64(l, cols);
        /* the rows kernel and the CPU form (a work-group of one work-item a row): the launch's row end */
        hcl_klaunch_u64(l, parts ? parts : rows_kernel || wg == 1 ? r0 + n : chunk);
        if (parts) hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    }
    return HCL_SUCCESS;
}

hcl_status hcl_plan_softmax(const hcl_kdevice *dev, hcl_dtype type, size_t rows, size_t cols, hcl_kplan *out) {
    const hcl_status st = hcl_kplan_begin(dev, HCL_KOP_SOFTMAX, out);
    if (st != HCL_SUCCESS) return st;
    if (dev->family == HCL_KFAMILY_CL) return plan_cl(dev, type, rows, cols, out);
    if (dev->family == HCL_KFAMILY_GPU) return plan_gpu(dev, type, rows, cols, out, &out->launch[0]);
    if (dev->family == HCL_KFAMILY_VK) return hcl__plan_softmax_vk(dev, type, rows, cols, out);
    /* host (kernels/softmax/softmax.c): the whole call in one work-group; a long 16-bit row gets a float row per thread
     * of scratch, so that exp runs once per element (one core, 262144 columns: 2.9 GB/s without) */
    hcl_klaunch *l = &out->launch[0];
    const int kernel = hcl_kplan_typed_kernel(out, HCL_KPROG_HOST, "hcl_softmax", type);
    if (kernel < 0) return HCL_ERROR_UNSUPPORTED;
    hcl_klaunch_1d(l, HCL_KPROG_HOST, kernel, 1, 1);
    out->scratch_bytes = hcl__host_softmax_scratch_bytes(type, rows, cols);
    hcl_klaunch_mem(l, HCL_KSLOT_A, 0);
    hcl_klaunch_mem(l, HCL_KSLOT_C, 0);
    hcl_klaunch_u64(l, rows);
    hcl_klaunch_u64(l, cols);
    if (out->scratch_bytes)
        hcl_klaunch_mem(l, HCL_KSLOT_SCRATCH, 0);
    else
        hcl_klaunch_value(l, &(void *){NULL}, sizeof(void *));
    hcl_klaunch_u64(l, out->scratch_bytes);
    return HCL_SUCCESS;
}
