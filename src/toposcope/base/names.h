// base/names: the canonical names used in every output: a host is its hostname, a GPU is
// `HOST/gpuN` (N = CUDA index as the tool reports it), a NIC `HOST/mlx5_K`, switches by the name
// their source gives.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toposcope {

std::string GpuName(std::string_view host, int index);
std::string NicName(std::string_view host, std::string_view device);

struct GpuRef {
  std::string host;
  int index = -1;
};
// Parses `HOST/gpuN`; nullopt otherwise.
std::optional<GpuRef> ParseGpuName(std::string_view name);

}  // namespace toposcope
