/* hcl-info: list every HCL backend (available or why not), every device with its properties, and the device
 * that hcl_device_open(NULL) picks from the environment (HCL_BACKEND, HCL_DEVICE).
 *
 * Like clinfo, sycl-ls or urinfo: the first thing to run on a new machine. It exits 0 even when backends are
 * unavailable (that is information, not an error); it exits 1 only when the library itself fails to answer.
 */
#include <hcl/hcl.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f) {
    fprintf(f, "usage: hcl-info [--help]\n"
               "\n"
               "Lists every HCL backend (available, with its driver module, version and device count, or\n"
               "unavailable with the reason), every device with its properties, and the default device: the one\n"
               "hcl_device_open(NULL) picks, honouring the environment.\n"
               "\n"
               "Environment:\n"
               "  HCL_BACKEND=name[,name...]  backend(s) to prefer for the default device (the names under\n"
               "                              \"Backends\" in hcl-info's output)\n"
               "  HCL_DEVICE=N                device index within that backend\n"
               "  HCL_LOG=error|warn|info|debug  log to stderr (debug shows every loader step)\n"
               "  HCL_DRIVER_PATH=dir[:dir]   folders searched first for driver modules libhcl-<name>.so\n"
               "  HCL_EXTRA_DRIVERS=name[,name]  extra (out-of-tree) backends, loaded as libhcl-<name>.so\n"
               "\n"
               "Exit status: 0 (also when backends are unavailable), 1 if the library call itself failed,\n"
               "2 on a usage error.\n");
}

static const char *type_name(hcl_device_type t) {
    switch (t) {
    case HCL_DEVICE_TYPE_CPU: return "CPU";
    case HCL_DEVICE_TYPE_GPU: return "GPU";
    case HCL_DEVICE_TYPE_ACCELERATOR: return "accelerator";
    case HCL_DEVICE_TYPE_OTHER: return "other";
    }
    return "unknown";
}

/* "24.0 GiB (25769803776 bytes)" or "512.0 MiB (...)" or "48.0 KiB (...)". */
static void format_bytes(char *out, size_t out_size, uint64_t bytes) {
    const double kib = 1024.0, mib = kib * 1024.0, gib = mib * 1024.0;
    double b = (double)bytes;
    if (b >= gib)
        snprintf(out, out_size, "%.2f GiB (%" PRIu64 " bytes)", b / gib, bytes);
    else if (b >= mib)
        snprintf(out, out_size, "%.2f MiB (%" PRIu64 " bytes)", b / mib, bytes);
    else if (b >= kib)
        snprintf(out, out_size, "%.2f KiB (%" PRIu64 " bytes)", b / kib, bytes);
    else
        snprintf(out, out_size, "%" PRIu64 " bytes", bytes);
}

/* Print text that may span several lines, each continuation line indented by `indent` spaces. */
static void print_indented(const char *text, int indent) {
    for (const char *p = text; *p; p++) {
        putchar(*p);
        if (*p == '\n' && p[1] != '\0') printf("%*s", indent, "");
    }
    putchar('\n');
}

