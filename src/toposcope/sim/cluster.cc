#include "toposcope/sim/cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "toposcope/base/hash.h"
#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"

namespace toposcope::sim {
namespace {

constexpr int kMaxHosts = 100000;
constexpr int kHostsPerLeaf = 4;  // fat-tree leaf, HHRE rack
constexpr int kSpineMin = 2;
constexpr int kHostsPerRouter = 2;   // dragonfly p
constexpr int kRoutersPerGroup = 4;  // dragonfly a
constexpr int kRacksPerRing = 4;     // HHRE LORR ring size

constexpr NamedValue<Arch> kArchNames[] = {
    {Arch::kFatTree, "fat-tree"}, {Arch::kDragonfly, "dragonfly"}, {Arch::kHhre, "hhre"},
    {Arch::kImported, "imported"}};

constexpr NamedValue<NodeFaultKind> kNodeFaultNames[] = {
    {NodeFaultKind::kNone, ""}, {NodeFaultKind::kNvlinkLanesDown, "nvlink_lanes_down"},
    {NodeFaultKind::kPcieDowntrain, "pcie_downtrain"}};

std::string Numbered(const char* prefix, int n, int width) {
  std::string digits = std::to_string(n);
  if (static_cast<int>(digits.size()) < width) digits.insert(0, static_cast<size_t>(width) - digits.size(), '0');
  return std::string(prefix) + digits;
}

Fabric BuildFabric(Arch arch, std::vector<HostModel>& hosts) {
  Fabric f;
  auto add_to_leaf = [&](const std::string& leaf, HostModel& h) {
    if (f.leaves.empty() || f.leaves.back().name != leaf) f.leaves.push_back({leaf, {}});
    f.leaves.back().members.push_back(h.name);
    h.leaf = leaf;
  };
  if (arch == Arch::kFatTree) {
    for (auto& h : hosts) add_to_leaf(Numbered("leaf", h.index / kHostsPerLeaf, 2), h);
    const int leaves = static_cast<int>(f.leaves.size());
    const int spines = std::max(kSpineMin, (leaves + 1) / 2);
    for (int s = 0; s < spines; ++s) f.spines.push_back(Numbered("spine", s, 2));
  } else if (arch == Arch::kDragonfly) {
    for (auto& h : hosts) {
      const int router = h.index / kHostsPerRouter;
      const int group = router / kRoutersPerGroup;
      const std::string name = Numbered("g", group, 2) + "r" + std::to_string(router % kRoutersPerGroup);
      add_to_leaf(name, h);
      const std::string group_name = Numbered("group", group, 2);
      if (f.groups.empty() || f.groups.back().name != group_name) f.groups.push_back({group_name, {}});
      if (f.groups.back().members.empty() || f.groups.back().members.back() != name) {
        f.groups.back().members.push_back(name);
      }
    }
  } else {  // hhre
    for (auto& h : hosts) {
      const int rack = h.index / kHostsPerLeaf;
      const std::string rack_name = Numbered("rack", rack, 2);
      add_to_leaf(rack_name, h);
      const std::string ring_name = Numbered("ring", rack / kRacksPerRing, 2);
      if (f.rings.empty() || f.rings.back().name != ring_name) {
        f.rings.push_back({ring_name, {}});
        f.spines.push_back(Numbered("core", rack / kRacksPerRing, 2));
      }
      if (f.rings.back().members.empty() || f.rings.back().members.back() != rack_name) {
        f.rings.back().members.push_back(rack_name);
      }
    }
  }
  return f;
}

constexpr uint64_t kHostNameLabel = 0x4e414d4501ULL;
constexpr uint64_t kSwitchNameLabel = 0x4e414d4502ULL;

// Renames every host and switch in `style` (not kPlain), drawn from the seed; everything else
// (the host hashes, the grouping, group and ring names) stays as it is.
void NameCluster(NameStyle style, uint64_t seed, std::vector<HostModel>& hosts, Fabric& f) {
  std::set<std::string> taken;
  const std::vector<std::string> host_names =
      DrawNames(static_cast<int>(hosts.size()), style, NameKind::kHost, seed, kHostNameLabel, taken);
  std::map<std::string, std::string> name_of;
  for (size_t i = 0; i < hosts.size(); ++i) name_of[hosts[i].name] = host_names[i];
  std::vector<std::string> switches;
  for (const auto& l : f.leaves) switches.push_back(l.name);
  for (const auto& s : f.spines) switches.push_back(s);
  const std::vector<std::string> switch_names =
      DrawNames(static_cast<int>(switches.size()), style, NameKind::kSwitch, seed, kSwitchNameLabel, taken);
  for (size_t i = 0; i < switches.size(); ++i) name_of[switches[i]] = switch_names[i];
  auto rename = [&name_of](std::string& n) {
    if (auto it = name_of.find(n); it != name_of.end()) n = it->second;
  };
  for (auto& h : hosts) {
    rename(h.name);
    rename(h.leaf);
  }
  for (auto& l : f.leaves) {
    rename(l.name);
    for (auto& m : l.members) rename(m);
  }
  for (auto& s : f.spines) rename(s);
  for (auto* groups : {&f.groups, &f.rings}) {
    for (auto& g : *groups) {
      for (auto& m : g.members) rename(m);
    }
  }
}

bool EligibleFor(NodeFaultKind kind, const HostModel& h) {
  if (kind == NodeFaultKind::kNvlinkLanesDown) return h.type->HasNvlink();
  return h.type->HasPcieGpuPairs();
}

FaultTruth InjectNvlinkLanesDown(HostModel& h, Rng& rng) {
  FaultTruth f;
  f.kind = NodeFaultKind::kNvlinkLanesDown;
  f.host = h.index;
  const NodeType& t = *h.type;
  if (!t.nvswitch_lanes.empty()) {
    // One GPU loses between half and two thirds of its lanes, spread over its NVSwitches.
    const int gpu = static_cast<int>(rng.Below(static_cast<uint64_t>(t.GpuCount())));
    const int design = t.DesignNvswitchLanes();
    const int lo = (design + 1) / 2;
    const int hi = std::max(lo, 2 * design / 3);
    const int lost = lo + static_cast<int>(rng.Below(static_cast<uint64_t>(hi - lo) + 1));
    auto& lanes = h.gpus[static_cast<size_t>(gpu)].nvswitch_lanes;
    for (int k = 0; k < lost; ++k) {
      std::vector<size_t> live;
      for (size_t s = 0; s < lanes.size(); ++s) {
        if (lanes[s] > 0) live.push_back(s);
      }
      if (live.empty()) break;
      lanes[live[rng.Below(live.size())]] -= 1;
    }
    f.gpus = {gpu};
    f.detail = std::to_string(lost) + " of " + std::to_string(design) + " lanes down";
  } else {
    // A bridged pair loses two thirds of its lanes (two of three bridges).
    const size_t b = rng.Below(t.bridges.size());
    const int design = t.bridges[b].lanes;
    const int lost = 2 * design / 3;
    h.bridge_lanes[b] = design - lost;
    f.gpus = {t.bridges[b].gpu_a, t.bridges[b].gpu_b};
    f.detail = std::to_string(lost) + " of " + std::to_string(design) + " lanes down";
  }
  return f;
}

FaultTruth InjectPcieDowntrain(HostModel& h, Rng& rng) {
  FaultTruth f;
  f.kind = NodeFaultKind::kPcieDowntrain;
  f.host = h.index;
  const NodeType& t = *h.type;
  const int gpu = static_cast<int>(rng.Below(static_cast<uint64_t>(t.GpuCount())));
  auto& g = h.gpus[static_cast<size_t>(gpu)];
  if (rng.Below(2) == 0) {
    g.pcie_width = 4;
  } else {
    g.pcie_gen = 1;
  }
  f.gpus = {gpu};
  f.detail = "PCIe link trained Gen" + std::to_string(g.pcie_gen) + " x" + std::to_string(g.pcie_width) +
             " (designed Gen" + std::to_string(t.gpu_pcie_gen) + " x" + std::to_string(t.gpu_pcie_width) +
             ")";
  return f;
}

Status ValidateOptions(const SimOptions& o) {
  if (o.arch != Arch::kFatTree && o.arch != Arch::kDragonfly && o.arch != Arch::kHhre) {
    return MakeKindError(ErrorKind::kUsage, "unknown architecture '" + std::string(ArchName(o.arch)) + "'",
                         "use fat-tree, dragonfly or hhre");
  }
  if (o.hosts < 1 || o.hosts > kMaxHosts) {
    return MakeKindError(ErrorKind::kUsage, "host count " + std::to_string(o.hosts) + " out of range",
                         "use 1.." + std::to_string(kMaxHosts));
  }
  if (o.faults < 0) return MakeKindError(ErrorKind::kUsage, "fault count must not be negative");
  for (const auto& name : o.node_types) {
    if (FindNodeType(name) == nullptr) {
      std::string known;
      for (const auto& t : NodeTypes()) known += (known.empty() ? "" : ", ") + t.name;
      return MakeKindError(ErrorKind::kUsage, "unknown node type '" + name + "'", "known types: " + known);
    }
  }
  const auto& n = o.noise;
  if (!(n.alpha > 0.0 && n.alpha <= 2.0) || !(n.beta >= -1.0 && n.beta <= 1.0) || !(n.scale >= 0.0) ||
      !std::isfinite(n.scale) || std::isnan(n.truncation)) {
    return MakeKindError(ErrorKind::kUsage, "noise model out of its domain",
                         "need 0 < alpha <= 2, -1 <= beta <= 1, a finite scale >= 0");
  }
  return {};
}

}  // namespace

std::string_view ArchName(Arch a) { return NameIn(kArchNames, a, "unknown"); }

std::optional<Arch> ParseArch(std::string_view name) { return ValueIn(kArchNames, name); }

std::string_view NodeFaultKindName(NodeFaultKind k) { return NameIn(kNodeFaultNames, k, ""); }

double LatencyModelUs(LinkType type) {
  constexpr std::pair<LinkType, double> kLatenciesUs[] = {
      {LinkType::kNvlink, 1.9}, {LinkType::kNvswitch, 2.1}, {LinkType::kPix, 10.5}, {LinkType::kPxb, 11.0},
      {LinkType::kPhb, 11.5},   {LinkType::kNode, 12.5},    {LinkType::kSys, 14.5}};
  for (const auto& [t, us] : kLatenciesUs) {
    if (t == type) return us;
  }
  return 15.0;  // C2C, NET, unknown
}

Result<Cluster> BuildCluster(const SimOptions& options) {
  if (Status st = ValidateOptions(options); !st) return st.error();
  Cluster c;
  c.options = options;
  std::vector<const NodeType*> mix;
  for (const auto& name : options.node_types) mix.push_back(FindNodeType(name));
  if (mix.empty()) {
    for (const auto& t : NodeTypes()) {
      if (t.in_default_mix) mix.push_back(&t);
    }
  }
  const int n_types = static_cast<int>(mix.size());
  const int width = std::max(3, static_cast<int>(std::to_string(options.hosts).size()));

  c.hosts.reserve(static_cast<size_t>(options.hosts));
  for (int i = 0; i < options.hosts; ++i) {
    HostModel h;
    h.index = i;
    h.name = Numbered("node", i + 1, width);
    h.type = mix[static_cast<size_t>(i % n_types)];
    for (int g = 0; g < h.type->GpuCount(); ++g) {
      h.gpus.push_back({.pcie_gen = h.type->gpu_pcie_gen,
                        .pcie_width = h.type->gpu_pcie_width,
                        .nvswitch_lanes = h.type->nvswitch_lanes});
    }
    for (const auto& b : h.type->bridges) h.bridge_lanes.push_back(b.lanes);
    // Half of the hosts get nvbandwidth, the others p2pBandwidthLatencyTest, alternating. With an
    // even-sized type mix the alternation flips every cycle so that every type gets both tools.
    const int phase = (n_types % 2 == 0) ? i + i / n_types : i;
    h.p2p_tool = phase % 2 == 0 ? P2pToolKind::kNvbandwidth : P2pToolKind::kP2pBandwidthLatencyTest;
    h.host_hash = Rng::Mix(Fnv1a(h.name), options.seed);
    c.hosts.push_back(std::move(h));
  }
  c.fabric = BuildFabric(options.arch, c.hosts);
  if (options.naming != NameStyle::kPlain) NameCluster(options.naming, options.seed, c.hosts, c.fabric);

  Rng rng(Rng::Mix(options.seed, kFaultStreamLabel));
  for (int k = 0; k < options.faults; ++k) {
    const NodeFaultKind first = k % 2 == 0 ? NodeFaultKind::kNvlinkLanesDown : NodeFaultKind::kPcieDowntrain;
    const NodeFaultKind second = k % 2 == 0 ? NodeFaultKind::kPcieDowntrain : NodeFaultKind::kNvlinkLanesDown;
    bool placed = false;
    for (const NodeFaultKind kind : {first, second}) {
      std::vector<size_t> candidates;
      for (size_t i = 0; i < c.hosts.size(); ++i) {
        if (!c.hosts[i].faulty && EligibleFor(kind, c.hosts[i])) candidates.push_back(i);
      }
      if (candidates.empty()) continue;
      HostModel& h = c.hosts[candidates[rng.Below(candidates.size())]];
      h.faulty = true;
      c.faults.push_back(kind == NodeFaultKind::kNvlinkLanesDown ? InjectNvlinkLanesDown(h, rng)
                                                                 : InjectPcieDowntrain(h, rng));
      placed = true;
      break;
    }
    if (!placed) break;  // no eligible host left
  }
  std::sort(c.faults.begin(), c.faults.end(), [](const FaultTruth& a, const FaultTruth& b) {
    return a.host != b.host ? a.host < b.host : a.kind < b.kind;
  });
  return c;
}

Status CheckHostLimit(const SimOptions& options, int max_hosts, const std::string& part, const std::string& hint) {
  if (options.hosts <= max_hosts) return {};
  return MakeKindError(ErrorKind::kUsage,
                       part + " simulation supports at most " + std::to_string(max_hosts) + " hosts", hint);
}

std::vector<LinkTruth> HostLinks(const HostModel& host) {
  std::vector<LinkTruth> out;
  const NodeType& t = *host.type;
  const int n = t.GpuCount();
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      LinkTruth l;
      l.a = a;
      l.b = b;
      const auto& ga = host.gpus[static_cast<size_t>(a)];
      const auto& gb = host.gpus[static_cast<size_t>(b)];
      if (const int bi = t.BridgeIndex(a, b); bi >= 0) {
        l.type = LinkType::kNvlink;
        l.design_lanes = t.bridges[static_cast<size_t>(bi)].lanes;
        l.lanes = host.bridge_lanes[static_cast<size_t>(bi)];
        l.bandwidth_gbps = l.lanes * t.nvlink_lane_gbps;
        l.healthy_gbps = l.design_lanes * t.nvlink_lane_gbps;
      } else if (!t.nvswitch_lanes.empty()) {
        l.type = LinkType::kNvswitch;
        for (size_t s = 0; s < t.nvswitch_lanes.size(); ++s) {
          l.design_lanes += t.nvswitch_lanes[s];
          l.lanes += std::min(ga.nvswitch_lanes[s], gb.nvswitch_lanes[s]);
        }
        l.bandwidth_gbps = l.lanes * t.nvlink_lane_gbps;
        l.healthy_gbps = l.design_lanes * t.nvlink_lane_gbps;
      } else {
        const int sa = t.gpus[static_cast<size_t>(a)].pcie_switch;
        const int sb = t.gpus[static_cast<size_t>(b)].pcie_switch;
        l.type = PcieRelation(t, sa, sb);
        const double factor = PciePathFactor(l.type);
        l.bandwidth_gbps =
            std::min(PcieLinkGbps(ga.pcie_gen, ga.pcie_width), PcieLinkGbps(gb.pcie_gen, gb.pcie_width)) *
            factor;
        l.healthy_gbps = PcieLinkGbps(t.gpu_pcie_gen, t.gpu_pcie_width) * factor;
      }
      l.latency_us = LatencyModelUs(l.type);
      l.degraded = l.lanes < l.design_lanes || l.bandwidth_gbps < 0.8 * l.healthy_gbps;
      if (l.lanes < l.design_lanes) {
        l.fault = NodeFaultKind::kNvlinkLanesDown;
      } else if (IsPcie(l.type) && l.bandwidth_gbps < l.healthy_gbps) {
        l.fault = NodeFaultKind::kPcieDowntrain;
      }
      out.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace toposcope::sim
