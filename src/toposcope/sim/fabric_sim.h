// sim/fabric_sim: the simulator's fourth part — the switched fabric between the hosts. On top of a
// cluster's grouping (sim/cluster.h Fabric) it builds the fabric graph with named switches, ports
// and per-link latencies (DOMAIN.md §2), routes flows by ECMP on a real 5-tuple hash (DOMAIN §3.4;
// LORR ring segments for HHRE), injects fabric faults, and renders, in the real formats:
//
//   <host>/probes.csv     host-to-host path probes from this host (formats/path_probe.h CSV:
//                         ts_ns,src,dst,hops,rtt_us; hops = the switches crossed, in order)
//   <host>/qp-states.csv  the host's QP state transitions (formats/qp_state_log.h CSV)
//   fabric.ibnet          the fabric as `ibnetdiscover` prints it (formats/ibnetdiscover.h):
//                         switch descriptions = switch names, CA descriptions "<host> mlx5_0"
//   truth.json "fabric"   switches, links with true latencies, faults, bottlenecks, detours,
//                         QP jobs (docs/truth_schema.md)
//
// Graph (one NIC per host, mlx5_0, 4x NDR 400 Gb/s):
//  - fat-tree: host -- leaf (1-3 m DAC), every leaf -- every spine (10-50 m fibre).
//  - dragonfly: host -- router; routers of a group a complete graph (2-5 m); groups joined by
//    global links (20-100 m), every group pair by >= 1 link, spread over the routers' global ports.
//  - hhre: host -- rack switch; racks of a ring joined in a ring by LORR segments (10-30 m); every
//    rack -- its ring's core (30-60 m); cores a complete graph (50-100 m).
// Latency (one way): NIC+PCIe+verbs 0.6-0.8 µs per host side, switch port-to-port 0.30-0.50 µs
// (RoCE cut-through), cable 5 ns/m, PHY+FEC 0.05-0.12 µs per link, serialization of a 64 B probe.
// A link's `latency_us` is its per-crossing cost: cable + PHY + serialization (+ a degraded link's
// extra) + half the latency of each end (switch, or the host's NIC side), so that an idle probe's
// RTT is exactly 2 x the sum of latency_us over the links of its path (routes are symmetric).
//
// Routing: each switch forwards to the neighbours one hop closer to the destination's switch
// (BFS over the usable links; HHRE: destinations in the same ring over ring segments only, other
// rings over rack--core and core--core links only), and picks among them by
// EcmpHash(tuple, switch seed) mod n over the candidates in switch order. The tuple is symmetric
// (lower IP first), RoCEv2: src/dst IPv4 10.0.x.y, UDP source port from the probe's QP pair
// (rdma_calc_flow_label), dst port 4791, protocol 17; the route is computed from the host with the
// lower IP and both directions use it.
//
// Faults (options.fabric_faults):
//  - congested_switch: an ECMP candidate switch X that upstream ECMP groups over-weight (share
//    0.95 wherever it is one of the candidates: a weighted-ECMP misconfiguration); each traversal of
//    X adds heavy-tailed queueing (Lomax, mean ~5 µs). X is the truth's only bottleneck.
//  - degraded_link: a used inter-switch link trained 1x (serialization x4) with link-level
//    retransmission adding 0.6-1.0 µs per crossing. Preferably one with an end that never has it
//    as its only next hop: that end (`a`) drops it from its ECMP groups (fewer ECMP choices, no
//    traffic pinned), the other end still uses it; else (dragonfly) only its latency changes.
//  - flapping_link: a used inter-switch link down in periodic intervals (25 % of each period); while
//    down, routes avoid it (ECMP groups shrink, flows re-hash), so paths through it vary in time.
//  - detour: a static route (one fixed path, no ECMP skew) sending 90 % of the flows (by a hash of
//    the tuple) between the hosts of two leaves through a switch off every shortest path (>= 2
//    extra hops); its off-shortest nodes are redundant hops.
//  - slow_host: one host whose NIC side is 1.2 µs slower (a poorly tuned host).
// Probe noise: per switch traversal Lomax queueing (alpha 1.6, mean ~0.02 µs), host jitter, and
// 0.6 % outliers of +15..250 µs (the responder descheduled).
//
// QP jobs: hosts in qp_jobs contiguous blocks; job j's kind cycles allreduce, pipeline, mixed
// (from the seed). Every host opens qps_per_host RC QPs (RESET->INIT->RTR->RTS) then:
//  - allreduce: every step boundary (period 80-160 ms per job) all the job's QPs re-create in one
//    batch within ~1.5 ms: RTS->ERR->RESET->INIT->RTR->RTS.
//  - pipeline: each QP re-creates on its own phase (period 250-400 ms, phases evenly staggered
//    over the job's QPs), and between re-creations drains RTS->SQD->RTS (30 %) or hits a send
//    queue error RTS->SQE->RTS (8 %).
//  - mixed: half of each host's QPs as allreduce, the other half staggered as pipeline, kept
//    >= 25 ms away from the step boundaries.
// Every transition is legal per formats::IsLegalQpTransition.
//
// Real fabrics: sim/fabric_import.h builds the graph from an ibnetdiscover dump or a topograph model
// and completes it with PlanFabricOnGraph (same routing, latency model, faults and QP jobs).
//
// Pure functions of the cluster: the same options give the same bytes.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/writers.h"

