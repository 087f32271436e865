/* bench --comm: the communication benchmark, in the style of nccl-tests (see comm_lib.h for the files and the timing).
 *
 * Sections, each row verified (a failed check is marked FAILED and makes the exit status 1; a row that cannot run
 * here, such as an engine that is absent, is printed as skipped with the reason):
 *   1. host <-> device bandwidth of the selected device: sections.c's transfer rows at 4 KiB .. --comm-max-bytes;
 *   2. peer copies between every ordered pair of the backend's devices (--comm-cross: of every backend's), direct
 *      or staged as hcl_device_peer_access says, with cuMemcpyPeerAsync as the baseline on CUDA pairs;
 *   3. the collectives (comm_coll.c), with NCCL called directly as the baseline on CUDA devices. */
#define _POSIX_C_SOURCE 200809L

#include "comm.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char comm_usage[] =
    "Communication (bench-comm, or bench --comm: the same; instead of the kernels; nccl-tests style, every row\n"
    "verified):\n"
    "  --comm              1. host<->device bandwidth of the selected device (H2D, D2H from pageable and\n"
    "                      page-locked memory, 4 KiB up by 4x); 2. peer copies between every ordered pair of\n"
    "                      the backend's devices (direct or staged; cuMemcpyPeerAsync beside CUDA pairs);\n"
    "                      3. all_reduce (sum), all_gather, reduce_scatter, broadcast, reduce (root 0) and\n"
    "                      sendrecv (ring) over every device of the backend in this process, with NCCL called\n"
    "                      directly on the same buffers as the baseline on CUDA devices (libnccl.so.2)\n"
    "  --comm-min-bytes N  the smallest collective (default 8); sizes go up by factors of 2\n"
    "  --comm-max-bytes N  the largest collective, transfer and peer copy (default 1G; 1M with --quick)\n"
    "  --comm-iters N      iterations per timed group (default 20; 5 with --quick); a row is the median group's\n"
    "                      time per iteration (host wall-clock, the group ended by finishing every rank's queue),\n"
    "                      of --repeats groups after --warmup single iterations (without --repeats: more\n"
    "                      groups, up to 201, where they fill less than about 0.3 s; fewer past 3 s)\n"
    "  --comm-engine NAME  the communicator's engine (nccl, rccl, mpi, staged; default: hcl_comm_create_all's)\n"
    "  --comm-ops LIST     comma list of all_reduce, all_gather, reduce_scatter, broadcast, reduce, sendrecv, or\n"
    "                      all (default: all)\n"
    "  --comm-cross        peer copies also between devices of different backends\n"
    "  --comm-devices LIST the ranks: these devices in this order (comma list of selectors, any backends mixed,\n"
    "                      e.g. cuda:0,opencl:1); section 1 then measures every one's link, and section 4\n"
    "                      times the slowest link's H2D and D2H at once, then every rank's, and gives each\n"
    "                      collective's largest size over the slowest page-locked link, over that link both\n"
    "                      ways and over every link at once (what a path staged through host memory can reach)\n"
    "  --types LIST        with --comm: f32 (default), f16, bf16\n"
    "  Columns: size and count as nccl-tests counts them (all_gather: the gathered buffer, reduce_scatter: the\n"
    "  send buffer), time (us), algbw = size / time, busbw = algbw x 2(n-1)/n (all_reduce), (n-1)/n\n"
    "  (all_gather, reduce_scatter), 1 (others), in GB/s (1e9 bytes/s); max err against a float64 reference\n"
    "  (exact: the inputs are small integers); NCCL's time and busbw and HCL/NCCL. A row that cannot run here\n"
    "  (no engine, no peer copies) is printed as skipped with the reason. --json, --csv, --plot as above.\n"
    "\n";

