/* GLSL compute shaders compiled at run time (HCL_SOURCE_GLSL) by glslangValidator run as a child process (HCL_GLSLANG
 * names another program; else glslangValidator on PATH; Debian: glslang-tools). Debian 12 has no GLSL compiler as a
 * shared library that dlopen can take (its libshaderc.so.1 leaves glslang's and SPIRV-Tools' symbols to the program,
 * glslc, that links them in statically), so the compiler is the tool; a machine without it runs everything but GLSL
 * sources, which are then HCL_ERROR_UNSUPPORTED naming what was tried. The text, the SPIR-V and the log go through a
 * private temporary folder (mkdtemp under $TMPDIR, else /tmp), removed afterwards. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
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

/* The tool's arguments for the build options: -DNAME[=VALUE] (or -D NAME), -O0 (no optimisation: -Od), -O. */
static hcl_status add_options(const char *options, char *copy, char **argv, int *argc) {
    strcpy(copy, options ? options : "");
    for (char *save = NULL, *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
        if (*argc >= MAX_ARGS - 8) return HCL_KIT_FAIL(HCL_ERROR_BUILD, "vulkan: GLSL: too many build options");
        if (!strcmp(t, "-D")) { /* "-D NAME" */
            char *name = strtok_r(NULL, " \t", &save);
            if (!name) return HCL_KIT_FAIL(HCL_ERROR_BUILD, "vulkan: GLSL build option -D without a name");
            name[-1] = '\0'; /* "-D" and NAME are one argument to the tool: write it in place of the blank */
            memmove(t + 2, name, strlen(name) + 1);
            argv[(*argc)++] = t;
        } else if (!strncmp(t, "-D", 2) && t[2] && t[2] != '=') {
            argv[(*argc)++] = t;
        } else if (!strcmp(t, "-O0")) {
            argv[(*argc)++] = "-Od";
        } else if (strcmp(t, "-O") != 0) {
            return HCL_KIT_FAIL(HCL_ERROR_BUILD,
                                "vulkan: GLSL build option '%s' is not known (it takes -DNAME[=VALUE], -O0, -O)", t);
        }
    }
    return HCL_SUCCESS;
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
    if (!copy) return hcl__kit_oom("GLSL options");
    snprintf(dir, sizeof dir, "%s/hcl-glsl-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    while (size > 0 && text[size - 1] == '\0') size--; /* a size that counts the NUL */
    argv[argc++] = (char *)tool;
    static const char *const fixed[] = {"-V", "--target-env", "vulkan1.2", "-S", "comp"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) argv[argc++] = (char *)fixed[i];
    status = add_options(options, copy, argv, &argc);
    if (status != HCL_SUCCESS) goto cleanup;
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
                              "vulkan: GLSL needs a compiler at run time: %s (HCL_GLSLANG, else glslangValidator on "
                              "PATH; Debian: glslang-tools): %s",
                              tool, strerror(err));
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
