/* The PoCL harness of the SPIR-V round-trip tests, and its SPIR-V path for devices that take SPIR-V (see
 * hcl_testsupport_cl.h). */
#define _POSIX_C_SOURCE 200809L
#include "hcl_testsupport_cl.h"

#include "hcl_testsupport.h"

#include <inttypes.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void hcl_ts_cl_fail(hcl_ts_cl *cl, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    cl->failures++;
}

void *hcl_ts_alloc(size_t n) {
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* ---------------------------------------------------------------------------------------------------------
 * The device
 * ------------------------------------------------------------------------------------------------------- */
/* CL_DEVICE_IL_VERSION (OpenCL 2.1) has the value of cl_khr_il_program's CL_DEVICE_IL_VERSION_KHR; the 1.2 headers
 * this harness compiles with declare neither. */
#ifndef CL_DEVICE_IL_VERSION_KHR
#define CL_DEVICE_IL_VERSION_KHR 0x105B
#endif

/* The device's name and type into cl. */
static void describe(hcl_ts_cl *cl) {
    cl_device_type type = 0;
    clGetDeviceInfo(cl->dev, CL_DEVICE_NAME, sizeof cl->device_name, cl->device_name, NULL);
    clGetDeviceInfo(cl->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    cl->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
}

static bool find_pocl(hcl_ts_cl *cl) {
    cl_platform_id platforms[16];
    cl_uint np = 0;
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS || np == 0) return false;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        char name[256] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (!strstr(name, "Portable Computing Language")) continue;
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_CPU, 1, &cl->dev, &nd) != CL_SUCCESS || nd == 0) continue;
        char version[256] = "";
        describe(cl);
        clGetPlatformInfo(platforms[p], CL_PLATFORM_VERSION, sizeof version, version, NULL);
        printf("device: %s (%s, %s)\n", cl->device_name, name, version);
        return true;
    }
    return false;
}

int hcl_ts_cl_start(hcl_ts_cl *cl, int argc, char **argv, const char *test, uint64_t *out_seed) {
    memset(cl, 0, sizeof *cl);
    if (argc < 3) {
        fprintf(stderr, "usage: %s LLVM_SPIRV WORK_DIR\n", argv[0]);
        return 2;
    }
    return hcl_ts_cl_open(cl, test, "the SPIR-V round trip", out_seed);
}

/* The first device of any platform whose CL_DEVICE_IL_VERSION names SPIR-V and whose platform gives
 * clCreateProgramWithILKHR; else false, with each device seen and what it takes in `seen`. */
static bool find_il_device(hcl_ts_cl *cl, char *seen, size_t seen_size) {
    cl_platform_id platforms[16];
    cl_uint np = 0;
    size_t used = 0;
    seen[0] = '\0';
    if (clGetPlatformIDs(16, platforms, &np) != CL_SUCCESS) np = 0;
    for (cl_uint p = 0; p < np && p < 16; p++) {
        cl_device_id devices[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 16, devices, &nd) != CL_SUCCESS) continue;
        hcl_ts_cl_create_with_il fn = (hcl_ts_cl_create_with_il)clGetExtensionFunctionAddressForPlatform(
            platforms[p], "clCreateProgramWithILKHR");
        for (cl_uint d = 0; d < nd && d < 16; d++) {
            char il[256] = "", name[128] = "";
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof name, name, NULL);
            if (clGetDeviceInfo(devices[d], CL_DEVICE_IL_VERSION_KHR, sizeof il, il, NULL) != CL_SUCCESS) il[0] = '\0';
            if (fn && strstr(il, "SPIR-V")) {
                cl->dev = devices[d];
                cl->create_with_il = fn;
                describe(cl);
                printf("device: %s (takes %s)\n", cl->device_name, il);
                return true;
            }
            int n = snprintf(seen + used, used < seen_size ? seen_size - used : 0, "%s'%s': %s", used ? "; " : "", name,
                             *il ? il : "no IL");
            used += n > 0 ? (size_t)n : 0;
        }
    }
    return false;
}

