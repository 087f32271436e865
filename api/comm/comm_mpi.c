/* The mpi engine (comm_engine.h): Open MPI opened with dlopen (libmpi.so.40, then libmpi.so; HCL_MPI_LIBRARY names
 * another), one rank per process, any backend. When every rank runs on one host, the collectives go through a
 * shared-memory segment the ranks map, as do send/recv of up to 16 ranks (comm_shm.c; HCL_MPI_SHM=0 turns that off).
 * Otherwise each collective is staged through host memory (device -> host, the non-blocking MPI collective on the
 * host buffers polled with MPI_Test until it completes or the communicator's timeout passes, host -> device), in
 * chunks that bound the staging memory and MPI's int counts. f16 and bf16 reductions are MPI user operations over
 * MPI_UINT16_T that compute in float32.
 * Open MPI's ABI is written here by hand (the core includes no vendor header): its handles are pointers, and the
 * predefined ones (MPI_COMM_WORLD, MPI_FLOAT, MPI_SUM, ...) are the addresses of global objects (mpi.h's
 * OMPI_PREDEFINED_GLOBAL), found with dlsym. Every MPI call is made under one lock, so any thread level that MPI
 * gives is enough. */
#define _GNU_SOURCE
#include "comm_engine.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* ---- Open MPI's ABI (mpi.h of Open MPI 4 and 5) ---- */
typedef void *MPI_Comm, *MPI_Datatype, *MPI_Op, *MPI_Request, *MPI_Errhandler;
typedef void(MPI_User_function)(void *in, void *inout, int *len, MPI_Datatype *type);
typedef struct MPI_Status { /* Open MPI's ompi_status_public_t */
    int MPI_SOURCE, MPI_TAG, MPI_ERROR, cancelled_;
    size_t ucount_;
} MPI_Status;
#define MPI_SUCCESS 0
#define MPI_THREAD_MULTIPLE 3
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256

#define MPI_FUNCTIONS(X)                                                                                               \
    X(int, MPI_Initialized, (int *))                                                                                   \
    X(int, MPI_Finalized, (int *))                                                                                     \
    X(int, MPI_Init_thread, (int *, char ***, int, int *))                                                             \
    X(int, MPI_Finalize, (void))                                                                                       \
    X(int, MPI_Get_library_version, (char *, int *))                                                                   \
    X(int, MPI_Error_string, (int, char *, int *))                                                                     \
    X(int, MPI_Comm_size, (MPI_Comm, int *))                                                                           \
    X(int, MPI_Comm_rank, (MPI_Comm, int *))                                                                           \
    X(int, MPI_Comm_split, (MPI_Comm, int, int, MPI_Comm *))                                                           \
    X(int, MPI_Comm_free, (MPI_Comm *))                                                                                \
    X(int, MPI_Comm_set_errhandler, (MPI_Comm, MPI_Errhandler))                                                        \
    X(int, MPI_Comm_get_errhandler, (MPI_Comm, MPI_Errhandler *))                                                      \
    X(int, MPI_Errhandler_free, (MPI_Errhandler *))                                                                    \
    X(int, MPI_Op_create, (MPI_User_function *, int, MPI_Op *))                                                        \
    X(int, MPI_Test, (MPI_Request *, int *, MPI_Status *))                                                             \
    X(int, MPI_Get_count, (const MPI_Status *, MPI_Datatype, int *))                                                   \
    X(int, MPI_Iallreduce, (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *))                 \
    X(int, MPI_Ireduce, (const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm, MPI_Request *))               \
    X(int, MPI_Ibcast, (void *, int, MPI_Datatype, int, MPI_Comm, MPI_Request *))                                      \
    X(int, MPI_Iallgather, (const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm, MPI_Request *))      \
    X(int, MPI_Ireduce_scatter_block, (const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request *))      \
    X(int, MPI_Isend, (const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))                            \
    X(int, MPI_Irecv, (void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *))

#define MPI_GLOBALS(X)                                                                                                 \
    X(comm_world, ompi_mpi_comm_world)                                                                                 \
    X(comm_self, ompi_mpi_comm_self)                                                                                   \
    X(t_float, ompi_mpi_float)                                                                                         \
    X(t_byte, ompi_mpi_byte)                                                                                           \
    X(t_u16, ompi_mpi_uint16_t)                                                                                        \
    X(t_int, ompi_mpi_int)                                                                                             \
    X(op_sum, ompi_mpi_op_sum)                                                                                         \
    X(op_prod, ompi_mpi_op_prod)                                                                                       \
    X(op_max, ompi_mpi_op_max)                                                                                         \
    X(op_min, ompi_mpi_op_min)                                                                                         \
    X(errors_return, ompi_mpi_errors_return)

static struct {
#define DECL_FN(ret, name, args) ret(*name) args;
    MPI_FUNCTIONS(DECL_FN)
#undef DECL_FN
#define DECL_G(field, sym) void *field;
    MPI_GLOBALS(DECL_G)
#undef DECL_G
} mpi;

static void *mpi_lib;
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER; /* every MPI call, and the state below */
static int hcl_initialised;                                  /* HCL called MPI_Init_thread: it finalises at exit */
static MPI_Op typed_ops[2][HCL_COMM_OP_COUNT];               /* [f16, bf16][op]: made at the first create */
static unsigned char (*ids_in_use)[HCL_COMM_ID_BYTES];
static size_t ids_count;
/* Staging memory of collectives that timed out: MPI may still write it, so it is kept (reachable) for good. */
static hcl__comm_host_mem *abandoned;
static size_t abandoned_count;
/* MPI_COMM_WORLD's and MPI_COMM_SELF's error handlers as the program had them before HCL made them MPI_ERRORS_RETURN,
 * while `errors_holders` communicators (live, or being made) need that (errors_take / errors_give). */
static unsigned errors_holders;
static MPI_Errhandler saved_errors[2];
static atomic_int requests_left; /* a request stayed with MPI after a timeout or an MPI error (left_with_mpi) */

/* A request stays with MPI (timed out, or failed, or its pipeline gave up on it): its error may still come. */
static void left_with_mpi(void) { atomic_store(&requests_left, 1); }

