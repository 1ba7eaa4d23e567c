#include "toposcope/sim/ring_events.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "toposcope/base/file_io.h"
#include "toposcope/base/ip_address.h"
#include "toposcope/base/rng.h"
#include "toposcope/formats/fabric/ibnetdiscover.h"
#include "toposcope/formats/rdma/inventory_csv.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/formats/rdma/roce_packet.h"
#include "toposcope/sim/rdma_traffic.h"

namespace toposcope::sim {
namespace {

constexpr uint64_t kStreamLabel = 0xEAD95;
constexpr int64_t kBaseNs = 1'760'000'000'000'000'000;  // 2025-10-09, a fixed wall time
constexpr uint32_t kSnaplen = 128;
constexpr uint32_t kMtu = 4096;

bool InterSwitch(const FabricPlan& p, int link) {
  const auto sw = static_cast<int>(p.switches.size());
  return p.links[static_cast<size_t>(link)].a < sw && p.links[static_cast<size_t>(link)].b < sw;
}

bool CableDown(const RingEventScene& s, double t_s) {
  return s.options.event == RingEventKind::kFlapping && RingEventActive(s, t_s);
}

bool Crosses(const FabricRoute& r, int link) { return std::find(r.links.begin(), r.links.end(), link) != r.links.end(); }

// The route of a flow at t: RouteFlow, re-hashed (source port salted) around a cable that is down.
FabricRoute Route(const RingEventScene& s, int a, int b, uint16_t sport, double t_s) {
  const int64_t t_ns = static_cast<int64_t>(t_s * 1e9);
  FabricRoute r = RouteFlow(s.plan, a, b, sport, t_ns, false);
  if (!CableDown(s, t_s) || !Crosses(r, s.cable)) return r;
  for (uint32_t salt = 1; salt <= 256; ++salt) {
    const auto sp = static_cast<uint16_t>(0xC000 | ((sport + salt * 0x9E37u) & 0x3FFF));
    FabricRoute alt = RouteFlow(s.plan, a, b, sp, t_ns, false);
    if (!Crosses(alt, s.cable)) return alt;
  }
  return r;  // the cable is a bridge for this pair: its traffic waits (still counted on it)
}

uint32_t QpnOf(int hop, int q, bool responder) {
  return 0x100u + static_cast<uint32_t>(hop) * 64u + static_cast<uint32_t>(q) + (responder ? 0x8000u : 0u);
}

uint16_t RingSport(int hop, int q) { return RoceUdpSourcePort(QpnOf(hop, q, false), QpnOf(hop, q, true)); }

std::string PointOf(const Cluster& c, const FabricPlan& p, int link) {
  const FabricLink& l = p.links[static_cast<size_t>(link)];
  const std::string na = FabricNodeName(c, p, l.a), nb = FabricNodeName(c, p, l.b);
  return na <= nb ? na + "-p" + std::to_string(l.a_port) : nb + "-p" + std::to_string(l.b_port);
}

// Tenant flows crossing the cable: host pairs (a, b) and source ports, drawn from the seed.
std::vector<RingEventScene::TenantFlow> PickTenant(const RingEventScene& s, Rng& rng) {
  std::vector<RingEventScene::TenantFlow> out;
  const int n = static_cast<int>(s.cluster.hosts.size());
  for (int tries = 0; tries < 20000 && static_cast<int>(out.size()) < s.options.tenant_flows; ++tries) {
    const int a = static_cast<int>(rng.NextU64() % static_cast<uint64_t>(n));
    const int b = static_cast<int>(rng.NextU64() % static_cast<uint64_t>(n));
    if (a == b) continue;
    const auto sport = static_cast<uint16_t>(0xC000 | (rng.NextU64() & 0x3FFF));
    const double mid = 0.5 * (s.options.event_start_s + s.options.event_end_s);
    if (Crosses(RouteFlow(s.plan, a, b, sport, static_cast<int64_t>(mid * 1e9), false), s.cable)) out.push_back({a, b, sport});
  }
  return out;
}

// Per window: the captured cables each flow crosses (ring QPs, then tenant flows).
struct WindowFlows {
  struct F {
    int a = 0, b = 0;
    uint16_t sport = 0;
    uint32_t qpn_a = 0, qpn_b = 0;
    bool tenant = false;
    std::vector<int> cables;
    std::vector<bool> forward;  // per cable: crossed from its end a to b (the data's direction)
    std::vector<int64_t> at_ns; // per cable: when the data crosses it after leaving its host (latencies on the way)
  };
  std::vector<F> flows;
};

// The inter-switch cables of a route in order, with the direction each is crossed in.
void SetCables(const FabricPlan& p, const FabricRoute& r, WindowFlows::F* f) {
  double lat_us = 0;
  for (size_t k = 0; k < r.links.size(); ++k) {
    lat_us += p.links[static_cast<size_t>(r.links[k])].latency_us;
    if (!InterSwitch(p, r.links[k])) continue;
    f->cables.push_back(r.links[k]);
    f->forward.push_back(r.nodes[k] == p.links[static_cast<size_t>(r.links[k])].a);
    f->at_ns.push_back(static_cast<int64_t>(std::llround(lat_us * 1e3)));
  }
}

WindowFlows FlowsAt(const RingEventScene& s, const std::vector<int>& order, int qps, double t_s, bool with_tenant) {
  WindowFlows w;
  const size_t n = order.size();
  for (size_t i = 0; i < n; ++i) {
    const int a = order[i], b = order[(i + 1) % n];
    for (int q = 0; q < qps; ++q) {
      WindowFlows::F f;
      f.a = a, f.b = b, f.sport = RingSport(static_cast<int>(i), q);
      f.qpn_a = QpnOf(static_cast<int>(i), q, false), f.qpn_b = QpnOf(static_cast<int>(i), q, true);
      SetCables(s.plan, Route(s, a, b, f.sport, t_s), &f);
      w.flows.push_back(std::move(f));
    }
  }
  if (with_tenant && s.options.event == RingEventKind::kCongestion && RingEventActive(s, t_s)) {
    for (size_t k = 0; k < s.tenant.size(); ++k) {
      WindowFlows::F f;
      f.a = s.tenant[k].a, f.b = s.tenant[k].b, f.sport = s.tenant[k].sport, f.tenant = true;
      f.qpn_a = 0x40000u + static_cast<uint32_t>(k), f.qpn_b = 0x50000u + static_cast<uint32_t>(k);
      SetCables(s.plan, RouteFlow(s.plan, f.a, f.b, f.sport, static_cast<int64_t>(t_s * 1e9), false), &f);
      w.flows.push_back(std::move(f));
    }
  }
  return w;
}

// The capture links whose set of flows differs from the clean run at some window of the event.
std::vector<std::string> Affected(const RingEventScene& s) {
  std::set<std::string> out;
  if (s.cable < 0) return {};
  std::map<int, size_t> index;
  for (size_t i = 0; i < s.captured.size(); ++i) index[s.captured[i]] = i;
  out.insert(s.capture_link);
  // The tenant's own host pairs carry its traffic too ("<host>~<host>", names sorted).
  for (const auto& f : s.tenant) {
    const std::string& a = s.cluster.hosts[static_cast<size_t>(f.a)].name;
    const std::string& b = s.cluster.hosts[static_cast<size_t>(f.b)].name;
    out.insert(a < b ? a + "~" + b : b + "~" + a);
  }
  RingEventScene clean = s;
  clean.options.event = RingEventKind::kNone;
  for (double t = s.options.event_start_s; t < s.options.event_end_s; t += s.options.window_s) {
    const double mid = t + 0.5 * s.options.window_s;
    const WindowFlows ev = FlowsAt(s, s.order, s.options.qps_per_connection, mid, true);
    const WindowFlows base = FlowsAt(clean, s.order, s.options.qps_per_connection, mid, false);
    std::map<int, std::multiset<std::tuple<int, int, uint16_t>>> ce, cb;
    for (const auto& f : ev.flows) {
      // A flow stalled behind a cable that is down (see the writer) is absent, and its hosts' pair
      // falls silent.
      if (CableDown(s, mid) && std::find(f.cables.begin(), f.cables.end(), s.cable) != f.cables.end()) {
        const std::string& a = s.cluster.hosts[static_cast<size_t>(f.a)].name;
        const std::string& b = s.cluster.hosts[static_cast<size_t>(f.b)].name;
        out.insert(a < b ? a + "~" + b : b + "~" + a);
        continue;
      }
      for (const int c : f.cables) ce[c].insert({f.a, f.b, f.sport});
    }
    for (const auto& f : base.flows) for (const int c : f.cables) cb[c].insert({f.a, f.b, f.sport});
    for (const auto& [c, i] : index) {
      if (ce[c] != cb[c]) out.insert("capture:" + s.capture_points[i]);
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace

std::string_view RingEventKindName(RingEventKind k) {
  switch (k) {
    case RingEventKind::kNone: return "none";
    case RingEventKind::kCongestion: return "congestion";
    case RingEventKind::kFlapping: return "flapping";
    case RingEventKind::kDegraded: return "degraded";
  }
  return "none";
}

std::optional<RingEventKind> ParseRingEventKind(std::string_view name) {
  for (const RingEventKind k : {RingEventKind::kNone, RingEventKind::kCongestion, RingEventKind::kFlapping, RingEventKind::kDegraded}) {
    if (RingEventKindName(k) == name) return k;
  }
  return std::nullopt;
}

Status ValidateRingEventOptions(const RingEventOptions& o) {
  auto bad = [](const std::string& m) { return MakeKindError(ErrorKind::kUsage, "ring event simulation: " + m); };
  if (o.hosts < 4 || o.hosts > 256) return bad("hosts must be 4..256");
  if (!(o.window_s > 0) || !(o.duration_s >= o.window_s) || o.duration_s > 3600) return bad("need 0 < window <= duration <= 3600 s");
  if (!(o.event_start_s >= 0) || !(o.event_end_s > o.event_start_s) || o.event_end_s > o.duration_s) {
    return bad("need 0 <= event start < event end <= duration");
  }
  if (o.qps_per_connection < 1 || o.qps_per_connection > 64) return bad("qps per connection must be 1..64");
  if (o.sampled_messages < 1 || o.sampled_messages > 1000) return bad("sampled messages must be 1..1000");
  if (!(o.tenant_share > 0 && o.tenant_share < 1)) return bad("tenant share must be in (0, 1)");
  if (!(o.flap_down_fraction > 0 && o.flap_down_fraction < 1) || !(o.flap_period_s > 0)) return bad("flap period > 0, down fraction in (0, 1)");
  if (o.tenant_flows < 1 || o.tenant_flows > 64) return bad("tenant flows must be 1..64");
  if (!(o.chunk_bytes >= 64) || !(o.message_bytes > 0)) return bad("chunk >= 64 bytes and message > 0");
  return {};
}

bool RingEventActive(const RingEventScene& s, double t_s) {
  const RingEventOptions& o = s.options;
  if (o.event == RingEventKind::kNone || s.cable < 0 || t_s < o.event_start_s || t_s >= o.event_end_s) return false;
  if (o.event != RingEventKind::kFlapping) return true;
  const double phase = std::fmod(t_s - o.event_start_s, o.flap_period_s);
  return phase < o.flap_down_fraction * o.flap_period_s;
}

Result<RingEventScene> PlanRingEvent(const RingEventOptions& o) {
  if (Status st = ValidateRingEventOptions(o); !st.ok()) return st.error();
  SimOptions so;
  so.arch = o.arch;
  so.hosts = o.hosts;
  so.seed = o.seed;
  so.faults = 0;
  so.with_fabric = true;
  so.fabric_faults = false;
  so.with_telemetry = false;
  so.with_rdma = false;
  Result<Cluster> c = BuildCluster(so);
  if (!c.ok()) return c.error();
  RingEventScene s;
  s.options = o;
  s.cluster = std::move(*c);
  s.plan = PlanFabric(s.cluster);
  s.base_ns = kBaseNs;
  for (int h = 0; h < o.hosts; ++h) s.order.push_back(h);
  for (int l = 0; l < static_cast<int>(s.plan.links.size()); ++l) {
    if (InterSwitch(s.plan, l)) s.captured.push_back(l), s.capture_points.push_back(PointOf(s.cluster, s.plan, l));
  }
  // The event's cable: among the inter-switch cables the ring's QPs cross (clean run, t = start).
  std::set<int> used;
  const WindowFlows w = FlowsAt(s, s.order, o.qps_per_connection, o.event_start_s, false);
  for (const auto& f : w.flows) used.insert(f.cables.begin(), f.cables.end());
  if (used.empty()) return MakeKindError(ErrorKind::kUsage, "ring event simulation: the ring crosses no inter-switch cable");
  if (o.event == RingEventKind::kNone) return s;
  Rng rng(Rng::Mix(o.seed, kStreamLabel));
  const std::vector<int> cand(used.begin(), used.end());
  s.cable = cand[rng.NextU64() % cand.size()];
  s.cable_id = FabricLinkId(s.cluster, s.plan, s.cable);
  s.capture_link = "capture:" + PointOf(s.cluster, s.plan, s.cable);
  if (o.event == RingEventKind::kCongestion) s.tenant = PickTenant(s, rng);
  s.affected_links = Affected(s);
  return s;
}

namespace {

struct Pkt {
  int64_t ts_ns = 0;
  std::vector<uint8_t> frame;
};

formats::RocePacket Packet(const RingEventScene& s, int from, int to, uint16_t sport, uint32_t dest_qp, uint32_t psn,
                           uint8_t opcode, uint32_t dma_len, uint32_t payload, int64_t ts_ns, bool ce) {
  formats::RocePacket p;
  p.ip_ecn = 2;  // ECT(0): RoCEv2 traffic under DCQCN is ECN-capable
  p.ip_ecn_ce = ce;
  p.ts_ns = ts_ns;
  p.src_ip = IpAddress::V4(s.plan.host_ip[static_cast<size_t>(from)]);
  p.dst_ip = IpAddress::V4(s.plan.host_ip[static_cast<size_t>(to)]);
  p.udp_src_port = sport;
  p.udp_dst_port = kRoceV2UdpPort;
  p.opcode = opcode;
  p.dest_qp = dest_qp & 0xFFFFFF;
  p.psn = psn & 0xFFFFFF;
  p.ack_req = opcode != 0x06;
  p.has_reth = opcode == 0x06 || opcode == 0x0a;
  p.reth_dma_len = dma_len;
  p.reth_rkey = 0x1234;
  p.reth_va = 0x7f0000000000ull;
  p.has_imm = opcode == 0x09;
  p.payload_bytes = payload;
  return p;
}

// Frames of one message (a -> b): RDMA WRITE Only when it fits the MTU, else First and Last with
// immediate (the sampled mirror keeps a message's first and last packets).
void AddMessage(const RingEventScene& s, int a, int b, uint16_t sport, uint32_t dest_qp, uint32_t& psn, uint32_t bytes,
                int64_t ts_ns, std::vector<Pkt>* out, bool ce = false) {
  const uint8_t mac_a[6] = {0x02, 0, 0, 0, static_cast<uint8_t>(a >> 8), static_cast<uint8_t>(a)};
  const uint8_t mac_b[6] = {0x02, 0, 0, 0, static_cast<uint8_t>(b >> 8), static_cast<uint8_t>(b)};
  if (bytes <= kMtu) {
    out->push_back({ts_ns, formats::EncodeRoceFrame(Packet(s, a, b, sport, dest_qp, psn++, 0x0a, bytes, bytes, ts_ns, ce), mac_a, mac_b)});
    return;
  }
  const uint32_t npk = (bytes + kMtu - 1) / kMtu;
  out->push_back({ts_ns, formats::EncodeRoceFrame(Packet(s, a, b, sport, dest_qp, psn, 0x06, bytes, kMtu, ts_ns, ce), mac_a, mac_b)});
  const uint32_t last = bytes - (npk - 1) * kMtu;
  const int64_t t_last = ts_ns + static_cast<int64_t>(npk) * 90;  // ~90 ns a 4 KiB packet at 400 Gb/s
  out->push_back({t_last, formats::EncodeRoceFrame(Packet(s, a, b, sport, dest_qp, psn + npk - 1, 0x09, 0, last, t_last, ce), mac_a, mac_b)});
  psn += npk;
}

}  // namespace

Result<std::vector<std::string>> WriteRingEventDataset(const RingEventScene& s, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(dir) / "captures", ec);
  if (ec) return MakeKindError(ErrorKind::kOutput, dir + ": cannot create: " + ec.message());
  const RingEventOptions& o = s.options;
  std::map<int, size_t> index;
  for (size_t i = 0; i < s.captured.size(); ++i) index[s.captured[i]] = i;
  std::vector<std::vector<Pkt>> per_capture(s.captured.size());
  std::map<std::tuple<int, int, uint16_t, bool>, uint32_t> psn;
  Rng rng(Rng::Mix(o.seed, kStreamLabel + 1));
  const auto windows = static_cast<int64_t>(std::floor(o.duration_s / o.window_s + 1e-9));
  const auto win_ns = static_cast<int64_t>(std::llround(o.window_s * 1e9));
  const double mark_p = o.mark_probability >= 0 ? o.mark_probability : 0.05 + 0.25 * rng.Uniform();
  for (int64_t w = 0; w < windows; ++w) {
    const double mid = (static_cast<double>(w) + 0.5) * o.window_s;
    const WindowFlows wf = FlowsAt(s, s.order, o.qps_per_connection, mid, true);
    const std::set<std::pair<int, bool>> saturated = SaturatedCables(s, s.order, o.qps_per_connection, mid);
    for (const auto& f : wf.flows) {
      // A flow that cannot avoid a cable that is down (the cable is a bridge for its pair) sends
      // nothing while it is down: its QP waits and retransmits once the cable is back.
      if (CableDown(s, mid) && std::find(f.cables.begin(), f.cables.end(), s.cable) != f.cables.end()) continue;
      // The first cable on the data's route whose queue marks (f.cables.size(): none).
      size_t mark_from = f.cables.size();
      for (size_t k = 0; k < f.cables.size() && mark_from == f.cables.size(); ++k) {
        if (saturated.count({f.cables[k], f.forward[k]}) > 0) mark_from = k;
      }
      const int m = f.tenant ? 3 * o.sampled_messages : o.sampled_messages;
      for (int k = 0; k < m; ++k) {
        const int64_t ts = s.base_ns + w * win_ns + (win_ns * (2 * k + 1)) / (2 * m) + static_cast<int64_t>(rng.NextU64() % 20000);
        uint32_t bytes = static_cast<uint32_t>(o.chunk_bytes / o.qps_per_connection);
        if (f.tenant) bytes = static_cast<uint32_t>(std::exp(std::log(256.0) + rng.Uniform() * (std::log(4.0 * (1 << 20)) - std::log(256.0))));
        std::vector<Pkt> pk, data, data_ce;
        if (!f.tenant) AddMessage(s, f.b, f.a, f.sport, f.qpn_a, psn[{f.b, f.a, f.sport, true}], 32, ts - 2000, &pk);
        uint32_t& data_psn = psn[{f.a, f.b, f.sport, false}];
        const bool marked = mark_from < f.cables.size() && rng.Uniform() < mark_p;
        if (marked) {
          uint32_t psn_copy = data_psn;
          AddMessage(s, f.a, f.b, f.sport, f.qpn_b, psn_copy, bytes, ts, &data_ce, true);
        }
        AddMessage(s, f.a, f.b, f.sport, f.qpn_b, data_psn, bytes, ts, &data);
        for (size_t k = 0; k < f.cables.size(); ++k) {
          auto it = index.find(f.cables[k]);
          if (it == index.end()) continue;
          // The data crosses cable k at_ns after leaving its host; the fifo write (the other way) as
          // many ns before the data's end of the route.
          const int64_t back_ns = f.at_ns.back() - f.at_ns[k];
          for (Pkt p : pk) p.ts_ns += back_ns, per_capture[it->second].push_back(std::move(p));
          for (Pkt p : (marked && k >= mark_from ? data_ce : data)) p.ts_ns += f.at_ns[k], per_capture[it->second].push_back(std::move(p));
        }
      }
    }
  }
  std::vector<std::string> written;
  for (size_t i = 0; i < s.captured.size(); ++i) {
    auto& pk = per_capture[i];
    std::stable_sort(pk.begin(), pk.end(), [](const Pkt& a, const Pkt& b) { return a.ts_ns < b.ts_ns; });
    const std::string rel = "captures/" + s.capture_points[i] + ".pcap";
    Result<formats::PcapWriter> pw = formats::PcapWriter::Open((fs::path(dir) / rel).string(), kSnaplen);
    if (!pw.ok()) return WithKind(pw.error(), ErrorKind::kOutput);
    for (const Pkt& p : pk) {
      if (Status st = pw->Write(p.ts_ns, p.frame); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
    }
    if (Status st = pw->Close(); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
    written.push_back(rel);
  }
  formats::Inventory inv;
  std::string hostfile;
  for (const HostModel& h : s.cluster.hosts) {
    formats::InventoryRow r;
    r.host = h.name;
    r.addr = IpAddress::V4(s.plan.host_ip[static_cast<size_t>(h.index)]);
    r.ip = r.addr.ToString();
    r.nic = "mlx5_0";
    r.port = 1;
    r.leaf = h.leaf;
    inv.rows.push_back(std::move(r));
  }
  for (const int h : s.order) hostfile += s.cluster.hosts[static_cast<size_t>(h)].name + " slots=8\n";
  nlohmann::json truth = {{"schema", "toposcope.truth/1"},
                          {"gpus", nlohmann::json::array()},
                          {"links", nlohmann::json::array()},
                          {"ring_event",
                           {{"kind", std::string(RingEventKindName(o.event))},
                            {"cable", s.cable_id},
                            {"capture_link", s.capture_link},
                            {"affected_links", s.affected_links},
                            {"start_ns", s.base_ns + static_cast<int64_t>(o.event_start_s * 1e9)},
                            {"end_ns", s.base_ns + static_cast<int64_t>(o.event_end_s * 1e9)}}}};
  const std::vector<std::pair<std::string, std::string>> files = {
      {"inventory.csv", formats::WriteInventoryCsv(inv)},
      {"fabric.ibnet", formats::WriteIbnetdiscover(BuildIbFabric(s.cluster, s.plan))},
      {"hostfile", hostfile},
      {"truth.json", truth.dump(2) + "\n"}};
  for (const auto& [rel, text] : files) {
    if (Status st = WriteFileText((fs::path(dir) / rel).string(), text); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
    written.push_back(rel);
  }
  // Every host's path probes (fabric_sim's probes.csv over the clean fabric, before the run).
  for (const RenderedFile& f : RenderFabric(s.cluster, s.plan, nullptr)) {
    if (f.path.size() < 11 || f.path.compare(f.path.size() - 11, 11, "/probes.csv") != 0) continue;
    if (Status st = WriteFileText((fs::path(dir) / f.path).string(), f.text); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
    written.push_back(f.path);
  }
  return written;
}

namespace {

// The ring's load at t: per directed link (link, crossed from a to b?) the hops' worth of traffic on
// it and the rate available there; the ring's rate r (every hop runs at the slowest share), the
// link that sets it and the slowest hop's latency.
struct RingLoad {
  std::map<std::pair<int, bool>, double> load, avail;
  double r = INFINITY;
  double host_r = INFINITY;  // the slowest share on a host's own link (its NIC)
  double lat_max = 0;
  std::string bottleneck;
};

RingLoad LoadAt(const RingEventScene& s, const std::vector<int>& order, int qps, double t_s) {
  RingLoad out;
  const size_t n = order.size();
  qps = std::max(1, qps);
  for (size_t i = 0; i < n; ++i) {
    const int a = order[i], b = order[(i + 1) % n];
    for (int q = 0; q < qps; ++q) {
      const FabricRoute r = Route(s, a, b, RingSport(static_cast<int>(i), q), t_s);
      double lat = 0;
      for (size_t k = 0; k < r.links.size(); ++k) {
        const FabricLink& l = s.plan.links[static_cast<size_t>(r.links[k])];
        out.load[{r.links[k], r.nodes[k] == l.a}] += 1.0 / qps;
        lat += l.latency_us;
      }
      out.lat_max = std::max(out.lat_max, lat);
    }
  }
  // Tenant shares (congestion): proportional to the tenant's flows on each cable, tenant_share at
  // the event's cable.
  std::map<int, double> tenant_flows;
  if (s.options.event == RingEventKind::kCongestion && RingEventActive(s, t_s)) {
    for (const auto& f : s.tenant) {
      for (const int l : RouteFlow(s.plan, f.a, f.b, f.sport, static_cast<int64_t>(t_s * 1e9), false).links) tenant_flows[l] += 1;
    }
  }
  const double at_cable = tenant_flows.count(s.cable) ? tenant_flows[s.cable] : 1;
  for (const auto& [key, ld] : out.load) {
    const FabricLink& l = s.plan.links[static_cast<size_t>(key.first)];
    double avail = l.rate_gbps;
    if (key.first == s.cable && s.options.event == RingEventKind::kDegraded && RingEventActive(s, t_s)) avail /= 4;
    auto tf = tenant_flows.find(key.first);
    if (tf != tenant_flows.end()) avail *= 1 - std::min(0.95, s.options.tenant_share * tf->second / at_cable);
    out.avail[key] = avail;
    const double rate = avail / ld;
    if (!InterSwitch(s.plan, key.first)) out.host_r = std::min(out.host_r, rate);
    if (rate < out.r) {
      out.r = rate;
      out.bottleneck = InterSwitch(s.plan, key.first) ? FabricLinkId(s.cluster, s.plan, key.first) : "";
    }
  }
  return out;
}

}  // namespace

std::set<std::pair<int, bool>> SaturatedCables(const RingEventScene& s, const std::vector<int>& order, int qps, double t_s) {
  std::set<std::pair<int, bool>> out;
  if (order.size() < 2) return out;
  const RingLoad rl = LoadAt(s, order, qps, t_s);
  for (const auto& [key, ld] : rl.load) {
    const double rate = rl.avail.at(key) / ld;
    if (InterSwitch(s.plan, key.first) && rate <= rl.r * (1 + 1e-9) && rate < rl.host_r * (1 - 1e-9)) out.insert(key);
  }
  return out;
}

RingAllReduceMeasure MeasureRingAllReduce(const RingEventScene& s, const std::vector<int>& order, int qps, double t_s) {
  RingAllReduceMeasure m;
  const size_t n = order.size();
  if (n < 2) return m;
  const RingLoad rl = LoadAt(s, order, qps, t_s);
  const double nd = static_cast<double>(n);
  const double bytes = 2 * (nd - 1) / nd * s.options.message_bytes;
  m.bottleneck = rl.bottleneck;
  m.rate_gbps = rl.r;
  m.time_us = bytes * 8 / (rl.r * 1e3) + 2 * (nd - 1) * rl.lat_max;
  // A hop whose every path crosses the cable while it is down waits for it to come back; so does the
  // whole ring (every step needs every hop).
  if (CableDown(s, t_s)) {
    bool stalled = false;
    for (size_t i = 0; i < n && !stalled; ++i) {
      for (int q = 0; q < std::max(1, qps) && !stalled; ++q) {
        stalled = Crosses(Route(s, order[i], order[(i + 1) % n], RingSport(static_cast<int>(i), q), t_s), s.cable);
      }
    }
    if (stalled) {
      const RingEventOptions& o = s.options;
      const double phase = std::fmod(t_s - o.event_start_s, o.flap_period_s);
      m.time_us += (o.flap_down_fraction * o.flap_period_s - phase) * 1e6;
      m.bottleneck = s.cable_id + " (down)";
    }
  }
  m.busbw_gbps = bytes * 8 / (m.time_us * 1e3);
  return m;
}

}  // namespace toposcope::sim
