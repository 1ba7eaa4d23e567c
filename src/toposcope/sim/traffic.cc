#include "toposcope/sim/traffic.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

namespace toposcope::sim {
namespace {

constexpr double kComputeMs = 240.0;
constexpr double kOptimizerMs = 12.0;
constexpr int64_t kSendRecvBytes = int64_t{32} << 20;
constexpr int64_t kBigBuckets[] = {int64_t{128} << 20, int64_t{256} << 20, int64_t{512} << 20};
constexpr int64_t kSmallBuckets[] = {int64_t{64} << 10, int64_t{256} << 10};
constexpr double kNicEfficiency = 0.9;
constexpr double kPcieP2pFactor = 0.92;  // PCIe copy efficiency of a GPU's own link
constexpr double kAllReduceBaseNs = 20e3;
constexpr double kRingHopNs = 4e3;
constexpr double kSendRecvBaseNs = 15e3;

// Activity levels (SM activity, power load) of the segment kinds.
constexpr double kSmCompute = 0.92, kLoadCompute = 0.85;
constexpr double kSmOptimizer = 0.55, kLoadOptimizer = 0.55;
constexpr double kSmNcclWait = 0.04, kLoadNcclWait = 0.18;
constexpr double kSmNcclXfer = 0.12, kLoadNcclXfer = 0.35;
constexpr double kInputH2dBps = 150e6;  // input pipeline while computing
constexpr double kInputD2hBps = 20e6;

constexpr double kHotC = 85.0;  // link trains down at or above
constexpr double kCoolC = 83.0;
constexpr double kCrcFlitPerS = 40.0;
constexpr double kReplayPerS = 4.0;

int64_t Ns(double v) { return static_cast<int64_t>(std::llround(v)); }

int64_t Poisson(Rng& rng, double lambda) {
  if (lambda <= 0) return 0;
  if (lambda > 30) return std::max<int64_t>(0, Ns(lambda + std::sqrt(lambda) * rng.Normal()));
  const double l = std::exp(-lambda);
  double p = 1.0;
  int64_t k = 0;
  do {
    ++k;
    p *= rng.Uniform();
  } while (p > l);
  return k - 1;
}

// Per-GPU and per-host bandwidths (bytes per second) used by the job model.
struct HostBw {
  double nic_total = 0;        // all NICs x 0.9
  double nic_single = 0;       // the fastest NIC x 0.9 (one P2P stream)
  std::vector<double> nvlink;  // per GPU: NVLink injection bandwidth
  std::vector<double> pcie;    // per GPU: own PCIe link
  std::map<std::pair<int, int>, LinkTruth> pairs;
  enum class Kind { kNvswitch, kBridged, kPcie } kind = Kind::kPcie;
};

HostBw HostBandwidths(const HostModel& h) {
  HostBw bw;
  const NodeType& t = *h.type;
  double fastest = 0;
  for (const auto& nic : t.nics) {
    const double b = nic.speed_gbps / 8.0 * 1e9 * kNicEfficiency;
    bw.nic_total += b;
    fastest = std::max(fastest, b);
  }
  bw.nic_single = fastest;
  bw.kind = !t.nvswitch_lanes.empty() ? HostBw::Kind::kNvswitch
            : !t.bridges.empty()      ? HostBw::Kind::kBridged
                                      : HostBw::Kind::kPcie;
  for (int g = 0; g < t.GpuCount(); ++g) {
    const GpuState& st = h.gpus[static_cast<size_t>(g)];
    double lanes = 0;
    for (int l : st.nvswitch_lanes) lanes += l;
    for (size_t b = 0; b < t.bridges.size(); ++b) {
      if (t.bridges[b].gpu_a == g || t.bridges[b].gpu_b == g) lanes += h.bridge_lanes[b];
    }
    bw.nvlink.push_back(lanes * t.nvlink_lane_gbps * 1e9);
    bw.pcie.push_back(PcieLinkGbps(st.pcie_gen, st.pcie_width) * 1e9 * kPcieP2pFactor);
  }
  for (const LinkTruth& l : HostLinks(h)) bw.pairs[{l.a, l.b}] = l;
  return bw;
}

// A GPU type's physics: every type has a 30 C inlet and a 15 s thermal time constant.
GpuPhysics Physics(double idle_w, double max_w, double r_c_per_w, int num_sms, int memory_gib, int cc_major,
                   int cc_minor) {
  return {.idle_w = idle_w,
          .max_w = max_w,
          .inlet_c = 30,
          .r_c_per_w = r_c_per_w,
          .tau_s = 15,
          .num_sms = num_sms,
          .memory_bytes = int64_t{memory_gib} << 30,
          .cc_major = cc_major,
          .cc_minor = cc_minor};
}

// AllReduce bytes of one rank by resource.
struct ArBytes {
  double nvl_tx = 0, nvl_rx = 0, pcie_tx = 0, pcie_rx = 0;
};

}  // namespace

std::vector<int> ChannelEntryGpus(const NodeType& type, int channels) {
  std::vector<int> out;
  const int nics = static_cast<int>(type.nics.size());
  for (int c = 0; c < channels; ++c) out.push_back(nics == 0 ? 0 : GpuClosestToNic(type, ChannelNic(c, channels, nics)));
  return out;
}

std::vector<NvlinkSend> NvlinkSends(const JobPlan& plan, const JobOp& op, int rank) {
  std::vector<NvlinkSend> out;
  const int n = plan.world;
  if (n <= 1 || rank < 0 || rank >= n) return out;
  const auto ur = static_cast<size_t>(rank);
  if (op.kind == OpKind::kSendRecv) {
    if (ur < plan.sendrecv_nvlink.size() && plan.sendrecv_nvlink[ur]) {
      out.push_back({(rank + 1) % n, static_cast<double>(op.bytes)});
    }
    return out;
  }
  if (op.kind != OpKind::kAllReduce) return out;
  const int h = plan.rank_host[ur];
  const int g = plan.rank_gpu[ur];
  const auto uh = static_cast<size_t>(h);
  const int n_hosts = static_cast<int>(plan.channel_entry_gpu.size());
  const int gph = plan.gpus_per_host;
  const double sent = 2.0 * (n - 1) / n * static_cast<double>(op.bytes);
  if (uh < plan.nvswitch_host.size() && plan.nvswitch_host[uh]) {
    const double share = sent / std::max(1, plan.channels);
    const int succ = plan.Rank(h, (g + gph - 1) % gph);
    double bytes = 0;
    for (const int e : plan.channel_entry_gpu[uh]) {
      if (n_hosts > 1 && g == (e + 1) % gph) continue;  // the exit GPU: its share leaves by the NIC
      bytes += share;
    }
    if (bytes > 0 && succ != rank) out.push_back({succ, bytes});
    return out;
  }
  if (ur < plan.bridge_peers.size() && !plan.bridge_peers[ur].empty()) {
    const double intra = n_hosts > 1 ? sent - sent / gph : sent;
    const double each = intra / 2 / static_cast<double>(plan.bridge_peers[ur].size());
    for (const int peer : plan.bridge_peers[ur]) out.push_back({peer, each});
  }
  return out;
}

std::vector<std::map<std::pair<int, int>, double>> NvlinkPairBytes(const JobPlan& plan, int64_t from_ns,
                                                                   int64_t to_ns) {
  std::vector<std::map<std::pair<int, int>, double>> out(plan.channel_entry_gpu.size());
  for (const JobOp& op : plan.ops) {
    if (op.kind != OpKind::kSendRecv && op.kind != OpKind::kAllReduce) continue;
    for (int r = 0; r < plan.world; ++r) {
      const RankSpan& sp = op.ranks[static_cast<size_t>(r)];
      const int64_t a = std::max(sp.start_ns, sp.xfer_ns);
      const int64_t b = sp.end_ns;
      if (b <= a) continue;
      const int64_t lo = std::max(a, from_ns);
      const int64_t hi = std::min(b, to_ns);
      if (hi <= lo) continue;
      const double frac = static_cast<double>(hi - lo) / std::max<double>(1.0, static_cast<double>(b - a));
      const auto h = static_cast<size_t>(plan.rank_host[static_cast<size_t>(r)]);
      if (h >= out.size()) continue;
      for (const NvlinkSend& s : NvlinkSends(plan, op, r)) {
        out[h][{plan.rank_gpu[static_cast<size_t>(r)], plan.rank_gpu[static_cast<size_t>(s.dst_rank)]}] +=
            s.bytes * frac;
      }
    }
  }
  return out;
}

GpuPhysics PhysicsOf(const NodeType& type) {
  // Physics(idle_w, max_w, r_c_per_w, SMs, memory GiB, compute capability major, minor).
  if (type.name == "h100-nvswitch") return Physics(75, 700, 0.069, 132, 80, 9, 0);
  if (type.name == "a100-nvswitch") return Physics(55, 400, 0.109, 108, 80, 8, 0);
  if (type.name == "pcie-bridge") return Physics(45, 300, 0.153, 108, 80, 8, 0);
  return Physics(35, 350, 0.139, 142, 48, 8, 9);  // pcie-only (L40S) and anything else
}

std::vector<NvlinkPort> NvlinkPorts(const HostModel& host, int gpu) {
  std::vector<NvlinkPort> out;
  const NodeType& t = *host.type;
  const GpuState& st = host.gpus[static_cast<size_t>(gpu)];
  int link = 0;
  for (size_t s = 0; s < t.nvswitch_lanes.size(); ++s) {
    for (int j = 0; j < t.nvswitch_lanes[s]; ++j) out.push_back({link++, j < st.nvswitch_lanes[s]});
  }
  for (size_t b = 0; b < t.bridges.size(); ++b) {
    if (t.bridges[b].gpu_a != gpu && t.bridges[b].gpu_b != gpu) continue;
    for (int j = 0; j < t.bridges[b].lanes; ++j) out.push_back({link++, j < host.bridge_lanes[b]});
  }
  return out;
}

namespace {

// The job's ranks (host by host), the hosts' bandwidths, ring entry GPUs and NVLink bridge peers.
std::vector<HostBw> PlanJobRanks(const Cluster& cluster, JobPlan& plan) {
  std::vector<HostBw> bws;
  for (const HostModel& h : cluster.hosts) {
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      plan.rank_host.push_back(h.index);
      plan.rank_gpu.push_back(g);
      ++plan.world;
    }
    bws.push_back(HostBandwidths(h));
  }
  plan.gpus_per_host = cluster.hosts.empty() ? 8 : cluster.hosts[0].type->GpuCount();
  plan.channels = std::max(1, cluster.options.nccl_channels);
  for (const HostModel& h : cluster.hosts) {
    plan.channel_entry_gpu.push_back(ChannelEntryGpus(*h.type, plan.channels));
    plan.nvswitch_host.push_back(bws[static_cast<size_t>(h.index)].kind == HostBw::Kind::kNvswitch);
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      std::vector<int> peers;
      for (size_t b = 0; b < h.type->bridges.size(); ++b) {
        const NvlinkBridgeSpec& br = h.type->bridges[b];
        if (h.bridge_lanes[b] <= 0 || (br.gpu_a != g && br.gpu_b != g)) continue;
        peers.push_back(plan.Rank(h.index, br.gpu_a == g ? br.gpu_b : br.gpu_a));
      }
      plan.bridge_peers.push_back(std::move(peers));
    }
  }
  return bws;
}