/* A context and a queue on cl->dev and the limits the tests' profiles use; 0, or 1 on failure. */
static int open_device(hcl_ts_cl *cl) {
    cl_int err = CL_SUCCESS;
    cl->ctx = clCreateContext(NULL, 1, &cl->dev, NULL, NULL, &err);
    if (err == CL_SUCCESS) cl->q = clCreateCommandQueue(cl->ctx, cl->dev, 0, &err);
    if (err != CL_SUCCESS) {
        hcl_ts_cl_fail(cl, "cannot create an OpenCL context and queue on '%s': %d", cl->device_name, (int)err);
        hcl_ts_cl_close(cl);
        return 1;
    }
    cl_uint align_bits = 0;
    clGetDeviceInfo(cl->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cl->compute_units, &cl->compute_units, NULL);
    clGetDeviceInfo(cl->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof cl->max_group_size, &cl->max_group_size, NULL);
    clGetDeviceInfo(cl->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof cl->local_mem, &cl->local_mem, NULL);
    cl->align = align_bits >= 8 ? align_bits / 8 : 128;
    return 0;
}

int hcl_ts_cl_open(hcl_ts_cl *cl, const char *test, const char *runs, uint64_t *out_seed) {
    memset(cl, 0, sizeof *cl);
    *out_seed = hcl_ts_seed();
    printf("%s: seed %" PRIu64 " (HCL_SEED repeats a run)\n", test, *out_seed);
    if (!find_pocl(cl)) {
        printf("SKIP: no PoCL CPU device (package pocl-opencl-icd): %s runs on it\n", runs);
        return 77;
    }
    return open_device(cl);
}

int hcl_ts_cl_open_il(hcl_ts_cl *cl, const char *test, const char *runs, uint64_t *out_seed) {
    memset(cl, 0, sizeof *cl);
    *out_seed = hcl_ts_seed();
    printf("%s: seed %" PRIu64 " (HCL_SEED repeats a run)\n", test, *out_seed);
    char seen[1024];
    if (!find_il_device(cl, seen, sizeof seen)) {
        printf("SKIP: no OpenCL device takes SPIR-V (CL_DEVICE_IL_VERSION with clCreateProgramWithILKHR; devices: "
               "%s): %s runs on one\n",
               *seen ? seen : "none", runs);
        return 77;
    }
    return open_device(cl);
}

void hcl_ts_cl_close(hcl_ts_cl *cl) {
    for (uint32_t i = 0; i < cl->num_kernels; i++) clReleaseKernel(cl->kernels[i]);
    for (uint32_t i = 0; i < cl->num_programs; i++) clReleaseProgram(cl->programs[i]);
    cl->num_kernels = cl->num_programs = 0;
    if (cl->q) clReleaseCommandQueue(cl->q);
    if (cl->ctx) clReleaseContext(cl->ctx);
    cl->q = NULL;
    cl->ctx = NULL;
}

/* ---------------------------------------------------------------------------------------------------------
 * Buffers
 * ------------------------------------------------------------------------------------------------------- */
cl_mem hcl_ts_cl_buffer(hcl_ts_cl *cl, size_t bytes) {
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(cl->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &err);
    if (err != CL_SUCCESS) {
        hcl_ts_cl_fail(cl, "clCreateBuffer(%zu): %d", bytes, (int)err);
        return NULL;
    }
    return m;
}

