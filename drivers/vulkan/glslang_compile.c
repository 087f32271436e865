/* hcl-glslang-compile: a build-time tool (not part of libhcl) that compiles the Vulkan kernels whose GLSL Debian 12's
 * glslangValidator cannot (GL_KHR_cooperative_matrix, GL_EXT_bfloat16: kernels/gemm/gemm_coop.comp) through a newer
 * glslang, the one inside Slang's libslang-glslang (from PyPI's slangpy wheel; `make deps` fetches it, see
 * cmake/fetch-glslang.sh), opened with dlopen through its C entry points. Each kernel is compiled to SPIR-V 1.5 for
 * Vulkan (as glslangValidator -V --target-env vulkan1.2 does), validated, and all are linked into one module, validated
 * again. It lives beside the Vulkan driver, whose GLSL at run time (glsl.c) opens the same library through the same
 * interface (slang_glslang.h).
 *
 *   hcl-glslang-compile <libslang-glslang.so> <include dir> <out.spv> <entry> <source> <defines> [...]
 *
 * <defines>: comma-separated NAME or NAME=VALUE, or "-" for none. `#include "file"` lines are replaced by the file from
 * the include directory (the library's glslang has no include handler); the defines go right after `#version`.
 * Exit status 0 on success; 1 with the compiler's messages on standard error otherwise; 2 on bad usage. */
#define _POSIX_C_SOURCE 200809L /* strdup, strtok_r */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slang_glslang.h" /* the library's C interface */

typedef hcl_slang_bytes text;

/* Out of host memory, the tool ends (a build tool: nothing to recover). */
static void check_oom(const text *t) {
    if (t->oom) {
        fprintf(stderr, "hcl-glslang-compile: out of memory\n");
        exit(1);
    }
}
static void append(text *t, const void *data, size_t size) {
    hcl_slang_collect(data, size, t);
    check_oom(t);
}
static void append_str(text *t, const char *s) { append(t, s, strlen(s)); }

/* Append file `path` to `out`, each `#include "name"` replaced by include_dir/name (and a #line back after it). */
static int expand(text *out, const char *include_dir, const char *path, int depth) {
    if (depth > 8) {
        fprintf(stderr, "hcl-glslang-compile: %s: includes nested deeper than 8\n", path);
        return 0;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "hcl-glslang-compile: cannot open %s\n", path);
        return 0;
    }
    char line[4096], name[512], mark[1200];
    int ok = 1, number = 0;
    while (ok && fgets(line, sizeof line, f)) {
        number++;
        if (sscanf(line, " #include \"%511[^\"]\"", name) == 1) {
            char inc[1024];
            snprintf(inc, sizeof inc, "%s/%s", include_dir, name);
            snprintf(mark, sizeof mark, "#line 1 \"%s\"\n", inc);
            append_str(out, mark);
            ok = expand(out, include_dir, inc, depth + 1);
            snprintf(mark, sizeof mark, "#line %d \"%s\"\n", number + 1, path);
            append_str(out, mark);
        } else if (strstr(line, "GL_GOOGLE_include_directive")) {
            append_str(out, "\n"); /* the includes are expanded here */
        } else {
            append_str(out, line);
        }
    }
    fclose(f);
    return ok;
}

/* The source of one kernel: `#version` first, then the defines (a comma-separated list, or "-"), then the rest, includes
 * expanded. */
static int kernel_source(text *out, const char *include_dir, const char *path, const char *defines) {
    text body = {0};
    if (!expand(&body, include_dir, path, 0)) {
        free(body.data);
        return 0;
    }
    char *list = strdup(strcmp(defines, "-") ? defines : ""), *save = NULL;
    const char *names[64];
    size_t count = 0;
    for (char *d = list ? strtok_r(list, ",", &save) : NULL; d && count < 64; d = strtok_r(NULL, ",", &save))
        names[count++] = d;
    int no_version = 0;
    char *source = list ? hcl_slang_with_defines(body.data, body.size, names, count, path, &no_version) : NULL;
    if (source)
        append_str(out, source);
    else
        fprintf(stderr, "hcl-glslang-compile: %s%s\n", path, no_version ? " has no #version line" : ": out of memory");
    free(source);
    free(list);
    free(body.data);
    return source != NULL;
}