// The AllReduce model: bytes per rank by resource, and the transfer time of a bucket of S bytes.
struct AllReduceModel {
  const Cluster& cluster;
  const JobPlan& plan;
  const std::vector<HostBw>& bws;
  int n = 0;        // ranks
  int n_hosts = 0;

  [[nodiscard]] ArBytes Bytes(int r, double s) const {
    ArBytes out;
    const int h = plan.rank_host[static_cast<size_t>(r)];
    const int g = plan.rank_gpu[static_cast<size_t>(r)];
    const HostBw& bw = bws[static_cast<size_t>(h)];
    const int g_count = cluster.hosts[static_cast<size_t>(h)].type->GpuCount();
    const auto gph = static_cast<double>(g_count);
    const double sent = n > 1 ? 2.0 * (n - 1) / n * s : 0.0;
    const double net = n_hosts > 1 ? sent / gph : 0.0;
    const double intra = sent - net;
    switch (bw.kind) {
      case HostBw::Kind::kNvswitch: {
        // Per channel: the exit GPU's share leaves by the NIC, the entry GPU's arrives by it.
        const double share = sent / plan.channels;
        for (const int e : plan.channel_entry_gpu[static_cast<size_t>(h)]) {
          const bool exit = n_hosts > 1 && g == (e + 1) % g_count;
          const bool entry = n_hosts > 1 && g == e;
          (exit ? out.pcie_tx : out.nvl_tx) += share;
          (entry ? out.pcie_rx : out.nvl_rx) += share;
        }
        break;
      }
      case HostBw::Kind::kBridged:
        out.nvl_tx = out.nvl_rx = bw.nvlink[static_cast<size_t>(g)] > 0 ? intra / 2 : 0.0;
        out.pcie_tx = out.pcie_rx = intra - out.nvl_tx + net;
        break;
      case HostBw::Kind::kPcie:
        out.pcie_tx = out.pcie_rx = intra + net;
        break;
    }
    return out;
  }

