#include "toposcope/sim/fabric_sim.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <deque>
#include <initializer_list>
#include <set>
#include <string_view>

#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/formats/rdma/qp_state_log.h"
#include "toposcope/sim/rdma_traffic.h"
#include "toposcope/sim/variation.h"

namespace toposcope::sim {
namespace {

constexpr uint64_t kFabricStreamLabel = 0xFAB51C0DEULL;
constexpr uint64_t kProbeStreamLabel = 0x9B0BE5ULL;
constexpr uint64_t kQpStreamLabel = 0x0917A7E5ULL;
constexpr double kUsPerMetre = 0.005;  // ~200 m/µs in fibre
constexpr double kProbeBits = 64 * 8;
constexpr double kQueueAlpha = 1.6;          // Lomax tail index of per-hop queueing
constexpr double kQueueScaleUs = 0.012;      // mean scale / (alpha - 1) = 0.02 µs
constexpr double kCongestedScaleUs = 3.0;    // mean 5 µs per traversal
constexpr double kOutlierRate = 0.006;
constexpr double kSlowHostExtraUs = 1.2;
constexpr double kMinSwitchUs = 0.05;  // floor of a shifted switch latency (below any cut-through ASIC)

constexpr NamedValue<FabricFaultKind> kFabricFaultNames[] = {
    {FabricFaultKind::kCongestedSwitch, "congested_switch"},
    {FabricFaultKind::kDegradedLink, "degraded_link"}, {FabricFaultKind::kFlappingLink, "flapping_link"},
    {FabricFaultKind::kDetour, "detour"}, {FabricFaultKind::kSlowHost, "slow_host"}};

constexpr NamedValue<QpJobKind> kQpJobNames[] = {
    {QpJobKind::kAllreduce, "allreduce"}, {QpJobKind::kPipeline, "pipeline"}, {QpJobKind::kMixed, "mixed"}};
constexpr double kDetourFraction = 0.9;
constexpr double kFlapDownShare = 0.25;
constexpr uint32_t kDetourSeed = 0xDE70u;

int64_t Ns(double x) { return static_cast<int64_t>(std::llround(x)); }

double Round3(double v) { return std::round(v * 1000.0) / 1000.0; }

// Lomax (Pareto II): scale * (U^(-1/alpha) - 1), heavy-tailed, mean scale / (alpha - 1).
double Lomax(Rng& rng, double scale, double alpha) {
  double u = rng.Uniform();
  while (u <= 0.0) u = rng.Uniform();
  return std::min(scale * (std::pow(u, -1.0 / alpha) - 1.0), 2000.0);
}

const std::array<uint32_t, 256>& Crc32cTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1U) != 0 ? 0x82F63B78U ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  return table;
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string NodeId(char kind, uint64_t guid) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%c-%016llx", kind, static_cast<unsigned long long>(guid));
  return buf;
}

std::string Ipv4Text(uint32_t ip) {
  return std::to_string(ip >> 24) + "." + std::to_string((ip >> 16) & 255) + "." + std::to_string((ip >> 8) & 255) +
         "." + std::to_string(ip & 255);
}

bool LinkInPolicy(const FabricLink& l, int policy) {
  if (l.kind == "host") return false;
  if (policy == 1) return l.kind == "ring";
  if (policy == 2) return l.kind == "rack-core" || l.kind == "core-core";
  return true;
}

int Sw(const FabricPlan& p) { return static_cast<int>(p.switches.size()); }

const std::vector<int>& DistTo(const FabricPlan& p, int policy, int down, int to) {
  return p.dist[static_cast<size_t>((policy * 2 + down) * Sw(p) + to)];
}

bool FlapDown(const FabricPlan& p, int64_t t_ns) {
  for (const FlapInterval& f : p.flaps) {
    if (t_ns >= f.start_ns && t_ns < f.end_ns) return true;
  }
  return false;
}

// A latency class, or the fixed one when the name is unknown (options not validated).
LatencyClass ClassOr(const LatencyClass* c, const char* kind) {
  if (c != nullptr) return *c;
  return kind[0] == 'l' ? *FindLinkClass("") : *FindSwitchClass("");
}

class PlanBuilder {
 public:
  PlanBuilder(const Cluster& cluster, FabricPlan& p, Rng& rng)
      : p_(p), rng_(rng), switch_(ClassOr(FindSwitchClass(cluster.options.switch_class), "")),
        link_(ClassOr(FindLinkClass(cluster.options.link_class), "l")) {}

