// analysis/traffic/flows: see flows.h.
#include "toposcope/analysis/traffic/flows.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

constexpr uint32_t kPsnMask = 0xffffff;
constexpr uint32_t kPsnHalf = 0x800000;

std::string Hex(uint32_t v) { return StringPrintf("0x%x", v); }

}  // namespace

FlowKey KeyOf(const formats::RocePacket& p) { return FlowKey{p.src_ip, p.dst_ip, p.dest_qp & kPsnMask}; }

size_t FlowKeyHash::operator()(const FlowKey& k) const noexcept {
  uint64_t h = k.src.Hash();
  h ^= k.dst.Hash() + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= (uint64_t{k.dest_qp} * 0xff51afd7ed558ccdULL) + (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

std::string_view QpPairingName(QpPairing p) {
  switch (p) {
    case QpPairing::kNone: return "none";
    case QpPairing::kReverseAck: return "reverse_ack";
    case QpPairing::kUdpSourcePort: return "udp_sport";
    case QpPairing::kNcclLog: return "nccl_log";
    case QpPairing::kRdmaTool: return "rdma_tool";
    case QpPairing::kDeth: return "deth";
    case QpPairing::kReversePsn: return "reverse_psn";
  }
  return "none";
}

int QpPairingRank(QpPairing p) {
  switch (p) {
    case QpPairing::kNone: return 0;
    case QpPairing::kUdpSourcePort: return 1;
    case QpPairing::kNcclLog: return 2;
    case QpPairing::kRdmaTool: return 3;
    case QpPairing::kReverseAck: return 4;
    case QpPairing::kReversePsn: return 5;
    case QpPairing::kDeth: return 6;
  }
  return 0;
}

std::string_view OpClassName(int op_class) {
  static constexpr std::string_view kNames[kOpClasses] = {"send", "write",  "read_req", "read_resp",
                                                          "ack",  "atomic", "cnp",      "other"};
  if (op_class < 0 || op_class >= kOpClasses) return "other";
  return kNames[op_class];
}

int OpClassOf(uint8_t opcode) {
  if (opcode == formats::roce_op::kCnp) return kOpCnp;
  const uint8_t base = opcode & 0xe0;
  if (base != formats::roce_op::kRc && base != formats::roce_op::kUc && base != formats::roce_op::kUd) {
    return kOpOther;
  }
  const uint8_t low = opcode & 0x1f;
  if (low <= 0x05 || low == 0x16 || low == 0x17) return kOpSend;
  if (low <= 0x0b) return kOpWrite;
  if (low == 0x0c) return kOpReadReq;
  if (low <= 0x10) return kOpReadResp;
  if (low <= 0x12) return kOpAck;
  if (low <= 0x14) return kOpAtomic;
  return kOpOther;
}

uint16_t RoceUdpSourcePort(uint32_t lqpn, uint32_t rqpn) {
  uint64_t fl = uint64_t{lqpn} * uint64_t{rqpn};
  fl ^= fl >> 20;
  fl ^= fl >> 40;
  fl &= 0xFFFFF;
  const uint32_t f = static_cast<uint32_t>(fl);
  return static_cast<uint16_t>(((f & 0x3FFF) ^ ((f & 0xFC000) >> 14)) | 0xC000);
}

// ---------------------------------------------------------------------------------------------
// FlowTable
// ---------------------------------------------------------------------------------------------

void FlowTable::Sample(Sampler& s, uint32_t psn, int64_t ts_ns) {
  const uint32_t i = s.seen++;
  if ((i & (s.stride - 1)) != 0) return;
  if (s.block == Sampler::kNoBlock) {
    s.block = static_cast<uint32_t>(psn_arena_.size() / kMaxPsnSamples);
    psn_arena_.resize(psn_arena_.size() + kMaxPsnSamples);
    ts_arena_.resize(ts_arena_.size() + kMaxPsnSamples);
  }
  uint32_t* psns = psn_arena_.data() + size_t{s.block} * kMaxPsnSamples;
  int64_t* ts = ts_arena_.data() + size_t{s.block} * kMaxPsnSamples;
  if (s.count >= kMaxPsnSamples) {
    // Keep every other sample (those at multiples of twice the stride) and double the stride.
    uint32_t w = 0;
    for (uint32_t r = 0; r < s.count; r += 2, ++w) {
      psns[w] = psns[r];
      ts[w] = ts[r];
    }
    s.count = w;
    s.stride *= 2;
    if ((i & (s.stride - 1)) != 0) return;
  }
  psns[s.count] = psn;
  ts[s.count] = ts_ns;
  ++s.count;
}

std::vector<PsnSample> FlowTable::SamplesOf(const Sampler& s) const {
  std::vector<PsnSample> out;
  if (s.block == Sampler::kNoBlock) return out;
  out.reserve(s.count);
  for (uint32_t k = 0; k < s.count; ++k) {
    const size_t at = size_t{s.block} * kMaxPsnSamples + k;
    out.push_back({psn_arena_[at], ts_arena_[at]});
  }
  return out;
}

size_t FlowTable::Add(const formats::RocePacket& p) {
  const size_t at = *last_.Find(KeyOf(p), [&](const FlowKey& key) -> std::optional<size_t> {
    auto [it, inserted] = index_.try_emplace(key, states_.size());
    if (inserted) {
      states_.emplace_back();
      states_.back().key = key;
      states_.back().transport = formats::TransportOf(p.opcode);
    }
    return it->second;
  });
  State& s = states_[at];
  ++packets_;

  // UDP source ports.
  if (s.port_a_n == 0 || p.udp_src_port == s.port_a) {
    s.port_a = p.udp_src_port;
    ++s.port_a_n;
  } else if (s.port_b_n == 0 || p.udp_src_port == s.port_b) {
    s.port_b = p.udp_src_port;
    ++s.port_b_n;
  } else {
    s.ports_mixed = true;
  }
  // UD source QP.
  bool deth_main = true;  // this packet belongs to the flow's first UD source QP (or is not UD)
  if (p.has_deth) {
    if (s.deth_packets == 0) {
      s.deth_src_qp = p.deth_src_qp;
    } else if (p.deth_src_qp != s.deth_src_qp) {
      s.deth_mixed = true;
      deth_main = false;
    }
    ++s.deth_packets;
  }

  PointState* ps = nullptr;
  for (auto& pt : s.points) {
    if (pt.capture_index == p.capture_index) {
      ps = &pt;
      break;
    }
  }
  if (ps == nullptr) {
    s.points.emplace_back();
    ps = &s.points.back();
    ps->capture_index = p.capture_index;
    ps->first_ns = p.ts_ns;
    ps->last_ns = p.ts_ns;
  }
  ++ps->packets;
  ps->bytes += p.wire_len;
  ps->payload_bytes += p.payload_bytes;
  ps->first_ns = std::min(ps->first_ns, p.ts_ns);
  ps->last_ns = std::max(ps->last_ns, p.ts_ns);
  const int cls = OpClassOf(p.opcode);
  ++ps->opcode_mix[cls];
  if (cls == kOpSend || cls == kOpWrite || cls == kOpReadResp) ps->data_bytes += p.payload_bytes;
  if (p.ip_ecn_ce) ++ps->ecn_ce;
  if (p.becn) ++ps->becn;
  if (p.fecn) ++ps->fecn;
  if (cls == kOpAck || cls == kOpReadResp) Sample(ps->ack_samples, p.psn & kPsnMask, p.ts_ns);
  if (cls == kOpAck && p.has_aeth) {
    if (formats::IsNak(p)) {
      ++ps->naks;
    } else if (formats::IsRnrNak(p)) {
      ++ps->rnr_naks;
    } else if ((p.aeth_syndrome & 0xe0) == 0) {
      ++ps->acks;
    }
  }

  // Requester PSN space.
  if (formats::IsRequest(p.opcode) && deth_main) {
    PsnTrack& t = ps->req;
    const uint32_t psn = p.psn & kPsnMask;
    bool advanced = true;
    bool new_run = false;
    if (!t.started) {
      t.started = true;
      new_run = true;
    } else {
      const uint32_t d = (psn - t.next) & kPsnMask;
      if (d == 0) {
        // in order
      } else if (d < kPsnHalf) {
        if (d > t.read_slack) {
          ps->psn_gaps += d - t.read_slack;
          new_run = ps->runs.size() + 1 < kMaxPsnRuns;
        }
      } else {
        ++ps->retransmissions;
        advanced = false;
      }
    }
    if (advanced) {
      t.next = (psn + 1) & kPsnMask;
      t.read_slack = 0;
      if (p.opcode == formats::roce_op::kReadRequest && p.has_reth && p.reth_dma_len > 0) {
        // The response packets take ceil(L / MTU) PSNs; at the smallest MTU (256) that is the most.
        t.read_slack = static_cast<uint32_t>((uint64_t{p.reth_dma_len} + 255) / 256) - 1;
      }
      if (new_run) {
        if (ps->run.len > 0) ps->runs.push_back(ps->run);
        ps->run = {psn, 0};
      }
      PsnRun& run = ps->run;  // past kMaxPsnRuns the last run grows over the gaps
      run.len = std::max(run.len, ((psn - run.lo) & kPsnMask) + 1 + t.read_slack);
      Sample(ps->req_samples, psn, p.ts_ns);
    }
  }
  return at;
}

Flow FlowTable::Finalise(const State& s) const {
  Flow f;
  f.key = s.key;
  f.transport = s.transport;
  if (s.port_b_n > s.port_a_n) {
    f.udp_src_port = s.port_b;
  } else {
    f.udp_src_port = s.port_a;
  }
  f.udp_src_port_mixed = s.ports_mixed || s.port_b_n > 0;
  f.deth_packets = s.deth_packets;
  f.deth_src_qp = s.deth_src_qp;
  f.deth_mixed = s.deth_mixed;
  const PointState* best = nullptr;
  for (const auto& pt : s.points) {
    if (best == nullptr || pt.packets > best->packets ||
        (pt.packets == best->packets && pt.capture_index < best->capture_index)) {
      best = &pt;
    }
    f.capture_points.push_back(pt.capture_index);
  }
  std::sort(f.capture_points.begin(), f.capture_points.end());
  if (best == nullptr) return f;
  f.packets = best->packets;
  f.bytes = best->bytes;
  f.payload_bytes = best->payload_bytes;
  f.data_bytes = best->data_bytes;
  f.opcode_mix = best->opcode_mix;
  f.psn_gaps = best->psn_gaps;
  f.retransmissions = best->retransmissions;
  f.naks = best->naks;
  f.rnr_naks = best->rnr_naks;
  f.acks = best->acks;
  f.ecn_ce = best->ecn_ce;
  f.becn = best->becn;
  f.fecn = best->fecn;
  f.first_ns = best->first_ns;
  f.last_ns = best->last_ns;
  for (const auto& pt : s.points) {
    f.first_ns = std::min(f.first_ns, pt.first_ns);
    f.last_ns = std::max(f.last_ns, pt.last_ns);
  }
  return f;
}

std::vector<Flow> FlowTable::Flows() const {
  std::vector<Flow> out;
  out.reserve(states_.size());
  for (const auto& s : states_) out.push_back(Finalise(s));
  std::sort(out.begin(), out.end(), [](const Flow& a, const Flow& b) { return a.key < b.key; });
  return out;
}

std::vector<FlowPsnEvidence> FlowTable::PsnEvidence() const {
  std::vector<FlowPsnEvidence> out;
  out.reserve(states_.size());
  for (const auto& s : states_) {
    FlowPsnEvidence e;
    e.key = s.key;
    for (const auto& pt : s.points) {
      e.runs.insert(e.runs.end(), pt.runs.begin(), pt.runs.end());
      if (pt.req.started) e.runs.push_back(pt.run);
      e.points.push_back({pt.capture_index, SamplesOf(pt.req_samples), SamplesOf(pt.ack_samples)});
    }
    std::sort(e.points.begin(), e.points.end(),
              [](const PointPsnEvidence& a, const PointPsnEvidence& b) { return a.capture_index < b.capture_index; });
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(), [](const FlowPsnEvidence& a, const FlowPsnEvidence& b) { return a.key < b.key; });
  return out;
}

std::optional<Flow> FlowTable::Find(const FlowKey& key) const {
  auto it = index_.find(key);
  if (it == index_.end()) return std::nullopt;
  return Finalise(states_[it->second]);
}

// ---------------------------------------------------------------------------------------------
// HostMap
// ---------------------------------------------------------------------------------------------

namespace {

int SourceRank(std::string_view source) {
  if (source == "inventory") return 4;
  if (source == "show_gids") return 3;
  if (source == "ibv_devinfo") return 2;
  if (source == "nccl_log") return 1;
  return 0;
}

}  // namespace

std::string HostMap::HostOf(const IpAddress& ip) const {
  auto it = ip_host_source.find(ip);
  return it == ip_host_source.end() ? std::string() : it->second.first;
}

std::string HostMap::NicOf(const IpAddress& ip) const {
  auto it = ip_nic.find(ip);
  return it == ip_nic.end() ? std::string() : it->second;
}

void HostMap::Add(const IpAddress& ip, const std::string& host, const std::string& source,
                  const std::string& nic) {
  if (host.empty()) return;
  auto it = ip_host_source.find(ip);
  if (it == ip_host_source.end()) {
    ip_host_source.emplace(ip, std::make_pair(host, source));
    if (!nic.empty()) ip_nic[ip] = nic;
    return;
  }
  auto& [old_host, old_source] = it->second;
  const bool stronger = SourceRank(source) > SourceRank(old_source);
  if (old_host != host) {
    std::string c = ip.ToString() + ": " + old_source + " says " + old_host + ", " + source + " says " + host;
    if (std::find(conflicts.begin(), conflicts.end(), c) == conflicts.end()) conflicts.push_back(std::move(c));
    if (stronger) {
      old_host = host;
      old_source = source;
      if (!nic.empty()) {
        ip_nic[ip] = nic;
      } else {
        ip_nic.erase(ip);
      }
    }
    return;
  }
  if (stronger) old_source = source;
  if (!nic.empty() && (stronger || ip_nic.find(ip) == ip_nic.end())) ip_nic[ip] = nic;
}

std::optional<IpAddress> GidToIp(std::string_view gid) {
  gid = Trim(gid);
  if (gid.find(':') == std::string_view::npos) return std::nullopt;
  auto ip = IpAddress::Parse(gid);
  if (!ip || !ip->is_v6()) return std::nullopt;
  auto b = ip->bytes();
  bool zero = true;
  for (uint8_t x : b) zero = zero && x == 0;
  if (zero) return std::nullopt;
  bool mapped = b[10] == 0xff && b[11] == 0xff;
  for (int i = 0; i < 10 && mapped; ++i) mapped = b[i] == 0;
  if (mapped) {
    const uint8_t v4[4] = {b[12], b[13], b[14], b[15]};
    return IpAddress::V4(v4);
  }
  return ip;
}

HostMap BuildHostMap(const model::Dataset& ds) {
  HostMap m;
  for (const auto& row : ds.inventory.rows) {
    if (auto ip = IpAddress::Parse(row.ip)) m.Add(*ip, row.host, "inventory", row.nic);
    if (!row.gid.empty()) {
      if (auto g = GidToIp(row.gid)) m.Add(*g, row.host, "inventory", row.nic);
    }
  }
  for (const auto& [host, ev] : ds.hosts) {
    for (const auto& g : ev.gids) {
      if (!g.ipv4.empty()) {
        if (auto ip = IpAddress::Parse(g.ipv4)) m.Add(*ip, host, "show_gids", g.dev);
      }
      if (auto ip = GidToIp(g.gid)) m.Add(*ip, host, "show_gids", g.dev);
    }
    for (const auto& dev : ev.ib_devices) {
      for (const auto& port : dev.ports) {
        for (size_t i = 0; i < port.gids.size(); ++i) {
          const std::string type = i < port.gid_types.size() ? port.gid_types[i] : std::string();
          const bool roce = StartsWith(type, "RoCE") || port.link_layer == "Ethernet";
          if (!roce) continue;
          if (auto ip = GidToIp(port.gids[i].second)) m.Add(*ip, host, "ibv_devinfo", dev.name);
        }
      }
    }
  }
  for (const auto& log : ds.nccl_logs) {
    for (const auto& u : log.net_using) {
      if (!u.oob_ip.empty()) {
        if (auto ip = IpAddress::Parse(u.oob_ip)) m.Add(*ip, u.at.host, "nccl_log", u.oob_iface);
      }
      for (const auto& d : u.devices) {
        if (d.address.empty()) continue;
        if (auto ip = IpAddress::Parse(d.address)) m.Add(*ip, u.at.host, "nccl_log", d.name);
      }
    }
    // RoCE qpn lines name the local GID: every NIC's address, not only the OOB one.
    for (const auto& q : log.qpns) {
      if (q.gid.empty() || q.at.host.empty()) continue;
      if (auto ip = NcclGidToIp(q.gid)) m.Add(*ip, q.at.host, "nccl_log", q.ib_dev);
    }
  }
  return m;
}

std::optional<IpAddress> NcclGidToIp(std::string_view gid) {
  // "<index> (<subnet prefix>/<interface id>)": two uint64 printed with %lX after NCCL copied the
  // GID's network-order bytes into them on a little-endian host.
  const size_t open = gid.find('(');
  const size_t slash = gid.find('/', open == std::string_view::npos ? 0 : open);
  const size_t close = gid.find(')', slash == std::string_view::npos ? 0 : slash);
  if (open == std::string_view::npos || slash == std::string_view::npos || close == std::string_view::npos) {
    return std::nullopt;
  }
  const std::optional<uint64_t> prefix_hex = ParseHexU64(gid.substr(open + 1, slash - open - 1));
  const std::optional<uint64_t> iid_hex = ParseHexU64(gid.substr(slash + 1, close - slash - 1));
  if (!prefix_hex || !iid_hex) return std::nullopt;
  const uint64_t prefix = *prefix_hex, iid = *iid_hex;
  std::array<uint8_t, 16> b{};
  for (int i = 0; i < 8; ++i) {
    b[static_cast<size_t>(i)] = static_cast<uint8_t>(prefix >> (8 * i));
    b[static_cast<size_t>(8 + i)] = static_cast<uint8_t>(iid >> (8 * i));
  }
  const bool all_zero = std::all_of(b.begin(), b.end(), [](uint8_t x) { return x == 0; });
  if (all_zero) return std::nullopt;
  const bool v4_mapped = std::all_of(b.begin(), b.begin() + 10, [](uint8_t x) { return x == 0; }) && b[10] == 0xff &&
                         b[11] == 0xff;
  if (v4_mapped) return IpAddress::V4(b.data() + 12);
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return std::nullopt;  // link-local: not routable, no host identity
  return IpAddress::V6(b.data());
}

// ---------------------------------------------------------------------------------------------
// Pairing
// ---------------------------------------------------------------------------------------------

namespace {

bool Overlap(const Flow& a, const Flow& b, int64_t slack_ns) {
  return a.first_ns <= b.last_ns + slack_ns && b.first_ns <= a.last_ns + slack_ns;
}

struct Candidate {
  QpPairing method = QpPairing::kNone;
  uint32_t qp = 0;
  std::string detail;
};

// A local QP named by an NCCL log.
struct NcclQp {
  uint32_t qpn = 0;
  int dev = -1;
  std::string host;
  std::optional<uint32_t> remote;  // 2.21+: the peer QP printed right after it ("set_ece")
  int peer_rank = -1;              // the NET send connection it was zipped with (2.16 style)
  std::optional<IpAddress> local_ip;  // from the line's RoCE GID
};

// Rank -> host from every line whose printing rank is known (comm lines, Ring/Trees "me",
// connection [send] from / [receive] to). Ranks seen on two hosts map to "" (ambiguous).
std::map<int, std::string> RankHostsOfLogs(const std::vector<formats::NcclLog>& logs) {
  std::map<int, std::string> m;
  auto put = [&m](int rank, const std::string& host) {
    if (rank < 0 || host.empty()) return;
    auto [it, inserted] = m.emplace(rank, host);
    if (!inserted && it->second != host) it->second.clear();
  };
  for (const auto& log : logs) {
    for (const auto& c : log.comms) put(c.rank, c.at.host);
    for (const auto& r : log.rings) put(r.me, r.at.host);
    for (const auto& t : log.trees) put(t.me, t.at.host);
    for (const auto& c : log.connections) {
      if (c.dir == formats::NcclConnection::Dir::kSend) put(c.from_rank, c.at.host);
      if (c.dir == formats::NcclConnection::Dir::kReceive) put(c.to_rank, c.at.host);
    }
  }
  return m;
}

std::vector<NcclQp> NcclQpsOfLogs(const std::vector<formats::NcclLog>& logs) {
  std::vector<NcclQp> out;
  for (const auto& log : logs) {
    // Per process (host, pid): local qpn lines (and the remote lines that follow them, per thread),
    // and the NET send connections in line order.
    std::map<std::pair<std::string, int64_t>, std::vector<const formats::NcclQpn*>> by_proc;
    for (const auto& q : log.qpns) by_proc[{q.at.host, q.at.pid}].push_back(&q);
    std::map<std::pair<std::string, int64_t>, std::vector<const formats::NcclConnection*>> sends;
    for (const auto& c : log.connections) {
      if (c.transport == formats::NcclTransport::kNet && c.dir == formats::NcclConnection::Dir::kSend) {
        sends[{c.at.host, c.at.pid}].push_back(&c);
      }
    }
    for (auto& [proc, qs] : by_proc) {
      std::sort(qs.begin(), qs.end(), [](auto* a, auto* b) { return a->line < b->line; });
      std::vector<NcclQp> local;
      // Pair runs of local lines with the run of remote lines that follows, per thread.
      std::map<int64_t, std::vector<size_t>> pending;  // tid -> local indices waiting for remotes
      std::map<int64_t, size_t> next_pending;
      for (const auto* q : qs) {
        if (!q->remote) {
          auto& pend = pending[q->at.tid];
          if (next_pending[q->at.tid] > 0) {  // a new run of local lines
            pend.clear();
            next_pending[q->at.tid] = 0;
          }
          NcclQp n;
          n.qpn = q->qpn;
          n.dev = q->dev;
          n.host = q->at.host;
          if (!q->gid.empty()) n.local_ip = NcclGidToIp(q->gid);
          pend.push_back(local.size());
          local.push_back(std::move(n));
        } else {
          auto& pend = pending[q->at.tid];
          size_t& k = next_pending[q->at.tid];
          if (k < pend.size()) {
            local[pend[k]].remote = q->qpn;
            ++k;
          }
        }
      }
      auto sit = sends.find(proc);
      if (sit != sends.end()) {
        auto conns = sit->second;
        std::sort(conns.begin(), conns.end(), [](auto* a, auto* b) { return a->line < b->line; });
        if (conns.size() == local.size()) {
          for (size_t i = 0; i < local.size(); ++i) local[i].peer_rank = conns[i]->to_rank;
        }
      }
      for (auto& n : local) out.push_back(std::move(n));
    }
  }
  return out;
}

using Candidates = std::vector<std::vector<Candidate>>;  // per flow
using PairRanges = std::map<std::pair<IpAddress, IpAddress>, std::pair<size_t, size_t>>;

// A weak proposal (NCCL logs without an explicit pair, the UDP port hash) for one flow.
struct Weak {
  size_t flow;
  Candidate c;
};

// Sets every flow's hosts from the host map and clears its pairing.
void ResetPairing(std::vector<Flow>& flows, const HostMap& hosts) {
  for (auto& f : flows) {
    f.src_host = hosts.HostOf(f.key.src);
    f.dst_host = hosts.HostOf(f.key.dst);
    f.src_qp = 0;
    f.pairing = QpPairing::kNone;
    f.candidates.clear();
    f.pairing_conflict = false;
    f.pairing_detail.clear();
  }
}

// Flows by directed IP pair: [begin, end) ranges (flows are sorted by key).
PairRanges FlowsByIpPair(const std::vector<Flow>& flows) {
  const size_t n = flows.size();
  PairRanges by_pair;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && flows[j].key.src == flows[i].key.src && flows[j].key.dst == flows[i].key.dst) ++j;
    by_pair[{flows[i].key.src, flows[i].key.dst}] = {i, j};
    i = j;
  }
  return by_pair;
}

// 1. DETH: a UD flow with a single source QP names it.
void ProposeDeth(const std::vector<Flow>& flows, Candidates* cands) {
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (f.deth_packets > 0 && !f.deth_mixed) {
      (*cands)[i].push_back({QpPairing::kDeth, f.deth_src_qp, "DETH source QP " + Hex(f.deth_src_qp)});
    }
  }
}

