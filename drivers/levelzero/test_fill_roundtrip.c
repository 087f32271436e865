/* ctest levelzero-fill-roundtrip: the SPIR-V of the driver's helper kernels (fill.cl), executed.
 *
 * No Level Zero GPU runs here, so each helper program the driver would hand to zeModuleCreate (the very bytes
 * embedded in libhcl-levelzero.so: this program links the same objects) is translated back to LLVM bitcode with
 * `llvm-spirv -r`, loaded on PoCL (CPU) through clCreateProgramWithBinary, and run with the driver's own launch
 * plans (plan.c: the same kernels, work-group sizes, group counts and arguments that helpers.c appends to a Level
 * Zero command list) for several device profiles: PoCL's own limits, a large GPU, a GPU with a tiny group count
 * limit, and a small GPU. Every fill pattern size (1 to 128 bytes) at several offsets and sizes is checked byte for
 * byte, inside the fill and around it.
 *
 * What this proves: the SPIR-V fills right with the driver's arguments, through a translation round trip. What it
 * does not: that a Level Zero runtime compiles and runs it the same way (no such runtime here).
 *
 * Usage: hcl-levelzero-test-fill-roundtrip LLVM_SPIRV WORK_DIR. Exits 77 (skipped) without a PoCL device.
 * HCL_SEED sets the random seed (printed). */
#define _POSIX_C_SOURCE 200809L
#include "plan.h"

#include <CL/cl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static cl_context g_ctx;
static cl_command_queue g_q;
static cl_device_id g_dev;
static cl_program g_programs[HCL_ZE_HELPER_COUNT];
static cl_kernel g_kernels[HCL_ZE_HELPER_COUNT][HCL_ZE_HELPER_MAX_KERNELS];
static hcl__ze_kernel_limits g_klimits[HCL_ZE_HELPER_COUNT];
static size_t g_align = 128; /* sub-buffer offsets must be multiples of this (CL_DEVICE_MEM_BASE_ADDR_ALIGN) */
static int g_failures, g_checks;
static uint64_t g_rng;
static long g_runs[HCL_ZE_HELPER_COUNT][HCL_ZE_HELPER_MAX_KERNELS];

/* ---------------------------------------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------------------------------------- */
static double rnd(void) { /* xorshift64*, uniform in [0, 1) */
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return (double)((g_rng * 2685821657736338717ull) >> 11) * 0x1.0p-53;
}

static void *xmalloc(size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    g_failures++;
}

static cl_mem buffer(size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(g_ctx, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &err);
    if (err != CL_SUCCESS) {
        fail("clCreateBuffer(%zu): %d", bytes, (int)err);
        return NULL;
    }
    return m;
}

