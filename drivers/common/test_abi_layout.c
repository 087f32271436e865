/* ctest loader-abi-layout: hcl_driver_table, generated from HCL_DRIVER_ENTRIES, has exactly the layout of the
 * hand-written struct of driver ABI 2.4 it replaced (below, comments dropped): every member at the same offset with the
 * same type and size, so that a driver built against the old header still loads; the entries added since (2.6:
 * buffer_wrap) follow it, at its end. Checked at compile time; the program only says so. */
#include "hcl/hcl_driver.h"

#include <stddef.h>
#include <stdio.h>

typedef struct abi_2_4_table {
    uint32_t size;
    uint32_t abi_major;
    uint32_t abi_minor;
    const char *name;
    hcl_status (*init)(const hcl_driver_host *host, char *reason, size_t reason_size, char *version,
                       size_t version_size);
    void (*shutdown)(void);
    hcl_status (*device_count)(uint32_t *out_count);
    hcl_status (*device_info)(uint32_t index, hcl_device_info *out_info);
    hcl_status (*device_open)(uint32_t index, void **out_device);
    void (*device_close)(void *device);
    hcl_status (*queue_create)(void *device, void **out_queue);
    void (*queue_destroy)(void *queue);
    hcl_status (*queue_finish)(void *queue);
    hcl_status (*queue_marker)(void *queue, uint32_t num_wait, void *const *wait, void **out_event);
    hcl_status (*buffer_alloc)(void *device, size_t size, void **out_mem);
    void (*buffer_free)(void *device, void *mem);
    hcl_status (*buffer_write)(void *queue, void *mem, size_t offset, size_t size, const void *src, int blocking,
                               uint32_t num_wait, void *const *wait, void **out_event);
    hcl_status (*buffer_read)(void *queue, void *mem, size_t offset, size_t size, void *dst, int blocking,
                              uint32_t num_wait, void *const *wait, void **out_event);
    hcl_status (*buffer_copy)(void *queue, void *dst, size_t dst_offset, void *src, size_t src_offset, size_t size,
                              int blocking, uint32_t num_wait, void *const *wait, void **out_event);
    hcl_status (*buffer_fill)(void *queue, void *mem, size_t offset, size_t size, const void *pattern,
                              size_t pattern_size, int blocking, uint32_t num_wait, void *const *wait,
                              void **out_event);
    hcl_status (*event_wait)(void *event);
    void (*event_release)(void *event);
    hcl_status (*event_elapsed)(void *start, void *end, double *out_seconds);
    hcl_status (*module_create)(void *device, const hcl_module_source *sources, uint32_t count, void **out_module);
    void (*module_destroy)(void *module);
    hcl_status (*kernel_create)(void *module, const char *name, void **out_kernel);
    void (*kernel_destroy)(void *kernel);
    hcl_status (*kernel_launch)(void *queue, void *kernel, hcl_dim3 grid, hcl_dim3 block, size_t shared_bytes,
                                uint32_t num_args, const hcl_driver_arg *args, uint32_t num_wait, void *const *wait,
                                void **out_event);
    hcl_status (*host_alloc)(void *device, size_t size, void **out_ptr);
    void (*host_free)(void *device, void *ptr);
    hcl_status (*get_native)(hcl_native_kind kind, void *object, void **out_native);
    hcl_status (*device_limits)(void *device, hcl_driver_limits *out);
    hcl_status (*kernel_max_group)(void *kernel, uint64_t *out_max);
    hcl_status (*kernel_params)(void *kernel, hcl_driver_param *out, uint32_t max, uint32_t *out_count,
                                uint32_t *out_flags);
    hcl_status (*peer_access)(void *device, void *peer, int *out_direct);
    hcl_status (*buffer_copy_peer)(void *queue, void *dst_device, void *dst, size_t dst_offset, void *src_device,
                                   void *src, size_t src_offset, size_t size, int blocking, uint32_t num_wait,
                                   void *const *wait, void **out_event);
    hcl_status (*host_register)(void *device, void *ptr, size_t size);
    void (*host_unregister)(void *device, void *ptr);
    hcl_status (*event_query)(void *event, int *out_done);
    hcl_status (*kernel_max_clusters)(void *kernel, uint32_t cluster_blocks, uint32_t threads, size_t shared_bytes,
                                      uint32_t *out_count);
} abi_2_4_table;

#define SAME(member)                                                                                                   \
    _Static_assert(offsetof(hcl_driver_table, member) == offsetof(abi_2_4_table, member), #member " moved");           \
    _Static_assert(sizeof(((hcl_driver_table *)0)->member) == sizeof(((abi_2_4_table *)0)->member),                    \
                   #member " changed size");                                                                           \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((hcl_driver_table *)0)->member),                           \
                                                __typeof__(((abi_2_4_table *)0)->member)),                             \
                   #member " changed type");
SAME(size)
SAME(abi_major)
SAME(abi_minor)
SAME(name)
#define SAME_ENTRY(ret, name, params) SAME(name)
#define SAME_GROUP(group) HCL_DRIVER_ENTRIES_##group(HCL__DRIVER_APPLY, SAME_ENTRY)
SAME_GROUP(DEVICES)
SAME_GROUP(OBJECTS)
SAME_GROUP(HOST_MEMORY)
SAME_GROUP(INTEROP)
SAME_GROUP(LIMITS)
SAME_GROUP(PARAMS)
SAME_GROUP(PEER)
SAME_GROUP(REGISTER)
SAME_GROUP(CLUSTERS)
/* 2.6: buffer_wrap, right after the 2.4 table's end */
_Static_assert(offsetof(hcl_driver_table, buffer_wrap) == sizeof(abi_2_4_table), "buffer_wrap is not at the 2.4 end");
/* 2.7: kernel_wait_in_device after it */
_Static_assert(offsetof(hcl_driver_table, kernel_wait_in_device) == sizeof(abi_2_4_table) + sizeof(void (*)(void)),
               "kernel_wait_in_device is not after buffer_wrap");
_Static_assert(sizeof(hcl_driver_table) == sizeof(abi_2_4_table) + 2 * sizeof(void (*)(void)),
               "hcl_driver_table changed size");
_Static_assert(HCL_DRIVER_ABI_MAJOR == 2 && HCL_DRIVER_ABI_MINOR >= 4, "the layout above is of ABI 2.4");

int main(void) {
#define COUNT(ret, name, params) +1
    printf("PASS hcl_driver_table: %d entries, %zu bytes, the layout of ABI 2.4, buffer_wrap (2.6) and "
           "kernel_wait_in_device (2.7) after it\n",
           0 HCL_DRIVER_ENTRIES(COUNT), sizeof(hcl_driver_table));
    return 0;
}