typedef struct mpi_state {
    MPI_Comm comm;
    unsigned char id[HCL_COMM_ID_BYTES];
    hcl__comm_host_mem send, recv;
    hcl__comm_shm *shm; /* the ranks' shared memory (one host), or NULL: MPI messages */
} mpi_state;

/* Keep memory that MPI may still write (a request that timed out) for good, reachable (lock held): 1, or 0 when there
 * is no memory to record it. */
static int keep_for_mpi(hcl__comm_host_mem mem) {
    hcl__comm_host_mem *grown = realloc(abandoned, (abandoned_count + 1) * sizeof *abandoned);
    if (!grown) return 0;
    abandoned = grown;
    abandoned[abandoned_count++] = mem;
    return 1;
}

/* Open MPI reports an error of a non-blocking collective (MPI_ERR_TRUNCATE of a piece inside MPI_Iallreduce) through
 * MPI_COMM_WORLD's error handler, not only through the handler of the communicator it ran on, and MPI-4 reports errors
 * that belong to no communicator through MPI_COMM_SELF's: with their default, MPI_ERRORS_ARE_FATAL, such an error
 * aborts the job, where hcl.h promises a status. So while HCL holds an mpi communicator, both are MPI_ERRORS_RETURN:
 * the first holder (lock held, MPI initialised) saves the program's handlers and sets MPI_ERRORS_RETURN. */
static int errors_take(void) {
    if (errors_holders++ > 0) return MPI_SUCCESS;
    MPI_Comm comms[2] = {mpi.comm_world, mpi.comm_self};
    for (int i = 0; i < 2; i++) {
        int rc = mpi.MPI_Comm_get_errhandler(comms[i], &saved_errors[i]);
        if (rc == MPI_SUCCESS) rc = mpi.MPI_Comm_set_errhandler(comms[i], mpi.errors_return);
        if (rc != MPI_SUCCESS) return rc; /* the caller gives its hold back (errors_give) */
    }
    return MPI_SUCCESS;
}

/* The last holder gone (lock held, MPI not finalised): each communicator whose handler is still the MPI_ERRORS_RETURN
 * that HCL set gets the program's back (one it set since stays), unless a request that timed out or failed is still
 * with MPI (left_with_mpi): its error could still come, and must not abort the job then. */
static void errors_give(void) {
    if (errors_holders == 0 || --errors_holders > 0) return;
    MPI_Comm comms[2] = {mpi.comm_world, mpi.comm_self};
    for (int i = 0; i < 2; i++) {
        if (!saved_errors[i]) continue;
        MPI_Errhandler now = NULL;
        if (!atomic_load(&requests_left) && mpi.MPI_Comm_get_errhandler(comms[i], &now) == MPI_SUCCESS) {
            if (now == mpi.errors_return) mpi.MPI_Comm_set_errhandler(comms[i], saved_errors[i]);
            mpi.MPI_Errhandler_free(&now);
        }
        mpi.MPI_Errhandler_free(&saved_errors[i]); /* the reference MPI_Comm_get_errhandler gave */
        saved_errors[i] = NULL;
    }
}

/* An MPI error code as HCL_ERROR_VENDOR, with MPI's text. */
static hcl_status mpi_error(int rc, const char *what) {
    char text[MPI_MAX_ERROR_STRING + 1] = "";
    int len = 0;
    pthread_mutex_lock(&mpi_lock);
    if (mpi.MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "unknown MPI error");
    pthread_mutex_unlock(&mpi_lock);
    text[len >= 0 && len < (int)sizeof text ? len : (int)sizeof text - 1] = 0;
    return hcl__set_message(HCL_ERROR_VENDOR, "%s: %s (MPI error %d)", what, text, rc);
}

/* ---- f16 / bf16 reductions: float32 arithmetic, one rounding ---- */
#define TYPED_OP(tname, type, op)                                                                                      \
    static void user_##tname##_##op(void *in, void *inout, int *len, MPI_Datatype *dt) {                               \
        (void)dt;                                                                                                      \
        hcl__comm_reduce_typed(op, type, inout, in, (size_t)*len);                                                     \
    }
#define TYPED_OPS(tname, type)                                                                                         \
    TYPED_OP(tname, type, HCL_COMM_SUM)                                                                                \
    TYPED_OP(tname, type, HCL_COMM_PROD) TYPED_OP(tname, type, HCL_COMM_MAX) TYPED_OP(tname, type, HCL_COMM_MIN)
TYPED_OPS(f16, HCL_DTYPE_F16)
TYPED_OPS(bf16, HCL_DTYPE_BF16)
static MPI_User_function *const user_fns[2][HCL_COMM_OP_COUNT] = {
    {user_f16_HCL_COMM_SUM, user_f16_HCL_COMM_PROD, user_f16_HCL_COMM_MAX, user_f16_HCL_COMM_MIN},
    {user_bf16_HCL_COMM_SUM, user_bf16_HCL_COMM_PROD, user_bf16_HCL_COMM_MAX, user_bf16_HCL_COMM_MIN}};

static MPI_Datatype mpi_type(hcl_dtype t) { return t == HCL_DTYPE_F32 ? mpi.t_float : mpi.t_u16; }
static MPI_Op mpi_op(hcl_dtype t, hcl_comm_op op) {
    if (t == HCL_DTYPE_F32) {
        void *const ops[] = {mpi.op_sum, mpi.op_prod, mpi.op_max, mpi.op_min};
        return ops[op];
    }
    return typed_ops[t == HCL_DTYPE_BF16][op];
}

/* ---- the library ---- */

/* HCL finalises the MPI it initialised, at exit or when libhcl is unloaded (a destructor, not atexit, which would
 * call into an unloaded library). */
__attribute__((destructor)) static void mpi_finalize_at_exit(void) {
    if (!mpi_lib || !hcl_initialised) return;
    int done = 0;
    if (mpi.MPI_Finalized(&done) == MPI_SUCCESS && !done) mpi.MPI_Finalize();
}