  [[nodiscard]] double XferNs(double s) const {
    double worst = 0;
    for (int r = 0; r < n; ++r) {
      const ArBytes b = Bytes(r, s);
      const HostBw& bw = bws[static_cast<size_t>(plan.rank_host[static_cast<size_t>(r)])];
      const auto g = static_cast<size_t>(plan.rank_gpu[static_cast<size_t>(r)]);
      const double nvl = std::max(b.nvl_tx, b.nvl_rx);
      const double pcie = std::max(b.pcie_tx, b.pcie_rx);
      if (nvl > 0) worst = std::max(worst, nvl / std::max(1.0, bw.nvlink[g]));
      if (pcie > 0) worst = std::max(worst, pcie / std::max(1.0, bw.pcie[g]));
    }
    if (n_hosts > 1) {
      const double sent = 2.0 * (n - 1) / n * s;
      for (const HostBw& bw : bws) worst = std::max(worst, sent / std::max(1.0, bw.nic_total));
    }
    return worst * 1e9;
  }
};

// SendRecv from a rank to its successor: duration and whether it crosses NVLink.
struct P2p {
  double dur_ns = 0;
  bool nvlink = false;
};

std::vector<P2p> SendRecvTimes(const JobPlan& plan, const std::vector<HostBw>& bws) {
  const int n = plan.world;
  std::vector<P2p> p2p(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    const int s = (r + 1) % n;
    const int hr = plan.rank_host[static_cast<size_t>(r)];
    const int hs = plan.rank_host[static_cast<size_t>(s)];
    double bw = 0;
    bool nvlink = false;
    if (hr == hs) {
      const int a = std::min(plan.rank_gpu[static_cast<size_t>(r)], plan.rank_gpu[static_cast<size_t>(s)]);
      const int b = std::max(plan.rank_gpu[static_cast<size_t>(r)], plan.rank_gpu[static_cast<size_t>(s)]);
      const auto it = bws[static_cast<size_t>(hr)].pairs.find({a, b});
      if (it != bws[static_cast<size_t>(hr)].pairs.end()) {
        bw = it->second.bandwidth_gbps * 1e9;
        nvlink = IsNvlinkFamily(it->second.type) && it->second.lanes > 0;
      }
    } else {
      bw = std::min(bws[static_cast<size_t>(hr)].nic_single, bws[static_cast<size_t>(hs)].nic_single);
    }
    p2p[static_cast<size_t>(r)] = {
        kSendRecvBaseNs + static_cast<double>(kSendRecvBytes) / std::max(1.0, bw) * 1e9, nvlink};
  }
  return p2p;
}

