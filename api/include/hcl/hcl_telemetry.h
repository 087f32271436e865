/* HCL telemetry: a device's power, energy, temperature, clocks, utilization, memory in use, power limit, throttle
 * reasons and link, as the vendor's management library reports them, and the MIG instances of an NVIDIA GPU.
 *
 * The sources are opened at run time, like the vendor runtimes (libhcl links none of them): NVML
 * (libnvidia-ml.so.1) for NVIDIA GPUs, ROCm SMI (librocm_smi64.so) for AMD GPUs, Level Zero Sysman (libze_loader.so.1,
 * zesInit) for Intel GPUs, and Linux powercap (RAPL) and hwmon under /sys for the host CPU. A device is matched to its
 * source by UUID (NVIDIA: the CUDA or OpenCL device UUID is NVML's "GPU-..." UUID; AMD: HIP's UUID is ROCm SMI's
 * unique id; Intel: the Level Zero device UUID). Every field is either known, with its value, or
 * unknown with the reason (no source for the device, the library missing, the vendor's "not supported"); a missing
 * source is never an error of the call. Reading is read-only: nothing here changes a device setting.
 *
 * Overrides (docs/telemetry.md): HCL_NVML_LIBRARY, HCL_ROCM_SMI_LIBRARY and HCL_SYSMAN_LIBRARY name the library to
 * open instead of the usual names; HCL_TELEMETRY_ROOT is a folder read in place of / (tests: its sys/ and proc/); HCL_TELEMETRY=off turns every
 * source off (each field then says so).
 */
#ifndef HCL_HCL_TELEMETRY_H
#define HCL_HCL_TELEMETRY_H

