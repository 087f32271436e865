/* The part of Level Zero Sysman (zes_api.h, spec 1.5 and later for zesInit/zesDriverGet/zesDeviceGet; the structs as
 * in every spec since 1.0) that the Sysman source uses, declared here because libhcl includes no vendor header. Each
 * struct's name carries an hcl_ prefix; test/sysman_decls.c checks their layouts against the real zes_api.h where it
 * is installed (ctest telemetry-sysman-decls). The fake library of the tests (test/fake_sysman.c) defines these
 * entry points. */
#ifndef HCL_TELEMETRY_VENDOR_SYSMAN_H
#define HCL_TELEMETRY_VENDOR_SYSMAN_H

#include <stdint.h>

typedef int hcl_ze_result_t; /* ze_result_t: ZE_RESULT_SUCCESS 0 */
#define HCL_ZE_SUCCESS 0
#define HCL_ZE_ERROR_UNSUPPORTED_FEATURE 0x78000003
typedef struct hcl_zes_driver_s *hcl_zes_driver_handle_t;
typedef struct hcl_zes_device_s *hcl_zes_device_handle_t;
typedef struct hcl_zes_pwr_s *hcl_zes_pwr_handle_t;
typedef struct hcl_zes_freq_s *hcl_zes_freq_handle_t;
typedef struct hcl_zes_temp_s *hcl_zes_temp_handle_t;
typedef struct hcl_zes_mem_s *hcl_zes_mem_handle_t;

#define HCL_ZES_STYPE_DEVICE_PROPERTIES 0x1 /* zes_structure_type_t */
#define HCL_ZES_STYPE_FREQ_PROPERTIES 0x9
#define HCL_ZES_STYPE_TEMP_PROPERTIES 0x14
#define HCL_ZES_STYPE_PCI_STATE 0x17
#define HCL_ZES_STYPE_FREQ_STATE 0x1b
#define HCL_ZES_STYPE_MEM_STATE 0x1e
#define HCL_ZE_STYPE_DEVICE_PROPERTIES 0x3 /* ze_structure_type_t */
#define HCL_ZES_FREQ_DOMAIN_GPU 0
#define HCL_ZES_FREQ_DOMAIN_MEMORY 1
#define HCL_ZES_TEMP_SENSORS_GPU 1
/* zes_freq_throttle_reason_flag_t */
#define HCL_ZES_THROTTLE_AVE_PWR_CAP 0x1u
#define HCL_ZES_THROTTLE_BURST_PWR_CAP 0x2u
#define HCL_ZES_THROTTLE_CURRENT_LIMIT 0x4u
#define HCL_ZES_THROTTLE_THERMAL_LIMIT 0x8u
#define HCL_ZES_THROTTLE_PSU_ALERT 0x10u
#define HCL_ZES_THROTTLE_SW_RANGE 0x20u
#define HCL_ZES_THROTTLE_HW_RANGE 0x40u

typedef struct hcl_ze_device_properties_t { /* ze_device_properties_t */
    int stype;
    void *pNext;
    int type;
    uint32_t vendorId, deviceId, flags, subdeviceId, coreClockRate;
    uint64_t maxMemAllocSize;
    uint32_t maxHardwareContexts, maxCommandQueuePriority, numThreadsPerEU, physicalEUSimdWidth, numEUsPerSubslice,
        numSubslicesPerSlice, numSlices;
    uint64_t timerResolution;
    uint32_t timestampValidBits, kernelTimestampValidBits;
    uint8_t uuid[16];
    char name[256];
} hcl_ze_device_properties_t;
typedef struct hcl_zes_device_properties_t { /* zes_device_properties_t */
    int stype;
    void *pNext;
    hcl_ze_device_properties_t core;
    uint32_t numSubdevices;
    char serialNumber[64], boardNumber[64], brandName[64], modelName[64], vendorName[64], driverVersion[64];
} hcl_zes_device_properties_t;
typedef struct hcl_zes_power_energy_counter_t { /* zes_power_energy_counter_t */
    uint64_t energy;                            /* uJ */
    uint64_t timestamp;                         /* us */
} hcl_zes_power_energy_counter_t;
typedef struct hcl_zes_power_sustained_limit_t { /* zes_power_sustained_limit_t */
    uint8_t enabled;                             /* ze_bool_t */
    int32_t power;                               /* mW */
    int32_t interval;
} hcl_zes_power_sustained_limit_t;
typedef struct hcl_zes_freq_properties_t { /* zes_freq_properties_t */
    int stype;
    void *pNext;
    int type; /* zes_freq_domain_t */
    uint8_t onSubdevice;
    uint32_t subdeviceId;
    uint8_t canControl, isThrottleEventSupported;
    double min, max;
} hcl_zes_freq_properties_t;
typedef struct hcl_zes_freq_state_t { /* zes_freq_state_t */
    int stype;
    const void *pNext;
    double currentVoltage, request, tdp, efficient, actual; /* MHz */
    uint32_t throttleReasons;
} hcl_zes_freq_state_t;
typedef struct hcl_zes_temp_properties_t { /* zes_temp_properties_t */
    int stype;
    void *pNext;
    int type; /* zes_temp_sensors_t */
    uint8_t onSubdevice;
    uint32_t subdeviceId;
    double maxTemperature;
    uint8_t isCriticalTempSupported, isThreshold1Supported, isThreshold2Supported;
} hcl_zes_temp_properties_t;
typedef struct hcl_zes_mem_state_t { /* zes_mem_state_t */
    int stype;
    const void *pNext;
    int health;
    uint64_t free, size;
} hcl_zes_mem_state_t;
typedef struct hcl_zes_pci_state_t { /* zes_pci_state_t */
    int stype;
    const void *pNext;
    int status;
    uint32_t qualityIssues, stabilityIssues;
    struct {
        int32_t gen, width;
        int64_t maxBandwidth;
    } speed;
} hcl_zes_pci_state_t;

