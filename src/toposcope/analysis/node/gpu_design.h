// analysis/node/gpu_design: what a GPU model is built with, from public specifications (the sources
// are named beside each table row): its PCIe generation and width, and its NVLink links and per-link
// rate; and the physical limits they put on a GPU pair: the most a P2P copy can move over PCIe, and
// the fewest NVLink links a measured bandwidth needs. None of these numbers come from the simulator.
#pragma once

#include <optional>
#include <string_view>

#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct GpuDesign {
  std::string_view match;         // the part of the model name that identifies it ("V100-SXM2")
  int pcie_gen = 0;               // 0: not known
  int pcie_width = 16;
  int nvlink_links = 0;           // NVLink links per GPU as designed; 0: none or not known
  double nvlink_link_gbps = 0;    // NVLink line rate per link, one direction (0: not known)
};

// The design of the GPU model named `model` as nvidia-smi, nvbandwidth or p2pBandwidthLatencyTest
// print it ("Tesla V100-SXM2-32GB", "NVIDIA A100-SXM4-80GB"; case-insensitive); nullopt for a model
// the table does not know, or an empty name.
std::optional<GpuDesign> FindGpuDesign(std::string_view model);

// One-direction theoretical bandwidth of a PCIe link, GB/s: GT/s x width x encoding / 8 (Gen1 2.5
// and Gen2 5 GT/s with 8b/10b; Gen3 8, Gen4 16, Gen5 32, Gen6 64 GT/s with 128b/130b; Gen3 x16 =
// 15.75, Gen4 x16 = 31.5, Gen5 x16 = 63.0, DOMAIN.md §1.3). 0 for an unknown generation or width.
double PcieTheoreticalGbps(int pcie_gen, int width);

// The PCIe generation of a link speed as NCCL's XML writes it ("16 GT/s", "16.0 GT/s PCIe",
// "2.5 GT/s"); 0 when it names no known generation.
int PcieGenOfSpeed(std::string_view link_speed);

// The most GPU `g` can move over PCIe in one direction: its link as NCCL's XML reports it (NCCL
// reads the link's maximum speed and width) when given, else its model's design; NaN when neither
// is known. Never fails.
double GpuPcieCeilingGbps(const model::GpuInfo& g);

// The most a P2P copy between GPUs `a` and `b` of host `h` can move over PCIe, one direction: the
// smaller of the two GPUs' ceilings; NaN when either is unknown (or a GPU is not on the host).
double PairPcieCeilingGbps(const model::HostEvidence& h, int a, int b);

// The NVLink links per GPU GPU `g`'s model is built with (0 when not known).
int DesignNvlinkLinks(const model::GpuInfo& g);

// The most NVLink links any NVIDIA GPU has (H100/H200/B200: 18, DOMAIN.md §1.1): more lanes at one
// GPU than this, or than its design, can only be NVLink through NVSwitches.
inline constexpr int kMaxNvlinkLinksPerGpu = 18;
// The fastest NVLink line rate per link and direction (NVLink 5, 50 GB/s, DOMAIN.md §1.1): a
// measured pair needs at least bandwidth / this many links when its model is not known.
inline constexpr double kMaxNvlinkLinkGbps = 50.0;

}  // namespace toposcope::analysis