#include "hcl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The fields, in the order of hcl_telemetry.fields; X(ENUM, name, unit). The name is the JSON key hcl-info and bench
 * write. New fields are only appended (HCL_TELEMETRY_FIELD_MAX leaves room without changing the struct's size). */
#define HCL_TELEMETRY_FIELDS(X)                                                                                        \
    X(POWER, "power_w", "W")                   /* board (GPU) or package (CPU) power now, as the source averages it */ \
    X(ENERGY, "energy_j", "J")                 /* energy counter since an origin of the source's (driver load) */      \
    X(TEMPERATURE, "temperature_c", "C")       /* GPU die (NVIDIA), edge (AMD), package (CPU) */                       \
    X(CLOCK_SM, "clock_sm_mhz", "MHz")         /* SM / shader / core clock now */                                      \
    X(CLOCK_MEMORY, "clock_memory_mhz", "MHz") /* memory clock now */                                                  \
    X(UTILIZATION, "utilization_pct", "%")     /* share of the last sample period a kernel ran */                      \
    X(MEMORY_UTILIZATION, "memory_utilization_pct", "%") /* share of it memory was read or written */                  \
    X(MEMORY_USED, "memory_used_bytes", "B")             /* device memory in use (all processes) */                    \
    X(MEMORY_TOTAL, "memory_total_bytes", "B")           /* device memory the source counts */                         \
    X(POWER_LIMIT, "power_limit_w", "W")                 /* the enforced power limit */                                \
    X(THROTTLE, "throttle_reasons", "")                  /* HCL_THROTTLE_* bits now; 0: clocks are not held back */    \
    X(LINK_GENERATION, "link_generation", "")            /* PCIe generation of the link now */                         \
    X(LINK_WIDTH, "link_width", "lanes")                 /* PCIe lanes of the link now */

typedef enum hcl_telemetry_field {
#define HCL__TELEMETRY_ENUM(e, name, unit) HCL_TELEMETRY_##e,
    HCL_TELEMETRY_FIELDS(HCL__TELEMETRY_ENUM)
#undef HCL__TELEMETRY_ENUM
        HCL_TELEMETRY_FIELD_COUNT
} hcl_telemetry_field;
#define HCL_TELEMETRY_FIELD_MAX 24
/* The bit of a field in the `fields` mask of hcl_device_get_telemetry_by_index (0 asks for all). */
#define HCL_TELEMETRY_BIT(field) (1u << (unsigned)(field))

/* Why clocks are held back (the THROTTLE field's value; several may be set). NVML's clock event reasons map to them:
 * idle (GpuIdle), application clocks (ApplicationsClocksSetting, DisplayClockSetting), power (SwPowerCap), thermal
 * (SwThermalSlowdown, HwThermalSlowdown), hardware (HwSlowdown, HwPowerBrakeSlowdown), other (SyncBoost and any
 * other bit). A row measured under POWER, THERMAL or HARDWARE is what HCL_THROTTLE_SLOWDOWN names. */
#define HCL_THROTTLE_IDLE 0x1u
#define HCL_THROTTLE_APPLICATION_CLOCKS 0x2u
#define HCL_THROTTLE_POWER 0x4u
#define HCL_THROTTLE_THERMAL 0x8u
#define HCL_THROTTLE_HARDWARE 0x10u
#define HCL_THROTTLE_OTHER 0x20u
#define HCL_THROTTLE_SLOWDOWN (HCL_THROTTLE_POWER | HCL_THROTTLE_THERMAL | HCL_THROTTLE_HARDWARE)

/* One field: known with its value in the unit of its X entry, or unknown with the reason. */
typedef struct hcl_telemetry_value {
    int known;        /* 1: value holds the reading */
    double value;     /* in the field's unit (bytes for memory, W, J, MHz, %, a bit mask for THROTTLE) */
    char reason[160]; /* when unknown: why ("NVML: not supported on this device (NVML_ERROR_NOT_SUPPORTED)") */
} hcl_telemetry_value;

typedef struct hcl_telemetry {
    char source[32];      /* "nvml", "rocm-smi", "sysman", "powercap+hwmon"; "" when no source serves the device */
    char detail[256];     /* the library or folder read and how the device was matched ("libnvidia-ml.so.1 580.159,
                           GPU-1234... by UUID"); when source is "", why no source serves it */
    double time_s;        /* CLOCK_MONOTONIC seconds when the reading was taken */
    uint32_t field_count; /* HCL_TELEMETRY_FIELD_COUNT of the library that wrote it */
    hcl_telemetry_value fields[HCL_TELEMETRY_FIELD_MAX]; /* indexed by hcl_telemetry_field */
    char throttle_text[128]; /* the THROTTLE bits in words ("power cap, thermal"), "" when none or unknown */
} hcl_telemetry;

/* One MIG instance (a GPU instance with its compute instance) of a GPU in MIG mode. */
typedef struct hcl_mig_instance {
    char name[96];         /* NVML's name of the MIG device ("NVIDIA H100 80GB HBM3 MIG 1g.10gb"): its profile */
    char uuid[96];         /* "MIG-..." (CUDA_VISIBLE_DEVICES takes it) */
    uint32_t gpu_instance; /* GPU instance id */
    uint32_t compute_instance;
    uint32_t multiprocessors; /* SMs of the instance; 0 unknown */
    uint32_t slices;          /* GPU slices of the instance; 0 unknown */
    uint64_t memory_bytes;    /* memory of the instance; 0 unknown */
} hcl_mig_instance;

#define HCL_MIG_MAX 16
typedef struct hcl_mig_info {
    int known;        /* 1: enabled and pending say the GPU's MIG mode */
    int enabled;      /* 1: MIG mode is on now */
    int pending;      /* 1: MIG mode will be on after the next GPU reset */
    char reason[256]; /* when not known: why (no NVML, not an NVIDIA GPU, MIG not supported) */
    uint32_t count;   /* instances[0..count) */
    hcl_mig_instance instances[HCL_MIG_MAX];
} hcl_mig_info;

/* Read the telemetry of device `index` of the global list (hcl_device_count), without opening it. `fields` is a
 * mask of HCL_TELEMETRY_BIT(f) to read (0: every field); the others say "not asked for". Opens the sources on first
 * use (then keeps them). Fields a source cannot read are unknown with the reason; that is not an error.
 * Thread-safe. Returns HCL_SUCCESS, HCL_ERROR_INVALID_ARGUMENT (out_telemetry NULL), HCL_ERROR_DEVICE_NOT_FOUND. */
HCL_API hcl_status hcl_device_get_telemetry_by_index(uint32_t index, uint32_t fields, hcl_telemetry *out_telemetry);
/* The same for an opened device (all fields). Returns HCL_SUCCESS, HCL_ERROR_INVALID_HANDLE,
 * HCL_ERROR_INVALID_ARGUMENT. */
HCL_API hcl_status hcl_device_get_telemetry(hcl_device device, hcl_telemetry *out_telemetry);
/* The MIG mode of device `index` and, when it is on, its MIG instances (read only: nothing is changed). A device
 * without MIG, or without NVML, gives known 0 with the reason: not an error. Returns HCL_SUCCESS,
 * HCL_ERROR_INVALID_ARGUMENT, HCL_ERROR_DEVICE_NOT_FOUND. */
HCL_API hcl_status hcl_device_get_mig_by_index(uint32_t index, hcl_mig_info *out_mig);
/* A field's JSON name ("power_w") and unit ("W"), static strings; NULL for a value out of range. */
HCL_API const char *hcl_telemetry_field_name(hcl_telemetry_field field);
HCL_API const char *hcl_telemetry_field_unit(hcl_telemetry_field field);

#ifdef __cplusplus
}
#endif

#endif /* HCL_HCL_TELEMETRY_H */
