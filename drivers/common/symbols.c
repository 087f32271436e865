/* The driver kit's vendor library: opening it through the core and resolving the driver's symbol table. */
#define _GNU_SOURCE 1 /* dlinfo, RTLD_DI_LINKMAP under -std=c11 */
#include "symbols.h"

#include "check.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *g_library;
static char g_library_name[256];

hcl_status hcl__kit_library_open(const char *env_override, const char *const *names, size_t count, void **out_library,
                                 char *reason, size_t reason_size) {
    if (!g_library) {
        if (!HCL_DRIVER_HOST_HAS(hcl__kit_host, open_library)) {
            snprintf(reason, reason_size, "the HCL core is older than this driver (it offers no open_library)");
            return HCL_ERROR_DRIVER_VERSION;
        }
        g_library = hcl__kit_host->open_library(hcl__kit_name, env_override, names, count, reason, reason_size);
        if (!g_library) return HCL_ERROR_BACKEND_UNAVAILABLE;
        struct link_map *lm = NULL; /* which name loaded, for version lines */
        g_library_name[0] = '\0';
        if (dlinfo(g_library, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name) {
            const char *base = strrchr(lm->l_name, '/');
            snprintf(g_library_name, sizeof g_library_name, "%s", base ? base + 1 : lm->l_name);
        }
    }
    *out_library = g_library;
    return HCL_SUCCESS;
}

const char *hcl__kit_library_name(void) { return g_library_name; }

void hcl__kit_library_close(void) {
    if (!g_library) return;
    dlclose(g_library);
    g_library = NULL;
    g_library_name[0] = '\0';
}

hcl_status hcl__kit_resolve(void *library, const hcl_kit_symbol *symbols, size_t count, void *table, const char *label,
                            const char *too_old, char *reason, size_t reason_size) {
    /* resolved into a copy: a failure leaves the driver's table as it was */
    size_t size = 0;
    for (size_t i = 0; i < count; i++)
        if (symbols[i].offset + sizeof(void (*)(void)) > size) size = symbols[i].offset + sizeof(void (*)(void));
    unsigned char *copy = calloc(1, size ? size : 1);
    if (!copy) {
        snprintf(reason, reason_size, "out of host memory resolving %zu entry points of %s", count, label);
        return HCL_ERROR_OUT_OF_MEMORY;
    }
    size_t found = 0, optional_missing = 0;
    for (size_t i = 0; i < count; i++) {
        const hcl_kit_symbol *s = &symbols[i];
        void *p = dlsym(library, s->name);
        if (!p && s->fallback) {
            p = dlsym(library, s->fallback);
            if (p) HCL_KIT_LOG("%s lacks %s: using %s", label, s->name, s->fallback);
        }
        if (!p && s->optional) {
            HCL_KIT_LOG("%s lacks optional %s", label, s->name);
            optional_missing++;
            continue;
        }
        if (!p) {
            if (s->fallback)
                snprintf(reason, reason_size, "%s lacks both %s and %s (%s)", label, s->name, s->fallback, too_old);
            else
                snprintf(reason, reason_size, "%s lacks %s (%s)", label, s->name, too_old);
            free(copy);
            return HCL_ERROR_BACKEND_UNAVAILABLE;
        }
        memcpy(copy + s->offset, &p, sizeof p); /* a function pointer from dlsym's object pointer, as POSIX allows */
        found++;
    }
    memcpy(table, copy, size);
    free(copy);
    HCL_KIT_LOG("resolved %zu entry points of %s (%zu optional ones missing)", found, label, optional_missing);
    return HCL_SUCCESS;
}