// An op of iteration `it` with a span per rank.
JobOp NewOp(OpKind kind, int it, int n) {
  JobOp op;
  op.kind = kind;
  op.iteration = it;
  op.ranks.resize(static_cast<size_t>(n));
  return op;
}

// 1. compute, first its starts (after each rank's previous iteration); the earliest is returned in
// `it_start`.
JobOp ComputeStarts(int it, const std::vector<int64_t>& prev_end, Rng& rng, int64_t* it_start) {
  const int n = static_cast<int>(prev_end.size());
  JobOp comp = NewOp(OpKind::kCompute, it, n);
  *it_start = INT64_MAX;
  for (int r = 0; r < n; ++r) {
    RankSpan& sp = comp.ranks[static_cast<size_t>(r)];
    sp.start_ns = prev_end[static_cast<size_t>(r)] + Ns(rng.Uniform(0.5e6, 2e6));
    sp.xfer_ns = sp.start_ns;
    *it_start = std::min(*it_start, sp.start_ns);
  }
  return comp;
}

// Then its durations (the straggler's stretched once `slow`) and the input pipeline's bytes.
void ComputeDurations(JobOp& comp, bool slow, const JobOptions& o, Rng& rng) {
  for (int r = 0; r < static_cast<int>(comp.ranks.size()); ++r) {
    RankSpan& sp = comp.ranks[static_cast<size_t>(r)];
    double dur = kComputeMs * 1e6 * (1.0 + 0.01 * rng.Normal());
    if (slow && r == o.straggler_rank) dur *= o.straggler_factor;
    sp.end_ns = sp.start_ns + Ns(dur);
    sp.pcie_rx = kInputH2dBps * dur / 1e9;
    sp.pcie_tx = kInputD2hBps * dur / 1e9;
  }
}