int comm_check_options(options *o, int sections_only) {
    const char *bad = o->all ? "--all" : o->compare ? "--compare" : sections_only ? "--peak/--transfer" : NULL;
    if (bad) {
        fprintf(stderr, "bench: --comm and %s exclude each other\n", bad);
        return -1;
    }
    if (!o->types_set) o->types = 1u << BT_F32;
    if (o->types & (1u << BT_TF32)) {
        fprintf(stderr, "bench: --comm: --types tf32 has no meaning for communication (f32, f16, bf16)\n");
        return -1;
    }
    if (o->comm_devices && (o->selector || o->comm_cross)) {
        fprintf(stderr, "bench: --comm-devices names the ranks: leave out %s\n",
                o->selector ? "--device" : "--comm-cross");
        return -1;
    }
    /* --quick (CI on CPU devices): small sizes and short groups, unless given */
    if (!o->comm_max) o->comm_max = o->quick ? (size_t)1 << 20 : (size_t)1 << 30;
    if (!o->comm_iters) o->comm_iters = o->quick ? 5 : 20;
    if (o->comm_min > o->comm_max) {
        fprintf(stderr, "bench: --comm-min-bytes %zu is above --comm-max-bytes %zu\n", o->comm_min, o->comm_max);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------------------
 * Devices: the selected one's backend first (its devices are the ranks), then with --comm-cross the others'
 * ------------------------------------------------------------------------------------------------------- */
static int open_dev(comm_run *cr, const char *sel, char *err, size_t err_size) {
    if (cr->ndevs == COMM_MAX_DEVICES) return 0;
    comm_dev *d = &cr->devs[cr->ndevs];
    memset(d, 0, sizeof *d);
    hcl_status st = hcl_device_open(sel, &d->device);
    if (st == HCL_SUCCESS) st = hcl_device_get_info(d->device, &d->info);
    if (st == HCL_SUCCESS) st = hcl_queue_create(d->device, &d->queue);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(err, err_size, st, "opening %s", sel ? sel : "(from the environment)");
        if (d->device) hcl_device_release(d->device);
        return -1;
    }
    char name[48];
    snprintf(name, sizeof name, "%.31s:%u", d->info.backend, d->info.index);
    copy_text(d->selector, sizeof d->selector, name);
    cr->ndevs++;
    return 0;
}

/* --comm-devices: each listed device is a rank, in the list's order. */
static int open_listed(comm_run *cr) {
    char err[512];
    const char *p = cr->opt->comm_devices;
    while (*p) {
        char sel[64];
        size_t len = strcspn(p, ",");
        if (len >= sizeof sel || cr->ndevs == COMM_MAX_DEVICES) {
            printf("bench: --comm-devices: '%.*s' is not a selector, or more than %d devices\n", (int)len, p,
                   COMM_MAX_DEVICES);
            return -1;
        }
        memcpy(sel, p, len);
        sel[len] = '\0';
        for (int i = 0; i < cr->ndevs; i++)
            if (!strcmp(cr->devs[i].selector, sel)) {
                printf("bench: --comm-devices: %s is listed twice (a device is one rank)\n", sel);
                return -1;
            }
        if (open_dev(cr, sel, err, sizeof err)) {
            print_wrapped(stdout, "bench: --comm-devices: ", "  ", err);
            return -1;
        }
        p += len + (p[len] == ',');
    }
    cr->nranks = cr->nxfer = cr->ndevs;
    for (int i = 0; i < cr->ndevs; i++) cr->xfer_dev[i] = i;
    return 0;
}

static int open_devices(comm_run *cr) {
    char err[512];
    if (cr->opt->comm_devices) return open_listed(cr);
    if (open_dev(cr, cr->opt->selector, err, sizeof err)) {
        print_wrapped(stdout, "bench: cannot open the device: ", "  ", err);
        return -1;
    }
    char backend[32], selected[48];
    copy_text(backend, sizeof backend, cr->devs[0].info.backend);
    copy_text(selected, sizeof selected, cr->devs[0].selector);
    uint32_t nb = 0;
    hcl_backend_count(&nb);
    /* pass 0: the selected backend's other devices; pass 1 (--comm-cross): every device of the other backends */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            cr->nranks = cr->ndevs;
            if (!cr->opt->comm_cross) break;
        }
        for (uint32_t b = 0; b < nb; b++) {
            hcl_backend_info bi;
            if (hcl_backend_get_info(b, &bi) != HCL_SUCCESS || !bi.available) continue;
            if ((strcmp(bi.name, backend) == 0) != (pass == 0)) continue;
            for (uint32_t i = 0; i < bi.device_count; i++) {
                if (pass == 0 && i == cr->devs[0].info.index) continue;
                char sel[64];
                snprintf(sel, sizeof sel, "%s:%u", bi.name, i);
                if (open_dev(cr, sel, err, sizeof err)) print_wrapped(stdout, "  not used: ", "    ", err);
            }
        }
    }
    /* the ranks in the backend's order, so rank i is device i (the selected device keeps its place as well) */
    for (int i = 0; i < cr->nranks; i++)
        for (int j = i + 1; j < cr->nranks; j++)
            if (cr->devs[j].info.index < cr->devs[i].info.index) {
                comm_dev t = cr->devs[i];
                cr->devs[i] = cr->devs[j];
                cr->devs[j] = t;
            }
    cr->nxfer = 1; /* the selected device's link */
    for (int i = 0; i < cr->nranks; i++)
        if (!strcmp(cr->devs[i].selector, selected)) cr->xfer_dev[0] = i;
    return 0;
}

