#include "toposcope/sim/rdma_traffic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <span>
#include <utility>

#include "toposcope/base/hash.h"
#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/rdma/inventory_csv.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/formats/rdma/rdma_tools.h"
#include "toposcope/formats/rdma/roce_packet.h"
#include "toposcope/sim/node_types.h"
#include "toposcope/sim/telemetry.h"

namespace toposcope::sim {
namespace {

// RNG stream labels (Rng::Mix(seed, label + index)).
constexpr uint64_t kPlanLabel = 0x52444D4100000000ULL;     // "RDMA"
constexpr uint64_t kMessageLabel = 0x52444D4200000000ULL;  // per QP pair schedules
constexpr uint64_t kPacketLabel = 0x52444D4300000000ULL;   // per QP pair losses, jitter
constexpr uint64_t kLogLabel = 0x52444D4400000000ULL;      // per host NCCL logs
constexpr uint64_t kEcmpLabel = 0x52444D4500000000ULL;     // per leaf ECMP seed
constexpr uint64_t kSportLabel = 0x52444D4600000000ULL;    // per QP pair UDP source ports

constexpr uint32_t kPsnMask = 0xFFFFFF;
constexpr int kAckEveryMin = 8;             // AckReq every 8..128 packets, drawn per stream (rxe: 64)
constexpr int kAckEveryMax = 128;
constexpr uint32_t kFifoBytes = 32;         // NCCL's ncclIbSendFifo element
constexpr int64_t kSwitchNs = 450;          // per switch crossed
constexpr int64_t kFibreNs = 150;           // per inter-switch link (30 m)
constexpr int64_t kAckDelayNs = 600;        // responder NIC: packet in -> ACK out
constexpr int64_t kRetransmitDelayNs = 400; // requester NIC: NAK in -> retransmission
constexpr int64_t kCnpGapNs = 50000;        // at most one CNP per QP per 50 us
constexpr double kCongestionDuty = 0.35;
constexpr double kCongestionCapGbps = 25.0;
constexpr double kCeMarkProbability = 0.25;

constexpr NamedValue<RdmaPairKind> kPairKindNames[] = {
    {RdmaPairKind::kRing, "ring"}, {RdmaPairKind::kBackground, "background"}};

constexpr NamedValue<RdmaOp> kOpNames[] = {
    {RdmaOp::kWrite, "write"}, {RdmaOp::kSend, "send"}, {RdmaOp::kRead, "read"}};

constexpr NamedValue<RdmaCaptureKind> kCaptureKindNames[] = {
    {RdmaCaptureKind::kDownlink, "downlink"}, {RdmaCaptureKind::kUplink, "uplink"}};

constexpr NamedValue<RdmaLinkMode> kLinkModeNames[] = {
    {RdmaLinkMode::kSteady, "steady"}, {RdmaLinkMode::kPeriodicCongestion, "periodic_congestion"},
    {RdmaLinkMode::kMultiTenantContention, "multi_tenant_contention"}};
constexpr uint8_t kDscpRoce = 26, kDscpCnp = 48;
constexpr uint8_t kEcnEct0 = 2;
constexpr uint8_t kAethAck = 0x1f, kAethNakPsn = 0x60;
constexpr int kGidIndex = 3;

constexpr uint8_t kFlagAckReq = 1, kFlagLost = 2, kFlagCe = 4, kFlagBecn = 8, kFlagImm = 16,
                  kFlagReth = 32, kFlagAeth = 64;

int64_t Ns(double v) { return static_cast<int64_t>(std::llround(v)); }

std::string Hex16(uint64_t v) { return StringPrintf("0x%016llx", static_cast<unsigned long long>(v)); }

bool GdrOk(const NodeType& t, int gpu, int nic) {
  const LinkType r = PcieRelation(t, t.gpus[static_cast<size_t>(gpu)].pcie_switch,
                                  t.nics[static_cast<size_t>(nic)].pcie_switch);
  return r == LinkType::kPix || r == LinkType::kPxb;
}

// ncclGetBtree (NCCL src/graph/trees.cc).
void Btree(int n, int r, int* u, int* d0, int* d1) {
  int bit = 1;
  for (bit = 1; bit < n; bit <<= 1) {
    if (bit & r) break;
  }
  if (r == 0) {
    *u = -1;
    *d0 = -1;
    *d1 = n > 1 ? bit >> 1 : -1;
    return;
  }
  int up = (r ^ bit) | (bit << 1);
  if (up >= n) up = r ^ bit;
  *u = up;
  int lowbit = bit >> 1;
  *d0 = lowbit == 0 ? -1 : r - lowbit;
  int down1 = lowbit == 0 ? -1 : r + lowbit;
  while (down1 >= n) {
    down1 = lowbit == 0 ? -1 : r + lowbit;
    lowbit >>= 1;
  }
  *d1 = down1;
}

// ncclGetDtree's second tree: mirrored for an even node count, shifted for an odd one.
void Dtree1(int n, int r, int* u, int* d0, int* d1) {
  if (n % 2 == 1) {
    const int shift = (r - 1 + n) % n;
    int uu = 0, a = 0, b = 0;
    Btree(n, shift, &uu, &a, &b);
    *u = uu == -1 ? -1 : (uu + 1) % n;
    *d0 = a == -1 ? -1 : (a + 1) % n;
    *d1 = b == -1 ? -1 : (b + 1) % n;
  } else {
    int uu = 0, a = 0, b = 0;
    Btree(n, n - 1 - r, &uu, &a, &b);
    *u = uu == -1 ? -1 : n - 1 - uu;
    *d0 = a == -1 ? -1 : n - 1 - a;
    *d1 = b == -1 ? -1 : n - 1 - b;
  }
}

IpAddress NicIp(int host, int nic) {
  const uint32_t h = static_cast<uint32_t>(host + 1);
  return IpAddress::V4((10u << 24) | (static_cast<uint32_t>(nic & 0xff) << 16) | (((h >> 8) & 0xff) << 8) | (h & 0xff));
}

std::array<uint8_t, 6> NicMac(int host, int nic) {
  return {0xb8, 0xce, 0xf6, static_cast<uint8_t>((host >> 8) & 0xff), static_cast<uint8_t>(host & 0xff),
          static_cast<uint8_t>(nic)};
}
std::array<uint8_t, 6> SwitchMac(bool spine, int index) {
  return {0x0c, 0x42, 0xa1, static_cast<uint8_t>(spine ? 0x80 : 0x00), static_cast<uint8_t>((index >> 8) & 0xff),
          static_cast<uint8_t>(index & 0xff)};
}

// "GID 3 (0/302010AFFFF0000)": NCCL prints the GID's two 64-bit halves as host-order integers.
std::string GidText(const IpAddress& ip) {
  const auto b = ip.bytes();
  uint8_t gid[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, b[0], b[1], b[2], b[3]};
  uint64_t hi = 0, lo = 0;
  for (int i = 7; i >= 0; --i) hi = (hi << 8) | gid[i];
  for (int i = 15; i >= 8; --i) lo = (lo << 8) | gid[i];
  return StringPrintf("%d (%llX/%llX)", kGidIndex, static_cast<unsigned long long>(hi),
                      static_cast<unsigned long long>(lo));
}

std::string BusIdHex(int bus) { return StringPrintf("%x000", bus); }

// ---------------------------------------------------------------------------------------------
// Messages and packets
// ---------------------------------------------------------------------------------------------

enum class MsgKind : uint8_t { kWriteImm, kWrite, kSend, kRead };

struct Message {
  int64_t ready_ns = 0;
  uint32_t bytes = 0;
  MsgKind kind = MsgKind::kWriteImm;
  uint64_t va = 0;
  uint32_t rkey = 0;
};

uint32_t PacketsOf(uint32_t bytes) { return bytes == 0 ? 1 : (bytes + kRoceMtu - 1) / kRoceMtu; }

// PSNs a message consumes (a READ consumes one per response packet).
uint32_t PsnsOf(const Message& m) { return PacketsOf(m.bytes); }

struct Stream {
  std::vector<Message> messages;
  bool from_b = false;  // requests from the responder end (NCCL's fifo writes)
  double loss = 0;
  bool shaped = false;  // periodic congestion
  int ack_every = 64;   // the requester sets AckReq on a message's last packet and every this many
};

struct PairSchedule {
  Stream ab;  // requests a -> b
  Stream ba;  // requests b -> a (ring: fifo writes)
};

uint32_t StreamPsns(const Stream& s) {
  uint64_t n = 0;
  for (const Message& m : s.messages) n += PsnsOf(m);
  return static_cast<uint32_t>(n & kPsnMask);
}

// A packet on the wire: sent at t_ns into the sender's leaf port; reaches the receiver's leaf port
// (egress) at arrive_ns (also set for lost packets: where it would have been).
struct WireEvent {
  int64_t t_ns = 0;
  int64_t arrive_ns = 0;
  uint64_t reth_va = 0;
  int32_t pair = 0;
  uint32_t psn = 0;
  uint32_t payload = 0;
  uint32_t aux = 0;  // ImmDt, or the AETH MSN
  uint32_t reth_rkey = 0, reth_len = 0;
  uint16_t ip_id = 0;
  uint8_t from_b = 0;
  uint8_t opcode = 0;
  uint8_t flags = 0;
  uint8_t syndrome = 0;
};

struct PathInfo {
  std::vector<std::string> switches;  // leaf [spine leaf]
  int spine_ab = -1, spine_ba = -1;   // fat-tree spine index per direction (-1: same leaf)
};

struct Shaper {
  int64_t phase0_ns = 0;
  int64_t period_ns = 1;
  int64_t on_ns = 1;
  int64_t per_packet_ns = 0;  // at the cap, for a full MTU packet
  int64_t next_free = 0;
  int64_t Next(int64_t t) {
    t = std::max(t, next_free);
    int64_t x = (t - phase0_ns) % period_ns;
    if (x < 0) x += period_ns;
    if (x >= on_ns) t += period_ns - x;
    next_free = t + per_packet_ns;
    return t;
  }
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public helpers
// ---------------------------------------------------------------------------------------------

std::string_view RdmaPairKindName(RdmaPairKind k) { return NameIn(kPairKindNames, k, "ring"); }

std::string_view RdmaOpName(RdmaOp op) { return NameIn(kOpNames, op, "write"); }

std::string_view RdmaCaptureKindName(RdmaCaptureKind k) { return NameIn(kCaptureKindNames, k, "downlink"); }

std::string_view RdmaLinkModeName(RdmaLinkMode m) { return NameIn(kLinkModeNames, m, "steady"); }

uint32_t RdmaCalcFlowLabel(uint32_t lqpn, uint32_t rqpn) {
  uint64_t v = static_cast<uint64_t>(lqpn) * rqpn;
  v ^= v >> 20;
  v ^= v >> 40;
  return static_cast<uint32_t>(v & 0xFFFFF);
}

uint16_t RdmaFlowLabelToUdpSport(uint32_t fl) {
  const uint32_t lo = fl & 0x3FFF;
  const uint32_t hi = (fl & 0xFC000) >> 14;
  return static_cast<uint16_t>((lo ^ hi) | 0xC000);
}

uint16_t RoceUdpSourcePort(uint32_t lqpn, uint32_t rqpn) {
  return RdmaFlowLabelToUdpSport(RdmaCalcFlowLabel(lqpn, rqpn));
}

Status ValidateRdmaOptions(const SimOptions& o) {
  if (!o.with_rdma) return {};
  if (Status st = CheckHostLimit(o, kMaxRdmaHosts, "RDMA", "turn RDMA off or simulate fewer hosts"); !st) return st;
  auto bad = [](const std::string& what, const std::string& hint) {
    return Status(MakeKindError(ErrorKind::kUsage, what, hint));
  };
  if (!(o.rdma_window_ms >= 1 && o.rdma_window_ms <= 1000)) return bad("rdma window out of range", "use 1..1000 ms");
  if (o.nccl_channels < 1 || o.nccl_channels > 16) return bad("NCCL channels out of range", "use 1..16");
  if (o.qps_per_connection < 1 || o.qps_per_connection > 8) return bad("QPs per connection out of range", "use 1..8");
  if (!(o.loss_rate >= 0 && o.loss_rate <= 0.05)) return bad("loss rate out of range", "use 0..0.05");
  if (o.congested_links < 0 || o.congested_links > 4) return bad("congested links out of range", "use 0..4");
  if (!(o.congestion_period_us >= 50 && o.congestion_period_us <= 100000)) {
    return bad("congestion period out of range", "use 50..100000 us");
  }
  if (o.rdma_capture_hosts < 0 || o.rdma_capture_hosts > 64) return bad("capture hosts out of range", "use 0..64");
  if (o.rdma_snaplen < 64 || o.rdma_snaplen > 65535) return bad("snaplen out of range", "use 64..65535");
  if (o.max_packets_per_capture < 1 || o.max_packets_per_capture > 10000000) {
    return bad("packets per capture out of range", "use 1..10000000");
  }
  if (o.rdma_message_bytes < 4096 || o.rdma_message_bytes > (16 << 20)) {
    return bad("RDMA message size out of range", "use 4096..16777216 bytes");
  }
  if (!(o.rdma_message_interval_us >= 5 && o.rdma_message_interval_us <= 100000)) {
    return bad("RDMA message interval out of range", "use 5..100000 us");
  }
  if (!o.nccl_version.empty() && o.nccl_version != "2.26.2" && o.nccl_version != "2.16.5") {
    return bad("unknown NCCL version '" + o.nccl_version + "'", "use 2.26.2 or 2.16.5");
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------------------------

namespace {

int LeafIndexOf(const Cluster& c, const std::string& leaf) {
  for (size_t i = 0; i < c.fabric.leaves.size(); ++i) {
    if (c.fabric.leaves[i].name == leaf) return static_cast<int>(i);
  }
  return 0;
}

int SlotInLeaf(const Cluster& c, const HostModel& h) {
  const auto& members = c.fabric.leaves[static_cast<size_t>(LeafIndexOf(c, h.leaf))].members;
  for (size_t i = 0; i < members.size(); ++i) {
    if (members[i] == h.name) return static_cast<int>(i);
  }
  return 0;
}

uint64_t EcmpKey(const IpAddress& src, const IpAddress& dst, uint16_t sport) {
  return (static_cast<uint64_t>(src.v4_host_order()) << 32) ^ dst.v4_host_order() ^
         (static_cast<uint64_t>(sport) << 16) ^ (static_cast<uint64_t>(formats::kRoceV2UdpPort) << 40) ^ 17;
}

int EcmpSpine(const Cluster& c, int leaf, const IpAddress& src, const IpAddress& dst, uint16_t sport) {
  const auto n = c.fabric.spines.size();
  if (n == 0) return -1;
  const uint64_t seed = Rng::Mix(c.options.seed, kEcmpLabel + static_cast<uint64_t>(leaf));
  return static_cast<int>(Rng::Mix(seed, EcmpKey(src, dst, sport)) % n);
}

PathInfo PathOf(const Cluster& c, const RdmaPlan& plan, const RdmaQpPair& p) {
  PathInfo path;
  const HostModel& ha = c.hosts[static_cast<size_t>(p.a.host)];
  const HostModel& hb = c.hosts[static_cast<size_t>(p.b.host)];
  if (ha.leaf == hb.leaf) {
    path.switches = {ha.leaf};
    return path;
  }
  const Arch arch = c.options.arch;
  if (arch == Arch::kFatTree) {
    const IpAddress& ia = plan.nics[static_cast<size_t>(p.a.host)][static_cast<size_t>(p.a.nic)].ip;
    const IpAddress& ib = plan.nics[static_cast<size_t>(p.b.host)][static_cast<size_t>(p.b.nic)].ip;
    path.spine_ab = EcmpSpine(c, LeafIndexOf(c, ha.leaf), ia, ib, p.udp_sport);
    path.spine_ba = EcmpSpine(c, LeafIndexOf(c, hb.leaf), ib, ia, p.udp_sport_b);
    path.switches = {ha.leaf, c.fabric.spines[static_cast<size_t>(path.spine_ab)], hb.leaf};
  } else if (arch == Arch::kHhre) {
    const int ra = LeafIndexOf(c, ha.leaf) / 4;
    const int rb = LeafIndexOf(c, hb.leaf) / 4;
    path.switches = {ha.leaf, c.fabric.spines[static_cast<size_t>(ra)]};
    if (ra != rb) path.switches.push_back(c.fabric.spines[static_cast<size_t>(rb)]);
    path.switches.push_back(hb.leaf);
  } else {  // dragonfly: routers of the same group are one hop apart, else one global link
    path.switches = {ha.leaf, hb.leaf};
  }
  return path;
}

int64_t SerializationNs(uint32_t frame_bytes, double gbps) {
  return Ns(static_cast<double>(frame_bytes) * 8.0 / gbps);
}

uint32_t FrameBytes(uint8_t opcode, uint32_t payload) {
  return 14 + 20 + 8 + 12 + static_cast<uint32_t>(std::max(0, formats::ExtensionHeaderBytes(opcode))) + payload +
         ((4 - payload % 4) % 4) + 4;
}

// The capture window (inside the job's DCGM window with telemetry, else the middle of the run)
// and the NCCL version, channels and QPs per connection of the communicator.
void PlanWindowAndVersion(const SimOptions& o, const Telemetry* telemetry, RdmaPlan& plan) {
  if (telemetry != nullptr) {
    plan.window_start_ns = telemetry->job_start_ns + (telemetry->job_end_ns - telemetry->job_start_ns) / 2;
  } else {
    plan.window_start_ns = o.start_unix_s * 1000000000LL + Ns(o.duration_s * 1e9 / 2.0);
  }
  plan.window_end_ns = plan.window_start_ns + Ns(o.rdma_window_ms * 1e6);

  std::string version = o.nccl_version;
  if (version.empty()) version = (o.seed % 2 == 0) ? "2.26.2" : "2.16.5";
  if (version == "2.16.5") {
    plan.era = formats::NcclLogEra::kV2_16;
    plan.nccl_version = "2.16.5+cuda11.8";
  } else {
    plan.era = formats::NcclLogEra::kV2_26;
    plan.nccl_version = "2.26.2+cuda12.8";
  }
  plan.channels = o.nccl_channels;
  plan.qps_per_connection = o.qps_per_connection;
}

// Ranks (host by host, GPU by GPU) and their process ids: the telemetry's when it has one per
// rank, else drawn.
void PlanRanks(const Cluster& cluster, const Telemetry* telemetry, Rng& rng, RdmaPlan& plan) {
  for (const HostModel& h : cluster.hosts) {
    plan.host_first_rank.push_back(plan.world);
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      plan.rank_host.push_back(h.index);
      plan.rank_gpu.push_back(g);
      ++plan.world;
    }
  }
  if (telemetry != nullptr && static_cast<int>(telemetry->rank_pid.size()) == plan.world) {
    plan.rank_pid = telemetry->rank_pid;
  } else {
    for (int r = 0; r < plan.world; ++r) plan.rank_pid.push_back(2000 + static_cast<int64_t>(rng.Below(4000000)));
  }
}

// Every host's NICs: device, netdev, addresses and the leaf port they are wired to.
void PlanNics(const Cluster& cluster, RdmaPlan& plan) {
  for (const HostModel& h : cluster.hosts) {
    const BusLayout bus = AssignBusNumbers(*h.type);
    const int slot = SlotInLeaf(cluster, h);
    std::vector<RdmaNic> nics;
    for (size_t k = 0; k < h.type->nics.size(); ++k) {
      RdmaNic n;
      n.host = h.index;
      n.nic = static_cast<int>(k);
      n.device = h.type->nics[k].device;
      n.netdev = StringPrintf("enp%ds0np0", bus.nics[k]);
      n.ip = NicIp(h.index, static_cast<int>(k));
      n.mac = NicMac(h.index, static_cast<int>(k));
      n.leaf_port = slot * kLeafPortsPerHost + static_cast<int>(k) + 1;
      nics.push_back(std::move(n));
    }
    plan.nics.push_back(std::move(nics));
  }
}

// Which hosts are captured, listed in inventory.csv, have rdma-res-qp.txt and per-rank logs.
void PlanHostRoles(int n_hosts, int n_captured, RdmaPlan& plan) {
  for (int i = 0; i < n_hosts; ++i) {
    plan.captured_host.push_back(i < n_captured);
    plan.inventory_host.push_back(i % 3 != 1);
    plan.rdma_res_host.push_back(i % 3 != 2);
    plan.per_rank_logs.push_back(i % 2 == 0);
  }
}

// The ranks of host `hi` in a channel's order: from the entry GPU e down, e, e-1, ..., e+1 (mod G).
std::vector<int> HostChain(const Cluster& cluster, const RdmaPlan& plan, const RdmaRing& ring, int hi) {
  std::vector<int> out;
  const int g_count = cluster.hosts[static_cast<size_t>(hi)].type->GpuCount();
  const int e = ring.host_entry_gpu[static_cast<size_t>(hi)];
  for (int k = 0; k < g_count; ++k) {
    out.push_back(plan.host_first_rank[static_cast<size_t>(hi)] + ((e - k) % g_count + g_count) % g_count);
  }
  return out;
}

// Channel c's ring: its inter-host order, per host the NIC and the entry GPU, and the rank order
// from rank 0.
RdmaRing PlanRing(const Cluster& cluster, const RdmaPlan& plan, int c) {
  const int n_hosts = static_cast<int>(cluster.hosts.size());
  RdmaRing ring;
  ring.channel = c;
  if (c % 2 == 0) {
    for (int i = 0; i < n_hosts; ++i) ring.hosts.push_back(i);
  } else {
    for (const FabricGroup& leaf : cluster.fabric.leaves) {
      std::vector<int> members;
      for (const std::string& name : leaf.members) {
        for (const HostModel& h : cluster.hosts) {
          if (h.name == name) members.push_back(h.index);
        }
      }
      std::sort(members.begin(), members.end());
      for (auto it = members.rbegin(); it != members.rend(); ++it) ring.hosts.push_back(*it);
    }
    // Start from host 0 (the order is a cycle).
    auto zero = std::find(ring.hosts.begin(), ring.hosts.end(), 0);
    std::rotate(ring.hosts.begin(), zero, ring.hosts.end());
  }
  ring.host_nic.assign(static_cast<size_t>(n_hosts), 0);
  ring.host_entry_gpu.assign(static_cast<size_t>(n_hosts), 0);
  for (const HostModel& h : cluster.hosts) {
    const int nic = ChannelNic(c, plan.channels, static_cast<int>(h.type->nics.size()));
    ring.host_nic[static_cast<size_t>(h.index)] = nic;
    ring.host_entry_gpu[static_cast<size_t>(h.index)] = h.type->nics.empty() ? 0 : GpuClosestToNic(*h.type, nic);
  }
  for (int hi : ring.hosts) {
    for (int r : HostChain(cluster, plan, ring, hi)) ring.ranks.push_back(r);
  }
  auto zero = std::find(ring.ranks.begin(), ring.ranks.end(), 0);
  std::rotate(ring.ranks.begin(), zero, ring.ranks.end());
  return ring;
}

// Channel c's tree: hosts are the tree nodes (NCCL's double binary tree), each a chain in the
// channel's ring order from its entry GPU.
RdmaTree PlanTree(const Cluster& cluster, const RdmaPlan& plan, int c) {
  const int n_hosts = static_cast<int>(cluster.hosts.size());
  const RdmaRing& ring = plan.rings[static_cast<size_t>(c)];
  RdmaTree tree;
  tree.channel = c;
  tree.up.assign(static_cast<size_t>(plan.world), -1);
  tree.down.assign(static_cast<size_t>(plan.world), {-1, -1, -1});
  const bool second = plan.channels > 1 && c >= plan.channels / 2;
  auto chain = [&](int hi) { return HostChain(cluster, plan, ring, hi); };
  auto add_down = [&](int rank, int child) {
    for (int& d : tree.down[static_cast<size_t>(rank)]) {
      if (d == -1) {
        d = child;
        return;
      }
    }
  };
  for (int hi = 0; hi < n_hosts; ++hi) {
    const std::vector<int> ch = chain(hi);
    for (size_t k = 1; k < ch.size(); ++k) {
      tree.up[static_cast<size_t>(ch[k])] = ch[k - 1];
      add_down(ch[k - 1], ch[k]);
    }
  }
  for (int hi = 0; hi < n_hosts; ++hi) {
    int u = -1, d0 = -1, d1 = -1;
    if (second) {
      Dtree1(n_hosts, hi, &u, &d0, &d1);
    } else {
      Btree(n_hosts, hi, &u, &d0, &d1);
    }
    const int head = chain(hi).front();
    if (u >= 0) tree.up[static_cast<size_t>(head)] = chain(u).front();
    if (u < 0) tree.root = head;
    if (d0 >= 0) add_down(head, chain(d0).front());
    if (d1 >= 0) add_down(head, chain(d1).front());
  }
  return tree;
}

// QP numbers per (host, NIC): a counter from a random base, advancing by 1-3; and the ends of new
// QP pairs (QP number, then a random initial PSN), all drawn from the plan's stream.
class QpAllocator {
 public:
  QpAllocator(const RdmaPlan& plan, Rng& rng) : rng_(rng), next_qpn_(plan.nics.size()) {
    for (size_t i = 0; i < plan.nics.size(); ++i) {
      for (size_t k = 0; k < plan.nics[i].size(); ++k) {
        next_qpn_[i].push_back(0x100 + static_cast<uint32_t>(rng_.Below(0x3000)));
      }
    }
  }

  // One end of a new QP pair on (host, nic), owned by process `pid` named `comm`.
  RdmaQpEnd MakeEnd(int host, int nic, int64_t pid, std::string comm) {
    RdmaQpEnd e;
    e.host = host;
    e.nic = nic;
    e.qpn = AllocQpn(host, nic);
    e.psn0 = static_cast<uint32_t>(rng_.Below(1u << 24));
    e.pid = pid;
    e.comm = std::move(comm);
    return e;
  }

 private:
  uint32_t AllocQpn(int host, int nic) {
    uint32_t& q = next_qpn_[static_cast<size_t>(host)][static_cast<size_t>(nic)];
    const uint32_t v = q;
    q += 1 + static_cast<uint32_t>(rng_.Below(3));
    return v & kPsnMask;
  }

  Rng& rng_;
  std::vector<std::vector<uint32_t>> next_qpn_;
};

// The ring QP pairs: per channel, per cross-host hop, per QP (requester on the sending host).
void PlanRingPairs(const Cluster& cluster, RdmaPlan& plan, QpAllocator& qps) {
  for (const RdmaRing& ring : plan.rings) {
    for (size_t k = 0; k < ring.hosts.size(); ++k) {
      const int ha = ring.hosts[k];
      const int hb = ring.hosts[(k + 1) % ring.hosts.size()];
      const int ga = cluster.hosts[static_cast<size_t>(ha)].type->GpuCount();
      const int exit_gpu = (ring.host_entry_gpu[static_cast<size_t>(ha)] + 1) % ga;
      const int from = plan.host_first_rank[static_cast<size_t>(ha)] + exit_gpu;
      const int to = plan.host_first_rank[static_cast<size_t>(hb)] + ring.host_entry_gpu[static_cast<size_t>(hb)];
      for (int q = 0; q < plan.qps_per_connection; ++q) {
        RdmaQpPair p;
        p.kind = RdmaPairKind::kRing;
        p.op = RdmaOp::kWrite;
        p.channel = ring.channel;
        p.from_rank = from;
        p.to_rank = to;
        p.qp_index = q;
        p.a = qps.MakeEnd(ha, ring.host_nic[static_cast<size_t>(ha)], plan.rank_pid[static_cast<size_t>(from)],
                          "python3");
        p.b = qps.MakeEnd(hb, ring.host_nic[static_cast<size_t>(hb)], plan.rank_pid[static_cast<size_t>(to)],
                          "python3");
        plan.qp_pairs.push_back(std::move(p));
      }
    }
  }
}

// Other tenants on some captured hosts: 2-4 SEND or READ QP pairs each, to random peers.
void PlanBackgroundPairs(const Cluster& cluster, int n_captured, Rng& rng, RdmaPlan& plan, QpAllocator& qps) {
  const int n_hosts = static_cast<int>(cluster.hosts.size());
  std::vector<int> tenants;
  for (int i = 0; i < n_captured; ++i) {
    if (rng.Uniform() < 0.4) tenants.push_back(i);
  }
  if (tenants.empty() && n_captured > 0) tenants.push_back(static_cast<int>(rng.Below(static_cast<uint64_t>(n_captured))));
  for (int hi : tenants) {
    const HostModel& h = cluster.hosts[static_cast<size_t>(hi)];
    if (h.type->nics.empty()) continue;
    const int k = 2 + static_cast<int>(rng.Below(3));
    const bool read_tenant = rng.Below(2) == 1;
    const int64_t pid = 2000 + static_cast<int64_t>(rng.Below(4000000));
    for (int j = 0; j < k; ++j) {
      int peer = static_cast<int>(rng.Below(static_cast<uint64_t>(n_hosts - 1)));
      if (peer >= hi) ++peer;
      const HostModel& hp = cluster.hosts[static_cast<size_t>(peer)];
      if (hp.type->nics.empty()) continue;
      const int c = static_cast<int>(rng.Below(static_cast<uint64_t>(plan.channels)));
      const int nic = plan.rings[static_cast<size_t>(c)].host_nic[static_cast<size_t>(hi)];
      const int peer_nic = static_cast<int>(rng.Below(hp.type->nics.size()));
      RdmaQpPair p;
      p.kind = RdmaPairKind::kBackground;
      p.op = read_tenant ? RdmaOp::kRead : RdmaOp::kSend;
      p.a = qps.MakeEnd(hi, nic, pid, read_tenant ? "ib_read_bw" : "ib_send_bw");
      p.b = qps.MakeEnd(peer, peer_nic, 2000 + static_cast<int64_t>(rng.Below(4000000)),
                        read_tenant ? "ib_read_bw" : "ib_send_bw");
      plan.qp_pairs.push_back(std::move(p));
    }
  }
}

// A capture of `leaf`'s port `port`; its file name is a hash of both, so that it tells neither.
RdmaCapture NewCapture(const std::string& leaf, int port, RdmaCaptureKind kind, uint32_t snaplen) {
  RdmaCapture cap;
  cap.leaf = leaf;
  cap.port = port;
  char id[16];
  std::snprintf(id, sizeof(id), "%08llx",
                static_cast<unsigned long long>(Rng::Mix(Fnv1a(leaf), static_cast<uint64_t>(port)) & 0xffffffffULL));
  cap.file = std::string(kCaptureDir) + "/span-" + id + ".pcap";
  cap.kind = kind;
  cap.snaplen = snaplen;
  return cap;
}

// The captures: the downlink ports of the NICs the captured hosts' channels use (one kept at full
// length), optionally a fat-tree uplink; then which QP pairs they see.
void PlanCaptures(const Cluster& cluster, int n_captured, RdmaPlan& plan) {
  const SimOptions& o = cluster.options;
  for (int i = 0; i < n_captured; ++i) {
    const HostModel& h = cluster.hosts[static_cast<size_t>(i)];
    std::set<int> used;
    for (const RdmaRing& ring : plan.rings) used.insert(ring.host_nic[static_cast<size_t>(i)]);
    for (int nic : used) {
      if (nic >= static_cast<int>(plan.nics[static_cast<size_t>(i)].size())) continue;
      RdmaCapture cap = NewCapture(h.leaf, plan.nics[static_cast<size_t>(i)][static_cast<size_t>(nic)].leaf_port,
                                   RdmaCaptureKind::kDownlink, static_cast<uint32_t>(o.rdma_snaplen));
      cap.host = i;
      cap.nic = nic;
      plan.captures.push_back(std::move(cap));
    }
  }
  if (!plan.captures.empty()) {
    // One full-length capture: the first port of the last captured host.
    size_t full = plan.captures.size() - 1;
    while (full > 0 && plan.captures[full - 1].host == plan.captures.back().host) --full;
    plan.captures[full].snaplen = 262144;
    plan.full_length_capture = static_cast<int>(full);
  }
  if (o.spine_capture && o.arch == Arch::kFatTree && cluster.fabric.leaves.size() > 1 && n_captured > 0 &&
      !cluster.fabric.spines.empty()) {
    // Uplinks follow the downlinks of 4 host slots.
    RdmaCapture cap = NewCapture(cluster.fabric.leaves[0].name, 4 * kLeafPortsPerHost + 1, RdmaCaptureKind::kUplink,
                                 static_cast<uint32_t>(o.rdma_snaplen));
    cap.spine = cluster.fabric.spines[0];
    plan.captures.push_back(std::move(cap));
  }
  for (RdmaQpPair& p : plan.qp_pairs) {
    for (const RdmaCapture& cap : plan.captures) {
      if (cap.kind != RdmaCaptureKind::kDownlink) continue;
      if ((cap.host == p.a.host && cap.nic == p.a.nic) || (cap.host == p.b.host && cap.nic == p.b.nic)) {
        p.captured = true;
      }
    }
  }
}

// The links (host pairs the QP pairs connect), sorted; ring pairs make a link a backbone one,
// background pairs a contended one.
void PlanLinks(RdmaPlan& plan) {
  std::map<std::pair<int, int>, int> link_of;
  for (RdmaQpPair& p : plan.qp_pairs) {
    const auto key = std::minmax(p.a.host, p.b.host);
    auto it = link_of.find({key.first, key.second});
    if (it == link_of.end()) it = link_of.emplace(std::make_pair(key.first, key.second), 0).first;
  }
  for (auto& [key, index] : link_of) {
    index = static_cast<int>(plan.links.size());
    RdmaLink l;
    l.host_a = key.first;
    l.host_b = key.second;
    l.mode = RdmaLinkMode::kSteady;
    plan.links.push_back(l);
  }
  for (RdmaQpPair& p : plan.qp_pairs) {
    const auto key = std::minmax(p.a.host, p.b.host);
    p.link = link_of[{key.first, key.second}];
    RdmaLink& l = plan.links[static_cast<size_t>(p.link)];
    if (p.kind == RdmaPairKind::kRing) l.backbone = true;
    if (p.kind == RdmaPairKind::kBackground) l.mode = RdmaLinkMode::kMultiTenantContention;
  }
}

// Periodic congestion on some captured backbone links (cross-leaf ones first).
void PlanCongestion(const Cluster& cluster, Rng& rng, RdmaPlan& plan) {
  const SimOptions& o = cluster.options;
  std::vector<int> cross, same;
  for (size_t i = 0; i < plan.links.size(); ++i) {
    const RdmaLink& l = plan.links[i];
    if (!l.backbone || l.mode != RdmaLinkMode::kSteady) continue;
    if (!plan.captured_host[static_cast<size_t>(l.host_a)] && !plan.captured_host[static_cast<size_t>(l.host_b)]) {
      continue;
    }
    const bool is_cross =
        cluster.hosts[static_cast<size_t>(l.host_a)].leaf != cluster.hosts[static_cast<size_t>(l.host_b)].leaf;
    (is_cross ? cross : same).push_back(static_cast<int>(i));
  }
  for (int k = 0; k < o.congested_links; ++k) {
    std::vector<int>& pool = cross.empty() ? same : cross;
    if (pool.empty()) break;
    const size_t pick = rng.Below(pool.size());
    RdmaLink& l = plan.links[static_cast<size_t>(pool[pick])];
    l.mode = RdmaLinkMode::kPeriodicCongestion;
    l.period_us = o.congestion_period_us;
    pool.erase(pool.begin() + static_cast<std::ptrdiff_t>(pick));
  }
  for (RdmaQpPair& p : plan.qp_pairs) {
    p.congested =
        p.kind == RdmaPairKind::kRing && plan.links[static_cast<size_t>(p.link)].mode == RdmaLinkMode::kPeriodicCongestion;
  }
}

}  // namespace

RdmaPlan PlanRdma(const Cluster& cluster, const Telemetry* telemetry) {
  const SimOptions& o = cluster.options;
  RdmaPlan plan;
  Rng rng(Rng::Mix(o.seed, kPlanLabel));
  const int n_hosts = static_cast<int>(cluster.hosts.size());
  PlanWindowAndVersion(o, telemetry, plan);
  plan.comm_id = Hex16(rng.NextU64());
  PlanRanks(cluster, telemetry, rng, plan);
  PlanNics(cluster, plan);
  const int n_captured = std::min(o.rdma_capture_hosts, n_hosts);
  PlanHostRoles(n_hosts, n_captured, plan);
  for (int c = 0; c < plan.channels; ++c) plan.rings.push_back(PlanRing(cluster, plan, c));
  for (int c = 0; c < plan.channels; ++c) plan.trees.push_back(PlanTree(cluster, plan, c));
  QpAllocator qps(plan, rng);
  if (n_hosts > 1) PlanRingPairs(cluster, plan, qps);
  if (o.background_traffic && n_hosts > 1) PlanBackgroundPairs(cluster, n_captured, rng, plan, qps);
  // Every QP has its own UDP source port (ConnectX picks it per QP): the two directions differ.
  for (size_t i = 0; i < plan.qp_pairs.size(); ++i) {
    Rng srng(Rng::Mix(o.seed, kSportLabel + i));
    plan.qp_pairs[i].udp_sport = static_cast<uint16_t>(0xC000u | srng.Below(0x4000));
    plan.qp_pairs[i].udp_sport_b = static_cast<uint16_t>(0xC000u | srng.Below(0x4000));
  }
  PlanCaptures(cluster, n_captured, plan);
  PlanLinks(plan);
  PlanCongestion(cluster, rng, plan);
  return plan;
}

std::vector<std::string> RdmaHostFiles(const RdmaPlan& plan, const HostModel& host) {
  std::vector<std::string> out;
  const auto hi = static_cast<size_t>(host.index);
  if (hi >= plan.host_first_rank.size()) return out;
  const std::string dir = host.name + "/";
  if (plan.per_rank_logs[hi]) {
    for (int g = 0; g < host.type->GpuCount(); ++g) {
      out.push_back(dir + "nccl-rank" + std::to_string(plan.host_first_rank[hi] + g) + ".log");
    }
  } else {
    out.push_back(dir + kNcclDebugLogFile);
  }
  if (plan.rdma_res_host[hi]) out.push_back(dir + kRdmaResQpFile);
  for (const RdmaCapture& cap : plan.captures) {
    if (cap.kind == RdmaCaptureKind::kDownlink && cap.host == host.index) out.push_back(cap.file);
  }
  return out;
}

std::vector<std::string> RdmaSharedFiles(const RdmaPlan& plan) {
  std::vector<std::string> out = {kInventoryFile};
  for (const RdmaCapture& cap : plan.captures) {
    if (cap.kind != RdmaCaptureKind::kDownlink) out.push_back(cap.file);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Message schedules and packet simulation
// ---------------------------------------------------------------------------------------------

namespace {

PairSchedule ScheduleOf(const Cluster& cluster, const RdmaPlan& plan, const RdmaQpPair& p, size_t index) {
  const SimOptions& o = cluster.options;
  Rng rng(Rng::Mix(o.seed, kMessageLabel + index));
  // The streams ran before the window: one message earlier, drawn from a stream of its own so the
  // rest of the schedule stays as it was. A capture starts inside it when it reaches into the window.
  Rng pre(Rng::Mix(o.seed, kMessageLabel + 0x80000000ULL + index));
  PairSchedule s;
  const int64_t start = plan.window_start_ns;
  const int64_t end = plan.window_end_ns;
  const uint64_t va_a = 0x7f0000000000ULL + (rng.NextU64() & 0xfffff000000ULL);
  const uint64_t va_b = 0x7f0000000000ULL + (rng.NextU64() & 0xfffff000000ULL);
  const uint32_t rkey_a = static_cast<uint32_t>(rng.NextU64() & 0xffffff);
  const uint32_t rkey_b = static_cast<uint32_t>(rng.NextU64() & 0xffffff);
  if (p.kind == RdmaPairKind::kRing) {
    const double interval_ns = o.rdma_message_interval_us * 1e3;
    const int q = plan.qps_per_connection;
    uint32_t share = static_cast<uint32_t>(o.rdma_message_bytes / q);
    share = std::max<uint32_t>(4, share & ~3u);
    int64_t t = start + Ns(rng.Uniform(0.0, interval_ns));
    int k = 0;
    s.ab.loss = o.loss_rate;
    s.ab.shaped = p.congested;
    // One send a period before the first one of the window, then the window's.
    auto add_send = [&](int64_t ready, int slot, Rng& r) {
      Message m;
      m.ready_ns = ready;
      m.bytes = share;
      m.kind = MsgKind::kWriteImm;
      m.va = va_b + static_cast<uint64_t>(slot) * static_cast<uint64_t>(o.rdma_message_bytes) +
             static_cast<uint64_t>(p.qp_index) * share;
      m.rkey = rkey_b;
      s.ab.messages.push_back(m);
      if (p.qp_index == 0) {  // the receiver's fifo entry for this send, on the first QP
        Message f;
        f.ready_ns = ready - Ns(r.Uniform(2000.0, 6000.0));
        f.bytes = kFifoBytes;
        f.kind = MsgKind::kWrite;
        f.va = va_a + static_cast<uint64_t>(slot) * 64;
        f.rkey = rkey_a;
        s.ba.messages.push_back(f);
      }
    };
    add_send(std::min(start - 1, t - Ns(interval_ns * pre.Uniform(0.95, 1.05))), 7, pre);
    while (t < end) {
      add_send(t, k % 8, rng);  // NCCL_STEPS buffer slots
      t += Ns(interval_ns * rng.Uniform(0.95, 1.05));
      ++k;
    }
    s.ba.from_b = true;
  } else {
    const double mean_ns = rng.Uniform(300.0, 900.0) * 1e3;
    const bool read = p.op == RdmaOp::kRead;
    int64_t t = start + Ns(rng.Exponential() * mean_ns);
    s.ab.loss = read ? 0.0 : o.loss_rate;
    auto add_message = [&](int64_t ready, Rng& r) {
      Message m;
      m.ready_ns = ready;
      m.bytes = static_cast<uint32_t>(std::exp(r.Uniform(std::log(256.0), std::log(131072.0))));
      m.kind = read ? MsgKind::kRead : MsgKind::kSend;
      m.va = (read ? va_b : va_a) + (r.NextU64() & 0xfff000ULL);
      m.rkey = read ? rkey_b : 0;
      s.ab.messages.push_back(m);
    };
    add_message(start - Ns(pre.Exponential() * mean_ns) - 1000, pre);  // the last one before the window
    while (t < end) {
      add_message(t, rng);
      t += Ns(rng.Exponential() * mean_ns) + 1000;
    }
  }
  s.ab.ack_every = kAckEveryMin + static_cast<int>(rng.Below(kAckEveryMax - kAckEveryMin + 1));
  s.ba.ack_every = kAckEveryMin + static_cast<int>(rng.Below(kAckEveryMax - kAckEveryMin + 1));
  return s;
}

// One request packet of a stream.
struct ReqPacket {
  int64_t ready_ns = 0;
  uint32_t psn_offset = 0;  // from the stream's first PSN
  uint32_t payload = 0;
  uint32_t span = 1;        // PSNs consumed (READ request: its response packets)
  uint32_t msg = 0;
  uint8_t opcode = 0;
  bool ack_req = false;
  bool last_of_msg = false;
  bool reth = false, imm = false;
  uint64_t va = 0;
  uint32_t rkey = 0, dma_len = 0, imm_data = 0;
};

std::vector<ReqPacket> Packetize(const Stream& s) {
  using namespace formats::roce_op;
  std::vector<ReqPacket> out;
  uint32_t psn = 0;
  uint32_t since_ack = 0;
  for (size_t mi = 0; mi < s.messages.size(); ++mi) {
    const Message& m = s.messages[mi];
    if (m.kind == MsgKind::kRead) {
      ReqPacket r;
      r.ready_ns = m.ready_ns;
      r.psn_offset = psn;
      r.span = PacketsOf(m.bytes);
      r.msg = static_cast<uint32_t>(mi);
      r.opcode = kReadRequest;
      r.reth = true;
      r.va = m.va;
      r.rkey = m.rkey;
      r.dma_len = m.bytes;
      r.last_of_msg = true;
      r.ack_req = true;
      out.push_back(r);
      psn += r.span;
      since_ack = 0;
      continue;
    }
    const uint32_t n = PacketsOf(m.bytes);
    for (uint32_t k = 0; k < n; ++k) {
      ReqPacket r;
      r.ready_ns = m.ready_ns;
      r.psn_offset = psn++;
      r.msg = static_cast<uint32_t>(mi);
      r.payload = k + 1 < n ? kRoceMtu : m.bytes - (n - 1) * kRoceMtu;
      const bool first = k == 0, last = k + 1 == n;
      switch (m.kind) {
        case MsgKind::kWriteImm:
          r.opcode = n == 1 ? kWriteOnlyImm : first ? kWriteFirst : last ? kWriteLastImm : kWriteMiddle;
          r.imm = last;
          r.imm_data = m.bytes;
          break;
        case MsgKind::kWrite:
          r.opcode = n == 1 ? kWriteOnly : first ? kWriteFirst : last ? kWriteLast : kWriteMiddle;
          break;
        default:
          r.opcode = n == 1 ? kSendOnly : first ? kSendFirst : last ? kSendLast : kSendMiddle;
          break;
      }
      if (first && m.kind != MsgKind::kSend) {
        r.reth = true;
        r.va = m.va;
        r.rkey = m.rkey;
        r.dma_len = m.bytes;
      }
      r.last_of_msg = last;
      ++since_ack;
      r.ack_req = last || since_ack >= static_cast<uint32_t>(s.ack_every);
      if (r.ack_req) since_ack = 0;
      out.push_back(r);
    }
  }
  return out;
}

struct StreamResult {
  std::vector<uint32_t> lost;  // PSNs
  int64_t naks = 0, cnps = 0;
};

struct StreamEnv {
  int32_t pair = 0;
  uint32_t psn0 = 0;
  int64_t lat_ns = 0;       // requester leaf ingress -> responder leaf egress (no serialization)
  int64_t back_lat_ns = 0;  // the reverse
  int hops = 1;             // switches crossed
  double req_gbps = 400, resp_gbps = 400;
  int64_t window_end_ns = 0;
  Shaper* shaper = nullptr;
};

// The wire event of request packet `p` sent at `send_t` (direction `from_b`, IP id `ip_id`).
WireEvent RequestEvent(const ReqPacket& p, const StreamEnv& env, uint8_t from_b, int64_t send_t, uint16_t ip_id) {
  WireEvent e;
  e.t_ns = send_t;
  e.pair = env.pair;
  e.from_b = from_b;
  e.opcode = p.opcode;
  e.psn = (env.psn0 + p.psn_offset) & kPsnMask;
  e.payload = p.payload;
  e.flags = static_cast<uint8_t>((p.ack_req ? kFlagAckReq : 0) | (p.reth ? kFlagReth : 0) | (p.imm ? kFlagImm : 0));
  e.reth_va = p.va;
  e.reth_rkey = p.rkey;
  e.reth_len = p.dma_len;
  e.aux = p.imm_data;
  e.ip_id = ip_id;
  return e;
}

void SimulateStream(const Stream& s, const StreamEnv& env, Rng& rng, std::vector<WireEvent>& events,
                    StreamResult& result) {
  using namespace formats::roce_op;
  const std::vector<ReqPacket> pkts = Packetize(s);
  const uint8_t fwd = s.from_b ? 1 : 0;
  const uint8_t back = s.from_b ? 0 : 1;
  uint16_t ip_id_fwd = static_cast<uint16_t>(rng.Below(65536));
  uint16_t ip_id_back = static_cast<uint16_t>(rng.Below(65536));
  int64_t last_arrive = 0, last_back_t = 0;
  auto arrive = [&](int64_t t, uint32_t frame, int64_t lat, int hops, double gbps, int64_t& last) {
    const int64_t ser = SerializationNs(frame, gbps);
    int64_t a = t + lat + ser * hops + Ns(rng.Uniform(0.0, 60.0 * hops));
    a = std::max(a, last + ser);
    last = a;
    return a;
  };
  // Responder-side packets (ACK, NAK, CNP, READ responses) leave in order.
  int64_t last_back_arrive = 0;
  auto emit_back = [&](int64_t t, uint8_t opcode, uint32_t psn, uint8_t syndrome, uint32_t msn, uint32_t payload,
                       uint8_t flags) {
    t = std::max(t, last_back_t + SerializationNs(FrameBytes(opcode, payload), env.resp_gbps));
    last_back_t = t;
    WireEvent e;
    e.t_ns = t;
    e.pair = env.pair;
    e.from_b = back;
    e.opcode = opcode;
    e.psn = psn & kPsnMask;
    e.syndrome = syndrome;
    e.aux = msn & kPsnMask;
    e.payload = payload;
    e.flags = flags;
    e.ip_id = ip_id_back++;
    e.arrive_ns = arrive(t, FrameBytes(opcode, payload), env.back_lat_ns, env.hops, env.resp_gbps, last_back_arrive);
    if (t <= env.window_end_ns) events.push_back(e);
    return e.arrive_ns;
  };

  size_t i = 0;
  size_t expected = 0;  // responder: next packet index it accepts
  uint32_t msn = 0;
  bool nak_sent = false;
  int64_t nak_arrival = INT64_MAX;
  size_t nak_target = 0;
  int64_t t = 0;
  int64_t last_cnp = INT64_MIN / 2;
  while (i < pkts.size()) {
    const ReqPacket& p = pkts[i];
    int64_t send_t = std::max(t, p.ready_ns);
    if (nak_arrival != INT64_MAX && nak_arrival <= send_t) {
      i = nak_target;
      t = std::max(t, nak_arrival + kRetransmitDelayNs);
      nak_arrival = INT64_MAX;
      continue;
    }
    if (env.shaper != nullptr) send_t = env.shaper->Next(send_t);
    if (send_t > env.window_end_ns + 1000000) break;  // far past the window: stop
    const uint32_t frame = FrameBytes(p.opcode, p.payload);
    WireEvent e = RequestEvent(p, env, fwd, send_t, ip_id_fwd++);
    const bool ce = env.shaper != nullptr && rng.Uniform() < kCeMarkProbability;
    if (ce) e.flags |= kFlagCe;
    const bool lost = p.opcode != kReadRequest && s.loss > 0 && rng.Uniform() < s.loss;
    if (lost) {
      e.flags |= kFlagLost;
      result.lost.push_back(e.psn);
    }
    e.arrive_ns = arrive(send_t, frame, env.lat_ns, env.hops, env.req_gbps, last_arrive);
    if (send_t <= env.window_end_ns) events.push_back(e);
    t = send_t + SerializationNs(frame, env.req_gbps);
    if (!lost) {
      const int64_t at = e.arrive_ns;
      if (i == expected) {
        expected = i + 1;
        nak_sent = false;
        if (p.last_of_msg) msn = (msn + 1) & kPsnMask;
        if (p.opcode == kReadRequest) {
          const uint32_t n = p.span;
          int64_t rt = at + kAckDelayNs;
          for (uint32_t k = 0; k < n; ++k) {
            const uint32_t payload = k + 1 < n ? kRoceMtu : p.dma_len - (n - 1) * kRoceMtu;
            const uint8_t op = n == 1 ? kReadResponseOnly
                               : k == 0 ? kReadResponseFirst
                               : k + 1 == n ? kReadResponseLast
                                            : kReadResponseMiddle;
            const bool aeth = op != kReadResponseMiddle;
            emit_back(rt, op, env.psn0 + p.psn_offset + k, aeth ? kAethAck : 0, msn, payload,
                      aeth ? kFlagAeth : 0);
            rt += SerializationNs(FrameBytes(op, payload), env.resp_gbps);
          }
        } else if (p.ack_req) {
          emit_back(at + kAckDelayNs, kAcknowledge, e.psn, kAethAck, msn, 0, kFlagAeth);
        }
        if (ce && at - last_cnp >= kCnpGapNs) {
          last_cnp = at;
          ++result.cnps;
          emit_back(at + kAckDelayNs / 2, kCnp, 0, 0, 0, 0, kFlagBecn);
        }
      } else if (i > expected && !nak_sent) {
        nak_sent = true;
        ++result.naks;
        const int64_t nak_back = emit_back(at + kAckDelayNs, kAcknowledge,
                                           env.psn0 + pkts[expected].psn_offset, kAethNakPsn, msn, 0, kFlagAeth);
        // The requester's leaf egress is where the NAK "arrives" (+ a cable and the NIC).
        nak_arrival = nak_back + 300;
        nak_target = expected;
      }
      // else: out of sequence after a NAK, or a duplicate: dropped by the responder's NIC.
    }
    ++i;
  }
}

// ---------------------------------------------------------------------------------------------
// Capture rendering
// ---------------------------------------------------------------------------------------------

enum class View : uint8_t { kAtSender, kAtReceiver, kUplinkOut, kUplinkIn };

struct CapRecord {
  int64_t ts_ns = 0;
  uint32_t event = 0;
  View view = View::kAtSender;
};

struct PairGeometry {
  PathInfo path;
  int leaf_a = 0, leaf_b = 0;
};

std::vector<uint8_t> EncodeEvent(const RdmaPlan& plan, const PairGeometry& geo,
                                 const WireEvent& e, View view) {
  const RdmaQpPair& p = plan.qp_pairs[static_cast<size_t>(e.pair)];
  const RdmaQpEnd& src = e.from_b ? p.b : p.a;
  const RdmaQpEnd& dst = e.from_b ? p.a : p.b;
  const RdmaNic& sn = plan.nics[static_cast<size_t>(src.host)][static_cast<size_t>(src.nic)];
  const RdmaNic& dn = plan.nics[static_cast<size_t>(dst.host)][static_cast<size_t>(dst.nic)];
  const int src_leaf = e.from_b ? geo.leaf_b : geo.leaf_a;
  const int dst_leaf = e.from_b ? geo.leaf_a : geo.leaf_b;
  const int spine = e.from_b ? geo.path.spine_ba : geo.path.spine_ab;
  const int switches = static_cast<int>(geo.path.switches.size());
  std::array<uint8_t, 6> smac{}, dmac{};
  uint8_t ttl = 64;
  switch (view) {
    case View::kAtSender:
      smac = sn.mac;
      dmac = SwitchMac(false, src_leaf);
      break;
    case View::kAtReceiver:
      smac = SwitchMac(false, dst_leaf);
      dmac = dn.mac;
      ttl = static_cast<uint8_t>(64 - switches);
      break;
    case View::kUplinkOut:
      smac = SwitchMac(false, src_leaf);
      dmac = SwitchMac(true, std::max(spine, 0));
      ttl = 63;
      break;
    case View::kUplinkIn:
      smac = SwitchMac(true, std::max(spine, 0));
      dmac = SwitchMac(false, dst_leaf);
      ttl = 62;
      break;
  }
  formats::RocePacket pkt;
  pkt.src_ip = sn.ip;
  pkt.dst_ip = dn.ip;
  const bool cnp = e.opcode == formats::roce_op::kCnp;
  pkt.ip_dscp = cnp ? kDscpCnp : kDscpRoce;
  pkt.ip_ecn = cnp ? 0 : kEcnEct0;
  pkt.ip_ecn_ce = (e.flags & kFlagCe) != 0 && view == View::kAtReceiver;
  pkt.ip_ttl = ttl;
  pkt.ip_id = e.ip_id;
  pkt.udp_src_port = e.from_b ? p.udp_sport_b : p.udp_sport;
  pkt.udp_dst_port = formats::kRoceV2UdpPort;
  pkt.opcode = e.opcode;
  pkt.mig_req = !cnp;
  pkt.pkey = 0xffff;
  pkt.becn = (e.flags & kFlagBecn) != 0;
  pkt.dest_qp = dst.qpn;
  pkt.ack_req = (e.flags & kFlagAckReq) != 0;
  pkt.psn = e.psn;
  pkt.payload_bytes = e.payload;
  pkt.pad_count = static_cast<uint8_t>((4 - e.payload % 4) % 4);
  pkt.reth_va = e.reth_va;
  pkt.reth_rkey = e.reth_rkey;
  pkt.reth_dma_len = e.reth_len;
  pkt.imm_data = e.aux;
  pkt.aeth_syndrome = e.syndrome;
  pkt.aeth_msn = e.aux;
  return formats::EncodeRoceFrame(pkt, smac.data(), dmac.data());
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// NCCL logs
// ---------------------------------------------------------------------------------------------

namespace {

struct LogLine {
  int64_t order = 0;  // pseudo time for interleaving
  std::string text;
};

// One rank's NCCL log as its sections write it: who the rank is, the writer with the three thread
// prefixes (main, init, proxy) and the lines so far, each stamped with a pseudo clock that
// advances by a random step per line (to interleave the ranks of a host).
struct RankLogContext {
  // `init_tid` and `proxy_tid` are drawn by the caller; the clock's start is drawn here.
  RankLogContext(const Cluster& cluster_in, const RdmaPlan& plan_in, int rank_in, Rng& rng_in, int64_t init_tid,
                 int64_t proxy_tid)
      : cluster(cluster_in),
        plan(plan_in),
        rank(rank_in),
        rng(rng_in),
        hi(plan.rank_host[static_cast<size_t>(rank)]),
        g(plan.rank_gpu[static_cast<size_t>(rank)]),
        h(cluster.hosts[static_cast<size_t>(hi)]),
        t(*h.type),
        v16(plan.era == formats::NcclLogEra::kV2_16),
        main_at{h.name, plan.rank_pid[static_cast<size_t>(rank)], plan.rank_pid[static_cast<size_t>(rank)], g,
                kNoTime},
        init_at{h.name, main_at.pid, init_tid, g, kNoTime},
        proxy_at{h.name, main_at.pid, proxy_tid, g, kNoTime},
        w(plan.era, main_at) {
    clock = static_cast<int64_t>(rng.Below(2000));
  }

  // Appends a line, advancing the clock.
  void Add(std::string text) {
    clock += 1 + static_cast<int64_t>(rng.Below(40));
    out.push_back({clock, std::move(text)});
  }

  const Cluster& cluster;
  const RdmaPlan& plan;
  const int rank;
  Rng& rng;
  const int hi;  // the rank's host
  const int g;   // its GPU
  const HostModel& h;
  const NodeType& t;
  const bool v16;  // the 2.16 era's lines
  const formats::NcclLogPrefix main_at, init_at, proxy_at;
  formats::NcclLogWriter w;
  std::vector<LogLine> out;
  int64_t clock = 0;
};

// Bootstrap, plugin, driver and version lines, then the NET/IB devices of the rank's host.
void WriteLogStart(RankLogContext& log) {
  formats::NcclLogWriter& w = log.w;
  const auto& nics = log.plan.nics[static_cast<size_t>(log.hi)];
  const std::string ip0 = nics.empty() ? std::string("10.255.255.1") : nics[0].ip.ToString();
  const std::string if0 = nics.empty() ? std::string("eth0") : nics[0].netdev;
  log.Add(w.Info("Bootstrap : Using " + if0 + ":" + ip0 + "<0>"));
  log.Add(w.Info(log.v16 ? "NET/Plugin : No plugin found (libnccl-net.so), using internal implementation"
                         : "NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."));
  log.Add(w.Info(log.v16 ? "cudaDriverVersion 12020" : "cudaDriverVersion 12080"));
  log.Add(w.Version(log.plan.nccl_version));
  w.set_prefix(log.init_at);
  formats::NcclNetUsing u;
  u.net_name = "IB";
  for (const RdmaNic& n : nics) {
    formats::NcclNetDevice d;
    d.index = n.nic;
    d.name = n.device;
    d.port = 1;
    d.link_layer = "RoCE";
    u.devices.push_back(d);
  }
  u.relaxed_ordering = true;
  u.oob_iface = if0;
  u.oob_ip = ip0;
  u.oob_port = 0;
  log.Add(w.NetUsing(u));
  log.Add(w.Info("Using network IB"));
  if (!log.v16) log.Add(w.Info(StringPrintf("DMA-BUF is available on GPU device %d", log.g)));
}

// The rank's communicator record (a random comm pointer); its kind is set where it is written.
formats::NcclCommInit RankCommInit(RankLogContext& log) {
  const std::string comm_ptr = StringPrintf("0x%llx", static_cast<unsigned long long>(
                                                          0x55d000000000ULL + (log.rng.NextU64() & 0xffffffff0ULL)));
  formats::NcclCommInit ci;
  ci.comm = comm_ptr;
  ci.rank = log.rank;
  ci.nranks = log.plan.world;
  ci.nnodes = static_cast<int>(log.cluster.hosts.size());
  ci.local_ranks = log.t.GpuCount();
  ci.local_rank = log.g;
  ci.cuda_dev = log.g;
  ci.nvml_dev = log.g;
  ci.mnnvl = 0;
  const BusLayout bus = AssignBusNumbers(log.t);
  ci.bus_id = BusIdHex(bus.gpus[static_cast<size_t>(log.g)]);
  ci.comm_id = log.plan.comm_id;
  return ci;
}

// The rank's previous and next rank in every channel's ring.
struct RingNeighbours {
  std::vector<int> prev, next;  // per channel
};

RingNeighbours NeighboursOf(const RdmaPlan& plan, int rank) {
  RingNeighbours nb;
  nb.prev.resize(static_cast<size_t>(plan.channels));
  nb.next.resize(static_cast<size_t>(plan.channels));
  for (const RdmaRing& ring : plan.rings) {
    const auto it = std::find(ring.ranks.begin(), ring.ranks.end(), rank);
    const size_t pos = static_cast<size_t>(it - ring.ranks.begin());
    const size_t n = ring.ranks.size();
    nb.prev[static_cast<size_t>(ring.channel)] = ring.ranks[(pos + n - 1) % n];
    nb.next[static_cast<size_t>(ring.channel)] = ring.ranks[(pos + 1) % n];
  }
  return nb;
}

// The ring orders (rank 0 only), the 2.16 per-channel ring lines, the trees and the P2P chunk size.
void WriteLogGraph(RankLogContext& log, const RingNeighbours& nb) {
  const RdmaPlan& plan = log.plan;
  formats::NcclLogWriter& w = log.w;
  if (log.rank == 0) {
    for (const RdmaRing& ring : plan.rings) {
      formats::NcclRingOrder ro;
      ro.channel = ring.channel;
      ro.nchannels = plan.channels;
      ro.ranks = ring.ranks;
      log.Add(w.RingOrder(ro, plan.world));
    }
  }
  if (log.v16) {
    for (int c = 0; c < plan.channels; ++c) {
      formats::NcclRingLine rl;
      rl.channel = c;
      rl.prev = nb.prev[static_cast<size_t>(c)];
      rl.me = log.rank;
      rl.next = nb.next[static_cast<size_t>(c)];
      log.Add(w.Ring(rl));
    }
  }
  std::vector<formats::NcclTreeLine> trees;
  for (const RdmaTree& tree : plan.trees) {
    formats::NcclTreeLine tl;
    tl.channel = tree.channel;
    tl.down = tree.down[static_cast<size_t>(log.rank)];
    tl.me = log.rank;
    tl.up = tree.up[static_cast<size_t>(log.rank)];
    trees.push_back(tl);
  }
  log.Add(w.Trees(trees));
  log.Add(w.Info("P2P Chunksize set to 131072"));
}

// The ring connections of the rank: network receives from off-host predecessors, then per channel
// the send to its successor (network off the host, else P2P or SHM by the GPU pair's link).
void WriteLogConnections(RankLogContext& log, const RingNeighbours& nb) {
  using formats::NcclConnection;
  const RdmaPlan& plan = log.plan;
  const int rank = log.rank;
  auto dev_text = [&](int r) {
    const HostModel& rh = log.cluster.hosts[static_cast<size_t>(plan.rank_host[static_cast<size_t>(r)])];
    const int rg = plan.rank_gpu[static_cast<size_t>(r)];
    if (!log.v16) return std::to_string(rg);
    return BusIdHex(AssignBusNumbers(*rh.type).gpus[static_cast<size_t>(rg)]);
  };
  auto net_conn = [&](int c, int from, int to, NcclConnection::Dir dir) {
    NcclConnection cn;
    cn.channel = c;
    cn.conn_index = 0;
    cn.from_rank = from;
    cn.to_rank = to;
    cn.from_dev = dev_text(from);
    cn.to_dev = dev_text(to);
    cn.dir = dir;
    cn.transport = formats::NcclTransport::kNet;
    cn.net_name = "IB";
    const int nic = plan.rings[static_cast<size_t>(c)].host_nic[static_cast<size_t>(log.hi)];
    cn.net_dev = nic;
    cn.gdrdma = !log.t.nics.empty() && GdrOk(log.t, log.g, nic);
    return cn;
  };
  const std::vector<LinkTruth> links = HostLinks(log.h);
  for (int c = 0; c < plan.channels; ++c) {
    const int p = nb.prev[static_cast<size_t>(c)];
    if (plan.rank_host[static_cast<size_t>(p)] != log.hi) {
      log.Add(log.w.Connection(net_conn(c, p, rank, NcclConnection::Dir::kReceive)));
    }
  }
  for (int c = 0; c < plan.channels; ++c) {
    const int n = nb.next[static_cast<size_t>(c)];
    if (plan.rank_host[static_cast<size_t>(n)] != log.hi) {
      log.Add(log.w.Connection(net_conn(c, rank, n, NcclConnection::Dir::kSend)));
      continue;
    }
    if (n == rank) continue;
    NcclConnection cn;
    cn.channel = c;
    cn.from_rank = rank;
    cn.to_rank = n;
    cn.from_dev = dev_text(rank);
    cn.to_dev = dev_text(n);
    const int gn = plan.rank_gpu[static_cast<size_t>(n)];
    LinkType lt = LinkType::kUnknown;
    for (const LinkTruth& l : links) {
      if ((l.a == std::min(log.g, gn)) && (l.b == std::max(log.g, gn))) lt = l.type;
    }
    if (lt == LinkType::kSys) {
      cn.transport = formats::NcclTransport::kShm;
      cn.p2p_kind = "direct/direct";
    } else {
      cn.transport = formats::NcclTransport::kP2p;
      cn.p2p_kind = log.v16 ? "IPC" : "CUMEM";
    }
    log.Add(log.w.Connection(cn));
  }
  log.Add(log.w.Info("Connected all rings"));
}

// QP lines of the proxy thread: the local QPs of every cross-host connection (2.16 prints only the
// sending side's, in ncclIbConnect).
void WriteLogQps(RankLogContext& log, const std::vector<std::vector<const RdmaQpPair*>>& send_pairs,
                 const std::vector<std::vector<const RdmaQpPair*>>& recv_pairs) {
  log.w.set_prefix(log.proxy_at);
  auto qpn_line = [&](const RdmaQpEnd& end, int dev) {
    formats::NcclQpn q;
    q.dev = dev;
    q.ib_dev_index = dev;
    q.port = 1;
    q.qpn = end.qpn;
    q.mtu = 5;
    q.gid = GidText(log.plan.nics[static_cast<size_t>(end.host)][static_cast<size_t>(end.nic)].ip);
    log.Add(log.w.Qpn(q));
  };
  for (const RdmaQpPair* p : send_pairs[static_cast<size_t>(log.rank)]) qpn_line(p->a, p->a.nic);
  if (!log.v16) {
    for (const RdmaQpPair* p : recv_pairs[static_cast<size_t>(log.rank)]) qpn_line(p->b, p->b.nic);
  }
}

// "Connected all trees", thresholds, channel counts and the Init COMPLETE record.
void WriteLogEnd(RankLogContext& log, formats::NcclCommInit& ci) {
  const RdmaPlan& plan = log.plan;
  formats::NcclLogWriter& w = log.w;
  w.set_prefix(log.init_at);
  log.Add(w.Info("Connected all trees"));
  log.Add(w.Info("threadThresholds 8/8/64 | " + std::to_string(8 * plan.world) + "/8/64 | 512 | 512"));
  if (log.v16) {
    log.Add(w.Info(StringPrintf("%d coll channels, %d p2p channels, %d p2p channels per peer", plan.channels,
                                plan.channels, plan.channels)));
    ci.kind = formats::NcclCommInitKind::kRankInfo;  // written as "... - Init COMPLETE" in 2.16
  } else {
    log.Add(w.Info(StringPrintf("%d coll channels, %d collnet channels, 0 nvls channels, %d p2p channels, %d p2p "
                                "channels per peer",
                                plan.channels, plan.channels, plan.channels, plan.channels)));
    ci.kind = formats::NcclCommInitKind::kInitComplete;
    ci.api = "ncclCommInitRank";
  }
  log.Add(w.CommInit(ci));
}

std::vector<LogLine> RankLog(const Cluster& cluster, const RdmaPlan& plan, int rank, Rng& rng,
                             const std::vector<std::vector<const RdmaQpPair*>>& send_pairs,
                             const std::vector<std::vector<const RdmaQpPair*>>& recv_pairs) {
  const int64_t pid = plan.rank_pid[static_cast<size_t>(rank)];
  const int64_t init_tid = pid + 30 + static_cast<int64_t>(rng.Below(60));
  const int64_t proxy_tid = init_tid + 3 + static_cast<int64_t>(rng.Below(4));
  RankLogContext log(cluster, plan, rank, rng, init_tid, proxy_tid);
  WriteLogStart(log);
  formats::NcclCommInit ci = RankCommInit(log);
  if (!log.v16) {
    ci.kind = formats::NcclCommInitKind::kRankInfo;
    log.Add(log.w.CommInit(ci));
  }
  const RingNeighbours nb = NeighboursOf(plan, rank);
  WriteLogGraph(log, nb);
  WriteLogConnections(log, nb);
  WriteLogQps(log, send_pairs, recv_pairs);
  WriteLogEnd(log, ci);
  return std::move(log.out);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

namespace {

// Every pair's message schedules (cheap); fills the PSNs each end's send queue consumed.
std::vector<PairSchedule> ScheduleAll(const Cluster& cluster, RdmaPlan& plan) {
  std::vector<PairSchedule> schedules;
  schedules.reserve(plan.qp_pairs.size());
  for (size_t i = 0; i < plan.qp_pairs.size(); ++i) {
    RdmaQpPair& p = plan.qp_pairs[i];
    schedules.push_back(ScheduleOf(cluster, plan, p, i));
    p.a.psns = StreamPsns(schedules.back().ab);
    p.b.psns = StreamPsns(schedules.back().ba);
  }
  return schedules;
}

// The periodic-congestion shaper of a congested pair: the link's own phase, its burst period and
// duty, the cap shared by the ring QPs crossing the link in the pair's direction.
Shaper CongestionShaper(const SimOptions& o, const RdmaPlan& plan, const RdmaQpPair& p) {
  Shaper shaper;
  Rng srng(Rng::Mix(o.seed, kPacketLabel + 0x100000 + static_cast<uint64_t>(p.link)));
  shaper.period_ns = Ns(plan.links[static_cast<size_t>(p.link)].period_us * 1e3);
  shaper.on_ns = Ns(static_cast<double>(shaper.period_ns) * kCongestionDuty);
  shaper.phase0_ns = plan.window_start_ns + static_cast<int64_t>(srng.Below(static_cast<uint64_t>(shaper.period_ns)));
  const int dir = p.a.host < p.b.host ? 0 : 1;
  int sharing = 0;
  for (const RdmaQpPair& q : plan.qp_pairs) {
    if (q.link == p.link && q.kind == RdmaPairKind::kRing && (q.a.host < q.b.host ? 0 : 1) == dir) ++sharing;
  }
  shaper.per_packet_ns = SerializationNs(FrameBytes(formats::roce_op::kWriteMiddle, kRoceMtu),
                                         kCongestionCapGbps / std::max(1, sharing));
  return shaper;
}

// Simulates the packets of captured pair i (both directions) into `events`; fills its losses,
// NAKs and CNPs.
void SimulatePair(const Cluster& cluster, RdmaPlan& plan, size_t i, const PairSchedule& schedule,
                  const PairGeometry& geo, std::vector<WireEvent>& events) {
  const SimOptions& o = cluster.options;
  RdmaQpPair& p = plan.qp_pairs[i];
  Rng rng(Rng::Mix(o.seed, kPacketLabel + i));
  const int hops = static_cast<int>(geo.path.switches.size());
  StreamEnv env;
  env.pair = static_cast<int32_t>(i);
  env.hops = hops;
  env.lat_ns = hops * kSwitchNs + (hops - 1) * kFibreNs;
  env.back_lat_ns = env.lat_ns;
  env.req_gbps = cluster.hosts[static_cast<size_t>(p.a.host)].type->nics[static_cast<size_t>(p.a.nic)].speed_gbps;
  env.resp_gbps = cluster.hosts[static_cast<size_t>(p.b.host)].type->nics[static_cast<size_t>(p.b.nic)].speed_gbps;
  env.window_end_ns = plan.window_end_ns;
  StreamResult ra, rb;
  Shaper shaper;
  if (p.congested) shaper = CongestionShaper(o, plan, p);
  env.psn0 = p.a.psn0;
  env.shaper = p.congested ? &shaper : nullptr;
  SimulateStream(schedule.ab, env, rng, events, ra);
  if (!schedule.ba.messages.empty()) {
    StreamEnv eb = env;
    eb.psn0 = p.b.psn0;
    std::swap(eb.req_gbps, eb.resp_gbps);
    eb.shaper = nullptr;
    SimulateStream(schedule.ba, eb, rng, events, rb);
  }
  p.lost_a = ra.lost;
  p.lost_b = rb.lost;
  p.naks = ra.naks + rb.naks;
  p.cnps = ra.cnps + rb.cnps;
}

// Distributes the wire events to the captures that see them (sender and receiver downlinks, the
// uplink to spine00), inside the window.
std::vector<std::vector<CapRecord>> DistributeEvents(const RdmaPlan& plan, const std::vector<PairGeometry>& geometry,
                                                     const std::vector<WireEvent>& events) {
  std::map<std::pair<int, int>, size_t> downlink;  // (host, nic) -> capture
  int uplink = -1;
  for (size_t c = 0; c < plan.captures.size(); ++c) {
    const RdmaCapture& cap = plan.captures[c];
    if (cap.kind == RdmaCaptureKind::kDownlink) downlink[{cap.host, cap.nic}] = c;
    if (cap.kind == RdmaCaptureKind::kUplink) uplink = static_cast<int>(c);
  }
  std::vector<std::vector<CapRecord>> records(plan.captures.size());
  const int64_t w0 = plan.window_start_ns, w1 = plan.window_end_ns;
  auto put = [&](size_t cap, int64_t ts, size_t ev, View view) {
    if (ts < w0 || ts >= w1) return;
    records[cap].push_back({ts, static_cast<uint32_t>(ev), view});
  };
  for (size_t ev = 0; ev < events.size(); ++ev) {
    const WireEvent& e = events[ev];
    const RdmaQpPair& p = plan.qp_pairs[static_cast<size_t>(e.pair)];
    const PairGeometry& geo = geometry[static_cast<size_t>(e.pair)];
    const RdmaQpEnd& src = e.from_b ? p.b : p.a;
    const RdmaQpEnd& dst = e.from_b ? p.a : p.b;
    if (auto it = downlink.find({src.host, src.nic}); it != downlink.end()) put(it->second, e.t_ns, ev, View::kAtSender);
    if ((e.flags & kFlagLost) == 0) {
      if (auto it = downlink.find({dst.host, dst.nic}); it != downlink.end()) {
        put(it->second, e.arrive_ns, ev, View::kAtReceiver);
      }
    }
    if (uplink >= 0 && geo.path.spine_ab >= 0) {
      const int src_leaf = e.from_b ? geo.leaf_b : geo.leaf_a;
      const int dst_leaf = e.from_b ? geo.leaf_a : geo.leaf_b;
      const int spine = e.from_b ? geo.path.spine_ba : geo.path.spine_ab;
      if (spine == 0 && src_leaf == 0) put(static_cast<size_t>(uplink), e.t_ns + kSwitchNs + 100, ev, View::kUplinkOut);
      if (spine == 0 && dst_leaf == 0) {
        put(static_cast<size_t>(uplink), e.arrive_ns - kSwitchNs - kFibreNs, ev, View::kUplinkIn);
      }
    }
  }
  return records;
}

// The simulated packets and where the captures see them.
struct SimulatedWire {
  std::vector<WireEvent> events;
  std::vector<PairGeometry> geometry;         // per QP pair
  std::vector<std::vector<CapRecord>> records;  // per capture
};

// Schedules every pair, simulates the captured ones' packets and distributes them to the captures.
SimulatedWire SimulateWire(const Cluster& cluster, RdmaPlan& plan) {
  SimulatedWire wire;
  const std::vector<PairSchedule> schedules = ScheduleAll(cluster, plan);
  wire.geometry.resize(plan.qp_pairs.size());
  for (size_t i = 0; i < plan.qp_pairs.size(); ++i) {
    const RdmaQpPair& p = plan.qp_pairs[i];
    PairGeometry& geo = wire.geometry[i];
    geo.path = PathOf(cluster, plan, p);
    geo.leaf_a = LeafIndexOf(cluster, cluster.hosts[static_cast<size_t>(p.a.host)].leaf);
    geo.leaf_b = LeafIndexOf(cluster, cluster.hosts[static_cast<size_t>(p.b.host)].leaf);
    if (!p.captured) continue;
    SimulatePair(cluster, plan, i, schedules[i], geo, wire.events);
  }
  wire.records = DistributeEvents(plan, wire.geometry, wire.events);
  return wire;
}

// Capture c as a pcap file (records in time order, cut at max_packets_per_capture); fills its
// counts and frees its records.
RenderedFile RenderCapture(const SimOptions& o, RdmaPlan& plan, SimulatedWire& wire, size_t c) {
  RdmaCapture& cap = plan.captures[c];
  std::vector<CapRecord>& recs = wire.records[c];
  std::sort(recs.begin(), recs.end(), [](const CapRecord& a, const CapRecord& b) {
    if (a.ts_ns != b.ts_ns) return a.ts_ns < b.ts_ns;
    if (a.event != b.event) return a.event < b.event;
    return a.view < b.view;
  });
  if (static_cast<int64_t>(recs.size()) > o.max_packets_per_capture) {
    recs.resize(static_cast<size_t>(o.max_packets_per_capture));
    cap.cut = true;
  }
  std::vector<uint8_t> bytes;
  formats::AppendPcapFileHeader(bytes, cap.snaplen);
  for (const CapRecord& r : recs) {
    const WireEvent& e = wire.events[r.event];
    const std::vector<uint8_t> frame = EncodeEvent(plan, wire.geometry[static_cast<size_t>(e.pair)], e, r.view);
    formats::AppendPcapRecord(bytes, r.ts_ns, frame, cap.snaplen);
  }
  cap.packets = static_cast<int64_t>(recs.size());
  cap.bytes = static_cast<int64_t>(bytes.size());
  std::vector<CapRecord>().swap(recs);
  return {cap.file, std::string(bytes.begin(), bytes.end())};
}

// The ring QP pairs by rank: those it sends on, those it receives on.
struct PairsByRank {
  std::vector<std::vector<const RdmaQpPair*>> send, recv;
};

PairsByRank RingPairsByRank(const RdmaPlan& plan) {
  PairsByRank by;
  by.send.resize(static_cast<size_t>(plan.world));
  by.recv.resize(static_cast<size_t>(plan.world));
  for (const RdmaQpPair& p : plan.qp_pairs) {
    if (p.kind != RdmaPairKind::kRing) continue;
    by.send[static_cast<size_t>(p.from_rank)].push_back(&p);
    by.recv[static_cast<size_t>(p.to_rank)].push_back(&p);
  }
  return by;
}

// Host hi's NCCL logs: one file per rank, or all its ranks interleaved in nccl-debug.log.
void RenderHostLogs(const Cluster& cluster, const RdmaPlan& plan, int hi, const PairsByRank& pairs,
                    std::vector<RenderedFile>& out) {
  const HostModel& h = cluster.hosts[static_cast<size_t>(hi)];
  Rng lrng(Rng::Mix(cluster.options.seed, kLogLabel + static_cast<uint64_t>(hi)));
  const std::string dir = h.name + "/";
  const int first = plan.host_first_rank[static_cast<size_t>(hi)];
  if (plan.per_rank_logs[static_cast<size_t>(hi)]) {
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      std::string text;
      for (LogLine& l : RankLog(cluster, plan, first + g, lrng, pairs.send, pairs.recv)) text += l.text;
      out.push_back({dir + "nccl-rank" + std::to_string(first + g) + ".log", std::move(text)});
    }
    return;
  }
  std::vector<LogLine> all;
  for (int g = 0; g < h.type->GpuCount(); ++g) {
    for (LogLine& l : RankLog(cluster, plan, first + g, lrng, pairs.send, pairs.recv)) all.push_back(std::move(l));
  }
  std::stable_sort(all.begin(), all.end(), [](const LogLine& a, const LogLine& b) { return a.order < b.order; });
  std::string text;
  for (const LogLine& l : all) text += l.text;
  out.push_back({dir + kNcclDebugLogFile, std::move(text)});
}

// Host hi's `rdma res show qp`: per NIC its GSI QP, then its RC QPs by local QP number.
std::string RenderRdmaResQp(const RdmaPlan& plan, int hi) {
  std::vector<formats::RdmaQp> qps;
  for (const RdmaNic& n : plan.nics[static_cast<size_t>(hi)]) {
    formats::RdmaQp gsi;
    gsi.dev = n.device;
    gsi.port = 1;
    gsi.lqpn = 1;
    gsi.type = "GSI";
    gsi.state = "RTS";
    gsi.sq_psn = 0;
    gsi.comm = "ib_core";
    gsi.kernel_owner = true;
    qps.push_back(gsi);
    std::vector<formats::RdmaQp> rc;
    for (const RdmaQpPair& p : plan.qp_pairs) {
      for (int side = 0; side < 2; ++side) {
        const RdmaQpEnd& me = side == 0 ? p.a : p.b;
        const RdmaQpEnd& peer = side == 0 ? p.b : p.a;
        if (me.host != hi || me.nic != n.nic) continue;
        formats::RdmaQp q;
        q.dev = n.device;
        q.port = 1;
        q.lqpn = me.qpn;
        q.rqpn = peer.qpn;
        q.type = "RC";
        q.state = "RTS";
        q.rq_psn = (peer.psn0 + peer.psns) & kPsnMask;
        q.sq_psn = (me.psn0 + me.psns) & kPsnMask;
        q.path_mig_state = "MIGRATED";
        q.pdn = 3 + (me.pid % 5);
        q.pid = me.pid;
        q.comm = me.comm;
        rc.push_back(q);
      }
    }
    std::sort(rc.begin(), rc.end(), [](const formats::RdmaQp& a, const formats::RdmaQp& b) { return a.lqpn < b.lqpn; });
    for (auto& q : rc) qps.push_back(std::move(q));
  }
  return formats::WriteRdmaResQp(qps);
}

// inventory.csv: every NIC of the inventory hosts.
std::string RenderInventory(const Cluster& cluster, const RdmaPlan& plan) {
  formats::Inventory inv;
  for (size_t hi = 0; hi < cluster.hosts.size(); ++hi) {
    if (!plan.inventory_host[hi]) continue;
    const HostModel& h = cluster.hosts[hi];
    for (const RdmaNic& n : plan.nics[hi]) {
      formats::InventoryRow row;
      row.host = h.name;
      row.ip = n.ip.ToString();
      row.addr = n.ip;
      row.nic = n.device;
      row.port = 1;
      row.gid = "::ffff:" + n.ip.ToString();
      // No rack or leaf: placement is for the analyzer to find, not to read.
      inv.rows.push_back(std::move(row));
    }
  }
  return formats::WriteInventoryCsv(inv);
}

}  // namespace

std::vector<RenderedFile> RenderRdma(const Cluster& cluster, RdmaPlan& plan) {
  const SimOptions& o = cluster.options;
  std::vector<RenderedFile> out;
  SimulatedWire wire = SimulateWire(cluster, plan);
  const PairsByRank pairs = RingPairsByRank(plan);
  for (int hi = 0; hi < static_cast<int>(cluster.hosts.size()); ++hi) {
    RenderHostLogs(cluster, plan, hi, pairs, out);
    if (plan.rdma_res_host[static_cast<size_t>(hi)]) {
      out.push_back({cluster.hosts[static_cast<size_t>(hi)].name + "/" + kRdmaResQpFile, RenderRdmaResQp(plan, hi)});
    }
    for (size_t c = 0; c < plan.captures.size(); ++c) {
      if (plan.captures[c].kind == RdmaCaptureKind::kDownlink && plan.captures[c].host == hi) {
        out.push_back(RenderCapture(o, plan, wire, c));
      }
    }
  }
  out.push_back({kInventoryFile, RenderInventory(cluster, plan)});
  for (size_t c = 0; c < plan.captures.size(); ++c) {
    if (plan.captures[c].kind != RdmaCaptureKind::kDownlink) out.push_back(RenderCapture(o, plan, wire, c));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Truth
// ---------------------------------------------------------------------------------------------

namespace {

using nlohmann::json;

// What the truth tells of the plan's hosts, NICs and QP ends.
struct TruthNames {
  const Cluster& cluster;
  const RdmaPlan& plan;
  [[nodiscard]] const std::string& Host(int h) const { return cluster.hosts[static_cast<size_t>(h)].name; }
  [[nodiscard]] const RdmaNic& Nic(const RdmaQpEnd& e) const {
    return plan.nics[static_cast<size_t>(e.host)][static_cast<size_t>(e.nic)];
  }
  [[nodiscard]] std::string Ip(const RdmaQpEnd& e) const { return Nic(e).ip.ToString(); }
};

// "addresses": every NIC of every host.
json AddressesJson(const TruthNames& names) {
  json addresses = json::array();
  for (const auto& host_nics : names.plan.nics) {
    for (const RdmaNic& n : host_nics) {
      addresses.push_back({{"host", names.Host(n.host)},
                           {"nic", n.device},
                           {"netdev", n.netdev},
                           {"ip", n.ip.ToString()},
                           {"leaf_port", n.leaf_port},
                           {"in_inventory", static_cast<bool>(names.plan.inventory_host[static_cast<size_t>(n.host)])}});
    }
  }
  return addresses;
}

// "captures": each capture with its counts after rendering.
json CapturesJson(const TruthNames& names) {
  const RdmaPlan& plan = names.plan;
  json captures = json::array();
  for (const RdmaCapture& c : plan.captures) {
    captures.push_back({{"file", c.file},
                        {"port", c.port},
                        {"leaf", c.leaf},
                        {"kind", std::string(RdmaCaptureKindName(c.kind))},
                        {"host", c.host >= 0 ? names.Host(c.host) : std::string()},
                        {"nic", c.host >= 0 ? plan.nics[static_cast<size_t>(c.host)][static_cast<size_t>(c.nic)].device
                                            : std::string()},
                        {"spine", c.spine},
                        {"snaplen", c.snaplen},
                        {"packets", c.packets},
                        {"bytes", c.bytes},
                        {"cut", c.cut}});
  }
  return captures;
}

// One end of a QP pair in "qp_pairs".
json QpEndJson(const TruthNames& names, const RdmaQpEnd& e) {
  return json{{"host", names.Host(e.host)},
              {"nic", names.Nic(e).device},
              {"ip", names.Ip(e)},
              {"qpn", e.qpn},
              {"psn0", e.psn0},
              {"sq_psn", (e.psn0 + e.psns) & kPsnMask},
              {"pid", e.pid},
              {"comm", e.comm}};
}

// One direction of a QP pair in "flows": requests from `src` to `dst`, with their lost PSNs.
json FlowJson(const TruthNames& names, const RdmaQpPair& p, const RdmaQpEnd& src, const RdmaQpEnd& dst,
              const std::string& kind, const std::vector<uint32_t>& lost_psns, uint16_t udp_sport) {
  const RdmaLink& l = names.plan.links[static_cast<size_t>(p.link)];
  return json{{"src", names.Ip(src)},
              {"dst", names.Ip(dst)},
              {"dest_qp", dst.qpn},
              {"src_qp", src.qpn},
              {"src_host", names.Host(src.host)},
              {"dst_host", names.Host(dst.host)},
              {"kind", kind},
              {"udp_sport", udp_sport},
              {"channel", p.channel},
              {"link", names.Host(l.host_a) + "~" + names.Host(l.host_b)},
              {"lost_psns", lost_psns},
              {"captured", p.captured}};
}

// "qp_pairs" and "flows" (two per pair: the requests and the answers).
void AddPairsAndFlows(const TruthNames& names, json& r) {
  json pairs = json::array();
  json flows = json::array();
  for (const RdmaQpPair& p : names.plan.qp_pairs) {
    pairs.push_back({{"kind", std::string(RdmaPairKindName(p.kind))},
                     {"op", std::string(RdmaOpName(p.op))},
                     {"channel", p.channel},
                     {"from_rank", p.from_rank},
                     {"to_rank", p.to_rank},
                     {"qp_index", p.qp_index},
                     {"requester", QpEndJson(names, p.a)},
                     {"responder", QpEndJson(names, p.b)},
                     {"udp_sport", p.udp_sport},
                     {"udp_sport_b", p.udp_sport_b},
                     {"captured", p.captured},
                     {"congested", p.congested},
                     {"naks", p.naks},
                     {"cnps", p.cnps}});
    flows.push_back(FlowJson(names, p, p.a, p.b, std::string(RdmaPairKindName(p.kind)), p.lost_a,
                             p.udp_sport));
    flows.push_back(FlowJson(names, p, p.b, p.a, p.kind == RdmaPairKind::kRing ? "ack" : "background", p.lost_b,
                             p.udp_sport_b));
  }
  r["qp_pairs"] = std::move(pairs);
  r["flows"] = std::move(flows);
}

// "rings" and "trees" of the communicator.
void AddRingsAndTrees(const TruthNames& names, json& r) {
  json rings = json::array();
  for (const RdmaRing& ring : names.plan.rings) {
    json hosts = json::array();
    for (int h : ring.hosts) hosts.push_back(names.Host(h));
    rings.push_back({{"channel", ring.channel}, {"ranks", ring.ranks}, {"hosts", hosts}});
  }
  r["rings"] = std::move(rings);
  json trees = json::array();
  for (const RdmaTree& t : names.plan.trees) {
    trees.push_back({{"channel", t.channel}, {"root", t.root}, {"up", t.up}});
  }
  r["trees"] = std::move(trees);
}

}  // namespace

void AddRdmaTruth(const Cluster& cluster, const RdmaPlan& plan, nlohmann::json* root) {
  const TruthNames names{cluster, plan};
  json r;
  r["window"] = {{"start_ns", plan.window_start_ns}, {"end_ns", plan.window_end_ns}};
  r["nccl"] = {{"version", plan.nccl_version},
               {"era", plan.era == formats::NcclLogEra::kV2_16 ? "2.16" : "2.26"},
               {"channels", plan.channels},
               {"qps_per_connection", plan.qps_per_connection},
               {"world", plan.world},
               {"nodes", static_cast<int>(cluster.hosts.size())},
               {"comm_id", plan.comm_id}};
  r["addresses"] = AddressesJson(names);
  r["captures"] = CapturesJson(names);
  AddRingsAndTrees(names, r);
  AddPairsAndFlows(names, r);

  json links = json::array();
  for (const RdmaLink& l : plan.links) {
    json j = {{"link", names.Host(l.host_a) + "~" + names.Host(l.host_b)},
              {"backbone", l.backbone},
              {"mode", std::string(RdmaLinkModeName(l.mode))},
              {"period_us", l.period_us}};
    links.push_back(std::move(j));
  }
  r["links"] = std::move(links);

  json inventory_hosts = json::array(), res_hosts = json::array();
  for (size_t i = 0; i < cluster.hosts.size(); ++i) {
    if (plan.inventory_host[i]) inventory_hosts.push_back(cluster.hosts[i].name);
    if (plan.rdma_res_host[i]) res_hosts.push_back(cluster.hosts[i].name);
  }
  r["inventory_hosts"] = std::move(inventory_hosts);
  r["rdma_res_hosts"] = std::move(res_hosts);
  r["shared_files"] = RdmaSharedFiles(plan);
  (*root)["rdma"] = std::move(r);

  // hosts[].rdma_files
  if (root->contains("hosts") && (*root)["hosts"].is_array()) {
    auto& hosts = (*root)["hosts"];
    for (size_t i = 0; i < hosts.size() && i < cluster.hosts.size(); ++i) {
      hosts[i]["rdma_files"] = RdmaHostFiles(plan, cluster.hosts[i]);
    }
  }
}

}  // namespace toposcope::sim
