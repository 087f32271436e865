/* API conformance: modules, kernels and launches, on every backend.
 *
 * The suite carries one user module in every source form it can (OpenCL C, CUDA C, HIP C and a host C
 * function table); each backend takes the form it runs. Its kernels:
 *   scale_rev(out, in, float alpha, uint n, dynamic local tmp[block]): out[g] = alpha * in[mirror(g)] + group,
 *     where mirror reverses the order of the elements within their work-group, through local memory, and
 *     elements past n read as 0. alpha = 2 keeps the arithmetic exact.
 *   index3d(uint *out): every work-item of a 3-D launch writes its global x | y << 10 | z << 20.
 */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SENTINEL(type) ((type)(uintptr_t)0x5e5e5e50u)

static const char opencl_src[] =
    "__kernel void scale_rev(__global float *out, __global const float *in, float alpha, uint n,\n"
    "                        __local float *tmp) {\n"
    "    uint l = get_local_id(0), bs = get_local_size(0), grp = get_group_id(0), g = grp * bs + l;\n"
    "    tmp[l] = g < n ? in[g] : 0.0f;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (g < n) out[g] = alpha * tmp[bs - 1 - l] + (float)grp;\n"
    "}\n"
    "__kernel void index3d(__global uint *out) {\n"
    "    uint x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);\n"
    "    uint gx = get_global_size(0), gy = get_global_size(1);\n"
    "    out[(z * gy + y) * gx + x] = x | (y << 10) | (z << 20);\n"
    "}\n";

/* CUDA C++ for NVRTC; the same text is HIP C++ for hiprtc. */
static const char cuda_src[] =
    "extern \"C\" __global__ void scale_rev(float *out, const float *in, float alpha, unsigned int n) {\n"
    "    extern __shared__ float tmp[];\n"
    "    unsigned int l = threadIdx.x, bs = blockDim.x, grp = blockIdx.x, g = grp * bs + l;\n"
    "    tmp[l] = g < n ? in[g] : 0.0f;\n"
    "    __syncthreads();\n"
    "    if (g < n) out[g] = alpha * tmp[bs - 1 - l] + (float)grp;\n"
    "}\n"
    "extern \"C\" __global__ void index3d(unsigned int *out) {\n"
    "    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
    "    unsigned int z = blockIdx.z * blockDim.z + threadIdx.z;\n"
    "    unsigned int gx = gridDim.x * blockDim.x, gy = gridDim.y * blockDim.y;\n"
    "    out[(z * gy + y) * gx + x] = x | (y << 10) | (z << 20);\n"
    "}\n";

static void host_scale_rev(const hcl_host_launch *L, void *const *args) {
    hcl_ts_host_axpy_args p = hcl_ts_host_axpy(args); /* out, in, alpha, n */
    float *tmp = L->shared;
    uint32_t bs = L->block.x, grp = L->group_id.x;
    if (!tmp || L->shared_size < bs * sizeof(float)) return; /* the output stays poisoned: the test fails */
    for (uint32_t l = 0; l < bs; l++) {
        uint32_t g = grp * bs + l;
        tmp[l] = g < p.n ? p.in[g] : 0.0f;
    }
    for (uint32_t l = 0; l < bs; l++) {
        uint32_t g = grp * bs + l;
        if (g < p.n) p.out[g] = p.a * tmp[bs - 1 - l] + (float)grp;
    }
}

static void host_index3d(const hcl_host_launch *L, void *const *args) {
    uint32_t *out = *(uint32_t *const *)args[0];
    uint32_t gx = L->grid.x * L->block.x, gy = L->grid.y * L->block.y;
    for (uint32_t lz = 0; lz < L->block.z; lz++)
        for (uint32_t ly = 0; ly < L->block.y; ly++)
            for (uint32_t lx = 0; lx < L->block.x; lx++) {
                uint32_t x = L->group_id.x * L->block.x + lx, y = L->group_id.y * L->block.y + ly;
                uint32_t z = L->group_id.z * L->block.z + lz;
                out[(z * gy + y) * gx + x] = x | (y << 10) | (z << 20);
            }
}

static const hcl_host_function host_table[] = {{"scale_rev", host_scale_rev}, {"index3d", host_index3d}};

#ifdef HCL_CONF_HAVE_VULKAN_SPIRV
/* user_kernels.comp compiled by glslangValidator and joined by spirv-link (conformance/CMakeLists.txt) */
extern const unsigned char hcl_conf_vulkan_spirv[];
extern const size_t hcl_conf_vulkan_spirv_size;
#endif

static hcl_module user_module_on(hcl_device dev) {
    hcl_module_source src[5] = {
        {HCL_SOURCE_OPENCL_C, opencl_src, sizeof opencl_src - 1, NULL},
        {HCL_SOURCE_CUDA_C, cuda_src, sizeof cuda_src - 1, NULL},
        {HCL_SOURCE_HIP_C, cuda_src, sizeof cuda_src - 1, NULL},
        {HCL_SOURCE_HOST_TABLE, host_table, sizeof host_table / sizeof host_table[0], NULL},
    };
    uint32_t count = 4;
#ifdef HCL_CONF_HAVE_VULKAN_SPIRV
    src[count++] =
        (hcl_module_source){HCL_SOURCE_SPIRV_VULKAN, hcl_conf_vulkan_spirv, hcl_conf_vulkan_spirv_size, NULL};
#endif
    hcl_module m = NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_module_create(dev, src, count, &m))) return NULL;
    conf_track_module(m);
    return m;
}

static hcl_kernel kernel_of(hcl_module m, const char *name) {
    hcl_kernel k = NULL;
    if (!m || !CHECK_ST(HCL_SUCCESS, hcl_kernel_create(m, name, &k))) return NULL;
    conf_track_kernel(k);
    return k;
}

static uint32_t block_size(void) {
    return conf_info.max_work_group_size >= 64 ? 64 : (uint32_t)conf_info.max_work_group_size;
}

static float scale_rev_ref(const float *in, uint32_t n, uint32_t bs, uint32_t g) {
    uint32_t grp = g / bs, l = g % bs, j = grp * bs + (bs - 1 - l);
    float v = j < n ? in[j] : 0.0f;
    return (float)(2.0 * (double)v + (double)grp);
}

