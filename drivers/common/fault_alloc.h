/* Fault injection of host allocations (see fault.h): in the -DHCL_FAULT_INJECTION=ON build, the compiler includes this
 * header first in every source of libhcl and of the drivers (`-include`), so that every malloc, calloc, realloc and
 * aligned_alloc of the library goes through one wrapper (api/src/fault.c) that counts a hit and fails the one
 * HCL_FAULT_AT names by returning NULL. The names are replaced before the C library's headers are read, so those
 * headers declare the wrappers with the C library's own prototypes. Never included by a normal build. */
#ifndef HCL_DRIVERS_COMMON_FAULT_ALLOC_H
#define HCL_DRIVERS_COMMON_FAULT_ALLOC_H
#ifdef HCL_FAULT_INJECTION
#define malloc hcl__fault_malloc
#define calloc hcl__fault_calloc
#define realloc hcl__fault_realloc
#define aligned_alloc hcl__fault_aligned_alloc
#endif
#endif /* HCL_DRIVERS_COMMON_FAULT_ALLOC_H */