// The evidence of a reverse-flow match: the reverse flow `reverse`, the matched UDP source port.
std::string ReverseFlowDetail(const Flow& reverse, uint16_t udp_src_port, bool responses) {
  return StringPrintf("reverse flow %s->%s qp %s, udp sport 0x%04x%s", reverse.key.src.ToString().c_str(),
                      reverse.key.dst.ToString().c_str(), Hex(reverse.key.dest_qp).c_str(), udp_src_port,
                      responses ? " with responses" : " (no responses)");
}

// 2. Reverse flows of one IP pair, flows [xb, xe) one way and [yb, ye) the other: same UDP source
// port and overlapping time (reverse_ack when either carries responses, else udp_sport symmetry);
// without a port match, the sole flows of the IP pair.
void ProposeReversePair(const std::vector<Flow>& flows, size_t xb, size_t xe, size_t yb, size_t ye,
                        const PairingOptions& opts, Candidates* cands) {
  std::vector<int> x_match(xe - xb, -1), y_match(ye - yb, -1);
  std::vector<int> x_count(xe - xb, 0), y_count(ye - yb, 0);
  for (size_t x = xb; x < xe; ++x) {
    for (size_t y = yb; y < ye; ++y) {
      if (flows[x].udp_src_port != flows[y].udp_src_port) continue;
      if (!Overlap(flows[x], flows[y], opts.overlap_slack_ns)) continue;
      ++x_count[x - xb];
      ++y_count[y - yb];
      x_match[x - xb] = static_cast<int>(y);
      y_match[y - yb] = static_cast<int>(x);
    }
  }
  bool any_port_match = false;
  for (size_t x = xb; x < xe; ++x) {
    if (x_count[x - xb] != 1) continue;
    const size_t y = static_cast<size_t>(x_match[x - xb]);
    if (y_count[y - yb] != 1) continue;
    any_port_match = true;
    const bool resp = flows[x].responses() > 0 || flows[y].responses() > 0;
    const QpPairing m = resp ? QpPairing::kReverseAck : QpPairing::kUdpSourcePort;
    (*cands)[x].push_back({m, flows[y].key.dest_qp, ReverseFlowDetail(flows[y], flows[x].udp_src_port, resp)});
    (*cands)[y].push_back({m, flows[x].key.dest_qp, ReverseFlowDetail(flows[x], flows[y].udp_src_port, resp)});
  }
  if (!any_port_match && xe - xb == 1 && ye - yb == 1) {
    const size_t x = xb, y = yb;
    if (Overlap(flows[x], flows[y], opts.overlap_slack_ns) &&
        (flows[x].responses() > 0 || flows[y].responses() > 0)) {
      (*cands)[x].push_back({QpPairing::kReverseAck, flows[y].key.dest_qp,
                             "sole reverse flow of the IP pair, qp " + Hex(flows[y].key.dest_qp)});
      (*cands)[y].push_back({QpPairing::kReverseAck, flows[x].key.dest_qp,
                             "sole reverse flow of the IP pair, qp " + Hex(flows[x].key.dest_qp)});
    }
  }
}