bool hcl_ts_cl_write(hcl_ts_cl *cl, cl_mem m, const void *src, size_t bytes) {
    cl_int err = clEnqueueWriteBuffer(cl->q, m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
    if (err != CL_SUCCESS) hcl_ts_cl_fail(cl, "clEnqueueWriteBuffer: %d", (int)err);
    return err == CL_SUCCESS;
}

bool hcl_ts_cl_read(hcl_ts_cl *cl, cl_mem m, void *dst, size_t bytes) {
    cl_int err = clEnqueueReadBuffer(cl->q, m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
    if (err != CL_SUCCESS) hcl_ts_cl_fail(cl, "clEnqueueReadBuffer: %d", (int)err);
    return err == CL_SUCCESS;
}

/* ---------------------------------------------------------------------------------------------------------
 * SPIR-V -> llvm-spirv -r -> bitcode -> a program built on PoCL
 * ------------------------------------------------------------------------------------------------------- */
static bool build_and_create(hcl_ts_cl *cl, cl_program program, const char *options, const char *name,
                             const char *const *kernel_names, uint32_t num_kernels, cl_kernel *out_kernels,
                             uint64_t *out_max_group);

bool hcl_ts_cl_load_spirv(hcl_ts_cl *cl, const char *llvm_spirv, const char *dir, const char *name, const char *origin,
                          const void *spirv, size_t spirv_size, const char *const *kernel_names, uint32_t num_kernels,
                          cl_kernel *out_kernels, uint64_t *out_max_group) {
    char spv[1024], bc[1024], cmd[3200];
    if (cl->num_programs == HCL_TS_CL_MAX_PROGRAMS || cl->num_kernels + num_kernels > HCL_TS_CL_MAX_KERNELS) {
        hcl_ts_cl_fail(cl, "%s: more programs or kernels than the harness holds", name);
        return false;
    }
    mkdir(dir, 0777);
    snprintf(spv, sizeof spv, "%s/%s.spv", dir, name);
    snprintf(bc, sizeof bc, "%s/%s.bc", dir, name);
    FILE *f = fopen(spv, "wb");
    if (!f || fwrite(spirv, 1, spirv_size, f) != spirv_size) {
        if (f) fclose(f);
        hcl_ts_cl_fail(cl, "%s: cannot write %s", name, spv);
        return false;
    }
    fclose(f);
    remove(bc);
    snprintf(cmd, sizeof cmd, "'%s' -r '%s' -o '%s'", llvm_spirv, spv, bc);
    int rc = system(cmd);
    size_t bc_size = 0;
    unsigned char *bin = rc == 0 ? hcl_ts_read_file(bc, &bc_size) : NULL;
    if (!bin || bc_size == 0) {
        free(bin);
        hcl_ts_cl_fail(cl, "%s: `%s` failed (status %d)", name, cmd, rc);
        return false;
    }
    cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
    const unsigned char *bins[1] = {bin};
    cl_program program = clCreateProgramWithBinary(cl->ctx, 1, &cl->dev, &bc_size, bins, &bin_status, &err);
    free(bin);
    if (program) cl->programs[cl->num_programs++] = program;
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        hcl_ts_cl_fail(cl, "%s: clCreateProgramWithBinary of %zu bytes of bitcode: %d / %d", name, bc_size, (int)err,
                       (int)bin_status);
        return false;
    }
    if (!build_and_create(cl, program, "", name, kernel_names, num_kernels, out_kernels, out_max_group)) return false;
    printf("ok   %-10s %6zu bytes of SPIR-V (%s) -> llvm-spirv -r -> %6zu bytes of bitcode -> built on PoCL\n", name,
           spirv_size, origin, bc_size);
    return true;
}

bool hcl_ts_cl_load_il(hcl_ts_cl *cl, const char *name, const char *origin, const void *spirv, size_t spirv_size,
                       const char *const *kernel_names, uint32_t num_kernels, cl_kernel *out_kernels,
                       uint64_t *out_max_group) {
    if (cl->num_programs == HCL_TS_CL_MAX_PROGRAMS || cl->num_kernels + num_kernels > HCL_TS_CL_MAX_KERNELS) {
        hcl_ts_cl_fail(cl, "%s: more programs or kernels than the harness holds", name);
        return false;
    }
    cl_int err = CL_SUCCESS;
    cl_program program = cl->create_with_il ? cl->create_with_il(cl->ctx, spirv, spirv_size, &err) : NULL;
    if (program) cl->programs[cl->num_programs++] = program;
    if (!program || err != CL_SUCCESS) {
        hcl_ts_cl_fail(cl, "%s: clCreateProgramWithILKHR of %zu bytes of SPIR-V: %d", name, spirv_size, (int)err);
        return false;
    }
    if (!build_and_create(cl, program, "", name, kernel_names, num_kernels, out_kernels, out_max_group)) return false;
    printf("ok   %-10s %6zu bytes of SPIR-V (%s) -> clCreateProgramWithILKHR -> built on '%s'\n", name, spirv_size,
           origin, cl->device_name);
    return true;
}

bool hcl_ts_cl_load_source(hcl_ts_cl *cl, const char *name, const char *origin, const void *text, size_t text_size,
                           const char *options, const char *const *kernel_names, uint32_t num_kernels,
                           cl_kernel *out_kernels, uint64_t *out_max_group) {
    if (cl->num_programs == HCL_TS_CL_MAX_PROGRAMS || cl->num_kernels + num_kernels > HCL_TS_CL_MAX_KERNELS) {
        hcl_ts_cl_fail(cl, "%s: more programs or kernels than the harness holds", name);
        return false;
    }
    cl_int err = CL_SUCCESS;
    const char *texts[1] = {text};
    cl_program program = clCreateProgramWithSource(cl->ctx, 1, texts, &text_size, &err);
    if (program) cl->programs[cl->num_programs++] = program;
    if (err != CL_SUCCESS) {
        hcl_ts_cl_fail(cl, "%s: clCreateProgramWithSource of %zu bytes: %d", name, text_size, (int)err);
        return false;
    }
    if (!build_and_create(cl, program, options, name, kernel_names, num_kernels, out_kernels, out_max_group))
        return false;
    printf("ok   %-10s %6zu bytes of OpenCL C (%s) with \"%s\" -> built on PoCL\n", name, text_size, origin, options);
    return true;
}

/* Build `program` with `options`, then create its kernels (CL_KERNEL_WORK_GROUP_SIZE of each in out_max_group). */
static bool build_and_create(hcl_ts_cl *cl, cl_program program, const char *options, const char *name,
                             const char *const *kernel_names, uint32_t num_kernels, cl_kernel *out_kernels,
                             uint64_t *out_max_group) {
    cl_int err = clBuildProgram(program, 1, &cl->dev, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(program, cl->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        hcl_ts_cl_fail(cl, "%s: clBuildProgram: %d\n%s", name, (int)err, log);
        return false;
    }
    for (uint32_t k = 0; k < num_kernels; k++) {
        out_kernels[k] = clCreateKernel(program, kernel_names[k], &err);
        if (out_kernels[k]) cl->kernels[cl->num_kernels++] = out_kernels[k];
        if (err != CL_SUCCESS) {
            hcl_ts_cl_fail(cl, "%s: clCreateKernel('%s'): %d", name, kernel_names[k], (int)err);
            return false;
        }
        size_t wg = 0;
        clGetKernelWorkGroupInfo(out_kernels[k], cl->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
        if (out_max_group) out_max_group[k] = wg;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------------------
 * A launch
 * ------------------------------------------------------------------------------------------------------- */
bool hcl_ts_cl_launch(hcl_ts_cl *cl, cl_kernel k, const char *name, const uint32_t groups[3],
                      const uint32_t group_size[3], size_t shared_bytes, uint32_t num_args, const hcl_ts_cl_arg *args,
                      const char *what) {
    bool ok = true;
    cl_mem *subs = hcl_ts_alloc((num_args + 1) * sizeof *subs);
    for (uint32_t i = 0; i < num_args && ok; i++) {
        const hcl_ts_cl_arg *a = &args[i];
        cl_int err = CL_SUCCESS;
        if (a->is_mem) {
            cl_mem m = a->mem;
            if (a->offset) { /* a driver adds the offset to the pointer; OpenCL needs a sub-buffer */
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
            hcl_ts_cl_fail(cl, "%s: '%s': argument %u (%s, %zu bytes): OpenCL error %d", what, name, i,
                           a->is_mem ? "a buffer" : "a value", a->is_mem ? a->offset : a->size, (int)err);
            ok = false;
        }
    }
    if (ok && shared_bytes) {
        cl_int err = clSetKernelArg(k, num_args, shared_bytes, NULL);
        if (err != CL_SUCCESS) {
            hcl_ts_cl_fail(cl, "%s: '%s': %zu bytes of local memory as argument %u: OpenCL error %d", what, name,
                           shared_bytes, num_args, (int)err);
            ok = false;
        }
    }
    if (ok) {
        size_t global[3], local[3];
        for (int d = 0; d < 3; d++) {
            global[d] = (size_t)groups[d] * group_size[d];
            local[d] = group_size[d];
        }
        cl_int err = clEnqueueNDRangeKernel(cl->q, k, 3, NULL, global, local, 0, NULL, NULL);
        if (err == CL_SUCCESS) err = clFinish(cl->q);
        if (err != CL_SUCCESS) {
            hcl_ts_cl_fail(cl, "%s: '%s' (%u x %u x %u groups of %u x %u x %u): OpenCL error %d", what, name, groups[0],
                           groups[1], groups[2], group_size[0], group_size[1], group_size[2], (int)err);
            ok = false;
        }
    }
    for (uint32_t i = 0; i < num_args; i++)
        if (subs[i]) clReleaseMemObject(subs[i]);
    free(subs);
    return ok;
}
