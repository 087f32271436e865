/* The driver registry and loader. Backends are known by name: the build's list (HCL_BACKENDS in the root
 * CMakeLists.txt, expanded here from the generated hcl_backends.h), then the names in HCL_EXTRA_DRIVERS. An
 * embedded backend's table is compiled into libhcl; every other backend is a module libhcl-<name>.so found in
 * HCL_DRIVER_PATH (colon list), then next to libhcl itself, then the install libdir. A module exports
 * hcl_driver_entry, which returns a versioned table; a module of another ABI major version is refused. Every path
 * tried and every reason for failure is kept for hcl-info and logged at HCL_LOG=debug.
 * The module boundary is not trusted: before dlopen a module must be a regular file (a FIFO is never waited on) and,
 * when it is an ELF file of this machine's class, whole (every loadable segment inside the file: a truncated module
 * would otherwise fault inside dlopen); its entry point must be a function symbol in an executable segment; the
 * texts a driver writes (reason, version) are cut at their buffer's end, and a device count above
 * HCL__MAX_DEVICES makes the backend unavailable. */
#define _GNU_SOURCE
#include "check.h"
#include "core.h"
#include "hcl_backends.h"
#include "hcl_host_kernels.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef HCL_INSTALL_LIBDIR
#define HCL_INSTALL_LIBDIR "/usr/local/lib"
#endif

#define MAX_BACKENDS 16
/* The most devices a backend may report; more is a broken driver (the loop over them would not end). */
#define HCL__MAX_DEVICES 4096
/* The table up to its last required entry (docs/driver-abi.md): a module must provide at least these. */
#define TABLE_MIN_SIZE (offsetof(hcl_driver_table, kernel_launch) + sizeof(void *))

/* The embedded backends' tables (hcl__<name>_driver_table, compiled into libhcl). */
#define EMBEDDED_DECL_MODULE(name)
#define EMBEDDED_DECL_EMBEDDED(name) const hcl_driver_table *hcl__##name##_driver_table(void);
#define X(name, build, role) EMBEDDED_DECL_##build(name)
HCL_BACKEND_LIST(X)
#undef X

#define EMBEDDED_FN_MODULE(name) NULL
#define EMBEDDED_FN_EMBEDDED(name) hcl__##name##_driver_table
static const struct {
    const char *name;
    hcl_driver_entry_fn embedded; /* NULL: a module */
    hcl__default_role role;
} builtin[] = {
#define X(name, build, role) {#name, EMBEDDED_FN_##build(name), HCL__DEFAULT_##role},
    HCL_BACKEND_LIST(X)
#undef X
};
_Static_assert(sizeof builtin / sizeof builtin[0] == HCL_BACKEND_BUILTIN_COUNT, "the generated backend list");
_Static_assert(HCL_BACKEND_BUILTIN_COUNT < MAX_BACKENDS, "room for HCL_EXTRA_DRIVERS");

static pthread_once_t list_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static hcl__backend backends[MAX_BACKENDS];
static uint32_t backend_count;

static void host_log(hcl_log_level level, const char *driver, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    hcl__vlog(level, driver, fmt, ap);
    va_end(ap);
}

static hcl_status host_set_message(hcl_status status, const char *fmt, ...) {
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return hcl__set_message(status, "%s", buf);
}

static void *host_open_library(const char *driver, const char *env_override, const char *const *names, size_t count,
                               char *reason, size_t reason_size) {
    const char *override = env_override ? getenv(env_override) : NULL;
    if (override && override[0]) {
        names = &override;
        count = 1;
    }
    for (size_t i = 0; i < count; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            hcl__log(HCL_LOG_DEBUG, driver, "dlopen %s: loaded", names[i]);
            return h;
        }
        const char *e = dlerror();
        hcl__log(HCL_LOG_DEBUG, driver, "dlopen %s: %s", names[i], e ? e : "failed");
        if (reason) hcl__kit_appendf(reason, reason_size, "%s%s", i ? "; " : "", e ? e : names[i]);
    }
    if (reason) {
        hcl__kit_appendf(reason, reason_size, " (tried: ");
        for (size_t i = 0; i < count; i++) hcl__kit_appendf(reason, reason_size, "%s%s", i ? ", " : "", names[i]);
        hcl__kit_appendf(reason, reason_size, "%s%s)", override && override[0] ? ", from " : "",
                         override && override[0] ? env_override : "");
    }
    return NULL;
}

