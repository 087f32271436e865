/* The part of NVML's nvml.h (NVIDIA driver 535 and later, CUDA 12.x; the layouts are unchanged through driver 580)
 * that the NVML source uses, declared here because libhcl includes no vendor header. The fake library of the tests
 * (test/fake_nvml.c) defines these same entry points. */
#ifndef HCL_TELEMETRY_VENDOR_NVML_H
#define HCL_TELEMETRY_VENDOR_NVML_H

typedef int nvmlReturn_t; /* an enum in nvml.h: NVML_SUCCESS 0, ... */
#define NVML_SUCCESS 0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
typedef struct nvmlDevice_st *nvmlDevice_t;
#define NVML_TEMPERATURE_GPU 0 /* nvmlTemperatureSensors_t */
#define NVML_CLOCK_SM 1        /* nvmlClockType_t */
#define NVML_CLOCK_MEM 2
#define NVML_DEVICE_MIG_ENABLE 1
/* nvmlClocksEventReasons (the older name: nvmlClocksThrottleReasons; same bits) */
#define NVML_CLOCKS_EVENT_GPU_IDLE 0x1ull
#define NVML_CLOCKS_EVENT_APPLICATIONS_CLOCKS 0x2ull
#define NVML_CLOCKS_EVENT_SW_POWER_CAP 0x4ull
#define NVML_CLOCKS_EVENT_HW_SLOWDOWN 0x8ull
#define NVML_CLOCKS_EVENT_SYNC_BOOST 0x10ull
#define NVML_CLOCKS_EVENT_SW_THERMAL 0x20ull
#define NVML_CLOCKS_EVENT_HW_THERMAL 0x40ull
#define NVML_CLOCKS_EVENT_HW_POWER_BRAKE 0x80ull
#define NVML_CLOCKS_EVENT_DISPLAY_CLOCKS 0x100ull

typedef struct nvmlMemory_st { /* nvmlMemory_t */
    unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct nvmlUtilization_st { /* nvmlUtilization_t */
    unsigned int gpu, memory;
} nvmlUtilization_t;
typedef struct nvmlDeviceAttributesV2_st { /* nvmlDeviceAttributes_t (nvmlDeviceGetAttributes_v2) */
    unsigned int multiprocessorCount, sharedCopyEngineCount, sharedDecoderCount, sharedEncoderCount, sharedJpegCount,
        sharedOfaCount, gpuInstanceSliceCount, computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

nvmlReturn_t nvmlInit_v2(void);
const char *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length);
nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power);                    /* mW */
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy); /* mJ */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, int sensorType, unsigned int *temp);
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned int *clock); /* MHz */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit); /* mW */
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *gen);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *width);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode);
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count);
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice);
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length);
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id);
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id);
nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes);

#endif /* HCL_TELEMETRY_VENDOR_NVML_H */
