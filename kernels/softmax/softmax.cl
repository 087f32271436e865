/* softmax (OpenCL C 1.2): row-wise, numerically stable: out[r][j] = exp(in[r][j] - max_r) / sum_j exp(...), in
 * f32, f16 or bf16 (hcl_cl_types.h; float arithmetic, one rounding of each output).
 *
 * One work-group per row, row_begin + group id (the host launches the rows in batches): the row maximum, then
 * the sum of exp(x - max), then the write. The work-items' partial results meet in local memory
 * (`scratch`: one float per work-item; any work-group size) in a fixed order: the first
 * r ~ sqrt(local size) work-items each fold a strided slice, then every work-item folds those r (three
 * barriers, not log2 of the group size); on NVIDIA's OpenCL, groups of whole warps fold through warp shuffles
 * instead (hcl_softmax_fold).
 * Three kernels, two ways through a row:
 *  - hcl_softmax_cached_<type> (cols <= local size * HCL_SOFTMAX_CACHE): each work-item keeps its columns
 *    lid + local_size * c in registers, so the row is read once and exp is taken once per element;
 *    hcl_softmax_cached64_<type> the same for rows of whole vectors of 4 up to local size * HCL_SOFTMAX_CACHE_MAX;
 *    hcl_softmax_rows_<type> and hcl_softmax_rows8_<type> the same for short rows of whole vectors of 4, several
 *    rows a work-group (hcl_softmax_rows);
 *  - hcl_softmax_<type>, streamed (any shape): work-item `lid` takes runs of `chunk` consecutive columns
 *    starting at lid * chunk, every local_size * chunk columns, and reads the row three times. chunk = 1 is
 *    the coalesced order a GPU wants. The sum is taken in blocks of HCL_SOFTMAX_BLOCK so a long run does not become
 *    a long chain of additions. With chunk 1, rows of whole vectors of 4 go in two passes instead: the max and the
 *    sum together (online), then the write. Work-groups of one work-item (a CPU: one work-item a row, short rows
 *    several) take their rows in vectors of 8 instead (hcl_softmax_row1), chunk then being the launch's row end.
 * -inf entries give exp(-inf) = 0. A row of all -inf has max -inf, so x - max is NaN and the row is NaN, as in
 * PyTorch. A NaN in a row makes that row NaN (fmax skips it in the max, but the sum takes it).
 * In place works: every element is read and written by the same work-item, and the writes start after the
 * barriers that end the sum. */
#include "hcl_cl_types.h"

#define HCL_SOFTMAX_BLOCK 256
#ifndef HCL_SOFTMAX_CACHE
#define HCL_SOFTMAX_CACHE 16 /* columns per work-item held in registers */
#endif

/* The fold through local memory alone. */
static float hcl_softmax_fold_local(__local float *scratch, float v, int is_max) {
    const size_t lid = get_local_id(0), lsize = get_local_size(0);
    size_t r = 1; /* about sqrt(local size) lanes, so both stages are short */
    while (r * r < lsize) r *= 2;
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < r) {
        float acc = scratch[lid];
        for (size_t i = lid + r; i < lsize; i += r) acc = is_max ? fmax(acc, scratch[i]) : acc + scratch[i];
        scratch[lid] = acc;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = scratch[0];
    for (size_t i = 1; i < r; i++) acc = is_max ? fmax(acc, scratch[i]) : acc + scratch[i];
    barrier(CLK_LOCAL_MEM_FENCE); /* scratch is reused by the next fold */
    return acc;
}

#ifdef HCL_CL_WARP_SHUFFLE
/* The fold of v over aligned runs of `width` consecutive lanes of a warp (a power of two of at most 32) by a butterfly:
 * every lane of a run ends with the same bits. */
static float hcl_softmax_butterfly(float v, int is_max, const uint width) {
    for (uint m = width / 2; m > 0; m >>= 1) {
        const float o = hcl_cl_shfl_xor(v, m);
        v = is_max ? fmax(v, o) : v + o;
    }
    return v;
}
#endif

/* The fold of the group's work-items' v (the max, or the sum), the result in every work-item; every work-item of the
 * group calls it. Where the compiler takes warp shuffles (HCL_CL_WARP_SHUFFLE), groups of whole warps fold by a
 * butterfly in each warp (every lane ends with the same bits) and then the warps' results in order (H100, NVIDIA's
 * OpenCL: f32 rows 0.94 -> 1.01 of the copy rate at 256 columns, 0.83-0.88 -> 0.90-0.93 at 32768-262144 in the parts
 * kernel, 16-bit 0.73-0.84 -> 0.96-1.00 at 1024 columns and 0.67-0.75 -> 0.86-0.93 at 4096). */
