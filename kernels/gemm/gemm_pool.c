/* The host GEMM's own worker threads (kernels/gemm/gemm_pool.h).
 *
 * Why not an OpenMP parallel region: libgomp's threads wait for work and for each other by spinning (its default
 * wait policy), and a region cannot end before every thread of its team has run. On a busy machine a worker that
 * spins between calls is descheduled with its time used up, so the next call waits a scheduler slice for it: small
 * products ran 50 times slower than on one thread, unless the user had set OMP_WAIT_POLICY=passive before the
 * process started. Here a call never waits for a worker that has not started: the caller closes the job when it has
 * run out of work, and waits only for workers that are inside it. Idle workers spin briefly, poll with sched_yield for
 * a while, then sleep on a condition variable.
 */
#if defined(__unix__) || defined(__APPLE__)
#define _POSIX_C_SOURCE 200809L /* clock_gettime, sched_yield under -std=c11 */
#endif

#include "gemm_pool.h"

#include <stdatomic.h>
#include <stddef.h>

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#include <sched.h>
#include <time.h>

/* Workers at most (the caller is one more). */
#define HCL_GEMM_POOL_MAX 255
/* An idle worker spins for the next job this long (back-to-back small calls find it running), then polls with
 * sched_yield (giving its core to anyone else who wants it) up to HCL_GEMM_POOL_POLL_NS, then sleeps. The caller
 * spins as long for the last workers of a job before it sleeps. */
#define HCL_GEMM_POOL_SPIN_NS 50000L
#define HCL_GEMM_POOL_POLL_NS 5000000L

typedef struct hcl_gemm_pool {
    pthread_mutex_t lock;
    pthread_cond_t wake;     /* a job was posted, or stop */
    pthread_cond_t idle;     /* running fell to 0 */
    atomic_ulong generation; /* posted jobs so far */
    hcl_gemm_pool_fn fn;     /* the open job (NULL once closed) */
    void *ctx;
    size_t want, joined;   /* workers the job takes, that took part */
    atomic_size_t running; /* workers still in the job (changed under lock, read by the caller's spin) */
    int busy, stop;        /* a caller holds the pool; the process is unloading */
    size_t count;          /* workers started */
    pthread_t threads[HCL_GEMM_POOL_MAX];
} hcl_gemm_pool;

static hcl_gemm_pool hcl_gemm_pool_state = {
    .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER};

static long long hcl_gemm_pool_now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void hcl_gemm_pool_pause(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#endif
}

static void *hcl_gemm_pool_worker(void *unused) {
    (void)unused;
    hcl_gemm_pool *p = &hcl_gemm_pool_state;
    unsigned long seen = atomic_load(&p->generation);
    for (;;) {
        /* Poll first: back-to-back calls find the worker awake, and sched_yield lets others run meanwhile. */
        const long long start = hcl_gemm_pool_now_ns();
        for (long long now = start; atomic_load(&p->generation) == seen && now - start < HCL_GEMM_POOL_POLL_NS;
             now = hcl_gemm_pool_now_ns()) {
            if (now - start < HCL_GEMM_POOL_SPIN_NS)
                hcl_gemm_pool_pause();
            else
                sched_yield();
        }
        pthread_mutex_lock(&p->lock);
        while (!p->stop && atomic_load(&p->generation) == seen) pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop) {
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        seen = atomic_load(&p->generation);
        if (p->fn == NULL || p->joined >= p->want) { /* closed already, or enough workers: nothing for this one */
            pthread_mutex_unlock(&p->lock);
            continue;
        }
        const size_t slot = ++p->joined;
        atomic_fetch_add(&p->running, 1);
        const hcl_gemm_pool_fn fn = p->fn;
        void *ctx = p->ctx;
        pthread_mutex_unlock(&p->lock);
        fn(ctx, slot);
        pthread_mutex_lock(&p->lock);
        if (atomic_fetch_sub(&p->running, 1) == 1) pthread_cond_signal(&p->idle);
        pthread_mutex_unlock(&p->lock);
    }
}

#if defined(__GNUC__)
/* Workers run this library's code: stop them before it is unloaded (or the process ends). */
__attribute__((destructor)) static void hcl_gemm_pool_stop(void) {
    hcl_gemm_pool *p = &hcl_gemm_pool_state;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    const size_t count = p->count;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
    for (size_t i = 0; i < count; ++i) pthread_join(p->threads[i], NULL);
}
#endif

/* A child of fork() has none of its parent's workers: it starts its own, and its exit joins none of the parent's
 * (joining those would wait forever). */
static void hcl_gemm_pool_forked(void) {
    hcl_gemm_pool *p = &hcl_gemm_pool_state;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->idle, NULL);
    p->count = 0;
    p->busy = 0;
    p->fn = NULL;
    atomic_store(&p->running, 0);
}

static void hcl_gemm_pool_at_fork(void) { pthread_atfork(NULL, NULL, hcl_gemm_pool_forked); }

size_t hcl__gemm_pool_run(size_t threads, hcl_gemm_pool_fn fn, void *ctx) {
    static pthread_once_t fork_handler = PTHREAD_ONCE_INIT;
    pthread_once(&fork_handler, hcl_gemm_pool_at_fork);
    hcl_gemm_pool *p = &hcl_gemm_pool_state;
    size_t workers = threads > 0 ? threads - 1 : 0;
    if (workers > HCL_GEMM_POOL_MAX) workers = HCL_GEMM_POOL_MAX;
    pthread_mutex_lock(&p->lock);
    if (workers == 0 || p->busy || p->stop) { /* another call has the pool: this one runs on its own thread */
        pthread_mutex_unlock(&p->lock);
        fn(ctx, 0);
        return 1;
    }
    while (p->count < workers) {
        if (pthread_create(&p->threads[p->count], NULL, hcl_gemm_pool_worker, NULL) != 0) break;
        ++p->count;
    }
    if (workers > p->count) workers = p->count; /* a worker that could not start: fewer threads, same result */
    p->busy = 1;
    p->fn = fn;
    p->ctx = ctx;
    p->want = workers;
    p->joined = 0;
    atomic_fetch_add(&p->generation, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);

    fn(ctx, 0);

    pthread_mutex_lock(&p->lock);
    p->fn = NULL; /* the caller ran out of work: a worker that wakes now stays out */
    pthread_mutex_unlock(&p->lock);
    const long long start = hcl_gemm_pool_now_ns();
    while (atomic_load(&p->running) > 0 && hcl_gemm_pool_now_ns() - start < HCL_GEMM_POOL_SPIN_NS)
        hcl_gemm_pool_pause();
    pthread_mutex_lock(&p->lock);
    while (atomic_load(&p->running) > 0) pthread_cond_wait(&p->idle, &p->lock);
    const size_t used = 1 + p->joined;
    p->busy = 0;
    pthread_mutex_unlock(&p->lock);
    return used;
}

#else

size_t hcl__gemm_pool_run(size_t threads, hcl_gemm_pool_fn fn, void *ctx) {
    (void)threads;
    fn(ctx, 0);
    return 1;
}

#endif