// 2. Reverse flows, every unordered IP pair with flows both ways once.
void ProposeReverseFlows(const std::vector<Flow>& flows, const PairRanges& by_pair, const PairingOptions& opts,
                         Candidates* cands) {
  for (const auto& [pair, range] : by_pair) {
    if (!(pair.first < pair.second)) continue;  // each unordered pair once
    auto rit = by_pair.find({pair.second, pair.first});
    if (rit == by_pair.end()) continue;
    const auto [xb, xe] = range;
    const auto [yb, ye] = rit->second;
    ProposeReversePair(flows, xb, xe, yb, ye, opts, cands);
  }
}

// PSN evidence that one flow's ACK samples acknowledge another flow's requests (either way round).
struct PsnMatch {
  int64_t inside = 0, outside = 0;  // ACK PSNs inside / outside the other flow's request PSN runs
  int64_t timed = 0, early = 0;     // ACKs timed at a common capture point / seen before the request
  std::vector<int64_t> lags_ns;     // ACK time - time of the last request sample at or before its PSN
  [[nodiscard]] bool Candidate() const {
    // Timing vetoes a PSN match when most timed ACKs come before the requests they would acknowledge.
    return inside > 0 && inside >= outside && !(timed >= 4 && early * 2 > timed);
  }
  [[nodiscard]] double EarlyFraction() const { return timed == 0 ? 0.0 : static_cast<double>(early) / timed; }
  [[nodiscard]] int64_t MedianLagNs() const {
    if (lags_ns.empty()) return -1;
    std::vector<int64_t> v = lags_ns;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  }
};