static hcl_status load(const hcl__comm_engine *self, hcl_comm_engine_info *info) {
    (void)self;
    static const char *const names[] = {"libmpi.so.40", "libmpi.so"};
    char reason[HCL_REASON_MAX] = "";
    void *h = hcl__driver_host()->open_library("mpi", "HCL_MPI_LIBRARY", names, 2, reason, sizeof reason);
    if (!h) {
        snprintf(info->reason, sizeof info->reason, "cannot open Open MPI's library: %.*s",
                 (int)(sizeof info->reason - 40), reason);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    const char *missing = NULL;
#define RESOLVE_FN(ret, name, args)                                                                                    \
    if (!missing && !(*(void **)&mpi.name = dlsym(h, #name))) missing = #name;
    MPI_FUNCTIONS(RESOLVE_FN)
#undef RESOLVE_FN
    /* a program linked with libmpi may hold copies of the predefined objects (copy relocations): those are the
     * live ones, found first in the global scope */
#define RESOLVE_G(field, sym)                                                                                          \
    if (!missing && !(mpi.field = dlsym(RTLD_DEFAULT, #sym)) && !(mpi.field = dlsym(h, #sym))) missing = #sym;
    MPI_GLOBALS(RESOLVE_G)
#undef RESOLVE_G
    Dl_info where;
    const char *path = dladdr(*(void **)&mpi.MPI_Init_thread, &where) && where.dli_fname ? where.dli_fname : "libmpi";
    if (missing) {
        snprintf(info->reason, sizeof info->reason, "%s lacks %s (not Open MPI's ABI?)", path, missing);
        dlclose(h);
        return HCL_ERROR_BACKEND_UNAVAILABLE;
    }
    /* Open MPI's plugins expect its symbols global (as mpi4py opens it): promote the library we hold */
    void *global = dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
    if (global) dlclose(global);
    snprintf(info->library, sizeof info->library, "%s", path);
    char version[MPI_MAX_LIBRARY_VERSION_STRING + 1] = "";
    int len = 0;
    if (mpi.MPI_Get_library_version(version, &len) == MPI_SUCCESS) {
        version[len >= 0 && len < (int)sizeof version ? len : (int)sizeof version - 1] = 0;
        version[strcspn(version, "\n,")] = 0; /* "Open MPI v4.1.4" */
        snprintf(info->version, sizeof info->version, " %.*s", (int)sizeof info->version - 2, version);
    }
    mpi_lib = h;
    return HCL_SUCCESS;
}

static hcl_status get_id(const hcl__comm_engine *self, hcl__device *dev, unsigned char *out_id) {
    (void)self, (void)dev;
    size_t got = 0;
    while (got < HCL_COMM_ID_BYTES) {
        ssize_t n = getrandom(out_id + got, HCL_COMM_ID_BYTES - got, 0);
        if (n <= 0) return hcl__set_message(HCL_ERROR_VENDOR, "getrandom failed making an mpi id");
        got += (size_t)n;
    }
    return HCL_SUCCESS;
}

/* Poll the requests with MPI_Test until all completed, an MPI error, or `timeout` seconds (then the communicator, if
 * any, is broken; the requests stay with MPI). statuses: NULL, or one per request, filled as each completes. */
static hcl_status wait_reqs(MPI_Request *reqs, int n, MPI_Status *statuses, hcl__comm *comm, double timeout,
                            const char *what) {
    const double start = hcl__comm_now_s();
    for (;;) {
        int left = 0;
        for (int i = 0; i < n; i++) {
            if (!reqs[i]) continue;
            int flag = 0;
            pthread_mutex_lock(&mpi_lock);
            int rc = mpi.MPI_Test(&reqs[i], &flag, statuses ? &statuses[i] : NULL);
            pthread_mutex_unlock(&mpi_lock);
            if (rc != MPI_SUCCESS) {
                left_with_mpi();
                hcl_status st = mpi_error(rc, what);
                return comm ? hcl__comm_break(comm, st) : st;
            }
            if (flag)
                reqs[i] = NULL;
            else
                left++;
        }
        if (!left) return HCL_SUCCESS;
        if (hcl__comm_now_s() - start > timeout) {
            left_with_mpi();
            hcl_status st = hcl__set_message(
                HCL_ERROR_TIMEOUT, "mpi %s%s%u: no answer from the other ranks within %g s%s", what,
                comm ? " on rank " : "", comm ? comm->rank : 0, timeout, comm ? "; the communicator is broken" : "");
            return comm ? hcl__comm_break(comm, st) : st;
        }
        /* MPI progresses only inside MPI_Test: poll without pause for the first 50 ms (a message of tens of MiB),
         * then yield the core between polls (a rank that waits long for a late one) */
        if (hcl__comm_now_s() - start > 0.05) {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* Make the float32-computing user ops once MPI runs (lock held). */
static hcl_status make_typed_ops(void) {
    for (int t = 0; t < 2; t++)
        for (int o = 0; o < HCL_COMM_OP_COUNT; o++) {
            if (typed_ops[t][o]) continue;
            int rc = mpi.MPI_Op_create(user_fns[t][o], 1, &typed_ops[t][o]);
            if (rc != MPI_SUCCESS) {
                pthread_mutex_unlock(&mpi_lock);
                hcl_status st = mpi_error(rc, "MPI_Op_create");
                pthread_mutex_lock(&mpi_lock);
                return st;
            }
        }
    return HCL_SUCCESS;
}

#define CALL(expr, what)                                                                                               \
    do {                                                                                                               \
        int rc_ = (expr);                                                                                              \
        if (rc_ != MPI_SUCCESS) {                                                                                      \
            pthread_mutex_unlock(&mpi_lock);                                                                           \
            st = mpi_error(rc_, what);                                                                                 \
            pthread_mutex_lock(&mpi_lock);                                                                             \
            goto cleanup;                                                                                              \
        }                                                                                                              \
    } while (0)

/* MIN over the ranks of `value` (lock not held): 0 when any rank says 0, or on an MPI failure or timeout (logged). */
static int all_agree(mpi_state *s, hcl__comm *comm, int value) {
    int *both = malloc(2 * sizeof *both); /* kept by MPI if the request times out */
    if (!both) return 0;
    both[0] = value, both[1] = 0;
    MPI_Request req = NULL;
    pthread_mutex_lock(&mpi_lock);
    int rc = mpi.MPI_Iallreduce(&both[0], &both[1], 1, mpi.t_int, mpi.op_min, s->comm, &req);
    pthread_mutex_unlock(&mpi_lock);
    hcl_status st = rc == MPI_SUCCESS ? wait_reqs(&req, 1, NULL, NULL, atomic_load(&comm->timeout), "hcl_comm_create")
                                      : mpi_error(rc, "MPI_Iallreduce");
    if (st != HCL_SUCCESS) {
        hcl__log(HCL_LOG_WARN, "comm", "mpi rank %u: %s", comm->rank, hcl_last_message());
        if (req) { /* MPI still holds `both`: kept for good (or leaked), never freed under MPI */
            pthread_mutex_lock(&mpi_lock);
            keep_for_mpi((hcl__comm_host_mem){.ptr = both});
            pthread_mutex_unlock(&mpi_lock);
            return 0;
        }
    }
    const int all = st == HCL_SUCCESS ? both[1] : 0;
    free(both);
    return all;
}

/* The ranks' shared memory when every rank maps it (one host), else none (MPI messages carry the data). Rank 0 makes
 * the segment under a name from the id, the others map it once rank 0 said it has, and rank 0 removes the name once
 * every rank answered. */
static void shm_setup(mpi_state *s, hcl__comm *comm) {
    const char *env = getenv("HCL_MPI_SHM");
    int want = !(env && strcmp(env, "0") == 0) && comm->size >= 2;
    char name[64] = "/hcl-mpi-";
    for (size_t i = 0, at = strlen(name); i < 24 && at + 2 < sizeof name; i++, at += 2)
        snprintf(name + at, 3, "%02x", s->id[i]);
    if (want && comm->rank == 0 &&
        hcl__comm_shm_open(name, 1, comm->size, comm->rank, comm->dev, &s->shm) != HCL_SUCCESS)
        hcl__log(HCL_LOG_INFO, "comm", "mpi: MPI messages carry the collectives: %s", hcl_last_message());
    int ok = all_agree(s, comm, comm->rank == 0 ? s->shm != NULL : want);
    if (ok && comm->rank != 0 && hcl__comm_shm_open(name, 0, comm->size, comm->rank, comm->dev, &s->shm) != HCL_SUCCESS)
        hcl__log(HCL_LOG_INFO, "comm", "mpi rank %u: MPI messages carry the collectives: %s", comm->rank,
                 hcl_last_message());
    if (ok) ok = all_agree(s, comm, s->shm != NULL);
    if (comm->rank == 0 && s->shm) hcl__comm_shm_unlink(name);
    if (!ok) {
        hcl__comm_shm_close(s->shm);
        s->shm = NULL;
    }
}

static hcl_status create(hcl__comm *comm, const unsigned char *id) {
    hcl_status st = HCL_SUCCESS;
    mpi_state *s = calloc(1, sizeof *s);
    if (!s) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
    memcpy(s->id, id, HCL_COMM_ID_BYTES);
    MPI_Request req = NULL;
    int *mine = NULL, *all = NULL, world = 0, flag = 0, registered = 0, holds_errors = 0;
    pthread_mutex_lock(&mpi_lock);
    CALL(mpi.MPI_Finalized(&flag), "MPI_Finalized");
    if (flag) {
        st = hcl__set_message(HCL_ERROR_UNSUPPORTED, "MPI was finalised already: no communicator can be made");
        goto cleanup;
    }
    CALL(mpi.MPI_Initialized(&flag), "MPI_Initialized");
    if (!flag) {
        int provided = 0;
        CALL(mpi.MPI_Init_thread(NULL, NULL, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
        hcl_initialised = 1;
    }
    holds_errors = 1;
    CALL(errors_take(), "MPI_Comm_set_errhandler (MPI_ERRORS_RETURN on MPI_COMM_WORLD and MPI_COMM_SELF)");
    for (size_t i = 0; i < ids_count; i++)
        if (memcmp(ids_in_use[i], id, HCL_COMM_ID_BYTES) == 0) {
            st = hcl__set_message(HCL_ERROR_UNSUPPORTED,
                                  "the mpi engine joins one rank per process, and this process "
                                  "already holds a rank of this id's communicator (rank %u asked for a second)",
                                  comm->rank);
            goto cleanup;
        }
    void *grown = realloc(ids_in_use, (ids_count + 1) * sizeof *ids_in_use);
    if (!grown) {
        st = hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
        goto cleanup;
    }
    ids_in_use = grown;
    memcpy(ids_in_use[ids_count++], id, HCL_COMM_ID_BYTES);
    registered = 1;
    if ((st = make_typed_ops()) != HCL_SUCCESS) goto cleanup;
    /* Who joins what: every process of MPI_COMM_WORLD must be here (the split is collective over it), so ask first
     * with a non-blocking all-gather that can time out. */
    uint32_t color = 0;
    memcpy(&color, id, sizeof color);
    CALL(mpi.MPI_Comm_size(mpi.comm_world, &world), "MPI_Comm_size");
    /* what this process sends (mine) after what it receives (all): one block that a timed-out request keeps */
    if (!(all = malloc(((size_t)world + 1) * 3 * sizeof *all))) {
        st = hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
        goto cleanup;
    }
    mine = all + 3 * (size_t)world;
    mine[0] = (int)(color & 0x7fffffff), mine[1] = (int)comm->size, mine[2] = (int)comm->rank;
    CALL(mpi.MPI_Iallgather(mine, 3, mpi.t_int, all, 3, mpi.t_int, mpi.comm_world, &req), "MPI_Iallgather");
    pthread_mutex_unlock(&mpi_lock);
    st = wait_reqs(&req, 1, NULL, NULL, atomic_load(&comm->timeout),
                   "hcl_comm_create (waiting for every process of MPI_COMM_WORLD)");
    pthread_mutex_lock(&mpi_lock);
    if (st != HCL_SUCCESS) {
        if (req) { /* timed out: MPI still holds the block */
            keep_for_mpi((hcl__comm_host_mem){.ptr = all});
            all = NULL; /* kept for good (or, without memory to record it, leaked: never freed under MPI) */
        }
        goto cleanup;
    }
    uint32_t members = 0;
    for (int p = 0; p < world; p++) {
        if (all[3 * p] != mine[0]) continue;
        members++;
        int twice = 0;
        for (int o = 0; o < p && !twice; o++) twice = all[3 * o] == mine[0] && all[3 * o + 2] == all[3 * p + 2];
        if (all[3 * p + 1] != mine[1] || all[3 * p + 2] < 0 || all[3 * p + 2] >= mine[1] || twice) {
            st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                  "process %d of MPI_COMM_WORLD joins this id as rank %d "
                                  "of %d; this process as rank %u of %u (sizes must agree, ranks be distinct)",
                                  p, all[3 * p + 2], all[3 * p + 1], comm->rank, comm->size);
            goto cleanup;
        }
    }
    if (members != comm->size) {
        st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                              "%u of the %d processes of MPI_COMM_WORLD joined this id "
                              "with size %u: every rank must be a process of MPI_COMM_WORLD, one rank per process, and "
                              "every process of it must call hcl_comm_create at once",
                              members, world, comm->size);
        goto cleanup;
    }
    CALL(mpi.MPI_Comm_split(mpi.comm_world, mine[0], (int)comm->rank, &s->comm), "MPI_Comm_split");
    CALL(mpi.MPI_Comm_set_errhandler(s->comm, mpi.errors_return), "MPI_Comm_set_errhandler");
    int size = 0, rank = 0;
    CALL(mpi.MPI_Comm_size(s->comm, &size), "MPI_Comm_size");
    CALL(mpi.MPI_Comm_rank(s->comm, &rank), "MPI_Comm_rank");
    if (size != (int)comm->size || rank != (int)comm->rank) {
        st = hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                              "the MPI communicator has %d processes (this one rank %d); "
                              "asked for rank %u of %u: every process of MPI_COMM_WORLD must take part",
                              size, rank, comm->rank, comm->size);
        goto cleanup;
    }
    comm->state = s;
    pthread_mutex_unlock(&mpi_lock);
    shm_setup(s, comm);
    pthread_mutex_lock(&mpi_lock);
cleanup:
    if (st != HCL_SUCCESS) {
        if (s->comm) mpi.MPI_Comm_free(&s->comm);
        if (registered) ids_count--;
        if (holds_errors) errors_give();
        free(s);
    }
    pthread_mutex_unlock(&mpi_lock);
    free(all);
    return st;
}

static void destroy(hcl__comm *comm) {
    mpi_state *s = comm->state;
    if (!s) return;
    pthread_mutex_lock(&mpi_lock);
    for (size_t i = 0; i < ids_count; i++)
        if (memcmp(ids_in_use[i], s->id, HCL_COMM_ID_BYTES) == 0) {
            memmove(ids_in_use[i], ids_in_use[ids_count - 1], HCL_COMM_ID_BYTES);
            ids_count--;
            break;
        }
    int fin = 0;
    const int broken = atomic_load(&comm->broken);
    /* a broken communicator may still have a request that timed out in flight: MPI progresses it when the late
     * ranks come, so neither the MPI communicator nor the staging memory may go (freeing the communicator makes
     * Open MPI's progress crash then) */
    if (!broken && mpi.MPI_Finalized(&fin) == MPI_SUCCESS && !fin) mpi.MPI_Comm_free(&s->comm);
    if (mpi.MPI_Finalized(&fin) == MPI_SUCCESS && !fin) errors_give();
    if (broken && keep_for_mpi(s->send)) s->send.ptr = NULL;
    if (broken && keep_for_mpi(s->recv)) s->recv.ptr = NULL;
    pthread_mutex_unlock(&mpi_lock);
    if (s->send.ptr) hcl__comm_host_free(&s->send);
    if (s->recv.ptr) hcl__comm_host_free(&s->recv);
    hcl__comm_shm_close(s->shm);
    free(s);
}

/* ---- collectives ---- */

#define CHUNK_BYTES ((size_t)4 << 20) /* per rank's piece of one MPI call: bounds staging memory and int counts */
#define PIECE_BYTES ((size_t)1 << 20) /* device <-> host copies between two polls of the request in flight */

/* One collective in flight through the pipeline: chunk k + 1 is staged in while MPI works on chunk k, and chunk k
 * staged out while MPI works on chunk k + 1 (two host slots each way). Open MPI progresses only inside MPI calls, so
 * the copies are made in pieces with an MPI_Test of the request in flight between them. */
typedef struct pipe {
    hcl__comm *comm;
    const hcl__coll *op;
    mpi_state *s;
    size_t es, chunk, slot_send, slot_recv; /* bytes of one slot */
    MPI_Request req;                        /* in flight, or NULL */
} pipe;

/* Break the communicator when anything fails while a request is in flight: its memory stays with MPI (destroy keeps
 * it) and the ranks no longer agree on what runs. */
static hcl_status pipe_fail(pipe *p, hcl_status st) { return p->req ? hcl__comm_break(p->comm, st) : st; }

static hcl_status copy_pieces(pipe *p, hcl__buffer *buf, size_t off, size_t bytes, unsigned char *host, int out) {
    for (size_t done = 0; done < bytes; done += PIECE_BYTES) {
        const size_t m = bytes - done < PIECE_BYTES ? bytes - done : PIECE_BYTES;
        hcl_status st = out ? hcl__comm_stage_out(p->op->q, buf, off + done, m, host + done)
                            : hcl__comm_stage_in(p->op->q, buf, off + done, m, host + done);
        if (st != HCL_SUCCESS) return pipe_fail(p, st);
        if (p->req) {
            int flag = 0;
            pthread_mutex_lock(&mpi_lock);
            int rc = mpi.MPI_Test(&p->req, &flag, NULL);
            pthread_mutex_unlock(&mpi_lock);
            if (rc != MPI_SUCCESS) {
                left_with_mpi();
                return hcl__comm_break(p->comm, mpi_error(rc, "MPI_Test"));
            }
            if (flag) p->req = NULL;
        }
    }
    return HCL_SUCCESS;
}

static unsigned char *slot_send(pipe *p, size_t k) { return (unsigned char *)p->s->send.ptr + (k & 1) * p->slot_send; }
static unsigned char *slot_recv(pipe *p, size_t k) { return (unsigned char *)p->s->recv.ptr + (k & 1) * p->slot_recv; }

/* Chunk k: elements [k chunk, k chunk + n). */
static hcl_status chunk_in(pipe *p, size_t k, size_t n) {
    const hcl__coll *op = p->op;
    const size_t off = k * p->chunk, bytes = n * p->es;
    unsigned char *hs = slot_send(p, k);
    switch (op->kind) {
    case HCL__COLL_BROADCAST:
        return p->comm->rank == op->root ? copy_pieces(p, op->send, off * p->es, bytes, hs, 0) : HCL_SUCCESS;
    case HCL__COLL_REDUCE_SCATTER:
        for (uint32_t r = 0; r < p->comm->size; r++) {
            hcl_status st = copy_pieces(p, op->send, ((size_t)r * op->count + off) * p->es, bytes, hs + r * bytes, 0);
            if (st != HCL_SUCCESS) return st;
        }
        return HCL_SUCCESS;
    default: return copy_pieces(p, op->send, off * p->es, bytes, hs, 0);
    }
}

static hcl_status chunk_start(pipe *p, size_t k, size_t n) {
    const hcl__coll *op = p->op;
    const MPI_Datatype dt = mpi_type(op->type);
    const MPI_Op mop = mpi_op(op->type, op->op);
    const MPI_Comm c = p->s->comm;
    unsigned char *hs = slot_send(p, k), *hr = slot_recv(p, k);
    const char *what = "";
    int rc = MPI_SUCCESS;
    pthread_mutex_lock(&mpi_lock);
    switch (op->kind) {
    case HCL__COLL_ALL_REDUCE:
        what = "MPI_Iallreduce", rc = mpi.MPI_Iallreduce(hs, hr, (int)n, dt, mop, c, &p->req);
        break;
    case HCL__COLL_REDUCE:
        what = "MPI_Ireduce", rc = mpi.MPI_Ireduce(hs, hr, (int)n, dt, mop, (int)op->root, c, &p->req);
        break;
    case HCL__COLL_BROADCAST:
        what = "MPI_Ibcast", rc = mpi.MPI_Ibcast(hs, (int)n, dt, (int)op->root, c, &p->req);
        break;
    case HCL__COLL_ALL_GATHER:
        what = "MPI_Iallgather", rc = mpi.MPI_Iallgather(hs, (int)n, dt, hr, (int)n, dt, c, &p->req);
        break;
    case HCL__COLL_REDUCE_SCATTER:
        what = "MPI_Ireduce_scatter_block", rc = mpi.MPI_Ireduce_scatter_block(hs, hr, (int)n, dt, mop, c, &p->req);
        break;
    default: break;
    }
    pthread_mutex_unlock(&mpi_lock);
    if (rc != MPI_SUCCESS) {
        p->req = NULL;
        return hcl__comm_break(p->comm, mpi_error(rc, what));
    }
    return HCL_SUCCESS;
}

static hcl_status chunk_out(pipe *p, size_t k, size_t n) {
    const hcl__coll *op = p->op;
    const size_t off = k * p->chunk, bytes = n * p->es;
    switch (op->kind) {
    case HCL__COLL_REDUCE:
        return p->comm->rank == op->root ? copy_pieces(p, op->recv, off * p->es, bytes, slot_recv(p, k), 1)
                                         : HCL_SUCCESS;
    case HCL__COLL_BROADCAST:
        return p->comm->rank == op->root && op->recv == op->send
                   ? HCL_SUCCESS
                   : copy_pieces(p, op->recv, off * p->es, bytes, slot_send(p, k), 1);
    case HCL__COLL_ALL_GATHER:
        for (uint32_t r = 0; r < p->comm->size; r++) {
            hcl_status st =
                copy_pieces(p, op->recv, ((size_t)r * op->count + off) * p->es, bytes, slot_recv(p, k) + r * bytes, 1);
            if (st != HCL_SUCCESS) return st;
        }
        return HCL_SUCCESS;
    default: return copy_pieces(p, op->recv, off * p->es, bytes, slot_recv(p, k), 1);
    }
}

/* Whether the ranks issued the same collective (hcl_comm.h), asked before any of its data moves: one small
 * MPI_Iallreduce with MPI_MAX over each field of the call and its negation (each field's largest and smallest value
 * over the ranks), started here and completed by agree_end. Without it MPI pairs pieces of different calls: a rank
 * that receives more than it gave fails with MPI_ERR_TRUNCATE, the others complete with wrong data or wait. With it,
 * every rank learns of the difference alike and fails with HCL_ERROR_INVALID_ARGUMENT, and the communicator stays
 * usable: each rank ran one MPI collective. *out_block holds 4 AGREE_FIELDS ints (what this rank gives, what comes
 * back). */
enum { AGREE_FIELDS = 6 };
static hcl_status agree_start(pipe *p, int **out_block) {
    const hcl__coll_sig sig = hcl__coll_sig_of(p->op);
    int v[AGREE_FIELDS] = {sig.kind, sig.type, sig.op, sig.root, 0, 0};
    v[4] = (int)(sig.count & 0x7fffffff), v[5] = (int)(sig.count >> 31); /* counts below 2^62 */
    int *block = malloc(4 * AGREE_FIELDS * sizeof *block);
    if (!block) return hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (int i = 0; i < AGREE_FIELDS; i++) block[i] = v[i], block[AGREE_FIELDS + i] = -v[i];
    pthread_mutex_lock(&mpi_lock);
    int rc = mpi.MPI_Iallreduce(block, block + 2 * AGREE_FIELDS, 2 * AGREE_FIELDS, mpi.t_int, mpi.op_max, p->s->comm,
                                &p->req);
    pthread_mutex_unlock(&mpi_lock);
    if (rc != MPI_SUCCESS) {
        p->req = NULL;
        free(block);
        return hcl__comm_break(p->comm, mpi_error(rc, "MPI_Iallreduce (the ranks' calls)"));
    }
    *out_block = block;
    return HCL_SUCCESS;
}

/* The answer of agree_start (its request complete): HCL_ERROR_INVALID_ARGUMENT naming each field that differs. */
static hcl_status agree_end(pipe *p, const int *block) {
    const int *got = block + 2 * AGREE_FIELDS;
    hcl__coll_sig sig[2]; /* the smallest and the largest value of each field */
    for (int w = 0; w < 2; w++) {
        int at[AGREE_FIELDS];
        for (int i = 0; i < AGREE_FIELDS; i++) at[i] = w ? got[i] : -got[AGREE_FIELDS + i];
        sig[w].kind = at[0], sig[w].type = at[1], sig[w].op = at[2], sig[w].root = at[3];
        sig[w].count = (uint64_t)(unsigned)at[4] | (uint64_t)(unsigned)at[5] << 31;
    }
    char diff[300];
    if (!hcl__coll_sig_diff(&sig[0], &sig[1], "on some ranks", "on others", diff, sizeof diff)) return HCL_SUCCESS;
    return hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                            "mpi %s on rank %u: the ranks' calls differ: %s (every rank must issue the same "
                            "collectives in the same order with the same count, type, op and root)",
                            hcl__coll_name(p->op->kind), p->comm->rank, diff);
}

static hcl_status run_pipe(pipe *p) {
    hcl__comm *comm = p->comm;
    const hcl__coll *op = p->op;
    p->chunk = CHUNK_BYTES / p->es;
    const size_t count = op->count, chunks = (count + p->chunk - 1) / p->chunk,
                 first = count < p->chunk ? count : p->chunk;
    p->slot_send = first * p->es * (op->kind == HCL__COLL_REDUCE_SCATTER ? comm->size : 1);
    p->slot_recv = first * p->es * (op->kind == HCL__COLL_ALL_GATHER ? comm->size : 1);
    const int slots = chunks > 1 ? 2 : 1;
    hcl_status st = hcl__comm_host_reserve(&p->s->send, comm->dev, slots * p->slot_send);
    if (st == HCL_SUCCESS) st = hcl__comm_host_reserve(&p->s->recv, comm->dev, slots * p->slot_recv);
    if (st != HCL_SUCCESS) return st;
    const double timeout = atomic_load(&comm->timeout);
#define N_OF(k) ((k) + 1 < chunks ? p->chunk : count - (k)*p->chunk)
    /* the ranks' agreement is asked while chunk 0 comes in from the device */
    int *agree = NULL;
    if ((st = agree_start(p, &agree)) != HCL_SUCCESS) return st;
    const hcl_status in0 = chunk_in(p, 0, N_OF(0));
    st = in0;
    if (st == HCL_SUCCESS && p->req) st = wait_reqs(&p->req, 1, NULL, comm, timeout, hcl__coll_name(op->kind));
    if (p->req) { /* still MPI's: kept for good (or, without memory to record it, leaked), never freed under MPI */
        pthread_mutex_lock(&mpi_lock);
        keep_for_mpi((hcl__comm_host_mem){.ptr = agree});
        pthread_mutex_unlock(&mpi_lock);
        /* timed out: chunk 0 goes to MPI all the same, as without the agreement, so that a rank that comes late
         * completes the collective (when it has one chunk) instead of waiting out its own timeout */
        if (st == HCL_ERROR_TIMEOUT && in0 == HCL_SUCCESS) {
            char why[512];
            snprintf(why, sizeof why, "%s", hcl_last_message());
            left_with_mpi();
            p->req = NULL; /* the agreement's request stays with MPI */
            chunk_start(p, 0, N_OF(0));
            hcl__set_message(st, "%s", why);
        }
        return st;
    }
    if (st == HCL_SUCCESS) st = agree_end(p, agree);
    free(agree);
    if (st != HCL_SUCCESS || (st = chunk_start(p, 0, N_OF(0))) != HCL_SUCCESS) return st;
    for (size_t k = 0; k < chunks; k++) {
        if (k + 1 < chunks && (st = chunk_in(p, k + 1, N_OF(k + 1))) != HCL_SUCCESS) return st;
        if (p->req && (st = wait_reqs(&p->req, 1, NULL, comm, timeout, hcl__coll_name(op->kind))) != HCL_SUCCESS)
            return st;
        if (k + 1 < chunks && (st = chunk_start(p, k + 1, N_OF(k + 1))) != HCL_SUCCESS) return st;
        if ((st = chunk_out(p, k, N_OF(k))) != HCL_SUCCESS) return st;
    }
#undef N_OF
    if (p->req) /* never: the loop waits last */
        return wait_reqs(&p->req, 1, NULL, comm, timeout, hcl__coll_name(op->kind));
    return HCL_SUCCESS;
}

static hcl_status run_collective(hcl__comm *comm, const hcl__coll *op) {
    if (((mpi_state *)comm->state)->shm) return hcl__comm_shm_run(comm, ((mpi_state *)comm->state)->shm, op);
    pipe p = {.comm = comm, .op = op, .s = comm->state, .es = hcl_dtype_size(op->type)};
    hcl_status st = run_pipe(&p);
    if (p.req) left_with_mpi(); /* given up on in flight: the communicator is broken, the memory kept at destroy */
    return st;
}

/* A recorded or single send/recv. */
typedef struct p2p_item {
    hcl__comm *comm;
    hcl__coll op;
    hcl__comm_host_mem mem;
    MPI_Request req;
} p2p_item;

/* Send and receive together (so that two ranks sending to each other in a group do not wait on each other): stage
 * the sends, post every Isend and Irecv, wait for all, write the receives. */
static hcl_status run_p2p_messages(p2p_item *items, size_t n) {
    hcl_status st = HCL_SUCCESS;
    double timeout = 0;
    size_t posted = 0;
    for (size_t i = 0; i < n && st == HCL_SUCCESS; i++) {
        p2p_item *it = &items[i];
        hcl__comm *comm = it->comm;
        const size_t bytes = hcl__coll_bytes(&it->op, it->op.count);
        const double t = atomic_load(&comm->timeout);
        timeout = t > timeout ? t : timeout;
        if (it->op.count > 0x7fffffff) {
            st = hcl__set_message(HCL_ERROR_UNSUPPORTED, "mpi %s of %zu elements: at most 2^31 - 1 in one call",
                                  hcl__coll_name(it->op.kind), it->op.count);
            break;
        }
        if ((st = hcl__comm_host_reserve(&it->mem, comm->dev, bytes)) != HCL_SUCCESS) break;
        mpi_state *s = comm->state;
        int rc;
        if (it->op.kind == HCL__COLL_SEND) {
            if ((st = hcl__comm_stage_in(it->op.q, it->op.send, 0, bytes, it->mem.ptr)) != HCL_SUCCESS) break;
            pthread_mutex_lock(&mpi_lock);
            rc = mpi.MPI_Isend(it->mem.ptr, (int)it->op.count, mpi_type(it->op.type), (int)it->op.root, 0, s->comm,
                               &it->req);
            pthread_mutex_unlock(&mpi_lock);
        } else {
            pthread_mutex_lock(&mpi_lock);
            rc = mpi.MPI_Irecv(it->mem.ptr, (int)it->op.count, mpi_type(it->op.type), (int)it->op.root, 0, s->comm,
                               &it->req);
            pthread_mutex_unlock(&mpi_lock);
        }
        if (rc != MPI_SUCCESS)
            st = hcl__comm_break(comm, mpi_error(rc, it->op.kind == HCL__COLL_SEND ? "MPI_Isend" : "MPI_Irecv"));
        else
            posted = i + 1;
    }
    /* wait for what was posted even after a failure: the host memory must not go while MPI holds it */
    for (size_t i = 0; i < posted; i++) {
        MPI_Status status = {0};
        hcl_status w = wait_reqs(&items[i].req, 1, &status, items[i].comm, timeout, hcl__coll_name(items[i].op.kind));
        if (w == HCL_SUCCESS && items[i].op.kind == HCL__COLL_RECV) {
            /* MPI takes a message shorter than the recv without an error (a longer one is MPI_ERR_TRUNCATE) */
            int got = -1;
            pthread_mutex_lock(&mpi_lock);
            mpi.MPI_Get_count(&status, mpi_type(items[i].op.type), &got);
            pthread_mutex_unlock(&mpi_lock);
            if (got != (int)items[i].op.count)
                w = hcl__comm_break(items[i].comm,
                                    hcl__set_message(HCL_ERROR_INVALID_ARGUMENT,
                                                     "mpi recv on rank %u: rank %u sent %d %s elements (%zu bytes), "
                                                     "this rank receives %zu: a send and its recv must give the same "
                                                     "count and type; the communicator is broken",
                                                     items[i].comm->rank, items[i].op.root, got,
                                                     hcl_dtype_name(items[i].op.type),
                                                     (size_t)(got > 0 ? got : 0) * hcl_dtype_size(items[i].op.type),
                                                     items[i].op.count));
        }
        if (w != HCL_SUCCESS) {
            if (st == HCL_SUCCESS) st = w;
            for (size_t k = 0; k < n; k++) hcl__comm_break(items[k].comm, w);
            break;
        }
        if (items[i].op.kind == HCL__COLL_RECV && st == HCL_SUCCESS)
            st = hcl__comm_stage_out(items[i].op.q, items[i].op.recv, 0,
                                     hcl__coll_bytes(&items[i].op, items[i].op.count), items[i].mem.ptr);
    }
    pthread_mutex_lock(&mpi_lock);
    for (size_t i = 0; i < n; i++) {
        if (!items[i].req) continue;
        left_with_mpi();
        if (keep_for_mpi(items[i].mem)) items[i].mem.ptr = NULL; /* still MPI's (timed out) */
    }
    pthread_mutex_unlock(&mpi_lock);
    for (size_t i = 0; i < n; i++)
        if (items[i].mem.ptr) hcl__comm_host_free(&items[i].mem);
    return st;
}

/* The items of communicators with shared memory for send/recv through it (all at once), then the others through MPI
 * messages (the choice is the communicator's, so every rank of it makes the same). */
static hcl_status run_p2p(p2p_item *items, size_t n) {
    hcl__comm_shm_msg *msgs = malloc((n ? n : 1) * sizeof *msgs);
    p2p_item *rest = malloc((n ? n : 1) * sizeof *rest);
    size_t nm = 0, nr = 0;
    hcl_status st = msgs && rest ? HCL_SUCCESS : hcl__set_message(HCL_ERROR_OUT_OF_MEMORY, "out of host memory");
    for (size_t i = 0; i < n && st == HCL_SUCCESS; i++) {
        hcl__comm_shm *shm = ((mpi_state *)items[i].comm->state)->shm;
        if (hcl__comm_shm_has_p2p(shm))
            msgs[nm++] = (hcl__comm_shm_msg){items[i].comm, shm, &items[i].op};
        else
            rest[nr++] = items[i];
    }
    if (st == HCL_SUCCESS && nm) st = hcl__comm_shm_p2p(msgs, nm);
    if (st == HCL_SUCCESS && nr) st = run_p2p_messages(rest, nr);
    free(msgs);
    free(rest);
    return st;
}

/* ---- groups: recorded per thread (hcl__comm_group), run in order at the end (consecutive send/recv together) ---- */

static hcl_status run(hcl__comm *comm, const hcl__coll *op) {
    hcl__comm_group *g = hcl__comm_group_of(comm->engine);
    if (g) {
        hcl_status st = hcl__comm_group_room(g, sizeof(p2p_item));
        if (st == HCL_SUCCESS) ((p2p_item *)g->items)[g->count++] = (p2p_item){.comm = comm, .op = *op};
        return st;
    }
    if (op->kind == HCL__COLL_SEND || op->kind == HCL__COLL_RECV) {
        p2p_item it = {.comm = comm, .op = *op};
        return run_p2p(&it, 1);
    }
    return run_collective(comm, op);
}

static hcl_status group_end(const hcl__comm_engine *self, hcl__comm_group *g) {
    (void)self;
    p2p_item *recorded = g->items;
    hcl__comm_first_failure first = {0};
    for (size_t i = 0; i < g->count;) {
        hcl_status st;
        size_t next = i + 1;
        const int broken = atomic_load(&recorded[i].comm->broken);
        if (broken) {
            st = hcl__set_message((hcl_status)broken, "the communicator is broken: %s", recorded[i].comm->broken_why);
        } else if (recorded[i].op.kind == HCL__COLL_SEND || recorded[i].op.kind == HCL__COLL_RECV) {
            while (next < g->count &&
                   (recorded[next].op.kind == HCL__COLL_SEND || recorded[next].op.kind == HCL__COLL_RECV))
                next++;
            st = run_p2p(&recorded[i], next - i);
        } else {
            st = run_collective(recorded[i].comm, &recorded[i].op);
        }
        hcl__comm_first_note(&first, st);
        i = next;
    }
    return hcl__comm_first_result(&first);
}

/* serves: none, every device (the data goes through host memory) */
static const hcl__comm_engine_ops ops = {
    .load = load, .get_id = get_id, .create = create, .destroy = destroy, .run = run, .group_end = group_end};
const hcl__comm_engine hcl__comm_mpi = {.name = "mpi", .backends = "any", .has_id = 1, .ops = &ops};
