/* The collective cases of hcl-comm-nccl-test: inputs, buffers, the calls, and the float64 reference.
 *
 * Inputs are a function of (seed, rank, index), so no rank's data is kept on the host: each element is made again
 * when the reference needs it. Every value is exact in the case's type (an integer of the type's significand bits
 * times a power of two), in (-2, 2), or for products +-[0.5, 2) so that a product of the ranks neither overflows nor
 * leaves the normal range. Tolerances: copies (broadcast, all-gather, send/recv) and max / min are exact; a sum of n
 * ranks is within (n - 1) u sum|x| of the exact sum and a product within (n - 1) u |prod| (first order, times 1.01),
 * u the unit roundoff of the type (2^-24, 2^-11, 2^-8): NCCL adds the ranks one at a time and rounds each partial
 * result to the type. An element read from the wrong place or a rank left out errs by about |x|, far above that.
 * Outputs are poisoned first (a NaN with a payload no arithmetic makes), so an element never written fails. */
#include "comm_nccl_test.h"

#include "hcl_testsupport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)1 << 20) /* elements uploaded, read back and compared at a time */

const char *ct_kind_name(ct_kind kind) {
    static const char *const names[] = {"all_reduce", "reduce",         "broadcast",
                                        "all_gather", "reduce_scatter", "send_recv"};
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "?";
}

const char *ct_op_name(hcl_comm_op op) {
    static const char *const names[] = {"sum", "prod", "max", "min"};
    return (unsigned)op < HCL_COMM_OP_COUNT ? names[op] : "?";
}

static int reduces(ct_kind kind) { return kind == CT_ALL_REDUCE || kind == CT_REDUCE || kind == CT_REDUCE_SCATTER; }

void ct_case_name(const ct_case *k, char *buf, size_t size) {
    char root[24] = "";
    if (k->kind == CT_REDUCE || k->kind == CT_BROADCAST) snprintf(root, sizeof root, " root=%u", k->root);
    snprintf(buf, size, "%s %s%s%s count=%zu%s%s", ct_kind_name(k->kind), hcl_dtype_name(k->type),
             reduces(k->kind) ? " " : "", reduces(k->kind) ? ct_op_name(k->op) : "", k->count, root,
             k->in_place ? " in-place" : "");
}

/* ---- inputs and the reference ---- */

static int significand_bits(hcl_dtype type) { return type == HCL_DTYPE_F16 ? 11 : type == HCL_DTYPE_BF16 ? 8 : 24; }

/* Rank r's input element i. */
static float input(const ct_case *k, uint32_t r, size_t i) {
    uint64_t state = k->seed ^ ((uint64_t)r << 52) ^ ((uint64_t)i * 0xD1B54A32D192ED03ull);
    const uint64_t h = hcl_ts_splitmix64(&state);
    const int m = significand_bits(k->type);
    const double step = m == 24 ? 0x1p-23 : m == 11 ? 0x1p-10 : 0x1p-7; /* 2^(1-m) */
    double v;
    if (reduces(k->kind) && k->op == HCL_COMM_PROD) { /* +-[0.5, 1) or +-[1, 2), m significant bits */
        const double mant = (double)((1ull << (m - 1)) + (h & ((1ull << (m - 1)) - 1)));
        v = mant * ((h >> 40 & 1) ? step : 0.5 * step);
        if (h >> 63) v = -v;
    } else { /* (-2, 2) in steps of 2^(1-m) */
        const int64_t j = (int64_t)(h & ((1ull << (m + 1)) - 1)) - ((int64_t)1 << m);
        v = (double)j * step;
    }
    return (float)v;
}

