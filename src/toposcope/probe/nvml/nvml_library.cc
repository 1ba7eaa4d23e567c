// probe/nvml/nvml_library: binds NVML's entry points by name and initialises it.
#include "toposcope/probe/nvml/nvml_library.h"

#include <cmath>
#include <utility>

namespace toposcope::probe {

double NvmlFieldAsDouble(const NvmlFieldValue& v) {
  switch (v.value_type) {
    case 0: return v.value.d;
    case 1: return static_cast<double>(v.value.ui);
    case 2: return static_cast<double>(v.value.ul);
    case 3: return static_cast<double>(v.value.ull);
    case 4: return static_cast<double>(v.value.sll);
    case 5: return static_cast<double>(v.value.si);
    case 6: return static_cast<double>(v.value.us);
    default: return NAN;
  }
}

Result<NvmlLibrary> NvmlLibrary::Load(const std::string& path) {
  auto lib = DynamicLibrary::Open(path.empty() ? std::vector<std::string>{"libnvidia-ml.so.1", "libnvidia-ml.so"}
                                               : std::vector<std::string>{path},
                                  "NVML (libnvidia-ml.so.1, part of the NVIDIA driver)");
  if (!lib.ok()) return lib.error();
  NvmlLibrary n;
  n.lib_ = std::move(*lib);
  const DynamicLibrary& l = n.lib_;
  NvmlApi& a = n.api_;
  for (const Status& s : {
           l.Bind("nvmlInit_v2", &a.Init),
           l.Bind("nvmlShutdown", &a.Shutdown),
           l.Bind("nvmlErrorString", &a.ErrorString),
           l.Bind("nvmlDeviceGetCount_v2", &a.DeviceGetCount),
           l.Bind("nvmlDeviceGetHandleByIndex_v2", &a.DeviceGetHandleByIndex),
           l.Bind("nvmlDeviceGetName", &a.DeviceGetName),
           l.Bind("nvmlDeviceGetTemperature", &a.DeviceGetTemperature),
           l.Bind("nvmlDeviceGetClockInfo", &a.DeviceGetClockInfo),
           l.Bind("nvmlDeviceGetPowerUsage", &a.DeviceGetPowerUsage),
           l.Bind("nvmlDeviceGetUtilizationRates", &a.DeviceGetUtilizationRates),
       }) {
    if (!s.ok()) return s.error();
  }
  l.BindOptional("nvmlDeviceGetPcieThroughput", &a.DeviceGetPcieThroughput);
  l.BindOptional("nvmlDeviceGetFieldValues", &a.DeviceGetFieldValues);
  l.BindOptional("nvmlGpmQueryDeviceSupport", &a.GpmQueryDeviceSupport);
  l.BindOptional("nvmlGpmSampleAlloc", &a.GpmSampleAlloc);
  l.BindOptional("nvmlGpmSampleFree", &a.GpmSampleFree);
  l.BindOptional("nvmlGpmSampleGet", &a.GpmSampleGet);
  l.BindOptional("nvmlGpmMetricsGet", &a.GpmMetricsGet);
  if (auto s = n.Check(a.Init(), "nvmlInit_v2"); !s.ok()) return s.error();
  n.initialised_ = true;
  return n;
}

NvmlLibrary::~NvmlLibrary() {
  if (initialised_ && api_.Shutdown != nullptr) api_.Shutdown();
}

NvmlLibrary::NvmlLibrary(NvmlLibrary&& other) noexcept
    : lib_(std::move(other.lib_)), api_(other.api_), initialised_(std::exchange(other.initialised_, false)) {}

NvmlLibrary& NvmlLibrary::operator=(NvmlLibrary&& other) noexcept {
  if (this != &other) {
    if (initialised_ && api_.Shutdown != nullptr) api_.Shutdown();
    lib_ = std::move(other.lib_);
    api_ = other.api_;
    initialised_ = std::exchange(other.initialised_, false);
  }
  return *this;
}

Status NvmlLibrary::Check(int ret, const std::string& what) const {
  if (ret == kNvmlSuccess) return {};
  const char* s = api_.ErrorString != nullptr ? api_.ErrorString(ret) : nullptr;
  return MakeError(what + ": " + (s != nullptr ? std::string(s) : std::string("unknown error")) + " (nvmlReturn " +
                   std::to_string(ret) + ")");
}

}  // namespace toposcope::probe