static float hcl_softmax_fold(__local float *scratch, float v, int is_max) {
#ifdef HCL_CL_WARP_SHUFFLE
    const size_t lid = get_local_id(0), lsize = get_local_size(0);
    if (lsize % 32 == 0) {
        v = hcl_softmax_butterfly(v, is_max, 32);
        if (lsize == 32) return v;
        if (lid % 32 == 0) scratch[lid / 32] = v;
        barrier(CLK_LOCAL_MEM_FENCE);
        float acc = scratch[0];
        for (size_t i = 1; i < lsize / 32; i++) acc = is_max ? fmax(acc, scratch[i]) : acc + scratch[i];
        barrier(CLK_LOCAL_MEM_FENCE); /* scratch is reused by the next fold */
        return acc;
    }
#endif
    return hcl_softmax_fold_local(scratch, v, is_max);
}

/* The fold of the work-items of one row of a group of rows (local sizes (L, R): the L work-items of one local id (1),
 * L a power of two of at most 32); every work-item of the group calls it. Where the compiler takes warp shuffles and
 * the group is whole warps, a butterfly over the row's L lanes (consecutive lanes of one warp); else through the row's
 * L floats of local memory. */
static float hcl_softmax_fold_row(__local float *scratch, float v, int is_max) {
    const size_t lanes = get_local_size(0);
#ifdef HCL_CL_WARP_SHUFFLE
    if (lanes <= 32 && lanes * get_local_size(1) % 32 == 0) return hcl_softmax_butterfly(v, is_max, (uint)lanes);
#endif
    return hcl_softmax_fold_local(scratch + get_local_id(1) * lanes, v, is_max);
}

/* Who folds together (a constant after inlining): */
#define HCL_SOFTMAX_FOLD_GROUP 0 /* the whole group (hcl_softmax_fold) */
#define HCL_SOFTMAX_FOLD_ROW 1   /* each row of a group of rows (hcl_softmax_fold_row) */
static float hcl_softmax_fold_by(__local float *scratch, float v, int is_max, const int fold) {
    return fold == HCL_SOFTMAX_FOLD_ROW ? hcl_softmax_fold_row(scratch, v, is_max)
                                        : hcl_softmax_fold(scratch, v, is_max);
}

/* exp(x) for rows of `type`: 16-bit rows take exp2(x * log2 e), within 3 ulp (OpenCL's full profile) apart from the
 * product's rounding, a relative error of about |x| * 2^-24 (x is at most about 100 below 0 before exp underflows), far
 * below a 16-bit output's rounding; NVIDIA compiles exp to a longer sequence (H100, NVIDIA's OpenCL, bf16: 0.85 ->
 * 0.88 of the copy rate at 4096 columns; f16 0.93 -> 0.95). f32 rows keep exp. */
static float4 hcl_softmax_exp4(const float4 x, const int type) {
    return type == HCL_CL_F32 ? exp(x) : exp2(x * M_LOG2E_F);
}
static float8 hcl_softmax_exp8(const float8 x) { return exp2(x * M_LOG2E_F); } /* 16-bit rows' */

/* Cached by vectors: each work-item holds vectors of 4 lid + local_size (0) * c (c < nv <= HCL_SOFTMAX_CACHE_MAX / 4, a
 * constant after inlining) of the n4 vectors from vector v0 in registers, and returns their maximum folded as `fold`
 * says; lanes past n4 hold -inf. */
#define HCL_SOFTMAX_CACHE_MAX 64
static float hcl_softmax_hold4(__global const void *in, const size_t v0, const uint n4, __local float *scratch,
                               const int type, const uint nv, float4 *v4, const int fold) {
    const uint lid = (uint)get_local_id(0), lsize = (uint)get_local_size(0);
    float m = -INFINITY;
#pragma unroll
    for (uint c = 0; c < nv; c++) {
        const uint j = lid + lsize * c;
        v4[c] = j < n4 ? hcl_load4(in, v0 + j, type) : (float4)(-INFINITY);
        m = fmax(m, fmax(fmax(v4[c].x, v4[c].y), fmax(v4[c].z, v4[c].w)));
    }
    return hcl_softmax_fold_by(scratch, m, 1, fold);
}

/* A whole row of n4 vectors from vector v0 cached (hcl_softmax_hold4), at most local size (0) * nv vectors; its
 * work-items fold as `fold` says. */
static void hcl_softmax_cached4(__global const void *in, __global void *out, const size_t v0, const uint n4,
                                __local float *scratch, const int type, const uint nv, const int fold) {
    const uint lid = (uint)get_local_id(0), lsize = (uint)get_local_size(0);
    float4 v4[HCL_SOFTMAX_CACHE_MAX / 4];
    const float m = hcl_softmax_hold4(in, v0, n4, scratch, type, nv, v4, fold);
    float s = 0.0f;
#pragma unroll
    for (uint c = 0; c < nv; c++) {
        v4[c] = lid + lsize * c < n4 ? hcl_softmax_exp4(v4[c] - m, type) : (float4)(0.0f);
        s += (v4[c].x + v4[c].y) + (v4[c].z + v4[c].w);
    }
    const float inv = 1.0f / hcl_softmax_fold_by(scratch, s, 0, fold);
#pragma unroll
    for (uint c = 0; c < nv; c++)
        if (lid + lsize * c < n4) hcl_store4(out, v0 + lid + lsize * c, v4[c] * inv, type);
}