static void close_devices(comm_run *cr) {
    for (int i = 0; i < cr->ndevs; i++) {
        hcl_status st = hcl_queue_release(cr->devs[i].queue);
        if (st == HCL_SUCCESS) st = hcl_device_release(cr->devs[i].device);
        if (st != HCL_SUCCESS)
            print_wrappedf(stdout, "", "  ", "error: releasing %s: %s: %s", cr->devs[i].selector, hcl_status_name(st),
                           hcl_last_message());
    }
}

/* ---------------------------------------------------------------------------------------------------------
 * Section 1: host <-> device
 * ------------------------------------------------------------------------------------------------------- */
static void transfer_device(comm_run *cr, int x) {
    comm_dev *d = &cr->devs[cr->xfer_dev[x]];
    device_run *run = &cr->xfer_runs[x];
    bdev b;
    memset(&b, 0, sizeof b);
    b.device = d->device;
    b.queue = d->queue;
    b.info = d->info;
    b.opt = cr->opt;
    b.rng = cr->opt->seed;
    b.cpu = d->info.type == HCL_DEVICE_TYPE_CPU;
    b.run = run;
    copy_text(run->selector, sizeof run->selector, d->selector);
    run->opened = 1;
    run->info = d->info;
    size_t sizes[XFER_MAX_SIZES], lo = (size_t)4 << 10;
    if (lo > cr->opt->comm_max) lo = cr->opt->comm_max;
    int n = comm_sizes(lo, cr->opt->comm_max, 4, sizes, XFER_MAX_SIZES);
    printf("1. host <-> device: %s %s\n", d->selector, d->info.name);
    measure_transfer_sizes(&b, &run->xfer, sizes, n);
    progress_done();
    print_transfer(run, cr->opt);
    printf("\n");
}

static void transfer_section(comm_run *cr) {
    for (int x = 0; x < cr->nxfer; x++) transfer_device(cr, x);
}

/* ---------------------------------------------------------------------------------------------------------
 * Section 2: peer copies
 * ------------------------------------------------------------------------------------------------------- */
typedef struct peer_ctx {
    const comm_dev *src, *dst;
    hcl_buffer sbuf, dbuf;
    size_t bytes;
    cuda_peer *cp; /* NULL: HCL's copy */
} peer_ctx;

static int peer_iter(void *ctx, int finish, char *err, size_t err_size) {
    peer_ctx *p = ctx;
    if (p->cp) return cuda_peer_copy(p->cp, p->bytes, finish, err, err_size);
    hcl_status st = hcl_buffer_copy_async(p->src->queue, p->dbuf, 0, p->sbuf, 0, p->bytes, 0, NULL, NULL);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(err, err_size, st, "hcl_buffer_copy_async %s -> %s", p->src->selector, p->dst->selector);
        return 1;
    }
    if (finish && (st = hcl_queue_finish(p->src->queue)) != HCL_SUCCESS) {
        hcl_ts_status_text(err, err_size, st, "hcl_queue_finish %s", p->src->selector);
        return 1;
    }
    return 0;
}

/* A status that says the copy cannot run here (not that it ran wrong): the row is skipped with the reason. */
static int is_unavailable(hcl_status st) { return st == HCL_ERROR_UNSUPPORTED || st == HCL_ERROR_BACKEND_UNAVAILABLE; }

