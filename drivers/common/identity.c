/* The driver kit's device identity: the vendor UUID where the runtime gives one, else names. */
#include "kit.h"

#include <stdio.h>
#include <string.h>

int hcl__kit_device_uuid(hcl_device_info *info, const void *uuid16) {
    const unsigned char *u = uuid16;
    int any = 0;
    for (int i = 0; i < 16; i++) any |= u[i];
    if (!any) return 0;
    memcpy(info->uuid, u, sizeof info->uuid);
    info->has_uuid = 1;
    return 1;
}

void hcl__kit_identity(hcl_device_info *info, const char *where) {
    if (info->has_uuid) {
        char *p = info->identity;
        p += snprintf(p, sizeof info->identity, "uuid:");
        for (int i = 0; i < 16; i++) p += snprintf(p, 3, "%02x", info->uuid[i]);
        return;
    }
    char index[16];
    if (!where) {
        snprintf(index, sizeof index, "%u", info->index);
        where = index;
    }
    /* the widths of the core's own identity (api/src/device.c), with room for a PCI address ("pci-0000:63:00") */
    snprintf(info->identity, sizeof info->identity, "%.12s:%.20s:%.30s:%.14s", info->backend, info->vendor, info->name,
             where);
}
