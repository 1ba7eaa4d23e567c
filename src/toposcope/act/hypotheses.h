// act/hypotheses: the fault hypothesis tree (seed §5, issue 12 §3). From the findings of an
// analysis result it builds symptoms (a slow GPU link, a late rank, a clock jump, a telemetry gap,
// a switch paths crowd or detour through, a slow cable, a slow host cable, a bursty RDMA link),
// each with the hypotheses that could cause it, ranked by a transparent model, the evidence for and
// against each, and the next check that would tell the top ones apart (a command with the actual
// host, GPU, switch or cable name).
//
// The model (docs/hypotheses.md has the table with its reasons): per symptom kind, a prior over its
// candidate hypotheses, always with "noise" (the finding is a false alarm); per evidence item, the
// chance P(e | h) that it is observed when h is the cause (a row of kLikelihoods), else the item's
// base rate (its false-alarm rate, also P(e | noise)). Every evidence item of a symptom is observed
// present or absent, and
//   P(h | E) = prior(h) x prod_e [present ? P(e|h) : 1 - P(e|h)]  /  sum over the candidates.
// No fitted weights: every number is in one table in hypotheses.cc (DefaultHypothesisModel).
//
// A flapping cable needs the probes' time series, which an AnalysisResult does not hold: given the
// probes (HypothesisOptions::probes), act/ring_plan's flapping test supplies the evidence. With
// perfquery port counters in the data set (the port_counters pass), their findings raise cable
// symptoms too and are observed on every cable and switch symptom: a port whose LinkDownedCounter
// rose (flapping), symbol / receive errors far above the fabric's (degraded), a switch port waiting
// to send far longer than the others (congested). What the
// analysis does not report, and so no hypothesis here is raised from: broken P2P (no finding), a
// slow collective (nccl-tests results raise no finding yet).
// Deterministic: symptoms sorted by what they cost the job (first those on its data path: GPU links,
// late ranks, switches, cables, host cables; then bursty shared links; then what clouds the
// measurement: clock jumps, telemetry gaps), then by their top fault probability, kind and entity.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::act {

// What may cause a symptom. Named as the simulator names its faults where it injects one (so that
// report/score can compare), "noise", "dcgm_sampling_slow" and "ecmp_polarisation" otherwise.
enum class HypothesisKind {
  kNoise,                  // "noise": the finding is a false alarm / run-to-run noise
  kNvlinkLanesDown,        // "nvlink_lanes_down"
  kPcieDowntrain,          // "pcie_downtrain"
  kThermalLinkDownspeed,   // "thermal_link_downspeed"
  kStraggler,              // "straggler" (a GPU computing slowly)
  kClockStep,              // "clock_step"
  kDcgmSamplingSlow,       // "dcgm_sampling_slow"
  kCongestedSwitch,        // "congested_switch"
  kDegradedLink,           // "degraded_link" (a cable trained below its rate, or retransmitting)
  kFlappingLink,           // "flapping_link"
  kDetour,                 // "detour" (routing sends flows off the shortest paths)
  kSlowHost,               // "slow_host" (a host's NIC side slow)
  kPeriodicCongestion,     // "periodic_congestion"
  kMultiTenantContention,  // "multi_tenant_contention"
  kEcmpPolarisation,       // "ecmp_polarisation"
};
std::string_view HypothesisKindName(HypothesisKind k);

enum class SymptomKind {
  kSlowGpuLink,   // "slow_gpu_link": a GPU's links measured or sampled slow (entity HOST/gpuN)
  kLateRank,      // "late_rank": a rank late to its collectives (HOST/gpuN)
  kClockJump,     // "clock_jump": a host's clock offsets jump (HOST)
  kTelemetryGap,  // "telemetry_gap": DCGM sampled slower than its fields need (HOST)
  kSlowPath,      // "slow_path": paths crowd onto or detour through a switch (SWITCH)
  kSlowCable,     // "slow_cable": an inter-switch cable below its tier's rate or slow (A--B)
  kSlowHostLink,  // "slow_host_link": a host's cable slower than its peers' (HOST)
  kBurstyLink,    // "bursty_link": an RDMA host pair's traffic bursty or contended (A~B)
};
std::string_view SymptomKindName(SymptomKind k);

