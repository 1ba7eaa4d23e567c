#include "toposcope/base/names.h"

#include "toposcope/base/text.h"

namespace toposcope {

std::string GpuName(std::string_view host, int index) {
  return std::string(host) + "/gpu" + std::to_string(index);
}

std::string NicName(std::string_view host, std::string_view device) {
  return std::string(host) + "/" + std::string(device);
}

std::optional<GpuRef> ParseGpuName(std::string_view name) {
  const size_t slash = name.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  std::string_view tail = name.substr(slash + 1);
  if (!StartsWith(tail, "gpu")) return std::nullopt;
  auto n = ParseInt(tail.substr(3));
  if (!n || *n < 0 || *n > 1 << 20) return std::nullopt;
  return GpuRef{std::string(name.substr(0, slash)), static_cast<int>(*n)};
}

}  // namespace toposcope
