/* GLSL compute shaders compiled at run time (HCL_SOURCE_GLSL). First through Slang's libslang-glslang (glslang and
 * SPIRV-Tools as a shared library with C entry points, slang_glslang.h), opened with dlopen: HCL_GLSLANG_LIBRARY names
 * it, else libslang-glslang.so on the library path (an empty HCL_GLSLANG_LIBRARY skips it); a glslang of 2026 that
 * knows GL_KHR_cooperative_matrix and GL_EXT_bfloat16, SPIR-V validated before it is handed out. Where no such library
 * loads, glslangValidator run as a child process (HCL_GLSLANG names another program; else glslangValidator on PATH;
 * Debian: glslang-tools). Debian 12 has no GLSL compiler as a shared library that dlopen can take (its libshaderc.so.1
 * leaves glslang's and SPIRV-Tools' symbols to the program, glslc, that links them in statically). A machine with
 * neither runs everything but GLSL sources, which are then HCL_ERROR_UNSUPPORTED naming what was tried. The tool's
 * text, SPIR-V and log go through a private temporary folder (mkdtemp under $TMPDIR, else /tmp), removed afterwards. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include "slang_glslang.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MAX_ARGS 64

/* The whole of file `path` (malloc'd, NUL-terminated) and its size; NULL when it cannot be read. */
static char *slurp(const char *path, size_t *out_size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t size = 0, cap = 0;
    for (;;) {
        if (size + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = b;
        }
        size_t n = fread(buf + size, 1, cap - size - 1, f);
        size += n;
        if (n == 0) break;
    }
    fclose(f);
    buf[size] = '\0';
    *out_size = size;
    return buf;
}

/* The build options: -DNAME[=VALUE] (or -D NAME), -O0 (no optimisation), -O (the default). */
typedef struct glsl_options {
    const char *defines[MAX_ARGS]; /* "-DNAME[=VALUE]", in `copy` */
    size_t count;
    int no_opt;
} glsl_options;

static hcl_status parse_options(const char *options, char *copy, glsl_options *o) {
    strcpy(copy, options ? options : "");
    for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (o->count >= MAX_ARGS - 8) return HCL_KIT_FAIL(HCL_ERROR_BUILD, "vulkan: GLSL: too many build options");
        if (!strcmp(t, "-D")) { /* "-D NAME" */
            char *name = strtok_r(NULL, " \t", &save);
            if (!name) return HCL_KIT_FAIL(HCL_ERROR_BUILD, "vulkan: GLSL build option -D without a name");
            name[-1] = '\0'; /* "-D" and NAME as one "-DNAME": written in place of the blank */
            memmove(t + 2, name, strlen(name) + 1);
            o->defines[o->count++] = t;
        } else if (!strncmp(t, "-D", 2) && t[2] && t[2] != '=') {
            o->defines[o->count++] = t;
        } else if (!strcmp(t, "-O0")) {
            o->no_opt = 1;
        } else if (strcmp(t, "-O") != 0) {
            return HCL_KIT_FAIL(HCL_ERROR_BUILD,
                                "vulkan: GLSL build option '%s' is not known (it takes -DNAME[=VALUE], -O0, -O)", t);
        }
    }
    return HCL_SUCCESS;
}

/* The library: opened once (never closed: glslang keeps process-wide state), its compiles one at a time. */
static pthread_once_t g_lib_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t g_lib_lock = PTHREAD_MUTEX_INITIALIZER;
static hcl_slang_compile_fn g_compile;
static hcl_slang_validate_fn g_validate;
static char g_lib_name[512], g_lib_why[640]; /* what was opened, or why none was */

static void open_library(void) {
    const char *path = getenv("HCL_GLSLANG_LIBRARY");
    if (path && !*path) {
        snprintf(g_lib_why, sizeof g_lib_why, "HCL_GLSLANG_LIBRARY is empty");
        return;
    }
    snprintf(g_lib_name, sizeof g_lib_name, "%s", path ? path : "libslang-glslang.so");
    void *lib = dlopen(g_lib_name, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(g_lib_why, sizeof g_lib_why, "%s", e ? e : g_lib_name);
        return;
    }
    g_compile = (hcl_slang_compile_fn)dlsym(lib, "glslang_compile_1_2");
    g_validate = (hcl_slang_validate_fn)dlsym(lib, "glslang_validateSPIRV");
    if (!g_compile || !g_validate) {
        snprintf(g_lib_why, sizeof g_lib_why, "%s lacks glslang_compile_1_2 or glslang_validateSPIRV", g_lib_name);
        g_compile = NULL;
        dlclose(lib);
    }
}

/* Compile through the library: HCL_SUCCESS with the SPIR-V, HCL_ERROR_BUILD with the compiler's messages, or
 * HCL_ERROR_UNSUPPORTED when no library loads (then the tool is tried). */
