/* Fuzz harness: module sources (hcl_module_create, hcl_kernel_create) on the host backend, with SPIR-V, PTX, OpenCL C
 * and CUDA text among them.
 *
 * No HCL code parses SPIR-V, PTX or OpenCL C in-process: the vendor runtimes do (Level Zero checks only the SPIR-V
 * magic before zeModuleCreate). What HCL does with such bytes is validate the list (count, kinds, NULL data, sizes,
 * options) and pick the first source the backend takes. So each input is a list of one to four sources, each of any
 * kind value (valid or not) with bytes of the input (a SPIR-V module, PTX or C text: the seed corpus has one of each)
 * or a host function table, often with options; then the name of a kernel to look up. Every call must succeed or fail
 * with a status and a message; a module and kernel made are released. */
#include "hcl/hcl.h"

#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void noop(const hcl_host_launch *l, void *const *args) { (void)l, (void)args; }
/* a table with entries a caller may get wrong: no name, no function, an empty name, a repeated name */
static const hcl_host_function g_table[] = {{"noop", noop}, {"other", noop}, {NULL, noop},
                                            {"nofn", NULL}, {"", noop},      {"noop", noop}};

static hcl_device g_dev;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc, (void)argv;
    if (hcl_device_open("host", &g_dev) != HCL_SUCCESS) {
        fprintf(stderr, "fuzz_module: no host device: %s\n", hcl_last_message());
        abort();
    }
    return 0;
}

static void require_message(hcl_status st, const char *call) {
    if (st != HCL_SUCCESS && !hcl_last_message()[0]) {
        fprintf(stderr, "%s failed (%s) without a message\n", call, hcl_status_name(st));
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size, 0};
    uint32_t count = fuzz_u32(&in, 1) % 5; /* 0 is refused */
    hcl_module_source src[4];
    char options[4][64];
    for (uint32_t i = 0; i < count; i++) {
        uint32_t kind = fuzz_u32(&in, 1);
        src[i].kind = (hcl_source_kind)(kind < 240 ? kind % 9 : kind << 24);
        src[i].options = NULL;
        if (src[i].kind == HCL_SOURCE_HOST_TABLE) {
            uint32_t first = fuzz_u32(&in, 1) % 6;
            src[i].data = fuzz_u32(&in, 1) == 0xff ? NULL : &g_table[first];
            src[i].size = fuzz_u32(&in, 1) % (7 - first); /* entries: never more than the table holds */
        } else {
            size_t n = 0;
            const uint8_t *p = fuzz_bytes(&in, 1 << 16, &n);
            src[i].data = fuzz_u32(&in, 1) == 0xff ? NULL : p;
            src[i].size = n;
        }
        size_t on = 0;
        const uint8_t *o = fuzz_bytes(&in, sizeof options[i] - 1, &on);
        if (on) {
            memcpy(options[i], o, on);
            options[i][on] = '\0';
            src[i].options = options[i];
        }
    }
    char name[80];
    size_t nn = 0;
    const uint8_t *np = fuzz_bytes(&in, sizeof name - 1, &nn);
    memcpy(name, np, nn);
    name[nn] = '\0';

    hcl_module m = NULL;
    hcl_status st = hcl_module_create(g_dev, count ? src : NULL, count, &m);
    require_message(st, "hcl_module_create");
    if (st != HCL_SUCCESS) return 0;
    hcl_kernel k = NULL;
    st = hcl_kernel_create(m, name, &k);
    require_message(st, "hcl_kernel_create");
    if (st == HCL_SUCCESS) {
        hcl_queue q = NULL;
        if (hcl_queue_create(g_dev, &q) == HCL_SUCCESS) {
            hcl_status ls =
                hcl_kernel_launch(q, k, (hcl_dim3){1, 1, 1}, (hcl_dim3){1, 1, 1}, 0, 0, NULL, 0, NULL, NULL);
            require_message(ls, "hcl_kernel_launch");
            if (hcl_queue_release(q) != HCL_SUCCESS) abort();
        }
        if (hcl_kernel_release(k) != HCL_SUCCESS) abort();
    }
    if (hcl_module_release(m) != HCL_SUCCESS) abort();
    return 0;
}