static const hcl_driver_host driver_host = {
    sizeof(hcl_driver_host), host_set_message,  host_log,         hcl__cache_load,
    hcl__cache_store,        host_open_library, hcl__cache_evict,
};

const hcl_driver_host *hcl__driver_host(void) { return &driver_host; }

static void add_backend(const char *name, size_t len, hcl_driver_entry_fn embedded, hcl__default_role role) {
    if (len == 0) return;
    if (backend_count >= MAX_BACKENDS || len >= sizeof backends[0].name) {
        hcl__log(HCL_LOG_WARN, "loader", "HCL_EXTRA_DRIVERS: ignoring '%.*s' (%s)", (int)len, name,
                 backend_count >= MAX_BACKENDS ? "too many backends" : "name too long");
        return;
    }
    for (uint32_t i = 0; i < backend_count; i++)
        if (strlen(backends[i].name) == len && strncmp(backends[i].name, name, len) == 0) return;
    for (size_t i = 0; i < len; i++) /* module names are [a-z0-9_-] only: no paths */
        if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_' ||
              name[i] == '-')) {
            hcl__log(HCL_LOG_WARN, "loader", "HCL_EXTRA_DRIVERS: ignoring invalid name '%.*s'", (int)len, name);
            return;
        }
    hcl__backend *b = &backends[backend_count++];
    memcpy(b->name, name, len);
    b->name[len] = '\0';
    b->embedded = embedded;
    b->default_role = role;
}

static void build_list(void) {
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        add_backend(builtin[i].name, strlen(builtin[i].name), builtin[i].embedded, builtin[i].role);
    const char *extra = getenv("HCL_EXTRA_DRIVERS");
    while (extra && *extra) {
        const char *end = strchr(extra, ',');
        size_t len = end ? (size_t)(end - extra) : strlen(extra);
        while (len && (*extra == ' ')) {
            extra++;
            len--;
        }
        while (len && extra[len - 1] == ' ') len--;
        add_backend(extra, len, NULL, HCL__DEFAULT_NONE);
        extra = end ? end + 1 : NULL;
    }
}

uint32_t hcl__backend_total(void) {
    pthread_once(&list_once, build_list);
    return backend_count;
}

hcl__backend *hcl__backend_at(uint32_t index) { return index < hcl__backend_total() ? &backends[index] : NULL; }

hcl__backend *hcl__backend_find(const char *name, size_t len) {
    for (uint32_t i = 0; i < hcl__backend_total(); i++)
        if (strlen(backends[i].name) == len && strncmp(backends[i].name, name, len) == 0) return &backends[i];
    return NULL;
}

void hcl__backend_names(char *buf, size_t size) {
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < hcl__backend_total() && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", backends[i].name);
        if (n < 0) break;
        used += (size_t)n;
    }
}

/* The folder holding libhcl itself, found from the address of one of its functions. */
static int own_dir(char *dir, size_t size) {
    Dl_info info;
    if (!dladdr((void *)&hcl__backend_load, &info) || !info.dli_fname) return -1;
    char *real = realpath(info.dli_fname, NULL); /* "bin/../lib/libhcl.so" reads better as "lib" */
    const char *name = real ? real : info.dli_fname;
    const char *slash = strrchr(name, '/');
    size_t len = slash ? (size_t)(slash - name) : 0;
    if (!slash || len + 1 > size) {
        free(real);
        return -1;
    }
    memcpy(dir, name, len);
    free(real);
    dir[len] = '\0';
    return 0;
}

