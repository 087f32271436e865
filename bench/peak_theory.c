/* The theoretical f32 peak of a device from its clock and units (bench's peak section and each row's fraction of
 * peak): units x f32 lanes per unit x 2 flops (an FMA) x clock. The lanes per unit come from the architecture where
 * bench knows it (NVIDIA by compute capability, AMD by gfx target, the host CPU by its vector ISA); elsewhere the
 * peak is unknown and the measured FMA chain stands in. */
#define _POSIX_C_SOURCE 200809L

#include "bench_lib.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define PEAK_X86 1
#endif

/* f32 lanes per NVIDIA SM by compute capability (the CUDA programming guide's arithmetic-throughput table). */
static int nvidia_lanes(int major, int minor) {
    if (major == 6) return minor == 0 ? 64 : 128;
    if (major == 7) return 64;
    if (major == 8) return minor == 0 ? 64 : 128;
    if (major >= 9) return 128;
    return 0;
}

/* f32 lanes per AMD compute unit, as AMD's "FP32 vector" figures count them: 64 (4 SIMD16 on gfx9 and gfx90a, whose
 * packed f32 doubles it only for packed instructions; 2 SIMD32 on gfx10), 128 on gfx94x (MI300X: 304 CUs x 256 flops
 * x 2.1 GHz = 163.4 TFLOP/s) and gfx11 (dual issue). */
static int amd_lanes(const char *arch) {
    if (!strncmp(arch, "gfx94", 5) || !strncmp(arch, "gfx11", 5)) return 128;
    if (!strncmp(arch, "gfx9", 4) || !strncmp(arch, "gfx10", 5)) return 64;
    return 0;
}

double theoretical_fp32(const hcl_device_info *i, char *how, size_t size) {
    int major = 0, minor = 0, lanes = 0;
    const char *what = "";
    if (!i->clock_mhz || !i->compute_units) {
        snprintf(how, size, "unknown: the runtime reports no %s", !i->clock_mhz ? "clock" : "compute units");
        return 0.0;
    }
    int cc = 0;
    if (sscanf(i->arch, "sm_%d", &cc) == 1 && cc > 0) { /* sm_90, sm_90a, sm_100, sm_120 */
        major = cc / 10, minor = cc % 10;
        lanes = nvidia_lanes(major, minor);
        what = "f32 lanes per SM";
    } else if (!strncmp(i->arch, "gfx", 3)) {
        lanes = amd_lanes(i->arch);
        what = "f32 lanes per CU";
    } else if (i->type == HCL_DEVICE_TYPE_CPU && !strcmp(i->backend, "host")) {
#if defined(PEAK_X86)
        /* two vector FMA pipes per core (Skylake-SP Gold/Platinum, Zen 2+; some parts have one: an upper bound) */
        __builtin_cpu_init();
        lanes = __builtin_cpu_supports("avx512f")                                 ? 32
                : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 16
                : __builtin_cpu_supports("avx")                                   ? 8
                                                                                  : 4;
        what = lanes == 32   ? "FMA lanes per core (AVX-512, 2 pipes assumed)"
               : lanes == 16 ? "FMA lanes per core (AVX2, 2 pipes assumed)"
                             : "lanes per core (no FMA: mul + add pipes)";
#endif
    }
    if (!lanes) {
        snprintf(how, size, "unknown: bench knows no f32 units of arch '%s' on %s (the measured FMA peak stands in)",
                 i->arch[0] ? i->arch : "?", i->backend);
        return 0.0;
    }
    double g = (double)i->compute_units * lanes * 2.0 * i->clock_mhz / 1e3;
    snprintf(how, size, "%u units x %d %s x 2 flops x %u MHz", i->compute_units, lanes, what, i->clock_mhz);
    return g;
}
