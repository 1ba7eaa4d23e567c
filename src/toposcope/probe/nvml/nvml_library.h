// probe/nvml/nvml_library: the NVML entry points the collector uses, loaded at run time from
// libnvidia-ml.so.1 (the driver's copy; no NVML header on build machines). Structures are declared
// here as nvml.h lays them out: nvmlFieldValue_t (40 bytes) and the GPM metrics request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/probe/dynamic_library.h"

namespace toposcope::probe {

using NvmlDevice = void*;
using NvmlGpmSample = void*;

inline constexpr int kNvmlSuccess = 0;
inline constexpr int kNvmlErrorNotSupported = 3;

// nvml.h's ids used here.
inline constexpr unsigned kNvmlTemperatureGpu = 0;
inline constexpr unsigned kNvmlClockSm = 1;
inline constexpr unsigned kNvmlClockMem = 2;
inline constexpr unsigned kNvmlPcieUtilTxBytes = 0;
inline constexpr unsigned kNvmlPcieUtilRxBytes = 1;
inline constexpr unsigned kNvmlFiNvlinkThroughputDataTx = 138;  // cumulative KiB, whole GPU
inline constexpr unsigned kNvmlFiNvlinkThroughputDataRx = 139;
inline constexpr unsigned kNvmlGpmMetricSmUtil = 2;             // percent
inline constexpr unsigned kNvmlGpmMetricSmOccupancy = 3;        // percent
inline constexpr unsigned kNvmlGpmMetricDramBwUtil = 10;        // percent
inline constexpr unsigned kNvmlGpmMetricPcieTxPerSec = 20;      // MiB/s
inline constexpr unsigned kNvmlGpmMetricPcieRxPerSec = 21;
inline constexpr unsigned kNvmlGpmMetricNvlinkTotalRxPerSec = 60;
inline constexpr unsigned kNvmlGpmMetricNvlinkTotalTxPerSec = 61;

struct NvmlUtilization {
  unsigned gpu = 0;     // percent of time a kernel ran
  unsigned memory = 0;  // percent of time memory was read or written
};

// nvmlFieldValue_t.
struct NvmlFieldValue {
  unsigned field_id = 0;
  unsigned scope_id = 0;
  int64_t timestamp_us = 0;
  int64_t latency_us = 0;
  int value_type = 0;  // 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint, 6 ushort
  int nvml_return = 0;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
    unsigned short us;
  } value{};
};
static_assert(sizeof(NvmlFieldValue) == 40, "nvmlFieldValue_t is 40 bytes");

// The numeric value of a field as a double; NaN when its type is unknown.
double NvmlFieldAsDouble(const NvmlFieldValue& v);

// nvmlGpmMetric_t and nvmlGpmMetricsGet_t (version 1); the library reads num_metrics entries.
struct NvmlGpmMetric {
  unsigned metric_id = 0;
  int nvml_return = 0;
  double value = 0;
  const char* short_name = nullptr;
  const char* long_name = nullptr;
  const char* unit = nullptr;
};
inline constexpr int kNvmlGpmMetricMax = 98;
struct NvmlGpmMetricsGet {
  unsigned version = 1;
  unsigned num_metrics = 0;
  NvmlGpmSample sample1 = nullptr;
  NvmlGpmSample sample2 = nullptr;
  NvmlGpmMetric metrics[kNvmlGpmMetricMax];
};
struct NvmlGpmSupport {
  unsigned version = 1;
  unsigned is_supported_device = 0;
};

struct NvmlApi {
  int (*Init)() = nullptr;  // nvmlInit_v2
  int (*Shutdown)() = nullptr;
  const char* (*ErrorString)(int) = nullptr;
  int (*DeviceGetCount)(unsigned*) = nullptr;                    // _v2
  int (*DeviceGetHandleByIndex)(unsigned, NvmlDevice*) = nullptr;  // _v2
  int (*DeviceGetName)(NvmlDevice, char*, unsigned) = nullptr;
  int (*DeviceGetTemperature)(NvmlDevice, unsigned, unsigned*) = nullptr;
  int (*DeviceGetClockInfo)(NvmlDevice, unsigned, unsigned*) = nullptr;
  int (*DeviceGetPowerUsage)(NvmlDevice, unsigned*) = nullptr;  // milliwatts
  int (*DeviceGetUtilizationRates)(NvmlDevice, NvmlUtilization*) = nullptr;
  // Optional entry points (older drivers, fakes): their columns are N/A when missing.
  int (*DeviceGetPcieThroughput)(NvmlDevice, unsigned, unsigned*) = nullptr;  // KB/s over 20 ms
  int (*DeviceGetFieldValues)(NvmlDevice, int, NvmlFieldValue*) = nullptr;
  int (*GpmQueryDeviceSupport)(NvmlDevice, NvmlGpmSupport*) = nullptr;
  int (*GpmSampleAlloc)(NvmlGpmSample*) = nullptr;
  int (*GpmSampleFree)(NvmlGpmSample) = nullptr;
  int (*GpmSampleGet)(NvmlDevice, NvmlGpmSample) = nullptr;
  int (*GpmMetricsGet)(NvmlGpmMetricsGet*) = nullptr;
};

// NVML, loaded and initialised (nvmlInit_v2); shut down when destroyed. Move-only.
class NvmlLibrary {
 public:
  // Loads `path` when given, else libnvidia-ml.so.1 then libnvidia-ml.so; binds the entry points
  // and initialises. Fails naming what was tried, a missing entry point, or nvmlInit's error.
  static Result<NvmlLibrary> Load(const std::string& path = {});
  ~NvmlLibrary();
  NvmlLibrary(NvmlLibrary&& other) noexcept;
  NvmlLibrary& operator=(NvmlLibrary&& other) noexcept;
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  [[nodiscard]] const NvmlApi& api() const { return api_; }
  [[nodiscard]] const std::string& path() const { return lib_.path(); }
  // kNvmlSuccess → ok; else "<what>: <nvmlErrorString> (nvmlReturn <n>)".
  [[nodiscard]] Status Check(int ret, const std::string& what) const;

 private:
  NvmlLibrary() = default;
  DynamicLibrary lib_;
  NvmlApi api_;
  bool initialised_ = false;
};

}  // namespace toposcope::probe
