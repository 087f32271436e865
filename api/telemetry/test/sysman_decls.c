/* ctest telemetry-sysman-decls: the Sysman structs that api/telemetry/vendor_sysman.h declares by hand have the
 * layout of the real zes_api.h (built only where the Level Zero headers are installed). Compile time: the program
 * only says so. */
#define HCL_SYSMAN_TYPES_ONLY 1
#include "vendor_sysman.h"

#include <level_zero/zes_api.h>

#include <stddef.h>
#include <stdio.h>

#define SAME(mine, real, field)                                                                                        \
    _Static_assert(offsetof(mine, field) == offsetof(real, field), #real "." #field " moved");                         \
    _Static_assert(sizeof(((mine *)0)->field) == sizeof(((real *)0)->field), #real "." #field " resized")
#define SAME_SIZE(mine, real) _Static_assert(sizeof(mine) == sizeof(real), #real " has another size")

SAME_SIZE(hcl_ze_device_properties_t, ze_device_properties_t);
SAME(hcl_ze_device_properties_t, ze_device_properties_t, uuid);
SAME(hcl_ze_device_properties_t, ze_device_properties_t, name);
SAME_SIZE(hcl_zes_device_properties_t, zes_device_properties_t);
SAME(hcl_zes_device_properties_t, zes_device_properties_t, core);
SAME(hcl_zes_device_properties_t, zes_device_properties_t, driverVersion);
SAME_SIZE(hcl_zes_power_energy_counter_t, zes_power_energy_counter_t);
SAME(hcl_zes_power_energy_counter_t, zes_power_energy_counter_t, timestamp);
SAME_SIZE(hcl_zes_power_sustained_limit_t, zes_power_sustained_limit_t);
SAME(hcl_zes_power_sustained_limit_t, zes_power_sustained_limit_t, enabled);
SAME(hcl_zes_power_sustained_limit_t, zes_power_sustained_limit_t, power);
SAME_SIZE(hcl_zes_freq_properties_t, zes_freq_properties_t);
SAME(hcl_zes_freq_properties_t, zes_freq_properties_t, type);
SAME(hcl_zes_freq_properties_t, zes_freq_properties_t, max);
SAME_SIZE(hcl_zes_freq_state_t, zes_freq_state_t);
SAME(hcl_zes_freq_state_t, zes_freq_state_t, actual);
SAME(hcl_zes_freq_state_t, zes_freq_state_t, throttleReasons);
SAME_SIZE(hcl_zes_temp_properties_t, zes_temp_properties_t);
SAME(hcl_zes_temp_properties_t, zes_temp_properties_t, type);
SAME_SIZE(hcl_zes_mem_state_t, zes_mem_state_t);
SAME(hcl_zes_mem_state_t, zes_mem_state_t, free);
SAME(hcl_zes_mem_state_t, zes_mem_state_t, size);
SAME_SIZE(hcl_zes_pci_state_t, zes_pci_state_t);
SAME(hcl_zes_pci_state_t, zes_pci_state_t, speed);
_Static_assert(HCL_ZES_STYPE_DEVICE_PROPERTIES == ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES, "stype");
_Static_assert(HCL_ZES_STYPE_FREQ_PROPERTIES == ZES_STRUCTURE_TYPE_FREQ_PROPERTIES, "stype");
_Static_assert(HCL_ZES_STYPE_TEMP_PROPERTIES == ZES_STRUCTURE_TYPE_TEMP_PROPERTIES, "stype");
_Static_assert(HCL_ZES_STYPE_PCI_STATE == ZES_STRUCTURE_TYPE_PCI_STATE, "stype");
_Static_assert(HCL_ZES_STYPE_FREQ_STATE == ZES_STRUCTURE_TYPE_FREQ_STATE, "stype");
_Static_assert(HCL_ZES_STYPE_MEM_STATE == ZES_STRUCTURE_TYPE_MEM_STATE, "stype");
_Static_assert(HCL_ZE_STYPE_DEVICE_PROPERTIES == ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES, "stype");
_Static_assert(HCL_ZES_FREQ_DOMAIN_MEMORY == ZES_FREQ_DOMAIN_MEMORY, "domain");
_Static_assert(HCL_ZES_TEMP_SENSORS_GPU == ZES_TEMP_SENSORS_GPU, "sensor");
_Static_assert(HCL_ZES_THROTTLE_THERMAL_LIMIT == ZES_FREQ_THROTTLE_REASON_FLAG_THERMAL_LIMIT, "throttle bit");
_Static_assert(HCL_ZES_THROTTLE_HW_RANGE == ZES_FREQ_THROTTLE_REASON_FLAG_HW_RANGE, "throttle bit");

int main(void) {
    printf("vendor_sysman.h: the struct layouts and constants match zes_api.h\n");
    return 0;
}
