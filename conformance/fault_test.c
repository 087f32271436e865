/* Device faults (issue 14): a user kernel that writes far outside its buffer, on every GPU of every available
 * backend that compiles source here (cuda: NVRTC, hip: hiprtc, opencl: OpenCL C). The fault must come back as a
 * status (cuda/hip: HCL_ERROR_DEVICE_LOST naming the vendor's error), never a crash or a hang; the device's later
 * calls keep failing cleanly; once every object of the device is released, opening it again in the same process
 * either works (vecadd checked element by element) or fails with a status (the vendor's own limit: CUDA keeps a
 * process's device lost after an illegal address, "the process must be terminated and relaunched", and NVIDIA's
 * OpenCL, built on it, refuses new contexts); and a new process (this program again, `--works SELECTOR`) gets a
 * working device.
 *
 * Not run on CPU devices (host, PoCL): a wild write there lands in the process itself. Level Zero is left out (its
 * modules are SPIR-V; no compiler for it runs here). Exit 77 (skipped) when no GPU device is present. */
#include <hcl/hcl.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

extern char **environ;

static const char *const cuda_src = "extern \"C\" __global__ void wild(float *p) { p[1ull << 40] = 1.0f; }\n";
static const char *const cl_src = "__kernel void wild(__global float *p) { p[1ul << 40] = 1.0f; }\n";

typedef struct backend_case {
    const char *backend;
    hcl_source_kind kind;
    const char *src;
    hcl_status want; /* the status the fault must give (HCL_SUCCESS: any failure) */
} backend_case;

static int g_failures;

#define FAIL(...) (g_failures++, printf("  FAIL: "), printf(__VA_ARGS__), printf("\n"))

/* Run the wild kernel on a freshly opened device; return the first failing status of the launch and the finish. */
static void fault_once(const char *sel, const backend_case *bc) {
    hcl_device dev = NULL;
    hcl_queue q = NULL;
    hcl_module mod = NULL;
    hcl_kernel k = NULL;
    hcl_buffer buf = NULL;
    hcl_status st = hcl_device_open(sel, &dev);
    if (st == HCL_SUCCESS) st = hcl_queue_create(dev, &q);
    hcl_module_source ms = {bc->kind, bc->src, strlen(bc->src), NULL};
    if (st == HCL_SUCCESS) st = hcl_module_create(dev, &ms, 1, &mod);
    if (st == HCL_SUCCESS) st = hcl_kernel_create(mod, "wild", &k);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(dev, 4096, 0, &buf);
    if (st != HCL_SUCCESS) {
        FAIL("%s: setting up: %s: %s", sel, hcl_status_name(st), hcl_last_message());
    } else {
        hcl_arg arg = hcl_arg_buffer(buf);
        st = hcl_kernel_launch(q, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){1, 1, 1}, 0, 1, &arg, 0, NULL, NULL);
        const char *when = "launch";
        if (st == HCL_SUCCESS) st = hcl_queue_finish(q), when = "finish";
        printf("  %s: wild write -> %s at %s: %s\n", sel, hcl_status_name(st), when, hcl_last_message());
        if (st == HCL_SUCCESS)
            FAIL("%s: a write 4 TiB past the buffer was not reported", sel);
        else if (bc->want != HCL_SUCCESS && st != bc->want)
            FAIL("%s: expected %s", sel, hcl_status_name(bc->want));
        /* the device's later calls fail cleanly (or work: OpenCL may recover on its own) */
        float x = 1.0f;
        hcl_status st2 = hcl_buffer_write(q, buf, 0, sizeof x, &x);
        printf("  %s: a buffer write after it -> %s%s%s\n", sel, hcl_status_name(st2), st2 ? ": " : "",
               st2 ? hcl_last_message() : "");
        if (bc->want != HCL_SUCCESS && st2 != bc->want)
            FAIL("%s: the write after the fault gave %s, expected %s", sel, hcl_status_name(st2),
                 hcl_status_name(bc->want));
    }
    if (buf) hcl_buffer_release(buf);
    if (k) hcl_kernel_release(k);
    if (mod) hcl_module_release(mod);
    if (q) hcl_queue_release(q);
    if (dev) hcl_device_release(dev);
}

/* Open the device again and check a vecadd of n floats. `vendor_limit`: a failure to open is the vendor's (reported,
 * not failed); a failure after opening always fails. */