/* The destination poisoned, the copies timed, the destination read back and compared with the source bit for bit. */
static void peer_measure(comm_run *cr, peer_ctx *p, const unsigned char *want, unsigned char *got, measure *m,
                         char *skipped, size_t skipped_size) {
    const uint32_t poison = 0xFFFFFFFFu;
    hcl_status st = hcl_buffer_fill(p->dst->queue, p->dbuf, 0, p->bytes & ~(size_t)3, &poison, 4);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(m->error, sizeof m->error, st, "hcl_buffer_fill (poison)");
        m->failed = 1;
        return;
    }
    char what[160];
    snprintf(what, sizeof what, "peer %s -> %s %zu bytes%s", p->src->selector, p->dst->selector, p->bytes,
             p->cp ? " cuMemcpyPeerAsync" : "");
    if (!p->cp) {
        /* one probe first: a copy that this build cannot make is a skipped row, not a failed one */
        st = hcl_buffer_copy(p->src->queue, p->dbuf, 0, p->sbuf, 0, p->bytes);
        if (is_unavailable(st)) {
            hcl_ts_status_text(skipped, skipped_size, st, "hcl_buffer_copy");
            m->present = 0;
            return;
        }
        hcl_buffer_fill(p->dst->queue, p->dbuf, 0, p->bytes & ~(size_t)3, &poison, 4);
    }
    if (comm_timed(cr->opt, what, peer_iter, p, m)) return;
    if ((st = hcl_queue_finish(p->dst->queue)) == HCL_SUCCESS)
        st = hcl_buffer_read(p->dst->queue, p->dbuf, 0, p->bytes, got);
    if (st != HCL_SUCCESS) {
        hcl_ts_status_text(m->error, sizeof m->error, st, "hcl_buffer_read (check)");
        m->failed = 1;
        return;
    }
    m->checked = 1;
    m->tol = 0.0;
    m->err = memcmp(got, want, p->bytes) ? INFINITY : 0.0;
    snprintf(m->check, sizeof m->check, m->err == 0.0 ? "all %zu bytes, bit-exact" : "%zu bytes: they differ",
             p->bytes);
}