/* Read exactly size bytes at offset; 0 on success. */
static int pread_all(int fd, void *buf, size_t size, off_t offset) {
    unsigned char *p = buf;
    while (size > 0) {
        ssize_t n = pread(fd, p, size, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        p += n;
        size -= (size_t)n;
        offset += n;
    }
    return 0;
}

/* Check a module file before dlopen sees it: a regular file, and when it is an ELF file of this machine's class, one
 * whose program headers and loadable segments lie inside it. Returns 1 when it may be loaded; else 0 with why (-1:
 * out of host memory, a failure worth trying again). A file of another kind (another ELF class, a linker script) is
 * left to dlopen, which reads only its first bytes. */
static int module_whole(const char *path, char *why, size_t why_size) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        snprintf(why, why_size, "open: %s", strerror(errno));
        return 0;
    }
    int ok = 0;
    ElfW(Phdr) *ph = NULL;
    struct stat st;
    ElfW(Ehdr) eh;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_size, "not a regular file");
        goto done;
    }
    const uint64_t size = (uint64_t)st.st_size;
    if (size < sizeof eh || pread_all(fd, &eh, sizeof eh, 0) != 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) {
        ok = 1; /* not an ELF file of this class: dlopen says what it is */
        goto done;
    }
    if (eh.e_phentsize != sizeof(ElfW(Phdr)) || eh.e_phnum == 0 || eh.e_phnum == PN_XNUM) {
        snprintf(why, why_size, "broken ELF file: %u program headers of %u bytes", (unsigned)eh.e_phnum,
                 (unsigned)eh.e_phentsize);
        goto done;
    }
    const uint64_t ph_bytes = (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr));
    if (eh.e_phoff > size || ph_bytes > size - eh.e_phoff) {
        snprintf(why, why_size, "truncated ELF file: its program headers end at byte %llu of %llu",
                 (unsigned long long)eh.e_phoff + (unsigned long long)ph_bytes, (unsigned long long)size);
        goto done;
    }
    ph = malloc((size_t)ph_bytes);
    if (!ph) {
        snprintf(why, why_size, "out of host memory reading its %llu bytes of program headers",
                 (unsigned long long)ph_bytes);
        ok = -1;
        goto done;
    }
    if (pread_all(fd, ph, (size_t)ph_bytes, (off_t)eh.e_phoff) != 0) {
        snprintf(why, why_size, "cannot read its program headers");
        goto done;
    }
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type != PT_LOAD && ph[i].p_type != PT_DYNAMIC) continue;
        if (ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset) {
            snprintf(why, why_size, "truncated ELF file: %s segment %u ends at byte %llu of %llu",
                     ph[i].p_type == PT_LOAD ? "loadable" : "dynamic", i,
                     (unsigned long long)ph[i].p_offset + (unsigned long long)ph[i].p_filesz, (unsigned long long)size);
            goto done;
        }
    }
    ok = 1;
done:
    free(ph);
    close(fd);
    return ok;
}

/* Did dlopen fail for want of memory? The dynamic loader says so only in its text: strerror(ENOMEM) ("Cannot
 * allocate memory") after a failed mmap, or its own "cannot allocate ..." / "cannot create ..." (a shared object
 * descriptor, a search list, address lookup data) and "out of memory", all transient. A full static TLS block
 * ("cannot allocate memory in static TLS block") stays full: not a retry. */
static int dlopen_out_of_memory(const char *err) {
    if (!err || strstr(err, "static TLS")) return 0;
    return strcasestr(err, "cannot allocate ") || strcasestr(err, "out of memory") || strstr(err, "cannot create ") ||
           strstr(err, strerror(ENOMEM));
}

/* Try one candidate path. Returns the dlopen handle or NULL, appending why to `tried`. */
static void *try_path(hcl__backend *b, const char *dir, const char *file, char *tried, size_t tried_size) {
    char path[HCL_NAME_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    struct stat st;
    if (stat(path, &st) != 0) {
        hcl__log(HCL_LOG_DEBUG, "loader", "%s: %s: not found", b->name, path);
        hcl__kit_appendf(tried, tried_size, "%s%s (not found)", tried[0] ? "; " : "", path);
        return NULL;
    }
    char why[256];
    int whole = module_whole(path, why, sizeof why);
    if (whole <= 0) {
        if (whole < 0) b->retry = 1;
        hcl__log(HCL_LOG_DEBUG, "loader", "%s: %s refused: %s", b->name, path, why);
        hcl__kit_appendf(tried, tried_size, "%s%s (refused: %s)", tried[0] ? "; " : "", path, why);
        return NULL;
    }
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *err = dlerror();
        if (dlopen_out_of_memory(err)) b->retry = 1;
        hcl__log(HCL_LOG_DEBUG, "loader", "%s: dlopen %s failed: %s", b->name, path, err ? err : "?");
        hcl__kit_appendf(tried, tried_size, "%s%s (dlopen: %s)", tried[0] ? "; " : "", path, err ? err : "?");
        return NULL;
    }
    hcl__log(HCL_LOG_DEBUG, "loader", "%s: loaded %s", b->name, path);
    size_t len = strlen(path) < sizeof b->module_path ? strlen(path) : sizeof b->module_path - 1;
    memcpy(b->module_path, path, len);
    b->module_path[len] = '\0';
    return dl;
}

