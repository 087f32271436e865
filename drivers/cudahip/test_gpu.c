/* GPU test of the CUDA and HIP drivers through the public API, one source built twice (ctest: cuda-gpu with
 * HCL_GPU_TEST_CUDA, hip-gpu with HCL_GPU_TEST_HIP; exits 77, "skipped", without a device of that backend).
 *
 * What the conformance suite does not reach on these backends in particular: every fill pattern size (memset and
 * the driver's fill kernel), event times of commands and markers, dynamic shared memory above CUDA's default 48 KiB
 * (or the whole 64 KiB of an AMD GPU), binaries (CUDA: PTX with and without its NUL, fatbin; HIP: a code-object
 * bundle), parameter-size checks and grid limits (CUDA; HIP cannot list a kernel's parameters), source selection
 * and build errors. The built-in kernels are the conformance suite's, on every backend. */
#include "hcl/hcl.h"
#include "hcl_testsupport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(HCL_GPU_TEST_CUDA)
#define BACKEND "cuda"
#define SOURCE_C HCL_SOURCE_CUDA_C
#define SOURCE_BINARY HCL_SOURCE_CUDA_BINARY
#define SOURCE_C_LABEL "CUDA C (NVRTC)"
#elif defined(HCL_GPU_TEST_HIP)
#define BACKEND "hip"
#define SOURCE_C HCL_SOURCE_HIP_C
#define SOURCE_BINARY HCL_SOURCE_HIP_BINARY
#define SOURCE_C_LABEL "HIP C (hiprtc)"
#else
#error "build with HCL_GPU_TEST_CUDA or HCL_GPU_TEST_HIP"
#endif

extern const unsigned char hcl_gpu_test_src[]; /* test_kernels.cu */
extern const size_t hcl_gpu_test_src_size;
#ifdef HCL_GPU_TEST_BINARIES
extern const unsigned char hcl_gpu_test_binary[]; /* CUDA: a fatbin; HIP: a code-object bundle */
extern const size_t hcl_gpu_test_binary_size;
#if defined(HCL_GPU_TEST_CUDA)
extern const unsigned char hcl_gpu_test_ptx[];
extern const size_t hcl_gpu_test_ptx_size;
#endif
#endif

static hcl_queue q;
static hcl_device dev;

#define CHECK HCL_TS_CHECK /* counted; printed when it fails */
#define OK HCL_TS_OK