/* Held as words: 16-bit rows of whole vectors of 8 in the kernels of more than 16 columns a work-item (cached64,
 * parts) keep the 16-byte words of 8 elements as memory holds them, four registers where 8 floats take eight, and
 * unpack them again for the sum and for the write (hcl_cl_opaque4 keeps the compiler from holding the floats
 * instead), so a group holds twice the elements for its registers; the write takes exp again. H100, NVIDIA's OpenCL,
 * against floats held from 16-byte loads: 16384 x 8192 f16 / bf16 0.94 / 0.87 -> 0.98 / 0.96 of the copy rate,
 * 8192 x 16384 0.85 / 0.78 -> 0.91 / 0.82; the parts kernel at 32768-262144 columns 0.65-0.71 / 0.61-0.64 -> 0.82-0.88
 * / 0.77-0.78 (0.59-0.62 / 0.69-0.72 without hcl_cl_opaque4). */
static uint4 hcl_softmax_neg_inf8(const int type) {
    const uint h = type == HCL_CL_F16 ? 0xfc00u : 0xff80u;
    return (uint4)(h | (h << 16));
}

/* Each work-item holds words lid + local_size (0) * c (c < nv, a constant after inlining) of the `units` words from
 * word u0 (words of -inf past them) and returns their maximum folded as `fold` says. */
static float hcl_softmax_hold_words(__global const void *in, const size_t u0, const uint units, __local float *scratch,
                                    const int type, const uint nv, uint4 *words, const int fold) {
    const uint lid = (uint)get_local_id(0), lsize = (uint)get_local_size(0);
#pragma unroll
    for (uint c = 0; c < nv; c++) {
        const uint j = lid + lsize * c;
        words[c] = j < units ? ((__global const uint4 *)in)[u0 + j] : hcl_softmax_neg_inf8(type);
    }
    float m = -INFINITY;
#pragma unroll
    for (uint c = 0; c < nv; c++) {
        const float8 x = hcl_unpack8(words[c], type);
        const float4 h = fmax(x.lo, x.hi);
        m = fmax(m, fmax(fmax(h.x, h.y), fmax(h.z, h.w)));
    }
    return hcl_softmax_fold_by(scratch, m, 1, fold);
}

/* The sum of exp(x - m) over the held words; while m is -inf the values are -inf (0) or NaN (stays NaN). */
static float hcl_softmax_sum_words(const uint4 *words, const uint nv, const float m, const int type) {
    float s = 0.0f;
#pragma unroll
    for (uint c = 0; c < nv; c++) {
        const float8 x = hcl_unpack8(hcl_cl_opaque4(words[c]), type);
        const float8 e = m == -INFINITY ? select((float8)(NAN), (float8)(0.0f), isequal(x, (float8)(-INFINITY)))
                                        : hcl_softmax_exp8(x - m);
        const float4 h = e.lo + e.hi;
        s += (h.x + h.y) + (h.z + h.w);
    }
    return s;
}

/* exp(x - mx) * inv of the held words to their places (the first `units` words from word u0). */
static void hcl_softmax_write_words(__global void *out, const size_t u0, const uint units, const uint4 *words,
                                    const uint nv, const float mx, const float inv, const int type) {
    const uint lid = (uint)get_local_id(0), lsize = (uint)get_local_size(0);
#pragma unroll
    for (uint c = 0; c < nv; c++) {
        const uint j = lid + lsize * c;
        if (j < units)
            hcl_store8(out, u0 + j, hcl_softmax_exp8(hcl_unpack8(hcl_cl_opaque4(words[c]), type) - mx) * inv, type);
    }
}

/* A row of n4 vectors from vector v0 cached, nv vectors of 4 a work-item: as words (nv / 2 of them) where
 * hcl_softmax_hold_words says (a constant in each branch after inlining), else as vectors (hcl_softmax_cached4). */
static void hcl_softmax_cached_by(__global const void *in, __global void *out, const size_t v0, const uint n4,
                                  const ulong cols, __local float *scratch, const int type, const uint nv,
                                  const int fold) {
    if (nv > 4 && type != HCL_CL_F32 && cols % 8 == 0) {
        uint4 words[HCL_SOFTMAX_CACHE_MAX / 8];
        const uint units = n4 / 2, nw = nv / 2;
        const float m = hcl_softmax_hold_words(in, v0 / 2, units, scratch, type, nw, words, fold);
        const float inv = 1.0f / hcl_softmax_fold_by(scratch, hcl_softmax_sum_words(words, nw, m, type), 0, fold);
        hcl_softmax_write_words(out, v0 / 2, units, words, nw, m, inv, type);
    } else {
        hcl_softmax_cached4(in, out, v0, n4, scratch, type, nv, fold);
    }
}