/* What the cases of refused launches launch: the user module's scale_rev (returned), its two buffers of n floats, both
 * poisoned (so a launch that should not have run is seen), and ok, the arguments of a good launch over them (alpha 2;
 * they point into the struct). NULL when any of them could not be made. */
typedef struct scale_rev_setup {
    uint32_t n;
    float alpha;
    hcl_buffer out, in;
    hcl_arg ok[4];
} scale_rev_setup;

static hcl_kernel scale_rev_with_buffers(uint32_t n, scale_rev_setup *s) {
    hcl_kernel k = kernel_of(user_module_on(conf_dev), "scale_rev");
    s->n = n, s->alpha = 2.0f;
    s->out = conf_buffer(n * 4), s->in = conf_buffer(n * 4);
    s->ok[0] = hcl_arg_buffer(s->out), s->ok[1] = hcl_arg_buffer(s->in);
    s->ok[2] = hcl_arg_value(&s->alpha, 4), s->ok[3] = hcl_arg_value(&s->n, 4);
    const bool made = s->out && s->in && conf_poison_buffer(s->out, 0, n * 4) && conf_poison_buffer(s->in, 0, n * 4);
    return made ? k : NULL;
}

/* Launch scale_rev over n elements with the given byte offsets of its buffer arguments, and check. */
static void run_scale_rev(hcl_kernel k, uint32_t n, size_t out_off, size_t in_off) {
    uint32_t bs = block_size();
    size_t out_len = out_off / 4 + n + 8, in_len = in_off / 4 + n + 1;
    float *in = conf_floats(in_len), *out = conf_floats(out_len);
    conf_fill_uniform(in, in_len, -1.0f, 1.0f);
    hcl_buffer bin = conf_buffer(in_len * 4), bout = conf_buffer(out_len * 4);
    if (!bin || !bout || !conf_write(bin, 0, in, in_len * 4) || !conf_poison_buffer(bout, 0, out_len * 4)) return;
    float alpha = 2.0f;
    hcl_arg args[4] = {hcl_arg_buffer(bout), hcl_arg_buffer(bin), hcl_arg_value(&alpha, sizeof alpha),
                       hcl_arg_value(&n, sizeof n)};
    args[0].offset = out_off;
    args[1].offset = in_off;
    hcl_dim3 grid = {(n + bs - 1) / bs, 1, 1}, block = {bs, 1, 1};
    hcl_event ev = NULL;
    if (!CHECK_ST(HCL_SUCCESS,
                  hcl_kernel_launch(conf_queue, k, grid, block, bs * sizeof(float), 4, args, 0, NULL, &ev)))
        return;
    if (!CHECK(ev != NULL, "hcl_kernel_launch returned no event")) return;
    conf_track_event(ev);
    CHECK_ST(HCL_SUCCESS, hcl_event_wait(ev));
    double s = -1;
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(ev, ev, &s))) CHECK(s >= 0 && isfinite(s), "kernel elapsed %g s", s);
    if (!conf_read(bout, 0, out, out_len * 4)) return;

    const float *src = in + in_off / 4;
    double *ref = conf_doubles(n ? n : 1);
    for (uint32_t g = 0; g < n; g++) ref[g] = scale_rev_ref(src, n, bs, g);
    char what[128];
    snprintf(what, sizeof what, "scale_rev n=%u block=%u out offset %zu in offset %zu", n, bs, out_off, in_off);
    conf_compare(what, out + out_off / 4, ref, NULL, n);
    conf_check_untouched("scale_rev: output before its offset", out, out_off / 4);
    conf_check_untouched("scale_rev: output after n", out + out_off / 4 + n, 8);
}

CONF_TEST(api, kernel_user) {
    hcl_module m = user_module_on(conf_dev);
    hcl_kernel k = kernel_of(m, "scale_rev");
    REQUIRE(k != NULL, "kernel");
    run_scale_rev(k, 1000, 0, 0);
    run_scale_rev(k, 1, 0, 0);
    run_scale_rev(k, 64, 0, 0);
    run_scale_rev(k, 777, 0, 0);
    /* A second kernel handle of the same function works alike. */
    hcl_kernel k2 = kernel_of(m, "scale_rev");
    REQUIRE(k2 != NULL, "second kernel");
    CHECK(k2 != k, "two hcl_kernel_create calls gave the same handle");
    run_scale_rev(k2, 4099, 0, 0);
    run_scale_rev(k2, (1u << 20) + 3, 0, 0); /* 16385 work-groups */
}

/* A work-group of the device's max_work_group_size (capped at 4096) is valid. */
CONF_TEST(api, kernel_max_block) {
    hcl_kernel k = kernel_of(user_module_on(conf_dev), "index3d");
    REQUIRE(k != NULL, "kernel");
    /* the kernel's own limit (NVIDIA's OpenCL says 256 for this kernel on an H100, under the device's 1024) */
    uint64_t kmax = 0;
    REQUIRE_OK(hcl_kernel_get_max_group_size(k, &kmax));
    CHECK(kmax >= 1 && kmax <= conf_info.max_work_group_size, "kernel max group %llu, device %llu",
          (unsigned long long)kmax, (unsigned long long)conf_info.max_work_group_size);
    uint32_t bs = kmax < 4096 ? (uint32_t)kmax : 4096;

    size_t n = 2 * (size_t)bs, bytes = n * 4;
    /* In a 1-D launch y = z = 0, so index3d writes x itself. */
    uint32_t *got = conf_malloc(bytes);
    hcl_buffer b = conf_buffer(bytes);
    REQUIRE(b && conf_poison_buffer(b, 0, bytes), "buffer");
    hcl_arg arg = hcl_arg_buffer(b);
    /* one more work-item than the kernel's limit is refused before the vendor sees it */
    if (kmax < UINT32_MAX)
        CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
                 hcl_kernel_launch(conf_queue, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){(uint32_t)kmax + 1, 1, 1}, 0, 1, &arg,
                                   0, NULL, NULL));
    REQUIRE_OK(hcl_kernel_launch(conf_queue, k, (hcl_dim3){2, 1, 1}, (hcl_dim3){bs, 1, 1}, 0, 1, &arg, 0, NULL, NULL));
    REQUIRE(conf_read(b, 0, got, bytes), "read");
    size_t bad = 0, first = 0;
    for (uint32_t x = 0; x < n; x++)
        if (got[x] != x && bad++ == 0) first = x;
    CHECK(bad == 0, "index3d with block %u: %zu wrong elements, first [%zu] = 0x%08x", bs, bad, first, got[first]);
}