/* dl_iterate_phdr: does the object holding `addr` map it from an executable segment? */
typedef struct exec_query {
    uintptr_t addr;
    int found, executable;
} exec_query;

static int exec_segment(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    exec_query *q = data;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *p = &info->dlpi_phdr[i];
        const uintptr_t lo = (uintptr_t)info->dlpi_addr + p->p_vaddr;
        if (p->p_type != PT_LOAD || q->addr < lo || q->addr - lo >= p->p_memsz) continue;
        q->found = 1;
        q->executable = (p->p_flags & PF_X) != 0;
        return 1;
    }
    return 0;
}

/* The entry point must be code: a function symbol (STT_FUNC, or an IFUNC that dlsym already resolved) in an
 * executable segment. A data symbol of that name would be called and crash. Returns 1 when it is; else 0 with why. */
static int entry_is_function(void *sym, char *why, size_t why_size) {
    Dl_info di;
    const ElfW(Sym) *ent = NULL;
    if (dladdr1(sym, &di, (void **)&ent, RTLD_DL_SYMENT) && ent) {
        const unsigned type = ELF64_ST_TYPE(ent->st_info);
        if (type != STT_FUNC && type != STT_GNU_IFUNC) {
            snprintf(why, why_size, "%s is not a function (ELF symbol type %u%s)", HCL_DRIVER_ENTRY_NAME, type,
                     type == STT_OBJECT ? ", data" : "");
            return 0;
        }
    }
    exec_query q = {(uintptr_t)sym, 0, 0};
    dl_iterate_phdr(exec_segment, &q);
    if (!q.found || !q.executable) {
        snprintf(why, why_size, "%s does not lie in an executable segment", HCL_DRIVER_ENTRY_NAME);
        return 0;
    }
    return 1;
}

static void *find_module(hcl__backend *b) {
    char file[64], tried[HCL_REASON_MAX - 128] = "";
    snprintf(file, sizeof file, "libhcl-%s.so", b->name);
    void *dl = NULL;
    const char *env = getenv("HCL_DRIVER_PATH");
    while (!dl && env && *env) {
        const char *end = strchr(env, ':');
        size_t len = end ? (size_t)(end - env) : strlen(env);
        if (len > 0 && len < HCL_NAME_MAX) {
            char dir[HCL_NAME_MAX];
            memcpy(dir, env, len);
            dir[len] = '\0';
            dl = try_path(b, dir, file, tried, sizeof tried);
        }
        env = end ? end + 1 : NULL;
    }
    char dir[HCL_NAME_MAX];
    int have_own = own_dir(dir, sizeof dir) == 0;
    if (!dl && have_own) dl = try_path(b, dir, file, tried, sizeof tried);
    if (!dl && !(have_own && strcmp(dir, HCL_INSTALL_LIBDIR) == 0)) /* not the same folder twice */
        dl = try_path(b, HCL_INSTALL_LIBDIR, file, tried, sizeof tried);
    if (!dl) snprintf(b->reason, sizeof b->reason, "driver module %s not loaded; tried: %s", file, tried);
    return dl;
}

