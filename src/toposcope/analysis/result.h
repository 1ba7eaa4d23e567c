// analysis/result: the findings of one analysis run, as plain data. report/ renders them (JSON,
// text); nothing here formats output.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "toposcope/analysis/anchors.h"
#include "toposcope/analysis/architecture.h"
#include "toposcope/analysis/fabric.h"
#include "toposcope/analysis/leaf_inference.h"
#include "toposcope/analysis/link_weights.h"
#include "toposcope/analysis/path_entropy.h"
#include "toposcope/analysis/qp_patterns.h"
#include "toposcope/analysis/rdma.h"
#include "toposcope/analysis/telemetry.h"
#include "toposcope/analysis/timesync.h"
#include "toposcope/analysis/traffic_matrix.h"
#include "toposcope/base/link_type.h"

namespace toposcope::analysis {

struct InputReport {
  std::string path, format, host;
  int64_t records = 0, rejected = 0;
  bool skipped = false;
  std::string skip_reason;
};

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
  std::string kind;                // "nvswitch", "nvlink", "pcie"
  std::string method;              // "spectral" (measured) or "declared" (topology files only)
  // Agreement of the measured islands with each declared source on this host.
  std::vector<std::pair<std::string, bool>> agrees_with;  // ("nvidia-smi-topo", true), ...
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

struct SamplingRow {
  double period_ms = 0;
  double per_hop_error = 0;  // relative error bound of one edge's measurement (quantile)
  int max_hops = 0;          // longest path whose delta bound stays >= delta_min
};

struct PathConfidence {
  std::string a, b;          // GPU ids
  std::vector<std::string> hops;  // the devices the path crosses, endpoints included
  double delta = NAN;        // 1 - sum w_i eps_i
};

struct ConfidenceReport {
  double alpha = 0, beta = 0, scale = 0, truncation = 0;
  double quantile = 0;       // quantile used for eps
  double delta_min = 0;      // confidence a path must keep
  double base_period_ms = 0; // period of the raw counter updates that a sample averages
  std::vector<SamplingRow> sampling;
  std::vector<PathConfidence> paths;
};

struct Thresholds {
  double nvlink_min_gbps = 60.0;    // above PCIe Gen5 x16's ~57 GB/s measured: only NVLink goes faster
  double pcie_cpu_max_gbps = 18.0;  // at or below: PCIe through the CPU (Gen4 cross-socket ~14-15)
  double degraded_ratio = 0.75;     // measured below this fraction of expected -> degraded
  std::string preset = "modern";    // "modern" or "seed" (12 / 2 GB/s)
};

struct TimelineSource {
  std::string path, host, format;
  int64_t events = 0, records = 0, rejected = 0;
};

// The merged global timeline (present when `align` ran).
struct TimelineReport {
  bool present = false;
  std::string trace_path;
  int64_t events_in = 0, events_out = 0, without_clock = 0;
  std::vector<TimelineSource> sources;
};

// What the implicit anchors (collective completions) contributed to the clock models.
struct AnchorReport {
  bool present = false;
  int64_t events_scanned = 0, candidate_events = 0, groups = 0, groups_dropped = 0;
  std::vector<HostAnchorReport> hosts;
};

struct AnalysisResult {
  std::vector<InputReport> inputs;
  std::vector<GpuReport> gpus;
  std::vector<IslandReport> islands;
  std::vector<LinkReport> links;
  ConfidenceReport confidence;
  std::vector<HostClockFit> clocks;  // per host with sync records: none, linear, quadratic, robust
  AnchorReport anchors;
  RdmaReport rdma;            // flows, QP pairing, link entropy, rings (captures / NCCL logs)
  FabricReport fabric;        // switches, adapters, hosts, links, leaves/spines (ibnetdiscover)
  bool patterns_present = false;
  QpPatternResult patterns;   // communication patterns from QP state logs (seed §3.2)
  bool paths_present = false;
  PathReport paths;           // path entropy, bottlenecks, redundant hops (seed §3.3)
  bool leaves_inferred = false;
  LeafInference inferred_leaves;  // leaves and pods from probe RTTs alone (no switch access, §4)
  LinkWeightReport link_weights;
  TrafficMatrixReport traffic_matrix;
  bool architecture_present = false;
  ArchitectureReport architecture;  // fat-tree / dragonfly / HHRE with evidence and metrics (§1)  // GPU-pair NVLink traffic from DCGM counters + rings  // per-cable latencies by tomography, OpenSM hop weights (§4.2)
  TimelineReport timeline;
  TelemetryReport telemetry;  // DCGM fields, sampling warnings, telemetry findings
  Thresholds thresholds;
  int64_t rejected_total = 0;
  int64_t warnings_total = 0;
  std::vector<std::string> diagnostics;  // kept diagnostics, as text
};

}  // namespace toposcope::analysis
