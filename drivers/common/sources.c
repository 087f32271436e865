/* The driver kit's choice among the module sources a caller gives. */
#include "kit.h"

#include <stdio.h>

const hcl_module_source *hcl__kit_source_pick(const hcl_module_source *sources, uint32_t count, unsigned kinds) {
    for (uint32_t i = 0; i < count; i++)
        if ((unsigned)sources[i].kind < 32 && (kinds & HCL_KIT_KIND(sources[i].kind))) return &sources[i];
    return NULL;
}

hcl_status hcl__kit_source_unsupported(uint32_t count, const char *what_fmt, ...) {
    char what[1024];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    /* the core adds the list of kinds given */
    return HCL_KIT_FAIL(HCL_ERROR_UNSUPPORTED, "%s: no source it can take among the %u given; it takes %s",
                        hcl__kit_name, count, what);
}
