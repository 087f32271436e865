/* The one parser of override values of run-time choices (hcl_plan.h: hcl_kchoice_parse): the kernel variants
 * (plan_variant.c) and the host kernels' instruction set (host_isa.c). A leaf: it uses nothing of the plans, so the
 * host kernels can take it without depending on the plan layer. */
#include "hcl_plan.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Whether text[0, len) is `name`, ignoring case. */
static int same_name(const char *text, size_t len, const char *name) {
    if (strlen(name) != len) return 0;
    for (size_t i = 0; i < len; i++)
        if (tolower((unsigned char)text[i]) != tolower((unsigned char)name[i])) return 0;
    return 1;
}

int hcl_kchoice_parse(const char *text, const char *const *names, size_t count, char *known, size_t known_size) {
    if (!text) return -1;
    while (isspace((unsigned char)*text)) text++;
    size_t len = strlen(text);
    while (len && isspace((unsigned char)text[len - 1])) len--;
    if (len == 0 || same_name(text, len, "auto")) return -1;
    for (size_t i = 0; i < count; i++)
        if (same_name(text, len, names[i])) return (int)i;
    if (known && known_size) {
        size_t used = (size_t)snprintf(known, known_size, "auto");
        for (size_t i = 0; i < count && used < known_size; i++)
            used += (size_t)snprintf(known + used, known_size - used, ", %s", names[i]);
    }
    return -2;
}