// 2. pipeline SendRecv to the successor: a rank is done when both its send and its receive are.
JobOp SendRecvOp(int it, int64_t seq, const JobOp& comp, const std::vector<P2p>& p2p, Rng& rng) {
  const int n = static_cast<int>(comp.ranks.size());
  JobOp sr = NewOp(OpKind::kSendRecv, it, n);
  sr.bytes = kSendRecvBytes;
  sr.seq = seq;
  sr.kernel = "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)";
  sr.proto = "SIMPLE";
  for (int r = 0; r < n; ++r) {
    sr.ranks[static_cast<size_t>(r)].start_ns =
        comp.ranks[static_cast<size_t>(r)].end_ns + Ns(rng.Uniform(10e3, 30e3));
  }
  for (int r = 0; r < n; ++r) {
    RankSpan& sp = sr.ranks[static_cast<size_t>(r)];
    if (n == 1) {
      sp.xfer_ns = sp.start_ns;
      sp.end_ns = sp.start_ns + Ns(kSendRecvBaseNs);
      continue;
    }
    const int s = (r + 1) % n;
    const int p = (r + n - 1) % n;
    const int64_t send_start = std::max(sp.start_ns, sr.ranks[static_cast<size_t>(s)].start_ns);
    const int64_t send_end = send_start + Ns(p2p[static_cast<size_t>(r)].dur_ns);
    const int64_t recv_start = std::max(sp.start_ns, sr.ranks[static_cast<size_t>(p)].start_ns);
    const int64_t recv_end = recv_start + Ns(p2p[static_cast<size_t>(p)].dur_ns);
    sp.xfer_ns = std::min(send_start, recv_start);
    sp.end_ns = std::max(send_end, recv_end);
    const auto bytes = static_cast<double>(kSendRecvBytes);
    (p2p[static_cast<size_t>(r)].nvlink ? sp.nvl_tx : sp.pcie_tx) += bytes;
    (p2p[static_cast<size_t>(p)].nvlink ? sp.nvl_rx : sp.pcie_rx) += bytes;
  }
  return sr;
}

// 3. an AllReduce after `prev` (k = 0: a big gradient bucket, SIMPLE; k = 1: a small one, LL): it
// moves data once the last rank is ready and ends for all at once (plus jitter).
JobOp AllReduceOp(int it, int k, int64_t seq, const JobOp& prev, const AllReduceModel& model,
                  double ring_latency_ns, Rng& rng) {
  const int n = model.n;
  JobOp ar = NewOp(OpKind::kAllReduce, it, n);
  ar.bytes = k == 0 ? kBigBuckets[rng.Below(3)] : kSmallBuckets[rng.Below(2)];
  ar.seq = seq;
  ar.proto = k == 0 ? "SIMPLE" : "LL";
  ar.kernel = "ncclDevKernel_AllReduce_Sum_f32_RING_" + ar.proto + "(ncclDevKernelArgsStorage<4096ul>)";
  int64_t last_ready = INT64_MIN;
  for (int r = 0; r < n; ++r) {
    RankSpan& sp = ar.ranks[static_cast<size_t>(r)];
    sp.start_ns =
        prev.ranks[static_cast<size_t>(r)].end_ns + Ns(k == 0 ? rng.Uniform(20e3, 80e3) : rng.Uniform(10e3, 30e3));
    last_ready = std::max(last_ready, sp.start_ns);
  }
  const auto s = static_cast<double>(ar.bytes);
  const int64_t done = last_ready + Ns(ring_latency_ns + model.XferNs(s));
  for (int r = 0; r < n; ++r) {
    RankSpan& sp = ar.ranks[static_cast<size_t>(r)];
    sp.xfer_ns = last_ready;
    sp.end_ns = done + Ns(rng.Uniform(0.0, 2e3));
    const ArBytes b = model.Bytes(r, s);
    sp.nvl_tx = b.nvl_tx;
    sp.nvl_rx = b.nvl_rx;
    sp.pcie_tx = b.pcie_tx;
    sp.pcie_rx = b.pcie_rx;
  }
  return ar;
}