enum class Evidence {
  kNvlinkLanesBelowPeers,  // "nvlink_lanes_below_peers"
  kPcieLinkSlow,           // "pcie_link_slow"
  kThermalFinding,         // "thermal_finding"
  kStragglerFinding,       // "straggler_finding"
  kClockStepFinding,       // "clock_step_finding"
  kSamplingSlow,           // "sampling_slow"
  kBottleneckSwitch,       // "bottleneck_switch"
  kRedundantHop,           // "redundant_hop"
  kCableBelowUsual,        // "cable_below_usual"
  kCableSlowTomography,    // "cable_slow_tomography"
  kHostCableSlow,          // "host_cable_slow"
  kPeriodicMode,           // "periodic_mode"
  kContentionMode,         // "contention_mode"
  kForeignQps,             // "foreign_qps": SEND / READ flows on the pair no NCCL log names
  kPolarisationRisk,       // "polarisation_risk"
  kRoutesSilent,           // "routes_silent": the cable's routes fall silent in time (probes)
  kLinkDownedRising,       // "link_downed_rising": LinkDownedCounter rose on a port of the cable
  kPortErrorsRising,       // "port_errors_rising": symbol / receive errors far above the fabric's
  kXmitWaitHigh,           // "xmit_wait_high": a switch port's PortXmitWait far above the others'
};
std::string_view EvidenceName(Evidence e);

// The model's one table (see the file comment).
struct PriorRow {
  SymptomKind symptom;
  HypothesisKind hypothesis;
  double prior;  // > 0; normalised over the symptom's rows
};
struct LikelihoodRow {
  Evidence evidence;
  HypothesisKind hypothesis;
  double p_present;  // P(e observed | h), in (0, 1)
};
struct BaseRateRow {
  Evidence evidence;
  double p_present;  // P(e observed | any hypothesis without a row, noise included), in (0, 1)
};
struct HypothesisModel {
  std::vector<PriorRow> priors;
  std::vector<LikelihoodRow> likelihoods;
  std::vector<BaseRateRow> base_rates;
};
// The documented table (docs/hypotheses.md). Never fails.
const HypothesisModel& DefaultHypothesisModel();
// Ok, or fails (kUsage) naming the first row whose number is NaN, infinite or out of its range, or
// an evidence item without a base rate.
Status ValidateHypothesisModel(const HypothesisModel& model);

struct EvidenceItem {
  Evidence evidence = Evidence::kStragglerFinding;
  bool present = false;
  std::string detail;  // the measured fact (present) or what was looked at (absent)
};

struct Hypothesis {
  HypothesisKind kind = HypothesisKind::kNoise;
  std::string entity;        // what it blames (GPU, host, switch, cable, host pair)
  double prior = 0;          // normalised over the symptom's candidates
  double probability = 0;    // posterior
  std::vector<std::string> evidence_for;      // items that raise it (likelihood ratio > 1)
  std::vector<std::string> evidence_against;  // items that lower it
  std::string next_check;    // a concrete command that would confirm or rule it out
};

struct Symptom {
  SymptomKind kind = SymptomKind::kSlowGpuLink;
  std::string entity;
  std::string summary;                 // one line: what was observed
  std::vector<EvidenceItem> evidence;  // every item the model saw
  std::vector<Hypothesis> hypotheses;  // by probability, descending (ties: table order)
  std::string next_check;              // the checks of the top two hypotheses
};

struct HypothesisTree {
  std::vector<Symptom> symptoms;
  double max_fault_probability = 0;  // highest probability of any hypothesis other than noise
  std::vector<std::string> skipped;  // findings left out, with the reason (e.g. a NaN latency)
};

struct HypothesisOptions {
  // A cable is slow when its tomography latency lies above the median of its class (host cables,
  // inter-switch cables) by more than outlier_mad_k x 1.4826 x max(MAD, outlier_floor_us), as
  // act/ring_plan judges slow cables.
  double outlier_mad_k = 6;
  double outlier_floor_us = 0.05;
  // The dataset's path probes, when the caller has them: cables whose routes fall silent in time
  // (act/ring_plan's flapping test) raise slow_cable symptoms with routes_silent evidence. May be
  // null (no flapping evidence: an AnalysisResult does not hold the probes).
  const std::vector<formats::PathProbe>* probes = nullptr;
};

// The ranked hypotheses of one symptom from its evidence. Fails (kUsage) when the model is invalid
// (ValidateHypothesisModel) or has no prior row for the symptom kind.
Result<std::vector<Hypothesis>> RankHypotheses(SymptomKind kind, const std::string& entity,
                                               const std::vector<EvidenceItem>& evidence,
                                               const HypothesisModel& model = DefaultHypothesisModel());

// The tree of every finding in `result`. Fails only when the model is invalid.
Result<HypothesisTree> BuildHypotheses(const analysis::AnalysisResult& result, const HypothesisOptions& opt = {},
                                       const HypothesisModel& model = DefaultHypothesisModel());

}  // namespace toposcope::act
