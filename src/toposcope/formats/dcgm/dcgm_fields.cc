// formats/dcgm/dcgm_fields: the built-in DCGM field catalog and the `dcgmi dmon -l` reader.
//
// The table lists every field of the real `dcgmi dmon -l` output of DCGM 3.1.8 (ids, long and short
// names exactly as printed there), the DCGM 4.x per-link NVLink TX/RX bandwidth fields 825-843 and
// 879-897 named in FORMAT_NOTES (their long names are ours, in dmon's style), and for each the
// DCGM_FI_* constant of dcgm_fields.h (DCGM 3.x spelling; 4.6 renames as aliases). Units come from
// FORMAT_NOTES and the dcgm-exporter CSV help texts; where neither says, the unit follows DCGM's field
// description (MHz clocks, MiB memory, counts for error counters) or is left empty.
#include "toposcope/formats/dcgm/dcgm_fields.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

using enum FieldValueType;
using enum FieldClass;

struct Row {
  int id;
  const char* long_name;
  const char* short_name;
  const char* constant;
  const char* alias;  // "" when none
  const char* unit;
  FieldValueType type;
  FieldClass field_class;
  int dmon_width;
  bool in_dmon_list;
};

// id, long name, short name, DCGM_FI_ constant, aliases, unit, type, class, dmon width, in dmon -l.
const Row kRows[] = {
    {1, "driver_version", "DRVER", "DCGM_FI_DRIVER_VERSION", "", "", kString, kIdentity, 0, true},
    {2, "nvml_version", "NVVER", "DCGM_FI_NVML_VERSION", "", "", kString, kIdentity, 0, true},
    {3, "process_name", "PRNAM", "DCGM_FI_PROCESS_NAME", "", "", kString, kIdentity, 0, true},
    {4, "device_count", "DVCNT", "DCGM_FI_DEV_COUNT", "", "", kInt64, kIdentity, 0, true},
    {5, "cuda_driver_version", "CDVER", "DCGM_FI_CUDA_DRIVER_VERSION", "", "", kInt64, kIdentity, 0, true},
    {50, "name", "DVNAM", "DCGM_FI_DEV_NAME", "", "", kString, kIdentity, 0, true},
    {51, "brand", "DVBRN", "DCGM_FI_DEV_BRAND", "", "", kString, kIdentity, 0, true},
    {52, "nvml_index", "NVIDX", "DCGM_FI_DEV_NVML_INDEX", "", "", kInt64, kIdentity, 0, true},
    {53, "serial_number", "SRNUM", "DCGM_FI_DEV_SERIAL", "", "", kString, kIdentity, 0, true},
    {54, "uuid", "UUID#", "DCGM_FI_DEV_UUID", "", "", kString, kIdentity, 0, true},
    {55, "minor_number", "MNNUM", "DCGM_FI_DEV_MINOR_NUMBER", "", "", kInt64, kIdentity, 0, true},
    {56, "oem_inforom_version", "OEMVR", "DCGM_FI_DEV_OEM_INFOROM_VER", "", "", kString, kIdentity, 0, true},
    {57, "pci_busid", "PCBID", "DCGM_FI_DEV_PCI_BUSID", "", "", kString, kIdentity, 0, true},
    {58, "pci_combined_id", "PCCID", "DCGM_FI_DEV_PCI_COMBINED_ID", "", "", kInt64, kIdentity, 0, true},
    {59, "pci_subsys_id", "PCSID", "DCGM_FI_DEV_PCI_SUBSYS_ID", "", "", kInt64, kIdentity, 0, true},
    {60, "system_topology_pci", "STVCI", "DCGM_FI_GPU_TOPOLOGY_PCI", "", "", kBinary, kIdentity, 0, true},
    {61, "system_topology_nvlink", "STNVL", "DCGM_FI_GPU_TOPOLOGY_NVLINK", "", "", kBinary, kIdentity, 0, true},
    {62, "system_affinity", "SYSAF", "DCGM_FI_GPU_TOPOLOGY_AFFINITY", "", "", kBinary, kIdentity, 0, true},
    {63, "cuda_compute_capability", "DVCCC", "DCGM_FI_DEV_CUDA_COMPUTE_CAPABILITY", "", "", kInt64, kIdentity, 0, true},
    {65, "compute_mode", "CMMOD", "DCGM_FI_DEV_COMPUTE_MODE", "", "", kInt64, kIdentity, 0, true},
    {66, "persistance_mode", "PMMOD", "DCGM_FI_DEV_PERSISTENCE_MODE", "", "", kInt64, kIdentity, 0, true},
    {67, "mig_mode", "MGMOD", "DCGM_FI_DEV_MIG_MODE", "", "", kInt64, kIdentity, 0, true},
    {68, "cuda_visible_devices", "CUVID", "DCGM_FI_DEV_CUDA_VISIBLE_DEVICES_STR", "", "", kString, kIdentity, 0, true},
    {69, "mig_max_slices", "MIGMS", "DCGM_FI_DEV_MIG_MAX_SLICES", "", "", kInt64, kIdentity, 0, true},
    {70, "cpu_affinity_0", "CAFF0", "DCGM_FI_DEV_CPU_AFFINITY_0", "", "", kInt64, kIdentity, 0, true},
    {71, "cpu_affinity_1", "CAFF1", "DCGM_FI_DEV_CPU_AFFINITY_1", "", "", kInt64, kIdentity, 0, true},
    {72, "cpu_affinity_2", "CAFF2", "DCGM_FI_DEV_CPU_AFFINITY_2", "", "", kInt64, kIdentity, 0, true},
    {73, "cpu_affinity_3", "CAFF3", "DCGM_FI_DEV_CPU_AFFINITY_3", "", "", kInt64, kIdentity, 0, true},
    {74, "cc_mode", "CCMOD", "DCGM_FI_DEV_CC_MODE", "", "", kInt64, kIdentity, 0, true},
    {75, "mig_attributes", "MIGATT", "DCGM_FI_DEV_MIG_ATTRIBUTES", "", "", kBinary, kIdentity, 0, true},
    {76, "mig_gi_info", "MIGGIINFO", "DCGM_FI_DEV_MIG_GI_INFO", "", "", kBinary, kIdentity, 0, true},
    {77, "mig_ci_info", "MIGCIINFO", "DCGM_FI_DEV_MIG_CI_INFO", "", "", kBinary, kIdentity, 0, true},
    {80, "ecc_inforom_version", "EIVER", "DCGM_FI_DEV_ECC_INFOROM_VER", "", "", kString, kIdentity, 0, true},
    {81, "power_inforom_version", "PIVER", "DCGM_FI_DEV_POWER_INFOROM_VER", "", "", kString, kIdentity, 0, true},
    {82, "inforom_image_version", "IIVER", "DCGM_FI_DEV_INFOROM_IMAGE_VER", "", "", kString, kIdentity, 0, true},
    {83, "inforom_config_checksum", "CCSUM", "DCGM_FI_DEV_INFOROM_CONFIG_CHECK", "", "", kInt64, kIdentity, 0, true},
    {84, "inforom_config_valid", "ICVLD", "DCGM_FI_DEV_INFOROM_CONFIG_VALID", "", "", kInt64, kIdentity, 0, true},
    {85, "vbios_version", "VBVER", "DCGM_FI_DEV_VBIOS_VERSION", "", "", kString, kIdentity, 0, true},
    {90, "bar1_total", "B1TTL", "DCGM_FI_DEV_BAR1_TOTAL", "", "MiB", kInt64, kMemory, 0, true},
    {91, "sync_boost", "SYBST", "DCGM_FI_SYNC_BOOST", "", "", kInt64, kClock, 0, true},
    {92, "bar1_used", "B1USE", "DCGM_FI_DEV_BAR1_USED", "", "MiB", kInt64, kMemory, 0, true},
    {93, "bar1_free", "B1FRE", "DCGM_FI_DEV_BAR1_FREE", "", "MiB", kInt64, kMemory, 0, true},
    {100, "sm_clock", "SMCLK", "DCGM_FI_DEV_SM_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {101, "memory_clock", "MMCLK", "DCGM_FI_DEV_MEM_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {102, "video_clock", "VICLK", "DCGM_FI_DEV_VIDEO_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {110, "sm_app_clock", "SACLK", "DCGM_FI_DEV_APP_SM_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {111, "mem_app_clock", "MACLK", "DCGM_FI_DEV_APP_MEM_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {112, "current_clock_throttle_reasons", "DVCCTR", "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", "bitmask", kInt64, kThermalPower, 0, true},
    {113, "sm_max_clock", "SMMAX", "DCGM_FI_DEV_MAX_SM_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {114, "memory_max_clock", "MMMAX", "DCGM_FI_DEV_MAX_MEM_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {115, "video_max_clock", "VIMAX", "DCGM_FI_DEV_MAX_VIDEO_CLOCK", "", "MHz", kInt64, kClock, 0, true},
    {120, "autoboost", "ATBST", "DCGM_FI_DEV_AUTOBOOST", "", "", kInt64, kClock, 0, true},
    {130, "supported_clocks", "SPCLK", "DCGM_FI_DEV_SUPPORTED_CLOCKS", "", "", kBinary, kClock, 0, true},
    {140, "memory_temp", "MMTMP", "DCGM_FI_DEV_MEMORY_TEMP", "", "C", kInt64, kThermalPower, 0, true},
    {150, "gpu_temp", "TMPTR", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_TEMP_CELSIUS", "C", kInt64, kThermalPower, 0, true},
    {151, "gpu_mem_max_op_temp", "GMMOT", "DCGM_FI_DEV_MEM_MAX_OP_TEMP", "", "C", kInt64, kThermalPower, 0, true},
    {152, "gpu_max_op_temp", "GGMOT", "DCGM_FI_DEV_GPU_MAX_OP_TEMP", "", "C", kInt64, kThermalPower, 0, true},
    {155, "power_usage", "POWER", "DCGM_FI_DEV_POWER_USAGE", "", "W", kDouble, kThermalPower, 0, true},
    {156, "total_energy_consumption", "TOTEC", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "", "mJ", kInt64, kThermalPower, 0, true},
    {158, "slowdown_temp", "SDTMP", "DCGM_FI_DEV_SLOWDOWN_TEMP", "", "C", kInt64, kThermalPower, 0, true},
    {159, "shutdown_temp", "SHTMP", "DCGM_FI_DEV_SHUTDOWN_TEMP", "", "C", kInt64, kThermalPower, 0, true},
    {160, "power_management_limit", "PMLMT", "DCGM_FI_DEV_POWER_MGMT_LIMIT", "", "W", kDouble, kThermalPower, 0, true},
    {161, "power_management_limit_min", "PMMIN", "DCGM_FI_DEV_POWER_MGMT_LIMIT_MIN", "", "W", kDouble, kThermalPower, 0, true},
    {162, "power_management_limit_max", "PMMAX", "DCGM_FI_DEV_POWER_MGMT_LIMIT_MAX", "", "W", kDouble, kThermalPower, 0, true},
    {163, "power_management_limit_default", "PMDEF", "DCGM_FI_DEV_POWER_MGMT_LIMIT_DEF", "", "W", kDouble, kThermalPower, 0, true},
    {164, "enforced_power_limit", "EPLMT", "DCGM_FI_DEV_ENFORCED_POWER_LIMIT", "", "W", kDouble, kThermalPower, 0, true},
    {190, "pstate", "PSTAT", "DCGM_FI_DEV_PSTATE", "", "", kInt64, kThermalPower, 0, true},
    {191, "fan_speed", "FANSP", "DCGM_FI_DEV_FAN_SPEED", "", "%", kInt64, kThermalPower, 0, true},
    {200, "pcie_tx_throughput", "TXTPT", "DCGM_FI_DEV_PCIE_TX_THROUGHPUT", "", "KB/s", kInt64, kCommunication, 0, true},
    {201, "pcie_rx_throughput", "RXTPT", "DCGM_FI_DEV_PCIE_RX_THROUGHPUT", "", "KB/s", kInt64, kCommunication, 0, true},
    {202, "pcie_replay_counter", "RPCTR", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "", "count", kInt64, kHealth, 0, true},
    {203, "gpu_utilization", "GPUTL", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_UTIL_RATIO", "%", kInt64, kCompute, 0, true},
    {204, "mem_copy_utilization", "MCUTL", "DCGM_FI_DEV_MEM_COPY_UTIL", "", "%", kInt64, kMemory, 0, true},
    {205, "accounting_data", "ACCDT", "DCGM_FI_DEV_ACCOUNTING_DATA", "", "", kBinary, kOther, 0, true},
    {206, "enc_utilization", "ECUTL", "DCGM_FI_DEV_ENC_UTIL", "", "%", kInt64, kCompute, 0, true},
    {207, "dec_utilization", "DCUTL", "DCGM_FI_DEV_DEC_UTIL", "", "%", kInt64, kCompute, 0, true},
    {210, "mem_util_samples", "MUSAM", "DCGM_FI_DEV_MEM_COPY_UTIL_SAMPLES", "", "%", kDouble, kMemory, 0, true},
    {211, "gpu_util_samples", "GUSAM", "DCGM_FI_DEV_GPU_UTIL_SAMPLES", "", "%", kDouble, kCompute, 0, true},
    {220, "graphics_pids", "GPIDS", "DCGM_FI_DEV_GRAPHICS_PIDS", "", "", kBinary, kOther, 0, true},
    {221, "compute_pids", "CMPID", "DCGM_FI_DEV_COMPUTE_PIDS", "", "", kBinary, kOther, 0, true},
    {230, "xid_errors", "XIDER", "DCGM_FI_DEV_XID_ERRORS", "", "", kInt64, kHealth, 0, true},
    {235, "pcie_max_link_gen", "PCIMG", "DCGM_FI_DEV_PCIE_MAX_LINK_GEN", "", "", kInt64, kIdentity, 0, true},
    {236, "pcie_max_link_width", "PCIMW", "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", "", "", kInt64, kIdentity, 0, true},
    {237, "pcie_link_gen", "PCILG", "DCGM_FI_DEV_PCIE_LINK_GEN", "", "", kInt64, kIdentity, 0, true},
    {238, "pcie_link_width", "PCILW", "DCGM_FI_DEV_PCIE_LINK_WIDTH", "", "", kInt64, kIdentity, 0, true},
    {240, "power_violation", "PVIOL", "DCGM_FI_DEV_POWER_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {241, "thermal_violation", "TVIOL", "DCGM_FI_DEV_THERMAL_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {242, "sync_boost_violation", "SBVIO", "DCGM_FI_DEV_SYNC_BOOST_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {243, "board_limit_violation", "BLVIO", "DCGM_FI_DEV_BOARD_LIMIT_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {244, "low_util_violation", "LUVIO", "DCGM_FI_DEV_LOW_UTIL_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {245, "reliability_violation", "RVIOL", "DCGM_FI_DEV_RELIABILITY_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {246, "app_clock_violation", "TAPCV", "DCGM_FI_DEV_TOTAL_APP_CLOCKS_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {247, "base_clock_violation", "TAPBC", "DCGM_FI_DEV_TOTAL_BASE_CLOCKS_VIOLATION", "", "ns", kInt64, kThermalPower, 0, true},
    {250, "fb_total", "FBTTL", "DCGM_FI_DEV_FB_TOTAL", "", "MiB", kInt64, kMemory, 0, true},
    {251, "fb_free", "FBFRE", "DCGM_FI_DEV_FB_FREE", "", "MiB", kInt64, kMemory, 0, true},
    {252, "fb_used", "FBUSD", "DCGM_FI_DEV_FB_USED", "", "MiB", kInt64, kMemory, 0, true},
    {253, "fb_resv", "FBRSV", "DCGM_FI_DEV_FB_RESERVED", "", "MiB", kInt64, kMemory, 0, true},
    {254, "fb_USDP", "FBUSP", "DCGM_FI_DEV_FB_USED_PERCENT", "", "ratio", kDouble, kMemory, 0, true},
    {300, "ecc", "ECCUR", "DCGM_FI_DEV_ECC_CURRENT", "", "", kInt64, kHealth, 0, true},
    {301, "ecc_pending", "ECPEN", "DCGM_FI_DEV_ECC_PENDING", "", "", kInt64, kHealth, 0, true},
    {310, "ecc_sbe_volatile_total", "ESVTL", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {311, "ecc_dbe_volatile_total", "EDVTL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {312, "ecc_sbe_aggregate_total", "ESATL", "DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {313, "ecc_dbe_aggregate_total", "EDATL", "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {314, "ecc_sbe_volatile_l1", "ESVL1", "DCGM_FI_DEV_ECC_SBE_VOL_L1", "", "count", kInt64, kHealth, 0, true},
    {315, "ecc_dbe_volatile_l1", "EDVL1", "DCGM_FI_DEV_ECC_DBE_VOL_L1", "", "count", kInt64, kHealth, 0, true},
    {316, "ecc_sbe_volatile_l2", "ESVL2", "DCGM_FI_DEV_ECC_SBE_VOL_L2", "", "count", kInt64, kHealth, 0, true},
    {317, "ecc_dbe_volatile_l2", "EDVL2", "DCGM_FI_DEV_ECC_DBE_VOL_L2", "", "count", kInt64, kHealth, 0, true},
    {318, "ecc_sbe_volatile_device", "ESVDV", "DCGM_FI_DEV_ECC_SBE_VOL_DEV", "", "count", kInt64, kHealth, 0, true},
    {319, "ecc_dbe_volatile_device", "EDVDV", "DCGM_FI_DEV_ECC_DBE_VOL_DEV", "", "count", kInt64, kHealth, 0, true},
    {320, "ecc_sbe_volatile_register", "ESVRG", "DCGM_FI_DEV_ECC_SBE_VOL_REG", "", "count", kInt64, kHealth, 0, true},
    {321, "ecc_dbe_volatile_register", "EDVRG", "DCGM_FI_DEV_ECC_DBE_VOL_REG", "", "count", kInt64, kHealth, 0, true},
    {322, "ecc_sbe_volatile_texture", "ESVTX", "DCGM_FI_DEV_ECC_SBE_VOL_TEX", "", "count", kInt64, kHealth, 0, true},
    {323, "ecc_dbe_volatile_texture", "EDVTX", "DCGM_FI_DEV_ECC_DBE_VOL_TEX", "", "count", kInt64, kHealth, 0, true},
    {324, "ecc_sbe_aggregate_l1", "ESAL1", "DCGM_FI_DEV_ECC_SBE_AGG_L1", "", "count", kInt64, kHealth, 0, true},
    {325, "ecc_dbe_aggregate_l1", "EDAL1", "DCGM_FI_DEV_ECC_DBE_AGG_L1", "", "count", kInt64, kHealth, 0, true},
    {326, "ecc_sbe_aggregate_l2", "ESAL2", "DCGM_FI_DEV_ECC_SBE_AGG_L2", "", "count", kInt64, kHealth, 0, true},
    {327, "ecc_dbe_aggregate_l2", "EDAL2", "DCGM_FI_DEV_ECC_DBE_AGG_L2", "", "count", kInt64, kHealth, 0, true},
    {328, "ecc_sbe_aggregate_device", "ESADV", "DCGM_FI_DEV_ECC_SBE_AGG_DEV", "", "count", kInt64, kHealth, 0, true},
    {329, "ecc_dbe_aggregate_device", "EDADV", "DCGM_FI_DEV_ECC_DBE_AGG_DEV", "", "count", kInt64, kHealth, 0, true},
    {330, "ecc_sbe_aggregate_register", "ESARG", "DCGM_FI_DEV_ECC_SBE_AGG_REG", "", "count", kInt64, kHealth, 0, true},
    {331, "ecc_dbe_aggregate_register", "EDARG", "DCGM_FI_DEV_ECC_DBE_AGG_REG", "", "count", kInt64, kHealth, 0, true},
    {332, "ecc_sbe_aggregate_texture", "ESATX", "DCGM_FI_DEV_ECC_SBE_AGG_TEX", "", "count", kInt64, kHealth, 0, true},
    {333, "ecc_dbe_aggregate_texture", "EDATX", "DCGM_FI_DEV_ECC_DBE_AGG_TEX", "", "count", kInt64, kHealth, 0, true},
    {390, "retired_pages_sbe", "RPSBE", "DCGM_FI_DEV_RETIRED_SBE", "", "count", kInt64, kHealth, 0, true},
    {391, "retired_pages_dbe", "RPDBE", "DCGM_FI_DEV_RETIRED_DBE", "", "count", kInt64, kHealth, 0, true},
    {392, "retired_pages_pending", "RPPEN", "DCGM_FI_DEV_RETIRED_PENDING", "", "count", kInt64, kHealth, 0, true},
    {393, "uncorrectable_remapped_rows", "URMPS", "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "", "count", kInt64, kHealth, 0, true},
    {394, "correctable_remapped_rows", "CRMPS", "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "", "count", kInt64, kHealth, 0, true},
    {395, "row_remap_failure", "RRF", "DCGM_FI_DEV_ROW_REMAP_FAILURE", "", "", kInt64, kHealth, 0, true},
    {396, "row_remap_pending", "RRP", "DCGM_FI_DEV_ROW_REMAP_PENDING", "", "", kInt64, kHealth, 0, true},
    {400, "nvlink_flit_crc_error_count_l0", "NFEL0", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L0", "", "count", kInt64, kHealth, 0, true},
    {401, "nvlink_flit_crc_error_count_l1", "NFEL1", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L1", "", "count", kInt64, kHealth, 0, true},
    {402, "nvlink_flit_crc_error_count_l2", "NFEL2", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L2", "", "count", kInt64, kHealth, 0, true},
    {403, "nvlink_flit_crc_error_count_l3", "NFEL3", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L3", "", "count", kInt64, kHealth, 0, true},
    {404, "nvlink_flit_crc_error_count_l4", "NFEL4", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L4", "", "count", kInt64, kHealth, 0, true},
    {405, "nvlink_flit_crc_error_count_l5", "NFEL5", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L5", "", "count", kInt64, kHealth, 0, true},
    {406, "nvlink_flit_crc_error_count_l12", "NFEL12", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L12", "", "count", kInt64, kHealth, 0, true},
    {407, "nvlink_flit_crc_error_count_l13", "NFEL13", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L13", "", "count", kInt64, kHealth, 0, true},
    {408, "nvlink_flit_crc_error_count_l14", "NFEL14", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L14", "", "count", kInt64, kHealth, 0, true},
    {409, "nvlink_flit_crc_error_count_total", "NFELT", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {410, "nvlink_data_crc_error_count_l0", "NDEL0", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0", "", "count", kInt64, kHealth, 0, true},
    {411, "nvlink_data_crc_error_count_l1", "NDEL1", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L1", "", "count", kInt64, kHealth, 0, true},
    {412, "nvlink_data_crc_error_count_l2", "NDEL2", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L2", "", "count", kInt64, kHealth, 0, true},
    {413, "nvlink_data_crc_error_count_l3", "NDEL3", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L3", "", "count", kInt64, kHealth, 0, true},
    {414, "nvlink_data_crc_error_count_l4", "NDEL4", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L4", "", "count", kInt64, kHealth, 0, true},
    {415, "nvlink_data_crc_error_count_l5", "NDEL5", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L5", "", "count", kInt64, kHealth, 0, true},
    {416, "nvlink_data_crc_error_count_l12", "NDEL12", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L12", "", "count", kInt64, kHealth, 0, true},
    {417, "nvlink_data_crc_error_count_l13", "NDEL13", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L13", "", "count", kInt64, kHealth, 0, true},
    {418, "nvlink_data_crc_error_count_l14", "NDEL14", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L14", "", "count", kInt64, kHealth, 0, true},
    {419, "nvlink_data_crc_error_count_total", "NDELT", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {420, "nvlink_replay_error_count_l0", "NREL0", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L0", "", "count", kInt64, kHealth, 0, true},
    {421, "nvlink_replay_error_count_l1", "NREL1", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L1", "", "count", kInt64, kHealth, 0, true},
    {422, "nvlink_replay_error_count_l2", "NREL2", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L2", "", "count", kInt64, kHealth, 0, true},
    {423, "nvlink_replay_error_count_l3", "NREL3", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L3", "", "count", kInt64, kHealth, 0, true},
    {424, "nvlink_replay_error_count_l4", "NREL4", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L4", "", "count", kInt64, kHealth, 0, true},
    {425, "nvlink_replay_error_count_l5", "NREL5", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L5", "", "count", kInt64, kHealth, 0, true},
    {426, "nvlink_replay_error_count_l12", "NREL12", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L12", "", "count", kInt64, kHealth, 0, true},
    {427, "nvlink_replay_error_count_l13", "NREL13", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L13", "", "count", kInt64, kHealth, 0, true},
    {428, "nvlink_replay_error_count_l14", "NREL14", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L14", "", "count", kInt64, kHealth, 0, true},
    {429, "nvlink_replay_error_count_total", "NRELT", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {430, "nvlink_recovery_error_count_l0", "NRCL0", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L0", "", "count", kInt64, kHealth, 0, true},
    {431, "nvlink_recovery_error_count_l1", "NRCL1", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L1", "", "count", kInt64, kHealth, 0, true},
    {432, "nvlink_recovery_error_count_l2", "NRCL2", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L2", "", "count", kInt64, kHealth, 0, true},
    {433, "nvlink_recovery_error_count_l3", "NRCL3", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L3", "", "count", kInt64, kHealth, 0, true},
    {434, "nvlink_recovery_error_count_l4", "NRCL4", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L4", "", "count", kInt64, kHealth, 0, true},
    {435, "nvlink_recovery_error_count_l5", "NRCL5", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L5", "", "count", kInt64, kHealth, 0, true},
    {436, "nvlink_recovery_error_count_l12", "NRCL12", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L12", "", "count", kInt64, kHealth, 0, true},
    {437, "nvlink_recovery_error_count_l13", "NRCL13", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L13", "", "count", kInt64, kHealth, 0, true},
    {438, "nvlink_recovery_error_count_l14", "NRCL14", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L14", "", "count", kInt64, kHealth, 0, true},
    {439, "nvlink_recovery_error_count_total", "NRCLT", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "", "count", kInt64, kHealth, 0, true},
    {440, "nvlink_bandwidth_l0", "NBWL0", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L0", "", "MB/s", kInt64, kCommunication, 0, true},
    {441, "nvlink_bandwidth_l1", "NBWL1", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L1", "", "MB/s", kInt64, kCommunication, 0, true},
    {442, "nvlink_bandwidth_l2", "NBWL2", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L2", "", "MB/s", kInt64, kCommunication, 0, true},
    {443, "nvlink_bandwidth_l3", "NBWL3", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L3", "", "MB/s", kInt64, kCommunication, 0, true},
    {444, "nvlink_bandwidth_l4", "NBWL4", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L4", "", "MB/s", kInt64, kCommunication, 0, true},
    {445, "nvlink_bandwidth_l5", "NBWL5", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L5", "", "MB/s", kInt64, kCommunication, 0, true},
    {446, "nvlink_bandwidth_l12", "NBWL12", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L12", "", "MB/s", kInt64, kCommunication, 0, true},
    {447, "nvlink_bandwidth_l13", "NBWL13", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L13", "", "MB/s", kInt64, kCommunication, 0, true},
    {448, "nvlink_bandwidth_l14", "NBWL14", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L14", "", "MB/s", kInt64, kCommunication, 0, true},
    {449, "nvlink_bandwidth_total", "NBWLT", "DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", "DCGM_FI_DEV_NVLINK_THROUGHPUT_TOTAL", "MB/s", kInt64, kCommunication, 0, true},
    {450, "gpu_nvlink_errors", "GNVERR", "DCGM_FI_DEV_GPU_NVLINK_ERRORS", "", "", kBinary, kHealth, 0, true},
    {451, "nvlink_flit_crc_error_count_l6", "NFEL6", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L6", "", "count", kInt64, kHealth, 0, true},
    {452, "nvlink_flit_crc_error_count_l7", "NFEL7", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L7", "", "count", kInt64, kHealth, 0, true},
    {453, "nvlink_flit_crc_error_count_l8", "NFEL8", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L8", "", "count", kInt64, kHealth, 0, true},
    {454, "nvlink_flit_crc_error_count_l9", "NFEL9", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L9", "", "count", kInt64, kHealth, 0, true},
    {455, "nvlink_flit_crc_error_count_l10", "NFEL10", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L10", "", "count", kInt64, kHealth, 0, true},
    {456, "nvlink_flit_crc_error_count_l11", "NFEL11", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L11", "", "count", kInt64, kHealth, 0, true},
    {457, "nvlink_data_crc_error_count_l6", "NDEL6", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L6", "", "count", kInt64, kHealth, 0, true},
    {458, "nvlink_data_crc_error_count_l7", "NDEL7", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L7", "", "count", kInt64, kHealth, 0, true},
    {459, "nvlink_data_crc_error_count_l8", "NDEL8", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L8", "", "count", kInt64, kHealth, 0, true},
    {460, "nvlink_data_crc_error_count_l9", "NDEL9", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L9", "", "count", kInt64, kHealth, 0, true},
    {461, "nvlink_data_crc_error_count_l10", "NDEL10", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L10", "", "count", kInt64, kHealth, 0, true},
    {462, "nvlink_data_crc_error_count_l11", "NDEL11", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L11", "", "count", kInt64, kHealth, 0, true},
    {463, "nvlink_replay_error_count_l6", "NREL6", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L6", "", "count", kInt64, kHealth, 0, true},
    {464, "nvlink_replay_error_count_l7", "NREL7", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L7", "", "count", kInt64, kHealth, 0, true},
    {465, "nvlink_replay_error_count_l8", "NREL8", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L8", "", "count", kInt64, kHealth, 0, true},
    {466, "nvlink_replay_error_count_l9", "NREL9", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L9", "", "count", kInt64, kHealth, 0, true},
    {467, "nvlink_replay_error_count_l10", "NREL10", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L10", "", "count", kInt64, kHealth, 0, true},
    {468, "nvlink_replay_error_count_l11", "NREL11", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L11", "", "count", kInt64, kHealth, 0, true},
    {469, "nvlink_recovery_error_count_l6", "NRCL6", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L6", "", "count", kInt64, kHealth, 0, true},
    {470, "nvlink_recovery_error_count_l7", "NRCL7", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L7", "", "count", kInt64, kHealth, 0, true},
    {471, "nvlink_recovery_error_count_l8", "NRCL8", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L8", "", "count", kInt64, kHealth, 0, true},
    {472, "nvlink_recovery_error_count_l9", "NRCL9", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L9", "", "count", kInt64, kHealth, 0, true},
    {473, "nvlink_recovery_error_count_l10", "NRCL10", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L10", "", "count", kInt64, kHealth, 0, true},
    {474, "nvlink_recovery_error_count_l11", "NRCL11", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L11", "", "count", kInt64, kHealth, 0, true},
    {475, "nvlink_bandwidth_l6", "NBWL6", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L6", "", "MB/s", kInt64, kCommunication, 0, true},
    {476, "nvlink_bandwidth_l7", "NBWL7", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L7", "", "MB/s", kInt64, kCommunication, 0, true},
    {477, "nvlink_bandwidth_l8", "NBWL8", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L8", "", "MB/s", kInt64, kCommunication, 0, true},
    {478, "nvlink_bandwidth_l9", "NBWL9", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L9", "", "MB/s", kInt64, kCommunication, 0, true},
    {479, "nvlink_bandwidth_l10", "NBWL10", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L10", "", "MB/s", kInt64, kCommunication, 0, true},
    {480, "nvlink_bandwidth_l11", "NBWL11", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L11", "", "MB/s", kInt64, kCommunication, 0, true},
    {481, "nvlink_flit_crc_error_count_l15", "NFEL15", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L15", "", "count", kInt64, kHealth, 0, true},
    {482, "nvlink_flit_crc_error_count_l16", "NFEL16", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L16", "", "count", kInt64, kHealth, 0, true},
    {483, "nvlink_flit_crc_error_count_l17", "NFEL17", "DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_L17", "", "count", kInt64, kHealth, 0, true},
    {484, "nvlink_data_crc_error_count_l15", "NDEL15", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L15", "", "count", kInt64, kHealth, 0, true},
    {485, "nvlink_data_crc_error_count_l16", "NDEL16", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L16", "", "count", kInt64, kHealth, 0, true},
    {486, "nvlink_data_crc_error_count_l17", "NDEL17", "DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L17", "", "count", kInt64, kHealth, 0, true},
    {487, "nvlink_replay_error_count_l15", "NREL15", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L15", "", "count", kInt64, kHealth, 0, true},
    {488, "nvlink_replay_error_count_l16", "NREL16", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L16", "", "count", kInt64, kHealth, 0, true},
    {489, "nvlink_replay_error_count_l17", "NREL17", "DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_L17", "", "count", kInt64, kHealth, 0, true},
    {491, "nvlink_recovery_error_count_l15", "NRCL15", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L15", "", "count", kInt64, kHealth, 0, true},
    {492, "nvlink_recovery_error_count_l16", "NRCL16", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L16", "", "count", kInt64, kHealth, 0, true},
    {493, "nvlink_recovery_error_count_l17", "NRCL17", "DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_L17", "", "count", kInt64, kHealth, 0, true},
    {494, "nvlink_bandwidth_l15", "NBWL15", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L15", "", "MB/s", kInt64, kCommunication, 0, true},
    {495, "nvlink_bandwidth_l16", "NBWL16", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L16", "", "MB/s", kInt64, kCommunication, 0, true},
    {496, "nvlink_bandwidth_l17", "NBWL17", "DCGM_FI_DEV_NVLINK_BANDWIDTH_L17", "", "MB/s", kInt64, kCommunication, 0, true},
    {500, "virtualization_mode", "VMODE", "DCGM_FI_DEV_VIRTUAL_MODE", "", "", kInt64, kOther, 0, true},
    {501, "supported_type_info", "SPINF", "DCGM_FI_DEV_SUPPORTED_TYPE_INFO", "", "", kBinary, kOther, 0, true},
    {502, "creatable_vgpu_type_ids", "CGPID", "DCGM_FI_DEV_CREATABLE_VGPU_TYPE_IDS", "", "", kBinary, kOther, 0, true},
    {503, "active_vgpu_instance_ids", "VGIID", "DCGM_FI_DEV_VGPU_INSTANCE_IDS", "", "", kBinary, kOther, 0, true},
    {504, "vgpu_instance_utilizations", "VIUTL", "DCGM_FI_DEV_VGPU_UTILIZATIONS", "", "", kBinary, kOther, 0, true},
    {505, "vgpu_instance_per_process_utilization", "VIPPU", "DCGM_FI_DEV_VGPU_PER_PROCESS_UTILIZATION", "", "", kBinary, kOther, 0, true},
    {506, "enc_stats", "ENSTA", "DCGM_FI_DEV_ENC_STATS", "", "", kBinary, kOther, 0, true},
    {507, "fbc_stats", "FBCSTA", "DCGM_FI_DEV_FBC_STATS", "", "", kBinary, kOther, 0, true},
    {508, "fbc_sessions_info", "FBCINF", "DCGM_FI_DEV_FBC_SESSIONS_INFO", "", "", kBinary, kOther, 0, true},
    {509, "vgpu_type_ids", "VTID", "DCGM_FI_DEV_SUPPORTED_VGPU_TYPE_IDS", "", "", kBinary, kOther, 0, true},
    {510, "vgpu_type_info", "VTPINF", "DCGM_FI_DEV_VGPU_TYPE_INFO", "", "", kBinary, kOther, 0, true},
    {511, "vgpu_type_name", "VTPNM", "DCGM_FI_DEV_VGPU_TYPE_NAME", "", "", kString, kOther, 0, true},
    {512, "vgpu_type_class", "VTPCLS", "DCGM_FI_DEV_VGPU_TYPE_CLASS", "", "", kString, kOther, 0, true},
    {513, "vgpu_type_license", "VTPLC", "DCGM_FI_DEV_VGPU_TYPE_LICENSE", "", "", kString, kOther, 0, true},
    {520, "vgpu_instance_vm_id", "VVMID", "DCGM_FI_DEV_VGPU_VM_ID", "", "", kString, kOther, 0, true},
    {521, "vgpu_instance_vm_name", "VMNAM", "DCGM_FI_DEV_VGPU_VM_NAME", "", "", kString, kOther, 0, true},
    {522, "vgpu_instance_type", "VITYP", "DCGM_FI_DEV_VGPU_TYPE", "", "", kInt64, kOther, 0, true},
    {523, "vgpu_instance_uuid", "VUUID", "DCGM_FI_DEV_VGPU_UUID", "", "", kString, kOther, 0, true},
    {524, "vgpu_instance_driver_version", "VDVER", "DCGM_FI_DEV_VGPU_DRIVER_VERSION", "", "", kString, kOther, 0, true},
    {525, "vgpu_instance_memory_usage", "VMUSG", "DCGM_FI_DEV_VGPU_MEMORY_USAGE", "", "MiB", kInt64, kOther, 0, true},
    {526, "vgpu_instance_license_status", "VLCST", "DCGM_FI_DEV_VGPU_LICENSE_STATUS", "", "", kInt64, kOther, 0, true},
    {527, "vgpu_instance_frame_rate_limit", "VFLIM", "DCGM_FI_DEV_VGPU_FRAME_RATE_LIMIT", "", "", kInt64, kOther, 0, true},
    {528, "vgpu_instance_enc_stats", "VSTAT", "DCGM_FI_DEV_VGPU_ENC_STATS", "", "", kBinary, kOther, 0, true},
    {529, "vgpu_instance_enc_sessions_info", "VSINF", "DCGM_FI_DEV_VGPU_ENC_SESSIONS_INFO", "", "", kBinary, kOther, 0, true},
    {530, "vgpu_instance_fbc_stats", "VFSTAT", "DCGM_FI_DEV_VGPU_FBC_STATS", "", "", kBinary, kOther, 0, true},
    {531, "vgpu_instance_fbc_sessions_info", "VFINF", "DCGM_FI_DEV_VGPU_FBC_SESSIONS_INFO", "", "", kBinary, kOther, 0, true},
    {532, "vgpu_instance_license_state", "VLCIST", "DCGM_FI_DEV_VGPU_INSTANCE_LICENSE_STATE", "", "", kInt64, kOther, 0, true},
    {533, "vgpu_instance_pci_id", "VPCIID", "DCGM_FI_DEV_VGPU_PCI_ID", "", "", kString, kOther, 0, true},
    {534, "vgpu_instance_gpu_instance_id", "VGII", "DCGM_FI_DEV_VGPU_VM_GPU_INSTANCE_ID", "", "", kInt64, kOther, 0, true},
    {780, "nvswitch_link_bandwidth_tx", "SWLNKTX", "DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_TX", "", "", kInt64, kCommunication, 0, true},
    {781, "nvswitch_link_bandwidth_rx", "SWLNKRX", "DCGM_FI_DEV_NVSWITCH_LINK_THROUGHPUT_RX", "", "", kInt64, kCommunication, 0, true},
    {782, "nvswitch_link_fatal_errors", "SWLNKFE", "DCGM_FI_DEV_NVSWITCH_LINK_FATAL_ERRORS", "", "count", kInt64, kHealth, 0, true},
    {783, "nvswitch_link_non_fatal_errors", "SWLNKNF", "DCGM_FI_DEV_NVSWITCH_LINK_NON_FATAL_ERRORS", "", "count", kInt64, kHealth, 0, true},
    {784, "nvswitch_link_replay_errors", "SWLNKRP", "DCGM_FI_DEV_NVSWITCH_LINK_REPLAY_ERRORS", "", "count", kInt64, kHealth, 0, true},
    {785, "nvswitch_link_recovery_errors", "SWLNKRC", "DCGM_FI_DEV_NVSWITCH_LINK_RECOVERY_ERRORS", "", "count", kInt64, kHealth, 0, true},
    {786, "nvswitch_link_flit_errors", "SWLNKFL", "DCGM_FI_DEV_NVSWITCH_LINK_FLIT_ERRORS", "", "count", kInt64, kHealth, 0, true},
    {787, "nvswitch_link_crc_errors", "SWLNKCR", "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERRORS", "", "count", kInt64, kHealth, 0, true},
    {788, "nvswitch_link_ecc_errors", "SWLNKEC", "DCGM_FI_DEV_NVSWITCH_LINK_ECC_ERRORS", "", "count", kInt64, kHealth, 0, true},
    {789, "nvswitch_link_latency_low_vc0", "SWVCLL0", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_LOW_VC0", "", "count", kInt64, kHealth, 0, true},
    {790, "nvswitch_link_latency_low_vc1", "SWVCLL1", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_LOW_VC1", "", "count", kInt64, kHealth, 0, true},
    {791, "nvswitch_link_latency_low_vc2", "SWVCLL2", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_LOW_VC2", "", "count", kInt64, kHealth, 0, true},
    {792, "nvswitch_link_latency_low_vc", "SWVCLL3", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_LOW_VC3", "", "count", kInt64, kHealth, 0, true},
    {793, "nvswitch_link_latency_medium_vc0", "SWVCLM0", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_MEDIUM_VC0", "", "count", kInt64, kHealth, 0, true},
    {794, "nvswitch_link_latency_medium_vc1", "SWVCLM1", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_MEDIUM_VC1", "", "count", kInt64, kHealth, 0, true},
    {795, "nvswitch_link_latency_medium_vc2", "SWVCLM2", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_MEDIUM_VC2", "", "count", kInt64, kHealth, 0, true},
    {796, "nvswitch_link_latency_medium_vc3", "SWVCLM3", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_MEDIUM_VC3", "", "count", kInt64, kHealth, 0, true},
    {797, "nvswitch_link_latency_high_vc0", "SWVCLH0", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_HIGH_VC0", "", "count", kInt64, kHealth, 0, true},
    {798, "nvswitch_link_latency_high_vc1", "SWVCLH1", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_HIGH_VC1", "", "count", kInt64, kHealth, 0, true},
    {799, "nvswitch_link_latency_high_vc2", "SWVCLH2", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_HIGH_VC2", "", "count", kInt64, kHealth, 0, true},
    {800, "nvswitch_link_latency_high_vc3", "SWVCLH3", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_HIGH_VC3", "", "count", kInt64, kHealth, 0, true},
    {801, "nvswitch_link_latency_panic_vc0", "SWVCLP0", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_PANIC_VC0", "", "count", kInt64, kHealth, 0, true},
    {802, "nvswitch_link_latency_panic_vc1", "SWVCLP1", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_PANIC_VC1", "", "count", kInt64, kHealth, 0, true},
    {803, "nvswitch_link_latency_panic_vc2", "SWVCLP2", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_PANIC_VC2", "", "count", kInt64, kHealth, 0, true},
    {804, "nvswitch_link_latency_panic_vc3", "SWVCLP3", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_PANIC_VC3", "", "count", kInt64, kHealth, 0, true},
    {805, "nvswitch_link_latency_count_vc0", "SWVCLC0", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_COUNT_VC0", "", "count", kInt64, kHealth, 0, true},
    {806, "nvswitch_link_latency_count_vc1", "SWVCLC1", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_COUNT_VC1", "", "count", kInt64, kHealth, 0, true},
    {807, "nvswitch_link_latency_count_vc2", "SWVCLC2", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_COUNT_VC2", "", "count", kInt64, kHealth, 0, true},
    {808, "nvswitch_link_latency_count_vc3", "SWVCLC3", "DCGM_FI_DEV_NVSWITCH_LINK_LATENCY_COUNT_VC3", "", "count", kInt64, kHealth, 0, true},
    {809, "nvswitch_link_crc_errors_lane0", "SWLACR0", "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERRORS_LANE0", "", "count", kInt64, kHealth, 0, true},
    {810, "nvswitch_link_crc_errors_lane1", "SWLACR1", "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERRORS_LANE1", "", "count", kInt64, kHealth, 0, true},
    {811, "nvswitch_link_crc_errors_lane2", "SWLACR2", "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERRORS_LANE2", "", "count", kInt64, kHealth, 0, true},
    {812, "nvswitch_link_crc_errors_lane3", "SWLACR3", "DCGM_FI_DEV_NVSWITCH_LINK_CRC_ERRORS_LANE3", "", "count", kInt64, kHealth, 0, true},
    {813, "nvswitch_link_ecc_errors_lane0", "SWLAEC0", "DCGM_FI_DEV_NVSWITCH_LINK_ECC_ERRORS_LANE0", "", "count", kInt64, kHealth, 0, true},
    {814, "nvswitch_link_ecc_errors_lane1", "SWLAEC1", "DCGM_FI_DEV_NVSWITCH_LINK_ECC_ERRORS_LANE1", "", "count", kInt64, kHealth, 0, true},
    {815, "nvswitch_link_ecc_errors_lane2", "SWLAEC2", "DCGM_FI_DEV_NVSWITCH_LINK_ECC_ERRORS_LANE2", "", "count", kInt64, kHealth, 0, true},
    {816, "nvswitch_link_ecc_errors_lane3", "SWLAEC3", "DCGM_FI_DEV_NVSWITCH_LINK_ECC_ERRORS_LANE3", "", "count", kInt64, kHealth, 0, true},
    {825, "nvlink_tx_bandwidth_l0", "NTXBWL0", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L0", "", "", kInt64, kCommunication, 0, false},
    {826, "nvlink_tx_bandwidth_l1", "NTXBWL1", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L1", "", "", kInt64, kCommunication, 0, false},
    {827, "nvlink_tx_bandwidth_l2", "NTXBWL2", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L2", "", "", kInt64, kCommunication, 0, false},
    {828, "nvlink_tx_bandwidth_l3", "NTXBWL3", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L3", "", "", kInt64, kCommunication, 0, false},
    {829, "nvlink_tx_bandwidth_l4", "NTXBWL4", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L4", "", "", kInt64, kCommunication, 0, false},
    {830, "nvlink_tx_bandwidth_l5", "NTXBWL5", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L5", "", "", kInt64, kCommunication, 0, false},
    {831, "nvlink_tx_bandwidth_l6", "NTXBWL6", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L6", "", "", kInt64, kCommunication, 0, false},
    {832, "nvlink_tx_bandwidth_l7", "NTXBWL7", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L7", "", "", kInt64, kCommunication, 0, false},
    {833, "nvlink_tx_bandwidth_l8", "NTXBWL8", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L8", "", "", kInt64, kCommunication, 0, false},
    {834, "nvlink_tx_bandwidth_l9", "NTXBWL9", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L9", "", "", kInt64, kCommunication, 0, false},
    {835, "nvlink_tx_bandwidth_l10", "NTXBWL10", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L10", "", "", kInt64, kCommunication, 0, false},
    {836, "nvlink_tx_bandwidth_l11", "NTXBWL11", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L11", "", "", kInt64, kCommunication, 0, false},
    {837, "nvlink_tx_bandwidth_l12", "NTXBWL12", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L12", "", "", kInt64, kCommunication, 0, false},
    {838, "nvlink_tx_bandwidth_l13", "NTXBWL13", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L13", "", "", kInt64, kCommunication, 0, false},
    {839, "nvlink_tx_bandwidth_l14", "NTXBWL14", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L14", "", "", kInt64, kCommunication, 0, false},
    {840, "nvlink_tx_bandwidth_l15", "NTXBWL15", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L15", "", "", kInt64, kCommunication, 0, false},
    {841, "nvlink_tx_bandwidth_l16", "NTXBWL16", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L16", "", "", kInt64, kCommunication, 0, false},
    {842, "nvlink_tx_bandwidth_l17", "NTXBWL17", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_L17", "", "", kInt64, kCommunication, 0, false},
    {843, "nvlink_tx_bandwidth_total", "NTXBWLT", "DCGM_FI_DEV_NVLINK_TX_BANDWIDTH_TOTAL", "", "", kInt64, kCommunication, 0, false},
    {856, "nvswitch_fatal_error", "SEN00", "DCGM_FI_DEV_NVSWITCH_FATAL_ERRORS", "", "", kInt64, kHealth, 0, true},
    {857, "nvswitch_non_fatal_error", "SEN01", "DCGM_FI_DEV_NVSWITCH_NON_FATAL_ERRORS", "", "", kInt64, kHealth, 0, true},
    {858, "nvswitch_current_temperature", "TMP01", "DCGM_FI_DEV_NVSWITCH_TEMPERATURE_CURRENT", "", "C", kInt64, kThermalPower, 0, true},
    {859, "nvswitch_slowdown_temperature", "TMP02", "DCGM_FI_DEV_NVSWITCH_TEMPERATURE_LIMIT_SLOWDOWN", "", "C", kInt64, kThermalPower, 0, true},
    {860, "nvswitch_shutdown_temperature", "TMP03", "DCGM_FI_DEV_NVSWITCH_TEMPERATURE_LIMIT_SHUTDOWN", "", "C", kInt64, kThermalPower, 0, true},
    {861, "nvswitch_bandwidth_tx", "SWTX", "DCGM_FI_DEV_NVSWITCH_THROUGHPUT_TX", "", "", kInt64, kCommunication, 0, true},
    {862, "nvswitch_bandwidth_rx", "SWRX", "DCGM_FI_DEV_NVSWITCH_THROUGHPUT_RX", "", "", kInt64, kCommunication, 0, true},
    {863, "nvswitch_physical_id", "SWPHID", "DCGM_FI_DEV_NVSWITCH_PHYS_ID", "", "", kInt64, kIdentity, 0, true},
    {864, "nvswitch_reset_required", "SWFRMVER", "DCGM_FI_DEV_NVSWITCH_RESET_REQUIRED", "", "", kInt64, kHealth, 0, true},
    {865, "nvlink_id", "LNKID", "DCGM_FI_DEV_NVSWITCH_LINK_ID", "", "", kInt64, kIdentity, 0, true},
    {866, "nvswitch_pcie_dom", "SWPCIEDOM", "DCGM_FI_DEV_NVSWITCH_PCIE_DOMAIN", "", "", kInt64, kIdentity, 0, true},
    {867, "nvswitch_pcie_bus", "SWPCIEBUS", "DCGM_FI_DEV_NVSWITCH_PCIE_BUS", "", "", kInt64, kIdentity, 0, true},
    {868, "nvswitch_pcie_dev", "SWPCIEDEV", "DCGM_FI_DEV_NVSWITCH_PCIE_DEVICE", "", "", kInt64, kIdentity, 0, true},
    {869, "nvswitch_pcie_fun", "SWPCIEFUN", "DCGM_FI_DEV_NVSWITCH_PCIE_FUNCTION", "", "", kInt64, kIdentity, 0, true},
    {870, "nvswitch_nvlink_status", "SWNVLNKST", "DCGM_FI_DEV_NVSWITCH_LINK_STATUS", "", "", kInt64, kHealth, 0, true},
    {871, "nvswitch_nvlink_dev_type", "SWNVLNKDT", "DCGM_FI_DEV_NVSWITCH_LINK_TYPE", "", "", kInt64, kIdentity, 0, true},
    {872, "link_pcie_remote_dom", "LNKDOM", "DCGM_FI_DEV_NVSWITCH_LINK_REMOTE_PCIE_DOMAIN", "", "", kInt64, kIdentity, 0, true},
    {873, "link_pcie_remote_bus", "LNKBUS", "DCGM_FI_DEV_NVSWITCH_LINK_REMOTE_PCIE_BUS", "", "", kInt64, kIdentity, 0, true},
    {874, "link_pcie_remote_dev", "LNKDEV", "DCGM_FI_DEV_NVSWITCH_LINK_REMOTE_PCIE_DEVICE", "", "", kInt64, kIdentity, 0, true},
    {875, "link_pcie_remote_func", "LNKFNC", "DCGM_FI_DEV_NVSWITCH_LINK_REMOTE_PCIE_FUNCTION", "", "", kInt64, kIdentity, 0, true},
    {876, "link_dev_link_id", "SWNVLNKID", "DCGM_FI_DEV_NVSWITCH_LINK_DEVICE_LINK_ID", "", "", kInt64, kIdentity, 0, true},
    {877, "link_dev_link_sid", "SWNVLNSID", "DCGM_FI_DEV_NVSWITCH_LINK_DEVICE_LINK_SID", "", "", kInt64, kIdentity, 0, true},
    {878, "link_dev_link_uuid", "SWNVLNUID", "DCGM_FI_DEV_NVSWITCH_LINK_DEVICE_UUID", "", "", kString, kIdentity, 0, true},
    {879, "nvlink_rx_bandwidth_l0", "NRXBWL0", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L0", "", "", kInt64, kCommunication, 0, false},
    {880, "nvlink_rx_bandwidth_l1", "NRXBWL1", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L1", "", "", kInt64, kCommunication, 0, false},
    {881, "nvlink_rx_bandwidth_l2", "NRXBWL2", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L2", "", "", kInt64, kCommunication, 0, false},
    {882, "nvlink_rx_bandwidth_l3", "NRXBWL3", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L3", "", "", kInt64, kCommunication, 0, false},
    {883, "nvlink_rx_bandwidth_l4", "NRXBWL4", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L4", "", "", kInt64, kCommunication, 0, false},
    {884, "nvlink_rx_bandwidth_l5", "NRXBWL5", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L5", "", "", kInt64, kCommunication, 0, false},
    {885, "nvlink_rx_bandwidth_l6", "NRXBWL6", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L6", "", "", kInt64, kCommunication, 0, false},
    {886, "nvlink_rx_bandwidth_l7", "NRXBWL7", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L7", "", "", kInt64, kCommunication, 0, false},
    {887, "nvlink_rx_bandwidth_l8", "NRXBWL8", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L8", "", "", kInt64, kCommunication, 0, false},
    {888, "nvlink_rx_bandwidth_l9", "NRXBWL9", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L9", "", "", kInt64, kCommunication, 0, false},
    {889, "nvlink_rx_bandwidth_l10", "NRXBWL10", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L10", "", "", kInt64, kCommunication, 0, false},
    {890, "nvlink_rx_bandwidth_l11", "NRXBWL11", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L11", "", "", kInt64, kCommunication, 0, false},
    {891, "nvlink_rx_bandwidth_l12", "NRXBWL12", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L12", "", "", kInt64, kCommunication, 0, false},
    {892, "nvlink_rx_bandwidth_l13", "NRXBWL13", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L13", "", "", kInt64, kCommunication, 0, false},
    {893, "nvlink_rx_bandwidth_l14", "NRXBWL14", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L14", "", "", kInt64, kCommunication, 0, false},
    {894, "nvlink_rx_bandwidth_l15", "NRXBWL15", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L15", "", "", kInt64, kCommunication, 0, false},
    {895, "nvlink_rx_bandwidth_l16", "NRXBWL16", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L16", "", "", kInt64, kCommunication, 0, false},
    {896, "nvlink_rx_bandwidth_l17", "NRXBWL17", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L17", "", "", kInt64, kCommunication, 0, false},
    {897, "nvlink_rx_bandwidth_total", "NRXBWLT", "DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_TOTAL", "", "", kInt64, kCommunication, 0, false},
    {1001, "gr_engine_active", "GRACT", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1002, "sm_active", "SMACT", "DCGM_FI_PROF_SM_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1003, "sm_occupancy", "SMOCC", "DCGM_FI_PROF_SM_OCCUPANCY", "", "ratio", kDouble, kCompute, 0, true},
    {1004, "tensor_active", "TENSO", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1005, "dram_active", "DRAMA", "DCGM_FI_PROF_DRAM_ACTIVE", "", "ratio", kDouble, kMemory, 0, true},
    {1006, "fp64_active", "FP64A", "DCGM_FI_PROF_PIPE_FP64_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1007, "fp32_active", "FP32A", "DCGM_FI_PROF_PIPE_FP32_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1008, "fp16_active", "FP16A", "DCGM_FI_PROF_PIPE_FP16_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1009, "pcie_tx_bytes", "PCITX", "DCGM_FI_PROF_PCIE_TX_BYTES", "", "B/s", kInt64, kCommunication, 28, true},
    {1010, "pcie_rx_bytes", "PCIRX", "DCGM_FI_PROF_PCIE_RX_BYTES", "", "B/s", kInt64, kCommunication, 13, true},
    {1011, "nvlink_tx_bytes", "NVLTX", "DCGM_FI_PROF_NVLINK_TX_BYTES", "", "B/s", kInt64, kCommunication, 28, true},
    {1012, "nvlink_rx_bytes", "NVLRX", "DCGM_FI_PROF_NVLINK_RX_BYTES", "", "B/s", kInt64, kCommunication, 28, true},
    {1013, "tensor_imma_active", "TIMMA", "DCGM_FI_PROF_PIPE_TENSOR_IMMA_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1014, "tensor_hmma_active", "THMMA", "DCGM_FI_PROF_PIPE_TENSOR_HMMA_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1015, "tensor_dfma_active", "TDFMA", "DCGM_FI_PROF_PIPE_TENSOR_DFMA_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1016, "integer_active", "INTAC", "DCGM_FI_PROF_PIPE_INT_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1017, "nvdec0_active", "NVDEC0", "DCGM_FI_PROF_NVDEC0_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1018, "nvdec1_active", "NVDEC1", "DCGM_FI_PROF_NVDEC1_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1019, "nvdec2_active", "NVDEC2", "DCGM_FI_PROF_NVDEC2_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1020, "nvdec3_active", "NVDEC3", "DCGM_FI_PROF_NVDEC3_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1021, "nvdec4_active", "NVDEC4", "DCGM_FI_PROF_NVDEC4_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1022, "nvdec5_active", "NVDEC5", "DCGM_FI_PROF_NVDEC5_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1023, "nvdec6_active", "NVDEC6", "DCGM_FI_PROF_NVDEC6_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1024, "nvdec7_active", "NVDEC7", "DCGM_FI_PROF_NVDEC7_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1025, "nvjpg0_active", "NVJPG0", "DCGM_FI_PROF_NVJPG0_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1026, "nvjpg1_active", "NVJPG1", "DCGM_FI_PROF_NVJPG1_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1027, "nvjpg2_active", "NVJPG2", "DCGM_FI_PROF_NVJPG2_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1028, "nvjpg3_active", "NVJPG3", "DCGM_FI_PROF_NVJPG3_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1029, "nvjpg4_active", "NVJPG4", "DCGM_FI_PROF_NVJPG4_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1030, "nvjpg5_active", "NVJPG5", "DCGM_FI_PROF_NVJPG5_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1031, "nvjpg6_active", "NVJPG6", "DCGM_FI_PROF_NVJPG6_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1032, "nvjpg7_active", "NVJPG7", "DCGM_FI_PROF_NVJPG7_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1033, "nvofa0_active", "NVOFA0", "DCGM_FI_PROF_NVOFA0_ACTIVE", "", "ratio", kDouble, kCompute, 0, true},
    {1040, "nvlink_l0_tx_bytes", "NVL0T", "DCGM_FI_PROF_NVLINK_L0_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1041, "nvlink_l0_rx_bytes", "NVL0R", "DCGM_FI_PROF_NVLINK_L0_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1042, "nvlink_l1_tx_bytes", "NVL1T", "DCGM_FI_PROF_NVLINK_L1_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1043, "nvlink_l1_rx_bytes", "NVL1R", "DCGM_FI_PROF_NVLINK_L1_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1044, "nvlink_l2_tx_bytes", "NVL2T", "DCGM_FI_PROF_NVLINK_L2_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1045, "nvlink_l2_rx_bytes", "NVL2R", "DCGM_FI_PROF_NVLINK_L2_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1046, "nvlink_l3_tx_bytes", "NVL3T", "DCGM_FI_PROF_NVLINK_L3_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1047, "nvlink_l3_rx_bytes", "NVL3R", "DCGM_FI_PROF_NVLINK_L3_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1048, "nvlink_l4_tx_bytes", "NVL4T", "DCGM_FI_PROF_NVLINK_L4_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1049, "nvlink_l4_rx_bytes", "NVL4R", "DCGM_FI_PROF_NVLINK_L4_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1050, "nvlink_l5_tx_bytes", "NVL5T", "DCGM_FI_PROF_NVLINK_L5_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1051, "nvlink_l5_rx_bytes", "NVL5R", "DCGM_FI_PROF_NVLINK_L5_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1052, "nvlink_l6_tx_bytes", "NVL6T", "DCGM_FI_PROF_NVLINK_L6_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1053, "nvlink_l6_rx_bytes", "NVL6R", "DCGM_FI_PROF_NVLINK_L6_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1054, "nvlink_l7_tx_bytes", "NVL7T", "DCGM_FI_PROF_NVLINK_L7_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1055, "nvlink_l7_rx_bytes", "NVL7R", "DCGM_FI_PROF_NVLINK_L7_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1056, "nvlink_l8_tx_bytes", "NVL8T", "DCGM_FI_PROF_NVLINK_L8_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1057, "nvlink_l8_rx_bytes", "NVL8R", "DCGM_FI_PROF_NVLINK_L8_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1058, "nvlink_l9_tx_bytes", "NVL9T", "DCGM_FI_PROF_NVLINK_L9_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1059, "nvlink_l9_rx_bytes", "NVL9R", "DCGM_FI_PROF_NVLINK_L9_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1060, "nvlink_l10_tx_bytes", "NVL10T", "DCGM_FI_PROF_NVLINK_L10_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1061, "nvlink_l10_rx_bytes", "NVL10R", "DCGM_FI_PROF_NVLINK_L10_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1062, "nvlink_l11_tx_bytes", "NVL11T", "DCGM_FI_PROF_NVLINK_L11_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1063, "nvlink_l11_rx_bytes", "NVL11R", "DCGM_FI_PROF_NVLINK_L11_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1064, "nvlink_l12_tx_bytes", "NVL12T", "DCGM_FI_PROF_NVLINK_L12_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1065, "nvlink_l12_rx_bytes", "NVL12R", "DCGM_FI_PROF_NVLINK_L12_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1066, "nvlink_l13_tx_bytes", "NVL13T", "DCGM_FI_PROF_NVLINK_L13_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1067, "nvlink_l13_rx_bytes", "NVL13R", "DCGM_FI_PROF_NVLINK_L13_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1068, "nvlink_l14_tx_bytes", "NVL14T", "DCGM_FI_PROF_NVLINK_L14_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1069, "nvlink_l14_rx_bytes", "NVL14R", "DCGM_FI_PROF_NVLINK_L14_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1070, "nvlink_l15_tx_bytes", "NVL15T", "DCGM_FI_PROF_NVLINK_L15_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1071, "nvlink_l15_rx_bytes", "NVL15R", "DCGM_FI_PROF_NVLINK_L15_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1072, "nvlink_l16_tx_bytes", "NVL16T", "DCGM_FI_PROF_NVLINK_L16_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1073, "nvlink_l16_rx_bytes", "NVL16R", "DCGM_FI_PROF_NVLINK_L16_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1074, "nvlink_l17_tx_bytes", "NVL17T", "DCGM_FI_PROF_NVLINK_L17_TX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
    {1075, "nvlink_l17_rx_bytes", "NVL17R", "DCGM_FI_PROF_NVLINK_L17_RX_BYTES", "", "B/s", kInt64, kCommunication, 0, true},
};

struct Catalog {
  std::vector<DcgmField> fields;
  std::unordered_map<int, size_t> by_id;
  std::unordered_map<std::string, size_t> by_lower_name;  // constants, aliases, long names
  std::unordered_map<std::string_view, size_t> by_short;  // first (lowest id) wins

  Catalog() {
    fields.reserve(std::size(kRows));
    for (const Row& r : kRows) {
      DcgmField f;
      f.id = r.id;
      f.long_name = r.long_name;
      f.short_name = r.short_name;
      f.constant = r.constant;
      if (r.alias[0] != '\0') f.aliases.emplace_back(r.alias);
      f.unit = r.unit;
      f.type = r.type;
      f.field_class = r.field_class;
      f.max_period_ms = FieldClassMaxPeriodMs(r.field_class);
      f.dmon_width = r.dmon_width;
      f.in_dmon_list = r.in_dmon_list;
      fields.push_back(std::move(f));
    }
    std::sort(fields.begin(), fields.end(),
              [](const DcgmField& a, const DcgmField& b) { return a.id < b.id; });
    for (size_t i = 0; i < fields.size(); ++i) {
      const DcgmField& f = fields[i];
      by_id.emplace(f.id, i);
      if (!f.constant.empty()) by_lower_name.emplace(ToLowerAscii(f.constant), i);
      for (const auto a : f.aliases) by_lower_name.emplace(ToLowerAscii(a), i);
      by_lower_name.emplace(ToLowerAscii(f.long_name), i);
      by_short.emplace(f.short_name, i);  // sorted by id: emplace keeps the lowest id
    }
  }
};

const Catalog& GetCatalog() {
  static const Catalog catalog;
  return catalog;
}

}  // namespace

const DcgmField* FindFieldById(int id) {
  const Catalog& c = GetCatalog();
  const auto it = c.by_id.find(id);
  return it == c.by_id.end() ? nullptr : &c.fields[it->second];
}

const DcgmField* FindFieldByName(std::string_view name) {
  name = Trim(name);
  if (name.empty()) return nullptr;
  const Catalog& c = GetCatalog();
  if (const auto it = c.by_short.find(name); it != c.by_short.end()) {
    // A short name can also be spelled like a long name of another field only in theory; DCGM's
    // short names are capitals and long names lower case, so the exact short match goes first.
    return &c.fields[it->second];
  }
  if (const auto it = c.by_lower_name.find(ToLowerAscii(name)); it != c.by_lower_name.end()) {
    return &c.fields[it->second];
  }
  return nullptr;
}

const std::vector<DcgmField>& AllFields() { return GetCatalog().fields; }

std::string_view FieldClassName(FieldClass c) {
  switch (c) {
    case kCompute: return "compute";
    case kCommunication: return "communication";
    case kMemory: return "memory";
    case kThermalPower: return "thermal_power";
    case kHealth: return "health";
    case kIdentity: return "identity";
    case kClock: return "clock";
    case kOther: return "other";
  }
  return "other";
}

int FieldClassMaxPeriodMs(FieldClass c) {
  switch (c) {
    case kCommunication: return 100;
    case kCompute:
    case kMemory:
    case kThermalPower:
    case kClock: return 1000;
    case kHealth:
    case kIdentity:
    case kOther: return 0;
  }
  return 0;
}

std::string_view FieldValueTypeName(FieldValueType t) {
  switch (t) {
    case kInt64: return "int64";
    case kDouble: return "double";
    case kString: return "string";
    case kBinary: return "binary";
  }
  return "binary";
}

// ---------------------------------------------------------------------------------------------
// `dcgmi dmon -l`.

namespace {

bool IsRule(std::string_view s) {
  if (s.size() < 3) return false;
  for (const char c : s) {
    if (c != '_' && c != '-' && c != '=') return false;
  }
  return true;
}

bool IsHeading(std::string_view s) {
  return StartsWith(s, "Long Name") && Contains(s, "Short Name") && Contains(s, "Field ID");
}

bool IsLongName(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool IsShortName(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  for (const char c : s) {
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
  }
  return true;
}

}  // namespace

Result<std::vector<DmonFieldListEntry>> ParseDmonFieldList(std::string_view text,
                                                           std::string_view source,
                                                           Diagnostics& diag, ReadCounts& counts) {
  if (LooksBinary(text.substr(0, 4096))) {
    return MakeError(std::string(source), 0, 0, "binary data, not `dcgmi dmon -l` output");
  }
  std::vector<DmonFieldListEntry> out;
  std::unordered_set<int> seen_ids;
  bool heading = false;
  TextLines lines(text);
  std::string_view raw, line;
  while (lines.NextNonBlank(&raw, &line)) {
    const int64_t line_no = lines.line_number();
    if (IsRule(line)) continue;
    if (IsHeading(line)) {
      heading = true;
      continue;
    }
    ++counts.read;
    const auto tok = SplitWhitespace(line);
    if (tok.size() != 3) {
      ++counts.rejected;
      diag.Reject(source, line_no, raw,
                  "expected `<long name> <short name> <field id>`, got " +
                      std::to_string(tok.size()) + " words");
      continue;
    }
    const auto id = ParseInt(tok[2]);
    if (!id || *id < 0 || *id > 65535 || (tok[2][0] == '0' && tok[2].size() > 1)) {
      ++counts.rejected;
      diag.Reject(source, line_no, raw, "field id '" + ClipRaw(tok[2], 40) + "' is not 0..65535");
      continue;
    }
    if (!IsLongName(tok[0]) || !IsShortName(tok[1])) {
      ++counts.rejected;
      diag.Reject(source, line_no, raw, "long or short name has unexpected characters");
      continue;
    }
    if (!seen_ids.insert(static_cast<int>(*id)).second) {
      ++counts.rejected;
      diag.Reject(source, line_no, raw, "duplicate field id " + std::to_string(*id));
      continue;
    }
    ++counts.accepted;
    out.push_back({std::string(tok[0]), std::string(tok[1]), static_cast<int>(*id), line_no});
  }
  if (!heading && out.empty()) {
    return MakeError(std::string(source), 0, 0, "not `dcgmi dmon -l` output",
                     "expected a `Long Name  Short Name  Field ID` table");
  }
  return out;
}

}  // namespace toposcope::formats