// 4. optimizer after the small AllReduce; its end is where each rank's next iteration starts from.
JobOp OptimizerOp(int it, const JobOp& small, std::vector<int64_t>& prev_end, Rng& rng) {
  const int n = static_cast<int>(small.ranks.size());
  JobOp opt = NewOp(OpKind::kOptimizer, it, n);
  for (int r = 0; r < n; ++r) {
    RankSpan& sp = opt.ranks[static_cast<size_t>(r)];
    sp.start_ns = small.ranks[static_cast<size_t>(r)].end_ns + Ns(rng.Uniform(10e3, 30e3));
    sp.xfer_ns = sp.start_ns;
    sp.end_ns = sp.start_ns + Ns(kOptimizerMs * 1e6 * (1.0 + 0.01 * rng.Normal()));
    prev_end[static_cast<size_t>(r)] = sp.end_ns;
  }
  return opt;
}

}  // namespace

int64_t JobPlanBytesBound(int64_t world, double window_s) {
  if (world <= 0 || window_s <= 0) return 0;
  const double ring_ns = kAllReduceBaseNs + 2.0 * static_cast<double>(world - 1) * kRingHopNs;
  const double min_iteration_ns = 0.9 * (kComputeMs + kOptimizerMs) * 1e6 + 2.0 * ring_ns;
  const double iterations = std::ceil(window_s * 1e9 / min_iteration_ns) + 2.0;
  return static_cast<int64_t>(iterations * 5.0 * static_cast<double>(world) * static_cast<double>(sizeof(RankSpan)));
}

JobPlan PlanJob(const Cluster& cluster, const JobOptions& o, Rng& rng) {
  JobPlan plan;
  const std::vector<HostBw> bws = PlanJobRanks(cluster, plan);
  const int n = plan.world;
  if (n == 0) return plan;
  const AllReduceModel model{cluster, plan, bws, n, static_cast<int>(cluster.hosts.size())};
  const std::vector<P2p> p2p = SendRecvTimes(plan, bws);
  for (const P2p& p : p2p) plan.sendrecv_nvlink.push_back(p.nvlink);

  const double ring_latency_ns = kAllReduceBaseNs + 2.0 * (n - 1) * kRingHopNs;
  std::vector<int64_t> prev_end(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) prev_end[static_cast<size_t>(r)] = o.start_ns + Ns(rng.Uniform(0.0, 1e6));
  int64_t seq = 0;
  for (int it = 0;; ++it) {
    int64_t it_start = 0;
    JobOp comp = ComputeStarts(it, prev_end, rng, &it_start);
    if (it_start > o.end_ns) break;
    if (o.straggler_rank >= 0 && plan.straggler_from_iteration < 0 && it_start >= o.straggler_from_ns) {
      plan.straggler_from_iteration = it;
    }
    ComputeDurations(comp, plan.straggler_from_iteration >= 0, o, rng);
    plan.iteration_start_ns.push_back(it_start);
    JobOp sr = SendRecvOp(it, seq++, comp, p2p, rng);
    JobOp big = AllReduceOp(it, 0, seq++, sr, model, ring_latency_ns, rng);
    JobOp small = AllReduceOp(it, 1, seq++, big, model, ring_latency_ns, rng);
    JobOp opt = OptimizerOp(it, small, prev_end, rng);
    plan.ops.push_back(std::move(comp));
    plan.ops.push_back(std::move(sr));
    plan.ops.push_back(std::move(big));
    plan.ops.push_back(std::move(small));
    plan.ops.push_back(std::move(opt));
  }
  return plan;
}