  int AddSwitch(const std::string& name, const std::string& role, const std::string& group) {
    FabricSwitch s;
    s.name = name;
    s.role = role;
    s.group = group;
    s.latency_us = rng_.Uniform(switch_.lo_us, switch_.hi_us);
    s.guid = 0xfc6a1c0300a00000ULL + (static_cast<uint64_t>(p_.switches.size()) << 4);
    s.lid = static_cast<int>(p_.switches.size()) + 1;
    s.ecmp_seed = static_cast<uint32_t>(rng_.NextU64());
    p_.switches.push_back(s);
    return static_cast<int>(p_.switches.size()) - 1;
  }
  int SwitchIndex(const std::string& name) const {
    for (size_t i = 0; i < p_.switches.size(); ++i) {
      if (p_.switches[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }
  // a, b: node indices (switches, or Sw + host).
  int AddLink(int a, int b, const std::string& kind, double lo_m, double hi_m) {
    FabricLink l;
    l.a = a;
    l.b = b;
    l.kind = kind;
    l.length_m = Round3(rng_.Uniform(lo_m, hi_m));
    l.a_port = NextPort(a);
    l.b_port = NextPort(b);
    l.phy_us = rng_.Uniform(link_.lo_us, link_.hi_us);
    p_.links.push_back(l);
    return static_cast<int>(p_.links.size()) - 1;
  }

 private:
  int NextPort(int node) {
    if (node < Sw(p_)) return ++p_.switches[static_cast<size_t>(node)].ports;
    return 1;  // a host's single NIC port
  }
  FabricPlan& p_;
  Rng& rng_;
  LatencyClass switch_;  // switch and link latency ranges (sim/variation.h)
  LatencyClass link_;
};

void BuildGraph(const Cluster& c, FabricPlan& p, Rng& rng) {
  PlanBuilder b(c, p, rng);
  const Fabric& f = c.fabric;
  const Arch arch = c.options.arch;
  // Switches.
  for (const FabricGroup& leaf : f.leaves) {
    std::string role = "leaf", group;
    if (arch == Arch::kDragonfly) {
      role = "router";
      for (const FabricGroup& g : f.groups) {
        if (std::find(g.members.begin(), g.members.end(), leaf.name) != g.members.end()) group = g.name;
      }
    } else if (arch == Arch::kHhre) {
      role = "rack";
      for (const FabricGroup& r : f.rings) {
        if (std::find(r.members.begin(), r.members.end(), leaf.name) != r.members.end()) group = r.name;
      }
    }
    b.AddSwitch(leaf.name, role, group);
  }
  for (size_t s = 0; s < f.spines.size(); ++s) {
    if (arch == Arch::kHhre) {
      b.AddSwitch(f.spines[s], "core", s < f.rings.size() ? f.rings[s].name : "");
    } else {
      b.AddSwitch(f.spines[s], "spine", "");
    }
  }
  const int sw = Sw(p);
  // Host links first (leaf ports 1..n are the hosts, as on a real leaf).
  p.host_switch.assign(c.hosts.size(), -1);
  p.host_link.assign(c.hosts.size(), -1);
  for (const HostModel& h : c.hosts) {
    const int s = b.SwitchIndex(h.leaf);
    p.host_switch[static_cast<size_t>(h.index)] = s;
    p.host_link[static_cast<size_t>(h.index)] = b.AddLink(sw + h.index, s, "host", 1.0, 3.0);
    // Store the switch end first for host links: a = switch, b = host.
    FabricLink& l = p.links.back();
    std::swap(l.a, l.b);
    std::swap(l.a_port, l.b_port);
  }
  if (arch == Arch::kFatTree) {
    for (const FabricGroup& leaf : f.leaves) {
      for (const std::string& spine : f.spines) {
        b.AddLink(b.SwitchIndex(leaf.name), b.SwitchIndex(spine), "leaf-spine", 10.0, 50.0);
      }
    }
  } else if (arch == Arch::kDragonfly) {
    for (const FabricGroup& g : f.groups) {
      for (size_t i = 0; i < g.members.size(); ++i) {
        for (size_t j = i + 1; j < g.members.size(); ++j) {
          b.AddLink(b.SwitchIndex(g.members[i]), b.SwitchIndex(g.members[j]), "local", 2.0, 5.0);
        }
      }
    }
    const int groups = static_cast<int>(f.groups.size());
    if (groups > 1) {
      const int parallel = std::clamp(8 / (groups - 1), 1, 8);  // a * h = 8 global ports per group
      std::vector<size_t> next(static_cast<size_t>(groups), 0);
      for (int i = 0; i < groups; ++i) {
        for (int j = i + 1; j < groups; ++j) {
          for (int k = 0; k < parallel; ++k) {
            const auto& gi = f.groups[static_cast<size_t>(i)].members;
            const auto& gj = f.groups[static_cast<size_t>(j)].members;
            // Spread: the n-th global port of a group goes to router n % size, and the far end
            // shifts by one per round, so parallel links join different router pairs.
            const size_t ni = next[static_cast<size_t>(i)]++, nj = next[static_cast<size_t>(j)]++;
            const std::string& ri = gi[ni % gi.size()];
            const std::string& rj = gj[(nj + nj / gj.size()) % gj.size()];
            b.AddLink(b.SwitchIndex(ri), b.SwitchIndex(rj), "global", 20.0, 100.0);
          }
        }
      }
    }
  } else {  // hhre
    for (size_t r = 0; r < f.rings.size(); ++r) {
      const auto& racks = f.rings[r].members;
      const size_t n = racks.size();
      if (n == 2) b.AddLink(b.SwitchIndex(racks[0]), b.SwitchIndex(racks[1]), "ring", 10.0, 30.0);
      if (n >= 3) {
        for (size_t i = 0; i < n; ++i) {
          b.AddLink(b.SwitchIndex(racks[i]), b.SwitchIndex(racks[(i + 1) % n]), "ring", 10.0, 30.0);
        }
      }
      if (r < f.spines.size()) {
        for (const std::string& rack : racks) {
          b.AddLink(b.SwitchIndex(rack), b.SwitchIndex(f.spines[r]), "rack-core", 30.0, 60.0);
        }
      }
    }
    for (size_t i = 0; i < f.spines.size(); ++i) {
      for (size_t j = i + 1; j < f.spines.size(); ++j) {
        b.AddLink(b.SwitchIndex(f.spines[i]), b.SwitchIndex(f.spines[j]), "core-core", 50.0, 100.0);
      }
    }
  }
}

void ComputeLatencies(FabricPlan& p) {
  const int sw = Sw(p);
  auto end_us = [&](int node) {
    return node < sw ? p.switches[static_cast<size_t>(node)].latency_us
                     : p.host_nic_us[static_cast<size_t>(node - sw)];
  };
  for (FabricLink& l : p.links) {
    l.cable_us = l.length_m * kUsPerMetre;
    l.serialization_us = kProbeBits / (l.rate_gbps * 1e3);
    l.latency_us = l.cable_us + l.phy_us + l.serialization_us + l.extra_us + (end_us(l.a) + end_us(l.b)) / 2.0;
  }
}

void ComputeRouting(FabricPlan& p) {
  const int sw = Sw(p);
  p.adj.assign(static_cast<size_t>(sw), {});
  for (size_t i = 0; i < p.links.size(); ++i) {
    const FabricLink& l = p.links[i];
    if (l.a >= sw || l.b >= sw) continue;
    p.adj[static_cast<size_t>(l.a)].push_back({l.b, static_cast<int>(i)});
    p.adj[static_cast<size_t>(l.b)].push_back({l.a, static_cast<int>(i)});
  }
  for (auto& a : p.adj) std::sort(a.begin(), a.end());
  p.dist.assign(static_cast<size_t>(3 * 2 * sw), {});
  for (int policy = 0; policy < 3; ++policy) {
    for (int down = 0; down < 2; ++down) {
      for (int to = 0; to < sw; ++to) {
        std::vector<int> d(static_cast<size_t>(sw), -1);
        std::deque<int> q{to};
        d[static_cast<size_t>(to)] = 0;
        while (!q.empty()) {
          const int u = q.front();
          q.pop_front();
          for (const auto& [v, li] : p.adj[static_cast<size_t>(u)]) {
            if (!LinkInPolicy(p.links[static_cast<size_t>(li)], policy)) continue;
            if (down == 1 && li == p.flapping_link) continue;
            if (d[static_cast<size_t>(v)] >= 0) continue;
            d[static_cast<size_t>(v)] = d[static_cast<size_t>(u)] + 1;
            q.push_back(v);
          }
        }
        p.dist[static_cast<size_t>((policy * 2 + down) * sw + to)] = std::move(d);
      }
    }
  }
}

int PolicyFor(const FabricPlan& p, int from_sw, int to_sw) {
  if (!p.hhre) return 0;
  const FabricSwitch& a = p.switches[static_cast<size_t>(from_sw)];
  const FabricSwitch& b = p.switches[static_cast<size_t>(to_sw)];
  return a.group == b.group ? 1 : 2;
}

// The ECMP next-hop candidates (neighbour, link) at `cur` toward `to`.
std::vector<std::pair<int, int>> Candidates(const FabricPlan& p, int cur, const std::vector<int>& d, int policy,
                                            int down) {
  std::vector<std::pair<int, int>> out;
  const int here = d[static_cast<size_t>(cur)];
  for (const auto& [v, li] : p.adj[static_cast<size_t>(cur)]) {
    if (!LinkInPolicy(p.links[static_cast<size_t>(li)], policy)) continue;
    if (down == 1 && li == p.flapping_link) continue;
    if (d[static_cast<size_t>(v)] == here - 1) out.push_back({v, li});
  }
  if (out.size() > 1 && p.degraded_link >= 0) {
    const FabricLink& dl = p.links[static_cast<size_t>(p.degraded_link)];
    if (dl.ecmp_excluded_at_a && dl.a == cur) {
      std::erase_if(out, [&](const auto& c) { return c.second == p.degraded_link; });
    }
  }
  return out;
}

// Walks from switch `from` to switch `to`, appending the switches after `from` and the links.
void Walk(const FabricPlan& p, int from, int to, int policy, int down, uint32_t ip_lo, uint32_t ip_hi,
          uint16_t sport, bool skew, FabricRoute* r) {
  int pol = policy, dn = down;
  if (DistTo(p, pol, dn, to)[static_cast<size_t>(from)] < 0) pol = 0;
  if (DistTo(p, pol, dn, to)[static_cast<size_t>(from)] < 0) dn = 0;
  const std::vector<int>& d = DistTo(p, pol, dn, to);
  if (d[static_cast<size_t>(from)] < 0) return;  // disconnected (cannot happen on built fabrics)
  int cur = from;
  while (cur != to) {
    const auto cand = Candidates(p, cur, d, pol, dn);
    if (cand.empty()) return;
    const uint32_t h = EcmpHash(ip_lo, ip_hi, sport, p.switches[static_cast<size_t>(cur)].ecmp_seed);
    size_t pick = h % cand.size();
    if (skew && p.congested_switch >= 0 && cand.size() >= 2) {
      auto it = std::find_if(cand.begin(), cand.end(), [&](const auto& c) { return c.first == p.congested_switch; });
      if (it != cand.end()) {
        const size_t xi = static_cast<size_t>(it - cand.begin());
        if (static_cast<double>(h % 10000) < p.congested_share * 10000.0) {
          pick = xi;
        } else {
          pick = (h / 10000) % (cand.size() - 1);
          if (pick >= xi) ++pick;
        }
      }
    }
    r->nodes.push_back(cand[pick].first);
    r->links.push_back(cand[pick].second);
    cur = cand[pick].first;
  }
}

// Hop distance between two switches in the full graph with every link up.
int FullDist(const FabricPlan& p, int a, int b) { return DistTo(p, 0, 0, b)[static_cast<size_t>(a)]; }

void PlaceFaults(const Cluster& c, FabricPlan& p, Rng& rng) {
  const int sw = Sw(p);
  std::vector<int> host_switches;
  for (int s : p.host_switch) {
    if (std::find(host_switches.begin(), host_switches.end(), s) == host_switches.end()) host_switches.push_back(s);
  }
  std::sort(host_switches.begin(), host_switches.end());

  // Every routing decision (switch `cur` toward a host switch `to`) with its candidates: the ECMP
  // members (switches that are one of >= 2 candidates somewhere), the links routes can use, and,
  // per link end, whether that end ever has the link as its only candidate.
  std::set<int> ecmp_members;
  std::vector<bool> used(p.links.size(), false);
  std::vector<std::array<bool, 2>> sole(p.links.size(), {false, false});  // [end a, end b]
  for (int from : host_switches) {
    for (int to : host_switches) {
      if (from == to) continue;
      int policy = PolicyFor(p, from, to);
      if (DistTo(p, policy, 0, to)[static_cast<size_t>(from)] < 0) policy = 0;
      const std::vector<int>& d = DistTo(p, policy, 0, to);
      if (d[static_cast<size_t>(from)] < 0) continue;
      // Every switch some route from `from` to `to` can reach, and its decision there.
      std::vector<bool> seen(static_cast<size_t>(sw), false);
      std::deque<int> q{from};
      seen[static_cast<size_t>(from)] = true;
      while (!q.empty()) {
        const int cur = q.front();
        q.pop_front();
        if (cur == to) continue;
        const auto cand = Candidates(p, cur, d, policy, 0);
        // Imports: parallel links to one switch are no choice between switches (a leaf reached
        // from a spine over two cables cannot be over-weighted): count distinct neighbours.
        size_t choices = cand.size();
        if (p.imported) {
          std::set<int> distinct;
          for (const auto& cnd : cand) distinct.insert(cnd.first);
          choices = distinct.size();
        }
        for (const auto& cnd : cand) {
          used[static_cast<size_t>(cnd.second)] = true;
          if (choices >= 2) ecmp_members.insert(cnd.first);
          if (cand.size() == 1) sole[static_cast<size_t>(cnd.second)][p.links[static_cast<size_t>(cnd.second)].a == cur ? 0 : 1] = true;
          if (!seen[static_cast<size_t>(cnd.first)]) {
            seen[static_cast<size_t>(cnd.first)] = true;
            q.push_back(cnd.first);
          }
        }
      }
    }
  }
  if (!ecmp_members.empty()) {
    std::vector<int> m(ecmp_members.begin(), ecmp_members.end());
    p.congested_switch = m[rng.Below(m.size())];
    p.congested_share = 0.95;
    p.congested_queue_scale_us = kCongestedScaleUs;
  }
  // Degraded and flapping links: used inter-switch links away from the congested switch. The
  // degraded link prefers one with an end that never has it as its only candidate: dropping it
  // there removes an ECMP choice without pinning that end's other traffic to one path.
  std::vector<int> inter, safe;
  for (size_t i = 0; i < p.links.size(); ++i) {
    const FabricLink& l = p.links[i];
    if (l.kind == "host" || !used[i]) continue;
    if (l.a == p.congested_switch || l.b == p.congested_switch) continue;
    inter.push_back(static_cast<int>(i));
    if (!sole[i][0] || !sole[i][1]) safe.push_back(static_cast<int>(i));
  }
  if (!inter.empty()) {
    const std::vector<int>& pool = safe.empty() ? inter : safe;
    p.degraded_link = pool[rng.Below(pool.size())];
    const size_t di = static_cast<size_t>(p.degraded_link);
    FabricLink& l = p.links[di];
    l.design_width = l.width;
    l.width = "1x";
    l.rate_gbps = formats::IbRateGbps("1x", l.speed);  // 1x NDR = 100 Gb/s
    if (l.rate_gbps <= 0) l.rate_gbps = 100;
    l.extra_us = rng.Uniform(0.6, 1.0);
    if (!sole[di][0] || !sole[di][1]) {
      if (sole[di][0]) {  // end b is the safe one: make it `a`
        std::swap(l.a, l.b);
        std::swap(l.a_port, l.b_port);
      }
      l.ecmp_excluded_at_a = true;
    }
    std::vector<int> rest;
    for (int i : inter) {
      const FabricLink& o = p.links[static_cast<size_t>(i)];
      if (i != p.degraded_link && o.a != l.a && o.b != l.a && o.a != l.b && o.b != l.b) rest.push_back(i);
    }
    if (rest.empty()) {
      for (int i : inter) {
        if (i != p.degraded_link) rest.push_back(i);
      }
    }
    if (!rest.empty()) {
      p.flapping_link = rest[rng.Below(rest.size())];
      p.links[static_cast<size_t>(p.flapping_link)].flapping = true;
      const double window_ns = static_cast<double>(p.probe_end_ns - p.probe_start_ns);
      const double period = window_ns * rng.Uniform(0.15, 0.30);
      double t = static_cast<double>(p.probe_start_ns) + rng.Uniform(0.0, period);
      for (; t < static_cast<double>(p.probe_end_ns); t += period) {
        p.flaps.push_back({Ns(t), Ns(t + kFlapDownShare * period)});
      }
    }
  }
  // Slow host.
  if (c.hosts.size() >= 2) {
    p.slow_host = static_cast<int>(rng.Below(c.hosts.size()));
    p.host_nic_us[static_cast<size_t>(p.slow_host)] += kSlowHostExtraUs;
  }
  // Detour: two host switches and a third switch >= 2 extra hops away from every shortest path.
  // (Placed after the routing tables exist; see PlanFabric.)
}

void PlaceDetour(FabricPlan& p, Rng& rng) {
  const int sw = Sw(p);
  std::vector<int> host_switches;
  for (int s : p.host_switch) {
    if (std::find(host_switches.begin(), host_switches.end(), s) == host_switches.end()) host_switches.push_back(s);
  }
  std::sort(host_switches.begin(), host_switches.end());
  if (host_switches.size() < 2) return;
  std::vector<std::pair<int, int>> pairs;
  for (size_t i = 0; i < host_switches.size(); ++i) {
    for (size_t j = i + 1; j < host_switches.size(); ++j) pairs.push_back({host_switches[i], host_switches[j]});
  }
  for (int attempt = 0; attempt < 8 && p.detour_via < 0; ++attempt) {
    const auto [a, b] = pairs[rng.Below(pairs.size())];
    const int dab = FullDist(p, a, b);
    std::vector<int> exact, more;
    for (int x = 0; x < sw; ++x) {
      if (x == a || x == b || x == p.congested_switch) continue;
      const int da = FullDist(p, a, x), db = FullDist(p, x, b);
      if (da < 0 || db < 0) continue;
      if (da + db == dab + 2) exact.push_back(x);
      if (da + db > dab + 2) more.push_back(x);
    }
    const std::vector<int>& pool = exact.empty() ? more : exact;
    if (pool.empty()) continue;
    const int via = pool[rng.Below(pool.size())];
    FabricRoute r;
    Walk(p, a, via, 0, 0, 0, 0, 0, false, &r);
    Walk(p, via, b, 0, 0, 0, 0, 0, false, &r);
    if (std::find(r.links.begin(), r.links.end(), p.flapping_link) != r.links.end()) continue;
    if (p.imported) {
      // A static route that visits a switch twice (trees: up to `via` and back) is no detour.
      std::vector<int> seen{a};
      for (int n : r.nodes) seen.push_back(n);
      std::sort(seen.begin(), seen.end());
      if (std::adjacent_find(seen.begin(), seen.end()) != seen.end()) continue;
    }
    p.detour_src = a;
    p.detour_dst = b;
    p.detour_via = via;
    p.detour_fraction = kDetourFraction;
  }
}

std::string CtimeText(int64_t unix_s) {
  const std::time_t t = static_cast<std::time_t>(unix_s);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

struct QpEvent {
  int64_t ts_ns;
  uint32_t qp;
  formats::QpState from, to;
};

using formats::QpState;

// One step of a chain of QP state transitions: the transition and the random delay before it
// (after the previous step; a chain's first step has none).
struct QpStep {
  QpState from, to;
  double delay_lo_ns = 0, delay_hi_ns = 0;
};

// Pushes a chain of transitions, the first at t_ns; returns the time of the last.
double PushChain(std::vector<QpEvent>* ev, uint32_t qp, double t_ns, Rng& rng, std::initializer_list<QpStep> steps) {
  double t = t_ns;
  bool first = true;
  for (const QpStep& s : steps) {
    if (!first) t += rng.Uniform(s.delay_lo_ns, s.delay_hi_ns);
    first = false;
    ev->push_back({Ns(t), qp, s.from, s.to});
  }
  return t;
}

// A QP brought up from RESET at t_ns: RESET->INIT->RTR->RTS.
void Create(std::vector<QpEvent>* ev, uint32_t qp, double t_ns, Rng& rng) {
  PushChain(ev, qp, t_ns, rng,
            {{QpState::kReset, QpState::kInit}, {QpState::kInit, QpState::kRtr, 10e3, 60e3},
             {QpState::kRtr, QpState::kRts, 5e3, 30e3}});
}

// A QP torn down at t_ns (RTS->ERR->RESET) and created again.
void Recreate(std::vector<QpEvent>* ev, uint32_t qp, double t_ns, Rng& rng) {
  const double reset_ns =
      PushChain(ev, qp, t_ns, rng, {{QpState::kRts, QpState::kErr}, {QpState::kErr, QpState::kReset, 5e3, 40e3}});
  Create(ev, qp, reset_ns + rng.Uniform(5e3, 30e3), rng);
}

// Between re-creations of a staggered QP: a drain (RTS->SQD->RTS, 30 %) or a send-queue error
// recovered (RTS->SQE->RTS, 8 %), at a random point in the middle of the gap.
void Interleave(std::vector<QpEvent>* ev, uint32_t qp, double from_ns, double to_ns, Rng& rng) {
  if (to_ns - from_ns < 20e6) return;
  const double u = rng.Uniform();
  const double t = from_ns + (to_ns - from_ns) * rng.Uniform(0.3, 0.7);
  if (u < 0.30) {
    ev->push_back({Ns(t), qp, QpState::kRts, QpState::kSqd});
    ev->push_back({Ns(t + rng.Uniform(0.2e6, 2e6)), qp, QpState::kSqd, QpState::kRts});
  } else if (u < 0.38) {
    ev->push_back({Ns(t), qp, QpState::kRts, QpState::kSqe});
    ev->push_back({Ns(t + rng.Uniform(0.05e6, 0.5e6)), qp, QpState::kSqe, QpState::kRts});
  }
}

std::vector<QpEvent> HostQpEvents(const Cluster& c, const FabricPlan& p, int host) {
  const SimOptions& o = c.options;
  const QpJob& job = p.jobs[static_cast<size_t>(p.host_job[static_cast<size_t>(host)])];
  Rng rng(Rng::Mix(o.seed, kQpStreamLabel ^ (static_cast<uint64_t>(host) << 20)));
  Rng jrng(Rng::Mix(o.seed, kQpStreamLabel ^ 0xAB ^ (static_cast<uint64_t>(p.host_job[static_cast<size_t>(host)]) << 32)));
  const int pos = static_cast<int>(std::find(job.hosts.begin(), job.hosts.end(), host) - job.hosts.begin());
  const int nq = o.qps_per_host;
  const int job_qps = static_cast<int>(job.hosts.size()) * nq;
  const double start = static_cast<double>(p.qp_start_ns);
  const double end = static_cast<double>(p.qp_end_ns);
  const double job_offset = jrng.Uniform(20e6, 40e6);
  const double step = job.step_ms * 1e6;
  const double stagger = job.stagger_ms * 1e6;
  const uint32_t base = 0x100 + static_cast<uint32_t>(rng.Below(0xF00000));
  std::vector<QpEvent> ev;
  const int batched = job.kind == QpJobKind::kAllreduce  ? nq
                      : job.kind == QpJobKind::kPipeline ? 0
                                                         : std::max(1, nq / 2);
  const int staggered_per_host = nq - batched;
  const int job_staggered = static_cast<int>(job.hosts.size()) * staggered_per_host;
  // Step boundaries (shared by the job).
  std::vector<double> bounds;
  if (step > 0) {
    for (double b = start + job_offset; b < end - 5e6; b += step) bounds.push_back(b);
  }
  for (int q = 0; q < nq; ++q) {
    const uint32_t qp = base + static_cast<uint32_t>(q);
    Create(&ev, qp, start + rng.Uniform(0, 2e6), rng);
    if (q < batched) {
      for (double b : bounds) Recreate(&ev, qp, b + rng.Uniform(0, 1.5e6), rng);
      continue;
    }
    const int gs = pos * staggered_per_host + (q - batched);  // index among the job's staggered QPs
    std::vector<double> times;
    if (job.kind == QpJobKind::kPipeline) {
      const double phase = (gs + 0.5) / std::max(1, job_qps) * stagger;
      for (double t = start + job_offset + phase; t < end - 5e6; t += stagger) times.push_back(t + rng.Uniform(-0.5e6, 0.5e6));
    } else {  // mixed: the staggered half re-creates between step boundaries
      const int m = std::max(2, static_cast<int>(std::ceil(250e6 / step)));
      const int per_slot = std::max(1, (job_staggered + m - 1) / m);
      const double frac = (gs / m + 0.5) / per_slot;
      for (size_t k = 0; k + 1 < bounds.size(); ++k) {
        if (static_cast<int>(k % static_cast<size_t>(m)) != gs % m) continue;
        times.push_back(bounds[k] + 25e6 + frac * (step - 50e6));
      }
    }
    double prev = start + 3e6;
    for (double t : times) {
      Interleave(&ev, qp, prev, t, rng);
      Recreate(&ev, qp, t, rng);
      prev = t + 1e6;
    }
    Interleave(&ev, qp, prev, end - 2e6, rng);
  }
  std::stable_sort(ev.begin(), ev.end(), [](const QpEvent& a, const QpEvent& b) {
    return a.ts_ns != b.ts_ns ? a.ts_ns < b.ts_ns : a.qp < b.qp;
  });
  return ev;
}

}  // namespace

std::string_view FabricFaultKindName(FabricFaultKind k) { return NameIn(kFabricFaultNames, k, "congested_switch"); }

std::string_view QpJobKindName(QpJobKind k) { return NameIn(kQpJobNames, k, "allreduce"); }

uint32_t EcmpHash(uint32_t ip_a, uint32_t ip_b, uint16_t udp_sport, uint32_t seed) {
  const uint32_t lo = std::min(ip_a, ip_b), hi = std::max(ip_a, ip_b);
  const uint8_t bytes[13] = {static_cast<uint8_t>(lo >> 24), static_cast<uint8_t>(lo >> 16),
                             static_cast<uint8_t>(lo >> 8),  static_cast<uint8_t>(lo),
                             static_cast<uint8_t>(hi >> 24), static_cast<uint8_t>(hi >> 16),
                             static_cast<uint8_t>(hi >> 8),  static_cast<uint8_t>(hi),
                             static_cast<uint8_t>(udp_sport >> 8), static_cast<uint8_t>(udp_sport),
                             static_cast<uint8_t>(kRoceV2UdpPort >> 8), static_cast<uint8_t>(kRoceV2UdpPort & 0xFF),
                             17};
  const auto& t = Crc32cTable();
  uint32_t crc = ~seed;
  for (uint8_t byte : bytes) crc = t[(crc ^ byte) & 0xFFU] ^ (crc >> 8);
  crc = ~crc;
  return crc ^ (crc >> 16);
}

Status ValidateFabricOptions(const SimOptions& o) {
  if (!o.with_fabric) return {};
  if (Status st = CheckHostLimit(o, kMaxFabricHosts, "fabric", "turn the fabric off or simulate fewer hosts"); !st) {
    return st;
  }
  auto bad = [](const std::string& what, const std::string& hint) {
    return Status(MakeKindError(ErrorKind::kUsage, what, hint));
  };
  if (o.probes_per_pair < 1 || o.probes_per_pair > 1000) return bad("probes_per_pair outside 1..1000", "");
  if (!(o.probe_window_s >= 0.01 && o.probe_window_s <= 3600)) return bad("probe_window_s outside 0.01..3600", "");
  if (o.max_probe_peers < 1 || o.max_probe_peers > 100000) return bad("max_probe_peers outside 1..100000", "");
  if (!(o.probe_extra_rtt_us >= 0 && o.probe_extra_rtt_us <= 1e6)) return bad("probe_extra_rtt_us outside 0..1e6", "");
  if (o.qp_jobs < 1 || o.qp_jobs > 64) return bad("qp_jobs outside 1..64", "");
  if (o.qps_per_host < 1 || o.qps_per_host > 256) return bad("qps_per_host outside 1..256", "");
  if (!(o.qp_window_s >= 0.05 && o.qp_window_s <= 600)) return bad("qp_window_s outside 0.05..600", "");
  if (!(o.switch_latency_shift_us >= -0.25 && o.switch_latency_shift_us <= 5))
    return bad("switch_latency_shift_us outside -0.25..5", "");
  return {};
}

namespace {

void SetWindows(const SimOptions& o, FabricPlan& p) {
  p.hhre = o.arch == Arch::kHhre;
  p.extra_rtt_us = o.probe_extra_rtt_us;
  const int64_t mid_ns = o.start_unix_s * 1000000000LL + Ns(o.duration_s * 1e9 / 2.0);
  p.probe_start_ns = mid_ns - Ns(o.probe_window_s * 1e9 / 2.0);
  p.probe_end_ns = p.probe_start_ns + Ns(o.probe_window_s * 1e9);
  p.qp_start_ns = mid_ns - Ns(o.qp_window_s * 1e9 / 2.0);
  p.qp_end_ns = p.qp_start_ns + Ns(o.qp_window_s * 1e9);
}

// Imports: a flapping link whose loss disconnects two host switches (a bridge) would lose probes,
// which the model does not have: the fault is dropped.
void DropFlappingBridge(const Cluster& c, FabricPlan& p) {
  if (p.flapping_link < 0) return;
  bool bridge = false;
  for (int a : p.host_switch) {
    for (int b : p.host_switch) {
      if (a != b && DistTo(p, 0, 0, b)[static_cast<size_t>(a)] >= 0 && DistTo(p, 0, 1, b)[static_cast<size_t>(a)] < 0) {
        bridge = true;
      }
    }
    if (bridge) break;
  }
  if (!bridge) return;
  p.notes.push_back("flapping_link dropped: " + FabricLinkId(c, p, p.flapping_link) +
                    " is a bridge (its loss would disconnect hosts; the probe model has no loss)");
  p.links[static_cast<size_t>(p.flapping_link)].flapping = false;
  p.flapping_link = -1;
  p.flaps.clear();
}

// Everything after the graph: NIC latencies, routing, faults, latencies, fault texts, QP jobs.
void CompletePlan(const Cluster& c, FabricPlan& p, Rng& rng) {
  const SimOptions& o = c.options;
  const bool fill_ip = p.host_ip.size() != c.hosts.size();
  const bool fill_guid = p.host_guid.size() != c.hosts.size();
  if (fill_ip) p.host_ip.clear();
  if (fill_guid) p.host_guid.clear();
  p.host_nic_us.clear();
  for (const HostModel& h : c.hosts) {
    const uint32_t n = static_cast<uint32_t>(h.index + 1);
    if (fill_ip) p.host_ip.push_back((10U << 24) | (((n >> 8) & 0xFFU) << 8) | (n & 0xFFU));  // 10.0.x.y as sim/rdma_traffic.h
    p.host_nic_us.push_back(rng.Uniform(0.6, 0.8));
    if (fill_guid) p.host_guid.push_back(0x946dae0300b00000ULL + (static_cast<uint64_t>(h.index) << 4));
  }
  ComputeRouting(p);  // without faults, to find ECMP members
  if (o.fabric_faults) {
    PlaceFaults(c, p, rng);
    ComputeRouting(p);  // with the flapping link
    if (p.imported) {
      const int before = p.flapping_link;
      DropFlappingBridge(c, p);
      if (before != p.flapping_link) ComputeRouting(p);
    }
    PlaceDetour(p, rng);
  }
  for (FabricSwitch& s : p.switches) s.latency_us = std::max(kMinSwitchUs, s.latency_us + o.switch_latency_shift_us);
  ComputeLatencies(p);

  const auto name = [&](int node) { return FabricNodeName(c, p, node); };
  if (p.congested_switch >= 0) {
    p.faults.push_back({FabricFaultKind::kCongestedSwitch, name(p.congested_switch),
                        "ECMP groups over-weight it (share 0.95 where it is a candidate); queueing "
                        "Lomax(alpha 1.6, scale 3 us) per traversal"});
  }
  if (p.degraded_link >= 0) {
    const FabricLink& l = p.links[static_cast<size_t>(p.degraded_link)];
    char buf[240];
    std::snprintf(buf, sizeof buf, "trained 1x %s (designed %s); +%.3f us per crossing; %s", l.speed.c_str(),
                  l.design_width.c_str(), l.extra_us,
                  l.ecmp_excluded_at_a ? (name(l.a) + " drops it from its ECMP groups").c_str()
                                       : "no ECMP group can drop it (always a sole next hop)");
    p.faults.push_back({FabricFaultKind::kDegradedLink, FabricLinkId(c, p, p.degraded_link), buf});
  }
  if (p.flapping_link >= 0) {
    p.faults.push_back({FabricFaultKind::kFlappingLink, FabricLinkId(c, p, p.flapping_link),
                        "down " + std::to_string(p.flaps.size()) + " times, 25 % of each period"});
  }
  if (p.detour_via >= 0) {
    const int extra = FullDist(p, p.detour_src, p.detour_via) + FullDist(p, p.detour_via, p.detour_dst) -
                      FullDist(p, p.detour_src, p.detour_dst);
    p.faults.push_back({FabricFaultKind::kDetour, name(p.detour_src) + "->" + name(p.detour_dst),
                        "static route of 90 % of the flows via " + name(p.detour_via) + " (+" +
                            std::to_string(extra) + " hops)"});
  }
  if (p.slow_host >= 0) {
    p.faults.push_back({FabricFaultKind::kSlowHost, c.hosts[static_cast<size_t>(p.slow_host)].name,
                        "NIC side +1.2 us each way (poorly tuned host)"});
  }

  // QP jobs.
  const int hosts = static_cast<int>(c.hosts.size());
  const int njobs = std::min(o.qp_jobs, hosts);
  static constexpr QpJobKind kKinds[3] = {QpJobKind::kAllreduce, QpJobKind::kPipeline, QpJobKind::kMixed};
  const uint64_t kind0 = o.seed % 3;
  p.host_job.assign(c.hosts.size(), 0);
  for (int j = 0; j < njobs; ++j) {
    QpJob job;
    job.id = "job" + std::to_string(j);
    job.kind = kKinds[(kind0 + static_cast<uint64_t>(j)) % 3];
    const int lo = j * hosts / njobs, hi = (j + 1) * hosts / njobs;
    for (int h = lo; h < hi; ++h) {
      job.hosts.push_back(h);
      p.host_job[static_cast<size_t>(h)] = j;
    }
    if (job.kind != QpJobKind::kPipeline) {
      job.step_ms = Round3(job.kind == QpJobKind::kMixed ? rng.Uniform(100, 160) : rng.Uniform(80, 160));
    }
    if (job.kind != QpJobKind::kAllreduce) {
      job.stagger_ms = job.kind == QpJobKind::kPipeline ? Round3(rng.Uniform(250, 400)) : 0;
    }
    if (job.kind == QpJobKind::kMixed) job.stagger_ms = Round3(std::max(2.0, std::ceil(250.0 / job.step_ms)) * job.step_ms);
    p.jobs.push_back(std::move(job));
  }
}

}  // namespace

FabricPlan PlanFabric(const Cluster& c) {
  FabricPlan p;
  Rng rng(Rng::Mix(c.options.seed, kFabricStreamLabel));
  SetWindows(c.options, p);
  BuildGraph(c, p, rng);
  CompletePlan(c, p, rng);
  return p;
}

FabricPlan PlanFabricOnGraph(const Cluster& c, FabricPlan graph) {
  Rng rng(Rng::Mix(c.options.seed, kFabricStreamLabel));
  SetWindows(c.options, graph);
  graph.faults.clear();
  graph.jobs.clear();
  CompletePlan(c, graph, rng);
  return graph;
}

FabricRoute RouteFlow(const FabricPlan& p, int host_a, int host_b, uint16_t udp_sport, int64_t t_ns,
                      bool allow_detour) {
  const int sw = Sw(p);
  const bool swapped = host_a > host_b;
  const int lo = swapped ? host_b : host_a, hi = swapped ? host_a : host_b;
  const uint32_t ip_lo = p.host_ip[static_cast<size_t>(lo)], ip_hi = p.host_ip[static_cast<size_t>(hi)];
  const int down = p.flapping_link >= 0 && FlapDown(p, t_ns) ? 1 : 0;
  const int s = p.host_switch[static_cast<size_t>(lo)], d = p.host_switch[static_cast<size_t>(hi)];
  FabricRoute r;
  r.nodes.push_back(sw + lo);
  r.links.push_back(p.host_link[static_cast<size_t>(lo)]);
  r.nodes.push_back(s);
  const bool detour = allow_detour && p.detour_via >= 0 &&
                      ((s == p.detour_src && d == p.detour_dst) || (s == p.detour_dst && d == p.detour_src)) &&
                      EcmpHash(ip_lo, ip_hi, udp_sport, kDetourSeed) % 1000 < static_cast<uint32_t>(p.detour_fraction * 1000);
  if (detour) {
    // A static route: one fixed path per switch pair (a constant tuple, no skew, links as placed:
    // PlaceDetour keeps it off the flapping link).
    FabricRoute mid;
    mid.nodes.push_back(p.detour_src);
    Walk(p, p.detour_src, p.detour_via, 0, 0, 0, 0, 0, false, &mid);
    Walk(p, p.detour_via, p.detour_dst, 0, 0, 0, 0, 0, false, &mid);
    if (s != p.detour_src) {
      std::reverse(mid.nodes.begin(), mid.nodes.end());
      std::reverse(mid.links.begin(), mid.links.end());
    }
    r.nodes.insert(r.nodes.end(), mid.nodes.begin() + 1, mid.nodes.end());
    r.links.insert(r.links.end(), mid.links.begin(), mid.links.end());
    r.detour = true;
  } else if (s != d) {
    Walk(p, s, d, PolicyFor(p, s, d), down, ip_lo, ip_hi, udp_sport, true, &r);
  }
  r.links.push_back(p.host_link[static_cast<size_t>(hi)]);
  r.nodes.push_back(sw + hi);
  if (swapped) {
    std::reverse(r.nodes.begin(), r.nodes.end());
    std::reverse(r.links.begin(), r.links.end());
  }
  return r;
}

double IdleRttUs(const FabricPlan& p, const FabricRoute& r) {
  double sum = 0;
  for (int l : r.links) sum += p.links[static_cast<size_t>(l)].latency_us;
  return 2.0 * sum + p.extra_rtt_us;
}

std::string FabricNodeName(const Cluster& c, const FabricPlan& p, int node) {
  if (node < Sw(p)) return p.switches[static_cast<size_t>(node)].name;
  return c.hosts[static_cast<size_t>(node - Sw(p))].name;
}

std::string FabricLinkId(const Cluster& c, const FabricPlan& p, int link) {
  const FabricLink& l = p.links[static_cast<size_t>(link)];
  std::string a = FabricNodeName(c, p, l.a), b = FabricNodeName(c, p, l.b);
  if (b < a) std::swap(a, b);
  return a + "--" + b;
}

formats::IbFabric BuildIbFabric(const Cluster& c, const FabricPlan& p) {
  using formats::IbNode;
  using formats::IbPortLink;
  const int sw = Sw(p);
  formats::IbFabric f;
  f.generated_on = CtimeText(c.options.start_unix_s);
  if (!c.hosts.empty()) f.initiated_from = "node " + Hex(p.host_guid[0]) + " port " + Hex(p.host_guid[0] + 1);
  const auto id_of = [&](int node) {
    return node < sw ? NodeId('S', p.switches[static_cast<size_t>(node)].guid)
                     : NodeId('H', p.host_guid[static_cast<size_t>(node - sw)]);
  };
  const auto lid_of = [&](int node) {
    return node < sw ? p.switches[static_cast<size_t>(node)].lid : sw + 1 + (node - sw);
  };
  const auto desc_of = [&](int node) {
    return node < sw ? p.switches[static_cast<size_t>(node)].name
                     : c.hosts[static_cast<size_t>(node - sw)].name + " mlx5_0";
  };
  const auto port_guid_of = [&](int node) { return Hex(p.host_guid[static_cast<size_t>(node - sw)] + 1); };
  std::vector<std::vector<std::pair<int, int>>> ports(static_cast<size_t>(sw) + c.hosts.size());  // (port, link)
  for (size_t i = 0; i < p.links.size(); ++i) {
    const FabricLink& l = p.links[i];
    ports[static_cast<size_t>(l.a)].push_back({l.a_port, static_cast<int>(i)});
    ports[static_cast<size_t>(l.b)].push_back({l.b_port, static_cast<int>(i)});
  }
  const int total = sw + static_cast<int>(c.hosts.size());
  for (int node = 0; node < total; ++node) {
    IbNode n;
    const bool is_switch = node < sw;
    n.kind = is_switch ? formats::IbNodeKind::kSwitch : formats::IbNodeKind::kCa;
    n.id = id_of(node);
    const uint64_t guid = is_switch ? p.switches[static_cast<size_t>(node)].guid : p.host_guid[static_cast<size_t>(node - sw)];
    n.guid = Hex(guid);
    n.vendid = "0x2c9";
    n.devid = is_switch ? "0xd2f0" : "0x1021";
    n.sysimgguid = "0x" + Hex(guid);
    n.desc = desc_of(node);
    if (is_switch) {
      n.port0_guid = Hex(guid);
      n.nports = std::max(64, p.switches[static_cast<size_t>(node)].ports);
      n.lid = lid_of(node);
      n.lmc = 0;
      n.enhanced_port0 = true;
    } else {
      n.nports = 1;
    }
    auto& mine = ports[static_cast<size_t>(node)];
    std::sort(mine.begin(), mine.end());
    for (const auto& [port, li] : mine) {
      const FabricLink& l = p.links[static_cast<size_t>(li)];
      const int peer = l.a == node ? l.b : l.a;
      const int peer_port = l.a == node ? l.b_port : l.a_port;
      IbPortLink pl;
      pl.port = port;
      pl.peer_guid = id_of(peer);
      pl.peer_port = peer_port;
      if (!is_switch) {
        pl.port_guid = port_guid_of(node);
        pl.lid = lid_of(node);
        pl.lmc = 0;
      }
      if (peer >= sw) pl.peer_port_guid = port_guid_of(peer);
      pl.peer_desc = desc_of(peer);
      pl.peer_lid = lid_of(peer);
      pl.width = l.width;
      pl.speed = l.speed;
      pl.rate_gbps = formats::IbRateGbps(l.width, l.speed);
      n.ports.push_back(std::move(pl));
    }
    f.nodes.push_back(std::move(n));
  }
  return f;
}

std::vector<std::string> FabricHostFiles(const HostModel& host) {
  return {host.name + "/" + kProbesFile, host.name + "/" + kQpStatesFile};
}

std::vector<std::string> FabricSharedFiles() { return {kFabricIbnetFile}; }

std::vector<RenderedFile> RenderFabric(const Cluster& c, const FabricPlan& p, FabricStats* stats) {
  const SimOptions& o = c.options;
  const int sw = Sw(p);
  const int hosts = static_cast<int>(c.hosts.size());
  std::vector<RenderedFile> out;
  FabricStats st;
  std::vector<double> rtts;
  std::vector<int> redundant_count(static_cast<size_t>(sw), 0);
  const double window_ns = static_cast<double>(p.probe_end_ns - p.probe_start_ns);
  for (int s = 0; s < hosts; ++s) {
    const HostModel& h = c.hosts[static_cast<size_t>(s)];
    Rng rng(Rng::Mix(o.seed, kProbeStreamLabel ^ (static_cast<uint64_t>(s) << 24)));
    // Peers: every other host, or the same-switch hosts plus a deterministic sample.
    std::vector<int> peers;
    if (hosts - 1 <= o.max_probe_peers) {
      for (int d = 0; d < hosts; ++d) {
        if (d != s) peers.push_back(d);
      }
    } else {
      std::vector<int> others;
      for (int d = 0; d < hosts; ++d) {
        if (d == s) continue;
        if (p.host_switch[static_cast<size_t>(d)] == p.host_switch[static_cast<size_t>(s)]) {
          peers.push_back(d);
        } else {
          others.push_back(d);
        }
      }
      while (static_cast<int>(peers.size()) < o.max_probe_peers && !others.empty()) {
        const size_t k = rng.Below(others.size());
        peers.push_back(others[k]);
        others[k] = others.back();
        others.pop_back();
      }
      std::sort(peers.begin(), peers.end());
    }
    std::vector<formats::PathProbe> probes;
    for (int d : peers) {
      for (int k = 0; k < o.probes_per_pair; ++k) {
        formats::PathProbe pr;
        pr.ts_ns = p.probe_start_ns + Ns(rng.Uniform() * window_ns);
        const uint32_t lqpn = 0x100 + static_cast<uint32_t>(rng.Below(0xFFFE00));
        const uint32_t rqpn = 0x100 + static_cast<uint32_t>(rng.Below(0xFFFE00));
        const FabricRoute r = RouteFlow(p, s, d, RoceUdpSourcePort(lqpn, rqpn), pr.ts_ns);
        double rtt = IdleRttUs(p, r);
        bool congested = false;
        for (size_t i = 1; i + 1 < r.nodes.size(); ++i) {
          const int node = r.nodes[i];
          const double scale = node == p.congested_switch ? p.congested_queue_scale_us : kQueueScaleUs;
          congested = congested || node == p.congested_switch;
          rtt += Lomax(rng, scale, kQueueAlpha) + Lomax(rng, scale, kQueueAlpha);  // out and back
          pr.hops.push_back(p.switches[static_cast<size_t>(node)].name);
        }
        rtt += std::abs(rng.Normal()) * 0.02;
        if (rng.Uniform() < kOutlierRate) {
          rtt += rng.Uniform(15.0, 250.0);
          ++st.outlier_probes;
        }
        pr.src = h.name;
        pr.dst = c.hosts[static_cast<size_t>(d)].name;
        pr.rtt_us = Round3(rtt);
        rtts.push_back(pr.rtt_us);
        if (congested) ++st.probes_through_congested;
        if (r.detour) {
          ++st.detour_probes;
          const int a = p.host_switch[static_cast<size_t>(std::min(s, d))];
          const int b = p.host_switch[static_cast<size_t>(std::max(s, d))];
          const int dab = FullDist(p, a, b);
          std::set<int> seen;
          for (size_t i = 1; i + 1 < r.nodes.size(); ++i) {
            const int x = r.nodes[i];
            if (FullDist(p, a, x) + FullDist(p, x, b) > dab && seen.insert(x).second) ++redundant_count[static_cast<size_t>(x)];
          }
        }
        probes.push_back(std::move(pr));
      }
    }
    std::stable_sort(probes.begin(), probes.end(),
                     [](const formats::PathProbe& a, const formats::PathProbe& b) { return a.ts_ns < b.ts_ns; });
    std::string text = formats::PathProbeCsvHeader();
    for (const formats::PathProbe& pr : probes) text += formats::FormatPathProbeCsvLine(pr);
    st.probes += static_cast<int64_t>(probes.size());
    out.push_back({FabricHostFiles(h)[0], std::move(text)});

    std::string qtext = formats::QpStateCsvHeader();
    const QpJob& job = p.jobs[static_cast<size_t>(p.host_job[static_cast<size_t>(s)])];
    for (const QpEvent& e : HostQpEvents(c, p, s)) {
      formats::QpStateRecord rec;
      rec.ts_ns = e.ts_ns;
      rec.host = h.name;
      rec.qp = e.qp;
      rec.dev = p.host_dev.size() == c.hosts.size() ? p.host_dev[static_cast<size_t>(s)] : "mlx5_0";
      rec.job = job.id;
      rec.from = e.from;
      rec.to = e.to;
      rec.legal = formats::IsLegalQpTransition(e.from, e.to);
      qtext += formats::FormatQpStateCsvLine(rec);
      ++st.qp_records;
    }
    out.push_back({FabricHostFiles(h)[1], std::move(qtext)});
  }
  out.push_back({kFabricIbnetFile, formats::WriteIbnetdiscover(BuildIbFabric(c, p))});
  if (!rtts.empty()) {
    std::sort(rtts.begin(), rtts.end());
    st.min_rtt_us = rtts.front();
    st.median_rtt_us = rtts[rtts.size() / 2];
    st.max_rtt_us = rtts.back();
  }
  for (int x = 0; x < sw; ++x) {
    if (st.detour_probes > 0 && redundant_count[static_cast<size_t>(x)] == st.detour_probes) {
      st.redundant_hops.push_back(p.switches[static_cast<size_t>(x)].name);
    }
  }
  if (stats != nullptr) *stats = std::move(st);
  return out;
}

namespace {

using nlohmann::json;

// "switches": each switch with its latency, mean queueing delay and addresses.
json SwitchesJson(const FabricPlan& p) {
  json switches = json::array();
  for (size_t i = 0; i < p.switches.size(); ++i) {
    const FabricSwitch& s = p.switches[i];
    const bool congested = static_cast<int>(i) == p.congested_switch;
    switches.push_back({{"name", s.name},
                        {"role", s.role},
                        {"group", s.group},
                        {"latency_us", Round3(s.latency_us)},
                        {"queue_us_mean", Round3((congested ? p.congested_queue_scale_us : kQueueScaleUs) / (kQueueAlpha - 1))},
                        {"guid", "0x" + Hex(s.guid)},
                        {"lid", s.lid},
                        {"ports", s.ports}});
    if (!s.desc.empty()) switches.back()["desc"] = s.desc;  // imports: the real description
  }
  return switches;
}

// "links": each link with its ends, rate and latency parts.
json LinksJson(const Cluster& c, const FabricPlan& p) {
  json links = json::array();
  for (size_t i = 0; i < p.links.size(); ++i) {
    const FabricLink& l = p.links[i];
    links.push_back({{"id", FabricLinkId(c, p, static_cast<int>(i))},
                     {"a", FabricNodeName(c, p, l.a)},
                     {"a_port", l.a_port},
                     {"b", FabricNodeName(c, p, l.b)},
                     {"b_port", l.b_port},
                     {"kind", l.kind},
                     {"length_m", Round3(l.length_m)},
                     {"width", l.width},
                     {"speed", l.speed},
                     {"rate_gbps", l.rate_gbps},
                     {"cable_us", Round3(l.cable_us)},
                     {"phy_us", Round3(l.phy_us)},
                     {"extra_us", Round3(l.extra_us)},
                     {"latency_us", Round3(l.latency_us)},
                     {"degraded", static_cast<int>(i) == p.degraded_link},
                     {"flapping", l.flapping}});
  }
  return links;
}

// "cas": each host's adapter, its switch and QP job.
json CasJson(const Cluster& c, const FabricPlan& p) {
  json cas = json::array();
  for (const HostModel& h : c.hosts) {
    const size_t i = static_cast<size_t>(h.index);
    const QpJob& job = p.jobs[static_cast<size_t>(p.host_job[i])];
    cas.push_back({{"host", h.name},
                   {"switch", p.switches[static_cast<size_t>(p.host_switch[i])].name},
                   {"ip", Ipv4Text(p.host_ip[i])},
                   {"guid", "0x" + Hex(p.host_guid[i])},
                   {"desc", h.name + " mlx5_0"},
                   {"nic_us", Round3(p.host_nic_us[i])},
                   {"job", job.id},
                   {"qp_pattern", std::string(QpJobKindName(job.kind))}});
  }
  return cas;
}

// "pods": fat-tree one 2-tier pod; dragonfly its groups; HHRE its rings with their core.
json PodsJson(const Cluster& c) {
  json pods = json::array();
  if (c.options.arch == Arch::kFatTree) {
    json leaves = json::array();
    for (const FabricGroup& g : c.fabric.leaves) leaves.push_back(g.name);
    pods.push_back({{"pod", "pod0"}, {"leaves", leaves}, {"spines", c.fabric.spines}});
  } else {
    const auto& groups = c.options.arch == Arch::kDragonfly ? c.fabric.groups : c.fabric.rings;
    for (size_t g = 0; g < groups.size(); ++g) {
      json spines = json::array();
      if (c.options.arch == Arch::kHhre && g < c.fabric.spines.size()) spines.push_back(c.fabric.spines[g]);
      pods.push_back({{"pod", groups[g].name}, {"leaves", groups[g].members}, {"spines", spines}});
    }
  }
  return pods;
}

// "qp_jobs": each QP job with its hosts and timing.
json QpJobsJson(const Cluster& c, const FabricPlan& p) {
  json jobs = json::array();
  for (const QpJob& j : p.jobs) {
    json hs = json::array();
    for (int h : j.hosts) hs.push_back(c.hosts[static_cast<size_t>(h)].name);
    jobs.push_back({{"job", j.id},
                    {"kind", std::string(QpJobKindName(j.kind))},
                    {"hosts", hs},
                    {"qps_per_host", c.options.qps_per_host},
                    {"step_ms", j.step_ms},
                    {"stagger_ms", j.stagger_ms}});
  }
  return jobs;
}

// "redundant_hops": the switches only the detoured routes visit, with the detour.
json RedundantHopsJson(const FabricPlan& p, const FabricStats& stats) {
  json redundant = json::array();
  if (p.detour_via >= 0) {
    const int extra = FullDist(p, p.detour_src, p.detour_via) + FullDist(p, p.detour_via, p.detour_dst) -
                      FullDist(p, p.detour_src, p.detour_dst);
    for (const std::string& node : stats.redundant_hops) {
      redundant.push_back({{"node", node},
                           {"src_switch", p.switches[static_cast<size_t>(p.detour_src)].name},
                           {"dst_switch", p.switches[static_cast<size_t>(p.detour_dst)].name},
                           {"via", p.switches[static_cast<size_t>(p.detour_via)].name},
                           {"fraction", p.detour_fraction},
                           {"extra_hops", extra}});
    }
  }
  return redundant;
}

// "faults": each fabric fault (the flapping link with its down intervals).
json FaultsJson(const FabricPlan& p) {
  json faults = json::array();
  for (const FabricFault& ft : p.faults) {
    json j = {{"kind", std::string(FabricFaultKindName(ft.kind))}, {"element", ft.element}, {"detail", ft.detail}};
    if (ft.kind == FabricFaultKind::kFlappingLink) {
      json iv = json::array();
      for (const FlapInterval& fi : p.flaps) iv.push_back({{"start_ns", fi.start_ns}, {"end_ns", fi.end_ns}});
      j["down"] = std::move(iv);
    }
    faults.push_back(std::move(j));
  }
  return faults;
}

}  // namespace

void AddFabricTruth(const Cluster& c, const FabricPlan& p, const FabricStats& stats, nlohmann::json* root) {
  json& f = (*root)["fabric"];
  if (!f.is_object()) f = json::object();
  f["regime"] = p.extra_rtt_us > 0 ? "rdma-idle+extra" : "rdma-idle";
  f["rtt_model"] = "rtt_us = 2 x sum(links[].latency_us over the path) + queueing + extra_rtt_us";
  f["extra_rtt_us"] = Round3(p.extra_rtt_us);
  f["routing"] = {{"ecmp_hash", "crc32c(lower_ip, higher_ip, udp_sport, 4791, 17; seed) folded, mod n"},
                  {"symmetric", true},
                  {"hhre", "same ring: ring segments only; other rings: rack-core and core-core only"}};
  f["ibnet_file"] = kFabricIbnetFile;
  f["switches"] = SwitchesJson(p);
  f["links"] = LinksJson(c, p);
  f["cas"] = CasJson(c, p);
  f["pods"] = PodsJson(c);
  f["qp_jobs"] = QpJobsJson(c, p);
  f["qp_window"] = {{"start_ns", p.qp_start_ns}, {"end_ns", p.qp_end_ns}};

  json bottlenecks = json::array();
  if (p.congested_switch >= 0) {
    bottlenecks.push_back({{"node", p.switches[static_cast<size_t>(p.congested_switch)].name},
                           {"share", p.congested_share},
                           {"reason", "congested_switch"}});
  }
  f["bottlenecks"] = std::move(bottlenecks);
  f["redundant_hops"] = RedundantHopsJson(p, stats);
  f["faults"] = FaultsJson(p);

  f["probes"] = {{"count", stats.probes},
                 {"per_pair", c.options.probes_per_pair},
                 {"window", {{"start_ns", p.probe_start_ns}, {"end_ns", p.probe_end_ns}}},
                 {"detour_probes", stats.detour_probes},
                 {"outlier_probes", stats.outlier_probes},
                 {"through_congested", stats.probes_through_congested},
                 {"min_rtt_us", Round3(stats.min_rtt_us)},
                 {"median_rtt_us", Round3(stats.median_rtt_us)},
                 {"max_rtt_us", Round3(stats.max_rtt_us)}};
  f["qp_records"] = stats.qp_records;

  if (root->contains("hosts") && (*root)["hosts"].is_array()) {
    auto& hosts = (*root)["hosts"];
    for (size_t i = 0; i < hosts.size() && i < c.hosts.size(); ++i) hosts[i]["fabric_files"] = FabricHostFiles(c.hosts[i]);
  }
}

}  // namespace toposcope::sim