// Where `psn` lies against the runs: 1 inside (the run's end included: a NAK names the next PSN
// expected), 0 shortly before the first run (an ACK of a request from before the capture began:
// no evidence either way), -1 elsewhere.
int PsnPlace(const std::vector<PsnRun>& runs, uint32_t psn) {
  for (const auto& r : runs) {
    if (((psn - r.lo) & kPsnMask) <= r.len) return 1;
  }
  if (!runs.empty() && ((runs.front().lo - psn) & kPsnMask) <= runs.front().len) return 0;
  return -1;
}

// Adds to *m how the ACK samples of `acker` fit the request PSNs of `req`: PSN placement against
// every run, timing against the request samples of the same capture point.
void AddPsnMatch(const FlowPsnEvidence& req, const FlowPsnEvidence& acker, PsnMatch* m) {
  if (req.runs.empty()) return;
  for (const auto& pa : acker.points) {
    const PointPsnEvidence* pr = nullptr;
    for (const auto& q : req.points) {
      if (q.capture_index == pa.capture_index) pr = &q;
    }
    for (const auto& a : pa.acks) {
      const int place = PsnPlace(req.runs, a.psn);
      if (place < 0) ++m->outside;
      if (place <= 0) continue;
      ++m->inside;
      if (pr == nullptr || pr->requests.empty()) continue;
      const uint32_t base = pr->requests.front().psn;
      const uint32_t off = (a.psn - base) & kPsnMask;
      if (off >= kPsnHalf) continue;  // before this point's first request sample
      const PsnSample* lower = &pr->requests.front();
      for (const auto& r : pr->requests) {
        if (((r.psn - base) & kPsnMask) > off) break;
        lower = &r;
      }
      ++m->timed;
      const int64_t lag = a.ts_ns - lower->ts_ns;
      if (lag < 0) {
        ++m->early;
      } else {
        m->lags_ns.push_back(lag);
      }
    }
  }
}