static hcl_status compile_with_library(const char *text, size_t size, const glsl_options *o, const char *options,
                                       uint32_t **out_words, size_t *out_size) {
    pthread_once(&g_lib_once, open_library);
    if (!g_compile) return HCL_ERROR_UNSUPPORTED;
    const char *names[MAX_ARGS];
    for (size_t i = 0; i < o->count; i++) names[i] = o->defines[i] + 2;
    int no_version = 0;
    char *source = hcl_slang_with_defines(text, size, names, o->count, NULL, &no_version);
    if (!source)
        return no_version ? HCL_KIT_FAIL(HCL_ERROR_BUILD, "vulkan: GLSL: the source has no #version line")
                          : hcl__kit_oom("GLSL source");
    hcl_slang_bytes spirv = {0}, log = {0};
    hcl_slang_compile_request r = {.size_in_bytes = sizeof r,
                                   .source_path = "module.comp",
                                   .input_begin = source,
                                   .input_end = source + strlen(source),
                                   .diagnostic_fn = hcl_slang_collect,
                                   .diagnostic_user = &log,
                                   .output_fn = hcl_slang_collect,
                                   .output_user = &spirv,
                                   .slang_stage = HCL_SLANG_STAGE_COMPUTE,
                                   .optimization_level = o->no_opt ? 0u : 1u,
                                   .spirv = {1, 5, 0},
                                   .entry_point_name = "main"};
    pthread_mutex_lock(&g_lib_lock);
    const int failed = g_compile(&r);
    const int valid = !failed && !spirv.oom && spirv.size >= 20 && spirv.size % 4 == 0 &&
                      g_validate((const uint32_t *)spirv.data, (int)(spirv.size / 4));
    pthread_mutex_unlock(&g_lib_lock);
    free(source);
    hcl_status status = HCL_SUCCESS;
    if (spirv.oom || log.oom)
        status = hcl__kit_oom("GLSL compiler output");
    else if (failed || spirv.size == 0)
        status = hcl__kit_build_failed(log.data, "vulkan: GLSL did not compile (%s, options \"%s\")", g_lib_name,
                                       options ? options : "");
    else if (!valid)
        status = hcl__kit_build_failed(log.data, "vulkan: GLSL: %s made SPIR-V that does not validate", g_lib_name);
    if (status == HCL_SUCCESS) {
        *out_words = (uint32_t *)spirv.data;
        *out_size = spirv.size;
    } else {
        free(spirv.data);
    }
    free(log.data);
    return status;
}

hcl_status hcl__vk_glsl_compile(const char *text, size_t size, const char *options, uint32_t **out_words,
                                size_t *out_size) {
    hcl_status status = HCL_SUCCESS;
    const char *tool = getenv("HCL_GLSLANG");
    if (!tool || !*tool) tool = "glslangValidator";
    const char *tmp = getenv("TMPDIR");
    char dir[512], src[600], spv[600], log[600];
    char *copy = malloc((options ? strlen(options) : 0) + 1), *argv[MAX_ARGS];
    char *logtext = NULL;
    int argc = 0, made = 0;
    glsl_options o = {0};
    if (!copy) return hcl__kit_oom("GLSL options");
    snprintf(dir, sizeof dir, "%s/hcl-glsl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    while (size > 0 && text[size - 1] == '\0') size--; /* a size that counts the NUL */
    status = parse_options(options, copy, &o);
    if (status == HCL_SUCCESS) status = compile_with_library(text, size, &o, options, out_words, out_size);
    if (status != HCL_ERROR_UNSUPPORTED) goto cleanup; /* compiled, or refused by the library's compiler */
    status = HCL_SUCCESS;
    argv[argc++] = (char *)tool;
    static const char *const fixed[] = {"-V", "--target-env", "vulkan1.2", "-S", "comp"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[argc++] = (char *)fixed[i];
    for (size_t i = 0; i < o.count; i++) argv[argc++] = (char *)o.defines[i];
    if (o.no_opt) argv[argc++] = "-Od";
    if (!mkdtemp(dir)) {
        status = HCL_KIT_FAIL(HCL_ERROR_BUILD, "vulkan: GLSL: mkdtemp %s: %s", dir, strerror(errno));
        goto cleanup;
    }
    made = 1;
    snprintf(src, sizeof src, "%s/module.comp", dir);
    snprintf(spv, sizeof spv, "%s/module.spv", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    FILE *f = fopen(src, "wb");
    if (!f || fwrite(text, 1, size, f) != size) {
        if (f) fclose(f);
        status = HCL_KIT_FAIL(HCL_ERROR_BUILD, "vulkan: GLSL: writing %s: %s", src, strerror(errno));
        goto cleanup;
    }
    fclose(f);
    argv[argc++] = "-o";
    argv[argc++] = spv;
    argv[argc++] = src;
    argv[argc] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = 0;
    int err = posix_spawnp(&pid, tool, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (err != 0) {
        status = HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED,
                              "vulkan: GLSL needs a compiler at run time: the glslang library (HCL_GLSLANG_LIBRARY, "
                              "else libslang-glslang.so: %s), or %s (HCL_GLSLANG, else glslangValidator on PATH; "
                              "Debian: glslang-tools): %s",
                              g_lib_why, tool, strerror(err));
        goto cleanup;
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    size_t log_size = 0, spv_size = 0;
    logtext = slurp(log, &log_size);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
        status = hcl__kit_build_failed(logtext, "vulkan: GLSL did not compile (%s, options \"%s\", exit %d)", tool,
                                       options ? options : "", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
        goto cleanup;
    }
    char *words = slurp(spv, &spv_size);
    if (!words || spv_size < 20 || spv_size % 4) {
        free(words);
        status = hcl__kit_build_failed(logtext, "vulkan: GLSL: %s wrote no SPIR-V", tool);
        goto cleanup;
    }
    *out_words = (uint32_t *)words;
    *out_size = spv_size;
cleanup:
    if (made) {
        unlink(src), unlink(spv), unlink(log);
        rmdir(dir);
    }
    free(logtext);
    free(copy);
    return status;
}