/* Buffer arguments with an offset: the kernel sees the buffer's address plus the offset. Offsets here are
 * multiples of the device's arg_offset_alignment (and of 4, the element size). */
static size_t offset_unit(void) {
    uint64_t a = conf_info.arg_offset_alignment;
    return a > 4 ? (size_t)a : 4;
}

CONF_TEST(api, kernel_arg_offsets) {
    hcl_kernel k = kernel_of(user_module_on(conf_dev), "scale_rev");
    REQUIRE(k != NULL, "kernel");
    size_t u = offset_unit();
    run_scale_rev(k, 500, 2 * u, u);
    run_scale_rev(k, 333, 8 * u, 0);
    run_scale_rev(k, 64, 0, 3 * u);
}

/* hcl.h: a buffer argument's offset must be a multiple of arg_offset_alignment (1: any offset); one that is
 * not gives HCL_ERROR_INVALID_ARGUMENT, and a launch with every offset a multiple of it works. */
CONF_TEST(api, kernel_arg_offset_alignment) {
    uint64_t align = conf_info.arg_offset_alignment;
    REQUIRE(align >= 1 && (align & (align - 1)) == 0, "arg_offset_alignment %llu is not a power of two",
            (unsigned long long)align);
    cr_log_info("%s: arg_offset_alignment %llu", conf_backend_name, (unsigned long long)align);
    hcl_kernel k = kernel_of(user_module_on(conf_dev), "scale_rev");
    REQUIRE(k != NULL, "kernel");
    size_t big = align > 4096 ? 0 : (size_t)align; /* offsets beyond 4 KiB are not tried */
    const size_t offsets[] = {4, 8, 12, 20, big, big + 4, big / 2};
    uint32_t n = 100;
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        size_t off = offsets[i];
        if (off == 0 || off % 4 != 0) continue;
        if (off % align == 0) {
            run_scale_rev(k, n, off, off); /* must work */
            continue;
        }
        size_t bytes = off + n * 4 + 64;
        hcl_buffer b = conf_buffer(bytes), in = conf_buffer(bytes);
        if (!b || !in || !conf_poison_buffer(b, 0, bytes) || !conf_poison_buffer(in, 0, bytes)) continue;
        float alpha = 2.0f;
        hcl_arg args[4] = {hcl_arg_buffer(b), hcl_arg_buffer(in), hcl_arg_value(&alpha, 4), hcl_arg_value(&n, 4)};
        hcl_dim3 grid = {(n + 3) / 4, 1, 1}, block = {4, 1, 1};
        hcl_event e = (hcl_event)(uintptr_t)0x5e5e5e50u;
        args[0].offset = off;
        CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_kernel_launch(conf_queue, k, grid, block, 16, 4, args, 0, NULL, &e));
        args[0].offset = 0;
        args[1].offset = off;
        CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_kernel_launch(conf_queue, k, grid, block, 16, 4, args, 0, NULL, &e));
        CHECK(e == (hcl_event)(uintptr_t)0x5e5e5e50u, "a failing launch wrote its out_event");
        float *got = conf_floats(bytes / 4);
        if (CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue)) && conf_read(b, 0, got, bytes))
            conf_check_untouched("output after refused launches", got, bytes / 4);
    }
}

/* Many launches in a row, each reading what the one before wrote (scale_rev between two buffers), with events on some,
 * released while their commands may still be pending (a driver that gathers commands into one submission, as Vulkan's
 * does, must submit them for that), a second queue's copy waiting on the last one's event, then the result read
 * through that queue and the device time from the first event to the last. */
CONF_TEST(api, kernel_chain_events) {
    enum { STEPS = 37, EVERY = 4 };
    hcl_kernel k = kernel_of(user_module_on(conf_dev), "scale_rev");
    REQUIRE(k != NULL, "kernel");
    const uint32_t n = 1001, bs = block_size();
    float *x = conf_floats(n), *got = conf_floats(n);
    conf_fill_uniform(x, n, -1.0f, 1.0f);
    hcl_buffer buf[2] = {conf_buffer(n * 4), conf_buffer(n * 4)}, copy = conf_buffer(n * 4);
    REQUIRE(buf[0] && buf[1] && copy && conf_write(buf[0], 0, x, n * 4) && conf_poison_buffer(copy, 0, n * 4),
            "buffers");
    hcl_queue q2 = conf_queue_on(conf_dev);
    REQUIRE(q2 != NULL, "second queue");
    float alpha = 2.0f;
    hcl_event first = NULL, last = NULL;
    for (uint32_t i = 0; i < STEPS; i++) {
        hcl_arg args[4] = {hcl_arg_buffer(buf[(i + 1) % 2]), hcl_arg_buffer(buf[i % 2]), hcl_arg_value(&alpha, 4),
                           hcl_arg_value(&n, 4)};
        const bool want = i % EVERY == 0 || i == STEPS - 1;
        hcl_event e = NULL;
        REQUIRE_OK(hcl_kernel_launch(conf_queue, k, (hcl_dim3){(n + bs - 1) / bs, 1, 1}, (hcl_dim3){bs, 1, 1},
                                     bs * sizeof(float), 4, args, 0, NULL, want ? &e : NULL));
        if (!want) continue;
        if (i == 0) {
            first = e;
            conf_track_event(e);
        } else if (i == STEPS - 1) {
            last = e;
            conf_track_event(e);
        } else {
            CHECK_ST(HCL_SUCCESS, hcl_event_release(e)); /* its command still runs, in order */
        }
    }
    hcl_event copied = NULL;
    REQUIRE_OK(hcl_buffer_copy_async(q2, copy, 0, buf[STEPS % 2], 0, n * 4, 1, &last, &copied));
    conf_track_event(copied);
    REQUIRE_OK(hcl_buffer_read(q2, copy, 0, n * 4, got));
    CHECK_ST(HCL_SUCCESS, hcl_event_wait(last));
    double s = -1;
    if (CHECK_ST(HCL_SUCCESS, hcl_event_elapsed(first, last, &s)))
        CHECK(s >= 0 && isfinite(s), "elapsed from the first launch to the last %g s", s);
    float *cur = conf_floats(n), *next = conf_floats(n);
    memcpy(cur, x, n * 4);
    for (uint32_t i = 0; i < STEPS; i++) {
        for (uint32_t g = 0; g < n; g++) next[g] = scale_rev_ref(cur, n, bs, g);
        memcpy(cur, next, n * 4);
    }
    double *ref = conf_doubles(n);
    for (uint32_t g = 0; g < n; g++) ref[g] = cur[g];
    conf_compare("scale_rev chained 37 times, read through a second queue", got, ref, NULL, n);
}

