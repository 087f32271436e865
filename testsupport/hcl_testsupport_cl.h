/* hcl_testsupport_cl: the PoCL harness of the SPIR-V round-trip tests (kernels/test_spirv_roundtrip.c, the built-in
 * kernels; drivers/levelzero/test_fill_roundtrip.c, the Level Zero driver's fill helper) and of the emulated XMX gemm
 * test (kernels/test_gemm_xmx.c, OpenCL C built from its text). No Level Zero GPU runs
 * here, so a test hands the SPIR-V a Level Zero driver would get to `llvm-spirv -r`, loads the bitcode on PoCL (CPU)
 * with clCreateProgramWithBinary, and runs the launches a driver would append, through OpenCL. Where an OpenCL device
 * takes SPIR-V itself (CL_DEVICE_IL_VERSION: Intel's OpenCL CPU runtime), the same SPIR-V goes to it unchanged through
 * clCreateProgramWithIL (hcl_ts_cl_open_il, hcl_ts_cl_load_il).
 *
 * Static library hcl_testsupport_cl (OpenCL 1.2), built only when OpenCL is found. A failing call prints
 * "FAIL <text>" and counts a failure in hcl_ts_cl.failures; nothing here exits, but hcl_ts_alloc. */
#ifndef HCL_TESTSUPPORT_CL_H
#define HCL_TESTSUPPORT_CL_H

#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HCL_TS_CL_MAX_PROGRAMS 16
#define HCL_TS_CL_MAX_KERNELS 256

/* clCreateProgramWithILKHR (cl_khr_il_program; clCreateProgramWithIL from OpenCL 2.1), found per platform */
typedef cl_program (*hcl_ts_cl_create_with_il)(cl_context ctx, const void *il, size_t length, cl_int *err);

typedef struct hcl_ts_cl {
    cl_context ctx;
    cl_command_queue q;
    cl_device_id dev;
    int failures; /* counted by hcl_ts_cl_fail */
    int is_cpu;   /* CL_DEVICE_TYPE_CPU */
    char device_name[128];
    hcl_ts_cl_create_with_il create_with_il; /* set by hcl_ts_cl_open_il */
    /* the device's limits, for the tests' device profiles */
    cl_uint compute_units;
    size_t max_group_size;
    cl_ulong local_mem;
    size_t align; /* bytes; sub-buffer offsets must be multiples of it (CL_DEVICE_MEM_BASE_ADDR_ALIGN) */
    /* what hcl_ts_cl_load_spirv made, released by hcl_ts_cl_close */
    cl_program programs[HCL_TS_CL_MAX_PROGRAMS];
    cl_kernel kernels[HCL_TS_CL_MAX_KERNELS];
    uint32_t num_programs, num_kernels;
} hcl_ts_cl;

/* A kernel argument of a launch, as a driver would set it. */
typedef struct hcl_ts_cl_arg {
    bool is_mem; /* a buffer: mem plus offset bytes (a driver adds the offset to the pointer; here: a
                          sub-buffer), else size bytes of value */
    cl_mem mem;
    size_t offset;
    const void *value;
    size_t size;
} hcl_ts_cl_arg;

/* The start of a round-trip test (usage: TEST LLVM_SPIRV WORK_DIR): checks the arguments, prints the seed
 * (hcl_ts_seed, "<test>: seed N (HCL_SEED repeats a run)") into out_seed, then opens PoCL's CPU device with a context
 * and a queue and prints which. Returns 0 when open; else the test's exit status: 2 (usage), 77 (skipped: no PoCL
 * device, "SKIP: ..." printed) or 1 (an OpenCL error, "FAIL ..." printed). */
int hcl_ts_cl_start(hcl_ts_cl *cl, int argc, char **argv, const char *test, uint64_t *out_seed);
/* The same without the arguments (a test that runs OpenCL C, not SPIR-V): prints the seed, opens PoCL; 0 when open,
 * else 77 ("SKIP: no PoCL CPU device ...: <runs> runs on it") or 1. */
