/* The C interface of Slang's libslang-glslang (glslang and SPIRV-Tools behind C entry points; the library inside
 * PyPI's slangpy wheel, which `make deps` fetches into .deps/glslang), opened with dlopen by the Vulkan driver for
 * GLSL sources at run time (glsl.c) and by the build tool hcl-glslang-compile (glslang_compile.c, which
 * kernels/CMakeLists.txt builds); and the one piece of source handling both need. Version 1.2 of the request; nothing
 * here is linked. */
#ifndef HCL_VULKAN_SLANG_GLSLANG_H
#define HCL_VULKAN_SLANG_GLSLANG_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*hcl_slang_output_fn)(const void *data, size_t size, void *user);
typedef struct hcl_slang_spirv_version {
    int major, minor, patch;
} hcl_slang_spirv_version;
typedef struct hcl_slang_compile_request {
    size_t size_in_bytes;
    const char *source_path;
    const void *input_begin, *input_end;
    hcl_slang_output_fn diagnostic_fn;
    void *diagnostic_user;
    hcl_slang_output_fn output_fn;
    void *output_user;
    int slang_stage;               /* HCL_SLANG_STAGE_COMPUTE */
    unsigned action;               /* 0: compile GLSL to SPIR-V */
    unsigned optimization_level;   /* 0: none, 1: default (spirv-opt's passes) */
    unsigned debug_info_type;      /* 0: none */
    const char *spirv_target_name; /* NULL: Vulkan */
    hcl_slang_spirv_version spirv; /* SPIR-V 1.5 for Vulkan 1.2 */
    const char *entry_point_name;  /* the name `main` gets in the module */
} hcl_slang_compile_request;
typedef struct hcl_slang_link_request {
    const uint32_t **modules;
    const uint32_t *module_sizes; /* in 32-bit words */
    int module_count;
    const uint32_t *link_result; /* allocated by the library, which keeps it */
    size_t link_result_size;
} hcl_slang_link_request;
#define HCL_SLANG_STAGE_COMPUTE 6
/* glslang_compile_1_2: 0 on success; glslang_validateSPIRV: C++ bool; glslang_linkSPIRV: nonzero on success */
typedef int (*hcl_slang_compile_fn)(hcl_slang_compile_request *);
typedef _Bool (*hcl_slang_validate_fn)(const uint32_t *words, int count);
typedef int (*hcl_slang_link_fn)(hcl_slang_link_request *);

/* A growing byte buffer, kept NUL-terminated: what the library's output and diagnostic callbacks write
 * (hcl_slang_collect, `user` the buffer). `oom` once a growth failed; what it holds is then cut short. */
typedef struct hcl_slang_bytes {
    char *data;
    size_t size, cap;
    int oom;
} hcl_slang_bytes;

static inline void hcl_slang_collect(const void *data, size_t size, void *user) {
    hcl_slang_bytes *b = user;
    if (b->oom) return;
    if (b->size + size + 1 > b->cap) {
        size_t cap = (b->size + size + 1) * 2;
        char *grown = realloc(b->data, cap);
        if (!grown) {
            b->oom = 1;
            return;
        }
        b->data = grown;
        b->cap = cap;
    }
    memcpy(b->data + b->size, data, size);
    b->size += size;
    b->data[b->size] = '\0';
}

/* `source` (`size` bytes) with a `#define` line for each of the `count` `defines` (NAME, or NAME and VALUE separated by
 * '=' or a blank) right after its `#version` line, followed by `#line N` (and `"name"` when `name` is not NULL) so that
 * the compiler's messages number the lines as in `source`. The library's glslang takes no defines of its own.
 * Returns the text (malloc'd, NUL-terminated; free() it), or NULL when `source` has no `#version` line (*out_no_version
 * set) or the host is out of memory. */
static inline char *hcl_slang_with_defines(const char *source, size_t size, const char *const *defines, size_t count,
                                           const char *name, int *out_no_version) {
    *out_no_version = 0;
    const char *version = NULL;
    for (size_t i = 0; i + 8 <= size && !version; i++)
        if (!memcmp(source + i, "#version", 8)) version = source + i;
    const char *eol = version ? memchr(version, '\n', size - (size_t)(version - source)) : NULL;
    if (!eol) {
        *out_no_version = 1;
        return NULL;
    }
    size_t head = (size_t)(eol + 1 - source), need = size + 64 + (name ? strlen(name) : 0);
    for (size_t i = 0; i < count; i++) need += strlen(defines[i]) + 10;
    char *out = malloc(need);
    if (!out) return NULL;
    memcpy(out, source, head);
    size_t at = head;
    for (size_t i = 0; i < count; i++) {
        size_t len = strlen(defines[i]);
        memcpy(out + at, "#define ", 8);
        memcpy(out + at + 8, defines[i], len);
        char *eq = memchr(out + at + 8, '=', len);
        if (eq) *eq = ' ';
        at += 8 + len;
        out[at++] = '\n';
    }
    int lines = 0;
    for (size_t i = 0; i < head; i++) lines += source[i] == '\n';
    if (name)
        at += (size_t)snprintf(out + at, need - at, "#line %d \"%s\"\n", lines + 1, name);
    else
        at += (size_t)snprintf(out + at, need - at, "#line %d\n", lines + 1);
    memcpy(out + at, eol + 1, size - head);
    out[at + size - head] = '\0';
    return out;
}

#endif /* HCL_VULKAN_SLANG_GLSLANG_H */
