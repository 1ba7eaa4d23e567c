// act/ring_plan: the rank order of a ring AllReduce planned from the reconstructed topology (issue
// 12 §2). A job's ranks follow its hostfile, which follows host names, not leaves; this planner
// orders the hosts so that the ring crosses as few leaves and as few switch links as it can and
// keeps its edges off degraded or slow cables, and measures both orders the same way.
//
// Inputs (all from the analysis; never the simulator's truth):
//  - links between two hosts: analysis::HostPairLinks, exactly as the architecture pass counts the
//    avg_allreduce_hops of a ring pair (probes' median link count, else the switch graph's shortest
//    path; host links included, host - leaf - host is 2);
//  - leaves: the ibnetdiscover fabric's leaf switches, else the leaves inferred from probe RTTs;
//  - the cables a host pair's traffic crosses: every cable of every hop list probed between the two
//    (ECMP spreads a pair over several routes; any of them may carry a ring edge's QPs);
//  - avoided cables: an inter-switch cable the fabric dump shows trained below the rate most
//    inter-switch cables run at, or whose two ends print different widths or speeds ("degraded");
//    an inter-switch cable whose tomography latency (link_weights pass) lies above the median of
//    the identifiable inter-switch cables by more than slow_cable_mad_k x 1.4826 x max(MAD, floor)
//    ("slow"); an inter-switch cable whose routes fall silent in time ("flapping"): in each of
//    flap_windows equal windows of the probes' span, the pairs that ever crossed it were probed n_w
//    times; with s the share of their probes that crossed it, a window with no crossing has chance
//    p_w = exp(-s n_w) when the cable is always up. The count of silent windows Z is tested against
//    Poisson(sum p_w) (a conservative stand-in for its Poisson-binomial law): flapping when
//    P(Z or more) < flap_alpha / cables tested and Z >= 2 (a link down only while no probe ran is
//    not seen);
//  - GPUs and their NVLink islands per host: the ranks of a host (hostfile slots) and the GPU
//    order inside it (one island after another) for the NCCL graph file.
//
// Order. The cost of a ring edge is its link count, plus avoid_weight_links when its probed routes
// cross an avoided cable, plus 0.001 x its one-way latency in µs (a tie-break: a link is worth
// far more than any latency difference). The planner builds a nearest-neighbour tour from the
// default order's first host (ties by default position) and improves it and the default order by
// 2-opt and or-opt moves (segments of 1..3 hosts) until no move lowers the cost; the cheaper of the
// two is the plan. Starting from the default order, the plan never costs more than the default.
//
// Time model (documented in docs/ring_plan.md). A ring AllReduce of S bytes over n hosts moves
// 2(n-1)/n x S over every edge in 2(n-1) steps, each step as slow as the slowest edge:
//   T = 2(n-1)/n x S / B_min + 2(n-1) x L_max
// with B_min the lowest edge bandwidth (an edge's bandwidth is the lowest rate the fabric dump
// gives the cables its probed routes cross, its hosts' own links included; a pair without a probed
// route: the lower of its hosts' own cable rates) and L_max the highest edge latency (half the
// lowest probe RTT of the pair). NaN without any edge bandwidth; without any edge latency (no
// probes) the latency term is left out.
// Deterministic: every order is by position in the default order; no threads.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::act {

struct RingPlanInputs {
  const analysis::FabricReport* fabric = nullptr;            // ibnetdiscover; may be null or !present
  const analysis::LeafInference* inferred_leaves = nullptr;  // leaves from probe RTTs; may be null
  const analysis::LinkWeightReport* link_weights = nullptr;  // tomography; may be null
  const std::vector<analysis::GpuReport>* gpus = nullptr;    // GPUs and their islands; may be null
  const std::vector<analysis::IslandReport>* islands = nullptr;
  const std::vector<formats::PathProbe>* probes = nullptr;   // may be null or empty
  // The order a job gets by default (the hostfile as written); empty: every known host by name.
  std::vector<std::string> default_order;
};

// The inputs an analysis result gives (its fabric, inferred leaves, link weights, GPUs, islands),
// with the dataset's probes. Never fails; the result and probes must outlive the inputs.
RingPlanInputs RingPlanInputsOf(const analysis::AnalysisResult& result,
                                const std::vector<formats::PathProbe>* probes);