int hcl_ts_cl_open(hcl_ts_cl *cl, const char *test, const char *runs, uint64_t *out_seed);
/* The same on the first OpenCL device, of any platform and type, that takes SPIR-V (CL_DEVICE_IL_VERSION names it)
 * with clCreateProgramWithILKHR: 0 when open, else 77 ("SKIP: no OpenCL device takes SPIR-V ...", each device seen and
 * what it takes) or 1. */
int hcl_ts_cl_open_il(hcl_ts_cl *cl, const char *test, const char *runs, uint64_t *out_seed);
/* Releases the kernels and programs made by hcl_ts_cl_load_spirv / _load_source, the queue and the context. */
void hcl_ts_cl_close(hcl_ts_cl *cl);

void hcl_ts_cl_fail(hcl_ts_cl *cl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* calloc of n bytes (at least 1); exits with a message when the host is out of memory. */
void *hcl_ts_alloc(size_t n);

/* A read-write buffer of `bytes` (at least 4); NULL on failure (counted). */
cl_mem hcl_ts_cl_buffer(hcl_ts_cl *cl, size_t bytes);
/* Blocking writes and reads of the first `bytes` of m; false on failure (counted). */
bool hcl_ts_cl_write(hcl_ts_cl *cl, cl_mem m, const void *src, size_t bytes);
bool hcl_ts_cl_read(hcl_ts_cl *cl, cl_mem m, void *dst, size_t bytes);

/* The SPIR-V of a program (`name`, built from `origin`) through the round trip: written to DIR/NAME.spv, translated
 * by `LLVM_SPIRV -r` to DIR/NAME.bc, created from that bitcode and built on the device; then its kernels created,
 * with the work-group size each allows (CL_KERNEL_WORK_GROUP_SIZE) in out_max_group (may be NULL). Prints one "ok"
 * line. On failure (counted) returns false. What it made is released by hcl_ts_cl_close. */
bool hcl_ts_cl_load_spirv(hcl_ts_cl *cl, const char *llvm_spirv, const char *dir, const char *name, const char *origin,
                          const void *spirv, size_t spirv_size, const char *const *kernel_names, uint32_t num_kernels,
                          cl_kernel *out_kernels, uint64_t *out_max_group);

/* The SPIR-V of a program given to the device of hcl_ts_cl_open_il unchanged (clCreateProgramWithILKHR), built, and its
 * kernels created as hcl_ts_cl_load_spirv does. Prints one "ok" line. On failure (counted) returns false. */
bool hcl_ts_cl_load_il(hcl_ts_cl *cl, const char *name, const char *origin, const void *spirv, size_t spirv_size,
                       const char *const *kernel_names, uint32_t num_kernels, cl_kernel *out_kernels,
                       uint64_t *out_max_group);

/* An OpenCL C text (`name`, from `origin`) built on the device with `options`, then its kernels created as
 * hcl_ts_cl_load_spirv does. Prints one "ok" line. On failure (counted, the build log printed) returns false. */
bool hcl_ts_cl_load_source(hcl_ts_cl *cl, const char *name, const char *origin, const void *text, size_t text_size,
                           const char *options, const char *const *kernel_names, uint32_t num_kernels,
                           cl_kernel *out_kernels, uint64_t *out_max_group);

/* One launch of kernel k (`name`, for messages) on groups[] work-groups of group_size[] work-items, with the
 * arguments in order and then, when shared_bytes > 0, that much local memory as one more argument (as the OpenCL and
 * Level Zero drivers pass dynamic local memory); waits for it. `what` names the check in messages. False on failure
 * (counted). */
bool hcl_ts_cl_launch(hcl_ts_cl *cl, cl_kernel k, const char *name, const uint32_t groups[3],
                      const uint32_t group_size[3], size_t shared_bytes, uint32_t num_args, const hcl_ts_cl_arg *args,
                      const char *what);

#endif /* HCL_TESTSUPPORT_CL_H */
