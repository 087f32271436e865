/* Fault injection: a test build (-DHCL_FAULT_INJECTION=ON, off by default) in which any vendor call of a driver and any
 * host allocation of the library can be made to fail, one site hit at a time, so a test can walk every failure path.
 *
 * Every injectable site counts one hit each time it runs, in one process-wide count shared by libhcl and the driver
 * modules (hcl__fault_hit lives in libhcl, which exports it in this build only). The environment drives it:
 *   HCL_FAULT_AT=N     the N-th hit fails (once; every later hit succeeds, so the process can go on);
 *   HCL_FAULT_COUNT=1  print "hcl-fault: <hits> injectable sites hit" to stderr at exit; 2 also prints every hit.
 * A vendor call fails as if the vendor had returned the driver's injected error code (hcl__kit_fault_code: an
 * out-of-memory code where the vendor has one) without being called; an allocation returns NULL without allocating.
 * Without HCL_FAULT_INJECTION every hook here compiles to nothing. */
#ifndef HCL_DRIVERS_COMMON_FAULT_H
#define HCL_DRIVERS_COMMON_FAULT_H

#define HCL_FAULT_STR_(x) #x
#define HCL_FAULT_STR(x) HCL_FAULT_STR_(x)
/* The name of the site a hook sits at: "<file>:<line>". */
#define HCL_FAULT_SITE __FILE__ ":" HCL_FAULT_STR(__LINE__)

#ifdef HCL_FAULT_INJECTION
/* Count one hit of `site` and return 1 when it is the hit that HCL_FAULT_AT names (the caller then fails), else 0. */
__attribute__((visibility("default"))) int hcl__fault_hit(const char *site);
/* The vendor error code an injected vendor call gives: the driver defines it (the kit's default, 2, is an out-of-memory
 * code in CUDA and HIP). */
extern const long long hcl__kit_fault_code;
#define HCL_FAULT_HIT(site) hcl__fault_hit(site)
#else
#define HCL_FAULT_HIT(site) 0
#endif

#endif /* HCL_DRIVERS_COMMON_FAULT_H */
