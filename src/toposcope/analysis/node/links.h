// analysis/node/links: what joins each GPU pair, and which links are degraded.
// The type comes from what the node declares (nvidia-smi topo, refined by NCCL's XML), or, when
// nothing is declared, from the measured bandwidth alone (seed §2.3 thresholds, configurable).
// A link is degraded when it shows fewer NVLink lanes than its peers, or when its measured
// bandwidth falls below a fraction of what its type gives on the same host (or the fleet).
#pragma once

#include <string>
#include <vector>

#include "toposcope/model/dataset.h"
#include "toposcope/stats/alpha_stable.h"
#include <cmath>
#include "toposcope/base/link_type.h"

namespace toposcope::analysis {
struct Thresholds {
  double nvlink_min_gbps = 60.0;    // above PCIe Gen5 x16's ~57 GB/s measured: only NVLink goes faster
  double pcie_cpu_max_gbps = 18.0;  // at or below: PCIe through the CPU (Gen4 cross-socket ~14-15)
  double degraded_ratio = 0.75;     // measured below this fraction of expected -> degraded
  std::string preset = "modern";    // "modern" or "seed" (12 / 2 GB/s)
};

struct LinkReport {
  std::string a, b;                // GPU ids, a < b by index
  LinkType type = LinkType::kUnknown;
  int lanes = 0;                   // active NVLink lanes (0 when not NVLink)
  int expected_lanes = 0;          // lanes its peers show (0 when not NVLink)
  std::string type_source;         // "nvidia-smi-topo", "nccl-topo-xml", "bandwidth"
  std::string bandwidth_class;     // from the measurement alone: "nvlink", "pcie_switch", "pcie_cpu", ""
  double bandwidth_gbps = NAN;     // measured, unidirectional (mean of the directions)
  double expected_gbps = NAN;      // what the link type should give on this host/fleet
  bool degraded = false;
  double confidence = NAN;         // confidence in the `degraded` verdict, 0..1
  std::string evidence;            // short human explanation
};

// The seed's thresholds (>= 12 GB/s NVLink, <= 2 GB/s PCIe through the CPU).
Thresholds SeedThresholds();
// Thresholds for current hardware (PCIe Gen4/Gen5 P2P reaches 22-57 GB/s).
Thresholds ModernThresholds();

// "nvlink", "pcie_switch" or "pcie_cpu" for a measured unidirectional bandwidth; "" for NaN (not
// measured). Never fails.
std::string ClassifyBandwidth(double bandwidth_gbps, const Thresholds& t);

// The links of every host, sorted by host then pair, with their type, expected bandwidth and
// degraded verdict. Never fails: unknown bandwidths leave the verdict to the lanes.
std::vector<LinkReport> AnalyzeLinks(const model::Dataset& ds, const Thresholds& t,
                                     const stats::NoiseModel& noise);

}  // namespace toposcope::analysis
