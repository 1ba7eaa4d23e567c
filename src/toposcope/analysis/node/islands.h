// analysis/node/islands: which GPUs form NVLink/NVSwitch domains (seed §2.3). Per host, the measured P2P
// matrix becomes an affinity (a soft step at the pair's PCIe ceiling, or the NVLink threshold when
// the PCIe generations are unknown, so the clustering sees "is this pair NVLink-fast" with the
// measurement's own uncertainty; the links pass's physics verdicts settle it) and spectral clustering with the
// eigengap picks the islands. Hosts without measurements fall back to the declared NVLink
// components. Islands are checked against nvidia-smi topo and NCCL's XML wherever they are given.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/analysis/node/links.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

// What joins the GPUs of an island.
enum class IslandKind {
  kUnknown,   // "unknown": nothing measured or declared about the host's GPU pairs
  kNvswitch,  // "nvswitch"
  kNvlink,    // "nvlink"
  kPcie,      // "pcie": a single GPU
};
// The names above.
std::string_view IslandKindName(IslandKind k);

// How a host's islands were found.
enum class IslandMethod {
  kNone,             // "none": nothing measured or declared
  kSpectral,         // "spectral": clustering of the measured matrix
  kSpectralPartial,  // "spectral (partial matrix)": the same, some pairs not measured
  kDeclared,         // "declared": the topology files' NVLink components
};
// The names above.
std::string_view IslandMethodName(IslandMethod m);
struct GpuReport {
  std::string id;      // HOST/gpuN
  std::string host;
  int index = -1;
  std::string island;  // island id
};

struct IslandReport {
  std::string id;                  // HOST/islandK
  std::string host;
  std::vector<std::string> members;
  IslandKind kind = IslandKind::kUnknown;
  IslandMethod method = IslandMethod::kNone;
  // Agreement of the measured islands with each declared source on this host.
  std::vector<std::pair<std::string, bool>> agrees_with;  // ("nvidia-smi-topo", true), ...
};

struct IslandOutput {
  std::vector<GpuReport> gpus;
  std::vector<IslandReport> islands;
};

// The islands of every host and each GPU's island; needs the links (for island kinds) from
// AnalyzeLinks. Returns them; never fails.
IslandOutput AnalyzeIslands(const model::Dataset& ds, const std::vector<LinkReport>& links,
                            const Thresholds& t);

// The affinity of one measured pair: 1 / (1 + exp(-ln(b / T) / width)), T = nvlink_min_gbps; 0 for a
// bandwidth that is not > 0 (NaN included). Never fails.
double IslandAffinity(double bandwidth_gbps, const Thresholds& t);

// The affinity the clustering uses for one measured pair: the soft step of IslandAffinity at the
// pair's PCIe ceiling (PairPcieCeilingGbps; nvlink_min_gbps when NaN), raised to 0.95 when the links
// pass found the measurement NVLink (above the ceiling, or a degraded NVLink inside an island) and
// lowered to 0.05 when it found it PCIe by the ceiling; `link` may be null. Never fails.
double PairAffinity(double bandwidth_gbps, double pcie_ceiling_gbps, const LinkReport* link, const Thresholds& t);

}  // namespace toposcope::analysis
