/* hcl-info's peer-access matrix: for each backend with more than one device, whether each device reaches each other's
 * memory directly (hcl_device_peer_access), in the text output and as "peer_access" in the JSON. */
#include "info.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hcl_status info_peer_matrix(const hcl_backend_info *backend, info_peer *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->backend, sizeof out->backend, "%s", backend->name);
    uint32_t n = backend->device_count;
    hcl_device *devs = calloc(n ? n : 1, sizeof *devs);
    out->direct = calloc((size_t)n * n + 1, sizeof *out->direct);
    if (!devs || !out->direct) {
        free(devs);
        free(out->direct);
        out->direct = NULL;
        snprintf(out->error, sizeof out->error, "out of host memory");
        return HCL_ERROR_OUT_OF_MEMORY;
    }
    out->count = n;
    hcl_status first = HCL_SUCCESS;
    for (uint32_t i = 0; i < n; i++) {
        char selector[48];
        snprintf(selector, sizeof selector, "%s:%" PRIu32, backend->name, i);
        hcl_status st = hcl_device_open(selector, &devs[i]);
        if (st != HCL_SUCCESS && first == HCL_SUCCESS) {
            first = st;
            snprintf(out->error, sizeof out->error, "hcl_device_open(%s): %s: %s", selector, hcl_status_name(st),
                     hcl_last_message());
        }
    }
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < n; j++) {
            int direct = 0;
            hcl_status st = devs[i] && devs[j] ? hcl_device_peer_access(devs[i], devs[j], &direct) : HCL_SUCCESS;
            if (st != HCL_SUCCESS && first == HCL_SUCCESS) {
                first = st;
                snprintf(out->error, sizeof out->error,
                         "hcl_device_peer_access(%s:%" PRIu32 ", %s:%" PRIu32 "): %s: %s", backend->name, i,
                         backend->name, j, hcl_status_name(st), hcl_last_message());
            }
            out->direct[(size_t)i * n + j] = st == HCL_SUCCESS && direct;
        }
    for (uint32_t i = 0; i < n; i++)
        if (devs[i]) hcl_device_release(devs[i]);
    free(devs);
    return first;
}

void info_peer_free(info_peer *m) {
    free(m->direct);
    m->direct = NULL;
}

/* The backends the matrix is for: available, with more than one device. */
static int wanted(uint32_t index, hcl_backend_info *out) {
    return hcl_backend_get_info(index, out) == HCL_SUCCESS && out->available && out->device_count > 1;
}

void info_print_peer_text(void) {
    uint32_t count = 0;
    if (hcl_backend_count(&count) != HCL_SUCCESS) return;
    int any = 0;
    for (uint32_t b = 0; b < count; b++) {
        hcl_backend_info bi;
        if (!wanted(b, &bi)) continue;
        if (!any)
            printf("Peer access (hcl_device_peer_access; direct: the vendor's peer copy, staged: through host "
                   "memory):\n");
        any = 1;
        info_peer m;
        info_peer_matrix(&bi, &m);
        printf("  %-12s", bi.name);
        for (uint32_t j = 0; j < m.count; j++) {
            char sel[48];
            snprintf(sel, sizeof sel, "%s:%" PRIu32, bi.name, j);
            printf(" %-12s", sel);
        }
        printf("\n");
        for (uint32_t i = 0; i < m.count; i++) {
            char sel[48];
            snprintf(sel, sizeof sel, "%s:%" PRIu32, bi.name, i);
            printf("  %-12s", sel);
            for (uint32_t j = 0; j < m.count; j++)
                printf(" %-12s", i == j ? "self" : m.direct[(size_t)i * m.count + j] ? "direct" : "staged");
            printf("\n");
        }
        if (m.error[0]) printf("  (%s)\n", m.error);
        info_peer_free(&m);
    }
    if (!any) printf("Peer access: no backend has more than one device\n");
}
