// base/names: the canonical names used in every output: a host is its hostname, a GPU is
// `HOST/gpuN` (N = CUDA index as the tool reports it), a NIC `HOST/mlx5_K`, switches by the name
// their source gives.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace toposcope {

// The canonical id of a GPU, "HOST/gpuN" (N = the CUDA index as the tool reports it).
std::string GpuName(std::string_view host, int index);
// The canonical id of a NIC, "HOST/DEVICE" ("node1/mlx5_0").
std::string NicName(std::string_view host, std::string_view device);

struct GpuRef {
  std::string host;
  int index = -1;
};
// Parses `HOST/gpuN`; nullopt otherwise.
std::optional<GpuRef> ParseGpuName(std::string_view name);

}  // namespace toposcope
