// gemm for a C of few rows (at most 16; or few columns, on swapped operands) in one dispatch (Vulkan GLSL,
// kernels/hcl_vk_types.glsl): hcl_gemm_gemv_<n|t><MR>_<type>[_f32]. The decode shapes, where the whole cost is reading
// the large operand once. The plan (kernels/plan_vk.c, vk_gemv_launches) states the product as
//     out(r, j) = sum_p X(r, p) W(p, j),  r < rows <= MR, j < cols, p < k
// with X the small operand (binding 0: X(r, p) = x[r * x_r + p * x_p], op(A), or op(B)^T on swapped operands) and W
// the large one (binding 1: op(B), or op(A)^T), stored along the columns (n: W(p, j) = w[p * ldw + j], B row-major) or
// along k (-DGV_T: w[j * ldw + p], PyTorch's W[n][k]); out(r, j) is C[r * c_r + j * c_j] = alpha out + beta C (C not
// read where beta is 0). Binding 3 is the scratch (zeroed, left zeroed) where the launch has slices of k, else C again
// (never touched). MR (1, 2, 4, 8, 16, -DGV_MR) is the rows a work-group computes at once, rows from `rows` on zeros.
//
// Work-group (x, y): GC consecutive columns of out (x) and slice y of k ([y kslice, min(k, (y + 1) kslice)), kslice a
// multiple of 64). 256 work-items. X's rows go through shared memory (as float) in chunks of XS / MR values of k; W is
// read from global memory in words of WE elements (16 bytes: a uvec4; 8 bytes for 16-bit at MR 16, which keeps the
// accumulators at 64 a work-item), several independent words in flight a work-item (unrolled), products and sums in
// float:
//  - n: 8 rows of 32 work-items; a row's work-items read consecutive words of one row of W (512 bytes), the 8 rows
//    every 8th value of k. GC = 32 WE columns.
//  - t: 8 sets of 32 work-items, each set CT = 4 columns; a set's work-items read consecutive 16-byte words along k
//    of each of its columns (512 bytes a column). GC = 32 columns.
// At the end of the slice a work-item's partial sums meet in shared memory, each column's added in a fixed order by
// one work-item. With one slice the group writes C; with more it writes its slice's partials to the scratch and takes
// a ticket on its columns (gemm_splitk.comp's pattern), and the last group to arrive adds the slices' partials in slice
// order (the loads of 8 slices issued before they are added), writes C and puts the partials and the ticket back to 0.
// Every element's sum has one order whatever the timing.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hcl_vk_types.glsl"

#define MR GV_MR
#define NT 256  // work-items a group
#define XS 4096 // floats of X in shared memory: MR rows x KC values of k
#define KC (XS / MR)
#ifdef GV_T
#define WE HCL_VN // elements a word of W
#define CT 4      // columns a work-item
#define GC 32     // columns a group: 8 sets of CT
#define NPART 32  // partial sums a column at the end of a slice: a set's work-items
#define U 2       // words of each column a work-item has in flight
#else
#if MR * HCL_VN > 64
#define WE (HCL_VN / 2)
#else
#define WE HCL_VN
#endif
#define GC (32 * WE)
#define NPART 8
#if MR <= 4
#define U 4
#else
#define U 2
#endif
#endif