namespace {

// A stretch of constant activity of one GPU.
struct Segment {
  int64_t a = 0, b = 0;
  double busy = 0, sm = 0, load = 0;
  double nvl_tx = 0, nvl_rx = 0, pcie_tx = 0, pcie_rx = 0;  // B/s
};

void AddSegment(const Segment& s, const DcgmGrid& grid, std::vector<DcgmBin>& bins,
                std::vector<double>& load) {
  if (s.b <= s.a) return;
  const int64_t lo = s.a - grid.start_ns;
  const int64_t hi = s.b - grid.start_ns;
  if (hi <= 0) return;
  const int64_t span = grid.step_ns * grid.bins;
  if (lo >= span) return;
  const int64_t k0 = std::max<int64_t>(0, lo / grid.step_ns);
  const int64_t k1 = std::min<int64_t>(grid.bins - 1, (hi - 1) / grid.step_ns);
  for (int64_t k = k0; k <= k1; ++k) {
    const int64_t bin_a = k * grid.step_ns;
    const int64_t bin_b = bin_a + grid.step_ns;
    const double w =
        static_cast<double>(std::min(hi, bin_b) - std::max(lo, bin_a)) / static_cast<double>(grid.step_ns);
    if (w <= 0) continue;
    DcgmBin& bin = bins[static_cast<size_t>(k)];
    bin.busy += w * s.busy;
    bin.sm += w * s.sm;
    bin.nvl_tx += w * s.nvl_tx;
    bin.nvl_rx += w * s.nvl_rx;
    bin.pcie_tx += w * s.pcie_tx;
    bin.pcie_rx += w * s.pcie_rx;
    load[static_cast<size_t>(k)] += w * s.load;
  }
}

// Adds one op's activity of one rank to its bins.
void AddOpSegments(const JobOp& op, const RankSpan& sp, const DcgmGrid& grid, std::vector<DcgmBin>& bins,
                   std::vector<double>& load) {
  Segment s;
  s.busy = 1;
  switch (op.kind) {
    case OpKind::kCompute:
    case OpKind::kOptimizer: {
      const bool c = op.kind == OpKind::kCompute;
      s.a = sp.start_ns;
      s.b = sp.end_ns;
      s.sm = c ? kSmCompute : kSmOptimizer;
      s.load = c ? kLoadCompute : kLoadOptimizer;
      if (c) {
        s.pcie_rx = kInputH2dBps;
        s.pcie_tx = kInputD2hBps;
      }
      AddSegment(s, grid, bins, load);
      break;
    }
    case OpKind::kSendRecv:
    case OpKind::kAllReduce: {
      Segment wait = s;
      wait.a = sp.start_ns;
      wait.b = sp.xfer_ns;
      wait.sm = kSmNcclWait;
      wait.load = kLoadNcclWait;
      AddSegment(wait, grid, bins, load);
      s.a = std::max(sp.start_ns, sp.xfer_ns);
      s.b = sp.end_ns;
      s.sm = kSmNcclXfer;
      s.load = kLoadNcclXfer;
      const double d = std::max<double>(1.0, static_cast<double>(s.b - s.a)) / 1e9;
      s.nvl_tx = sp.nvl_tx / d;
      s.nvl_rx = sp.nvl_rx / d;
      s.pcie_tx = sp.pcie_tx / d;
      s.pcie_rx = sp.pcie_rx / d;
      AddSegment(s, grid, bins, load);
      break;
    }
  }
}

}  // namespace