#define EXPECT(want, expr)                                                                                             \
    do {                                                                                                               \
        hcl_status st_ = (expr);                                                                                       \
        if (CHECK(st_ == (want), "%s: got %s, wanted %s: %s", #expr, hcl_status_name(st_), hcl_status_name(want),      \
                  hcl_last_message()))                                                                                 \
            printf("ok   %-28s %s: %.160s\n", #want, #expr, hcl_last_message());                                       \
    } while (0)

static hcl_buffer make(size_t bytes) { return hcl_ts_buffer(dev, bytes); }

static void test_fill(void) {
    hcl_buffer b = make(4096);
    int failures = hcl_ts_failures();
    hcl_ts_check_fills(q, b, 4096); /* the memset and fill-kernel paths */
    if (hcl_ts_failures() == failures) printf("ok   fill patterns of 1..128 bytes\n");
    hcl_buffer_release(b);
}

/* Device times of a 64 MiB write, a kernel over 2^24 elements (affine, from CUDA / HIP C) and a marker. */
static void test_events(void) {
    hcl_module_source src = {SOURCE_C, hcl_gpu_test_src, hcl_gpu_test_src_size, NULL};
    hcl_module mod = NULL;
    hcl_kernel kern = NULL;
    OK(hcl_module_create(dev, &src, 1, &mod));
    if (mod) OK(hcl_kernel_create(mod, "affine", &kern));
    if (!kern) {
        if (mod) hcl_module_release(mod);
        return;
    }
    unsigned int n = 1u << 24;
    float av = 0.5f;
    double bv = 3.0;
    hcl_buffer a = make((size_t)n * 4), c = make((size_t)n * 4);
    float *h = calloc(n, 4);
    hcl_event w = NULL, k = NULL, m = NULL;
    hcl_arg args[4] = {hcl_arg_buffer(c), hcl_arg_value(&av, 4), hcl_arg_value(&bv, 8), hcl_arg_value(&n, 4)};
    OK(hcl_buffer_write_async(q, a, 0, (size_t)n * 4, h, 0, NULL, &w));
    OK(hcl_kernel_launch(q, kern, (hcl_dim3){n / 256, 1, 1}, (hcl_dim3){256, 1, 1}, 0, 4, args, 0, NULL, &k));
    OK(hcl_queue_marker(q, &m));
    double tw = -1, tk = -1, tm = -1, twm = -1;
    OK(hcl_event_elapsed(w, w, &tw));
    OK(hcl_event_elapsed(k, k, &tk));
    OK(hcl_event_elapsed(m, m, &tm));
    OK(hcl_event_elapsed(w, m, &twm));
    CHECK(tw > 0 && tk > 0 && tm == 0 && twm >= tw + tk - 1e-6,
          "times: write %g s, kernel %g s, marker %g s, write..marker %g s", tw, tk, tm, twm);
    printf("ok   event times: 64 MiB write %.3f ms, affine 2^24 %.3f ms, marker %g, write..marker %.3f ms\n", tw * 1e3,
           tk * 1e3, tm, twm * 1e3);
    hcl_event_release(w);
    hcl_event_release(k);
    hcl_event_release(m);
    hcl_buffer_release(a);
    hcl_buffer_release(c);
    hcl_kernel_release(kern);
    hcl_module_release(mod);
    free(h);
}

/* reverse_shared with all the dynamic shared memory the device offers up to 200 KiB (CUDA: above the default
 * 48 KiB, so the kernel opts in; AMD: 64 KiB), twice (the opt-in is remembered). */
static void test_big_shared(hcl_module mod, const char *from, uint64_t local_mem) {
    hcl_kernel k = NULL;
    OK(hcl_kernel_create(mod, "reverse_shared", &k));
    if (!k) return;
    unsigned int n = (unsigned int)((local_mem < 200 * 1024 ? local_mem : 200 * 1024) / 4);
    float *in = malloc(n * 4), *out = malloc(n * 4);
    for (unsigned int i = 0; i < n; i++) in[i] = (float)i;
    hcl_buffer bi = make(n * 4), bo = make(n * 4);
    OK(hcl_buffer_write(q, bi, 0, n * 4, in));
    for (int rep = 0; rep < 2; rep++) {
        hcl_arg args[3] = {hcl_arg_buffer(bo), hcl_arg_buffer(bi), hcl_arg_value(&n, sizeof n)};
        OK(hcl_kernel_launch(q, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){256, 1, 1}, (size_t)n * 4, 3, args, 0, NULL, NULL));
        memset(out, 0, n * 4);
        OK(hcl_buffer_read(q, bo, 0, n * 4, out));
        unsigned int bad = 0;
        for (unsigned int i = 0; i < n; i++) bad += out[i] != (float)(n - 1 - i);
        CHECK(bad == 0, "reverse_shared (%s) with %u bytes of shared memory: %u wrong", from, n * 4, bad);
    }
    printf("ok   %s: %u bytes of dynamic shared memory\n", from, n * 4);
    hcl_buffer_release(bi);
    hcl_buffer_release(bo);
    hcl_kernel_release(k);
    free(in);
    free(out);
}

static void test_affine(hcl_module mod, const char *from) {
    if (hcl_ts_check_affine(dev, q, mod, from)) printf("ok   %s: affine ran\n", from);
#if defined(HCL_GPU_TEST_CUDA)
    /* CUDA lists a kernel's parameters (cuFuncGetParamInfo) and limits grid.y to 65535; HIP does neither, so
     * there a wrong argument is not caught (and is not launched here) */
    hcl_kernel k = NULL;
    OK(hcl_kernel_create(mod, "affine", &k));
    if (!k) return;
    unsigned int n = 1000;
    float a = 0.5f, b4 = 3.0f;
    double b = 3.0;
    hcl_buffer bo = make(n * 4);
    hcl_arg args[4] = {hcl_arg_buffer(bo), hcl_arg_value(&a, 4), hcl_arg_value(&b, 8), hcl_arg_value(&n, 4)};
    hcl_arg wrong_size[4] = {args[0], args[1], hcl_arg_value(&b4, 4), args[3]};
    EXPECT(HCL_ERROR_INVALID_ARGUMENT,
           hcl_kernel_launch(q, k, (hcl_dim3){4, 1, 1}, (hcl_dim3){256, 1, 1}, 0, 4, wrong_size, 0, NULL, NULL));
    EXPECT(HCL_ERROR_INVALID_ARGUMENT,
           hcl_kernel_launch(q, k, (hcl_dim3){4, 1, 1}, (hcl_dim3){256, 1, 1}, 0, 3, args, 0, NULL, NULL));
    EXPECT(HCL_ERROR_INVALID_ARGUMENT,
           hcl_kernel_launch(q, k, (hcl_dim3){1, 70000, 1}, (hcl_dim3){32, 1, 1}, 0, 4, args, 0, NULL, NULL));
    hcl_buffer_release(bo);
    hcl_kernel_release(k);
#endif
}

