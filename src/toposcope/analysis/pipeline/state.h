// analysis/pipeline/state: the named passes of an analysis run and what each one produces. Every
// pass reads the outputs of the passes it needs (and, for some, the loaded inputs) and fills its
// own slot here; a slot can also be filled from a dump of an earlier run, so any pass can be run
// and tested without the passes before it (see pipeline.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

// The passes, in the order they run (each needs only passes before it).
enum class PassId {
  kLoad,           // read every input into the dataset (model::LoadPaths)
  kLinks,          // GPU-pair link types and degraded links
  kIslands,        // NVLink / NVSwitch islands
  kConfidence,     // §2.5 confidence bounds of edges and paths
  kClocks,         // per-host clock models from sync records
  kAnchors,        // clock models refined with collective-completion anchors
  kTelemetry,      // DCGM fields, sampling warnings, thermal / clock-step findings
  kFabric,         // switches, adapters, leaves and spines from ibnetdiscover / iblinkinfo
  kPatterns,       // AllReduce / pipeline patterns from QP state logs
  kPaths,          // path entropy, bottlenecks, redundant hops from probes
  kLeaves,         // leaf and pod membership from probe RTTs alone
  kLinkWeights,    // per-cable latencies by tomography, OpenSM hop weights
  kRdma,           // flows, QP pairing, link entropy, rings from captures and NCCL logs
  kTrafficMatrix,  // GPU-pair NVLink traffic from DCGM counters and rings
  kArchitecture,   // fat-tree / dragonfly / HHRE with evidence and metrics
  kCollectives,    // nccl-tests bus bandwidth per run and host set, failed validations
  kNics,           // RDMA NIC ports from ibstat / ibv_devinfo / show_gids / rdma
  kServo,          // ptp4l / phc2sys servo series, diverging and saturated servos
  kPortCounters,   // cable findings from perfquery port counters (LinkDowned, errors, XmitWait)
  kTimeline,       // every event on the global axis, merged (only when a sink is given)
};
inline constexpr int kPassCount = static_cast<int>(PassId::kTimeline) + 1;

// "load", "links", ... "timeline": the name a pass goes by on the command line and in dumps.
std::string_view PassName(PassId id);
// The pass of that name; nullopt for an unknown name.
std::optional<PassId> PassFromName(std::string_view name);

// Diagnostics a pass produced itself, while streaming inputs the loader only listed.
struct PassDiagnostics {
  int64_t rejected = 0, warnings = 0;
  std::vector<std::string> lines;  // kept diagnostics, as text
};

// New record counts of an input that a pass streamed (the loader only listed it). An update
// with a skip reason marks the input skipped.
struct InputUpdate {
  std::string path;
  int64_t records = 0, rejected = 0;
  std::string skip_reason;  // empty: the input was read
};

struct AnchorsOutput {
  AnchorReport report;
  std::vector<HostClockFit> clocks;  // the clock models after the anchors (the input models when none)
};

struct PatternsOutput {
  bool present = false;  // the dataset had QP state logs
  QpPatternResult result;
  std::vector<InputUpdate> inputs;
  PassDiagnostics diag;
};

struct PathsOutput {
  bool present = false;  // the dataset had path probes
  PathReport report;
};

struct LeavesOutput {
  bool present = false;  // inferred (the dataset had path probes)
  LeafInference leaves;
};

struct RdmaOutput {
  RdmaReport report;
  std::vector<InputUpdate> inputs;  // the captures' record counts
  PassDiagnostics diag;
};

struct ArchitectureOutput {
  bool present = false;  // a fabric dump or path probes to work from
  ArchitectureReport report;
};

struct CollectivesOutput {
  bool present = false;  // the dataset had nccl-tests output
  CollectiveBenchReport report;
};

struct TimelineOutput {
  TimelineReport timeline;
  std::vector<TelemetryFinding> stragglers;  // found while merging; reported with the telemetry
  PassDiagnostics diag;
};

// The outputs of one run: a slot per pass, empty until the pass ran or was loaded.
struct PipelineState {
  PipelineState() = default;
  PipelineState(const PipelineState&) = delete;  // `dataset` may point into this object
  PipelineState& operator=(const PipelineState&) = delete;

  std::optional<model::Dataset> dataset_storage;  // the dataset when the pipeline owns it
  const model::Dataset* dataset = nullptr;        // the inputs every reading pass works from
  std::optional<std::vector<LinkReport>> links;
  // The noise fit the links pass judged with (confidence uses it; absent when links came from a dump).
  std::optional<NoiseFit> link_noise;
  std::optional<IslandOutput> islands;
  std::optional<ConfidenceReport> confidence;
  std::optional<std::vector<HostClockFit>> clocks;
  std::optional<AnchorsOutput> anchors;
  std::optional<TelemetryReport> telemetry;
  std::optional<FabricReport> fabric;
  std::optional<PatternsOutput> patterns;
  std::optional<PathsOutput> paths;
  std::optional<LeavesOutput> leaves;
  std::optional<LinkWeightReport> link_weights;
  std::optional<RdmaOutput> rdma;
  std::optional<TrafficMatrixReport> traffic_matrix;
  std::optional<ArchitectureOutput> architecture;
  std::optional<CollectivesOutput> collectives;
  std::optional<NicPortReport> nics;
  std::optional<ServoReport> servo;
  std::optional<PortCounterReport> port_counters;
  std::optional<TimelineOutput> timeline;

  // Adopts a dataset the pipeline owns (the load pass, or one read from a dump).
  void SetDataset(model::Dataset ds) {
    dataset_storage = std::move(ds);
    dataset = &*dataset_storage;
  }
};

}  // namespace toposcope::analysis
