/* hcl-info: list every HCL backend (available or why not), every device with its properties, and the device
 * that hcl_device_open(NULL) picks from the environment (HCL_BACKEND, HCL_DEVICE). -l gives one line per device,
 * -d one device, --json the whole report as JSON (docs/hcl-info.md gives its schema).
 *
 * Like clinfo, sycl-ls or urinfo: the first thing to run on a new machine. It exits 0 even when backends are
 * unavailable (that is information, not an error); 1 only when the library itself fails to answer; 2 on a usage
 * error (an unknown option, a selector that opens no device), found before anything is printed.
 */
#define _GNU_SOURCE 1 /* getopt_long */
#include "info.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SELECTOR_FORMS                                                                                                 \
    "\"backend\" (its first GPU, else accelerator, else CPU: \"opens\" under Backends), \"backend:N\" (its device\n"   \
    "  N), or a comma list of those tried in order (\"cuda,opencl:1\"): the syntax of HCL_BACKEND and hcl_device_open"

static void usage(FILE *f) {
    fprintf(
        f, "usage: hcl-info [-l | -j] [-d SELECTOR] [-V] [-h]\n"
           "       hcl-info --monitor [MS] [--count N] [-j] [-d SELECTOR]\n"
           "\n"
           "Lists every HCL backend (available, with its driver module, version and device count, or\n"
           "unavailable with the reason), every device with its properties, and the default device: the one\n"
           "hcl_device_open(NULL) picks, honouring the environment.\n"
           "\n"
           "Options (a long option takes its value as --opt=value or --opt value):\n"
           "  -l, --list             one line per device: selector, type, architecture, name\n"
           "  -d, --device=SELECTOR  only the device SELECTOR opens; SELECTOR is\n"
           "  " SELECTOR_FORMS "\n"
           "  -j, --json             the whole report as one JSON document (schema: docs/hcl-info.md)\n"
           "  -m, --monitor[=MS]     every MS milliseconds (default 1000) a line per device: power, energy\n"
           "                         counter, temperature, clocks, utilization, memory used, throttling\n"
           "                         (like nvidia-smi dmon); with -j one JSON object per line\n"
           "  -c, --count=N          with --monitor: stop after N samples (default: until interrupted)\n"
           "  -V, --version          hcl-info's version and the library's, then exit\n"
           "  -h, --help             this text, then exit\n"
           "\n"
           "Environment:\n"
           "  HCL_BACKEND=name[,name...]  backend(s) to prefer for the default device (the names under\n"
           "                              \"Backends\" in hcl-info's output)\n"
           "  HCL_DEVICE=N                device index within that backend\n"
           "  HCL_LOG=error|warn|info|debug  log to stderr (debug shows every loader step)\n"
           "  HCL_DRIVER_PATH=dir[:dir]   folders searched first for driver modules libhcl-<name>.so\n"
           "  HCL_EXTRA_DRIVERS=name[,name]  extra (out-of-tree) backends, loaded as libhcl-<name>.so\n"
           "  HCL_TELEMETRY=off           read no telemetry (NVML, ROCm SMI, Sysman, powercap); HCL_NVML_LIBRARY,\n"
           "                              HCL_ROCM_SMI_LIBRARY, HCL_SYSMAN_LIBRARY: the libraries (docs/telemetry.md)\n"
           "\n"
           "Exit status: 0 (also when backends are unavailable), 1 if the library call itself failed,\n"
           "2 on a usage error (unknown option, missing value, a selector that opens no device).\n");
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
            char opens[HCL_REASON_MAX + 64];
            hcl_device_type type = HCL_DEVICE_TYPE_OTHER;
            if (info.device_count > 0 && info_bare_device(info.name, opens, sizeof opens, &type)) {
                printf("  %-10s   opens:   %s (%s) when named without an index\n", "", opens, info_type_name(type));
            } else if (info.device_count > 0) {
                printf("  %-10s   opens:   nothing when named without an index: ", "");
                print_indented(opens, 25);
            }
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

/* "1024 x 1024 x 64" for three sizes, or `unknown` when all three are 0. */
static void format_dims(char *out, size_t out_size, const uint64_t v[3], const char *unknown) {
    if (!v[0] && !v[1] && !v[2])
        snprintf(out, out_size, "%s", unknown);
    else
        snprintf(out, out_size, "%" PRIu64 " x %" PRIu64 " x %" PRIu64, v[0], v[1], v[2]);
}

/* A count with its unit ("2619 MHz"), or "unknown" for 0. */
static void format_known(char *out, size_t out_size, uint64_t v, const char *unit) {
    if (v)
        snprintf(out, out_size, "%" PRIu64 " %s", v, unit);
    else
        snprintf(out, out_size, "unknown");
}

static void print_device(uint32_t global_index, const hcl_device_info *d) {
    char buf[128];
    printf("  [%" PRIu32 "] %s:%" PRIu32 "  %s\n", global_index, d->backend, d->index, d->name);
    printf("        vendor:              %s\n", d->vendor);
    printf("        driver version:      %s\n", d->driver_version[0] ? d->driver_version : "(unknown)");
    printf("        type:                %s\n", info_type_name(d->type));
    printf("        compute units:       %" PRIu32 "\n", d->compute_units);
    format_bytes(buf, sizeof buf, d->global_mem_bytes);
    printf("        global memory:       %s\n", buf);
    format_bytes(buf, sizeof buf, d->max_alloc_bytes);
    printf("        max allocation:      %s\n", buf);
    printf("        max work-group size: %" PRIu64 "\n", d->max_work_group_size);
    format_dims(buf, sizeof buf, d->max_work_item_sizes, "unknown");
    printf("        max work-item sizes: %s\n", buf);
    format_dims(buf, sizeof buf, d->max_grid_size, "not stated by the runtime");
    printf("        max grid size:       %s (work-groups)\n", buf);
    format_known(buf, sizeof buf, d->subgroup_size, d->subgroup_size == 1 ? "lane" : "lanes");
    printf("        sub-group size:      %s\n", buf);
    format_bytes(buf, sizeof buf, d->local_mem_bytes);
    printf("        local memory:        %s\n", buf);
    if (d->clock_mhz)
        printf("        clock:               %" PRIu32 " MHz\n", d->clock_mhz);
    else
        printf("        clock:               unknown\n");
    format_known(buf, sizeof buf, d->memory_clock_mhz, "MHz");
    printf("        memory clock:        %s\n", buf);
    format_known(buf, sizeof buf, d->memory_bus_width_bits, "bits");
    printf("        memory bus width:    %s\n", buf);
    if (d->peak_memory_bandwidth)
        printf("        peak bandwidth:      %.1f GB/s (2 x memory clock x bus width)\n",
               (double)d->peak_memory_bandwidth / 1e9);
    else
        printf("        peak bandwidth:      unknown\n");
    if (d->l2_cache_bytes)
        format_bytes(buf, sizeof buf, d->l2_cache_bytes);
    else
        snprintf(buf, sizeof buf, "unknown");
    printf("        L2 cache:            %s\n", buf);
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
    printf("        fp16 / fp64:         %s / %s\n", d->has_fp16 ? "yes" : "no", d->has_fp64 ? "yes" : "no");
    printf("        matrix unit:         %s\n", info_matrix_unit_name(d->matrix_unit));
    format_types(buf, sizeof buf, d->matrix_types);
    printf("        matrix types:        %s\n", buf);
    printf("        identity:            %s\n", d->identity);
    printf("        offset alignment:    %" PRIu64 " byte%s (of buffer kernel arguments)\n", d->arg_offset_alignment,
           d->arg_offset_alignment == 1 ? "" : "s");
    info_print_telemetry_text(global_index);
}

/* One line of -l: the selector, the type, the architecture and the name (last: it may hold blanks). */
static void print_device_line(const hcl_device_info *d) {
    char selector[48];
    info_selector(d, selector, sizeof selector);
    printf("%-14s %-11s %-10s %s\n", selector, info_type_name(d->type), d->arch[0] ? d->arch : "-", d->name);
}

/* Every device (all, or only global index `only` when only_one is set), in full or as -l lines. */
static int print_devices(int list, int only_one, uint32_t only) {
    uint32_t count = 0;
    hcl_status st = hcl_device_count(&count);
    if (st != HCL_SUCCESS) {
        printf("Devices: hcl_device_count failed: %s: %s\n", hcl_status_name(st), hcl_last_message());
        return 1;
    }
    if (!list) printf("Devices (%" PRIu32 "):\n", only_one ? 1u : count);
    for (uint32_t i = 0; i < count; i++) {
        if (only_one && i != only) continue;
        hcl_device_info info;
        st = hcl_device_get_info_by_index(i, &info);
        if (st != HCL_SUCCESS) {
            fprintf(list ? stderr : stdout, "  [%" PRIu32 "] hcl_device_get_info_by_index failed: %s: %s\n", i,
                    hcl_status_name(st), hcl_last_message());
            continue;
        }
        if (list)
            print_device_line(&info);
        else
            print_device(i, &info);
    }
    if (list && count == 0)
        fprintf(stderr, "hcl-info: no devices (hcl-info without -l says why each backend has none)\n");
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

/* Global device i as its selector ("opencl:0"); false when it cannot be described. */
static bool device_selector_at(uint32_t i, char *out, size_t out_size) {
    hcl_device_info info;
    if (hcl_device_get_info_by_index(i, &info) != HCL_SUCCESS) return false;
    info_selector(&info, out, out_size);
    return true;
}

/* Backend i's name ("opencl"); false when it cannot be described. */
static bool backend_name_at(uint32_t i, char *out, size_t out_size) {
    hcl_backend_info info;
    if (hcl_backend_get_info(i, &info) != HCL_SUCCESS) return false;
    snprintf(out, out_size, "%s", info.name);
    return true;
}

/* For a message: what name_at gives for each index below count()'s, comma-separated (an index it cannot describe left
 * out), cut to out_size; `none` when it gives nothing. */
static void name_list(char *out, size_t out_size, hcl_status (*count_of)(uint32_t *),
                      bool (*name_at)(uint32_t i, char *out, size_t out_size), const char *none) {
    uint32_t count = 0;
    size_t used = 0;
    out[0] = '\0';
    if (count_of(&count) != HCL_SUCCESS) count = 0;
    for (uint32_t i = 0; i < count && used < out_size; i++) {
        char name[64];
        if (name_at(i, name, sizeof name))
            used += (size_t)snprintf(out + used, out_size - used, "%s%s", used ? ", " : "", name);
    }
    if (!used) snprintf(out, out_size, "%s", none);
}

/* The global index of the device `selector` opens, through the library's own selection (hcl_device_open), so -d takes
 * exactly what HCL_BACKEND and the API take. On failure prints why, the valid forms, the backends and the devices
 * there are, and returns 2. */
static int resolve_selector(const char *selector, uint32_t *out_index) {
    hcl_device device = NULL;
    hcl_device_info info;
    hcl_status st = selector[0] ? hcl_device_open(selector, &device) : HCL_ERROR_INVALID_ARGUMENT;
    const char *why = selector[0] ? hcl_last_message() : "the selector is empty";
    if (st == HCL_SUCCESS) {
        st = hcl_device_get_info(device, &info);
        hcl_device_release(device);
        uint32_t count = 0;
        if (st == HCL_SUCCESS && hcl_device_count(&count) == HCL_SUCCESS)
            for (uint32_t i = 0; i < count; i++) {
                hcl_device_info listed;
                if (hcl_device_get_info_by_index(i, &listed) == HCL_SUCCESS &&
                    strcmp(listed.backend, info.backend) == 0 && listed.index == info.index) {
                    *out_index = i;
                    return 0;
                }
            }
        why = "the device it opened is not in the device list";
    }
    char backends[256], devices[1024];
    name_list(backends, sizeof backends, hcl_backend_count, backend_name_at, "");     /* "cuda, hip, ..., host" */
    name_list(devices, sizeof devices, hcl_device_count, device_selector_at, "none"); /* "opencl:0, host:0" */
    fprintf(stderr,
            "hcl-info: --device '%s' opens no device: %s: %s\n"
            "A selector is " SELECTOR_FORMS ".\n"
            "Backends: %s. Devices on this machine: %s.\n",
            selector, hcl_status_name(st), why, backends, devices);
    return 2;
}

static int print_version(void) {
    uint32_t major = 0, minor = 0, patch = 0;
    const char *text = hcl_version(&major, &minor, &patch);
    printf("hcl-info %s (built against HCL %s)\n", HCL_VERSION_STRING, HCL_VERSION_STRING);
    printf("libhcl %s (%" PRIu32 ".%" PRIu32 ".%" PRIu32 ")\n", text, major, minor, patch);
    return 0;
}

/* A usage error: the message, the short usage, exit status 2. */
static int usage_error(const char *fmt, const char *what) {
    fprintf(stderr, "hcl-info: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return 2;
}

int main(int argc, char **argv) {
    static const struct option options[] = {
        {"list", no_argument, NULL, 'l'},        {"device", required_argument, NULL, 'd'},
        {"json", no_argument, NULL, 'j'},        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},        {"monitor", optional_argument, NULL, 'm'},
        {"count", required_argument, NULL, 'c'}, {NULL, 0, NULL, 0},
    };
    int list = 0, json = 0, version = 0, monitor = 0, opt;
    long interval_ms = 1000, count = 0;
    char *end = NULL;
    const char *selector = NULL;
    char bad[64];
    opterr = 0; /* hcl-info says what was wrong itself, with the usage */
    while ((opt = getopt_long(argc, argv, ":ld:jVhm::c:", options, NULL)) != -1) {
        switch (opt) {
        case 'm': /* --monitor, --monitor=MS, or --monitor MS (a number as the next argument) */
            monitor = 1;
            if (!optarg && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9') optarg = argv[optind++];
            if (optarg) {
                interval_ms = strtol(optarg, &end, 10);
                if (*end || interval_ms < 1 || interval_ms > 3600000)
                    return usage_error("--monitor takes an interval of 1 to 3600000 milliseconds, not '%s'", optarg);
            }
            break;
        case 'c':
            count = strtol(optarg, &end, 10);
            if (*end || count < 1) return usage_error("--count takes a number of samples >= 1, not '%s'", optarg);
            break;
        case 'l': list = 1; break;
        case 'd': selector = optarg; break;
        case 'j': json = 1; break;
        case 'V': version = 1; break;
        case 'h': usage(stdout); return 0;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: /* '?': an unknown option, or a value given to a long option that takes none (optopt set) */
            if (strncmp(argv[optind - 1], "--", 2) == 0 && optopt)
                return usage_error("option '%s' takes no value", argv[optind - 1]);
            if (optopt)
                snprintf(bad, sizeof bad, "-%c", optopt);
            else
                snprintf(bad, sizeof bad, "%.60s", argv[optind - 1]);
            return usage_error("unknown option '%s'", bad);
        }
    }
    if (optind < argc) return usage_error("unexpected argument '%s' (options only)", argv[optind]);
    if (list && json) return usage_error("%s", "choose one of --list and --json");
    if (monitor && list) return usage_error("%s", "choose one of --list and --monitor");
    if (count && !monitor) return usage_error("%s", "--count goes with --monitor");
    if (version) return print_version();

    uint32_t only = 0;
    if (selector) {
        int rc = resolve_selector(selector, &only);
        if (rc != 0) return rc;
    }
    int rc;
    if (monitor) {
        rc = info_monitor(selector != NULL, only, (unsigned)interval_ms, count, json);
    } else if (json) {
        rc = info_print_json(selector != NULL, only);
    } else if (list) {
        rc = print_devices(1, selector != NULL, only);
    } else {
        printf("HCL %s\n\n", hcl_version(NULL, NULL, NULL));
        if (!selector) {
            print_backends();
            printf("\n");
        }
        rc = print_devices(0, selector != NULL, only);
        if (!selector) {
            printf("\n");
            info_print_peer_text();
            printf("\n");
            info_print_engines_text();
            printf("\n");
            print_default_device();
        }
    }
    fflush(stdout);
    return rc;
}