namespace toposcope::sim {

inline constexpr const char* kProbesFile = "probes.csv";
inline constexpr const char* kQpStatesFile = "qp-states.csv";
inline constexpr const char* kFabricIbnetFile = "fabric.ibnet";
inline constexpr int kMaxFabricHosts = 512;  // keeps every switch under 255 ports
inline constexpr uint16_t kRoceV2UdpPort = 4791;

struct FabricSwitch {
  std::string name;   // "leaf00", "spine01", "g00r1", "rack02", "core00"
  std::string role;   // "leaf" | "spine" | "router" | "rack" | "core"
  std::string group;  // dragonfly group / HHRE ring of the switch ("" otherwise)
  double latency_us = 0;  // port-to-port forwarding, one way
  uint64_t guid = 0;
  int lid = 0;
  int ports = 0;      // ports in use (numbered 1..ports)
  uint32_t ecmp_seed = 0;
  std::string desc;   // imports: the node description as printed ("MF0;A09-P1-IBLEAF-04-04:
                      // MQM9701/U1"); empty for the built-in architectures
};

struct FabricLink {
  int a = 0, b = 0;          // node indices (switches first, then hosts: switches.size() + host)
  int a_port = 0, b_port = 0;
  std::string kind;          // "host" | "leaf-spine" | "local" | "global" | "ring" | "rack-core" |
                             // "core-core"
  double length_m = 0;
  std::string width = "4x";  // "1x" when degraded
  std::string speed = "NDR";
  double rate_gbps = 400;
  double cable_us = 0;       // propagation, 5 ns/m
  double phy_us = 0;         // PHY + FEC
  double serialization_us = 0;  // a 64 B probe at the link rate
  double extra_us = 0;       // degraded: link-level retransmission delay
  double latency_us = 0;     // per crossing, ends' halves included (see the file comment)
  bool ecmp_excluded_at_a = false;  // degraded: end `a` drops it from its ECMP groups
  bool flapping = false;
  std::string design_width;  // degraded: the width as built ("4x"); empty otherwise
};

// An injected fabric fault.
// Named "congested_switch", "degraded_link", "flapping_link", "detour", "slow_host".
enum class FabricFaultKind { kCongestedSwitch, kDegradedLink, kFlappingLink, kDetour, kSlowHost };
// Its name (one of those above).
std::string_view FabricFaultKindName(FabricFaultKind k);

struct FabricFault {
  FabricFaultKind kind = FabricFaultKind::kCongestedSwitch;
  std::string element;  // switch name, link id ("a--b"), host name, or "leafA->leafB" (detour)
  std::string detail;
};

struct FlapInterval {
  int64_t start_ns = 0, end_ns = 0;  // link down in [start, end)
};

// How a QP job re-creates its QPs.
enum class QpJobKind {
  kAllreduce,  // "allreduce": in job-wide batches at step boundaries
  kPipeline,   // "pipeline": staggered
  kMixed,      // "mixed": half batched, half staggered
};
// The names above.
std::string_view QpJobKindName(QpJobKind k);

struct QpJob {
  std::string id;          // "job0"
  QpJobKind kind = QpJobKind::kAllreduce;
  std::vector<int> hosts;  // host indices
  double step_ms = 0;      // allreduce / mixed: step period
  double stagger_ms = 0;   // pipeline / mixed: a staggered QP's re-creation period
};

struct FabricPlan {
  std::vector<FabricSwitch> switches;
  std::vector<FabricLink> links;
  std::vector<int> host_switch;     // per host: the switch index it attaches to
  std::vector<int> host_link;       // per host: its host link
  std::vector<uint32_t> host_ip;    // per host: IPv4 of mlx5_0 (10.0.x.y)
  std::vector<double> host_nic_us;  // per host: NIC side latency, one way
  std::vector<uint64_t> host_guid;  // per host: CA node GUID (port GUID = guid + 1)
  std::vector<FabricFault> faults;
  int congested_switch = -1;        // switch index or -1
  double congested_share = 0;       // ECMP share forced onto it where it is a candidate
  double congested_queue_scale_us = 0;
  int degraded_link = -1, flapping_link = -1;
  std::vector<FlapInterval> flaps;  // of flapping_link
  int detour_src = -1, detour_dst = -1, detour_via = -1;  // switch indices (src < dst leaf)
  double detour_fraction = 0;
  int slow_host = -1;
  std::vector<QpJob> jobs;
  std::vector<int> host_job;        // per host: index into jobs
  int64_t probe_start_ns = 0, probe_end_ns = 0;
  int64_t qp_start_ns = 0, qp_end_ns = 0;
  // Routing tables (filled by PlanFabric): per switch its (neighbour switch, link) pairs, and BFS
  // hop distances dist[(policy * 2 + down) * switches + to][from] (-1: unreachable); policy 0 =
  // every inter-switch link, 1 = HHRE ring segments, 2 = HHRE rack--core and core--core; down 1 =
  // the flapping link removed.
  std::vector<std::vector<std::pair<int, int>>> adj;
  std::vector<std::vector<int>> dist;
  double extra_rtt_us = 0;          // options.probe_extra_rtt_us
  bool hhre = false;
  std::vector<std::string> host_dev;  // per host: adapter device in the QP logs; empty: "mlx5_0"
  bool imported = false;            // graph from sim/fabric_import.h: faults that do not apply are
                                    // dropped (a flapping bridge, a detour visiting a switch twice)
  std::vector<std::string> notes;   // what planning dropped (imports)
};

// What rendering measured (filled by RenderFabric; the truth reads it).
struct FabricStats {
  int64_t probes = 0;
  int64_t detour_probes = 0;
  int64_t outlier_probes = 0;
  int64_t probes_through_congested = 0;
  int64_t qp_records = 0;
  double min_rtt_us = 0, median_rtt_us = 0, max_rtt_us = 0;
  std::vector<std::string> redundant_hops;  // switches on every detoured route, off every shortest
};

// A route: node indices from the source host to the destination host, and the links crossed.
struct FabricRoute {
  std::vector<int> nodes;
  std::vector<int> links;
  bool detour = false;
};

// Checks the fabric options (probes_per_pair 1..1000, probe_window_s 0.01..3600, qp_jobs 1..64,
// qps_per_host 1..256, qp_window_s 0.05..600, max_probe_peers 1..100000, probe_extra_rtt_us
// 0..1e6, switch_latency_shift_us -0.25..5, at most kMaxFabricHosts hosts). Returns ok, or fails (kUsage) with the first option out
// of its range (the Error says which and the range). Always ok when with_fabric is false.
Status ValidateFabricOptions(const SimOptions& options);

// Builds the fabric graph, faults and QP jobs (no probes yet) and returns the plan. Never fails;
// the options must be valid (ValidateFabricOptions).
FabricPlan PlanFabric(const Cluster& cluster);

// Completes a plan whose graph is given — switches (name, role, group, latency_us, guid, lid, ports,
// ecmp_seed), links (ends, ports, kind, length_m, width, speed, rate_gbps, phy_us), host_switch,
// host_link; optionally host_ip, host_guid, host_dev (filled as PlanFabric does when their size is
// not the host count) — exactly as PlanFabric completes a built-in graph: probe/QP windows, NIC
// latencies, routing tables, faults (options.fabric_faults), per-link latencies, QP jobs. The
// cluster supplies hosts (names) and options (seed, windows, fabric options); its arch selects
// the HHRE routing policy only when "hhre". Returns the completed plan (faults that do not apply to
// an imported graph dropped, listed in `notes`). Never fails; the graph must be connected and its
// indices consistent.
FabricPlan PlanFabricOnGraph(const Cluster& cluster, FabricPlan graph);

// The switch-level ECMP hash: CRC-32C over the 13-byte tuple (lower IP, higher IP, UDP source
// port, 4791, 17; big-endian) with `seed` as the initial value, folded (h ^ h >> 16). Returns the
// hash; never fails.
uint32_t EcmpHash(uint32_t ip_a, uint32_t ip_b, uint16_t udp_sport, uint32_t seed);

// Routes a flow between two hosts (a != b) at time t (the flapping link's state) for a RoCEv2 UDP
// source port, as the file comment describes; `allow_detour` applies the detour fault. Returns
// the route from host_a's node to host_b's (nodes and the links between them, `detour` when the
// detour fault took it); never fails (both must be host indices of the plan).
FabricRoute RouteFlow(const FabricPlan& plan, int host_a, int host_b, uint16_t udp_sport,
                      int64_t t_ns, bool allow_detour = true);

// Idle RTT of a route: returns 2 x sum of its links' latency_us (+ options.probe_extra_rtt_us).
// Never fails.
double IdleRttUs(const FabricPlan& plan, const FabricRoute& route);

// The fabric's node name: returns a switch name (node < switches) or a host name. Never fails (node
// must be a node index of the plan).
std::string FabricNodeName(const Cluster& cluster, const FabricPlan& plan, int node);
// Link id: returns the two end names, sorted, joined by "--" ("leaf00--spine01",
// "leaf00--node001"). Never fails (link must be a link index of the plan).
std::string FabricLinkId(const Cluster& cluster, const FabricPlan& plan, int link);

// The fabric as ibnetdiscover would print it (switches, then CAs); never fails.
formats::IbFabric BuildIbFabric(const Cluster& cluster, const FabricPlan& plan);

// The fabric files of one host, relative to the output directory ("<host>/probes.csv",
// "<host>/qp-states.csv"). Never fails.
std::vector<std::string> FabricHostFiles(const HostModel& host);
// The dataset-wide fabric files ("fabric.ibnet"). Never fails.
std::vector<std::string> FabricSharedFiles();

// Renders every fabric file (per host: probes.csv, qp-states.csv; then fabric.ibnet) and returns
// them in that order; fills `stats` (may be null). Never fails.
std::vector<RenderedFile> RenderFabric(const Cluster& cluster, const FabricPlan& plan, FabricStats* stats);

// Adds the fabric truth to truth.json's "fabric" object (made an object when it is not one) and
// hosts[].fabric_files when `root` has a "hosts" array (docs/truth_schema.md). Never fails.
void AddFabricTruth(const Cluster& cluster, const FabricPlan& plan, const FabricStats& stats,
                    nlohmann::json* root);

}  // namespace toposcope::sim