static void test_modules(uint64_t local_mem) {
    hcl_module_source src = {SOURCE_C, hcl_gpu_test_src, hcl_gpu_test_src_size, NULL};
    hcl_module mod = NULL;
    OK(hcl_module_create(dev, &src, 1, &mod));
    if (mod) {
        test_big_shared(mod, SOURCE_C_LABEL, local_mem);
        test_affine(mod, SOURCE_C_LABEL);
        hcl_kernel k = NULL;
        EXPECT(HCL_ERROR_NOT_FOUND, hcl_kernel_create(mod, "no_such_kernel", &k));
        hcl_module_release(mod);
    }
    static const char broken[] = "extern \"C\" __global__ void broken(float *x) { x[0] = not_declared; }\n";
    hcl_module_source bad = {SOURCE_C, broken, sizeof broken - 1, NULL};
    mod = NULL;
    EXPECT(HCL_ERROR_BUILD, hcl_module_create(dev, &bad, 1, &mod));
    CHECK(strstr(hcl_last_message(), "not_declared") != NULL, "build log missing: %s", hcl_last_message());
    static const char ocl[] = "__kernel void k(__global float *x) { x[0] = 1.0f; }";
    hcl_module_source only_ocl = {HCL_SOURCE_OPENCL_C, ocl, sizeof ocl - 1, NULL};
    EXPECT(HCL_ERROR_UNSUPPORTED, hcl_module_create(dev, &only_ocl, 1, &mod));
#ifdef HCL_GPU_TEST_BINARIES
    /* an OpenCL source first is passed over. CUDA: PTX without its NUL (size = text length), PTX with it, a
     * fatbin. HIP: a code-object bundle. */
    const hcl_module_source bins[][2] = {
#if defined(HCL_GPU_TEST_CUDA)
        {only_ocl, {SOURCE_BINARY, hcl_gpu_test_ptx, hcl_gpu_test_ptx_size, NULL}},
        {only_ocl, {SOURCE_BINARY, hcl_gpu_test_ptx, hcl_gpu_test_ptx_size + 1, NULL}},
#endif
        {only_ocl, {SOURCE_BINARY, hcl_gpu_test_binary, hcl_gpu_test_binary_size, NULL}},
    };
#if defined(HCL_GPU_TEST_CUDA)
    const char *names[] = {"PTX without NUL", "PTX with NUL", "fatbin"};
#else
    const char *names[] = {"code-object bundle"};
#endif
    for (size_t i = 0; i < sizeof bins / sizeof bins[0]; i++) {
        mod = NULL;
        OK(hcl_module_create(dev, bins[i], 2, &mod));
        if (!mod) continue;
        test_affine(mod, names[i]);
        hcl_module_release(mod);
    }
#else
    printf("skip %s binaries (built without the offline compiler)\n", BACKEND);
#endif
}

int main(void) {
    hcl_status st = hcl_device_open(BACKEND, &dev);
    if (st == HCL_ERROR_BACKEND_UNAVAILABLE || st == HCL_ERROR_DEVICE_NOT_FOUND) {
        printf("skip: no %s device: %s\n", BACKEND, hcl_last_message());
        return 77;
    }
    if (st != HCL_SUCCESS) {
        printf("FAIL hcl_device_open(\"%s\"): %s: %s\n", BACKEND, hcl_status_name(st), hcl_last_message());
        return 1;
    }
    hcl_device_info info;
    OK(hcl_device_get_info(dev, &info));
    printf("device: %s, %s, %u SMs, local memory %llu, %s\n", info.name, info.driver_version, info.compute_units,
           (unsigned long long)info.local_mem_bytes, info.identity);
#if defined(HCL_GPU_TEST_CUDA)
    CHECK(strncmp(info.identity, "uuid:", 5) == 0 && info.has_uuid, "identity %s", info.identity);
#else
    CHECK(info.identity[0] != '\0', "identity empty");
#endif
    CHECK(info.arg_offset_alignment == 1, "arg_offset_alignment %llu", (unsigned long long)info.arg_offset_alignment);
    OK(hcl_queue_create(dev, &q));

    test_fill();
    test_events();
    test_modules(info.local_mem_bytes);

    hcl_queue_release(q);
    hcl_device_release(dev);
    printf("%s: %d of %d checks failed\n", hcl_ts_failures() ? "FAIL" : "PASS", hcl_ts_failures(), hcl_ts_checks());
    return hcl_ts_failures() ? 1 : 0;
}