static int write_buf(cl_mem m, const void *src, size_t bytes) {
    cl_int err = clEnqueueWriteBuffer(g_q, m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
    if (err != CL_SUCCESS) fail("clEnqueueWriteBuffer: %d", (int)err);
    return err == CL_SUCCESS;
}

static int read_buf(cl_mem m, void *dst, size_t bytes) {
    cl_int err = clEnqueueReadBuffer(g_q, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
    if (err != CL_SUCCESS) fail("clEnqueueReadBuffer: %d", (int)err);
    return err == CL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * The plan executor: what helpers.c does with Level Zero, done with OpenCL
 * ------------------------------------------------------------------------------------------------------- */
static int run_plan(const hcl__ze_plan *p, cl_mem const slots[HCL_ZE_SLOT_COUNT], const char *what) {
    int ok = 1;
    for (size_t li = 0; li < p->count && ok; li++) {
        const hcl__ze_launch *l = &p->launch[li];
        cl_kernel k = g_kernels[l->helper][l->kernel];
        const char *name = hcl__ze_helpers[l->helper].kernels[l->kernel];
        cl_mem subs[HCL_ZE_LAUNCH_MAX_ARGS] = {NULL};
        for (uint32_t i = 0; i < l->num_args && ok; i++) {
            const hcl__ze_parg *a = &l->args[i];
            cl_int err = CL_SUCCESS;
            if (a->kind == HCL_ZE_PARG_MEM) {
                cl_mem m = slots[a->slot];
                if (!m) {
                    fail("%s: launch %zu argument %u uses slot %d, which this call has not", what, li, i, a->slot);
                    ok = 0;
                    break;
                }
                if (a->offset) { /* Level Zero adds the offset to the pointer; OpenCL needs a sub-buffer */
                    size_t size = 0;
                    clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL);
                    cl_buffer_region r = {a->offset, size - a->offset};
                    subs[i] = clCreateSubBuffer(m, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
                    m = subs[i];
                }
                if (err == CL_SUCCESS) err = clSetKernelArg(k, i, sizeof m, &m);
            } else {
                err = clSetKernelArg(k, i, a->size, a->value);
            }
            if (err != CL_SUCCESS) {
                fail("%s: launch %zu of '%s': argument %u (kind %d, %zu bytes): OpenCL error %d", what, li, name, i,
                     (int)a->kind, a->size, (int)err);
                ok = 0;
            }
        }
        if (ok) {
            size_t global[3], local[3];
            for (int d = 0; d < 3; d++) {
                global[d] = (size_t)l->groups[d] * l->group_size[d];
                local[d] = l->group_size[d];
            }
            cl_int err = clEnqueueNDRangeKernel(g_q, k, 3, NULL, global, local, 0, NULL, NULL);
            if (err == CL_SUCCESS) err = clFinish(g_q);
            if (err != CL_SUCCESS) {
                fail("%s: launch %zu of '%s' (%u x %u x %u groups of %u x %u x %u): OpenCL error %d", what, li, name,
                     l->groups[0], l->groups[1], l->groups[2], l->group_size[0], l->group_size[1], l->group_size[2],
                     (int)err);
                ok = 0;
            }
        }
        for (uint32_t i = 0; i < HCL_ZE_LAUNCH_MAX_ARGS; i++)
            if (subs[i]) clReleaseMemObject(subs[i]);
    }
    return ok;
}

/* ---------------------------------------------------------------------------------------------------------
 * Profiles: device limits the plans are made for
 * ------------------------------------------------------------------------------------------------------- */
typedef struct {
    const char *name;
    hcl__ze_limits lim;
} profile;

static profile g_profiles[4];
static int g_nprofiles;

/* ---------------------------------------------------------------------------------------------------------
 * fill (fill.cl): exact bytes inside, untouched bytes outside
 * ------------------------------------------------------------------------------------------------------- */
static void check_fill(const profile *pr, size_t pattern_size, size_t offset, size_t size) {
    char what[160], why[512];
    snprintf(what, sizeof what, "[%s] fill pattern %zu B, offset %zu, size %zu", pr->name, pattern_size, offset, size);
    unsigned char pattern[128];
    for (size_t i = 0; i < sizeof pattern; i++) pattern[i] = (unsigned char)(rnd() * 256);
    hcl__ze_kernel_limits kl = g_klimits[HCL_ZE_HELPER_FILL];
    hcl__ze_plan plan = {0};
    if (hcl__ze_plan_fill(&pr->lim, &kl, offset, size, pattern, pattern_size, &plan, why, sizeof why) != HCL_SUCCESS) {
        fail("%s: no plan: %s", what, why);
        return;
    }
    size_t total = offset + size + 256;
    unsigned char *buf = xmalloc(total), *want = xmalloc(total);
    for (size_t i = 0; i < total; i++) buf[i] = want[i] = (unsigned char)(0xa5 ^ i);
    for (size_t i = 0; i < size; i++) want[offset + i] = pattern[i % pattern_size];
    cl_mem m = buffer(total);
    if (m && write_buf(m, buf, total)) {
        cl_mem slots[HCL_ZE_SLOT_COUNT] = {m};
        if (run_plan(&plan, slots, what) && read_buf(m, buf, total)) {
            size_t bad = 0;
            for (size_t i = 0; i < total; i++)
                if (buf[i] != want[i] && bad++ < 3)
                    printf("     %s: byte %zu is 0x%02x, expected 0x%02x (%s)\n", what, i, buf[i], want[i],
                           i >= offset && i < offset + size ? "inside" : "outside the fill");
            g_checks++;
            if (bad) fail("%s: %zu of %zu bytes wrong", what, bad, total);
            const hcl__ze_launch *l = &plan.launch[0];
            g_runs[l->helper][l->kernel]++;
        }
    }
    if (m) clReleaseMemObject(m);
    free(buf), free(want);
    hcl__ze_plan_free(&plan);
}

/* ---------------------------------------------------------------------------------------------------------
 * Setup: PoCL, and every helper program through llvm-spirv -r
 * ------------------------------------------------------------------------------------------------------- */
static int find_pocl(void) {
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) return 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        char name[256] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (!strstr(name, "Portable Computing Language")) continue;
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_CPU, 1, &g_dev, &nd) != CL_SUCCESS || nd == 0) continue;
        char dname[256] = "", version[256] = "";
        clGetDeviceInfo(g_dev, CL_DEVICE_NAME, sizeof dname, dname, NULL);
        clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version, version, NULL);
        printf("device: %s (%s, %s)\n", dname, name, version);
        return 1;
    }
    return 0;
}