layout(std430, set = 0, binding = 0) readonly buffer X { T x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { T w[]; };
#if WE * 2 == HCL_VN
#define WORD uvec2
#else
#define WORD uvec4
#endif
layout(std430, set = 0, binding = 1) readonly buffer Ww { WORD ww[]; };
#ifdef HCL_C_F32
layout(std430, set = 0, binding = 2) buffer C { float c[]; };
#define CLOAD(v) (v)
#define CSTORE(v) (v)
#else
layout(std430, set = 0, binding = 2) buffer C { T c[]; };
#define CLOAD(v) LOAD(v)
#define CSTORE(v) STORE(v)
#endif
// a ticket a group of columns, then its slices' partials: word[tiles + (tile * slices + y) * MR * GC + r * GC + col];
// coherent, so that the last group reads what the others wrote
layout(std430, set = 0, binding = 3) coherent buffer Scratch { uint word[]; };
layout(push_constant) uniform P {
    uint rows, cols, k, kslice, x_r, x_p, ldw, c_r, c_j;
    float alpha, beta;
} p;

// X's chunk: n, element (r, q) at q * MR + r (a value of k for every row at once); t, at r * KC + q (a word's run of k)
shared vec4 xs[XS / 4];
shared float red[NPART * (GC + 1)]; // the partial sums at the end of a slice, a column's NPART a row of GC + 1
shared bool last;                   // this work-group took its columns' last ticket

float xs_at(uint i) { return xs[i >> 2][i & 3u]; }

// a word of W (word index i) as WE floats
void unpack_word(WORD v, out float f[WE]) {
#if WE == HCL_VN
    hcl_unpack(v, f);
#else
    const vec2 a = hcl_unpack2(v.x), b = hcl_unpack2(v.y);
    f[0] = a.x, f[1] = a.y, f[2] = b.x, f[3] = b.y;
#endif
}

// elements (o, i .. i + WE - 1) of W as stored (w[o * ldw + i]), zero from ilim on: one word where `vec` (the leading
// dimension a multiple of WE; i is) and the word is inside
void load_w(uint o, uint i, uint ilim, bool vec, out float f[WE]) {
    const uint at = o * p.ldw + i;
    if (vec && i + WE <= ilim) {
        unpack_word(ww[at / WE], f);
        return;
    }
    for (int e = 0; e < WE; e++) f[e] = i + uint(e) < ilim ? LOAD(w[at + uint(e)]) : 0.0;
}

// Stage X(r, kc + q) for r < MR, q < fill into xs (zero for r >= rows or q >= len), consecutive work-items along X's
// storage order.
void stage_x(uint lid, uint kc, uint len, uint fill) {
    const bool along_k = p.x_p == 1u;
    for (uint t = lid; t < MR * fill; t += NT) {
        const uint r = along_k ? t / fill : t % MR, q = along_k ? t % fill : t / MR;
        const float v = r < p.rows && q < len ? LOAD(x[r * p.x_r + (kc + q) * p.x_p]) : 0.0;
#ifdef GV_T
        const uint at = r * KC + q;
#else
        const uint at = q * MR + r;
#endif
        xs[at >> 2][at & 3u] = v;
    }
}

// alpha * v + beta * out(r, j) into out(r, j), C not read where beta is 0
void put(uint r, uint j, float v) {
    const uint at = r * p.c_r + j * p.c_j;
    v *= p.alpha;
    if (p.beta != 0.0) v = fma(p.beta, CLOAD(c[at]), v);
    c[at] = CSTORE(v);
}

#ifndef GV_T
// acc[r][e] += X(r, q) f[e]: X's MR values at q in vec4 reads of shared memory where MR allows
void fma_n(inout float acc[MR][WE], uint q, float f[WE]) {
    float a[MR];
#if MR >= 4
    for (int h = 0; h < MR / 4; h++) {
        const vec4 v = xs[q * (MR / 4) + uint(h)];
        a[4 * h] = v.x, a[4 * h + 1] = v.y, a[4 * h + 2] = v.z, a[4 * h + 3] = v.w;
    }
#else
    for (int r = 0; r < MR; r++) a[r] = xs_at(q * MR + uint(r));
#endif
    for (int r = 0; r < MR; r++)
        for (int e = 0; e < WE; e++) acc[r][e] = fma(a[r], f[e], acc[r][e]);
}
#else
// acc[r][c] += sum_e X(r, q + e) f[c][e]: X's run of WE values of row r in vec4 reads of shared memory
void fma_t(inout float acc[MR][CT], uint q, float f[CT][WE]) {
    for (int r = 0; r < MR; r++) {
        float a[WE];
        for (int h = 0; h < WE / 4; h++) {
            const vec4 v = xs[(uint(r) * KC + q) / 4u + uint(h)];
            a[4 * h] = v.x, a[4 * h + 1] = v.y, a[4 * h + 2] = v.z, a[4 * h + 3] = v.w;
        }
        for (int cc = 0; cc < CT; cc++)
            for (int e = 0; e < WE; e++) acc[r][cc] = fma(a[e], f[cc][e], acc[r][cc]);
    }
}
#endif

void main() {
    const uint lid = gl_LocalInvocationID.x;
    const uint col0 = gl_WorkGroupID.x * GC, slices = gl_NumWorkGroups.y, y = gl_WorkGroupID.y;
    const uint kbeg = min(p.k, y * p.kslice), klen = min(p.kslice, p.k - kbeg);
    const bool vec = p.ldw % WE == 0u;
#ifdef GV_T
    const uint lane = lid % 32u, cs = lid / 32u;
    // the set's columns, those past cols read as the last one (in bounds) and never written
    uint o[CT];
    for (int cc = 0; cc < CT; cc++) o[cc] = min(col0 + cs * CT + uint(cc), p.cols - 1u);
    float acc[MR][CT];
    for (int r = 0; r < MR; r++)
        for (int cc = 0; cc < CT; cc++) acc[r][cc] = 0.0;
#else
    const uint kr = lid / 32u, j0 = col0 + lid % 32u * WE;
    const bool full = vec && j0 + WE <= p.cols; // every word of this work-item's columns is one read
    float acc[MR][WE];
    for (int r = 0; r < MR; r++)
        for (int e = 0; e < WE; e++) acc[r][e] = 0.0;
#endif
    for (uint done = 0u; done < klen; done += KC) {
        const uint kc = kbeg + done, len = min(KC, klen - done);
        barrier(); // the previous chunk's X is read
        stage_x(lid, kc, len, min(KC, (len + 7u) & ~7u));
        barrier();
#ifdef GV_T
        // words along k: this work-item's are lane, lane + 32, ...; whole words first, U of each column in flight
        const uint whole = vec ? len / WE : 0u, words = (len + WE - 1u) / WE;
        uint q = lane;
        for (; q + 32u * (U - 1) < whole; q += 32u * U) {
            WORD v[U][CT];
            for (int u = 0; u < U; u++)
                for (int cc = 0; cc < CT; cc++) v[u][cc] = ww[(o[cc] * p.ldw + kc + (q + 32u * uint(u)) * WE) / WE];
            for (int u = 0; u < U; u++) {
                float f[CT][WE];
                for (int cc = 0; cc < CT; cc++) unpack_word(v[u][cc], f[cc]);
                fma_t(acc, (q + 32u * uint(u)) * WE, f);
            }
        }
        for (; q < words; q += 32u) {
            float f[CT][WE];
            for (int cc = 0; cc < CT; cc++) load_w(o[cc], kc + q * WE, kc + len, vec, f[cc]);
            fma_t(acc, q * WE, f);
        }
#else
        // values of k: this work-item's are kr, kr + 8, ...; U words in flight where its columns are whole words
        uint q = kr;
        if (full)
            for (; q + 8u * (U - 1) < len; q += 8u * U) {
                WORD v[U];
                for (int u = 0; u < U; u++) v[u] = ww[((kc + q + 8u * uint(u)) * p.ldw + j0) / WE];
                for (int u = 0; u < U; u++) {
                    float f[WE];
                    unpack_word(v[u], f);
                    fma_n(acc, q + 8u * uint(u), f);
                }
            }
        for (; q < len; q += 8u) {
            float f[WE];
            load_w(kc + q, j0, p.cols, vec, f);
            fma_n(acc, q, f);
        }
#endif
    }
    // the partial sums of each column meet in shared memory, row by row; a work-item a column adds them in order
    const uint tiles = gl_NumWorkGroups.x, tile = gl_WorkGroupID.x;
    const uint base = tiles + (tile * slices + y) * (MR * GC); // this slice's partials (words)
    const uint rows = min(p.rows, uint(MR));
    for (int r = 0; r < MR; r++) {
        if (uint(r) >= rows) break;
#ifdef GV_T
        for (int cc = 0; cc < CT; cc++) red[lane * (GC + 1) + cs * CT + uint(cc)] = acc[r][cc];
#else
        for (int e = 0; e < WE; e++) red[kr * (GC + 1) + lid % 32u * WE + uint(e)] = acc[r][e];
#endif
        barrier();
        if (lid < GC && col0 + lid < p.cols) {
            float v = 0.0;
            for (uint part = 0u; part < NPART; part++) v += red[part * (GC + 1) + lid];
            if (slices == 1u)
                put(uint(r), col0 + lid, v);
            else
                word[base + uint(r) * GC + lid] = floatBitsToUint(v);
        }
        barrier();
    }
    if (slices == 1u) return;
    memoryBarrierBuffer(); // the partials are visible before the ticket is taken
    barrier();
    if (lid == 0u) last = atomicAdd(word[tile], 1u) == slices - 1u;
    barrier();
    if (!last) return; // the whole work-group leaves or stays
    memoryBarrierBuffer();
    // the columns' elements spread over the work-items; 8 slices' partials loaded at once, then added in slice order;
    // elements past rows or cols were never written (they stay 0)
    const uint first = tiles + tile * slices * (MR * GC);
    for (uint e = lid; e < rows * GC; e += NT) {
        const uint r = e / GC, j = col0 + e % GC;
        if (j >= p.cols) continue;
        float v = 0.0;
        for (uint z0 = 0u; z0 < slices; z0 += 8u) {
            float t[8];
            for (uint d = 0u; d < 8u; d++)
                t[d] = z0 + d < slices ? uintBitsToFloat(word[first + (z0 + d) * (MR * GC) + e]) : 0.0;
            for (uint d = 0u; d < 8u; d++)
                if (z0 + d < slices) {
                    v += t[d];
                    word[first + (z0 + d) * (MR * GC) + e] = 0u;
                }
        }
        put(r, j, v);
    }
    if (lid == 0u) word[tile] = 0u;
}