CONF_TEST(api, kernel_grid3d) {
    hcl_kernel k = kernel_of(user_module_on(conf_dev), "index3d");
    REQUIRE(k != NULL, "kernel");
    static const hcl_dim3 shapes[][2] = {{{3, 2, 2}, {4, 3, 2}},
                                         {{1, 1, 1}, {1, 1, 1}},
                                         {{5, 1, 1}, {7, 1, 1}},
                                         {{1, 7, 1}, {1, 1, 3}},
                                         {{2, 3, 4}, {1, 2, 1}}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        hcl_dim3 grid = shapes[s][0], block = shapes[s][1];
        uint32_t gx = grid.x * block.x, gy = grid.y * block.y, gz = grid.z * block.z;
        size_t n = (size_t)gx * gy * gz, bytes = (n + 4) * 4;
        uint32_t *got = conf_malloc(bytes);
        hcl_buffer b = conf_buffer(bytes);
        if (!b || !conf_poison_buffer(b, 0, bytes)) continue;
        hcl_arg arg = hcl_arg_buffer(b);
        if (!CHECK_ST(HCL_SUCCESS, hcl_kernel_launch(conf_queue, k, grid, block, 0, 1, &arg, 0, NULL, NULL))) continue;
        if (!conf_read(b, 0, got, bytes)) continue;
        size_t bad = 0, first = 0;
        for (uint32_t z = 0; z < gz; z++)
            for (uint32_t y = 0; y < gy; y++)
                for (uint32_t x = 0; x < gx; x++) {
                    size_t i = ((size_t)z * gy + y) * gx + x;
                    if (got[i] != (x | (y << 10) | (z << 20)) && bad++ == 0) first = i;
                }
        for (size_t i = n; i < n + 4; i++)
            if (got[i] != HCL_TS_POISON_BITS && bad++ == 0) first = i;
        CHECK(bad == 0, "index3d grid {%u,%u,%u} block {%u,%u,%u}: %zu wrong elements, first [%zu] = 0x%08x", grid.x,
              grid.y, grid.z, block.x, block.y, block.z, bad, first, got[first]);
    }
}

CONF_TEST(api, kernel_launch_errors) {
    uint32_t n = 256, bs = block_size();
    scale_rev_setup s;
    hcl_kernel k = scale_rev_with_buffers(n, &s);
    REQUIRE(k != NULL, "the scale_rev kernel and its buffers");
    hcl_arg a[4];
    hcl_dim3 grid = {n / bs, 1, 1}, block = {bs, 1, 1};
    size_t sh = bs * sizeof(float);
    hcl_queue q = conf_queue;
    hcl_event e = SENTINEL(hcl_event);
#define LAUNCH(want, g, b, shared, args) CHECK_ST(want, hcl_kernel_launch(q, k, g, b, shared, 4, args, 0, NULL, &e))

    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, ((hcl_dim3){0, 1, 1}), block, sh, s.ok);
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, ((hcl_dim3){1, 0, 1}), block, sh, s.ok);
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, ((hcl_dim3){1, 1, 0}), block, sh, s.ok);
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, ((hcl_dim3){0, 1, 1}), sh, s.ok);
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, ((hcl_dim3){bs, 1, 0}), sh, s.ok);
    uint64_t max = conf_info.max_work_group_size;
    if (max < UINT32_MAX) {
        LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, ((hcl_dim3){(uint32_t)max + 1, 1, 1}), 0, s.ok);
        LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, ((hcl_dim3){(uint32_t)max, 2, 1}), 0, s.ok);
        LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, ((hcl_dim3){1, (uint32_t)max, 2}), 0, s.ok);
    }
    /* A product of the three that overflows 64 bits is above any limit. */
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, ((hcl_dim3){UINT32_MAX, UINT32_MAX, 2}), 0, s.ok);
    if (conf_info.local_mem_bytes < SIZE_MAX)
        LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, block, conf_info.local_mem_bytes + 1, s.ok);
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, block, SIZE_MAX, s.ok);
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_kernel_launch(q, k, grid, block, sh, 4, NULL, 0, NULL, &e));

    memcpy(a, s.ok, sizeof a);
    a[2].kind = (hcl_arg_kind)7;
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, block, sh, a);
    a[2].kind = (hcl_arg_kind)0;
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, block, sh, a);
    memcpy(a, s.ok, sizeof a);
    a[3].size = 0;
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, block, sh, a);
    a[3].size = 257;
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, block, sh, a);
    memcpy(a, s.ok, sizeof a);
    a[3].value = NULL;
    LAUNCH(HCL_ERROR_INVALID_ARGUMENT, grid, block, sh, a);
    memcpy(a, s.ok, sizeof a);
    a[0].buffer = NULL;
    LAUNCH(HCL_ERROR_INVALID_HANDLE, grid, block, sh, a);
    memcpy(a, s.ok, sizeof a);
    a[1].offset = n * 4; /* must be below the size */
    LAUNCH(HCL_ERROR_OUT_OF_RANGE, grid, block, sh, a);
    a[1].offset = SIZE_MAX;
    LAUNCH(HCL_ERROR_OUT_OF_RANGE, grid, block, sh, a);

    hcl_buffer dead = conf_dead_buffer(64);
    REQUIRE(dead != NULL, "a released buffer");
    memcpy(a, s.ok, sizeof a);
    a[1].buffer = dead;
    LAUNCH(HCL_ERROR_INVALID_HANDLE, grid, block, sh, a);

    hcl_event dead_ev = NULL;
    REQUIRE_OK(hcl_queue_marker(q, &dead_ev));
    REQUIRE_OK(hcl_event_release(dead_ev));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_kernel_launch(q, k, grid, block, sh, 4, s.ok, 1, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_kernel_launch(q, k, grid, block, sh, 4, s.ok, 1, &dead_ev, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_kernel_launch(NULL, k, grid, block, sh, 4, s.ok, 0, NULL, &e));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_kernel_launch(q, NULL, grid, block, sh, 4, s.ok, 0, NULL, &e));
    CHECK(e == SENTINEL(hcl_event), "a failing hcl_kernel_launch wrote its out_event");