static void print_backends(void) {
    uint32_t count = 0;
    hcl_status st = hcl_backend_count(&count);
    if (st != HCL_SUCCESS) {
        printf("Backends: hcl_backend_count failed: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return;
    }
    printf("Backends (%" PRIu32 "):\n", count);
    for (uint32_t i = 0; i < count; i++) {
        hcl_backend_info info;
        st = hcl_backend_get_info(i, &info);
        if (st != HCL_SUCCESS) {
            printf("  [%" PRIu32 "] hcl_backend_get_info failed: %s: %s\n", i, hcl_status_name(st), hcl_last_message());
            continue;
        }
        if (info.available) {
            printf("  %-10s available, %" PRIu32 " device%s\n", info.name, info.device_count,
                   info.device_count == 1 ? "" : "s");
            printf("  %-10s   module:  %s\n", "", info.module_path[0] ? info.module_path : "(unknown)");
            printf("  %-10s   version: %s\n", "", info.version[0] ? info.version : "(unknown)");
        } else {
            printf("  %-10s unavailable: ", info.name);
            print_indented(info.reason[0] ? info.reason : "(no reason given)", 25);
        }
    }
}

/* "f32, f16, bf16" (and ", tf32" for HCL_TYPE_BIT_TF32) for a set of type bits, "none" when empty: the device's
 * native and matrix-unit types, named as hcl_dtype_name names them. */
static void format_types(char *out, size_t out_size, uint32_t bits) {
    size_t used = 0;
    out[0] = '\0';
    for (int t = 0; t < HCL_DTYPE_COUNT; t++)
        if (bits & HCL_TYPE_BIT(t))
            used += (size_t)snprintf(out + used, used < out_size ? out_size - used : 0, "%s%s", used ? ", " : "",
                                     hcl_dtype_name((hcl_dtype)t));
    if (bits & HCL_TYPE_BIT_TF32)
        used += (size_t)snprintf(out + used, used < out_size ? out_size - used : 0, "%stf32", used ? ", " : "");
    if (!used) snprintf(out, out_size, "none");
}

/* The matrix unit the built-in GEMM uses, in words. */
static const char *matrix_unit_name(hcl_matrix_unit u) {
    switch (u) {
    case HCL_MATRIX_UNIT_NONE: return "none";
    case HCL_MATRIX_UNIT_TENSOR_CORE: return "tensor cores";
    case HCL_MATRIX_UNIT_MFMA: return "matrix cores (MFMA)";
    case HCL_MATRIX_UNIT_XMX: return "XMX";
    }
    return "unknown";
}

static void print_device(uint32_t global_index, const hcl_device_info *d) {
    char buf[128];
    printf("  [%" PRIu32 "] %s:%" PRIu32 "  %s\n", global_index, d->backend, d->index, d->name);
    printf("        vendor:              %s\n", d->vendor);
    printf("        driver version:      %s\n", d->driver_version[0] ? d->driver_version : "(unknown)");
    printf("        type:                %s\n", type_name(d->type));
    printf("        compute units:       %" PRIu32 "\n", d->compute_units);
    format_bytes(buf, sizeof buf, d->global_mem_bytes);
    printf("        global memory:       %s\n", buf);
    format_bytes(buf, sizeof buf, d->max_alloc_bytes);
    printf("        max allocation:      %s\n", buf);
    printf("        max work-group size: %" PRIu64 "\n", d->max_work_group_size);
    format_bytes(buf, sizeof buf, d->local_mem_bytes);
    printf("        local memory:        %s\n", buf);
    if (d->clock_mhz)
        printf("        clock:               %" PRIu32 " MHz\n", d->clock_mhz);
    else
        printf("        clock:               unknown\n");
    if (d->has_uuid) {
        const uint8_t *u = d->uuid;
        printf("        uuid:                %02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
               "%02x%02x%02x%02x%02x%02x\n",
               u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    } else {
        printf("        uuid:                (not given by the runtime)\n");
    }
    printf("        architecture:        %s\n", d->arch[0] ? d->arch : "(unknown)");
    format_types(buf, sizeof buf, d->native_types);
    printf("        native types:        %s\n", buf);
    printf("        matrix unit:         %s\n", matrix_unit_name(d->matrix_unit));
    format_types(buf, sizeof buf, d->matrix_types);
    printf("        matrix types:        %s\n", buf);
    printf("        identity:            %s\n", d->identity);
    printf("        offset alignment:    %" PRIu64 " byte%s (of buffer kernel arguments)\n", d->arg_offset_alignment,
           d->arg_offset_alignment == 1 ? "" : "s");
}

static int print_devices(void) {
    uint32_t count = 0;
    hcl_status st = hcl_device_count(&count);
    if (st != HCL_SUCCESS) {
        printf("Devices: hcl_device_count failed: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return 1;
    }
    printf("Devices (%" PRIu32 "):\n", count);
    for (uint32_t i = 0; i < count; i++) {
        hcl_device_info info;
        st = hcl_device_get_info_by_index(i, &info);
        if (st != HCL_SUCCESS) {
            printf("  [%" PRIu32 "] hcl_device_get_info_by_index failed: %s: %s\n", i, hcl_status_name(st),
                   hcl_last_message());
            continue;
        }
        print_device(i, &info);
    }
    return 0;
}

static void print_default_device(void) {
    const char *be = getenv("HCL_BACKEND");
    const char *dev = getenv("HCL_DEVICE");
    char env[256];
    if ((be && *be) || (dev && *dev))
        snprintf(env, sizeof env, " (HCL_BACKEND=%s HCL_DEVICE=%s)", be ? be : "", dev ? dev : "");
    else
        snprintf(env, sizeof env, " (HCL_BACKEND and HCL_DEVICE unset)");

    hcl_device device = NULL;
    hcl_status st = hcl_device_open(NULL, &device);
    if (st != HCL_SUCCESS) {
        printf("default device%s: none: %s: %s\n", env, hcl_status_name(st), hcl_last_message());
        return;
    }
    hcl_device_info info;
    st = hcl_device_get_info(device, &info);
    if (st != HCL_SUCCESS)
        printf("default device%s: opened, but hcl_device_get_info failed: %s: %s\n", env, hcl_status_name(st),
               hcl_last_message());
    else
        printf("default device: %s:%" PRIu32 " %s%s\n", info.backend, info.index, info.name, env);
    st = hcl_device_release(device);
    if (st != HCL_SUCCESS) printf("hcl_device_release failed: %s: %s\n", hcl_status_name(st), hcl_last_message());
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        fprintf(stderr, "hcl-info: unknown option '%s'\n\n", argv[i]);
        usage(stderr);
        return 2;
    }

    printf("HCL %d.%d.%d\n\n", HCL_VERSION_MAJOR, HCL_VERSION_MINOR, HCL_VERSION_PATCH);
    print_backends();
    printf("\n");
    int rc = print_devices();
    printf("\n");
    print_default_device();
    fflush(stdout);
    return rc;
}
