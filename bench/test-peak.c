/* ctest tools-bench-peak-theory: theoretical_fp32 against the vendors' published f32 figures (clock x units x lanes
 * x 2), unknown devices reported as unknown, and the host's figure from its ISA. Exit status 1 on any mismatch. */
#include "bench_lib.h"

#include <math.h>
#include <string.h>

static int failures;

static void expect(const char *arch, const char *backend, hcl_device_type type, uint32_t units, uint32_t mhz,
                   double want, const char *published) {
    hcl_device_info i;
    memset(&i, 0, sizeof i);
    snprintf(i.arch, sizeof i.arch, "%s", arch);
    snprintf(i.backend, sizeof i.backend, "%s", backend);
    i.type = type;
    i.compute_units = units;
    i.clock_mhz = mhz;
    char how[320];
    double got = theoretical_fp32(&i, how, sizeof how);
    int ok = want > 0 ? fabs(got - want) <= 1e-6 * want : got == 0.0 && !strncmp(how, "unknown", 7);
    printf("%-4s %-8s %-6s %3u units %4u MHz: %9.1f GFLOP/s (want %9.1f; %s): %s\n", ok ? "ok" : "FAIL", arch, backend,
           units, mhz, got, want, published, how);
    failures += !ok;
}

int main(void) {
    expect("sm_90", "cuda", HCL_DEVICE_TYPE_GPU, 132, 1980, 132 * 128 * 2 * 1.98, "H100 SXM: 67 TFLOP/s");
    expect("sm_80", "cuda", HCL_DEVICE_TYPE_GPU, 108, 1410, 108 * 64 * 2 * 1.41, "A100: 19.5 TFLOP/s");
    expect("sm_86", "cuda", HCL_DEVICE_TYPE_GPU, 82, 1695, 82 * 128 * 2 * 1.695, "RTX 3090: 35.6 TFLOP/s");
    expect("sm_70", "cuda", HCL_DEVICE_TYPE_GPU, 80, 1530, 80 * 64 * 2 * 1.53, "V100 SXM2: 15.7 TFLOP/s");
    expect("sm_100", "cuda", HCL_DEVICE_TYPE_GPU, 148, 1965, 148 * 128 * 2 * 1.965, "sm_100: 128 lanes per SM");
    expect("gfx90a", "hip", HCL_DEVICE_TYPE_GPU, 110, 1700, 110 * 64 * 2 * 1.7, "MI250X GCD: 23.9 (vector)");
    expect("gfx942", "hip", HCL_DEVICE_TYPE_GPU, 304, 2100, 304 * 128 * 2 * 2.1, "MI300X: 163.4 TFLOP/s");
    expect("", "opencl", HCL_DEVICE_TYPE_GPU, 132, 1980, 0.0, "OpenCL: unknown units");
    expect("sm_90", "cuda", HCL_DEVICE_TYPE_GPU, 132, 0, 0.0, "no clock: unknown");
    /* the host: whatever this CPU's ISA gives, a positive figure of 2 cores x lanes x 2 x 1000 MHz */
    hcl_device_info h;
    memset(&h, 0, sizeof h);
    snprintf(h.backend, sizeof h.backend, "host");
    h.type = HCL_DEVICE_TYPE_CPU;
    h.compute_units = 2;
    h.clock_mhz = 1000;
    char how[320];
    double g = theoretical_fp32(&h, how, sizeof how);
    int ok = g == 2 * 2 * 4.0 || g == 2 * 2 * 8.0 || g == 2 * 2 * 16.0 || g == 2 * 2 * 32.0;
    printf("%-4s host 2 cores at 1000 MHz: %.1f GFLOP/s: %s\n", ok ? "ok" : "FAIL", g, how);
    failures += !ok;
    printf("%s: %d failure%s\n", failures ? "FAILED" : "passed", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