/* The reference and tolerance of rank r's output element i. */
static void expect(const ct_case *k, uint32_t n, uint32_t r, size_t i, double *ref, double *tol) {
    const size_t c = k->count;
    *tol = 0;
    switch (k->kind) {
    case CT_BROADCAST: *ref = input(k, k->root, i); return;
    case CT_ALL_GATHER: *ref = input(k, (uint32_t)(i / c), i % c); return;
    case CT_SEND_RECV: *ref = input(k, (r + n - 1) % n, i); return;
    case CT_ALL_REDUCE:
    case CT_REDUCE:
    case CT_REDUCE_SCATTER: break;
    }
    const size_t at = k->kind == CT_REDUCE_SCATTER ? (size_t)r * c + i : i;
    double acc = input(k, 0, at), mag = fabs(acc);
    for (uint32_t q = 1; q < n; q++) {
        const double v = input(k, q, at);
        switch (k->op) {
        case HCL_COMM_SUM: acc += v, mag += fabs(v); break;
        case HCL_COMM_PROD: acc *= v; break;
        case HCL_COMM_MAX: acc = v > acc ? v : acc; break;
        case HCL_COMM_MIN: acc = v < acc ? v : acc; break;
        }
    }
    *ref = acc;
    const double u = hcl_ts_unit_roundoff(k->type);
    if (k->op == HCL_COMM_SUM) *tol = 1.01 * (n - 1) * u * mag;
    if (k->op == HCL_COMM_PROD) *tol = 1.01 * ((n - 1) * u + n * 0x1p-52) * fabs(acc);
}

/* ---- buffers ---- */

static uint16_t poison16(hcl_dtype type) { return type == HCL_DTYPE_F16 ? 0x7e5d : 0x7fde; } /* NaNs */

static int fail_text(char *why, size_t size, hcl_status st, const char *what) {
    snprintf(why, size, "%s: %s: %s", what, hcl_status_name(st), hcl_last_message());
    return 1;
}

/* Elements of rank r's send and recv buffers, and whether the rank passes each. */
static void sizes(const ct_case *k, uint32_t n, uint32_t r, size_t *send, size_t *recv, int *has_send, int *has_recv) {
    const size_t c = k->count;
    *send = *recv = c;
    *has_send = *has_recv = 1;
    switch (k->kind) {
    case CT_REDUCE: *has_recv = r == k->root || r % 2; break; /* odd ranks off the root: a buffer left untouched */
    case CT_BROADCAST: *has_send = r == k->root; break;
    case CT_ALL_GATHER: *recv = n * c; break;
    case CT_REDUCE_SCATTER: *send = n * c; break;
    default: break;
    }
}

static hcl_status make(hcl_device dev, size_t elems, hcl_dtype type, hcl_buffer *out) {
    const size_t bytes = (elems ? elems : 1) * hcl_dtype_size(type); /* count 0: a buffer of one element */
    return hcl_buffer_create(dev, bytes, 0, out);
}

static hcl_status upload(const ct_case *k, uint32_t r, hcl_queue q, hcl_buffer b, size_t elems) {
    const size_t esize = hcl_dtype_size(k->type);
    float *f = malloc(CHUNK * sizeof *f);
    void *raw = malloc(CHUNK * esize);
    hcl_status st = f && raw ? HCL_SUCCESS : HCL_ERROR_OUT_OF_MEMORY;
    for (size_t at = 0; at < elems && st == HCL_SUCCESS; at += CHUNK) {
        const size_t m = elems - at < CHUNK ? elems - at : CHUNK;
        for (size_t i = 0; i < m; i++) f[i] = input(k, r, at + i);
        if ((st = hcl_convert(k->type, raw, HCL_DTYPE_F32, f, m)) == HCL_SUCCESS)
            st = hcl_buffer_write(q, b, at * esize, m * esize, raw);
    }
    free(f);
    free(raw);
    return st;
}

static hcl_status poison(const ct_case *k, hcl_queue q, hcl_buffer b, size_t elems) {
    const size_t esize = hcl_dtype_size(k->type), bytes = (elems ? elems : 1) * esize;
    const uint32_t p32 = HCL_TS_POISON_BITS;
    const uint16_t p16 = poison16(k->type);
    return hcl_buffer_fill(q, b, 0, bytes, esize == 4 ? (const void *)&p32 : (const void *)&p16, esize);
}

