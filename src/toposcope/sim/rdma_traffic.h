// sim/rdma_traffic: the simulator's third part. On top of a cluster (sim/cluster.h) it builds the
// training job's NCCL communicator (ranks = every GPU, rank = host's first rank + GPU index, as
// sim/traffic.h), its rings and double binary trees, the RDMA queue pairs of the cross-host ring
// hops and of other tenants, and renders, in the real formats:
//
//   <host>/nccl-rank<R>.log     NCCL_DEBUG=INFO log of one rank (hosts with an even index)
//   <host>/nccl-debug.log       the same for all ranks of a host, interleaved (odd hosts)
//   <host>/rdma-res-qp.txt      `rdma res show qp` at the end of the window (hosts i % 3 != 2)
//   inventory.csv               host,ip,nic,port,gid,rack,leaf for hosts i % 3 != 1 only: the other
//                               hosts' addresses come from the NCCL logs (OOB iface, GIDs)
//   captures/<leaf>-p<port>.pcap  nanosecond pcap of one mirrored switch port over the window
//   truth.json "rdma"           what was simulated (docs/truth_schema.md)
//
// Addressing: NIC k of host i (the node type's NICs, mlx5_k) has IPv4 10.k.((i+1)>>8).((i+1)&255),
// netdev enp<bus>s0np0, GID index 3 (RoCE v2, ::ffff:IP), and is wired to port
// slot * 8 + k + 1 of the host's leaf (slot = the host's position under its leaf).
//
// Communicator: channel c uses NIC n_c of every host (NICs spread over the channels) and, inside a
// host, the GPUs in NVLink order e, e-1, ..., e+1 (mod 8) from the GPU e closest to NIC n_c; the ring
// leaves a host from GPU e+1 through NIC n_c and enters the next host at GPU e through its NIC n_c.
// Hosts are in index order on even channels; odd channels reverse the hosts under each leaf (another
// order NCCL's search can produce). Trees: NCCL's double binary tree over hosts (ncclGetDtree:
// channels below nch/2 the btree, the others the mirrored/shifted one), a chain inside each host
// from its entry GPU. Every cross-host ring hop opens qps_per_connection RC QP pairs (requester on
// the sending host, responder on the receiving one; random initial PSNs; each QP its own UDP
// source port, drawn per QP as ConnectX firmware picks one, so the two directions of a pair differ).
//
// Traffic in the window (true time, the capture switch stamps it): every ring hop carries one
// NCCL send of rdma_message_bytes every ~rdma_message_interval_us (RDMA WRITE FIRST/MIDDLE/
// LAST_WITH_IMMEDIATE or WRITE_ONLY_WITH_IMMEDIATE, MTU 4096, split over the QPs of the
// connection), each preceded by the receiver's 32-byte fifo RDMA WRITE_ONLY on the same QP pair in
// the other direction. The requester asks for an ACK on the last packet of a message and every N
// packets (N drawn per stream in 8..128: coalesced ACKs); the responder ACKs (AETH 0x1f, MSN) with BTH DestQP = the requester's QP. A data packet is
// lost with probability loss_rate: the receiver answers the next packet with a NAK (AETH 0x60,
// expected PSN) and the requester goes back to the lost PSN (go-back-N). Other tenants (with
// background_traffic) open 2-4 QPs from some captured hosts to random peers: Poisson SEND or RDMA
// READ messages of log-uniform sizes (256 B .. 128 KiB). Every stream ran before the window (one message
// earlier, a period or a Poisson gap back), so captures can begin inside a message or with the
// ACKs and READ responses of requests they never saw, and end inside messages. congested_links backbone links carry their
// ring traffic only in bursts: 35 % of every congestion_period_us, at 25 Gb/s, with ECN CE marks
// and CNPs back to the sender.
//
// Captures: each captured host's downlink ports of the NICs its channels use (both directions of the
// port: NIC -> switch at the send time, switch -> NIC after the path latency: 0.45 us per switch +
// serialization, same leaf 1 switch, else 3; lost packets show only on the sender's side), plus with
// spine_capture on fat-trees leaf00's uplink to spine00 (ECMP by a per-leaf hash of the 5-tuple).
// Captures are cut to rdma_snaplen bytes, except one kept at full length (ICRC checkable).
//
// Pure functions of the cluster (and telemetry, for the process ids and the window): the same
// options give the same bytes.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/ip_address.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/nccl/nccl_log.h"
#include "toposcope/sim/cluster.h"
#include "toposcope/sim/writers.h"

