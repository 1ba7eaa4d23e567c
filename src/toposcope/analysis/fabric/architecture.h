// analysis/fabric/architecture: which network architecture a cluster's fabric is (fat-tree / dragonfly /
// HHRE, MISSION §1's comparison table), with the structural evidence, and the three metrics of
// that table measured on the data: average AllReduce hops, worst-case latency jitter and the
// stability of the seed's topology entropy over time (issue 5 §5).
//
// Method. A switch graph is built from an ibnetdiscover fabric (FabricReport) when present, else
// from the adjacencies seen in path probes' hop lists (src -- hop1 -- ... -- hopN -- dst; hosts
// are the endpoints, every hop a switch; a `*` hop breaks the chain). Switches holding endpoints
// (a host's adapter; SHARP "Aggregation Node" adapters are not endpoints) are *host switches* H,
// the others *core switches* C. The classification reads only structure:
//  - fat-tree (Clos): no H--H link, |C| >= 1, and the graph is layered: with level(H) = 0 and
//    level(C) = BFS distance from H, every switch link joins levels that differ by exactly 1
//    (tiers = max level + 1).
//  - hhre: H--H links are ring segments (every host switch has <= 2 host-switch neighbours and
//    every H--H component is a cycle of >= 3 racks or a path of <= 2), >= 1 ring, every rack
//    links to a core and the racks of one ring to the same core(s), and the cores form a complete
//    graph. From probes alone, links no probe crossed are invisible: the core checks then only
//    weigh in the confidence, and a single ring's core carries no probed traffic at all (in-ring
//    routes use the ring segments only): rings with no core seen still name hhre, at a lower
//    confidence.
//  - dragonfly: |C| = 0 and the host switches (routers) are covered by disjoint cliques of >= 3
//    routers (groups; maximal cliques taken largest first) joined by sparser global links (the
//    density of inter-group links < the intra-group density), >= 2 groups, and some router has
//    > 2 router neighbours (else it is a ring).
//  - else "unknown". Every check's measured value is an evidence string ("unobserved" for the
//    core checks hhre cannot make from probes that saw no core).
// Confidence, from the evidence alone: (the share of the named class's observed checks that hold,
// x sqrt(observed checks / its checks) since a share of fewer checks is less precise - the best
// such figure among the other classes whose required checks the data also pass, the margin over
// the runner-up) x the share of host switches with at least one switch link in the graph (what
// the probes or the dump showed of each leaf).
// 1: every check observed and holding, no rival class, every host switch seen linked; 0: unknown.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/analysis/traffic/rings.h"
#include "toposcope/formats/fabric/path_probe.h"

namespace toposcope::analysis {

// The architecture a switch graph is.
enum class ArchClass { kUnknown, kFatTree, kDragonfly, kHhre };
// "unknown", "fat-tree", "dragonfly", "hhre".
std::string_view ArchClassName(ArchClass c);

// Which switch graph to classify (options) or was classified (report).
enum class GraphSource {
  kNone,    // "none": neither (report only)
  kAuto,    // "auto": the fabric when present, else the probes (options only)
  kFabric,  // "fabric": the ibnetdiscover fabric dump
  kProbes,  // "probes": the probes' hop lists
};
// The names above.
std::string_view GraphSourceName(GraphSource s);

// Which ring order avg_allreduce_hops follows.
enum class RingOrder {
  kNone,              // "none": no ring
  kGiven,             // "given": ArchitectureInputs::rings, of no named source
  kNcclLog,           // "nccl_log": the NCCL logs' ring orders
  kTopologyOrder,     // "topology_order": every known host, those of one leaf switch consecutive and the
                      // leaves in nearest-neighbour order over the switch graph (the ring NCCL builds
                      // when ranks are placed leaf by leaf, as topology-aware schedulers do)
};
// The names above.
std::string_view RingOrderName(RingOrder o);

struct ArchitectureInputs {
  const FabricReport* fabric = nullptr;                      // may be null or !present
  const std::vector<formats::PathProbe>* probes = nullptr;   // may be null or empty
  // The job's ring AllReduce orders: each a host cycle (NCCL ring order, consecutive duplicates
  // collapsed; the last host links back to the first). Empty: the topology-order ring (below).
  std::vector<std::vector<std::string>> rings;
  RingOrder ring_source = RingOrder::kNcclLog;  // where `rings` came from (kNone: kGiven)
};

struct ArchitectureOptions {
  GraphSource graph_source = GraphSource::kAuto;  // kAuto, kFabric or kProbes
  // Entropy stability.
  int entropy_windows = 10;             // equal time windows over the probes' [min ts, max ts]
  int64_t min_window_probes = 20;       // a window with fewer probes is skipped
  // Jitter.
  int64_t jitter_min_pair_samples = 4;      // host pairs with fewer RTT samples are ignored
  int64_t jitter_min_class_samples = 50;    // path-length classes with fewer residuals are ignored
  double jitter_quantile = 0.01;            // low/high quantiles q and 1 - q of the residuals
  double jitter_mad_k = 6;                  // outlier cut: |r - median| > k x kMadToSigma x MAD
  double jitter_mad_floor_us = 0.05;        // MAD floor (a quiet class has MAD ~ 0)
};

// One path-length class of the jitter metric.
struct JitterClass {
  int links = 0;              // links crossed (host links included)
  int64_t pairs = 0;          // host pairs in the class
  int64_t samples = 0;        // residuals kept
  int64_t dropped = 0;        // residuals dropped as outliers
  double half_spread_us = 0;  // (Q(1-q) - Q(q)) / 2 of the kept residuals
};

// Metrics (each NaN when its data is missing):
//
// avg_allreduce_hops: the mean number of links crossed (host links included: host - leaf - host
// is 2) between consecutive members of the job's ring AllReduce, over every consecutive pair of
// every given ring (cyclic: last -> first), pooled. Rings: ArchitectureInputs::rings when given,
// else the default ring = every host known (probe endpoints and fabric hosts) in name order, which
// is the order NCCL's ranks follow when hosts are numbered along their leaves. Per pair: the
// median link count of its probes (either direction; hops + 1 links) when probes join the pair,
// else the shortest path in the switch graph (host links included); pairs with neither are
// unreachable and left out. The counts say which.
//
// jitter_us: worst-case latency jitter, the seed's "±x µs", robust: for every unordered host pair
// with >= jitter_min_pair_samples probes, residual = RTT - the pair's median RTT. Residuals are
// pooled per path-length class (the pair's median link count); in each class with >=
// jitter_min_class_samples residuals, those beyond median ± jitter_mad_k x stats::kMadToSigma
// (1.4826) x max(MAD, floor) are dropped (a descheduled responder's +15..250 µs), and the half-spread (Q(1-q) - Q(q))
// / 2 of the rest is the class's jitter. jitter_us = the maximum over classes (the worst path
// class). Pair medians absorb static differences (path length, a slow host), so only variation in
// time counts: queueing, route changes (flapping links), congestion.
//
// entropy_stability: the seed's topology entropy (SeedNodeEntropyBits over the paths src, hops...,
// dst of the probes in a window) in entropy_windows equal windows of the probes' time span; the
// coefficient of variation (population std / mean) of the windows' entropies (windows with <
// min_window_probes skipped; lower = more stable). NaN with < 2 windows; 0 when the mean is 0.
struct ArchitectureReport {
  ArchClass arch_class = ArchClass::kUnknown;
  double confidence = 0;               // 0..1 (see the file comment)
  GraphSource graph_source = GraphSource::kNone;  // kFabric, kProbes or kNone
  std::vector<std::string> evidence;   // measured structural facts, then the metrics' counts

