/* The driver kit's error check: the one way a driver checks a vendor call and reports its failure.
 *
 * A vendor failure becomes a status and this thread's message "<call>: <error name> (<code>); <detail>", with
 * the vendor's own name and number of the error (docs/architecture.md, "Errors"; IREE's IREE_CUDA_RETURN_IF_ERROR
 * is the model). A driver writes one function that names and maps its vendor's codes on top of
 * hcl__kit_vendor_fail, and one macro on top of HCL_KIT_CHECK; every call site then reads the same:
 *     HCL_OCL_CHECK(err, HCL_OCL_ALLOC, "clCreateBuffer", "size %zu bytes", size);
 * and unwinds through its `cleanup:` label with `status` set. */
#ifndef HCL_DRIVERS_COMMON_CHECK_H
#define HCL_DRIVERS_COMMON_CHECK_H

#include "hcl/hcl_driver.h"

#include "fault.h"

#include <stdarg.h>

/* The core's services (set by hcl__kit_init). Before init they are stand-ins that drop messages and logs, so a
 * failure path is safe even then. */
extern const hcl_driver_host *hcl__kit_host;
/* The driver's backend name, for messages ("opencl"); set by hcl__kit_init. */
extern const char *hcl__kit_name;

/* Set this thread's message through the core (printf format) and evaluate to `status`. */
#define HCL_KIT_FAIL(status, ...) hcl__kit_host->set_message((status), __VA_ARGS__)
/* A debug log line, "hcl[<driver>] ...". */
#define HCL_KIT_LOG(...) hcl__kit_host->log(HCL_LOG_DEBUG, hcl__kit_name, __VA_ARGS__)
#define HCL_KIT_WARN(...) hcl__kit_host->log(HCL_LOG_WARN, hcl__kit_name, __VA_ARGS__)

#ifdef HCL_FAULT_INJECTION
#define HCL_KIT_FAULT(type, result) (HCL_FAULT_HIT(HCL_FAULT_SITE) ? (type)hcl__kit_fault_code : (result))
#else
#define HCL_KIT_FAULT(type, result) (result)
#endif

/* Evaluate `result` (a vendor call, or the code one returned, of type `type`); unless it equals `ok`, set `status`
 * to fail(code, ...) and jump to `cleanup`. In the fault-injection build (fault.h) each check is an injectable site:
 * when its hit is the one to fail, `result` is not evaluated and the check fails with hcl__kit_fault_code. `fail` is the driver's function that names and maps the code
 * (hcl__ocl_fail, hcl__ze_fail, hcl__gpu_fail); the arguments after it are its own (the call, the detail). */
#define HCL_KIT_CHECK(type, result, ok, fail, ...)                                                                     \
    do {                                                                                                               \
        type hcl_kit_r_ = HCL_KIT_FAULT(type, result);                                                                 \
        if (hcl_kit_r_ != (ok)) {                                                                                      \
            status = fail(hcl_kit_r_, __VA_ARGS__);                                                                    \
            goto cleanup;                                                                                              \
        }                                                                                                              \
    } while (0)

/* The same check as a value: HCL_SUCCESS, or the failure's status with the message set. For the few places that
 * cannot jump (a condition, or shared code written as `st = ...` chains). */
#define HCL_KIT_STATUS(type, result, ok, fail, ...)                                                                    \
    __extension__({                                                                                                    \
        type hcl_kit_r_ = HCL_KIT_FAULT(type, result);                                                                 \
        hcl_kit_r_ == (ok) ? HCL_SUCCESS : fail(hcl_kit_r_, __VA_ARGS__);                                              \
    })

/* How a vendor's code is printed after its name: "(-61)" or "(0x70000003)". */
typedef enum hcl_kit_code_format { HCL_KIT_CODE_DECIMAL = 0, HCL_KIT_CODE_HEX = 1 } hcl_kit_code_format;

/* Set this thread's message to "<call>: <name> (<code>); <detail><note>" and return `status`. `call` loses a
 * trailing _vN ("cuMemAlloc_v2" reads "cuMemAlloc", the name the headers document). `note` may be NULL. The text
 * is kept for hcl__kit_last_failure. */
hcl_status hcl__kit_vendor_fail(hcl_status status, const char *call, const char *name, long long code,
                                hcl_kit_code_format format, const char *note, const char *fmt, va_list ap);

/* hcl__kit_vendor_fail on the variable arguments of the driver's failure function it stands in (a variadic one whose
 * last named parameter is `fmt`), as a value: `return HCL_KIT_VENDOR_FAIL(status, fn, name, code, format, NULL, fmt);` */
#define HCL_KIT_VENDOR_FAIL(status, call, name, code, format, note, fmt)                                               \
    __extension__({                                                                                                    \
        va_list hcl_kit_ap_;                                                                                           \
        va_start(hcl_kit_ap_, fmt);                                                                                    \
        hcl_status hcl_kit_s_ =                                                                                        \
            hcl__kit_vendor_fail((status), (call), (name), (code), (format), (note), fmt, hcl_kit_ap_);                \
        va_end(hcl_kit_ap_);                                                                                           \
        hcl_kit_s_;                                                                                                    \
    })

/* The text of this thread's last vendor failure or hcl__kit_oom, for a log line about a failure that is not
 * returned, or for a reason that combines two failures. "" when there was none. */
const char *hcl__kit_last_failure(void);

/* HCL_ERROR_OUT_OF_MEMORY with "<driver>: out of host memory (<what>)". */
hcl_status hcl__kit_oom(const char *what);

/* Append printf text to the NUL-terminated string in buf (size bytes in all), cut at the end of buf; for the messages
 * and reasons built in pieces (the loader's, the run-time compilers', telemetry's). */
void hcl__kit_appendf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* HCL_DRIVERS_COMMON_CHECK_H */
