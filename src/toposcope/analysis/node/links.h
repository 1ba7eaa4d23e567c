// analysis/node/links: what joins each GPU pair, and which links are degraded.
// The type comes from what the node declares (nvidia-smi topo, refined by NCCL's XML), or, when
// nothing is declared, from the measured bandwidth and physics: a bandwidth above what the pair's
// PCIe links can carry (their generation and width, analysis/node/gpu_design) is NVLink; a slower
// pair whose two GPUs are NVLink-fast to every other GPU of their island is a degraded NVLink.
// Without the PCIe generations the configurable thresholds decide (seed §2.3 or modern presets).
// A link is degraded when it has fewer NVLink lanes than its GPUs' design gives it (a direct
// mesh: the lanes its GPUs miss; NVSwitch: the design's lanes per GPU), when its measured bandwidth
// falls below a fraction of what its type gives on the same host (or the fleet), or when its
// P2P-enabled copies are slower than staged ones (P2P broken on the path, e.g. by ACS or IOMMU).
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/link_type.h"
#include "toposcope/model/dataset.h"
#include "toposcope/stats/alpha_stable.h"

namespace toposcope::analysis {

// Which preset a Thresholds started from.
enum class ThresholdPreset { kModern, kSeed };
// "modern" or "seed".
std::string_view ThresholdPresetName(ThresholdPreset p);
// The preset named `name` ("modern" / "seed"); nullopt for any other name.
std::optional<ThresholdPreset> ParseThresholdPreset(std::string_view name);

// Where a link's type comes from.
enum class LinkTypeSource {
  kNvidiaSmiTopo,         // "nvidia-smi-topo"
  kNvidiaSmiTopoNcclXml,  // "nvidia-smi-topo+nccl-topo-xml": nvidia-smi's NVLink, typed by NCCL's XML
  kNcclTopoXml,           // "nccl-topo-xml"
  kBandwidth,             // "bandwidth": the measurement alone
};
// The names above.
std::string_view LinkTypeSourceName(LinkTypeSource s);

// What a measured bandwidth alone says a link is.
enum class BandwidthClass {
  kNone,        // "": not measured
  kNvlink,      // "nvlink"
  kPcieSwitch,  // "pcie_switch"
  kPcieCpu,     // "pcie_cpu"
  kPcie,        // "pcie": PCIe, within what the pair's PCIe generation carries; bandwidth cannot tell
                // a PCIe switch from a path through the CPU (Gen4 via the CPU reaches 22-26 GB/s,
                // as much as under a switch: nvbandwidth #50)
};
// The names above ("" for kNone).
std::string_view BandwidthClassName(BandwidthClass c);

struct Thresholds {
  double nvlink_min_gbps = 60.0;    // above PCIe Gen5 x16's ~57 GB/s measured: only NVLink goes faster
  double pcie_cpu_max_gbps = 18.0;  // at or below: PCIe through the CPU (Gen4 cross-socket ~14-15)
  double degraded_ratio = 0.75;     // measured below this fraction of expected -> degraded
  ThresholdPreset preset = ThresholdPreset::kModern;  // kSeed: 12 / 2 GB/s
};

struct LinkReport {
  std::string a, b;                // GPU ids, a < b by index
  LinkType type = LinkType::kUnknown;
  int lanes = 0;                   // active NVLink lanes (0 when not NVLink)
  int expected_lanes = 0;          // lanes its peers show (0 when not NVLink)
  LinkTypeSource type_source = LinkTypeSource::kBandwidth;
  BandwidthClass bandwidth_class = BandwidthClass::kNone;  // from the measurement alone
  double bandwidth_gbps = NAN;     // measured, unidirectional (mean of the directions)
  double expected_gbps = NAN;      // what the link type should give on this host/fleet
  bool degraded = false;
  double confidence = NAN;         // confidence in the `degraded` verdict, 0..1
  std::string evidence;            // short human explanation
};

// The measurement noise the link and path confidences use: McCulloch's alpha-stable fit
// (stats::FitStableQuantiles) of the relative spread of repeated bandwidth measurements, or the
// prior when the data cannot support a fit.
struct NoiseFit {
  stats::NoiseModel model;  // fitted alpha, beta, scale (the prior's truncation), or the prior
  bool fitted = false;
  int samples = 0;          // relative residuals the fit saw
  std::string source;       // "p2p_bandwidth_repeats" (fitted) or "prior"
  std::string note;         // why the prior was kept ("" when fitted)
  uint64_t seed = 12345;    // Monte Carlo seed: FNV-1a of the residuals (the prior's seed when not fitted)
};

// The residuals: every measured P2P bandwidth sample over the median of its group, minus 1; a group
// is the links of one host with the same type and lanes that hold at least 4 samples (the
// directions and repeats of each link, its like links). Fitted when there are at least 50; else
// the prior, saying why. Never fails.
NoiseFit MeasuredNoise(const model::Dataset& ds, const Thresholds& t, const stats::NoiseModel& prior);

// The seed's thresholds (>= 12 GB/s NVLink, <= 2 GB/s PCIe through the CPU).
Thresholds SeedThresholds();
// Thresholds for current hardware (PCIe Gen4/Gen5 P2P reaches 22-57 GB/s).
Thresholds ModernThresholds();
// The thresholds of a preset: SeedThresholds() or ModernThresholds(). Never fails.
Thresholds PresetThresholds(ThresholdPreset preset);

// kNvlink, kPcieSwitch or kPcieCpu for a measured unidirectional bandwidth; kNone for NaN (not
// measured). Never fails.
BandwidthClass ClassifyBandwidth(double bandwidth_gbps, const Thresholds& t);

// What a measured bandwidth says about a pair whose PCIe links carry at most `pcie_ceiling_gbps`
// (one direction; PairPcieCeilingGbps): kNvlink above the ceiling (PCIe cannot go faster), kPcie at
// or below it; kNone for NaN. With the ceiling NaN (generations unknown), ClassifyBandwidth. Never
// fails.
BandwidthClass ClassifyPairBandwidth(double bandwidth_gbps, double pcie_ceiling_gbps, const Thresholds& t);

// The links of every host, sorted by host then pair, with their type, expected bandwidth and
// degraded verdict; confidences under MeasuredNoise(ds, t, noise) (`noise` is the prior), which is
// also given in `*fit` when `fit` is not null. Never fails: unknown bandwidths leave the verdict to
// the lanes.
std::vector<LinkReport> AnalyzeLinks(const model::Dataset& ds, const Thresholds& t, const stats::NoiseModel& noise,
                                     NoiseFit* fit = nullptr);

}  // namespace toposcope::analysis