int ct_prepare(const ct_case *k, uint32_t n, uint32_t r, hcl_device dev, hcl_queue q, ct_bufs *out, char *why,
               size_t why_size) {
    memset(out, 0, sizeof *out);
    size_t send, recv;
    int has_send, has_recv;
    sizes(k, n, r, &send, &recv, &has_send, &has_recv);
    const int in_place = k->in_place && (k->kind == CT_ALL_REDUCE || r == k->root);
    hcl_status st = HCL_SUCCESS;
    if (has_send) {
        if ((st = make(dev, send, k->type, &out->send)) != HCL_SUCCESS) goto fail;
        if ((st = upload(k, r, q, out->send, send)) != HCL_SUCCESS) goto fail;
    }
    if (in_place) {
        out->recv = out->send;
    } else if (has_recv) {
        if ((st = make(dev, recv, k->type, &out->recv)) != HCL_SUCCESS) goto fail;
        if ((st = poison(k, q, out->recv, recv)) != HCL_SUCCESS) goto fail;
    }
    return 0;
fail:
    ct_release(out);
    return fail_text(why, why_size, st, "preparing the buffers");
}

void ct_release(ct_bufs *b) {
    if (b->recv && b->recv != b->send) hcl_buffer_release(b->recv);
    if (b->send) hcl_buffer_release(b->send);
    memset(b, 0, sizeof *b);
}

/* ---- the calls ---- */

hcl_status ct_issue(const ct_case *k, uint32_t n, uint32_t r, hcl_comm comm, hcl_queue q, const ct_bufs *b,
                    int grouped) {
    const size_t c = k->count;
    hcl_status st = HCL_SUCCESS, end;
    switch (k->kind) {
    case CT_ALL_REDUCE: return hcl_comm_all_reduce(comm, q, k->type, k->op, c, b->send, b->recv, 0, NULL, NULL);
    case CT_REDUCE: return hcl_comm_reduce(comm, q, k->type, k->op, k->root, c, b->send, b->recv, 0, NULL, NULL);
    case CT_BROADCAST: return hcl_comm_broadcast(comm, q, k->type, k->root, c, b->send, b->recv, 0, NULL, NULL);
    case CT_ALL_GATHER: return hcl_comm_all_gather(comm, q, k->type, c, b->send, b->recv, 0, NULL, NULL);
    case CT_REDUCE_SCATTER: return hcl_comm_reduce_scatter(comm, q, k->type, k->op, c, b->send, b->recv, 0, NULL, NULL);
    case CT_SEND_RECV:
        if (!grouped && (st = hcl_comm_group_start()) != HCL_SUCCESS) return st;
        st = hcl_comm_send(comm, q, k->type, c, b->send, (r + 1) % n, 0, NULL, NULL);
        if (st == HCL_SUCCESS) st = hcl_comm_recv(comm, q, k->type, c, b->recv, (r + n - 1) % n, 0, NULL, NULL);
        end = grouped ? HCL_SUCCESS : hcl_comm_group_end();
        return st != HCL_SUCCESS ? st : end;
    }
    return HCL_ERROR_INVALID_ARGUMENT;
}

/* ---- checking ---- */

static int check_untouched(const ct_case *k, hcl_queue q, hcl_buffer b, size_t elems, char *why, size_t why_size) {
    const size_t esize = hcl_dtype_size(k->type), bytes = (elems ? elems : 1) * esize;
    unsigned char *raw = malloc(bytes);
    if (!raw) return snprintf(why, why_size, "out of host memory"), 1;
    hcl_status st = hcl_buffer_read(q, b, 0, bytes, raw);
    size_t bad = 0, first = 0;
    const uint32_t p32 = HCL_TS_POISON_BITS;
    const uint16_t p16 = poison16(k->type);
    for (size_t i = 0; st == HCL_SUCCESS && i * esize < bytes; i++)
        if (memcmp(raw + i * esize, esize == 4 ? (const void *)&p32 : (const void *)&p16, esize) != 0 && !bad++)
            first = i;
    free(raw);
    if (st != HCL_SUCCESS) return fail_text(why, why_size, st, "reading recv back");
    if (bad) snprintf(why, why_size, "recv off the root was written: %zu elements, the first at %zu", bad, first);
    return bad != 0;
}

