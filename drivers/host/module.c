/* Host modules (tables of C functions), kernels and launches.
 *
 * A launch calls the kernel's function once per work-group over the whole grid, the groups spread over the
 * cores (OpenMP), each thread with its own 64-byte aligned scratch as the group's dynamic local memory. The
 * function loops over the work-items of its group itself (hcl.h, hcl_host_launch).
 */
#include "host.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static char *hcl_host_strdup(const char *s) {
    const size_t len = strlen(s) + 1;
    char *copy = malloc(len);
    if (copy != NULL) memcpy(copy, s, len);
    return copy;
}

void hcl__host_module_destroy(void *module) {
    hcl_host_module *m = module;
    if (m == NULL) return;
    for (uint32_t i = 0; i < m->count; ++i) free((char *)m->functions[i].name);
    free(m->functions);
    free(m);
}

static hcl_status hcl_host_module_from_table(const hcl_host_function *table, size_t count, void **out_module) {
    if (count > UINT32_MAX)
        return HCL_HOST_FAIL(HCL_ERROR_INVALID_ARGUMENT,
                             "host module_create: %zu functions in a host table (at most %u)", count, UINT32_MAX);
    for (size_t i = 0; i < count; ++i) {
        if (table[i].name == NULL || table[i].fn == NULL)
            return HCL_HOST_FAIL(HCL_ERROR_INVALID_ARGUMENT, "host module_create: host table entry %zu has a NULL %s",
                                 i, table[i].name == NULL ? "name" : "function");
    }
    hcl_host_module *m = calloc(1, sizeof *m);
    if (m == NULL) return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "host module_create: out of host memory");
    if (count > 0) {
        m->functions = calloc(count, sizeof *m->functions);
        if (m->functions == NULL) {
            free(m);
            return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "host module_create: out of host memory for %zu functions",
                                 count);
        }
    }
    for (size_t i = 0; i < count; ++i) {
        char *name = hcl_host_strdup(table[i].name);
        if (name == NULL) {
            hcl__host_module_destroy(m);
            return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "host module_create: out of host memory");
        }
        m->functions[i].name = name;
        m->functions[i].fn = table[i].fn;
        m->count = (uint32_t)(i + 1);
    }
    *out_module = m;
    return HCL_SUCCESS;
}

hcl_status hcl__host_module_create(void *device, const hcl_module_source *sources, uint32_t count, void **out_module) {
    (void)device;
    const hcl_module_source *src = hcl__kit_source_pick(sources, count, HCL_KIT_KIND(HCL_SOURCE_HOST_TABLE));
    if (src == NULL) return hcl__kit_source_unsupported(count, "HCL_SOURCE_HOST_TABLE (an array of hcl_host_function)");
    return hcl_host_module_from_table(src->data, src->size, out_module);
}

hcl_status hcl__host_kernel_create(void *module, const char *name, void **out_kernel) {
    const hcl_host_module *m = module;
    for (uint32_t i = 0; i < m->count; ++i) {
        if (strcmp(m->functions[i].name, name) != 0) continue;
        hcl_host_kernel *k = malloc(sizeof *k);
        char *copy = hcl_host_strdup(name);
        if (k == NULL || copy == NULL) {
            free(k);
            free(copy);
            return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "host kernel_create: out of host memory");
        }
        k->fn = m->functions[i].fn;
        k->name = copy;
        *out_kernel = k;
        return HCL_SUCCESS;
    }
    return HCL_HOST_FAIL(HCL_ERROR_NOT_FOUND,
                         "host kernel_create: no function named \"%s\" in the module (%u functions)", name, m->count);
}

/* A host function loops over its group's work-items itself: any group the device takes, this kernel takes. */
hcl_status hcl__host_kernel_max_group(void *kernel, uint64_t *out_max) {
    (void)kernel;
    *out_max = HCL_HOST_MAX_WORK_GROUP;
    return HCL_SUCCESS;
}

void hcl__host_kernel_destroy(void *kernel) {
    hcl_host_kernel *k = kernel;
    if (k == NULL) return;
    free(k->name);
    free(k);
}

/* Value arguments are copied at this alignment, enough for any scalar or plain struct. */
#define HCL_HOST_ARG_ALIGN 16
/* An argument block up to this size lives on the launching call's stack (the kernel has run when the call returns),
 * so a launch of a few arguments allocates nothing. */
#define HCL_HOST_ARG_STACK 512

