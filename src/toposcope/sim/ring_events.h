// sim/ring_events: the simulator's scene for the entropy-aware scheduler (issue 12 §1). A job's ring
// AllReduce runs over a simulated fabric (sim/fabric_sim: fat-tree, dragonfly or HHRE, ECMP on the
// RoCEv2 5-tuple) for duration_s; an event is injected on one inter-switch cable the ring uses,
// mid-run; the scene renders, in real formats, what a monitoring tap sees:
//
//   captures/<switch>-p<port>.pcap  a sampled mirror of every inter-switch cable, both directions
//                                   (port of the end whose name sorts first): per window_s, up to
//                                   sampled_messages messages per QP crossing it (1:N sampling, as
//                                   sFlow / sampled ERSPAN do), RoCEv2 RDMA WRITE Only with RETH
//                                   (the DMA length is the message size), cut to 128 bytes
//   inventory.csv                   host, ip, nic (mlx5_0), leaf
//   fabric.ibnet                    the fabric as ibnetdiscover prints it
//   hostfile                        the job's ranks as written (host index order, `host slots=8`)
//   <host>/probes.csv               path probes over the clean fabric (sim/fabric_sim's, before the run)
//   truth.json "ring_event"         the event (read only by the scorer)
//
// Traffic. Ring hop a -> b of the job (order: hosts in index order) opens qps RC QP pairs (each its
// UDP source port, rdma_calc_flow_label of the pair), routed by fabric_sim::RouteFlow. Per QP and
// window: messages of chunk_bytes / qps (NCCL Simple: one step of the channel buffer, split over
// the QPs) a -> b, each preceded by the receiver's 32-byte fifo write b -> a on the same QP pair.
//
// Events (on `cable`, from event_start_s to event_end_s):
//  - congestion: another tenant's bulk flows (tenant_flows RC pairs, hosts and ports chosen so that
//    their routes cross the cable) send messages of log-uniform sizes 256 B .. 4 MiB, 3 x the ring's
//    sampled count per flow and window; they take tenant_share of the cable's rate, and of every
//    other cable a share in proportion to the tenant flows it carries.
//  - flapping: the cable is down for flap_down_fraction of every flap_period_s; while down, flows
//    whose route crossed it are re-hashed (the UDP source port salted until the route avoids it, as
//    a switch's ECMP group shrinks), so their traffic moves to other cables; up again, they return.
//  - degraded: the cable trains at 1x (a quarter of its rate); routes do not change.
// Congestion marks: a directed cable is saturated when it sets the ring's rate (the slowest share of
// every cable the ring crosses) and is slower than the hosts' NICs; there a queue builds, and the
// switch marks the data messages that cross it (IP ECN CE, with probability mark_probability per
// message). A mark stays on a packet: the captures of the cables after it on the flow's route see it
// too, those before it do not. A saturated cable whose share never changes (an ECMP collision of
// two hops) is marked for the whole run.
// The affected captures (truth) are the cables whose traffic the event changed: the event's cable,
// and the cables the tenant's flows cross or re-hashed flows moved to, and the tenant's own host
// pairs ("<host>~<host>", names sorted: the traffic between those hosts changed too).
//
// Measure (MeasureRingAllReduce): a ring AllReduce of message_bytes over n hosts moves
// 2(n-1)/n x S over every hop in 2(n-1) steps; every hop runs at the ring's rate r, the largest
// rate every directed cable can carry: r = min over cables of available rate / load, load = the
// share of hops' QPs crossing the cable in that direction (a QP carries 1/qps of its hop). Time
// T = 2(n-1)/n x S / r + 2(n-1) x L_max (L_max: the slowest hop's one-way latency, its route's
// links), plus, while a flapping cable is down and some hop has no path around it, the wait until it
// is back; bus bandwidth = 2(n-1)/n x S / T (nccl-tests' busbw of all_reduce).
// Pure functions of the options: the same options give the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/fabric_sim.h"