struct RingPlanOptions {
  double message_bytes = 1 << 30;     // S of the time model (1 GiB)
  double avoid_weight_links = 1000;   // cost of an edge crossing an avoided cable, in links
  double unreachable_links = 100;     // cost of an edge no measure joins, in links
  double slow_cable_mad_k = 6;        // slow cable: latency > median + k x 1.4826 x max(MAD, floor)
  double slow_cable_floor_us = 0.05;  // MAD floor (a quiet set of cables has MAD ~ 0)
  int flap_windows = 40;              // equal time windows over the probes' span (flapping test)
  double flap_alpha = 0.01;           // family-wise false-alarm rate of the flapping test
  int max_rounds = 200;               // local-search rounds (each tries every move once)
  int default_slots = 8;              // ranks of a host whose GPUs the data does not list
};

// A cable the plan keeps its edges off, and why.
struct AvoidedCable {
  std::string cable;          // analysis::CableId of its two ends' names
  std::string kind;           // "degraded", "slow" or "flapping"
  std::string reason;         // the measured fact
  double rate_gbps = NAN;     // as the fabric dump prints it
  double latency_us = NAN;    // tomography, per crossing
  int64_t edges_before = 0;   // ring edges of the default order whose probed routes cross it
  int64_t edges_after = 0;    // ... of the plan
  // The fewest ring edges any order puts on it: the number of parts the hosts fall into when
  // joined only by probed pairs whose routes avoid it, when more than one (it is then the only way
  // between those parts: a bridge), else 0.
  int64_t unavoidable_edges = 0;
};

// One edge of a ring (hosts a -> b).
struct RingEdge {
  std::string a, b;
  double links = NAN;            // HostPairLinks; NaN: unreachable
  bool inter_leaf = false;       // both leaves known and different
  double bandwidth_gbps = NAN;   // lowest cable rate on its probed routes (host links included)
  double latency_us = NAN;       // half the pair's lowest probe RTT
  std::vector<std::string> avoided;  // avoided cables its probed routes cross
  std::vector<std::string> cables;   // every cable its probed routes cross (sorted)
};

// One order measured.
struct RingMetrics {
  std::vector<RingEdge> edges;       // n edges, the last back to the first host
  double hops = NAN;                 // links summed over the reachable edges (hops per AllReduce ring)
  int64_t unreachable_edges = 0;
  int64_t inter_leaf = 0;            // inter-leaf crossings
  int64_t avoided_edges = 0;         // edges crossing an avoided cable
  double min_bandwidth_gbps = NAN;   // B_min
  double max_latency_us = NAN;       // L_max
  double allreduce_us = NAN;         // T of the time model
};

// A host's ranks: its GPUs in ring order (one NVLink island after another).
struct HostRanks {
  std::string host;
  std::vector<int> gpu_order;     // GPU indices; empty when the data lists none
  std::vector<int> island_sizes;  // in the same order
  bool one_nvlink_island = false; // every GPU in one NVLink / NVSwitch island
  int slots = 0;                  // ranks (GPUs, else RingPlanOptions::default_slots)
};

struct RingPlan {
  std::vector<std::string> default_order;  // the order compared against
  std::string default_source;              // "hostfile" or "names"
  std::vector<std::string> order;          // the plan
  RingMetrics before, after;
  std::vector<AvoidedCable> avoided;       // sorted by cable
  std::string leaf_source;                 // "ibnetdiscover", "inferred" or "none"
  std::map<std::string, std::string> leaf_of;  // host -> leaf (known ones)
  std::vector<HostRanks> ranks;            // per host of `order`
  double message_bytes = 0;
  std::vector<std::string> evidence;       // what was used and how many of each
};

// Plans the ring. Fails (kInput) when there is no topology to plan from (neither a fabric dump
// nor path probes), fewer than two hosts, or a default order none of whose hosts the topology
// knows; (kUsage) when the default order lists a host twice.
Result<RingPlan> PlanRing(const RingPlanInputs& in, const RingPlanOptions& opt = {});

// Measures an order (hosts named in `plan`'s inputs) as PlanRing measures its two: exposed for the
// EADPS scheduler and tests. Never fails; unknown hosts give unreachable edges.
RingMetrics MeasureRingOrder(const RingPlanInputs& in, const std::vector<std::string>& order,
                             const RingPlanOptions& opt = {});

}  // namespace toposcope::act
