// analysis/links: what joins each GPU pair, and which links are degraded.
// The type comes from what the node declares (nvidia-smi topo, refined by NCCL's XML), or, when
// nothing is declared, from the measured bandwidth alone (seed §2.3 thresholds, configurable).
// A link is degraded when it shows fewer NVLink lanes than its peers, or when its measured
// bandwidth falls below a fraction of what its type gives on the same host (or the fleet).
#pragma once

#include <string>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/model/dataset.h"
#include "toposcope/stats/alpha_stable.h"

namespace toposcope::analysis {

// The seed's thresholds (>= 12 GB/s NVLink, <= 2 GB/s PCIe through the CPU).
Thresholds SeedThresholds();
// Thresholds for current hardware (PCIe Gen4/Gen5 P2P reaches 22-57 GB/s).
Thresholds ModernThresholds();

// "nvlink", "pcie_switch" or "pcie_cpu" for a measured unidirectional bandwidth.
std::string ClassifyBandwidth(double bandwidth_gbps, const Thresholds& t);

// The links of every host, sorted by host then pair.
std::vector<LinkReport> AnalyzeLinks(const model::Dataset& ds, const Thresholds& t,
                                     const stats::NoiseModel& noise);

}  // namespace toposcope::analysis