#undef LAUNCH

    /* Nothing ran. */
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(q));
    conf_check_buffer_untouched("scale_rev output after failing launches", s.out, n);
}

/* Shapes far beyond any device's limits, or whose products wrap around 64 bits, are refused by the core with the
 * limit named, before the vendor runtime sees them (PoCL aborts and NVIDIA's OpenCL hangs on UINT32_MAX grids);
 * the device works after. */
CONF_TEST(api, kernel_launch_limits) {
    uint32_t n = 256;
    scale_rev_setup s;
    hcl_kernel k = scale_rev_with_buffers(n, &s);
    REQUIRE(k != NULL, "the scale_rev kernel and its buffers");
    const uint32_t M = UINT32_MAX, H = 1u << 31;
    /* The grid cases name the device's per-dimension work-group limit where it states one (CUDA/HIP x: 2^31 - 1,
     * y and z: 65535; Level Zero; host: UINT32_MAX), else the 2^63 work-items a launch may have. */
    static const char GRID[] = "2^63|max_groups", BLOCK[] = "max_work_group_size";
    static const struct {
        hcl_dim3 grid, block;
        const char *limit; /* texts the message must hold one of, separated by '|' */
    } cases[] = {
        {{M, M, M}, {1, 1, 1}, GRID},  {{M, 1, 1}, {M, 1, 1}, BLOCK}, {{1, 1, 1}, {M, M, M}, BLOCK},
        {{M, M, M}, {M, M, M}, BLOCK}, {{1, 1, 1}, {H, H, 4}, BLOCK}, /* 2^64 work-items: 0 in a 64-bit product that wraps */
        {{H, H, 4}, {1, 1, 1}, GRID},                                 /* 2^64 work-groups, the same */
        {{M, M, 1}, {1, 1, 1}, GRID},  {{H, H, 2}, {1, 1, 1}, GRID},  {{M, M, 2}, {2, 1, 1}, GRID},
        {{1, M, M}, {1, 1, 1}, GRID},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        hcl_event e = SENTINEL(hcl_event);
        conf_prime_message();
        if (CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
                     hcl_kernel_launch(conf_queue, k, cases[i].grid, cases[i].block, 0, 4, s.ok, 0, NULL, &e))) {
            const char *msg = hcl_last_message();
            bool named = false;
            for (const char *t = cases[i].limit; *t;) {
                size_t len = strcspn(t, "|");
                char alt[32];
                snprintf(alt, sizeof alt, "%.*s", (int)len, t);
                named |= strstr(msg, alt) != NULL;
                t += len + (t[len] == '|');
            }
            CHECK(named && strstr(msg, "hcl_kernel_launch") != NULL, "case %zu: the message should name %s: \"%s\"", i,
                  cases[i].limit, msg);
            cr_log_info("%s", msg);
        }
        CHECK(e == SENTINEL(hcl_event), "case %zu: a failing launch wrote its out_event", i);
    }
    /* Nothing ran, and the device still works. */
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
    conf_check_buffer_untouched("scale_rev output after refused launches", s.out, n);
    run_scale_rev(k, 1000, 0, 0);
}

CONF_TEST(api, kernel_handles) {
    hcl_module m = user_module_on(conf_dev);
    REQUIRE(m != NULL, "module");
    hcl_kernel k = SENTINEL(hcl_kernel);
    CHECK_ST(HCL_ERROR_NOT_FOUND, hcl_kernel_create(m, "no_such_kernel", &k));
    /* An empty name is no kernel: either answer is fair. */
    CHECK_ST2(HCL_ERROR_NOT_FOUND, HCL_ERROR_INVALID_ARGUMENT, hcl_kernel_create(m, "", &k));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_kernel_create(m, NULL, &k));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_kernel_create(m, "scale_rev", NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_kernel_create(NULL, "scale_rev", &k));
    CHECK(k == SENTINEL(hcl_kernel), "a failing hcl_kernel_create wrote its out-parameter");
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_kernel_release(NULL));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_module_release(NULL));

    /* A released kernel; a module released before its kernel (the kernel keeps it alive). */
    hcl_module m2 = NULL;
    hcl_kernel dead = NULL, live = NULL;
    hcl_module_source src = {HCL_SOURCE_OPENCL_C, opencl_src, sizeof opencl_src - 1, NULL};
    hcl_module_source srcs[5] = {src,
                                 {HCL_SOURCE_CUDA_C, cuda_src, sizeof cuda_src - 1, NULL},
                                 {HCL_SOURCE_HIP_C, cuda_src, sizeof cuda_src - 1, NULL},
                                 {HCL_SOURCE_HOST_TABLE, host_table, 2, NULL}};
    uint32_t nsrcs = 4;
#ifdef HCL_CONF_HAVE_VULKAN_SPIRV
    srcs[nsrcs++] =
        (hcl_module_source){HCL_SOURCE_SPIRV_VULKAN, hcl_conf_vulkan_spirv, hcl_conf_vulkan_spirv_size, NULL};