hcl_status hcl__host_kernel_launch(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                   uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                   void **out_event) {
    (void)queue, (void)num_wait, (void)wait;
    const hcl_host_kernel *k = kernel;
    const uint64_t groups_xy = (uint64_t)grid.x * grid.y;
    if (grid.z != 0 && groups_xy > (uint64_t)LLONG_MAX / grid.z)
        return HCL_HOST_FAIL(HCL_ERROR_INVALID_ARGUMENT, "host kernel_launch %s: grid %u x %u x %u has too many groups",
                             k->name, grid.x, grid.y, grid.z);
    const uint64_t groups = groups_xy * grid.z;

    /* One block: the argument pointers, a slot per buffer argument holding its address, then the copied
     * values. */
    size_t bytes = (size_t)num_args * 2 * sizeof(void *);
    for (uint32_t i = 0; i < num_args; ++i)
        if (args[i].kind == HCL_DRIVER_ARG_VALUE) bytes += hcl__host_round_up(args[i].size, HCL_HOST_ARG_ALIGN);
    _Alignas(HCL_HOST_ALIGN) unsigned char on_stack[HCL_HOST_ARG_STACK];
    void **argv = NULL, *argv_heap = NULL; /* argv_heap: argv when it did not fit on_stack (this call frees it) */
    if (bytes > 0) {
        argv = bytes <= sizeof on_stack
                   ? (void **)on_stack
                   : (argv_heap = aligned_alloc(HCL_HOST_ALIGN, hcl__host_round_up(bytes, HCL_HOST_ALIGN)));
        if (argv == NULL)
            return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY, "host kernel_launch %s: out of host memory for %u arguments",
                                 k->name, num_args);
        void **slots = argv + num_args;
        unsigned char *values = (unsigned char *)(slots + num_args);
        for (uint32_t i = 0; i < num_args; ++i) {
            if (args[i].kind == HCL_DRIVER_ARG_BUFFER) {
                slots[i] = (char *)args[i].mem + args[i].offset;
                argv[i] = &slots[i];
            } else {
                memcpy(values, args[i].value, args[i].size);
                argv[i] = values;
                values += hcl__host_round_up(args[i].size, HCL_HOST_ARG_ALIGN);
            }
        }
    }

    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    if (threads < 1) threads = 1;
    if ((uint64_t)threads > groups) threads = (int)groups;
#endif
    const size_t stride = hcl__host_round_up(shared_bytes, HCL_HOST_ALIGN);
    unsigned char *scratch = NULL;
    if (shared_bytes > 0) {
        scratch = aligned_alloc(HCL_HOST_ALIGN, stride * (size_t)threads);
        if (scratch == NULL) {
            free(argv_heap);
            return HCL_HOST_FAIL(HCL_ERROR_OUT_OF_MEMORY,
                                 "host kernel_launch %s: out of host memory for %d x %zu bytes of local memory",
                                 k->name, threads, shared_bytes);
        }
    }

    hcl_host_event *event;
    const hcl_status status = hcl__host_event_begin("host kernel_launch", out_event, &event);
    if (status != HCL_SUCCESS) {
        free(scratch);
        free(argv_heap);
        return status;
    }
    const long long total = (long long)groups;
    long long chunk = total / ((long long)threads * 16);
    if (chunk < 1) chunk = 1;
    if (total == 1) {
        /* One group (the built-ins run so): called here, outside any parallel region. Inside one, even an inactive
         * one, the kernel's own OpenMP regions are nested, and libgomp starts their threads afresh each time instead
         * of reusing its pool (measured here: 428 us per region against 42 at top level, 4 threads); on the H100
         * machine's 16 cores that made the host reduce 3x and gemm 2x slower. */
        hcl_host_launch launch = {{0, 0, 0}, grid, block, scratch, shared_bytes};
        k->fn(&launch, argv);
        hcl__host_event_end(event, out_event);
        free(scratch);
        free(argv_heap);
        return HCL_SUCCESS;
    }
    HCL_HOST_OMP(omp parallel num_threads(threads) if (threads > 1)) {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        hcl_host_launch launch;
        launch.grid = grid;
        launch.block = block;
        launch.shared = scratch != NULL ? scratch + (size_t)tid * stride : NULL;
        launch.shared_size = shared_bytes;
        HCL_HOST_OMP(omp for schedule(dynamic, chunk))
        for (long long g = 0; g < total; ++g) {
            const uint64_t flat = (uint64_t)g;
            launch.group_id.x = (uint32_t)(flat % grid.x);
            launch.group_id.y = (uint32_t)(flat / grid.x % grid.y);
            launch.group_id.z = (uint32_t)(flat / groups_xy);
            k->fn(&launch, argv);
        }
    }
    hcl__host_event_end(event, out_event);
    free(scratch);
    free(argv_heap);
    return HCL_SUCCESS;
}