std::vector<DcgmBin> ComputeRankDcgmBins(const Cluster& cluster, const JobPlan& plan, const DcgmGrid& grid,
                                         ThermalFault& thermal, int r, DcgmCounterStart start, Rng& rng) {
  const double step_s = static_cast<double>(grid.step_ns) / 1e9;
  std::vector<DcgmBin> bins(static_cast<size_t>(grid.bins), DcgmBin{});
  std::vector<double> load(static_cast<size_t>(grid.bins), 0.0);
  for (const JobOp& op : plan.ops) AddOpSegments(op, op.ranks[static_cast<size_t>(r)], grid, bins, load);
  // Power, temperature, link state and counters, bin by bin.
  const int host = plan.rank_host[static_cast<size_t>(r)];
  const int gpu = plan.rank_gpu[static_cast<size_t>(r)];
  const GpuPhysics ph = PhysicsOf(*cluster.hosts[static_cast<size_t>(host)].type);
  const bool faulty = host == thermal.host && gpu == thermal.gpu;
  const double warm_load = 0.75;
  double temp = ph.inlet_c + ph.r_c_per_w * (ph.idle_w + (ph.max_w - ph.idle_w) * warm_load);
  bool down = false;
  int64_t crc = start.crc_flit;
  int64_t replay = start.replay;
  const double decay = std::exp(-step_s / ph.tau_s);
  std::vector<double> power(static_cast<size_t>(grid.bins));
  for (int k = 0; k < grid.bins; ++k) {
    power[static_cast<size_t>(k)] =
        ph.idle_w + (ph.max_w - ph.idle_w) * std::min(1.0, load[static_cast<size_t>(k)]);
  }
  auto cooling_degraded = [&](int k) {
    const int64_t t_end = grid.start_ns + (k + 1) * grid.step_ns;
    return t_end > thermal.cool_start_ns && t_end <= thermal.cool_end_ns;
  };
  if (faulty) {
    double sum = 0;
    int n = 0;
    for (int k = 0; k < grid.bins; ++k) {
      if (!cooling_degraded(k)) continue;
      sum += power[static_cast<size_t>(k)];
      ++n;
    }
    if (n > 0 && sum > 0) {
      const double needed = (kThermalTargetC - ph.inlet_c) / (ph.r_c_per_w * sum / n);
      thermal.r_factor = std::clamp(needed, thermal.r_factor, 4.0);
    }
  }
  for (int k = 0; k < grid.bins; ++k) {
    DcgmBin& bin = bins[static_cast<size_t>(k)];
    bin.power_w = power[static_cast<size_t>(k)];
    double rth = ph.r_c_per_w;
    if (faulty && cooling_degraded(k)) rth *= thermal.r_factor;
    const double t_inf = ph.inlet_c + rth * bin.power_w;
    temp = t_inf + (temp - t_inf) * decay;
    bin.temp_c = temp;
    if (faulty) {
      if (!down && temp >= kHotC) down = true;
      if (down && temp < kCoolC) down = false;
      if (down) {
        crc += Poisson(rng, kCrcFlitPerS * step_s);
        replay += Poisson(rng, kReplayPerS * step_s);
      }
    }
    bin.link_down = down;
    bin.crc_flit_total = crc;
    bin.replay_total = replay;
  }
  return bins;
}

DcgmCounterStart DrawDcgmCounterStart(Rng& rng) {
  DcgmCounterStart s;
  s.crc_flit = static_cast<int64_t>(rng.Below(20));
  s.replay = static_cast<int64_t>(rng.Below(3));
  return s;
}

std::vector<std::vector<DcgmBin>> ComputeDcgmBins(const Cluster& cluster, const JobPlan& plan,
                                                  const DcgmGrid& grid, ThermalFault& thermal, Rng& rng) {
  std::vector<std::vector<DcgmBin>> out(static_cast<size_t>(plan.world));
  for (int r = 0; r < plan.world; ++r) {
    const DcgmCounterStart start = DrawDcgmCounterStart(rng);
    out[static_cast<size_t>(r)] = ComputeRankDcgmBins(cluster, plan, grid, thermal, r, start, rng);
  }
  return out;
}

std::pair<int64_t, int64_t> LinkDownWindow(const std::vector<DcgmBin>& bins, const DcgmGrid& grid) {
  int64_t first = -1, last = -1;
  for (int k = 0; k < static_cast<int>(bins.size()); ++k) {
    if (!bins[static_cast<size_t>(k)].link_down) continue;
    if (first < 0) first = k;
    last = k;
  }
  if (first < 0) return {0, 0};
  return {grid.start_ns + first * grid.step_ns, grid.start_ns + (last + 1) * grid.step_ns};
}

}  // namespace toposcope::sim