namespace toposcope::sim {

// What is injected. Named "none", "congestion", "flapping", "degraded".
enum class RingEventKind { kNone, kCongestion, kFlapping, kDegraded };
// Its name (one of those above).
std::string_view RingEventKindName(RingEventKind k);
// The kind named `name`; nullopt for any other name.
std::optional<RingEventKind> ParseRingEventKind(std::string_view name);

struct RingEventOptions {
  Arch arch = Arch::kFatTree;
  int hosts = 16;                 // 4 .. 256
  uint64_t seed = 1;
  RingEventKind event = RingEventKind::kCongestion;
  double duration_s = 40;
  double window_s = 0.5;          // sampling period of the mirrors
  double event_start_s = 12, event_end_s = 28;
  int qps_per_connection = 1;     // the job's NCCL_IB_QPS_PER_CONNECTION at start
  int sampled_messages = 8;       // per QP and window
  double chunk_bytes = 512 * 1024;
  double message_bytes = 1 << 30; // AllReduce size of the measure
  int tenant_flows = 6;
  double tenant_share = 0.75;
  double flap_period_s = 2, flap_down_fraction = 0.25;
  // Share of the data messages a saturated queue marks (IP ECN CE, as DCQCN's RED-like marking
  // does between its thresholds); < 0: drawn from the seed in [0.05, 0.3].
  double mark_probability = -1;
};

// Checks the options (hosts 4..256, 0 < window <= duration <= 3600, 0 <= start < end <= duration,
// qps 1..64, sampled messages 1..1000, shares in (0, 1), flap fraction in (0, 1)). Fails (kUsage)
// naming the option.
Status ValidateRingEventOptions(const RingEventOptions& o);

struct RingEventScene {
  RingEventOptions options;
  Cluster cluster;
  FabricPlan plan;
  std::vector<int> order;           // the job's ring, host indices
  int cable = -1;                   // the event's fabric link (-1: none)
  std::string cable_id;             // FabricLinkId
  std::string capture_link;         // "capture:<switch>-p<port>" of that cable
  std::vector<int> captured;        // the inter-switch links mirrored
  std::vector<std::string> capture_points;  // their points ("<switch>-p<port>"), same order
  struct TenantFlow {
    int a = 0, b = 0;
    uint16_t sport = 0;
  };
  std::vector<TenantFlow> tenant;   // congestion only
  std::vector<std::string> affected_links;  // capture / host-pair link ids whose traffic the event changed (sorted)
  int64_t base_ns = 0;              // wall time of t = 0
};

// Plans the scene: cluster and fabric (no fabric faults), the job order, the event's cable (drawn
// from the seed among the inter-switch cables the ring's QPs cross), the tenant's flows and the
// affected captures. Fails (kUsage) on bad options or when the ring crosses no inter-switch cable.
Result<RingEventScene> PlanRingEvent(const RingEventOptions& o);

// Whether the event is on at t (seconds from the start; flapping: the cable is down). Never fails.
bool RingEventActive(const RingEventScene& s, double t_s);

// Writes the dataset into `dir` (created): the files of the file comment. Returns the files
// written (relative); fails (kOutput) when one cannot be written.
Result<std::vector<std::string>> WriteRingEventDataset(const RingEventScene& s, const std::string& dir);

// The directed cables (link, crossed from its end a to b?) saturated at t by the ring `order`
// with `qps` QPs per hop (see the file comment). Never fails.
std::set<std::pair<int, bool>> SaturatedCables(const RingEventScene& s, const std::vector<int>& order, int qps, double t_s);

struct RingAllReduceMeasure {
  double time_us = 0;
  double busbw_gbps = 0;   // bus bandwidth, Gb/s
  double rate_gbps = 0;    // r
  std::string bottleneck;  // the cable that sets r ("" when the NICs do)
};
// The AllReduce of `order` (host indices) with `qps` QPs per hop at t (seconds from the start).
// Never fails (order of >= 2 hosts of the scene).
RingAllReduceMeasure MeasureRingAllReduce(const RingEventScene& s, const std::vector<int>& order, int qps, double t_s);

}  // namespace toposcope::sim