// Whether match a is clearly better than match b by timing: a far smaller share of ACKs before
// their requests, or (neither has any) a median ACK lag under half of b's.
bool TimingBetter(const PsnMatch& a, const PsnMatch& b) {
  if (a.timed == 0 || b.timed == 0) return false;
  const double ea = a.EarlyFraction(), eb = b.EarlyFraction();
  if (ea * 2 < eb) return true;
  if (ea > 0 || eb > 0) return false;
  const int64_t la = a.MedianLagNs(), lb = b.MedianLagNs();
  return la >= 0 && lb >= 0 && la * 2 < lb;
}

// The best of the candidates `cands` (indices into `matches`): the only one, or the one that
// TimingBetter beats all others with (*by_timing set); -1 when none or no clear winner.
int BestPsnMatch(const std::vector<int>& cands, const std::vector<PsnMatch>& matches, bool* by_timing) {
  *by_timing = false;
  if (cands.empty()) return -1;
  if (cands.size() == 1) return cands.front();
  for (int c : cands) {
    bool beats_all = true;
    for (int o : cands) {
      if (o != c && !TimingBetter(matches[static_cast<size_t>(c)], matches[static_cast<size_t>(o)])) beats_all = false;
    }
    if (beats_all) {
      *by_timing = true;
      return c;
    }
  }
  return -1;
}

// The evidence of a PSN match with the reverse flow `reverse`.
std::string PsnDetail(const Flow& reverse, const PsnMatch& m, bool by_timing, size_t rivals) {
  std::string d = StringPrintf("reverse flow %s->%s qp %s: %lld of %lld ACK PSNs inside the request PSNs",
                               reverse.key.src.ToString().c_str(), reverse.key.dst.ToString().c_str(),
                               Hex(reverse.key.dest_qp).c_str(), static_cast<long long>(m.inside),
                               static_cast<long long>(m.inside + m.outside));
  if (m.timed > 0) {
    d += StringPrintf(", %lld timed, median ACK lag %lld ns", static_cast<long long>(m.timed),
                      static_cast<long long>(m.MedianLagNs()));
  }
  if (by_timing) d += StringPrintf("; timing chose it over %zu other PSN match(es)", rivals);
  return d;
}

