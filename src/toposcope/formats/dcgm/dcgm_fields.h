// formats/dcgm/dcgm_fields: the DCGM field catalog. A built-in table of every field that `dcgmi dmon -l`
// lists (DCGM 3.1.8, the real fixture), plus the DCGM 4.x per-link NVLink TX/RX bandwidth fields
// named in FORMAT_NOTES: id, dmon long and short names, DCGM_FI_* constant (and the 4.6 renames
// kept as aliases), unit, value type and a class that says what the signal is about and how often
// it must be sampled to be useful. Also a reader of `dcgmi dmon -l` output.
//
// Classes and the sampling period they need (seed §2.1, "semantic decoupling"):
//   kCommunication  NVLink / PCIe / NVSwitch tx/rx bytes and bandwidths. Transfers of a collective
//                   last tens of ms, so a sample period over 100 ms averages bursts away: 100 ms.
//   kCompute        SM / tensor / pipe activity, GPU utilisation: 1000 ms (step-level signals).
//   kMemory         framebuffer use, DRAM activity, copy utilisation: 1000 ms.
//   kThermalPower   temperatures, power, energy, fan, throttle accounting: 1000 ms (thermal time
//                   constants are seconds; used with link rx rates to spot thermal down-speeding).
//   kClock          SM / memory / video clocks: 1000 ms.
//   kHealth         ECC, XID, retired pages, NVLink CRC/replay/recovery counters: 0 = any period
//                   (monotone counters; any sampling keeps their information).
//   kIdentity       names, versions, PCI ids, affinities, link configuration: 0 = any.
//   kOther          vGPU and other rarely used fields: 0 = any.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"

namespace toposcope::formats {

enum class FieldClass {
  kCompute,
  kCommunication,
  kMemory,
  kThermalPower,
  kHealth,
  kIdentity,
  kClock,
  kOther,
};

// How DCGM stores the value (dcgm_fields.h DCGM_FT_*): decides how dmon prints it (`%lld` for
// int64, `%.3f` for double).
enum class FieldValueType { kInt64, kDouble, kString, kBinary };

struct DcgmField {
  int id = -1;                         // DCGM field id, e.g. 1011
  std::string_view long_name;          // as `dcgmi dmon -l` prints it: "nvlink_tx_bytes"
  std::string_view short_name;         // dmon column header: "NVLTX"
  std::string_view constant;           // DCGM_FI_* name as of DCGM 3.x: "DCGM_FI_PROF_NVLINK_TX_BYTES";
                                       // empty when not known
  std::vector<std::string_view> aliases;  // other DCGM_FI_* names (4.6 renames such as
                                          // DCGM_FI_DEV_GPU_TEMP_CELSIUS); may be empty
  std::string_view unit;               // "B/s", "MB/s", "KB/s", "C", "W", "mJ", "MHz", "%", "ratio",
                                       // "MiB", "ns", "count", "bitmask"; empty for text/ids
  FieldValueType type = FieldValueType::kInt64;
  FieldClass field_class = FieldClass::kOther;
  int max_period_ms = 0;               // longest useful sample period; 0 = any (see the top)
  int dmon_width = 0;                  // dmon column width (meta width + 6 + 2) where known, else 0
  bool in_dmon_list = true;            // listed by DCGM 3.1.8 `dcgmi dmon -l` (false: DCGM 4.x
                                       // fields from FORMAT_NOTES, long name inferred)
};

// The ids of the fields the analyses and the simulator single out (DCGM dcgm_fields.h), so that
// no code outside the catalog spells a raw id.
namespace field_id {
inline constexpr int kGpuTemp = 150;             // DCGM_FI_DEV_GPU_TEMP, C
inline constexpr int kPowerUsage = 155;          // DCGM_FI_DEV_POWER_USAGE, W
inline constexpr int kGpuUtil = 203;             // DCGM_FI_DEV_GPU_UTIL, %
inline constexpr int kNvlinkCrcFlitErrorTotal = 409;  // DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL
inline constexpr int kNvlinkRxBandwidthL0 = 879;  // DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_L0 .. _L17 = 896
inline constexpr int kNvlinkRxBandwidthL17 = 896;
inline constexpr int kNvlinkRxBandwidthTotal = 897;  // DCGM_FI_DEV_NVLINK_RX_BANDWIDTH_TOTAL
inline constexpr int kProfSmActive = 1002;       // DCGM_FI_PROF_SM_ACTIVE
inline constexpr int kProfPcieTxBytes = 1009;    // DCGM_FI_PROF_PCIE_TX_BYTES
inline constexpr int kProfPcieRxBytes = 1010;    // DCGM_FI_PROF_PCIE_RX_BYTES
inline constexpr int kProfNvlinkTxBytes = 1011;  // DCGM_FI_PROF_NVLINK_TX_BYTES
inline constexpr int kProfNvlinkRxBytes = 1012;  // DCGM_FI_PROF_NVLINK_RX_BYTES
// DCGM_FI_PROF_NVLINK_L{n}_TX_BYTES = 1040 + 2n, _RX_BYTES = 1041 + 2n, n = 0..17.
inline constexpr int kProfNvlinkL0TxBytes = 1040;
inline constexpr int kProfNvlinkL0RxBytes = 1041;
inline constexpr int kProfNvlinkL17RxBytes = 1075;
}  // namespace field_id

// The field with this id, or nullptr.
const DcgmField* FindFieldById(int id);

// Looks a field up by its DCGM_FI_* constant, any alias, its dmon long name or its short name
// (case-sensitive for short names, which DCGM spells in capitals; the others are matched
// case-insensitively). Short names are not unique in DCGM (e.g. NVSwitch and GPU fields can share
// one): the lowest id wins. Returns nullptr when nothing matches.
const DcgmField* FindFieldByName(std::string_view name);

// Every field, sorted by id.
const std::vector<DcgmField>& AllFields();

// "compute", "communication", "memory", "thermal_power", "health", "identity", "clock", "other".
std::string_view FieldClassName(FieldClass c);
// The default max_period_ms of a class (see the top of this header).
int FieldClassMaxPeriodMs(FieldClass c);
// "int64", "double", "string", "binary".
std::string_view FieldValueTypeName(FieldValueType t);

// One row of `dcgmi dmon -l`.
struct DmonFieldListEntry {
  std::string long_name;   // "nvlink_bandwidth_total"
  std::string short_name;  // "NBWLT"
  int field_id = -1;       // 449
  int64_t line = 0;        // 1-based line in the input
};

// Reads `dcgmi dmon -l` output: the `____` rules and the `Long Name  Short Name  Field ID` heading
// are skipped, every other non-blank line is a record `<long> <short> <id>`. Malformed rows (wrong
// token count, bad id, duplicate id) are rejected into `diag`. Fails only when the input has no
// heading and no valid row (not a field list at all).
Result<std::vector<DmonFieldListEntry>> ParseDmonFieldList(std::string_view text,
                                                           std::string_view source,
                                                           Diagnostics& diag, ReadCounts& counts);

}  // namespace toposcope::formats