static void peer_pair(comm_run *cr, int i, int j, const size_t *sizes, int nsizes, cuda_peer *cp) {
    comm_dev *s = &cr->devs[i], *d = &cr->devs[j];
    int direct = 0;
    char why[320] = "";
    hcl_status st = hcl_device_peer_access(s->device, d->device, &direct);
    if (st != HCL_SUCCESS) hcl_ts_status_text(why, sizeof why, st, "hcl_device_peer_access");
    const char *path = why[0] ? "-" : direct ? "direct" : "staged";
    size_t largest = sizes[nsizes - 1];
    unsigned char *want = malloc(largest), *got = malloc(largest);
    hcl_buffer sbuf = NULL, dbuf = NULL;
    if (!want || !got) {
        snprintf(why, sizeof why, "out of host memory for %zu bytes", largest);
    } else if (!why[0]) {
        if ((st = hcl_buffer_create(s->device, largest, 0, &sbuf)) != HCL_SUCCESS ||
            (st = hcl_buffer_create(d->device, largest, 0, &dbuf)) != HCL_SUCCESS)
            hcl_ts_status_text(why, sizeof why, st, "hcl_buffer_create(%zu)", largest);
    }
    if (!why[0]) {
        uint32_t *w = (uint32_t *)want;
        for (size_t k = 0; k < largest / 4; k++)
            w[k] = (uint32_t)((k + 131u * (unsigned)i + (unsigned)j) * 2654435761u);
        for (size_t k = largest / 4 * 4; k < largest; k++) want[k] = (unsigned char)k;
        if ((st = hcl_buffer_write(s->queue, sbuf, 0, largest, want)) != HCL_SUCCESS)
            hcl_ts_status_text(why, sizeof why, st, "hcl_buffer_write (source)");
    }
    int cuda = cp && !strcmp(s->info.backend, "cuda") && !strcmp(d->info.backend, "cuda");
    char bind_err[320] = ""; /* the baseline's pair is bound once, outside its timed copies */
    if (cuda && !why[0]) cuda_peer_bind(cp, d, dbuf, s, sbuf, bind_err, sizeof bind_err);
    for (int k = 0; k < nsizes && cr->npeers < cr->cap_peers; k++) {
        peer_row *r = &cr->peers[cr->npeers++];
        memset(r, 0, sizeof *r);
        r->src = i, r->dst = j, r->direct = direct, r->bytes = sizes[k];
        snprintf(r->hcl.name, sizeof r->hcl.name, "HCL");
        if (why[0]) {
            copy_text(r->skipped, sizeof r->skipped, why);
        } else {
            peer_ctx p = {s, d, sbuf, dbuf, sizes[k], NULL};
            peer_measure(cr, &p, want, got, &r->hcl, r->skipped, sizeof r->skipped);
            if (cuda) {
                p.cp = cp;
                snprintf(r->base.name, sizeof r->base.name, "cuMemcpyPeerAsync");
                if (!bind_err[0]) {
                    peer_measure(cr, &p, want, got, &r->base, NULL, 0);
                } else {
                    r->base.present = r->base.failed = 1;
                    copy_text(r->base.error, sizeof r->base.error, bind_err);
                }
            }
        }
        progress_done();
        char sz[32], med[16], base[16], ratio[16] = "-";
        comm_size_text(r->bytes, sz, sizeof sz);
        double rate = measure_ok(&r->hcl) && r->hcl.ran ? r->bytes / r->hcl.med_s / 1e9 : 0.0;
        double brate = r->base.present && measure_ok(&r->base) && r->base.ran ? r->bytes / r->base.med_s / 1e9 : 0.0;
        format_rate(med, sizeof med, rate);
        format_rate(base, sizeof base, brate);
        if (rate > 0 && brate > 0) snprintf(ratio, sizeof ratio, "%.3f", rate / brate);
        char head[160];
        snprintf(head, sizeof head, "  %-10s %-10s %-7s %9s ", s->selector, d->selector, path, sz);
        if (r->skipped[0]) {
            print_wrapped(stdout, strcat(head, "skipped: "), "      ", r->skipped);
            continue;
        }
        const char *check = r->hcl.checked && !(r->hcl.err <= 0.0) ? "FAILED"
                            : r->hcl.failed                        ? "ERROR"
                            : r->base.present && (r->base.failed || (r->base.checked && !(r->base.err <= 0.0)))
                                ? "FAILED"
                                : "ok";
        printf("%s%9.1f %8s %8s %8s  %s\n", head, r->hcl.ran ? 1e6 * r->hcl.med_s : 0.0, med, base, ratio, check);
        if (r->hcl.error[0]) print_wrapped(stdout, "      error: ", "        ", r->hcl.error);
        if (r->base.error[0]) print_wrapped(stdout, "      cuMemcpyPeerAsync error: ", "        ", r->base.error);
    }
    if (sbuf) hcl_buffer_release(sbuf);
    if (dbuf) hcl_buffer_release(dbuf);
    free(want), free(got);
}

static void peer_section(comm_run *cr) {
    const int n = cr->opt->comm_cross ? cr->ndevs : cr->nranks;
    print_wrapped(stdout, "", "  ",
                  "2. peer copies (hcl_buffer_copy_async on the source's queue, direct or staged as "
                  "hcl_device_peer_access says; time per copy of a group ended by hcl_queue_finish; every copy checked "
                  "bit for bit):");
    if (n < 2) {
        printf("  one device: no pairs\n\n");
        return;
    }
    size_t sizes[8];
    size_t lo = (size_t)64 << 10;
    if (lo > cr->opt->comm_max) lo = cr->opt->comm_max;
    int nsizes = comm_sizes(lo, cr->opt->comm_max, 16, sizes, 8);
    cr->cap_peers = n * (n - 1) * nsizes;
    cr->peers = xcalloc((size_t)cr->cap_peers, sizeof *cr->peers);
    cuda_peer *cp = NULL;
    int any_cuda = 0;
    for (int i = 0; i < n; i++) any_cuda += !strcmp(cr->devs[i].info.backend, "cuda");
    if (any_cuda >= 2 && cr->opt->baselines) {
        if (cuda_peer_open(&cp, cr->peer_note, sizeof cr->peer_note)) cp = NULL;
    } else {
        snprintf(cr->peer_note, sizeof cr->peer_note, "%s",
                 cr->opt->baselines ? "none: the baseline (cuMemcpyPeerAsync) is for pairs of CUDA devices"
                                    : "none: --no-baselines");
    }
    print_wrapped(stdout, "  baseline: ", "    ", cr->peer_note);
    printf("  %-10s %-10s %-7s %9s %9s %8s %8s %8s  %s\n", "from", "to", "path", "size", "time us", "GB/s", "base",
           "HCL/base", "check");
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j) peer_pair(cr, i, j, sizes, nsizes, cp);
    if (cp) cuda_peer_close(cp);
    printf("\n");
}