int ct_verify(const ct_case *k, uint32_t n, uint32_t r, hcl_queue q, const ct_bufs *b, char *why, size_t why_size) {
    size_t send, recv;
    int has_send, has_recv;
    sizes(k, n, r, &send, &recv, &has_send, &has_recv);
    why[0] = '\0';
    if (k->kind == CT_REDUCE && r != k->root) return b->recv ? check_untouched(k, q, b->recv, recv, why, why_size) : 0;
    if (recv == 0) /* count 0: nothing may be written */
        return b->recv == b->send ? 0 : check_untouched(k, q, b->recv, 0, why, why_size);
    const size_t esize = hcl_dtype_size(k->type);
    void *raw = malloc(CHUNK * esize);
    float *got = malloc(CHUNK * sizeof *got);
    double *ref = malloc(CHUNK * sizeof *ref), *tol = malloc(CHUNK * sizeof *tol);
    hcl_ts_cmp cmp;
    hcl_ts_cmp_init(&cmp);
    hcl_status st = raw && got && ref && tol ? HCL_SUCCESS : HCL_ERROR_OUT_OF_MEMORY;
    for (size_t at = 0; at < recv && st == HCL_SUCCESS; at += CHUNK) {
        const size_t m = recv - at < CHUNK ? recv - at : CHUNK;
        if ((st = hcl_buffer_read(q, b->recv, at * esize, m * esize, raw)) != HCL_SUCCESS) break;
        if ((st = hcl_convert(HCL_DTYPE_F32, got, k->type, raw, m)) != HCL_SUCCESS) break; /* f32: a copy */
        for (size_t i = 0; i < m; i++) expect(k, n, r, at + i, &ref[i], &tol[i]);
        hcl_ts_compare(&cmp, got, ref, tol, 1.0, m);
    }
    free(raw);
    free(got);
    free(ref);
    free(tol);
    if (st != HCL_SUCCESS) return fail_text(why, why_size, st, "reading recv back");
    if (cmp.bad == 0) return 0;
    char text[1024];
    snprintf(why, why_size, "rank %u: %s", r, hcl_ts_cmp_text(&cmp, text, sizeof text));
    return 1;
}

/* ---- the list ---- */

size_t ct_large_count(uint32_t n) { return n <= 2 ? (size_t)1 << 28 : ((size_t)1 << 29) / n; }

double ct_bus_bytes(const ct_case *k, uint32_t n) {
    const double bytes = (double)k->count * (double)hcl_dtype_size(k->type);
    switch (k->kind) { /* nccl-tests' bus bandwidth factors, on the bytes of one rank's count */
    case CT_ALL_REDUCE: return bytes * 2.0 * (n - 1) / n;
    case CT_ALL_GATHER:
    case CT_REDUCE_SCATTER: return bytes * (n - 1); /* (n - 1) / n of n * count */
    default: return bytes;
    }
}

size_t ct_cases(uint32_t n, uint64_t seed, int quick, ct_case *out, size_t max) {
    static const ct_kind kinds[] = {CT_ALL_REDUCE, CT_REDUCE,         CT_BROADCAST,
                                    CT_ALL_GATHER, CT_REDUCE_SCATTER, CT_SEND_RECV};
    const size_t counts[] = {0, 1, 1009, ((size_t)1 << 20) + 3, ct_large_count(n)};
    const size_t count_n = quick ? 4 : 5;
    size_t used = 0;
    for (size_t ci = 0; ci < count_n; ci++)
        for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++)
            for (int ti = 0; ti < HCL_DTYPE_COUNT; ti++) /* every hcl_dtype */
                for (uint32_t op = 0; op < (reduces(kinds[ki]) ? HCL_COMM_OP_COUNT : 1); op++)
                    for (int in_place = 0; in_place < 2; in_place++) {
                        const ct_kind kind = kinds[ki];
                        const int large = ci == 4;
                        if (large && op != HCL_COMM_SUM) continue; /* the large count: sum only */
                        if (in_place && (large || ci == 0 || ci == 3 || kind == CT_ALL_GATHER ||
                                         kind == CT_REDUCE_SCATTER || kind == CT_SEND_RECV))
                            continue; /* the in-place forms at counts 1 and 1009 */
                        if (used == max) return used;
                        ct_case *k = &out[used++];
                        memset(k, 0, sizeof *k);
                        k->kind = kind;
                        k->type = (hcl_dtype)ti;
                        k->op = (hcl_comm_op)op;
                        k->count = counts[ci];
                        k->root = (uint32_t)(used % n); /* roots vary across cases */
                        k->in_place = in_place;
                        k->seed = seed + 0x9E3779B97F4A7C15ull * used;
                    }
    return used;
}
