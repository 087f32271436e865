/* The one run-time choice of instruction set for every host built-in (hcl_host_kernels.h: hcl__host_isa): the GEMM
 * micro-kernel, the softmax row loops, the 16-bit loads and stores of vecadd, reduce and the conversions all follow
 * it, so forcing one level (HCL_HOST_ISA) runs every host kernel on that level's code and nothing else.
 *
 * A level is what its code needs, all of it: "avx2" is AVX2 + FMA + F16C (the GEMM micro-kernel fuses multiply-adds,
 * the conversions use F16C), "avx512" is AVX-512F on top of that level (so a CPU that runs avx512 runs every lower
 * level too). __builtin_cpu_supports("avx2"/"avx512f") also checks that the OS saves the ymm / zmm registers. */
#include "hcl_host_kernels.h"
#include "hcl_plan.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#endif

static const char *const isa_names[] = {"generic", "avx2", "avx512"};
#define ISA_COUNT ((int)(sizeof isa_names / sizeof isa_names[0]))

/* The best level this CPU runs. F16C from CPUID (clang 14's __builtin_cpu_supports does not know "f16c"). */
static int isa_detect(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init(); /* idempotent; needed when called before libgcc's constructor has run */
    unsigned a = 0, b = 0, c = 0, d = 0;
    const int f16c = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C) != 0;
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c)) return HCL__HOST_ISA_GENERIC;
    if (!__builtin_cpu_supports("avx512f")) return HCL__HOST_ISA_AVX2;
    return HCL__HOST_ISA_AVX512;
#else
    return HCL__HOST_ISA_GENERIC;
#endif
}

/* The CPU's 16-bit arithmetic from CPUID leaf 7 (clang 14's __builtin_cpu_supports knows neither name); "avx512f"
 * checks the OS saves zmm. */
static unsigned cpu_features_detect(void) {
    unsigned features = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (__builtin_cpu_supports("avx512f")) {
        if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (d & (1u << 23))) features |= HCL__HOST_CPU_FP16;
        if (__get_cpuid_count(7, 1, &a, &b, &c, &d) && (a & (1u << 5))) features |= HCL__HOST_CPU_BF16;
    }
#endif
    return features;
}

/* Found once per process, as the level is: every hcl_device_get_info of the host device asks (CPUID traps to the
 * hypervisor in a virtual machine). -1: not yet; racing first calls store the same value. */
static atomic_int cpu_features = -1;

unsigned hcl__host_cpu_features(void) {
    int f = atomic_load_explicit(&cpu_features, memory_order_relaxed);
    if (f < 0) {
        f = (int)cpu_features_detect();
        atomic_store_explicit(&cpu_features, f, memory_order_relaxed);
    }
    return (unsigned)f;
}

/* The level HCL_HOST_ISA names (the plans' one parser of overrides: any case, "auto" or empty forces none), -1 when it
 * forces none, -2 when it names no level ("auto, <levels>" then in known). */
static int isa_requested(char *known, size_t known_size) {
    return hcl_kchoice_parse(getenv("HCL_HOST_ISA"), isa_names, ISA_COUNT, known, known_size);
}

static atomic_int isa_chosen = -1; /* racing first calls store the same value */

int hcl__host_isa(void) {
    int level = atomic_load_explicit(&isa_chosen, memory_order_relaxed);
    if (level < 0) {
        const int cpu = isa_detect(), asked = isa_requested(NULL, 0);
        level = asked >= 0 && asked <= cpu ? asked : cpu;
        atomic_store_explicit(&isa_chosen, level, memory_order_relaxed);
    }
    return level;
}

const char *hcl__host_isa_name(int level) { return level >= 0 && level < ISA_COUNT ? isa_names[level] : "unknown"; }

int hcl__host_isa_force(int level) {
    const int cpu = isa_detect();
    if (level < -1 || level > cpu) return -1;
    atomic_store_explicit(&isa_chosen, level < 0 ? cpu : level, memory_order_relaxed);
    return 0;
}

int hcl__host_isa_refusal(char *reason, size_t reason_size) {
    char known[64] = "";
    const int asked = isa_requested(known, sizeof known), cpu = isa_detect();
    if (asked == -1 || (asked >= 0 && asked <= cpu)) return 0;
    char runs[64] = "";
    size_t used = 0;
    for (int level = cpu; level >= 0; level--) {
        const int n = snprintf(runs + used, sizeof runs - used, "%s%s", level == cpu ? "" : ", ", isa_names[level]);
        if (n > 0 && (size_t)n < sizeof runs - used) used += (size_t)n;
    }
    if (reason != NULL && reason_size > 0) {
        if (asked == -2)
            snprintf(reason, reason_size, "HCL_HOST_ISA=%s is not an instruction set of the host kernels (known: %s)",
                     getenv("HCL_HOST_ISA"), known);
        else
            snprintf(reason, reason_size, "HCL_HOST_ISA=%s: this CPU cannot run it (it runs %s)", isa_names[asked],
                     runs);
    }
    return -1;
}