/* The row of this work-group (row_begin + group id) cached (hcl_softmax_cached4). */
static void hcl_softmax_cached_row(__global const void *in, __global void *out, ulong row_begin, ulong cols,
                                   __local float *scratch, const int type, const uint nv, const int fold) {
    hcl_softmax_cached_by(in, out, ((size_t)row_begin + get_group_id(0)) * (cols / 4), (uint)cols / 4, cols, scratch,
                          type, nv, fold);
}

/* Rows too long for one work-group's registers (a GPU; float rows of whole vectors of 4, 16-bit rows of whole vectors of
 * 8): `parts` work-groups share a row, each holding its part in registers (hcl_softmax_hold4, or as words:
 * hcl_softmax_hold_words; HCL_SOFTMAX_PARTS_V of them a work-item), so the row is read once. They meet through `ws`
 * (scratch the host gave zeroed; the kernel leaves it so):
 *   ws[0]  a ticket: groups take (row, part) in the order they start, so the parts of a row start together (H100,
 *          512 x 262144: 0.82-0.83 of the copy rate, 0.79-0.80 with part and row from the group id)
 *   ws[HCL_SOFTMAX_WS_ROWS + row * (1 + 3 * parts) + ...]  per row of the launch: the arrivals, then per part its
 *          max and its sum of exp(x - max) (hcl_softmax_word: never 0) and its state (1 kept, 2 given up)
 * Each group publishes its (max, sum) and arrives; the last to arrive has the row's max and sum and writes its part;
 * the others wait for the arrivals, read every part's (max, sum) and write theirs. Readers wait for each word they
 * read to be written (not 0), so no order between stores to different words is assumed. OpenCL does not promise
 * that two work-groups run at the same time, so the wait for the arrivals is bounded (HCL_SOFTMAX_SPIN polls): a
 * group that waits longer gives its part up. Every other group then writes its state; the last to arrive waits for
 * them (they have arrived, so they run), writes the parts given up from their inputs (not yet written by anyone, so in
 * place stays right) and clears the row's words. The plan keeps `parts` within the device's compute units, so on a GPU
 * the wait is the slowest part's load. A part of only -inf has max -inf and sum 0 and writes zeros, unless the whole
 * row is -inf (then NaN, as with one group per row). */
/* vectors of 4 a work-item of the parts kernel holds in a float row, 32 columns (H100, 2^27 floats, 32768 to 262144
 * columns: 0.88 to 0.82 of the copy rate; 64 columns, groups of 256: 0.87 to 0.83); words of 8 in a 16-bit row, 64
 * columns */
#define HCL_SOFTMAX_PARTS_V 8
#define HCL_SOFTMAX_WS_ROWS 64 /* words: the ticket's, apart from the rows' */
#ifndef HCL_SOFTMAX_SPIN
#define HCL_SOFTMAX_SPIN 65536
#endif
/* A float as a workspace word that is never 0 (the complement of its bits, NaN made the one quiet NaN). */
static uint hcl_softmax_word(const float v) { return ~as_uint(isnan(v) ? NAN : v); }
/* The float in word `*w` once it has been written. */
static float hcl_softmax_word_wait(__global volatile uint *w) {
    uint b;
    while ((b = *w) == 0u) {
    }
    return as_float(~b);
}