namespace toposcope::sim {

struct Telemetry;  // sim/telemetry.h

inline constexpr const char* kInventoryFile = "inventory.csv";
inline constexpr const char* kRdmaResQpFile = "rdma-res-qp.txt";
inline constexpr const char* kNcclDebugLogFile = "nccl-debug.log";
inline constexpr const char* kCaptureDir = "captures";
inline constexpr int kMaxRdmaHosts = 1024;
inline constexpr int kLeafPortsPerHost = 8;  // leaf downlink ports reserved per host slot
inline constexpr int kRoceMtu = 4096;

// Linux rdma_calc_flow_label(lqpn, rqpn): returns the symmetric 20-bit flow label. Never fails.
uint32_t RdmaCalcFlowLabel(uint32_t lqpn, uint32_t rqpn);
// Linux rdma_flow_label_to_udp_sport(fl): returns a port in 0xC000..0xFFFF. Never fails.
uint16_t RdmaFlowLabelToUdpSport(uint32_t flow_label);
// Returns the RoCEv2 UDP source port of an RC QP pair (the same from either end). Never fails.
uint16_t RoceUdpSourcePort(uint32_t lqpn, uint32_t rqpn);

// One NIC of one host.
struct RdmaNic {
  int host = 0;
  int nic = 0;
  std::string device;  // "mlx5_3"
  std::string netdev;  // "enp83s0np0"
  IpAddress ip;
  std::array<uint8_t, 6> mac{};
  int leaf_port = 0;  // port of the host's leaf this NIC is wired to
};

struct RdmaRing {
  int channel = 0;
  std::vector<int> ranks;      // ring order from rank 0 (rank r sends to the next entry)
  std::vector<int> hosts;      // inter-host order (host indices), from host 0
  std::vector<int> host_nic;   // per host index: the NIC this channel uses
  std::vector<int> host_entry_gpu;  // per host index: GPU the ring enters at (leaves at entry+1)
};

struct RdmaTree {
  int channel = 0;
  int root = -1;                          // rank
  std::vector<int> up;                    // per rank: parent rank, -1 for the root
  std::vector<std::array<int, 3>> down;   // per rank: children, -1 padded (intra first)
};

// One side of an RC connection.
struct RdmaQpEnd {
  int host = 0;
  int nic = 0;
  uint32_t qpn = 0;
  uint32_t psn0 = 0;     // initial send-queue PSN
  uint32_t psns = 0;     // PSNs its send queue consumed in the window
  int64_t pid = 0;       // owning process
  std::string comm;      // its command name
};

// Whose traffic a QP pair carries.
enum class RdmaPairKind {
  kRing,        // "ring": the job's ring hop
  kBackground,  // "background": another tenant's
};
// The names above.
std::string_view RdmaPairKindName(RdmaPairKind k);

// The RDMA operation of a QP pair.
enum class RdmaOp {
  kWrite,  // "write": ring hops
  kSend,   // "send": background
  kRead,   // "read": background
};
// The names above.
std::string_view RdmaOpName(RdmaOp op);

// Which port a capture mirrors.
enum class RdmaCaptureKind {
  kDownlink,  // "downlink": a leaf's port to a host
  kUplink,    // "uplink": a leaf's port to a spine
};
// The names above.
std::string_view RdmaCaptureKindName(RdmaCaptureKind k);

// What the simulator makes a host-pair link carry.
// Named "steady", "periodic_congestion", "multi_tenant_contention".
enum class RdmaLinkMode { kSteady, kPeriodicCongestion, kMultiTenantContention };
// Its name (one of those above).
std::string_view RdmaLinkModeName(RdmaLinkMode m);

struct RdmaQpPair {
  RdmaPairKind kind = RdmaPairKind::kRing;
  int channel = -1;  // ring: the channel
  int from_rank = -1, to_rank = -1;  // ring: sender -> receiver
  int qp_index = 0;                  // ring: which of the connection's QPs
  RdmaOp op = RdmaOp::kWrite;        // background: kSend or kRead; ring: kWrite
  RdmaQpEnd a;                       // requester (sends the data / issues the reads)
  RdmaQpEnd b;                       // responder
  uint16_t udp_sport = 0;    // UDP source port of the requester's packets (a -> b)
  uint16_t udp_sport_b = 0;  // of the responder's packets (b -> a): ConnectX picks one per QP
  bool captured = false;  // at least one end's port is mirrored
  bool congested = false;  // on a periodic-congestion link
  int link = -1;           // index into RdmaPlan::links
  // Filled by the packet simulation (captured pairs only): PSNs whose first transmission was lost,
  // per direction (a -> b requests, b -> a requests), in order of loss.
  std::vector<uint32_t> lost_a, lost_b;
  int64_t naks = 0, cnps = 0;
};

struct RdmaCapture {
  std::string file;   // "captures/leaf00-p1.pcap"
  std::string leaf;
  int port = 0;
  RdmaCaptureKind kind = RdmaCaptureKind::kDownlink;
  int host = -1;      // downlink: the host; -1 for an uplink
  int nic = -1;       // downlink: the host's NIC
  std::string spine;  // uplink: the spine it goes to
  uint32_t snaplen = 0;
  int64_t packets = 0;  // records written (after render)
  int64_t bytes = 0;    // file size (after render)
  bool cut = false;     // more packets than max_packets_per_capture: the latest were left out
};

struct RdmaLink {
  int host_a = 0, host_b = 0;  // host indices, host_a's name sorts first
  bool backbone = false;       // carries the job's ring hops
  RdmaLinkMode mode = RdmaLinkMode::kSteady;
  double period_us = 0;        // periodic_congestion: the burst period
};

// Everything planned before the packets are simulated (cheap: no packets).
struct RdmaPlan {
  int64_t window_start_ns = 0, window_end_ns = 0;
  formats::NcclLogEra era = formats::NcclLogEra::kV2_26;
  std::string nccl_version;  // "2.26.2+cuda12.8"
  int world = 0;
  int channels = 0;
  int qps_per_connection = 1;
  std::string comm_id;                       // "0x..." (16 hex digits)
  std::vector<int> host_first_rank;          // per host
  std::vector<int> rank_host, rank_gpu;      // per rank
  std::vector<int64_t> rank_pid;             // per rank
  std::vector<std::vector<RdmaNic>> nics;    // per host, per NIC
  std::vector<RdmaRing> rings;               // per channel
  std::vector<RdmaTree> trees;               // per channel
  std::vector<RdmaQpPair> qp_pairs;          // ring pairs (channel, hop, qp order), then background
  std::vector<RdmaCapture> captures;
  std::vector<RdmaLink> links;
  std::vector<bool> captured_host;           // per host
  std::vector<bool> inventory_host;          // listed in inventory.csv
  std::vector<bool> rdma_res_host;           // has rdma-res-qp.txt
  std::vector<bool> per_rank_logs;           // nccl-rank<R>.log files (else one nccl-debug.log)
  int full_length_capture = -1;              // index into captures
};

// Checks the RDMA options (ranges above, at most kMaxRdmaHosts hosts, a known nccl_version).
// Returns ok, or fails (kUsage) with the first option out of its range (the Error says which and
// the range). Always ok when with_rdma is false.
Status ValidateRdmaOptions(const SimOptions& options);

// Plans addressing, communicator, QP pairs, captures and links and returns the plan (no packets
// yet). `telemetry` (may be null) supplies the ranks' process ids and places the window inside the
// job's DCGM window; without it the window starts in the middle of the run. Never fails; the
// options must be valid (ValidateRdmaOptions).
RdmaPlan PlanRdma(const Cluster& cluster, const Telemetry* telemetry);

// The RDMA files of one host, relative to the output directory, in rendering order (its NCCL logs,
// its rdma-res-qp.txt, then its downlink captures); empty for a host the plan does not know.
// Never fails.
std::vector<std::string> RdmaHostFiles(const RdmaPlan& plan, const HostModel& host);
// The dataset-wide RDMA files: inventory.csv and uplink captures. Never fails.
std::vector<std::string> RdmaSharedFiles(const RdmaPlan& plan);

// Simulates the packets and renders every RDMA file (hosts in order: logs, rdma res, downlink
// captures; then inventory.csv and uplink captures). Fills the plan's capture counts and the QP
// pairs' losses (the truth reads them). Returns the files in that order; never fails.
std::vector<RenderedFile> RenderRdma(const Cluster& cluster, RdmaPlan& plan);

// Adds truth.json's "rdma" object (docs/truth_schema.md) and, when `root` has a "hosts" array,
// hosts[].rdma_files. Never fails.
void AddRdmaTruth(const Cluster& cluster, const RdmaPlan& plan, nlohmann::json* root);

}  // namespace toposcope::sim