static void works_after(const char *sel, int vendor_limit) {
    const size_t n = 1 << 20;
    float *a = malloc(n * sizeof *a), *c = malloc(n * sizeof *c);
    hcl_device dev = NULL;
    hcl_queue q = NULL;
    hcl_buffer ba = NULL, bc = NULL;
    hcl_status st = a && c ? hcl_device_open(sel, &dev) : HCL_ERROR_OUT_OF_MEMORY;
    if (st != HCL_SUCCESS && dev == NULL && vendor_limit) {
        printf("  %s: opened again in this process -> %s: %s (the vendor's limit: the process keeps the fault)\n", sel,
               hcl_status_name(st), hcl_last_message());
        free(a), free(c);
        return;
    }
    for (size_t i = 0; a && i < n; i++) a[i] = (float)(i % 1000);
    if (st == HCL_SUCCESS) st = hcl_queue_create(dev, &q);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(dev, n * sizeof *a, 0, &ba);
    if (st == HCL_SUCCESS) st = hcl_buffer_create(dev, n * sizeof *a, 0, &bc);
    if (st == HCL_SUCCESS) st = hcl_buffer_write(q, ba, 0, n * sizeof *a, a);
    if (st == HCL_SUCCESS) st = hcl_vecadd_f32(q, n, ba, ba, bc, NULL);
    if (st == HCL_SUCCESS) st = hcl_buffer_read(q, bc, 0, n * sizeof *c, c);
    size_t bad = 0;
    for (size_t i = 0; st == HCL_SUCCESS && i < n; i++) bad += c[i] != 2.0f * a[i];
    if (st != HCL_SUCCESS)
        FAIL("%s: opened again after the fault: %s: %s", sel, hcl_status_name(st), hcl_last_message());
    else if (bad)
        FAIL("%s: opened again after the fault: vecadd has %zu wrong elements of %zu", sel, bad, n);
    else
        printf("  %s: opened again%s: vecadd of %zu floats right\n", sel,
               vendor_limit ? " in this process after releasing everything" : " in a new process", n);
    if (ba) hcl_buffer_release(ba);
    if (bc) hcl_buffer_release(bc);
    if (q) hcl_queue_release(q);
    if (dev) hcl_device_release(dev);
    free(a), free(c);
}

/* This program again as `--works SELECTOR`: the device in a fresh process. */
static void works_in_new_process(const char *sel) {
    char self[] = "/proc/self/exe", flag[] = "--works", arg[64];
    snprintf(arg, sizeof arg, "%s", sel);
    char *argv[] = {self, flag, arg, NULL};
    pid_t pid;
    int ws = 0;
    fflush(stdout);
    if (posix_spawn(&pid, self, NULL, NULL, argv, environ) != 0 || waitpid(pid, &ws, 0) != pid) {
        FAIL("%s: could not start a new process", sel);
        return;
    }
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) FAIL("%s: the new process failed (wait status 0x%x)", sel, ws);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--works") == 0) {
        works_after(argv[2], 0);
        return g_failures ? 1 : 0;
    }
    static const backend_case cases[] = {{"cuda", HCL_SOURCE_CUDA_C, cuda_src, HCL_ERROR_DEVICE_LOST},
                                         {"hip", HCL_SOURCE_HIP_C, cuda_src, HCL_ERROR_DEVICE_LOST},
                                         {"opencl", HCL_SOURCE_OPENCL_C, cl_src, HCL_SUCCESS}};
    uint32_t count = 0;
    if (hcl_device_count(&count) != HCL_SUCCESS) {
        printf("fault-test: hcl_device_count: %s\n", hcl_last_message());
        return 1;
    }
    int ran = 0;
    for (uint32_t i = 0; i < count; i++) {
        hcl_device_info info;
        if (hcl_device_get_info_by_index(i, &info) != HCL_SUCCESS || info.type != HCL_DEVICE_TYPE_GPU) continue;
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            if (strcmp(info.backend, cases[c].backend) != 0) continue;
            char sel[64];
            snprintf(sel, sizeof sel, "%s:%u", info.backend, info.index);
            printf("%s (%s):\n", sel, info.name);
            fault_once(sel, &cases[c]);
            works_after(sel, 1);
            works_in_new_process(sel);
            ran++;
        }
    }
    if (!ran) {
        printf("fault-test: skipped: no GPU device of cuda, hip or opencl here (a wild write on a CPU device would "
               "land in this process)\n");
        return 77;
    }
    printf("fault-test: %d device(s), %s\n", ran, g_failures ? "FAILED" : "passed");
    return g_failures ? 1 : 0;
}