#endif
    REQUIRE_OK(hcl_module_create(conf_dev, srcs, nsrcs, &m2));
    REQUIRE_OK(hcl_kernel_create(m2, "index3d", &dead));
    REQUIRE_OK(hcl_kernel_create(m2, "scale_rev", &live));
    conf_track_kernel(live);
    REQUIRE_OK(hcl_kernel_release(dead));
    REQUIRE_OK(hcl_module_release(m2));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_module_release(m2));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_kernel_create(m2, "scale_rev", &k));
    CHECK_ST(HCL_ERROR_INVALID_HANDLE, hcl_kernel_release(dead));
    hcl_buffer b = conf_buffer(64);
    REQUIRE(b != NULL, "buffer");
    hcl_arg arg = hcl_arg_buffer(b);
    CHECK_ST(HCL_ERROR_INVALID_HANDLE,
             hcl_kernel_launch(conf_queue, dead, (hcl_dim3){1, 1, 1}, (hcl_dim3){1, 1, 1}, 0, 1, &arg, 0, NULL, NULL));
    run_scale_rev(live, 300, 0, 0); /* its module was released first */

    /* Objects of another open of the same device. */
    hcl_device d2 = conf_open_again();
    REQUIRE(d2 != NULL, "second device");
    hcl_kernel k2 = kernel_of(user_module_on(d2), "index3d");
    hcl_buffer b2 = conf_buffer_on(d2, 64);
    hcl_queue q2 = conf_queue_on(d2);
    hcl_kernel k1 = kernel_of(m, "index3d");
    REQUIRE(k2 && b2 && q2 && k1, "objects on the second device");
    hcl_event e2 = NULL;
    REQUIRE_OK(hcl_queue_marker(q2, &e2));
    conf_track_event(e2);
    hcl_dim3 one = {1, 1, 1}, four = {4, 1, 1};
    hcl_arg arg2 = hcl_arg_buffer(b2);
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_kernel_launch(conf_queue, k2, four, one, 0, 1, &arg, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_kernel_launch(conf_queue, k1, four, one, 0, 1, &arg2, 0, NULL, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_kernel_launch(conf_queue, k1, four, one, 0, 1, &arg, 1, &e2, NULL));
    CHECK_ST(HCL_ERROR_DEVICE_MISMATCH, hcl_kernel_launch(q2, k1, four, one, 0, 1, &arg2, 0, NULL, NULL));
    /* The right combination works on each. */
    CHECK_ST(HCL_SUCCESS, hcl_kernel_launch(q2, k2, four, one, 0, 1, &arg2, 1, &e2, NULL));
    CHECK_ST(HCL_SUCCESS, hcl_kernel_launch(conf_queue, k1, four, one, 0, 1, &arg, 0, NULL, NULL));
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(q2));
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
}

/* Module creation errors (all backends, including those without a user kernel form). */
CONF_TEST(api, module_errors) {
    hcl_module m = SENTINEL(hcl_module);
    hcl_module_source good = {HCL_SOURCE_OPENCL_C, opencl_src, sizeof opencl_src - 1, NULL};
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_module_create(conf_dev, &good, 0, &m));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_module_create(conf_dev, NULL, 1, &m));
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_module_create(conf_dev, &good, 1, NULL));
    hcl_module_source bad = good;
    bad.data = NULL;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_module_create(conf_dev, &bad, 1, &m));
    bad = good;
    bad.kind = (hcl_source_kind)99;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_module_create(conf_dev, &bad, 1, &m));
    bad.kind = (hcl_source_kind)0;
    CHECK_ST(HCL_ERROR_INVALID_ARGUMENT, hcl_module_create(conf_dev, &bad, 1, &m));
    /* Only a form this backend does not take. */
    hcl_module_source other;
    if (conf_backend_is("host"))
        other = good;
    else
        other = (hcl_module_source){HCL_SOURCE_HOST_TABLE, host_table, 2, NULL};
    if (CHECK_ST(HCL_ERROR_UNSUPPORTED, hcl_module_create(conf_dev, &other, 1, &m)))
        CHECK_MSG_HAS(hcl_source_kind_name(other.kind)); /* the kinds given are listed */
    CHECK(m == SENTINEL(hcl_module), "a failing hcl_module_create wrote its out-parameter");
}

/* A source with an error: HCL_ERROR_BUILD, and the compiler's log in the message. */
CONF_TEST(api, module_build_error) {
    static const char ocl_bad[] = "__kernel void broken(__global float *x) { x[0] = undeclared_identifier_xyz; }\n";
    static const char cu_bad[] =
        "extern \"C\" __global__ void broken(float *x) { x[0] = undeclared_identifier_xyz; }\n";
    static const char glsl_bad[] = "#version 450\nlayout(local_size_x = 1) in;\n"
                                   "layout(std430, binding = 0) buffer X { float x[]; };\n"
                                   "void main() { x[0] = undeclared_identifier_xyz; }\n";
    hcl_module_source src;
    if (conf_backend_is("vulkan")) { /* GLSL through shaderc, where the machine has it */
        src = (hcl_module_source){HCL_SOURCE_GLSL, glsl_bad, sizeof glsl_bad - 1, NULL};
        hcl_module m = NULL;
        hcl_status st = hcl_module_create(conf_dev, &src, 1, &m);
        if (st == HCL_ERROR_UNSUPPORTED) {
            char why[512];
            snprintf(why, sizeof why, "%s", hcl_last_message());
            conf_end();
            cr_skip_test("vulkan: no GLSL compiler at run time: %s", why);
        }
        if (st == HCL_SUCCESS) conf_track_module(m);
    } else if (conf_backend_is("opencl"))
        src = (hcl_module_source){HCL_SOURCE_OPENCL_C, ocl_bad, sizeof ocl_bad - 1, NULL};
    else if (conf_backend_is("cuda"))
        src = (hcl_module_source){HCL_SOURCE_CUDA_C, cu_bad, sizeof cu_bad - 1, NULL};
    else if (conf_backend_is("hip"))
        src = (hcl_module_source){HCL_SOURCE_HIP_C, cu_bad, sizeof cu_bad - 1, NULL};
    else {
        conf_end(); /* release the device before leaving the test */
        cr_skip_test("%s: no source form to break (declare it unsupported in expectations.c)", conf_backend_name);
    }
    hcl_module m = SENTINEL(hcl_module);
    if (CHECK_ST(HCL_ERROR_BUILD, hcl_module_create(conf_dev, &src, 1, &m))) CHECK_MSG_HAS("undeclared_identifier_xyz");
    CHECK(m == SENTINEL(hcl_module), "a failing hcl_module_create wrote its out-parameter");
    /* A bad build option is a build failure too, not a crash. */
    hcl_module_source good = src;
    good.data = conf_backend_is("opencl") ? (const void *)opencl_src : (const void *)cuda_src;
    good.size = conf_backend_is("opencl") ? sizeof opencl_src - 1 : sizeof cuda_src - 1;
    good.options = "-no-such-option-xyz";
    hcl_status st = hcl_module_create(conf_dev, &good, 1, &m);
    if (st == HCL_SUCCESS) {
        conf_track_module(m);
        cr_log_info("%s accepted an unknown build option", conf_backend_name);
    } else {
        CHECK(st == HCL_ERROR_BUILD || st == HCL_ERROR_INVALID_ARGUMENT, "an unknown build option gave %s: %s",
              hcl_status_name(st), hcl_last_message());
    }
}