static void hcl_softmax_parts(__global const void *in, __global void *out, ulong row_begin, ulong cols, ulong parts,
                              __global volatile uint *ws, __local float *scratch, const int type) {
    const uint lid = (uint)get_local_id(0), lsize = (uint)get_local_size(0), np = (uint)parts;
    /* after the folds' floats: the ticket, then the role (0 gave up, 1 writes its part, 2 the last to arrive) */
    __local uint *shared = (__local uint *)(scratch + lsize);
    if (lid == 0) {
        const uint t = atomic_inc(ws);
        if (t == (uint)get_num_groups(0) - 1u) atomic_xchg(ws, 0u); /* every group has taken its ticket */
        shared[0] = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* f32: units of a vector of 4; 16-bit: of a word of 8 (w vectors of 4) */
    const uint w = type == HCL_CL_F32 ? 1 : 2;
    const uint ticket = shared[0], row = ticket / np, part = ticket % np, n4 = (uint)cols / 4, units = n4 / w;
    const uint per = (units + np - 1) / np; /* units a part */
    const uint first = min(part * per, units), count = min(per, units - first);
    const size_t r0 = ((size_t)row_begin + row) * n4, p0 = r0 + first * w; /* the row's and the part's first vector */
    float4 v4[HCL_SOFTMAX_PARTS_V];
    uint4 words[HCL_SOFTMAX_PARTS_V];
    float m, s = 0.0f;
    if (w == 2) {
        m = hcl_softmax_hold_words(in, p0 / 2, count, scratch, type, HCL_SOFTMAX_PARTS_V, words,
                                   HCL_SOFTMAX_FOLD_GROUP);
        s = hcl_softmax_sum_words(words, HCL_SOFTMAX_PARTS_V, m, type);
    } else {
        m = hcl_softmax_hold4(in, p0, count, scratch, type, HCL_SOFTMAX_PARTS_V, v4, HCL_SOFTMAX_FOLD_GROUP);
#pragma unroll
        for (uint c = 0; c < HCL_SOFTMAX_PARTS_V; c++) {
            /* while the part's max is -inf its values are -inf (0 in the end) or NaN (stays NaN) */
            const float4 e = m == -INFINITY ? select((float4)(NAN), (float4)(0.0f), isequal(v4[c], (float4)(-INFINITY)))
                                            : exp(v4[c] - m);
            v4[c] = lid + lsize * c < count ? e : (float4)(0.0f);
            s += (v4[c].x + v4[c].y) + (v4[c].z + v4[c].w);
        }
    }
    s = hcl_softmax_fold(scratch, s, 0);
    __global volatile uint *rw = ws + HCL_SOFTMAX_WS_ROWS + (size_t)row * (1 + 3 * np);
    if (lid == 0) rw[1 + 3 * part] = hcl_softmax_word(m), rw[2 + 3 * part] = hcl_softmax_word(s);
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) {
        const uint last = atomic_inc(rw) == np - 1u;
        uint all = last;
        for (uint spins = 0; !all && spins < HCL_SOFTMAX_SPIN; spins++) all = rw[0] >= np;
        shared[1] = last ? 2u : all;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    const uint role = shared[1];
    float mx = -INFINITY, sum = 0.0f;
    if (role != 0) { /* every part has arrived: work-item p reads part p's (max, sum) */
        float pm = -INFINITY, ps = 0.0f;
        for (uint p = lid; p < np; p += lsize) {
            const float m2 = hcl_softmax_word_wait(rw + 1 + 3 * p), s2 = hcl_softmax_word_wait(rw + 2 + 3 * p);
            const float mm = fmax(pm, m2);
            ps = (pm == -INFINITY ? 0.0f : ps * exp(pm - mm)) + (m2 == -INFINITY ? 0.0f : s2 * exp(m2 - mm));
            pm = mm;
        }
        mx = hcl_softmax_fold(scratch, pm, 1);
        sum = hcl_softmax_fold(scratch, pm == -INFINITY ? 0.0f : ps * exp(pm - mx), 0);
    }
    if (role != 2) { /* decided (and done reading the row's words) */
        if (lid == 0) rw[3 + 3 * part] = role == 1 ? 1u : 2u;
        if (role == 0) return;
    }
    const float inv = 1.0f / sum;
    const float scale = m != -INFINITY ? exp(m - mx) * inv : mx == -INFINITY ? NAN : 0.0f;
    if (w == 2)
        hcl_softmax_write_words(out, p0 / 2, count, words, HCL_SOFTMAX_PARTS_V, mx, inv, type);
    else
#pragma unroll
        for (uint c = 0; c < HCL_SOFTMAX_PARTS_V; c++)
            if (lid + lsize * c < count) hcl_store4(out, p0 + lid + lsize * c, v4[c] * scale, type);
    if (role != 2) return;
    float gave = 0.0f; /* work-item p waits for part p's decision */
    for (uint p = lid; p < np; p += lsize) {
        uint state = 1u;
        if (p != part)
            while ((state = rw[3 + 3 * p]) == 0u) {
            }
        gave = state == 2u ? 1.0f : gave;
    }
    if (hcl_softmax_fold(scratch, gave, 1) != 0.0f) /* rare: a part was given up */
        for (uint p = 0; p < np; p++) {
            if (p == part || rw[3 + 3 * p] != 2u) continue;
            const uint f = min(p * per, units) * w, end = min(p * per + per, units) * w;
            for (uint j = f + lid; j < end; j += lsize)
                hcl_store4(out, r0 + j, hcl_softmax_exp4(hcl_load4(in, r0 + j, type) - mx, type) * inv, type);
        }
    barrier(CLK_GLOBAL_MEM_FENCE); /* every work-item has read the states */
    for (uint i = lid; i < 1 + 3 * np; i += lsize) rw[i] = 0u;
}

/* Cached: each work-item holds columns lid + local_size * c (c < HCL_SOFTMAX_CACHE) in registers; needs
 * cols <= local size * HCL_SOFTMAX_CACHE. A kernel of its own, so that its register use does not lower the
 * work-group size the streamed kernel may use, and the other way round. `chunk` is unused (same arguments as
 * hcl_softmax_f32). Rows of whole vectors of 4 go by vectors (H100, NVIDIA's OpenCL, 131072 x 1024 bf16: 0.51 of
 * the copy rate element by element, 0.70 so). */
static void hcl_softmax_cached(__global const void *in, __global void *out, ulong row_begin, ulong cols,
                               __local float *scratch, const int type) {
    if (cols % 4 == 0) {
        hcl_softmax_cached_row(in, out, row_begin, cols, scratch, type, HCL_SOFTMAX_CACHE / 4, HCL_SOFTMAX_FOLD_GROUP);
        return;
    }
    const uint ncols = (uint)cols, lid = (uint)get_local_id(0), lsize = (uint)get_local_size(0);
    const size_t row = (size_t)row_begin + get_group_id(0);
    const size_t x0 = row * (size_t)ncols; /* the row's first element in `in` and `out` */
    float v[HCL_SOFTMAX_CACHE];
    float m = -INFINITY;
#pragma unroll
    for (uint c = 0; c < HCL_SOFTMAX_CACHE; c++) {
        const uint j = lid + lsize * c;
        v[c] = j < ncols ? hcl_load(in, x0 + j, type) : -INFINITY;
        m = fmax(m, v[c]);
    }
    m = hcl_softmax_fold(scratch, m, 1);
    float s = 0.0f;
#pragma unroll
    for (uint c = 0; c < HCL_SOFTMAX_CACHE; c++) {
        const uint j = lid + lsize * c;
        v[c] = j < ncols ? exp(v[c] - m) : 0.0f;
        s += v[c];
    }
    s = hcl_softmax_fold(scratch, s, 0);
    const float inv = 1.0f / s;
#pragma unroll
    for (uint c = 0; c < HCL_SOFTMAX_CACHE; c++) {
        const uint j = lid + lsize * c;
        if (j < ncols) hcl_store(out, x0 + j, v[c] * inv, type);
    }
}

/* Short rows of whole vectors of 4, several a work-group (GPU): local sizes (L, R), R rows a group, row row_begin +
 * group id * R + local id (1) over the L work-items of its local id (1) (a power of two, at most 32), each holding nv
 * vectors (hcl_softmax_cached4); rows from row_end on are skipped (the launch's last group may hold fewer than R). One
 * group a row spent more on starting groups than on the row (H100, NVIDIA's OpenCL, 2^27 floats as rows of 32 / 64 /
 * 128 columns: 0.14 / 0.29 / 0.57 of the copy rate). Kernels of 4 vectors a work-item (hcl_softmax_rows_<type>) and of
 * 2 (hcl_softmax_rows8_<type>, the rows of up to 32 columns; kernels/softmax/plan.c says why). */
static void hcl_softmax_rows(__global const void *in, __global void *out, ulong row_begin, ulong row_end, ulong cols,
                             __local float *scratch, const int type, const uint nv) {
    const size_t row = (size_t)row_begin + get_group_id(0) * get_local_size(1) + get_local_id(1);
    const uint n4 = row < row_end ? (uint)cols / 4 : 0u; /* a row past the end holds nothing */
    hcl_softmax_cached_by(in, out, (cols / 4) * row, n4, cols, scratch, type, nv, HCL_SOFTMAX_FOLD_ROW);
}

/* Fold four values into a running (max, sum): the sum is rescaled when the max grows; while the max is -inf every
 * value so far is -inf or NaN and adds nothing (exp(-inf - -inf) would be NaN) but a NaN. A NaN skips the max and
 * makes the sum NaN, also in a work-item that sees only NaN and -inf (its max stays -inf). */
static void hcl_softmax_online4(float *m, float *s, const float4 v) {
    const float vm = fmax(fmax(v.x, v.y), fmax(v.z, v.w));
    if (vm > *m) {
        *s *= exp(*m - vm);
        *m = vm;
    }
    if (*m != -INFINITY) {
        const float4 e = exp(v - *m);
        *s += (e.x + e.y) + (e.z + e.w);
    } else if (any(isnan(v))) {
        *s = NAN;
    }
}

/* Streamed with chunk 1 (a GPU's coalesced order) when the row is whole vectors of 4: one pass for the
 * max and the sum together (the running sum rescaled as the max grows), a second for the write, each work-item two
 * vectors at a time (H100, NVIDIA's OpenCL, 4096 x 32768 floats: 0.22 of the copy rate with three passes of one
 * element at a time; PoCL on 2 cores: 4.1-6.8 GB/s against 1.8-2.3). */
static void hcl_softmax_streamed4(__global const void *in, __global void *out, ulong row_begin, ulong cols,
                                  __local float *scratch, const int type) {
    const size_t lid = get_local_id(0), lsize = get_local_size(0);
    const size_t n4 = (size_t)cols / 4, v0 = ((size_t)row_begin + get_group_id(0)) * n4; /* the row's first vector */
    float m = -INFINITY, s = 0.0f;
    size_t j = lid;
    for (; j + lsize < n4; j += 2 * lsize) {
        const float4 a = hcl_load4(in, v0 + j, type), b = hcl_load4(in, v0 + j + lsize, type);
        hcl_softmax_online4(&m, &s, a);
        hcl_softmax_online4(&m, &s, b);
    }
    if (j < n4) hcl_softmax_online4(&m, &s, hcl_load4(in, v0 + j, type));
    const float mx = hcl_softmax_fold(scratch, m, 1);
    s = m == -INFINITY ? s : s * exp(m - mx); /* this work-item's sum at the row's max (0 or NaN where m is -inf) */
    const float inv = 1.0f / hcl_softmax_fold(scratch, s, 0);
    for (j = lid; j + lsize < n4; j += 2 * lsize) {
        const float4 a = hcl_load4(in, v0 + j, type), b = hcl_load4(in, v0 + j + lsize, type);
        hcl_store4(out, v0 + j, exp(a - mx) * inv, type);
        hcl_store4(out, v0 + j + lsize, exp(b - mx) * inv, type);
    }
    if (j < n4) hcl_store4(out, v0 + j, exp(hcl_load4(in, v0 + j, type) - mx) * inv, type);
}

/* A whole row of n elements from element x0 by one work-item (a CPU device: a work-group of one work-item a row), in
 * vectors of 8 from any element (hcl_load8_at) and the last n % 8 one by one: the max, then exp(x - max) and its sum,
 * then the scale. exp runs on vectors throughout: a scalar exp is a call that does not vectorise (Intel's OpenCL CPU
 * runtime, 2 cores, a loop of exp over 2^22 floats: 1.9 ns an element, 0.34 on vectors of 4). f32 rows keep exp(x -
 * max) in `out` for the scale (the same float the product would take), so in reads the row twice and out is written
 * twice; 16-bit rows, which must round once, take exp again in the write. 2^23 floats, 2 cores, harness of one kernel:
 * Intel 2026.2 (PoCL 3.1) 9.6 (13.5) GB/s at 32 columns, 19-23 (11-22) at 256-262144, 14 (13) at 257 x 1001, against
 * 3.9 (3.7), 6.2-7.3 (5.8-6.7) and 2.1 (1.3) with the online vectors of 4 or the scalar form. In place works: each
 * element is read before it is written. */
static void hcl_softmax_row1(__global const void *in, __global void *out, const size_t x0, const uint n,
                             const int type) {
    const uint n8 = n / 8 * 8;
    float8 m8 = (float8)(-INFINITY), s8 = (float8)(0.0f);
    for (uint j = 0; j < n8; j += 8) m8 = fmax(m8, hcl_load8_at(in, x0 + j, type));
    const float4 m4 = fmax(m8.lo, m8.hi);
    float m = fmax(fmax(m4.x, m4.y), fmax(m4.z, m4.w)), s = 0.0f;
    for (uint j = n8; j < n; j++) m = fmax(m, hcl_load(in, x0 + j, type));
    const int keep = type == HCL_CL_F32; /* exp(x - max) kept in out for the scale */
    for (uint j = 0; j < n8; j += 8) {
        const float8 e = exp(hcl_load8_at(in, x0 + j, type) - m);
        s8 += e;
        if (keep) hcl_store8_at(out, x0 + j, e, type);
    }
    for (uint j = n8; j < n; j++) {
        const float e = exp(hcl_load(in, x0 + j, type) - m);
        s += e;
        if (keep) hcl_store(out, x0 + j, e, type);
    }
    const float4 s4 = s8.lo + s8.hi;
    const float inv = 1.0f / ((s4.x + s4.y) + (s4.z + s4.w) + s);
    for (uint j = 0; j < n8; j += 8) {
        const float8 e = keep ? hcl_load8_at(out, x0 + j, type) : exp(hcl_load8_at(in, x0 + j, type) - m);
        hcl_store8_at(out, x0 + j, e * inv, type);
    }
    for (uint j = n8; j < n; j++) {
        const float e = keep ? hcl_load(out, x0 + j, type) : exp(hcl_load(in, x0 + j, type) - m);
        hcl_store(out, x0 + j, e * inv, type);
    }
}

/* Streamed: any shape; reads the row three times (hcl_softmax_streamed4 instead with chunk 1 where it can, and
 * hcl_softmax_row1 for a work-group of one work-item). */
static void hcl_softmax_streamed(__global const void *in, __global void *out, ulong row_begin, ulong cols, ulong chunk,
                                 __local float *scratch, const int type) {
    if (get_local_size(0) == 1) { /* the rows to `chunk` (the launch's row end) divided evenly over the groups */
        const size_t per = ((size_t)chunk - row_begin + get_num_groups(0) - 1) / get_num_groups(0);
        const size_t first = (size_t)row_begin + get_group_id(0) * per, end = min(first + per, (size_t)chunk);
        for (size_t row = first; row < end; row++) hcl_softmax_row1(in, out, row * (size_t)cols, (uint)cols, type);
        return;
    }
    if (chunk == 1 && cols % 4 == 0) {
        hcl_softmax_streamed4(in, out, row_begin, cols, scratch, type);
        return;
    }
    const size_t ncols = (size_t)cols, run = (size_t)chunk;
    const size_t lid = get_local_id(0), lsize = get_local_size(0);
    const size_t first = lid * run;
    const size_t step = lsize * run;
    const size_t row = (size_t)row_begin + get_group_id(0);
    const size_t x0 = row * ncols; /* the row's first element in `in` and `out` */

    float m = -INFINITY;
    for (size_t base = first; base < ncols; base += step) {
        const size_t end = min(base + run, ncols);
        for (size_t j = base; j < end; j++) m = fmax(m, hcl_load(in, x0 + j, type));
    }
    m = hcl_softmax_fold(scratch, m, 1);

    float s = 0.0f;
    for (size_t base = first; base < ncols; base += step) {
        const size_t end = min(base + run, ncols);
        for (size_t b0 = base; b0 < end; b0 += HCL_SOFTMAX_BLOCK) {
            const size_t e = min(b0 + HCL_SOFTMAX_BLOCK, end);
            float part = 0.0f;
            for (size_t j = b0; j < e; j++) part += exp(hcl_load(in, x0 + j, type) - m);
            s += part;
        }
    }
    s = hcl_softmax_fold(scratch, s, 0);

    const float inv = 1.0f / s;
    for (size_t base = first; base < ncols; base += step) {
        const size_t end = min(base + run, ncols);
        for (size_t j = base; j < end; j++) hcl_store(out, x0 + j, exp(hcl_load(in, x0 + j, type) - m) * inv, type);
    }
}

#define HCL_SOFTMAX_KERNELS(T, TYPE)                                                                                   \
    __kernel void hcl_softmax_cached_##T(__global const void *in, __global void *out, ulong row_begin, ulong cols,     \
                                         ulong chunk, __local float *scratch) {                                        \
        (void)chunk;                                                                                                   \
        hcl_softmax_cached(in, out, row_begin, cols, scratch, TYPE);                                                   \
    }                                                                                                                  \
    __kernel void hcl_softmax_##T(__global const void *in, __global void *out, ulong row_begin, ulong cols,            \
                                  ulong chunk, __local float *scratch) {                                               \
        hcl_softmax_streamed(in, out, row_begin, cols, chunk, scratch, TYPE);                                          \
    }                                                                                                                  \
    /* rows of whole vectors of 4 up to local size * HCL_SOFTMAX_CACHE_MAX columns, held in registers */               \
    __kernel void hcl_softmax_cached64_##T(__global const void *in, __global void *out, ulong row_begin, ulong cols,   \
                                           ulong chunk, __local float *scratch) {                                      \
        (void)chunk;                                                                                                   \
        hcl_softmax_cached_row(in, out, row_begin, cols, scratch, TYPE, HCL_SOFTMAX_CACHE_MAX / 4,                     \
                               HCL_SOFTMAX_FOLD_GROUP);                                                                \
    }                                                                                                                  \
    __kernel void hcl_softmax_rows_##T(__global const void *in, __global void *out, ulong row_begin, ulong cols,       \
                                       ulong row_end, __local float *scratch) {                                        \
        hcl_softmax_rows(in, out, row_begin, row_end, cols, scratch, TYPE, HCL_SOFTMAX_CACHE / 4);                     \
    }                                                                                                                  \
    __kernel void hcl_softmax_rows8_##T(__global const void *in, __global void *out, ulong row_begin, ulong cols,      \
                                        ulong row_end, __local float *scratch) {                                       \
        hcl_softmax_rows(in, out, row_begin, row_end, cols, scratch, TYPE, 2);                                         \
    }