/* ---------------------------------------------------------------------------------------------------------
 * The run
 * ------------------------------------------------------------------------------------------------------- */
static void print_engines(void) {
    uint32_t n = 0;
    if (hcl_comm_engine_count(&n) != HCL_SUCCESS) return;
    for (uint32_t i = 0; i < n; i++) {
        hcl_comm_engine_info e;
        if (hcl_comm_engine_get_info(i, &e) != HCL_SUCCESS) continue;
        char first[48];
        snprintf(first, sizeof first, "  engine %-8s ", e.name);
        if (e.available)
            print_wrappedf(stdout, first, "                  ", "available (%s%s%s%s%s)", e.backends,
                           e.library[0] ? "; " : "", e.library, e.version[0] ? " " : "", e.version);
        else
            print_wrappedf(stdout, first, "                  ", "unavailable (%s): %s", e.backends, e.reason);
    }
}

/* Links in both directions at once: each timed rank (one, or every rank together) writes one buffer from page-locked
 * memory on its queue and reads another into page-locked memory on a second queue. */
typedef struct links_ctx {
    const comm_run *cr;
    size_t bytes;
    hcl_queue q2[COMM_MAX_DEVICES]; /* NULL: a rank whose link is not timed */
    hcl_buffer in[COMM_MAX_DEVICES], out[COMM_MAX_DEVICES];
    void *h_in[COMM_MAX_DEVICES], *h_out[COMM_MAX_DEVICES];
} links_ctx;

static int links_iter(void *ctx, int finish, char *err, size_t err_size) {
    links_ctx *l = ctx;
    hcl_status st = HCL_SUCCESS;
    for (int r = 0; r < l->cr->nranks && st == HCL_SUCCESS; r++) {
        if (!l->q2[r]) continue;
        st = hcl_buffer_write_async(l->cr->devs[r].queue, l->in[r], 0, l->bytes, l->h_in[r], 0, NULL, NULL);
        if (st == HCL_SUCCESS) st = hcl_buffer_read_async(l->q2[r], l->out[r], 0, l->bytes, l->h_out[r], 0, NULL, NULL);
    }
    for (int r = 0; finish && r < l->cr->nranks && st == HCL_SUCCESS; r++) {
        if (!l->q2[r]) continue;
        st = hcl_queue_finish(l->cr->devs[r].queue);
        if (st == HCL_SUCCESS) st = hcl_queue_finish(l->q2[r]);
    }
    if (st != HCL_SUCCESS) hcl_ts_status_text(err, err_size, st, "the links at once");
    return st != HCL_SUCCESS;
}

/* Time links_iter at `bytes` per rank and direction, over rank `only`'s link (-1: every rank's at once): 0 and the
 * median GB/s per rank and direction, or -1. */
static int links_at_once(const comm_run *cr, size_t bytes, int only, double *out_gbs, char *err, size_t err_size) {
    links_ctx l;
    memset(&l, 0, sizeof l);
    l.cr = cr;
    l.bytes = bytes;
    hcl_status st = HCL_SUCCESS;
    for (int r = 0; r < cr->nranks && st == HCL_SUCCESS; r++) {
        if (only >= 0 && r != only) continue;
        hcl_device d = cr->devs[r].device;
        st = hcl_queue_create(d, &l.q2[r]);
        if (st == HCL_SUCCESS) st = hcl_buffer_create(d, bytes, 0, &l.in[r]);
        if (st == HCL_SUCCESS) st = hcl_buffer_create(d, bytes, 0, &l.out[r]);
        if (st == HCL_SUCCESS) st = hcl_host_alloc(d, bytes, &l.h_in[r]);
        if (st == HCL_SUCCESS) st = hcl_host_alloc(d, bytes, &l.h_out[r]);
        if (st == HCL_SUCCESS) memset(l.h_in[r], r + 1, bytes);
    }
    measure m;
    memset(&m, 0, sizeof m);
    int bad = st != HCL_SUCCESS;
    if (bad)
        hcl_ts_status_text(err, err_size, st, "setting up the links at once");
    else if ((bad = comm_timed(cr->opt, only >= 0 ? "one link both ways" : "every link at once", links_iter, &l, &m)) !=
             0)
        snprintf(err, err_size, "%s", m.error);
    else
        *out_gbs = (double)bytes / m.med_s / 1e9;
    for (int r = 0; r < cr->nranks; r++) {
        hcl_device d = cr->devs[r].device;
        if (l.q2[r]) hcl_queue_finish(l.q2[r]), hcl_queue_release(l.q2[r]);
        if (l.in[r]) hcl_buffer_release(l.in[r]);
        if (l.out[r]) hcl_buffer_release(l.out[r]);
        if (l.h_in[r]) hcl_host_free(d, l.h_in[r]);
        if (l.h_out[r]) hcl_host_free(d, l.h_out[r]);
    }
    progress_done();
    return bad ? -1 : 0;
}