int main(int argc, char **argv) {
    if (argc < 7 || (argc - 4) % 3 != 0) {
        fprintf(stderr, "usage: hcl-glslang-compile <libslang-glslang.so> <include dir> <out.spv> "
                        "<entry> <source> <defines|-> [<entry> <source> <defines|-> ...]\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "hcl-glslang-compile: %s\n", dlerror());
        return 1;
    }
    hcl_slang_compile_fn compile = (hcl_slang_compile_fn)dlsym(lib, "glslang_compile_1_2");
    hcl_slang_validate_fn validate = (hcl_slang_validate_fn)dlsym(lib, "glslang_validateSPIRV");
    hcl_slang_link_fn link = (hcl_slang_link_fn)dlsym(lib, "glslang_linkSPIRV");
    if (!compile || !validate || !link) {
        fprintf(stderr,
                "hcl-glslang-compile: %s lacks glslang_compile_1_2, glslang_validateSPIRV or glslang_linkSPIRV\n",
                argv[1]);
        return 1;
    }
    const int count = (argc - 4) / 3;
    text *spirv = calloc((size_t)count, sizeof *spirv);
    const uint32_t **modules = calloc((size_t)count, sizeof *modules);
    uint32_t *sizes = calloc((size_t)count, sizeof *sizes);
    int rc = spirv && modules && sizes ? 0 : 1;
    for (int i = 0; i < count && rc == 0; i++) {
        const char *entry = argv[4 + 3 * i], *path = argv[5 + 3 * i], *defines = argv[6 + 3 * i];
        text source = {0}, diagnostics = {0};
        if (!kernel_source(&source, argv[2], path, defines)) {
            rc = 1;
            break;
        }
        hcl_slang_compile_request r = {.size_in_bytes = sizeof r,
                                       .source_path = path,
                                       .input_begin = source.data,
                                       .input_end = source.data + source.size,
                                       .diagnostic_fn = hcl_slang_collect,
                                       .diagnostic_user = &diagnostics,
                                       .output_fn = hcl_slang_collect,
                                       .output_user = &spirv[i],
                                       .slang_stage = HCL_SLANG_STAGE_COMPUTE,
                                       .spirv = {1, 5, 0},
                                       .entry_point_name = entry};
        const int failed = compile(&r);
        check_oom(&spirv[i]);
        check_oom(&diagnostics);
        if (failed || spirv[i].size == 0 || spirv[i].size % 4 != 0) {
            fprintf(stderr, "hcl-glslang-compile: %s (%s, %s) did not compile:\n%s\n", entry, path, defines,
                    diagnostics.data ? diagnostics.data : "(no message)");
            rc = 1;
        } else if (!validate((const uint32_t *)spirv[i].data, (int)(spirv[i].size / 4))) {
            fprintf(stderr, "hcl-glslang-compile: %s: the SPIR-V does not validate\n", entry);
            rc = 1;
        }
        modules[i] = (const uint32_t *)spirv[i].data;
        sizes[i] = (uint32_t)(spirv[i].size / 4);
        free(source.data);
        free(diagnostics.data);
    }
    const uint32_t *words = modules ? modules[0] : NULL;
    size_t nwords = sizes ? sizes[0] : 0;
    if (rc == 0 && count > 1) {
        hcl_slang_link_request l = {.modules = modules, .module_sizes = sizes, .module_count = count};
        if (!link(&l) || !l.link_result || !validate(l.link_result, (int)l.link_result_size)) {
            fprintf(stderr, "hcl-glslang-compile: linking the %d modules failed (or the result does not validate)\n",
                    count);
            rc = 1;
        }
        words = l.link_result;
        nwords = l.link_result_size;
    }
    if (rc == 0) {
        FILE *out = fopen(argv[3], "wb");
        if (!out || fwrite(words, 4, nwords, out) != nwords || fclose(out) != 0) {
            fprintf(stderr, "hcl-glslang-compile: cannot write %s\n", argv[3]);
            rc = 1;
        }
    }
    for (int i = 0; spirv && i < count; i++) free(spirv[i].data);
    free(spirv);
    free(modules);
    free(sizes);
    return rc;
}