// 2b. Reverse flows by PSN, one IP pair: flows [xb, xe) one way, [yb, ye) the other. A pair (x, y)
// is proposed when each is the other's best PSN match; a flow with PSN matches but no clear best
// gets an "ambiguous" note in *notes.
void ProposeReversePsnPair(const std::vector<Flow>& flows, const std::vector<FlowPsnEvidence>& ev, size_t xb,
                           size_t xe, size_t yb, size_t ye, const PairingOptions& opts, Candidates* cands,
                           std::vector<std::string>* notes) {
  const size_t nx = xe - xb, ny = ye - yb;
  std::vector<PsnMatch> m(nx * ny);
  std::vector<std::vector<int>> row(nx), col(ny);
  for (size_t x = 0; x < nx; ++x) {
    for (size_t y = 0; y < ny; ++y) {
      if (!Overlap(flows[xb + x], flows[yb + y], opts.overlap_slack_ns)) continue;
      PsnMatch& c = m[x * ny + y];
      AddPsnMatch(ev[xb + x], ev[yb + y], &c);
      AddPsnMatch(ev[yb + y], ev[xb + x], &c);
      if (!c.Candidate()) continue;
      row[x].push_back(static_cast<int>(x * ny + y));
      col[y].push_back(static_cast<int>(x * ny + y));
    }
  }
  std::vector<int> best_y(ny, -1);
  std::vector<bool> timing_y(ny, false);
  for (size_t y = 0; y < ny; ++y) {
    bool t = false;
    best_y[y] = BestPsnMatch(col[y], m, &t);
    timing_y[y] = t;
  }
  auto ambiguous = [&](size_t flow, const std::vector<int>& cs, bool rows) {
    std::string n = "reverse_psn ambiguous between qp";
    for (int c : cs) {
      const size_t other = rows ? yb + static_cast<size_t>(c) % ny : xb + static_cast<size_t>(c) / ny;
      n += " " + Hex(flows[other].key.dest_qp);
    }
    (*notes)[flow] = n;
  };
  for (size_t x = 0; x < nx; ++x) {
    bool tx = false;
    const int b = BestPsnMatch(row[x], m, &tx);
    if (b < 0) {
      if (row[x].size() > 1) ambiguous(xb + x, row[x], true);
      continue;
    }
    const size_t y = static_cast<size_t>(b) % ny;
    if (best_y[y] != b) {
      ambiguous(xb + x, row[x], true);
      continue;
    }
    const PsnMatch& c = m[static_cast<size_t>(b)];
    const Flow& fx = flows[xb + x];
    const Flow& fy = flows[yb + y];
    (*cands)[xb + x].push_back(
        {QpPairing::kReversePsn, fy.key.dest_qp, PsnDetail(fy, c, tx || timing_y[y], row[x].size() - 1)});
    (*cands)[yb + y].push_back(
        {QpPairing::kReversePsn, fx.key.dest_qp, PsnDetail(fx, c, tx || timing_y[y], col[y].size() - 1)});
  }
  for (size_t y = 0; y < ny; ++y) {
    if (best_y[y] < 0 && col[y].size() > 1) ambiguous(yb + y, col[y], false);
  }
}

// 2b. Reverse flows by PSN, every unordered IP pair with flows both ways once.
void ProposeReversePsn(const std::vector<Flow>& flows, const std::vector<FlowPsnEvidence>& ev,
                       const PairRanges& by_pair, const PairingOptions& opts, Candidates* cands,
                       std::vector<std::string>* notes) {
  for (const auto& [pair, range] : by_pair) {
    if (!(pair.first < pair.second)) continue;
    auto rit = by_pair.find({pair.second, pair.first});
    if (rit == by_pair.end()) continue;
    ProposeReversePsnPair(flows, ev, range.first, range.second, rit->second.first, rit->second.second, opts, cands,
                          notes);
  }
}

// 3. rdma res show qp: the destination host's QP whose lqpn is the flow's destination QP, else the
// source host's QP whose rqpn it is (on the flow's NICs when known).
void ProposeRdmaTool(const std::vector<Flow>& flows, const model::Dataset& ds, const HostMap& hosts,
                     Candidates* cands) {
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    const uint32_t qb = f.key.dest_qp;
    std::set<uint32_t> from_dst, from_src;
    const std::string dst_nic = hosts.NicOf(f.key.dst), src_nic = hosts.NicOf(f.key.src);
    if (!f.dst_host.empty()) {
      auto it = ds.hosts.find(f.dst_host);
      if (it != ds.hosts.end()) {
        for (const auto& q : it->second.rdma_qps) {
          if (q.lqpn != qb || !q.rqpn) continue;
          if (!dst_nic.empty() && q.dev != dst_nic) continue;
          from_dst.insert(*q.rqpn);
        }
      }
    }
    if (!f.src_host.empty()) {
      auto it = ds.hosts.find(f.src_host);
      if (it != ds.hosts.end()) {
        for (const auto& q : it->second.rdma_qps) {
          if (!q.rqpn || *q.rqpn != qb) continue;
          if (!src_nic.empty() && q.dev != src_nic) continue;
          from_src.insert(q.lqpn);
        }
      }
    }
    if (from_dst.size() == 1) {
      (*cands)[i].push_back({QpPairing::kRdmaTool, *from_dst.begin(),
                             "rdma res show qp of " + f.dst_host + ": lqpn " + std::to_string(qb) + " rqpn " +
                                 std::to_string(*from_dst.begin())});
    } else if (from_dst.empty() && from_src.size() == 1) {
      (*cands)[i].push_back({QpPairing::kRdmaTool, *from_src.begin(),
                             "rdma res show qp of " + f.src_host + ": lqpn " + std::to_string(*from_src.begin()) +
                                 " rqpn " + std::to_string(qb)});
    }
  }
}

// 4. The NCCL qpn of the flow's source host a weak proposal picks (nullptr when none): the one whose
// UDP port hash matches, else the only one on a connection towards the destination host, else the
// host's only qpn when the log does not say where it goes. qpns in `taken` (the wire already gave
// them to other flows of the address: with several QPs per connection NCCL logs them all) are left
// out first. *why = the evidence.
const NcclQp* PickNcclQp(const Flow& f, const std::vector<const NcclQp*>& host_qps,
                         const std::map<int, std::string>& rank_host, const std::set<uint32_t>& taken,
                         const PairingOptions& opts, std::string* why) {
  const uint32_t qb = f.key.dest_qp;
  // A qpn whose GID names another address of the host belongs to another NIC's connection.
  std::vector<const NcclQp*> all, towards;
  bool left_out = false;
  for (const auto* q : host_qps) {
    if (q->local_ip && *q->local_ip != f.key.src) continue;
    if (taken.count(q->qpn) != 0) {
      left_out = true;
      continue;
    }
    all.push_back(q);
  }
  for (const auto* q : all) {
    if (q->peer_rank < 0) continue;
    auto rh = rank_host.find(q->peer_rank);
    if (rh != rank_host.end() && !f.dst_host.empty() && rh->second == f.dst_host) towards.push_back(q);
  }
  const NcclQp* pick = nullptr;
  if (opts.use_udp_sport_hash) {
    std::set<uint32_t> hashed;
    for (const auto* q : all) {
      if (RoceUdpSourcePort(q->qpn, qb) == f.udp_src_port) hashed.insert(q->qpn);
    }
    if (hashed.size() == 1) {
      for (const auto* q : all) {
        if (q->qpn == *hashed.begin()) pick = q;
      }
      *why = "NCCL qpn of " + f.src_host + " whose UDP port hash with " + std::to_string(qb) + " matches";
    }
  }
  if (pick == nullptr && towards.size() == 1) {
    pick = towards.front();
    *why = "the only NCCL qpn of " + f.src_host + " on a connection to " + f.dst_host;
  }
  // The only qpn of the host, when the log does not say where it goes (a qpn whose peer host is
  // known and is another host belongs to another connection).
  const bool peer_unknown =
      all.size() == 1 && (all.front()->peer_rank < 0 || rank_host.count(all.front()->peer_rank) == 0);
  if (pick == nullptr && all.size() == 1 && towards.empty() && peer_unknown) {
    pick = all.front();
    *why = "the only NCCL qpn of " + f.src_host;
  }
  if (pick != nullptr && left_out) *why += " not already paired from the wire";
  return pick;
}

