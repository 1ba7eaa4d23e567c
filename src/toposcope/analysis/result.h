// analysis/result: the findings of one whole analysis run, as plain data: every pass's report side
// by side. Each report type lives with its pass (node/links.h has LinkReport, ...), so a pass's
// header pulls in only what that pass needs; report/ renders this; nothing here formats output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/analysis/fabric/link_weights.h"
#include "toposcope/analysis/fabric/nic_ports.h"
#include "toposcope/analysis/fabric/port_counters.h"
#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/analysis/node/confidence.h"
#include "toposcope/analysis/node/islands.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/analysis/time/anchors.h"
#include "toposcope/analysis/time/servo_health.h"
#include "toposcope/analysis/time/telemetry.h"
#include "toposcope/analysis/time/timeline.h"
#include "toposcope/analysis/time/timesync.h"
#include "toposcope/analysis/traffic/collective_bench.h"
#include "toposcope/analysis/traffic/qp_patterns.h"
#include "toposcope/analysis/traffic/rdma.h"
#include "toposcope/analysis/traffic/traffic_matrix.h"

namespace toposcope::analysis {

struct InputReport {
  std::string path, format, host;
  int64_t records = 0, rejected = 0;
  bool skipped = false;
  std::string skip_reason;
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
  ArchitectureReport architecture;  // fat-tree / dragonfly / HHRE with evidence and metrics (§1)
  bool collectives_present = false;
  CollectiveBenchReport collectives;  // nccl-tests runs: bus bandwidth per run and host set
  NicPortReport nics;                 // RDMA NIC ports from the host tools
  ServoReport servo;                  // ptp4l / phc2sys servo series and findings
  PortCounterReport port_counters;    // perfquery port counters: per port and cable findings
  TimelineReport timeline;
  TelemetryReport telemetry;  // DCGM fields, sampling warnings, telemetry findings
  Thresholds thresholds;
  int64_t rejected_total = 0;
  int64_t warnings_total = 0;
  std::vector<std::string> diagnostics;  // kept diagnostics, as text
};

}  // namespace toposcope::analysis
