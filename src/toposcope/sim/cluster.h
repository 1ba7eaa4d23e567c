// sim/cluster: the simulated cluster as a model in memory: hosts of the built-in node types with
// their current (possibly faulty) link state, the injected faults, the fabric grouping, and the
// true per-GPU-pair path type, lanes, bandwidth and latency. Everything is a pure function of the
// options (same options and seed -> same cluster).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/link_type.h"
#include "toposcope/base/result.h"
#include "toposcope/sim/naming.h"
#include "toposcope/sim/node_types.h"
#include "toposcope/stats/alpha_stable.h"

namespace toposcope::sim {

// The architecture of a simulated cluster (see Fabric).
enum class Arch {
  kFatTree,    // "fat-tree"
  kDragonfly,  // "dragonfly"
  kHhre,       // "hhre"
  kImported,   // "imported": a real fabric (sim/fabric_import.h); BuildCluster builds only the others
};
// The names above.
std::string_view ArchName(Arch a);
// The architecture named `name`; nullopt for any other name.
std::optional<Arch> ParseArch(std::string_view name);

// A fault injected into a node's GPU links (in the order of the names, as faults sort by kind).
enum class NodeFaultKind {
  kNone,             // "": no fault
  kNvlinkLanesDown,  // "nvlink_lanes_down"
  kPcieDowntrain,    // "pcie_downtrain"
};
// The names above ("" for kNone).
std::string_view NodeFaultKindName(NodeFaultKind k);

struct SimOptions {
  Arch arch = Arch::kFatTree;
  uint64_t seed = 1;
  int hosts = 16;                       // 1 .. 100000
  std::vector<std::string> node_types;  // host i gets node_types[i % size]; empty: all registered
                                        // types in registry order
  int faults = 4;                       // requested faults (fewer when not enough eligible hosts)
  // How hosts and switches are named (sim/naming.h): kPlain numbers them in placement order
  // (node001, leaf00, spine00); a real style draws them from the seed in random order, so that no
  // name tells where its device sits. Group and ring names name no device and stay numbered.
  NameStyle naming = NameStyle::kPlain;
  stats::NoiseModel noise;              // relative error of every measured P2P cell (and of the
                                        // DCGM throughput and activity samples)

  // Variation (sim/variation.h): with `vary`, every option below left unset (and the DCGM periods
  // unless dcgm_periods_fixed, nccl_version and node_types) is drawn from the seed; Simulate
  // resolves them first (ResolveVariation) and writes the values to truth.json and the summary.
  bool vary = false;
  std::string switch_class;             // "" fixed 0.30-0.50 µs; "ib", "roce-cut-through",
                                        // "ethernet-merchant"
  std::string link_class;               // "" fixed PHY + FEC 0.05-0.12 µs; "dac", "optics"
  std::string clock_profile;            // "" or "mixed": PTP when (i + i/4) is even; "ptp"; "ntp"
  bool dcgm_periods_fixed = false;      // the user set the DCGM periods: `vary` keeps them
  std::vector<std::string> drawn_options;  // filled by ResolveVariation: the options it drew

  // Telemetry (sim/telemetry.h): per-host clocks with their sync logs (chrony / ptp4l / sync CSV),
  // a training job's DCGM samples (dmon / exporter scrapes / CSV), per-rank Kineto traces and NCCL
  // Inspector records, plus their truth (clocks, check instants, telemetry faults, sampling).
  bool with_telemetry = false;          // off: only the topology files of the first part
  double duration_s = 240;              // span of the clock model and the sync logs (10..3600)
  double telemetry_s = 60;              // span of the job's DCGM samples, centred in the run
  int dcgm_period_ms = 100;             // DCGM sampling period of most hosts (10..10000)
  int slow_dcgm_period_ms = 1000;       // period of the deliberately slow hosts (a multiple of the
                                        // above)
  int trace_iterations = 30;            // iterations in every rank's trace window (0: no traces)
  int trace_host_every = 1;             // traces and NCCL Inspector logs on hosts i % N == 0 (and
                                        // the hosts of telemetry faults); 1: every host
  int64_t start_unix_s = 1714564800;    // true time of the run start (2024-05-01T12:00:00Z)
  int clock_checks_per_host = 200;      // truth-only check instants per host
  bool telemetry_faults = true;         // inject thermal link down-speed, straggler, clock step

