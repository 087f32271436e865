/* Fuzz harness: kernel argument lists and launch shapes (hcl_kernel_launch) on the host backend.
 *
 * One device, queue, three buffers and a kernel that touches nothing are made once. Each input describes a launch:
 * the grid (each dimension 0 to 7, so an accepted launch stays quick), the block (from a table of small, limit and
 * oversized values), the dynamic shared memory, and up to 12 arguments, each of any kind value (valid or not), a
 * buffer that is valid, released, NULL or a forged handle, any offset, and a value of 0 to 300 bytes; now and then
 * a NULL argument array. The launch must succeed or fail with a status and a message; the queue must still work
 * after (hcl_queue_finish). */
#include "hcl/hcl.h"

#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void noop(const hcl_host_launch *l, void *const *args) { (void)l, (void)args; }
static const hcl_host_function g_table[] = {{"noop", noop}};

static hcl_device g_dev;
static hcl_queue g_q;
static hcl_buffer g_buf[3], g_released;
static hcl_kernel g_k;

#define REQUIRE(call)                                                                                                  \
    do {                                                                                                               \
        hcl_status st_ = (call);                                                                                       \
        if (st_ != HCL_SUCCESS) {                                                                                      \
            fprintf(stderr, "%s: %s: %s\n", #call, hcl_status_name(st_), hcl_last_message());                          \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    hcl_module m = NULL;
    hcl_module_source src = {HCL_SOURCE_HOST_TABLE, g_table, 1, NULL};
    REQUIRE(hcl_device_open("host", &g_dev));
    REQUIRE(hcl_queue_create(g_dev, &g_q));
    static const size_t sizes[3] = {64, 256, 4096};
    for (int i = 0; i < 3; i++) REQUIRE(hcl_buffer_create(g_dev, sizes[i], 0, &g_buf[i]));
    REQUIRE(hcl_buffer_create(g_dev, 128, 0, &g_released));
    REQUIRE(hcl_buffer_release(g_released));
    REQUIRE(hcl_module_create(g_dev, &src, 1, &m));
    REQUIRE(hcl_kernel_create(m, "noop", &g_k));
    REQUIRE(hcl_module_release(m)); /* the kernel keeps it */
    return 0;
}

static const uint32_t g_blocks[] = {0, 1, 2, 3, 32, 64, 255, 1024, 4096, 4097, 65536, 0x80000000u, UINT32_MAX};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size, 0};
    hcl_dim3 grid = {fuzz_u32(&in, 1) & 7, fuzz_u32(&in, 1) & 7, fuzz_u32(&in, 1) & 7};
    const size_t nb = sizeof g_blocks / sizeof g_blocks[0];
    hcl_dim3 block = {g_blocks[fuzz_u32(&in, 1) % nb], g_blocks[fuzz_u32(&in, 1) % nb],
                      g_blocks[fuzz_u32(&in, 1) % nb]};
    size_t shared = fuzz_u32(&in, 1) & 0x80 ? (size_t)fuzz_u32(&in, 4) << (fuzz_u32(&in, 1) & 31) : 0;
    uint32_t flags = fuzz_u32(&in, 1);
    uint32_t num_args = flags % 13;
    hcl_arg args[12];
    for (uint32_t i = 0; i < num_args; i++) {
        hcl_arg *a = &args[i];
        memset(a, 0, sizeof *a);
        uint32_t kind = fuzz_u32(&in, 1);
        a->kind = (hcl_arg_kind)(kind < 200 ? kind % 4 : kind * 0x01010101u); /* mostly 0..3, now and then wild */
        switch (fuzz_u32(&in, 1) % 6) {
        case 0: a->buffer = g_buf[0]; break;
        case 1: a->buffer = g_buf[1]; break;
        case 2: a->buffer = g_buf[2]; break;
        case 3: a->buffer = g_released; break;
        case 4: a->buffer = NULL; break;
        default: a->buffer = (hcl_buffer)(uintptr_t)fuzz_u32(&in, 4); break; /* a forged handle */
        }
        a->offset = (size_t)fuzz_u32(&in, 4) << (fuzz_u32(&in, 1) & 31);
        size_t n = 0;
        a->value = fuzz_bytes(&in, 300, &n);
        a->size = fuzz_u32(&in, 1) & 1 ? n : (size_t)fuzz_u32(&in, 2); /* truthful, or a size that is checked */
        if (a->size > n && a->kind == HCL_ARG_VALUE) a->size = n;      /* the caller owns `size` bytes: never lie */
        if (fuzz_u32(&in, 1) == 0xff) a->value = NULL;
    }
    const hcl_arg *list = flags & 0x80 ? NULL : args; /* a NULL list with num_args > 0 is refused */
    if (num_args == 0 && (flags & 0x40)) list = NULL;
    hcl_status st = hcl_kernel_launch(g_q, g_k, grid, block, shared, num_args, list, 0, NULL, NULL);
    if (st != HCL_SUCCESS && !hcl_last_message()[0]) {
        fprintf(stderr, "hcl_kernel_launch failed (%s) without a message\n", hcl_status_name(st));
        abort();
    }
    REQUIRE(hcl_queue_finish(g_q));
    return 0;
}