/* GLSL of extensions that Debian 12's glslangValidator (glslang 12) refuses, compiled at run time through the newer
 * glslang library the Vulkan driver opens (HCL_GLSLANG_LIBRARY; drivers/vulkan/glsl.c): a shader on cooperative
 * matrices builds into a module with its kernel, and where the device has a matrix unit for f16 (the driver enabled
 * VK_KHR_cooperative_matrix) one sub-group of it stores a 16 x 16 matrix of VALUE, checked. Skipped, with the reason,
 * where the compiler at run time is the older tool or there is none. */
CONF_TEST(api, glsl_newer_compiler) {
    if (!conf_backend_is("vulkan")) {
        conf_end();
        cr_skip_test("%s: GLSL sources are the Vulkan backend's", conf_backend_name);
    }
    static const char glsl[] = "#version 450\n#extension GL_KHR_cooperative_matrix : require\n"
                               "#extension GL_KHR_memory_scope_semantics : require\nlayout(local_size_x_id = 0) in;\n"
                               "layout(std430, binding = 0) writeonly buffer O { float o[]; };\n"
                               "void main() {\n"
                               "    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> c = "
                               "coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(VALUE);\n"
                               "    coopMatStore(c, o, 0, 16, gl_CooperativeMatrixLayoutRowMajor);\n}\n";
    hcl_module_source src = {HCL_SOURCE_GLSL, glsl, sizeof glsl - 1, "-DVALUE=2.0"};
    hcl_module m = NULL;
    hcl_status st = hcl_module_create(conf_dev, &src, 1, &m);
    if (st == HCL_ERROR_UNSUPPORTED ||
        (st == HCL_ERROR_BUILD && strstr(hcl_last_message(), "extension not supported"))) {
        char why[512];
        snprintf(why, sizeof why, "%s", hcl_last_message());
        conf_end();
        cr_skip_test("vulkan: no GLSL compiler at run time that knows GL_KHR_cooperative_matrix "
                     "(HCL_GLSLANG_LIBRARY names one): %s",
                     why);
    }
    if (!CHECK_ST(HCL_SUCCESS, st)) return;
    conf_track_module(m);
    hcl_kernel k = NULL;
    if (!CHECK_ST(HCL_SUCCESS, hcl_kernel_create(m, "main", &k))) return;
    conf_track_kernel(k);
    if (conf_info.matrix_unit == HCL_MATRIX_UNIT_NONE || !(conf_info.matrix_types & HCL_TYPE_BIT(HCL_DTYPE_F16)) ||
        conf_info.subgroup_size != 32) {
        cr_log_info("%s: built, not launched (no cooperative matrices on sub-groups of 32 here)", conf_info.name);
        return;
    }
    hcl_buffer out = conf_buffer(256 * sizeof(float));
    if (!out || !conf_poison_buffer(out, 0, 256 * sizeof(float))) return;
    hcl_arg arg = hcl_arg_buffer(out);
    if (!CHECK_ST(HCL_SUCCESS, hcl_kernel_launch(conf_queue, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){32, 1, 1}, 0, 1, &arg,
                                                 0, NULL, NULL)))
        return;
    float got[256];
    double want[256];
    for (int i = 0; i < 256; i++) want[i] = 2.0;
    if (conf_read(out, 0, got, sizeof got)) conf_compare("a 16 x 16 cooperative matrix of 2.0", got, want, NULL, 256);
}

/* Build options reach the compiler, and the compile cache keys on them (the same source with two options must
 * not give one binary); a text may carry its terminating NUL in its size or not. One value is fresh per run so
 * that at least one build is not a cache hit. */
CONF_TEST(api, kernel_build_options) {
    static const char ocl[] = "__kernel void put(__global float *out) { out[get_global_id(0)] = VALUE; }\n";
    static const char cu[] =
        "extern \"C\" __global__ void put(float *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = VALUE; }\n";
    static const char glsl[] = "#version 450\nlayout(local_size_x_id = 0) in;\n"
                               "layout(std430, binding = 0) writeonly buffer O { float o[]; };\n"
                               "void main() { o[gl_GlobalInvocationID.x] = VALUE; }\n";
    hcl_source_kind kind = conf_backend_is("opencl")   ? HCL_SOURCE_OPENCL_C
                           : conf_backend_is("cuda")   ? HCL_SOURCE_CUDA_C
                           : conf_backend_is("vulkan") ? HCL_SOURCE_GLSL
                                                       : HCL_SOURCE_HIP_C;
    const char *text = kind == HCL_SOURCE_OPENCL_C ? ocl : kind == HCL_SOURCE_GLSL ? glsl : cu;
    if (kind == HCL_SOURCE_GLSL) { /* GLSL through shaderc, where the machine has it */
        hcl_module_source probe = {kind, text, strlen(text), "-DVALUE=1.0"};
        hcl_module m = NULL;
        if (hcl_module_create(conf_dev, &probe, 1, &m) == HCL_ERROR_UNSUPPORTED) {
            char why[512];
            snprintf(why, sizeof why, "%s", hcl_last_message());
            conf_end();
            cr_skip_test("vulkan: no GLSL compiler at run time: %s", why);
        }
        if (m) conf_track_module(m);
    }
    size_t len = strlen(text);
    float fresh = (float)conf_rand_int(1, 1 << 20) + 0.25f;
    float values[4] = {1.5f, 2.5f, fresh, 3.5f};
    hcl_buffer out = conf_buffer(16 * sizeof(float));
    REQUIRE(out != NULL, "buffer");
    for (int v = 0; v < 4; v++) {
        char opt[64];
        snprintf(opt, sizeof opt, "-DVALUE=%.2ff", (double)values[v]);
        hcl_module_source src = {kind, text, v == 3 ? len + 1 : len, opt};
        hcl_module m = NULL;
        if (!CHECK_ST(HCL_SUCCESS, hcl_module_create(conf_dev, &src, 1, &m))) continue;
        conf_track_module(m);
        hcl_kernel k = kernel_of(m, "put");
        if (!k || !conf_poison_buffer(out, 0, 16 * sizeof(float))) continue;
        hcl_arg arg = hcl_arg_buffer(out);
        if (!CHECK_ST(HCL_SUCCESS, hcl_kernel_launch(conf_queue, k, (hcl_dim3){4, 1, 1}, (hcl_dim3){4, 1, 1}, 0, 1,
                                                     &arg, 0, NULL, NULL)))
            continue;
        float got[16];
        double want[16];
        for (int i = 0; i < 16; i++) want[i] = values[v];
        char what[160];
        snprintf(what, sizeof what, "kernel built with \"%s\"%s", opt, v == 3 ? " (size counts the NUL)" : "");
        if (conf_read(out, 0, got, sizeof got)) conf_compare(what, got, want, NULL, 16);
    }
}