  // Structure of the switch graph.
  int switches = 0;
  int host_switches = 0;   // H: switches holding endpoints
  int core_switches = 0;   // C: switches holding none (connected ones)
  int endpoints = 0;       // hosts (probes) or endpoint adapters (fabric)
  int64_t hh_links = 0, hc_links = 0, cc_links = 0;  // distinct switch pairs linked
  bool layered = false;    // fat-tree level check
  int tiers = 0;           // layered: max level + 1
  std::vector<int> group_sizes;   // dragonfly cliques (>= 3), largest first
  std::vector<int> ring_lengths;  // H--H cycles / short paths (racks per ring), largest first
  bool cores_complete = false;    // cores pairwise linked (or a single core)

  // avg_allreduce_hops.
  double avg_allreduce_hops = NAN;
  RingOrder ring_order = RingOrder::kNone;  // ArchitectureInputs::ring_source, kTopologyOrder or kNone
  int64_t ring_pairs = 0;              // consecutive pairs counted
  int64_t ring_pairs_probed = 0;       // ... measured from probes
  int64_t ring_pairs_graph = 0;        // ... from the switch graph's shortest path
  int64_t ring_pairs_unreachable = 0;  // ... neither (left out)
  double mean_pair_hops = NAN;  // mean over all probed host pairs of their median link count

  // jitter_us.
  double jitter_us = NAN;
  int jitter_links = 0;  // the class that defines it
  std::vector<JitterClass> jitter_classes;  // by links
  int64_t jitter_pairs = 0;

  // entropy_stability.
  double entropy_stability = NAN;
  int entropy_windows = 0;                 // windows used
  std::vector<double> window_entropy_bits; // per used window, in time order
  double entropy_mean_bits = NAN;
};

// Identifies the architecture and measures the metrics; returns the report with its evidence.
// Never fails: missing inputs give "unknown" / NaN metrics with evidence saying why.
ArchitectureReport IdentifyArchitecture(const ArchitectureInputs& in, const ArchitectureOptions& opt = {});

// The links crossed between every two of `hosts`, counted exactly as avg_allreduce_hops counts a
// ring pair (host links included): the median link count of the pair's probes when probes join it,
// else the shortest path in the switch graph the options choose (the fabric dump or the probes'
// hop lists; hosts are not transit nodes). Returns a row-major hosts.size() x hosts.size() matrix,
// 0 on the diagonal, NaN for pairs neither measures (unreachable). Never fails.
std::vector<double> HostPairLinks(const ArchitectureInputs& in, const std::vector<std::string>& hosts,
                                  const ArchitectureOptions& opt = {});

// The distinct cross-node host cycles of the complete NCCL-log rings of a RingReport (source "nccl_log",
// rings of >= 2 hosts), in the order first seen, for ArchitectureInputs::rings. Never fails: empty
// when the report has no such ring.
std::vector<std::vector<std::string>> RingHostOrders(const RingReport& rings);

}  // namespace toposcope::analysis