/* Check the table and initialise the driver. Returns 1 when the backend is usable. */
static int init_driver(hcl__backend *b, const hcl_driver_table *t) {
    if (!t) {
        snprintf(b->reason, sizeof b->reason, "%s: %s() returned NULL", b->module_path, HCL_DRIVER_ENTRY_NAME);
        return 0;
    }
    if (t->abi_major != HCL_DRIVER_ABI_MAJOR) {
        snprintf(b->reason, sizeof b->reason,
                 "%s: driver ABI version %u.%u is not compatible with this HCL (ABI %u.%u): rebuild the driver",
                 b->module_path, t->abi_major, t->abi_minor, HCL_DRIVER_ABI_MAJOR, HCL_DRIVER_ABI_MINOR);
        return 0;
    }
    if (t->size < TABLE_MIN_SIZE) {
        snprintf(b->reason, sizeof b->reason, "%s: driver table is %u bytes, ABI %u.0 needs at least %zu",
                 b->module_path, t->size, HCL_DRIVER_ABI_MAJOR, (size_t)TABLE_MIN_SIZE);
        return 0;
    }
    /* Every required entry must be present: the core calls them without checking. */
    const void *const *fns = (const void *const *)((const char *)t + offsetof(hcl_driver_table, init));
    size_t nfns = (TABLE_MIN_SIZE - offsetof(hcl_driver_table, init)) / sizeof(void *);
    for (size_t i = 0; i < nfns; i++)
        if (!fns[i]) {
            snprintf(b->reason, sizeof b->reason, "%s: driver table entry %zu is NULL", b->module_path, i);
            return 0;
        }
    char reason[HCL_REASON_MAX] = "";
    hcl_status st = t->init(&driver_host, reason, sizeof reason, b->version, sizeof b->version);
    /* a driver may fill a text to its end without a NUL */
    reason[sizeof reason - 1] = '\0';
    b->version[sizeof b->version - 1] = '\0';
    if (st != HCL_SUCCESS) {
        if (st == HCL_ERROR_OUT_OF_MEMORY) b->retry = 1;
        snprintf(b->reason, sizeof b->reason, "%s", reason[0] ? reason : hcl_status_text(st));
        hcl__log(HCL_LOG_DEBUG, "loader", "%s: init failed: %s: %s", b->name, hcl_status_name(st), b->reason);
        return 0;
    }
    uint32_t count = 0;
    st = t->device_count(&count);
    if (st != HCL_SUCCESS) {
        if (st == HCL_ERROR_OUT_OF_MEMORY) b->retry = 1;
        snprintf(b->reason, sizeof b->reason, "device enumeration failed: %s", hcl_last_message());
        t->shutdown();
        return 0;
    }
    if (count > HCL__MAX_DEVICES) {
        snprintf(b->reason, sizeof b->reason, "%s: the driver reports %u devices, more than the %u HCL accepts",
                 b->module_path, count, (unsigned)HCL__MAX_DEVICES);
        t->shutdown();
        return 0;
    }
    b->device_count = count;
    return 1;
}

/* The host backend runs the host built-ins at one instruction set (kernels/host_isa.c), which the host driver knows
 * nothing of: a level HCL_HOST_ISA forces that this CPU cannot run makes the backend unavailable with why (so a forced
 * level never silently becomes another), and its version names the level. Returns 1 when refused. */
static int host_isa(hcl__backend *b, int started) {
    if (strcmp(b->name, "host") != 0 || !b->embedded) return 0;
    if (!started) return hcl__host_isa_refusal(b->reason, sizeof b->reason) != 0;
    const size_t len = strlen(b->version);
    snprintf(b->version + len, sizeof b->version - len, ", isa %s", hcl__host_isa_name(hcl__host_isa()));
    return 0;
}

hcl__backend *hcl__backend_load(hcl__backend *b) {
    pthread_mutex_lock(&load_lock);
    if (b->loaded) goto out;
    b->loaded = 1;
    b->retry = 0;
    hcl__log(HCL_LOG_DEBUG, "loader", "loading backend %s", b->name);
    const hcl_driver_table *t = NULL;
    if (b->embedded) {
        snprintf(b->module_path, sizeof b->module_path, "(built in)");
        if (host_isa(b, 0)) goto report;
        t = b->embedded();
    } else {
        b->dl = find_module(b);
        if (!b->dl) goto report;
        dlerror();
        void *sym = dlsym(b->dl, HCL_DRIVER_ENTRY_NAME);
        if (!sym) {
            const char *err = dlerror();
            snprintf(b->reason, sizeof b->reason, "%s: no entry point: %s", b->module_path,
                     err ? err : HCL_DRIVER_ENTRY_NAME " not found");
            goto report;
        }
        char why[256];
        if (!entry_is_function(sym, why, sizeof why)) {
            snprintf(b->reason, sizeof b->reason, "%s: %s", b->module_path, why);
            goto report;
        }
        hcl_driver_entry_fn entry;
        *(void **)&entry = sym;
        t = entry();
    }
    if (init_driver(b, t)) {
        host_isa(b, 1);
        b->drv = t;
        b->available = 1;
        hcl__log(HCL_LOG_DEBUG, "loader", "%s: available, %u device(s), %s", b->name, b->device_count, b->version);
        goto out;
    }
report:
    hcl__log(HCL_LOG_DEBUG, "loader", "%s: unavailable: %s%s", b->name, b->reason,
             b->retry ? " (out of host memory: the next use tries again)" : "");
    if (b->dl) {
        dlclose(b->dl);
        b->dl = NULL;
    }
    /* a transient failure must not make the backend unavailable for the life of the process; retry stays set, for
     * the caller to report out of memory rather than an unavailable backend */
    if (b->retry) b->loaded = 0;
out:
    pthread_mutex_unlock(&load_lock);
    return b;
}
