/* softmax (OpenCL C 1.2): row-wise, numerically stable: out[r][j] = exp(in[r][j] - max_r) / sum_j exp(...).
 *
 * One work-group per row (groups stride over rows when there are more rows than groups). Three passes over the
 * row: the maximum, the sum of exp(x - max), then the write; each pass combines the work-items' partial results
 * with a tree in local memory (`scratch`: one float per work-item; the work-group size is a power of two).
 * Work-item `lid` takes runs of `chunk` consecutive columns starting at lid * chunk, every
 * local_size * chunk columns: chunk = 1 is the coalesced order a GPU wants; a CPU gets long contiguous runs.
 * The sum is taken in blocks of HCL_SOFTMAX_BLOCK so a long run does not become a long chain of additions.
 * -inf entries give exp(-inf) = 0. A row of all -inf has max -inf, so x - max is NaN and the row is NaN, as in
 * PyTorch. A NaN in a row makes that row NaN (fmax skips it in the max, but the sum takes it).
 * In place works: every element is read and written by the same work-item, and the last pass starts after the
 * barriers that end the second. */

#define HCL_SOFTMAX_BLOCK 256

static float hcl_softmax_tree(__local float *scratch, float v, int is_max) {
    const size_t lid = get_local_id(0);
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s) {
            float o = scratch[lid + s];
            scratch[lid] = is_max ? fmax(scratch[lid], o) : scratch[lid] + o;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float r = scratch[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* scratch is reused by the next tree */
    return r;
}

__kernel void hcl_softmax_f32(__global const float *in, __global float *out, ulong rows, ulong cols, ulong chunk,
                              __local float *scratch) {
    const size_t ncols = (size_t)cols, run = (size_t)chunk;
    const size_t first = get_local_id(0) * run;
    const size_t step = get_local_size(0) * run;
    for (size_t row = get_group_id(0); row < (size_t)rows; row += get_num_groups(0)) {
        __global const float *x = in + row * ncols;
        __global float *y = out + row * ncols;

        float m = -INFINITY;
        for (size_t base = first; base < ncols; base += step) {
            const size_t end = min(base + run, ncols);
            for (size_t j = base; j < end; j++) m = fmax(m, x[j]);
        }
        m = hcl_softmax_tree(scratch, m, 1);

        float s = 0.0f;
        for (size_t base = first; base < ncols; base += step) {
            const size_t end = min(base + run, ncols);
            for (size_t b0 = base; b0 < end; b0 += HCL_SOFTMAX_BLOCK) {
                const size_t e = min(b0 + HCL_SOFTMAX_BLOCK, end);
                float part = 0.0f;
                for (size_t j = b0; j < e; j++) part += exp(x[j] - m);
                s += part;
            }
        }
        s = hcl_softmax_tree(scratch, s, 0);

        const float inv = 1.0f / s;
        for (size_t base = first; base < ncols; base += step) {
            const size_t end = min(base + run, ncols);
            for (size_t j = base; j < end; j++) y[j] = exp(x[j] - m) * inv;
        }
    }
}