// 4. NCCL logs: an explicit local/remote qpn pair on either side is a candidate; otherwise the qpn
// PickNcclQp finds is a weak proposal.
void ProposeNcclLog(const std::vector<Flow>& flows, const std::vector<NcclQp>& nccl_qps,
                    const std::map<int, std::string>& rank_host, const PairingOptions& opts, Candidates* cands,
                    std::vector<Weak>* weak) {
  std::map<std::string, std::vector<const NcclQp*>> nccl_by_host;
  for (const auto& q : nccl_qps) nccl_by_host[q.host].push_back(&q);
  // (source address, qp) -> the flows a strong method gave that source QP.
  std::map<std::pair<IpAddress, uint32_t>, std::set<size_t>> strong;
  for (size_t i = 0; i < flows.size(); ++i) {
    for (const auto& c : (*cands)[i]) strong[{flows[i].key.src, c.qp}].insert(i);
  }
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    const uint32_t qb = f.key.dest_qp;
    // Explicit local/remote pairs on either side.
    std::set<uint32_t> explicit_qp;
    if (!f.src_host.empty()) {
      for (const auto* q : nccl_by_host[f.src_host]) {
        if (q->remote && *q->remote == qb) explicit_qp.insert(q->qpn);
      }
    }
    if (!f.dst_host.empty()) {
      for (const auto* q : nccl_by_host[f.dst_host]) {
        if (q->qpn == qb && q->remote) explicit_qp.insert(*q->remote);
      }
    }
    if (explicit_qp.size() == 1) {
      (*cands)[i].push_back({QpPairing::kNcclLog, *explicit_qp.begin(),
                             "NCCL qpn lines pair " + std::to_string(*explicit_qp.begin()) + " with " +
                                 std::to_string(qb)});
      continue;
    }
    if (f.src_host.empty() || f.requests() == 0) continue;
    auto hit = nccl_by_host.find(f.src_host);
    if (hit == nccl_by_host.end()) continue;
    std::set<uint32_t> taken;
    for (const auto* q : hit->second) {
      auto sit = strong.find({f.key.src, q->qpn});
      if (sit != strong.end() && (sit->second.size() > 1 || sit->second.count(i) == 0)) taken.insert(q->qpn);
    }
    std::string why;
    const NcclQp* pick = PickNcclQp(f, hit->second, rank_host, taken, opts, &why);
    if (pick != nullptr) weak->push_back({i, {QpPairing::kNcclLog, pick->qpn, why}});
  }
}

// 5. UDP source port hash over the QPs known on the source host (or address when the host is unknown):
// the destination QPs of flows into it, its rdma tool QPs and its NCCL qpns. One hit is a weak proposal.
void ProposeUdpHash(const std::vector<Flow>& flows, const model::Dataset& ds, const std::vector<NcclQp>& nccl_qps,
                    std::vector<Weak>* weak) {
  std::map<std::string, std::set<uint32_t>> known;
  auto host_key = [&](const IpAddress& ip, const std::string& host) {
    return host.empty() ? "ip:" + ip.ToString() : host;
  };
  for (const auto& f : flows) known[host_key(f.key.dst, f.dst_host)].insert(f.key.dest_qp);
  for (const auto& [host, ev] : ds.hosts) {
    for (const auto& q : ev.rdma_qps) known[host].insert(q.lqpn);
  }
  for (const auto& q : nccl_qps) known[q.host].insert(q.qpn);
  for (size_t i = 0; i < flows.size(); ++i) {
    const Flow& f = flows[i];
    if (f.udp_src_port_mixed || f.udp_src_port < 0xC000) continue;
    auto kit = known.find(host_key(f.key.src, f.src_host));
    if (kit == known.end()) continue;
    std::vector<uint32_t> hits;
    for (uint32_t q : kit->second) {
      if (RoceUdpSourcePort(q, f.key.dest_qp) == f.udp_src_port) hits.push_back(q);
    }
    if (hits.size() == 1) {
      weak->push_back({i, {QpPairing::kUdpSourcePort, hits[0],
                           StringPrintf("UDP port 0x%04x = hash(%u, %u)", f.udp_src_port, hits[0],
                                        f.key.dest_qp)}});
    }
  }
}

// Weak proposals become candidates unless the same source QP is proposed for two flows from one
// address by one method, or a strong method already gave that QP to another flow of the address.
void AcceptWeak(const std::vector<Flow>& flows, std::vector<Weak>& weak, Candidates* cands) {
  // (src address, method, qp) -> proposals; (src address, qp) -> flows already given that QP by
  // a strong method. A QP sends to one destination QP, so it is the source of one flow.
  std::map<std::tuple<IpAddress, int, uint32_t>, int> uses;
  for (const auto& w : weak) ++uses[{flows[w.flow].key.src, static_cast<int>(w.c.method), w.c.qp}];
  std::map<std::pair<IpAddress, uint32_t>, std::set<size_t>> strong;
  for (size_t i = 0; i < flows.size(); ++i) {
    for (const auto& c : (*cands)[i]) strong[{flows[i].key.src, c.qp}].insert(i);
  }
  for (auto& w : weak) {
    if (uses[{flows[w.flow].key.src, static_cast<int>(w.c.method), w.c.qp}] != 1) continue;
    auto sit = strong.find({flows[w.flow].key.src, w.c.qp});
    if (sit != strong.end() && (sit->second.size() > 1 || !sit->second.count(w.flow))) continue;
    (*cands)[w.flow].push_back(std::move(w.c));
  }
}

// Gives every flow its best candidate (by QpPairingRank, first proposed on ties) and records the
// others; returns the number of flows whose candidates disagree.
int64_t ResolvePairing(std::vector<Flow>& flows, Candidates& cands) {
  int64_t conflicts = 0;
  for (size_t i = 0; i < flows.size(); ++i) {
    auto& cs = cands[i];
    if (cs.empty()) continue;
    std::stable_sort(cs.begin(), cs.end(), [](const Candidate& a, const Candidate& b) {
      return QpPairingRank(a.method) > QpPairingRank(b.method);
    });
    Flow& f = flows[i];
    f.src_qp = cs.front().qp;
    f.pairing = cs.front().method;
    f.pairing_detail = cs.front().detail;
    for (const auto& c : cs) {
      f.candidates.emplace_back(c.method, c.qp);
      if (c.qp != f.src_qp) f.pairing_conflict = true;
    }
    if (f.pairing_conflict) {
      ++conflicts;
      for (const auto& c : cs) {
        if (c.qp != f.src_qp) {
          f.pairing_detail += "; conflicts with " + std::string(QpPairingName(c.method)) + " " + Hex(c.qp);
        }
      }
    }
  }
  return conflicts;
}

}  // namespace