/* Launch scale_rev with `count` of the arguments in `a`; the launch must be refused with HCL_ERROR_INVALID_ARGUMENT
 * naming what each '|'-separated text of `names` says (the parameter's index, and its name where the backend knows
 * names). Returns whether it was. */
static bool refused_naming(hcl_kernel k, size_t shared, uint32_t count, const hcl_arg *a, const char *names) {
    hcl_dim3 grid = {2, 1, 1}, block = {block_size(), 1, 1};
    hcl_event e = SENTINEL(hcl_event);
    bool ok = CHECK_ST(HCL_ERROR_INVALID_ARGUMENT,
                       hcl_kernel_launch(conf_queue, k, grid, block, shared, count, a, 0, NULL, &e));
    CHECK(e == SENTINEL(hcl_event), "a refused launch wrote its out_event");
    if (!ok) return false;
    cr_log_info("%s", hcl_last_message());
    for (const char *t = names; *t;) {
        size_t len = strcspn(t, "|");
        char needle[64];
        snprintf(needle, sizeof needle, "%.*s", (int)len, t);
        ok &= CHECK_MSG_HAS(needle);
        t += len + (t[len] == '|');
    }
    return ok;
}

/* hcl.h: kernel arguments are checked against the kernel's declared parameters before the vendor runtime sees them
 * (a value where a buffer goes crashes PoCL and NVIDIA's OpenCL, and on CUDA faults the device for good). Each
 * mismatch is HCL_ERROR_INVALID_ARGUMENT naming the parameter, nothing runs, and a correct launch right after works.
 * A backend that cannot know the parameters (host tables declare none) is skipped with the reason. */
CONF_TEST(api, kernel_arg_check) {
    uint32_t n = 256, bs = block_size();
    scale_rev_setup s;
    hcl_kernel k = scale_rev_with_buffers(n, &s);
    REQUIRE(k != NULL, "the scale_rev kernel and its buffers");
    uint64_t wide = 7;
    const size_t sh = bs * sizeof(float);
    const hcl_arg ok[5] = {s.ok[0], s.ok[1], s.ok[2], s.ok[3], hcl_arg_value(&n, 4)};
    hcl_arg a[5];
    /* Too many arguments: harmless to every runtime, so it also tells whether the backend knows the parameters. */
    hcl_status st =
        hcl_kernel_launch(conf_queue, k, (hcl_dim3){2, 1, 1}, (hcl_dim3){bs, 1, 1}, sh, 5, ok, 0, NULL, NULL);
    if (st == HCL_SUCCESS) {
        hcl_queue_finish(conf_queue);
        conf_end();
        cr_skip_test("%s: the backend states no parameter list for its kernels, so arguments are not checked against "
                     "one (hcl_kernel_launch in hcl.h)",
                     conf_backend_name);
    }
    /* names where the backend knows them: OpenCL's argument info, CUDA/HIP source the driver compiled */
    const bool names = conf_backend_is("opencl") || conf_backend_is("cuda") || conf_backend_is("hip");
    CHECK(st == HCL_ERROR_INVALID_ARGUMENT, "5 arguments to a kernel of 4 gave %s: %s", hcl_status_name(st),
          hcl_last_message());
    CHECK_MSG_HAS("too many");
    CHECK_MSG_HAS("args[4]");
    /* Too few. */
    refused_naming(k, sh, 3, ok, names ? "too few|parameter 3|'n'" : "too few|parameter 3");
    /* A buffer where a value goes: a harmless probe of whether the kinds are known (OpenCL without argument info). */
    memcpy(a, ok, sizeof a);
    a[2] = hcl_arg_buffer(s.in);
    st = hcl_kernel_launch(conf_queue, k, (hcl_dim3){2, 1, 1}, (hcl_dim3){bs, 1, 1}, sh, 4, a, 0, NULL, NULL);
    if (st == HCL_SUCCESS || !strstr(hcl_last_message(), "parameter 2")) {
        hcl_queue_finish(conf_queue);
        conf_end();
        cr_skip_test("%s: the backend knows the parameter count but not the parameters' kinds (%s: %s)",
                     conf_backend_name, hcl_status_name(st), hcl_last_message());
    }
    refused_naming(k, sh, 4, a,
                   names ? "args[2] is a buffer|parameter 2|'alpha'|takes a value of 4 bytes"
                         : "args[2] is a buffer|parameter 2");
    /* A value where a buffer goes: 8 bytes, as wide as a pointer, the case that crashes runtimes. */
    memcpy(a, ok, sizeof a);
    a[0] = hcl_arg_value(&wide, sizeof wide);
    refused_naming(k, sh, 4, a, names ? "args[0] is a value|parameter 0|'out'|takes a buffer" : "parameter 0");
    memcpy(a, ok, sizeof a);
    a[1] = hcl_arg_value(&s.alpha, sizeof s.alpha);
    refused_naming(k, sh, 4, a, names ? "parameter 1|'in'|takes a buffer" : "parameter 1");
    /* A value of the wrong size. */
    memcpy(a, ok, sizeof a);
    a[3] = hcl_arg_value(&wide, sizeof wide);
    refused_naming(k, sh, 4, a, names ? "args[3] is a value of 8 bytes|parameter 3|'n'|4 bytes" : "parameter 3");
    a[3] = hcl_arg_value(&wide, 2);
    refused_naming(k, sh, 4, a, "value of 2 bytes|parameter 3");
    /* OpenCL passes shared_bytes as the kernel's last (__local) parameter: none given, it is missing. */
    if (conf_backend_is("opencl")) refused_naming(k, 0, 4, ok, "parameter 4|'tmp'|shared_bytes");

    /* Nothing ran, and a correct launch right after gives the right results. */
    CHECK_ST(HCL_SUCCESS, hcl_queue_finish(conf_queue));
    conf_check_buffer_untouched("scale_rev output after refused launches", s.out, n);
    run_scale_rev(k, 1000, 0, 0);
}
