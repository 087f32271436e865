/* The driver kit's vendor library: opened through the core's open_library and resolved into the driver's symbol
 * table (IREE's cuda_dynamic_symbol_table.h is the model).
 *
 * A driver lists the entry points it uses in one X-macro list, expands it once into a struct of function pointers
 * (HCL_KIT_SYMBOL_FIELD gives each the type the vendor header declares, so a mismatch cannot compile) and once
 * into an array of hcl_kit_symbol that says where each pointer goes:
 *     typedef struct { HCL_OCL_SYMBOLS(HCL_KIT_SYMBOL_FIELD) } hcl__ocl_symbols;
 *     #define SYM(name) HCL_KIT_SYMBOL(hcl__ocl_symbols, name)
 *     static const hcl_kit_symbol symbols[] = {HCL_OCL_SYMBOLS(SYM)};
 * then fills the struct with hcl__kit_resolve. */
#ifndef HCL_DRIVERS_COMMON_SYMBOLS_H
#define HCL_DRIVERS_COMMON_SYMBOLS_H

#include "hcl/hcl_driver.h"

#include <stddef.h>

/* One entry point of a symbol table: every member of the table is a function pointer. */
typedef struct hcl_kit_symbol {
    const char *name;     /* the exported name */
    const char *fallback; /* an older export of the same signature to take when `name` is missing, or NULL */
    size_t offset;        /* of its function pointer in the driver's table */
    int optional;         /* 1: may be missing (its pointer stays NULL; the driver checks before calling it) */
} hcl_kit_symbol;

#define HCL_KIT_SYMBOL_FIELD(name) __typeof__(name) *name;
#define HCL_KIT_SYMBOL(table, name) {#name, NULL, offsetof(table, name), 0},
#define HCL_KIT_SYMBOL_OPTIONAL(table, name) {#name, NULL, offsetof(table, name), 1},
#define HCL_KIT_SYMBOL_OR(table, name, old) {#name, old, offsetof(table, name), 0},

/* The vendor runtime: dlopen through the core's open_library (an optional service of hcl_driver_host): `env_override` alone when that
 * variable is set, else names[0..count). Opened once; later calls give the same handle. It stays loaded until the
 * process ends (runtimes keep threads and exit handlers that must not outlive their code), unless
 * hcl__kit_library_close drops it before any of its code ran. On failure `reason` has the dlerror texts and the
 * names tried: HCL_ERROR_BACKEND_UNAVAILABLE, or HCL_ERROR_DRIVER_VERSION when the core offers no open_library. */
hcl_status hcl__kit_library_open(const char *env_override, const char *const *names, size_t count, void **out_library,
                                 char *reason, size_t reason_size);
/* The file name the library was opened by ("libamdhip64.so.6"), "" if not known. */
const char *hcl__kit_library_name(void);
/* dlclose the library: only when none of its code has run yet (a resolve that failed before the first call). */
void hcl__kit_library_close(void);

/* Fill `table` from `library`: each of symbols[0..count) by its name, else its fallback. A required one that is
 * missing gives HCL_ERROR_BACKEND_UNAVAILABLE with "<label> lacks <name> (<too_old>)" in `reason`, and `table` is
 * left as it was. */
hcl_status hcl__kit_resolve(void *library, const hcl_kit_symbol *symbols, size_t count, void *table, const char *label,
                            const char *too_old, char *reason, size_t reason_size);

#endif /* HCL_DRIVERS_COMMON_SYMBOLS_H */