int64_t PairFlows(std::vector<Flow>& flows, const model::Dataset& ds, const HostMap& hosts,
                  const PairingOptions& opts, const std::vector<FlowPsnEvidence>* psn) {
  Candidates cands(flows.size());
  ResetPairing(flows, hosts);
  const PairRanges by_pair = FlowsByIpPair(flows);
  // Strong methods: DETH, reverse flows (by PSN, by port), rdma res show qp.
  ProposeDeth(flows, &cands);
  std::vector<std::string> notes(flows.size());
  const bool with_psn = psn != nullptr && psn->size() == flows.size();
  if (with_psn) ProposeReversePsn(flows, *psn, by_pair, opts, &cands, &notes);
  ProposeReverseFlows(flows, by_pair, opts, &cands);
  ProposeRdmaTool(flows, ds, hosts, &cands);
  // Weak proposals (NCCL logs without an explicit pair, the UDP port hash) are dropped when the
  // same source QP is proposed for two flows from one address.
  std::vector<Weak> weak;
  const std::vector<NcclQp> nccl_qps = NcclQpsOfLogs(ds.nccl_logs);
  const std::map<int, std::string> rank_host = RankHostsOfLogs(ds.nccl_logs);
  ProposeNcclLog(flows, nccl_qps, rank_host, opts, &cands, &weak);
  if (opts.use_udp_sport_hash) ProposeUdpHash(flows, ds, nccl_qps, &weak);
  AcceptWeak(flows, weak, &cands);
  const int64_t conflicts = ResolvePairing(flows, cands);
  for (size_t i = 0; i < flows.size(); ++i) {
    if (notes[i].empty()) continue;
    flows[i].pairing_detail += flows[i].pairing_detail.empty() ? notes[i] : "; " + notes[i];
  }
  return conflicts;
}

// ---------------------------------------------------------------------------------------------
// AnalyzeFlows
// ---------------------------------------------------------------------------------------------

const Flow* FindFlow(const FlowReport& report, const FlowKey& key) {
  auto it = std::lower_bound(report.flows.begin(), report.flows.end(), key,
                             [](const Flow& f, const FlowKey& k) { return f.key < k; });
  if (it == report.flows.end() || !(it->key == key)) return nullptr;
  return &*it;
}

Status ReplayPackets(const model::Dataset& ds, const FlowReport& report, const FlowPacketSink& sink,
                     bool check_icrc, PacketLog* log) {
  if (!sink) return {};
  if (log == nullptr || !log->usable()) return ReplayPackets(ds, report, sink, check_icrc);
  bool ok = true;
  formats::RocePacket with_addresses;
  const bool read = log->ForEach([&](const formats::RocePacket& p, uint32_t flow) {
    if (flow >= report.flows.size()) {
      ok = false;
      return;
    }
    const Flow& f = report.flows[flow];
    with_addresses = p;
    with_addresses.src_ip = f.key.src;
    with_addresses.dst_ip = f.key.dst;
    sink(with_addresses, f.pairing == QpPairing::kNone ? 0u : f.src_qp, f);
  });
  if (!read || !ok) return MakeError("captures", 0, 0, "the packets kept from the first pass could not be read back");
  return {};
}

Status ReplayPackets(const model::Dataset& ds, const FlowReport& report, const FlowPacketSink& sink,
                     bool check_icrc) {
  if (!sink) return {};
  std::unordered_map<FlowKey, const Flow*, FlowKeyHash> index;
  index.reserve(report.flows.size());
  for (const auto& f : report.flows) index.emplace(f.key, &f);
  Diagnostics quiet(0);
  bool any_ok = ds.captures.empty();
  Error last;
  LastLookup<FlowKey, const Flow*> last_flow;  // the last packet's flow
  for (const auto& c : ds.captures) {
    auto r = model::StreamCapture(
        c, check_icrc,
        [&](const formats::RocePacket& p) {
          const auto found = last_flow.Find(KeyOf(p), [&](const FlowKey& key) -> std::optional<const Flow*> {
            auto it = index.find(key);
            if (it == index.end()) return std::nullopt;
            return it->second;
          });
          if (!found) return;  // a packet the first pass did not see (file changed)
          const Flow& f = **found;
          sink(p, f.pairing == QpPairing::kNone ? 0u : f.src_qp, f);
        },
        quiet);
    if (r.ok()) {
      any_ok = true;
    } else {
      last = r.error();
    }
  }
  if (!any_ok) return last;
  return {};
}

Result<FlowReport> AnalyzeFlows(const model::Dataset& ds, Diagnostics& diag, const FlowPacketSink& second_pass) {
  return AnalyzeFlows(ds, diag, FlowOptions{}, second_pass);
}

Result<FlowReport> AnalyzeFlows(const model::Dataset& ds, Diagnostics& diag, const FlowOptions& opts,
                                const FlowPacketSink& second_pass) {
  Result<FlowReport> report = AnalyzeFlows(ds, diag, opts, nullptr);
  if (report.ok() && second_pass) {
    Status s = ReplayPackets(ds, *report, second_pass, opts.check_icrc);
    if (!s.ok()) diag.Warn("", 0, "", "second pass over the captures failed: " + s.error().message);
  }
  return report;
}

Result<FlowReport> AnalyzeFlows(const model::Dataset& ds, Diagnostics& diag, const FlowOptions& opts,
                                PacketLog* log) {
  FlowReport report;
  FlowTable table;
  int ok = 0;
  Error last;
  const bool keep = log != nullptr && log->usable();
  for (const auto& c : ds.captures) {
    auto r = model::StreamCapture(
        c, opts.check_icrc,
        [&](const formats::RocePacket& p) {
          const size_t flow = table.Add(p);
          if (keep) log->Add(p, static_cast<uint32_t>(flow));
        },
        diag);
    if (!r.ok()) {
      diag.RejectAtByte(c.path, 0, "", "capture not read: " + r.error().message);
      last = r.error();
      continue;
    }
    ++ok;
    report.captures.push_back(std::move(*r));
  }
  if (!ds.captures.empty() && ok == 0) return last;
  report.packets = table.packets();
  report.flows = table.Flows();
  report.hosts = BuildHostMap(ds);
  const std::vector<FlowPsnEvidence> psn = table.PsnEvidence();
  report.pairing_conflicts = PairFlows(report.flows, ds, report.hosts, opts.pairing, &psn);
  for (const auto& f : report.flows) ++report.pairing_counts[std::string(QpPairingName(f.pairing))];
  if (keep) {
    // The log's flow numbers, the table's, become indices into the report's flows (sorted by key).
    std::vector<uint32_t> index(table.size());
    for (size_t i = 0; i < index.size(); ++i) {
      index[i] = static_cast<uint32_t>(FindFlow(report, table.KeyAt(i)) - report.flows.data());
    }
    log->Renumber(index);
  }
  return report;
}

}  // namespace toposcope::analysis