#ifndef HCL_SYSMAN_TYPES_ONLY /* test/sysman_decls.c includes the real zes_api.h beside this */
hcl_ze_result_t zesInit(uint32_t flags);
hcl_ze_result_t zesDriverGet(uint32_t *pCount, hcl_zes_driver_handle_t *phDrivers);
hcl_ze_result_t zesDeviceGet(hcl_zes_driver_handle_t hDriver, uint32_t *pCount, hcl_zes_device_handle_t *phDevices);
hcl_ze_result_t zesDeviceGetProperties(hcl_zes_device_handle_t hDevice, hcl_zes_device_properties_t *pProperties);
hcl_ze_result_t zesDeviceGetCardPowerDomain(hcl_zes_device_handle_t hDevice, hcl_zes_pwr_handle_t *phPower);
hcl_ze_result_t zesDeviceEnumPowerDomains(hcl_zes_device_handle_t hDevice, uint32_t *pCount,
                                          hcl_zes_pwr_handle_t *phPower);
hcl_ze_result_t zesPowerGetEnergyCounter(hcl_zes_pwr_handle_t hPower, hcl_zes_power_energy_counter_t *pEnergy);
hcl_ze_result_t zesPowerGetLimits(hcl_zes_pwr_handle_t hPower, hcl_zes_power_sustained_limit_t *pSustained,
                                  void *pBurst, void *pPeak);
hcl_ze_result_t zesDeviceEnumFrequencyDomains(hcl_zes_device_handle_t hDevice, uint32_t *pCount,
                                              hcl_zes_freq_handle_t *phFrequency);
hcl_ze_result_t zesFrequencyGetProperties(hcl_zes_freq_handle_t hFrequency, hcl_zes_freq_properties_t *pProperties);
hcl_ze_result_t zesFrequencyGetState(hcl_zes_freq_handle_t hFrequency, hcl_zes_freq_state_t *pState);
hcl_ze_result_t zesDeviceEnumTemperatureSensors(hcl_zes_device_handle_t hDevice, uint32_t *pCount,
                                                hcl_zes_temp_handle_t *phTemperature);
hcl_ze_result_t zesTemperatureGetProperties(hcl_zes_temp_handle_t hTemperature, hcl_zes_temp_properties_t *pProperties);
hcl_ze_result_t zesTemperatureGetState(hcl_zes_temp_handle_t hTemperature, double *pTemperature);
hcl_ze_result_t zesDeviceEnumMemoryModules(hcl_zes_device_handle_t hDevice, uint32_t *pCount,
                                           hcl_zes_mem_handle_t *phMemory);
hcl_ze_result_t zesMemoryGetState(hcl_zes_mem_handle_t hMemory, hcl_zes_mem_state_t *pState);
hcl_ze_result_t zesDevicePciGetState(hcl_zes_device_handle_t hDevice, hcl_zes_pci_state_t *pState);
#endif

#endif /* HCL_TELEMETRY_VENDOR_SYSMAN_H */