static unsigned char *read_file(const char *path, size_t *out_size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = size > 0 ? malloc((size_t)size) : NULL;
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *out_size = data ? (size_t)size : 0;
    return data;
}

static int load_helper(int hi, const char *llvm_spirv, const char *dir) {
    const hcl__ze_helper_def *def = &hcl__ze_helpers[hi];
    char spv[1024], bc[1024], cmd[3200];
    snprintf(spv, sizeof spv, "%s/%s.spv", dir, def->name);
    snprintf(bc, sizeof bc, "%s/%s.bc", dir, def->name);
    FILE *f = fopen(spv, "wb");
    if (!f || fwrite(def->spirv, 1, *def->spirv_size, f) != *def->spirv_size) {
        if (f) fclose(f);
        fail("%s: cannot write %s", def->name, spv);
        return 0;
    }
    fclose(f);
    remove(bc);
    snprintf(cmd, sizeof cmd, "'%s' -r '%s' -o '%s'", llvm_spirv, spv, bc);
    int rc = system(cmd);
    size_t bc_size = 0;
    unsigned char *bin = rc == 0 ? read_file(bc, &bc_size) : NULL;
    if (!bin) {
        fail("%s: `%s` failed (status %d)", def->name, cmd, rc);
        return 0;
    }
    cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    g_programs[hi] = clCreateProgramWithBinary(g_ctx, 1, &g_dev, &bc_size, bins, &bin_status, &err);
    free(bin);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        fail("%s: clCreateProgramWithBinary of %zu bytes of bitcode: %d / %d", def->name, bc_size, (int)err,
             (int)bin_status);
        return 0;
    }
    err = clBuildProgram(g_programs[hi], 1, &g_dev, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(g_programs[hi], g_dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fail("%s: clBuildProgram: %d\n%s", def->name, (int)err, log);
        return 0;
    }
    for (int k = 0; k < HCL_ZE_HELPER_MAX_KERNELS && def->kernels[k]; k++) {
        g_kernels[hi][k] = clCreateKernel(g_programs[hi], def->kernels[k], &err);
        if (err != CL_SUCCESS) {
            fail("%s: clCreateKernel('%s'): %d", def->name, def->kernels[k], (int)err);
            return 0;
        }
        size_t wg = 0;
        clGetKernelWorkGroupInfo(g_kernels[hi][k], g_dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        g_klimits[hi].max_group_size[k] = wg;
    }
    printf("ok   %-8s %6zu bytes of SPIR-V (%s) -> llvm-spirv -r -> %6zu bytes of bitcode -> built on PoCL\n",
           def->name, *def->spirv_size, def->origin, bc_size);
    return 1;
}

static void release_all(void) {
    for (int h = 0; h < HCL_ZE_HELPER_COUNT; h++) {
        for (int k = 0; k < HCL_ZE_HELPER_MAX_KERNELS; k++)
            if (g_kernels[h][k]) clReleaseKernel(g_kernels[h][k]);
        if (g_programs[h]) clReleaseProgram(g_programs[h]);
    }
    if (g_q) clReleaseCommandQueue(g_q);
    if (g_ctx) clReleaseContext(g_ctx);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s LLVM_SPIRV WORK_DIR\n", argv[0]);
        return 2;
    }
    const char *seed_env = getenv("HCL_SEED");
    uint64_t seed = seed_env && *seed_env ? strtoull(seed_env, NULL, 0) : (uint64_t)time(NULL);
    g_rng = seed ? seed * 0x9e3779b97f4a7c15ull : 1;
    printf("levelzero-fill-roundtrip: seed %" PRIu64 " (HCL_SEED repeats a run)\n", seed);
    if (!find_pocl()) {
        printf("SKIP: no PoCL CPU device (package pocl-opencl-icd): the SPIR-V round trip runs on it\n");
        return 77;
    }
    cl_int err = CL_SUCCESS;
    g_ctx = clCreateContext(NULL, 1, &g_dev, NULL, NULL, &err);
    if (err == CL_SUCCESS) g_q = clCreateCommandQueue(g_ctx, g_dev, 0, &err);
    if (err != CL_SUCCESS) {
        printf("FAIL cannot create an OpenCL context and queue on PoCL: %d\n", (int)err);
        release_all();
        return 1;
    }
    mkdir(argv[2], 0777);
    int loaded = 1;
    for (int h = 0; h < HCL_ZE_HELPER_COUNT; h++) loaded &= load_helper(h, argv[1], argv[2]);
    if (!loaded) {
        release_all();
        printf("FAIL: not every helper program went through the round trip\n");
        return 1;
    }

    cl_uint align_bits = 0, cus = 0;
    size_t max_wg = 0;
    cl_ulong local = 0;
    clGetDeviceInfo(g_dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    clGetDeviceInfo(g_dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
    clGetDeviceInfo(g_dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    clGetDeviceInfo(g_dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, NULL);
    if (align_bits >= 8) g_align = align_bits / 8;
    g_profiles[g_nprofiles++] = (profile){"pocl-cpu", {1, max_wg, local, {0, 0, 0}, cus}};
    g_profiles[g_nprofiles++] = (profile){"gpu", {0, 1024, 65536, {0, 0, 0}, 64}};
    g_profiles[g_nprofiles++] = (profile){"gpu-grid-3", {0, 256, 65536, {3, 3, 3}, 64}};
    g_profiles[g_nprofiles++] = (profile){"gpu-small", {0, 64, 12288, {0, 0, 0}, 4}};

    for (int p = 0; p < g_nprofiles; p++) {
        const profile *pr = &g_profiles[p];
        int failures_before = g_failures, checks_before = g_checks;
        for (size_t ps = 1; ps <= 128; ps *= 2) {
            check_fill(pr, ps, 0, ps);
            check_fill(pr, ps, g_align, ps * 37);
            check_fill(pr, ps, 3 * g_align, ps * 3001);
        }
        printf("%s profile %-10s (group <= %llu, group count <= %u): %d checks, %d failed\n",
               g_failures == failures_before ? "ok  " : "FAIL", pr->name, (unsigned long long)pr->lim.max_group_size,
               pr->lim.max_group_count[0], g_checks - checks_before, g_failures - failures_before);
    }

    printf("\nper kernel (every helper program, run from its SPIR-V on PoCL): runs\n");
    for (int h = 0; h < HCL_ZE_HELPER_COUNT; h++)
        for (int k = 0; k < HCL_ZE_HELPER_MAX_KERNELS && hcl__ze_helpers[h].kernels[k]; k++) {
            printf("  %-8s %-24s %5ld runs\n", hcl__ze_helpers[h].name, hcl__ze_helpers[h].kernels[k], g_runs[h][k]);
            if (g_runs[h][k] == 0)
                fail("kernel '%s' of %s was never run", hcl__ze_helpers[h].kernels[k], hcl__ze_helpers[h].name);
        }
    release_all();
    printf("%s: %d checks, %d failures\n", g_failures ? "FAIL" : "PASS", g_checks, g_failures);
    return g_failures ? 1 : 0;
}