HCL_SOFTMAX_KERNELS(f32, HCL_CL_F32)
HCL_SOFTMAX_KERNELS(f16, HCL_CL_F16)
HCL_SOFTMAX_KERNELS(bf16, HCL_CL_BF16)

/* Rows of whole vectors of 4 too long for one group (16-bit rows: of whole vectors of 8): `parts` groups a row, each up
 * to local size * 4 * HCL_SOFTMAX_PARTS_V columns (16-bit: 8 * HCL_SOFTMAX_PARTS_V). */
__kernel void hcl_softmax_parts_f32(__global const void *in, __global void *out, ulong row_begin, ulong cols,
                                    ulong parts, __global volatile uint *ws, __local float *scratch) {
    hcl_softmax_parts(in, out, row_begin, cols, parts, ws, scratch, HCL_CL_F32);
}
__kernel void hcl_softmax_parts_f16(__global const void *in, __global void *out, ulong row_begin, ulong cols,
                                    ulong parts, __global volatile uint *ws, __local float *scratch) {
    hcl_softmax_parts(in, out, row_begin, cols, parts, ws, scratch, HCL_CL_F16);
}
__kernel void hcl_softmax_parts_bf16(__global const void *in, __global void *out, ulong row_begin, ulong cols,
                                     ulong parts, __global volatile uint *ws, __local float *scratch) {
    hcl_softmax_parts(in, out, row_begin, cols, parts, ws, scratch, HCL_CL_BF16);
}
