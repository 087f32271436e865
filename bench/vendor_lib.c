/* Opening the baselines' vendor libraries with dlopen (vendor.h): candidates and the environment override, symbols,
 * the reason when one is missing, naming a baseline and printing what loaded. Shared by baselines.c and the
 * per-backend baselines_*.c, none of which calls another. */
#define _POSIX_C_SOURCE 200809L

#include "vendor.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------------------------------------
 * Opening libraries
 * ------------------------------------------------------------------------------------------------------- */
int lib_open(lib *l, const char *env, const char *const *candidates) {
    if (l->tried) return 0;
    l->tried = 1;
    const char *forced = env ? getenv(env) : NULL;
    const char *one[2] = {forced, NULL};
    const char *const *list = forced && *forced ? one : candidates;
    for (int i = 0; list[i]; i++) {
        dlerror();
        l->handle = dlopen(list[i], RTLD_NOW | RTLD_LOCAL);
        if (l->handle) {
            copy_text(l->path, sizeof l->path, list[i]);
            return 1;
        }
        const char *e = dlerror();
        hcl_ts_appendf(l->reason, sizeof l->reason, "%s%s", l->reason[0] ? "; " : "", e ? e : list[i]);
    }
    if (forced && *forced) hcl_ts_appendf(l->reason, sizeof l->reason, " (from %s)", env);
    return 1;
}

void *lib_sym(lib *l, const char *name, char *missing, size_t size) {
    void *p = l->handle ? dlsym(l->handle, name) : NULL;
    if (!p && missing) hcl_ts_appendf(missing, size, "%s%s", missing[0] ? ", " : "", name);
    return p;
}

int lib_ready(const lib *l, const char *what, const char *missing, char *reason, size_t size) {
    if (!l->handle)
        snprintf(reason, size, "%s could not be opened: %s", what, l->reason);
    else if (missing[0])
        snprintf(reason, size, "%s lacks %s", l->path, missing);
    return l->handle && !missing[0];
}

void exe_dir(char *out, size_t size) {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    out[0] = '\0';
    if (n <= 0) return;
    buf[n] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash) {
        *slash = '\0';
        copy_text(out, size, buf);
    }
}

void set_base(base_info *bi, const char *name, const char *note) {
    copy_text(bi->name, sizeof bi->name, name);
    copy_text(bi->note, sizeof bi->note, note);
    bi->applicable = 1;
}

void print_lib(const char *what, const lib *l, int ok, const char *reason, const char *extra) {
    char first[64];
    snprintf(first, sizeof first, "  %-22s ", what);
    if (ok)
        print_wrappedf(stdout, first, "                         ", "loaded: %s%s%s", l->path,
                       extra && *extra ? ", " : "", extra ? extra : "");
    else
        print_wrappedf(stdout, first, "                         ", "not available: %s", reason);
}