/* After the collectives, with every rank's link measured: each operation's largest size as a fraction of the slowest
 * link alone (one direction), the bound of a path staged through host memory where a rank's data crosses its link in
 * one direction; of that link carrying both directions at once (the bound of an operation whose every rank sends and
 * receives, as all_reduce and sendrecv do); and of every link carrying both directions at once (what the host's
 * memory and buses allow a staged collective). */
static void slowest_link_section(const comm_run *cr) {
    int x, dir;
    size_t bytes;
    double gbs, one = 0, both = 0;
    if (!comm_slowest_link(cr, &x, &dir, &bytes, &gbs)) return;
    char size[32], err[512];
    comm_size_text(bytes, size, sizeof size);
    printf("\n4. against the links: the slowest page-locked one, %s %s at %s: %.2f GB/s\n", cr->xfer_runs[x].selector,
           dir == XFER_H2D ? "H2D" : "D2H", size, gbs);
    if (links_at_once(cr, bytes, x, &one, err, sizeof err))
        print_wrapped(stdout, "   that link both ways at once: not measured: ", "    ", err);
    else
        printf("   that link's H2D and D2H of %s at once (page-locked, two queues): %.2f GB/s a direction\n", size,
               one);
    if (links_at_once(cr, bytes, -1, &both, err, sizeof err))
        print_wrapped(stdout, "   every rank's H2D and D2H at once: not measured: ", "    ", err);
    else
        printf("   every rank's H2D and D2H of %s at once (page-locked, two queues a rank): %.2f GB/s a rank and "
               "direction\n",
               size, both);
    printf(
        "   each operation's largest size: algbw (GB/s), over the slowest link, over that link both ways, over every "
        "link at once\n");
    printf("  %-15s %-4s %9s %9s %8s %10s %12s  engine\n", "operation", "type", "size", "algbw", "/slowest",
           "/both ways", "/all at once");
    for (int op = 0; op < OP_COUNT; op++)
        for (int t = 0; t < BT_COUNT; t++) {
            const coll_row *top = NULL;
            for (int i = 0; i < cr->ncolls; i++) {
                const coll_row *r = &cr->colls[i];
                if (r->op == op && r->type == t && !r->skipped[0] && measure_ok(&r->hcl) &&
                    (!top || r->bytes > top->bytes))
                    top = r;
            }
            if (!top) continue;
            char over_one[16] = "-", over_all[16] = "-";
            if (one > 0) snprintf(over_one, sizeof over_one, "%.2f", top->algbw / one);
            if (both > 0) snprintf(over_all, sizeof over_all, "%.2f", top->algbw / both);
            comm_size_text(top->bytes, size, sizeof size);
            printf("  %-15s %-4s %9s %9.2f %8.2f %10s %12s  %s\n", comm_op_names[op], type_names[t], size, top->algbw,
                   top->algbw / gbs, over_one, over_all, cr->engine[0] ? cr->engine : "-");
        }
}

static int count_failures(const comm_run *cr) {
    int bad = 0;
    for (int x = 0; x < cr->nxfer; x++) {
        const transfer_result *t = &cr->xfer_runs[x].xfer;
        for (int i = 0; i < t->nrows; i++) bad += !(t->rows[i].m.checked && measure_ok(&t->rows[i].m));
        bad += !t->ran;
    }
    for (int i = 0; i < cr->npeers; i++) {
        const peer_row *r = &cr->peers[i];
        if (r->skipped[0]) continue;
        bad += !(r->hcl.checked && measure_ok(&r->hcl));
        bad += r->base.present && !(r->base.checked && measure_ok(&r->base));
    }
    bad += cr->coll_failed;
    for (int i = 0; i < cr->ncolls; i++) {
        const coll_row *r = &cr->colls[i];
        if (r->skipped[0]) continue;
        bad += !(r->hcl.checked && measure_ok(&r->hcl));
        bad += r->base.present && !(r->base.checked && measure_ok(&r->base));
    }
    return bad;
}