  // RDMA traffic (sim/rdma_traffic.h): the job's NCCL communicator with its NCCL_DEBUG=INFO logs,
  // per-port RoCEv2 packet captures of a short window, `rdma res show qp` snapshots, an inventory
  // CSV, and their truth (truth.json "rdma").
  bool with_rdma = false;               // off: no RDMA files (at most 1024 hosts when on)
  double rdma_window_ms = 20;           // captured window (1..1000 ms)
  int nccl_channels = 2;                // ring/tree channels of the communicator (1..16)
  int qps_per_connection = 1;           // NCCL_IB_QPS_PER_CONNECTION (1..8)
  double loss_rate = 2e-4;              // per data packet sent (0..0.05): NAK + go-back-N
  bool background_traffic = true;       // other tenants' QPs (SEND / READ) on some ports
  int congested_links = 1;              // backbone links with periodic congestion (0..4)
  double congestion_period_us = 1000;   // burst period of those links (50..100000 us)
  int rdma_capture_hosts = 16;          // hosts whose leaf downlink ports are mirrored (0..64)
  bool spine_capture = true;            // fat-tree: also mirror leaf00's uplink to spine00
  int rdma_snaplen = 128;               // snaplen of the truncated captures (64..65535); one
                                        // capture is always full length
  int max_packets_per_capture = 20000;  // records kept per capture (the earliest)
  int rdma_message_bytes = 65536;       // bytes of one NCCL network send on a ring hop (4 KiB..16 MiB)
  double rdma_message_interval_us = 250;  // one send per ring hop and channel every ~this (5..1e5)
  std::string nccl_version;             // "2.26.2" | "2.16.5"; empty: chosen from the seed

