/* hcl-info's "Communication engines" section: each engine behind hcl_comm (hcl_comm_engine_get_info), which backends'
 * devices it serves, the library it opened and its version, or why it is unavailable. */
#include "info.h"

#include <hcl/hcl_comm.h>

#include <inttypes.h>
#include <stdio.h>

void info_print_engines_text(void) {
    uint32_t count = 0;
    hcl_status st = hcl_comm_engine_count(&count);
    if (st != HCL_SUCCESS) {
        printf("Communication engines: hcl_comm_engine_count failed: %s: %s\n", hcl_status_name(st),
               hcl_last_message());
        return;
    }
    printf("Communication engines (%" PRIu32 "):\n", count);
    for (uint32_t i = 0; i < count; i++) {
        hcl_comm_engine_info e;
        if ((st = hcl_comm_engine_get_info(i, &e)) != HCL_SUCCESS) {
            printf("  [%" PRIu32 "] hcl_comm_engine_get_info failed: %s: %s\n", i, hcl_status_name(st),
                   hcl_last_message());
            continue;
        }
        if (e.available) {
            printf("  %-10s available, for %s devices\n", e.name, e.backends);
            if (e.library[0]) printf("  %-10s   library: %s\n", "", e.library);
            if (e.version[0]) printf("  %-10s   version: %s\n", "", e.version);
        } else {
            printf("  %-10s unavailable (for %s devices): %s\n", e.name, e.backends,
                   e.reason[0] ? e.reason : "(no reason given)");
        }
    }
}