int comm_main(const options *o, double t_main) {
    static device_run xfer_runs[COMM_MAX_DEVICES];
    comm_run cr;
    memset(&cr, 0, sizeof cr);
    cr.opt = o;
    cr.rng = o->seed;
    cr.xfer_runs = xfer_runs;
    printf("hcl bench %s --comm (communication: host <-> device, peer copies, collectives)\n", BENCH_VERSION);
    if (o->selector)
        printf("selected:  --device %s\n", o->selector);
    else
        printf("selected:  HCL_BACKEND=%s HCL_DEVICE=%s\n", getenv("HCL_BACKEND") ? getenv("HCL_BACKEND") : "(unset)",
               getenv("HCL_DEVICE") ? getenv("HCL_DEVICE") : "(unset)");
    printf("seed:      %" PRIu64 " (--seed to repeat)\n", o->seed);
    print_wrappedf(
        stdout, "timing:    ", "           ",
        "host wall-clock: %d warm-up iteration%s, then %d group%s%s of %d iteration%s issued back to back and "
        "ended by finishing every rank's queue; a row shows the median group's time per iteration; a collective's "
        "groups and its NCCL baseline's alternate (the transfer rows: device time of each copy's event, as the "
        "kernel bench)",
        o->warmup, o->warmup == 1 ? "" : "s", o->repeats, o->repeats == 1 ? "" : "s",
        o->repeats_set ? ""
        : o->quick     ? " (fewer, at least 3, past about 3 s)"
                       : " (fewer, at least 3, past about 3 s; more, up to 201, for rows under 0.3 s)",
        o->comm_iters, o->comm_iters == 1 ? "" : "s");
    if (open_devices(&cr)) return 1;
    cr.sel = cr.xfer_dev[0];
    if (o->comm_devices)
        printf("devices:   %d from --comm-devices (the ranks, in this order)\n", cr.nranks);
    else
        printf("devices:   %d of backend %s (the ranks)%s\n", cr.nranks, cr.devs[0].info.backend,
               cr.ndevs > cr.nranks ? ", and for --comm-cross:" : "");
    for (int i = 0; i < cr.ndevs; i++)
        printf("  %-10s %s%s\n", cr.devs[i].selector, cr.devs[i].info.name,
               i == cr.sel && !o->comm_devices ? " (selected)" : "");
    print_engines();
    printf("\n");
    fflush(stdout);

    transfer_section(&cr);
    peer_section(&cr);
    comm_collectives(&cr);
    slowest_link_section(&cr);

    int failures = count_failures(&cr);
    close_devices(&cr);
    double total = now_s() - t_main;
    int out_bad = 0;
    if (o->json) out_bad |= comm_write_json(o->json, &cr, total, failures);
    if (o->csv) out_bad |= comm_write_csv(o->csv, &cr);
    if (o->plot) {
        flat_row *rows = NULL;
        int nrows = 0;
        comm_flat_rows(&cr, &rows, &nrows);
        char title[160];
        snprintf(title, sizeof title, "hcl bench %s --comm: bus bandwidth per collective (GB/s)", BENCH_VERSION);
        out_bad |= write_svg(o->plot, rows, nrows, NULL, 0, title, o->noise);
        free(rows);
    }
    if (out_bad) {
        printf("bench: an output file could not be written\n");
        failures++;
    }
    int skipped = 0;
    for (int i = 0; i < cr.npeers; i++) skipped += cr.peers[i].skipped[0] != 0;
    for (int i = 0; i < cr.ncolls; i++) skipped += cr.colls[i].skipped[0] != 0;
    free(cr.peers);
    free(cr.colls);
    if (failures)
        printf("\nbench: FAILED (%d problem%s, see above) in %.1f s\n", failures, failures == 1 ? "" : "s", total);
    else
        printf("\nbench: every row that ran was verified (%d skipped with the reason) in %.1f s\n", skipped, total);
    return failures;
}