  // Fabric (sim/fabric_sim.h): switch graph, ECMP routing, host-to-host path probes, QP state
  // logs, an ibnetdiscover dump, and their truth (truth.json "fabric").
  bool with_fabric = false;             // off: no fabric files (at most 512 hosts when on)
  int probes_per_pair = 8;              // probes per ordered host pair (1..1000)
  double probe_window_s = 10;           // span of the probes (0.01..3600 s)
  int max_probe_peers = 64;             // peers each host probes (all when fewer hosts)
  double probe_extra_rtt_us = 0;        // added to every RTT (0: idle RDMA regime; e.g. 250 for
                                        // the seed's kernel-TCP-like regime)
  int qp_jobs = 3;                      // jobs over the hosts (kinds allreduce/pipeline/mixed)
  int qps_per_host = 8;                 // RC QPs each host's job opens (1..256)
  double qp_window_s = 2;               // span of the QP state logs (0.05..600 s)
  bool fabric_faults = true;            // congested switch, degraded/flapping link, detour,
                                        // slow host
  double switch_latency_shift_us = 0;   // added to every switch's drawn port-to-port latency
                                        // (-0.25..5 µs; a switch keeps at least 0.05 µs)
  // Real fabric import (sim/fabric_import.h): when one is set, Simulate takes the cluster from this
  // ibnetdiscover dump (checked first) or topograph model instead of `arch`: one endpoint per
  // compute adapter, the real switches, ports and rates, and writes only the fabric files
  // (per-host probes.csv / qp-states.csv, fabric.ibnet) and truth.json. The fabric options above
  // apply; arch, hosts, node_types, faults, noise, with_telemetry and with_rdma are ignored.
  std::string fabric_ibnet_path;
  std::string fabric_topograph_path;
};

// Which P2P measurement a host's directory holds.
enum class P2pToolKind { kNvbandwidth, kP2pBandwidthLatencyTest };

// The current state of one GPU.
struct GpuState {
  int pcie_gen = 0;  // as trained now
  int pcie_width = 0;
  std::vector<int> nvswitch_lanes;  // active lanes to each NVSwitch (empty on non-NVSwitch nodes)
};

struct HostModel {
  int index = 0;     // 0-based position in the cluster
  std::string name;  // "node001" (or a name in SimOptions::naming's style)
  const NodeType* type = nullptr;
  std::vector<GpuState> gpus;
  std::vector<int> bridge_lanes;  // active lanes per NodeType::bridges entry
  std::string leaf;               // the fabric switch the host attaches to
  P2pToolKind p2p_tool = P2pToolKind::kNvbandwidth;
  uint64_t host_hash = 0;  // NCCL's host_hash
  bool faulty = false;     // a fault was injected here
};

// The truth about one GPU pair (a < b).
struct LinkTruth {
  int a = 0;
  int b = 0;
  LinkType type = LinkType::kUnknown;  // designed path type
  int lanes = 0;                       // active NVLink lanes (0 for PCIe pairs)
  int design_lanes = 0;                // NVLink lanes as built
  double bandwidth_gbps = 0;           // true unidirectional copy bandwidth now
  double healthy_gbps = 0;             // the same without faults
  double latency_us = 0;               // true small-message P2P write latency
  bool degraded = false;               // lanes < design_lanes or bandwidth < 0.8 x healthy
  NodeFaultKind fault = NodeFaultKind::kNone;  // the fault that affects this pair, or kNone (read off
                                       // the state: lost lanes -> nvlink_lanes_down, slower PCIe
                                       // -> pcie_downtrain; faults are the only state changes)
};

struct FaultTruth {
  NodeFaultKind kind = NodeFaultKind::kNvlinkLanesDown;
  int host = 0;           // host index
  std::vector<int> gpus;  // GPU indices on that host
  std::string detail;     // "9 of 18 lanes down", "PCIe link trained x4 (designed Gen4 x16)"
};

// A named switch/group with its members.
struct FabricGroup {
  std::string name;
  std::vector<std::string> members;
};

// Fabric grouping (routing comes later):
//  - fat-tree: a 2-tier leaf-spine Clos; leaves of 4 hosts ("leaf00" ...), every leaf wired to every
//    spine; max(2, ceil(leaves / 2)) spines ("spine00" ...).
//  - dragonfly: routers of 2 hosts (p = 2) in groups of 4 routers (a = 4, h = 2: balanced a = 2p =
//    2h); a router is the host's leaf ("g00r0"); routers of a group form a complete graph, groups
//    are joined by global links. `groups` lists the routers of each group; no spines.
//  - hhre: racks of 4 hosts behind a top-of-rack switch ("rack00", the leaf; NVLink inside nodes),
//    racks joined in LORR rings of up to 4 racks (`rings`, "ring00" ...), rings joined through
//    region cores (the spines "core00" ..., one per ring).
struct Fabric {
  std::vector<FabricGroup> leaves;  // leaf switch -> hosts
  std::vector<std::string> spines;
  std::vector<FabricGroup> groups;  // dragonfly: group -> routers
  std::vector<FabricGroup> rings;   // hhre: ring -> racks
};

struct Cluster {
  SimOptions options;
  std::vector<HostModel> hosts;
  std::vector<FaultTruth> faults;
  Fabric fabric;
};

// Builds the cluster: hosts and node types, fabric, faults (placed and sized from the seed: kinds
// alternate nvlink_lanes_down / pcie_downtrain, at most one fault per host, on eligible hosts only).
// Returns the cluster (with fewer faults than requested when too few hosts are eligible). Fails
// (ErrorKind::kUsage) on an arch other than fat-tree, dragonfly or hhre, an unknown node type,
// hosts outside 1..100000, negative faults, or a noise model outside its domain.
Result<Cluster> BuildCluster(const SimOptions& options);

// A part's host limit (the RDMA and fabric simulations have one): ok when options.hosts is at most
// `max_hosts`, else fails (kUsage) with "<part> simulation supports at most <max_hosts> hosts" and
// `hint`.
Status CheckHostLimit(const SimOptions& options, int max_hosts, const std::string& part, const std::string& hint);

// Every GPU pair of a host (a < b), in order (0,1), (0,2), ..., with the physics of node_types.h:
// returns G(G-1)/2 entries for G GPUs; never fails (the host must have its node type).
std::vector<LinkTruth> HostLinks(const HostModel& host);

// Small-message P2P write latency model (microseconds), loosely after DOMAIN.md §1.5: NVLink ~1.9,
// NVSwitch ~2.1, PCIe PIX 10.5, PXB 11.0, PHB 11.5, NODE 12.5, SYS 14.5; returns 15 for any other
// type. Never fails.
double LatencyModelUs(LinkType type);

// The RNG stream labels (Rng::Mix(seed, label)): host i's measurements use label i; faults use
// kFaultStreamLabel.
inline constexpr uint64_t kFaultStreamLabel = 0xFA0175EEDULL;

}  // namespace toposcope::sim
