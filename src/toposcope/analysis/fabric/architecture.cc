// analysis/fabric/architecture: architecture identification and the §1 metrics (see the header for the
// exact definitions).
#include "toposcope/analysis/fabric/architecture.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/analysis/fabric/graph_search.h"
#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

using stats::Median;

constexpr size_t kMaxCliques = 200000;  // enumeration budget of the maximal-clique search

constexpr NamedValue<ArchClass> kArchClassNames[] = {
    {ArchClass::kUnknown, "unknown"}, {ArchClass::kFatTree, "fat-tree"}, {ArchClass::kDragonfly, "dragonfly"},
    {ArchClass::kHhre, "hhre"}};

constexpr NamedValue<GraphSource> kGraphSourceNames[] = {
    {GraphSource::kNone, "none"}, {GraphSource::kAuto, "auto"}, {GraphSource::kFabric, "fabric"},
    {GraphSource::kProbes, "probes"}};

constexpr NamedValue<RingOrder> kRingOrderNames[] = {
    {RingOrder::kNone, "none"}, {RingOrder::kGiven, "given"}, {RingOrder::kNcclLog, "nccl_log"},
    {RingOrder::kTopologyOrder, "topology_order"}};

// The graph: switches and endpoints (hosts, or adapters that name none).
struct Graph {
  std::map<std::string, int> index;
  std::vector<std::string> names;
  std::vector<bool> is_switch;
  std::vector<std::set<int>> adj;

  int Node(const std::string& name, bool sw) {
    auto it = index.find(name);
    if (it != index.end()) {
      if (sw) is_switch[static_cast<size_t>(it->second)] = true;
      return it->second;
    }
    const int id = static_cast<int>(names.size());
    index.emplace(name, id);
    names.push_back(name);
    is_switch.push_back(sw);
    adj.emplace_back();
    return id;
  }
  void Link(int a, int b) {
    if (a == b) return;
    adj[static_cast<size_t>(a)].insert(b);
    adj[static_cast<size_t>(b)].insert(a);
  }
  int Find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? -1 : it->second;
  }
  size_t size() const { return names.size(); }
};

// A probe's full path: src, intermediate hops, dst (a leading src / trailing dst hop dropped).
std::vector<std::string> FullPath(const formats::PathProbe& p) {
  std::vector<std::string> path;
  path.reserve(p.hops.size() + 2);
  path.push_back(p.src);
  size_t b = 0, e = p.hops.size();
  if (b < e && !p.src.empty() && p.hops[b] == p.src) ++b;
  if (b < e && p.hops[e - 1] == p.dst) --e;
  for (size_t i = b; i < e; ++i) path.push_back(p.hops[i]);
  path.push_back(p.dst);
  return path;
}

bool IsSharpAggregationNode(const std::string& desc) {
  return Contains(ToLowerAscii(desc), "aggregation node");
}

void BuildFromFabric(const FabricReport& f, Graph& g, int* endpoints) {
  std::set<std::string> switch_ids;
  for (const FabricSwitch& s : f.switches) {
    switch_ids.insert(s.id);
    g.Node(s.id, true);
  }
  std::map<std::string, std::string> ca_node;  // CA id -> endpoint node name ("" = not one)
  std::set<std::string> ends;
  for (const FabricCa& c : f.cas) {
    if (IsSharpAggregationNode(c.desc)) {
      ca_node[c.id] = "";
      continue;
    }
    const std::string name = c.host.empty() ? c.id : c.host;
    ca_node[c.id] = name;
  }
  for (const FabricLink& l : f.links) {
    const bool a_sw = switch_ids.count(l.a) > 0, b_sw = switch_ids.count(l.b) > 0;
    if (a_sw && b_sw) {
      g.Link(g.Node(l.a, true), g.Node(l.b, true));
      continue;
    }
    if (a_sw == b_sw) continue;  // CA -- CA (back to back): no switch involved
    const std::string& sw = a_sw ? l.a : l.b;
    const std::string& ca = a_sw ? l.b : l.a;
    auto it = ca_node.find(ca);
    if (it == ca_node.end() || it->second.empty()) continue;
    ends.insert(it->second);
    g.Link(g.Node(sw, true), g.Node(it->second, false));
  }
  *endpoints = static_cast<int>(ends.size());
}

void BuildFromProbes(const std::vector<formats::PathProbe>& probes, Graph& g, int* endpoints) {
  std::set<std::string> ends;
  for (const formats::PathProbe& p : probes) {
    if (p.src.empty() || p.dst.empty()) continue;
    const std::vector<std::string> path = FullPath(p);
    ends.insert(p.src);
    ends.insert(p.dst);
    for (size_t i = 1; i + 1 < path.size(); ++i) {
      if (path[i] != formats::kUnknownHop) g.Node(path[i], true);
    }
    g.Node(p.src, false);
    g.Node(p.dst, false);
    for (size_t i = 0; i + 1 < path.size(); ++i) {
      if (path[i] == formats::kUnknownHop || path[i + 1] == formats::kUnknownHop) continue;
      if (path.size() == 2) continue;  // no switch seen: nothing known about the link
      g.Link(g.Find(path[i]), g.Find(path[i + 1]));
    }
  }
  *endpoints = static_cast<int>(ends.size());
}

// Bron-Kerbosch with pivoting over `nodes` (sets of neighbours restricted to `nodes`).
void BronKerbosch(const std::vector<std::set<int>>& nbr, std::vector<int>& r, std::set<int> p, std::set<int> x,
                  std::vector<std::vector<int>>& out) {
  if (out.size() >= kMaxCliques) return;
  if (p.empty() && x.empty()) {
    out.push_back(r);
    return;
  }
  int pivot = -1;
  size_t best = 0;
  for (const std::set<int>* s : {&p, &x}) {
    for (const int u : *s) {
      size_t c = 0;
      for (const int v : nbr[static_cast<size_t>(u)]) c += p.count(v);
      if (pivot < 0 || c > best) {
        pivot = u;
        best = c;
      }
    }
  }
  std::vector<int> cand;
  for (const int v : p) {
    if (nbr[static_cast<size_t>(pivot)].count(v) == 0) cand.push_back(v);
  }
  for (const int v : cand) {
    std::set<int> np, nx;
    for (const int w : nbr[static_cast<size_t>(v)]) {
      if (p.count(w) > 0) np.insert(w);
      if (x.count(w) > 0) nx.insert(w);
    }
    r.push_back(v);
    BronKerbosch(nbr, r, std::move(np), std::move(nx), out);
    r.pop_back();
    p.erase(v);
    x.insert(v);
  }
}

// "4x8" style summary of sizes (sorted descending).
std::string SizeSummary(std::vector<int> v) {
  std::sort(v.begin(), v.end(), std::greater<>());
  std::string s;
  size_t i = 0;
  while (i < v.size()) {
    size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    if (!s.empty()) s += ", ";
    s += std::to_string(j - i) + " x " + std::to_string(v[i]);
    i = j;
  }
  return s.empty() ? "none" : s;
}

// Linear-interpolated quantile (type 7) of sorted values.
double QuantileSorted(const std::vector<double>& s, double q) {
  if (s.empty()) return NAN;
  const double pos = q * static_cast<double>(s.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  const double f = pos - static_cast<double>(lo);
  return s[lo] + f * (s[hi] - s[lo]);
}

std::string F(double v, int d = 3) { return std::isfinite(v) ? FormatFixed(v, d) : std::string("n/a"); }

// The switches of the graph by role: host switches H hold endpoints, core switches C hold none but
// link other switches.
struct SwitchRoles {
  std::vector<int> sw, hs, cs;      // all switches, H, C (ascending ids)
  std::vector<bool> is_h, is_c;     // per node
  std::vector<std::set<int>> sadj;  // switch-switch adjacency, per node
};

// Splits the graph's switches into host and core switches and counts the switch links by kind
// into the report.
SwitchRoles SplitSwitches(const Graph& g, ArchitectureReport& rep) {
  const size_t n = g.size();
  SwitchRoles s;
  s.is_h.assign(n, false);
  s.is_c.assign(n, false);
  s.sadj.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!g.is_switch[i]) continue;
    s.sw.push_back(static_cast<int>(i));
    for (const int j : g.adj[i]) {
      if (g.is_switch[static_cast<size_t>(j)]) {
        s.sadj[i].insert(j);
      } else {
        s.is_h[i] = true;
      }
    }
  }
  for (const int sw : s.sw) {
    const size_t u = static_cast<size_t>(sw);
    if (s.is_h[u]) {
      s.hs.push_back(sw);
    } else if (!s.sadj[u].empty()) {
      s.is_c[u] = true;
      s.cs.push_back(sw);
    }
  }
  rep.switches = static_cast<int>(s.sw.size());
  rep.host_switches = static_cast<int>(s.hs.size());
  rep.core_switches = static_cast<int>(s.cs.size());
  for (const int a : s.sw) {
    for (const int t : s.sadj[static_cast<size_t>(a)]) {
      if (t < a) continue;
      const bool ha = s.is_h[static_cast<size_t>(a)], ht = s.is_h[static_cast<size_t>(t)];
      if (ha && ht) {
        ++rep.hh_links;
      } else if (ha || ht) {
        ++rep.hc_links;
      } else {
        ++rep.cc_links;
      }
    }
  }
  return s;
}

// Per host switch (in H order): its links to core switches and to other host switches.
struct HostDegrees {
  std::vector<int> up, hh;
};

HostDegrees MeasureHostDegrees(const SwitchRoles& s) {
  HostDegrees d;
  for (const int h : s.hs) {
    int up = 0, hh = 0;
    for (const int t : s.sadj[static_cast<size_t>(h)]) (s.is_h[static_cast<size_t>(t)] ? hh : up) += 1;
    d.up.push_back(up);
    d.hh.push_back(hh);
  }
  return d;
}

// "lo..hi" of a list of degrees, "none" when empty.
std::string DegreeRange(const std::vector<int>& v) {
  if (v.empty()) return std::string("none");
  return std::to_string(*std::min_element(v.begin(), v.end())) + ".." +
         std::to_string(*std::max_element(v.begin(), v.end()));
}

// What the fat-tree checks read besides the report's fields.
struct LayerFacts {
  int leaves_up = 0;  // host switches with an uplink to a core
  int64_t tier1 = 0;  // core switches at level 1
};

// Fat-tree: levels by BFS from H over the switch links; the graph is layered when every switch
// link joins adjacent levels. Sets rep.layered and rep.tiers, adds the levels' evidence.
LayerFacts MeasureLayers(const SwitchRoles& s, const HostDegrees& deg, ArchitectureReport& rep) {
  const std::vector<int> level = BfsDistances(s.sadj, s.hs);
  int64_t same_level = 0, skip_level = 0;
  int max_level = 0;
  for (const int a : s.sw) {
    const int la = level[static_cast<size_t>(a)];
    max_level = std::max(max_level, la);
    for (const int t : s.sadj[static_cast<size_t>(a)]) {
      if (t < a) continue;
      const int d = std::abs(la - level[static_cast<size_t>(t)]);
      if (d == 0) ++same_level;
      if (d > 1) ++skip_level;
    }
  }
  rep.layered = same_level == 0 && skip_level == 0 && !s.cs.empty();
  rep.tiers = rep.layered ? max_level + 1 : 0;
  std::string e = "levels (BFS from host switches): " + std::to_string(max_level + 1) +
                  ", links within a level " + std::to_string(same_level) + ", links skipping a level " +
                  std::to_string(skip_level);
  if (rep.layered) e += " -> layered Clos, " + std::to_string(rep.tiers) + " tiers";
  std::vector<int> per_level(static_cast<size_t>(max_level + 1), 0);
  int unreached = 0;
  for (const int a : s.sw) {
    const int la = level[static_cast<size_t>(a)];
    if (la >= 0) {
      ++per_level[static_cast<size_t>(la)];
    } else if (!s.sadj[static_cast<size_t>(a)].empty()) {
      ++unreached;
    }
  }
  e += "; switches per level";
  for (size_t i = 0; i < per_level.size(); ++i) e += (i ? "/" : " ") + std::to_string(per_level[i]);
  if (unreached > 0)
    e += "; " + std::to_string(unreached) + " linked switches unreachable from any host switch";
  rep.evidence.push_back(e);
  LayerFacts f;
  for (const int u : deg.up) f.leaves_up += u > 0 ? 1 : 0;
  for (const int c : s.cs) f.tier1 += level[static_cast<size_t>(c)] == 1 ? 1 : 0;
  return f;
}

// The components of H over H--H links, each sorted, in order of their smallest member.
std::vector<std::vector<int>> HostSwitchComponents(const SwitchRoles& s) {
  std::vector<std::vector<int>> comps;
  std::set<int> seen;
  for (const int h : s.hs) {
    if (seen.count(h)) continue;
    std::vector<int> comp;
    std::deque<int> qq{h};
    seen.insert(h);
    while (!qq.empty()) {
      const int u = qq.front();
      qq.pop_front();
      comp.push_back(u);
      for (const int v : s.sadj[static_cast<size_t>(u)]) {
        if (s.is_h[static_cast<size_t>(v)] && seen.insert(v).second) qq.push_back(v);
      }
    }
    std::sort(comp.begin(), comp.end());
    comps.push_back(comp);
  }
  return comps;
}

// What the HHRE checks read besides the report's fields.
struct RingFacts {
  bool hh_deg_le2 = true;         // every host switch has <= 2 host-switch neighbours
  bool rings_ok = false;          // every H--H component is a ring (or a path of <= 2), >= 1 ring
  std::vector<int> ring_lengths;  // racks per component, in component order
  size_t rings = 0;               // components
  int racks_with_core = 0;        // host switches linking a core
  int rings_sharing_core = 0;     // components whose racks share a core
  int64_t core_pairs = 0;         // |C| (|C| - 1) / 2
};

// HHRE: H--H components as rings, and the cores per ring. Sets rep.cores_complete.
RingFacts MeasureRings(const SwitchRoles& s, const HostDegrees& deg, ArchitectureReport& rep) {
  RingFacts f;
  for (const int d : deg.hh) f.hh_deg_le2 = f.hh_deg_le2 && d <= 2;
  const std::vector<std::vector<int>> comps = HostSwitchComponents(s);
  f.rings = comps.size();
  bool rings_ok = f.hh_deg_le2 && rep.hh_links > 0;
  int real_rings = 0;
  for (const auto& comp : comps) {
    int64_t edges = 0;
    bool all2 = true;
    for (const int u : comp) {
      int d = 0;
      for (const int v : s.sadj[static_cast<size_t>(u)]) d += s.is_h[static_cast<size_t>(v)] ? 1 : 0;
      edges += d;
      all2 = all2 && d == 2;
    }
    edges /= 2;
    const bool cycle = comp.size() >= 3 && all2 && edges == static_cast<int64_t>(comp.size());
    const bool small = comp.size() <= 2;
    if (cycle || comp.size() == 2) ++real_rings;
    if (!cycle && !small) rings_ok = false;
    f.ring_lengths.push_back(static_cast<int>(comp.size()));
  }
  f.rings_ok = rings_ok && real_rings > 0;
  // Cores per ring.
  for (const auto& comp : comps) {
    std::set<int> common;
    bool first = true;
    for (const int u : comp) {
      std::set<int> cores;
      for (const int v : s.sadj[static_cast<size_t>(u)]) {
        if (s.is_c[static_cast<size_t>(v)]) cores.insert(v);
      }
      f.racks_with_core += cores.empty() ? 0 : 1;
      if (first) {
        common = cores;
        first = false;
      } else {
        std::set<int> keep;
        for (const int c : common) {
          if (cores.count(c)) keep.insert(c);
        }
        common = std::move(keep);
      }
    }
    f.rings_sharing_core += common.empty() ? 0 : 1;
  }
  f.core_pairs = static_cast<int64_t>(s.cs.size()) * (static_cast<int64_t>(s.cs.size()) - 1) / 2;
  rep.cores_complete = !s.cs.empty() && rep.cc_links == f.core_pairs;
  return f;
}

// A disjoint clique cover of H (cliques of >= 3, maximal cliques taken largest first).
struct CliqueCover {
  std::vector<std::set<int>> hadj;  // H--H adjacency, per node
  std::vector<std::vector<int>> groups;
  std::vector<int> group_of;  // per node: its group, -1 for none
};

CliqueCover CoverByCliques(const SwitchRoles& s, const ArchitectureReport& rep) {
  const size_t n = s.sadj.size();
  CliqueCover cc;
  cc.hadj.resize(n);
  for (const int h : s.hs) {
    for (const int v : s.sadj[static_cast<size_t>(h)]) {
      if (s.is_h[static_cast<size_t>(v)]) cc.hadj[static_cast<size_t>(h)].insert(v);
    }
  }
  std::vector<std::vector<int>> cliques;
  if (rep.hh_links > 0) {
    std::vector<int> r;
    BronKerbosch(cc.hadj, r, std::set<int>(s.hs.begin(), s.hs.end()), {}, cliques);
  }
  for (auto& c : cliques) std::sort(c.begin(), c.end());
  std::sort(cliques.begin(), cliques.end(), [&](const std::vector<int>& a, const std::vector<int>& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return a < b;
  });
  cc.group_of.assign(n, -1);
  for (const auto& c : cliques) {
    if (c.size() < 3) break;
    bool free = true;
    for (const int u : c) free = free && cc.group_of[static_cast<size_t>(u)] < 0;
    if (!free) continue;
    for (const int u : c) cc.group_of[static_cast<size_t>(u)] = static_cast<int>(cc.groups.size());
    cc.groups.push_back(c);
  }
  return cc;
}

// What the dragonfly checks read besides the report's fields.
struct GroupFacts {
  int covered = 0;  // host switches in a group
  size_t groups = 0;
  int64_t intra_links = 0;
  double intra_density = 0;  // intra-group links over intra-group pairs
  double inter_density = 0;  // the other H--H links over the other pairs
  bool groups_connected = false;
};

// Dragonfly: the clique cover of H, the densities of local and global links and whether the groups
// are connected through global links. Sets rep.group_sizes.
GroupFacts MeasureGroups(const SwitchRoles& s, ArchitectureReport& rep) {
  const CliqueCover cc = CoverByCliques(s, rep);
  GroupFacts f;
  f.groups = cc.groups.size();
  for (const auto& gr : cc.groups) f.covered += static_cast<int>(gr.size());
  int64_t intra_pairs = 0, inter_links = 0;
  for (const auto& gr : cc.groups)
    intra_pairs += static_cast<int64_t>(gr.size()) * (static_cast<int64_t>(gr.size()) - 1) / 2;
  for (const int h : s.hs) {
    for (const int v : cc.hadj[static_cast<size_t>(h)]) {
      if (v < h) continue;
      const int gh = cc.group_of[static_cast<size_t>(h)], gv = cc.group_of[static_cast<size_t>(v)];
      if (gh >= 0 && gh == gv) {
        ++f.intra_links;
      } else {
        ++inter_links;
      }
    }
  }
  const int64_t all_pairs = static_cast<int64_t>(s.hs.size()) * (static_cast<int64_t>(s.hs.size()) - 1) / 2;
  f.intra_density =
      intra_pairs > 0 ? static_cast<double>(f.intra_links) / static_cast<double>(intra_pairs) : 0;
  f.inter_density = all_pairs - intra_pairs > 0
                        ? static_cast<double>(inter_links) / static_cast<double>(all_pairs - intra_pairs)
                        : 0;
  // Groups connected through global links?
  if (!cc.groups.empty()) {
    std::vector<std::set<int>> gadj(cc.groups.size());
    for (const int h : s.hs) {
      for (const int v : cc.hadj[static_cast<size_t>(h)]) {
        const int a = cc.group_of[static_cast<size_t>(h)], b = cc.group_of[static_cast<size_t>(v)];
        if (a >= 0 && b >= 0 && a != b) gadj[static_cast<size_t>(a)].insert(b);
      }
    }
    const std::vector<int> d = BfsDistances(gadj, {0});
    const size_t reached =
        static_cast<size_t>(std::count_if(d.begin(), d.end(), [](int x) { return x >= 0; }));
    f.groups_connected = reached == cc.groups.size();
  }
  for (const auto& gr : cc.groups) rep.group_sizes.push_back(static_cast<int>(gr.size()));
  std::sort(rep.group_sizes.begin(), rep.group_sizes.end(), std::greater<>());
  return f;
}

// One structural check of a class: what was measured, whether it holds, whether the class needs it,
// whether the data could show it at all (an unobserved check neither holds nor rules the class out).
struct Check {
  std::string what;
  bool ok;
  bool required;
  bool observed = true;
};

// The share of the class's observed checks that hold, x sqrt(observed / all checks): a share
// measured on fewer checks is less precise (its standard error grows as 1 / sqrt(checks)), so a
// class resting on 1 of its 4 checks keeps half the weight of one resting on all 4 (0 when none
// was observed).
double HoldingFraction(const std::vector<Check>& checks) {
  int ok = 0, observed = 0;
  for (const Check& c : checks) {
    observed += c.observed ? 1 : 0;
    ok += c.observed && c.ok ? 1 : 0;
  }
  if (observed == 0) return 0.0;
  return static_cast<double>(ok) / static_cast<double>(observed) *
         std::sqrt(static_cast<double>(observed) / static_cast<double>(checks.size()));
}

// Whether every observed required check holds.
bool RequiredHold(const std::vector<Check>& checks) {
  for (const Check& c : checks) {
    if (c.observed && c.required && !c.ok) return false;
  }
  return true;
}

// Appends one evidence line per check, prefixed by the class name.
void AddChecks(const std::string& cls, const std::vector<Check>& checks, ArchitectureReport& rep) {
  for (const Check& c : checks) {
    rep.evidence.push_back(cls + ": " + (!c.observed ? "unobserved" : c.ok ? "yes" : "no") + " - " + c.what);
  }
}

// The share of host switches with at least one switch link in the graph: a host switch with none
// told nothing about the structure above it (probes that never left it, a dump cut short).
double ObservedShare(const SwitchRoles& s) {
  int seen = 0;
  for (const int h : s.hs) seen += s.sadj[static_cast<size_t>(h)].empty() ? 0 : 1;
  return s.hs.empty() ? 0.0 : static_cast<double>(seen) / static_cast<double>(s.hs.size());
}

// The named class's confidence: (its holding fraction - the best holding fraction among the other
// classes the data also allow, i.e. whose observed required checks hold) x the observed share of
// host switches. 1 means every check of the class was observed and holds, no other class is
// possible and every host switch showed its links; a class resting on unobserved checks, with a
// close rival or on a partly seen graph gets proportionally less.
double ClassConfidence(const std::vector<Check>& best, const std::vector<const std::vector<Check>*>& others,
                       double observed_share) {
  double rival = 0;
  for (const auto* o : others) {
    if (RequiredHold(*o)) rival = std::max(rival, HoldingFraction(*o));
  }
  return std::max(0.0, HoldingFraction(best) - rival) * observed_share;
}

std::vector<Check> FatTreeChecks(const SwitchRoles& s, const LayerFacts& f, const ArchitectureReport& rep) {
  std::vector<Check> ft = {
      {"no link between two host switches (" + std::to_string(rep.hh_links) + ")", rep.hh_links == 0, true},
      {"a host-less switch tier exists (" + std::to_string(s.cs.size()) + " core switches)", !s.cs.empty(),
       true},
      {"layered: every switch link joins adjacent levels", rep.layered, true},
      {"every host switch has an uplink (" + std::to_string(f.leaves_up) + "/" + std::to_string(s.hs.size()) +
           ")",
       f.leaves_up == static_cast<int>(s.hs.size()), false},
  };
  if (rep.layered && f.tier1 > 0) {
    const double full =
        static_cast<double>(rep.hc_links) / (static_cast<double>(s.hs.size()) * static_cast<double>(f.tier1));
    ft.push_back({"host switch--tier-1 links " + std::to_string(rep.hc_links) + " of " +
                      std::to_string(static_cast<int64_t>(s.hs.size()) * f.tier1) + " possible (" +
                      F(full, 3) + " of a full bipartite leaf/spine mesh)",
                  true, false});
  }
  return ft;
}

std::vector<Check> HhreChecks(const SwitchRoles& s, const RingFacts& f, bool from_probes,
                              const ArchitectureReport& rep) {
  std::vector<Check> hh = {
      {"host switches (racks) have <= 2 rack neighbours, components are rings: rack counts per component " +
           SizeSummary(f.ring_lengths),
       f.rings_ok, true},
      {"every rack links a core (" + std::to_string(f.racks_with_core) + "/" + std::to_string(s.hs.size()) +
           ")",
       f.racks_with_core == static_cast<int>(s.hs.size()), !from_probes},
      {"the racks of each ring share a core (" + std::to_string(f.rings_sharing_core) + "/" +
           std::to_string(f.rings) + " rings)",
       f.rings_sharing_core == static_cast<int>(f.rings), !from_probes},
      {"cores form a complete graph (" + std::to_string(rep.cc_links) + "/" + std::to_string(f.core_pairs) +
           " core pairs linked)",
       rep.cores_complete, false},
  };
  // From probes, links no probe crossed are invisible: the core checks only weigh in the
  // confidence; with no core seen at all they are unobserved: they neither hold nor rule hhre
  // out, and the confidence counts them as not holding.
  if (s.cs.empty() && from_probes) {
    for (size_t i = 1; i < hh.size(); ++i) hh[i].observed = false;
  }
  return hh;
}

std::vector<Check> DragonflyChecks(const SwitchRoles& s, const GroupFacts& f, const RingFacts& rings,
                                   const ArchitectureReport& rep) {
  return {
      {"no host-less switch tier (" + std::to_string(s.cs.size()) + " core switches)", s.cs.empty(), true},
      {"host switches in cliques of >= 3 (groups): " + std::to_string(f.covered) + "/" +
           std::to_string(s.hs.size()) + ", group sizes " + SizeSummary(rep.group_sizes),
       f.covered * 10 >= static_cast<int>(s.hs.size()) * 9, true},
      {">= 2 groups (" + std::to_string(f.groups) + ")", f.groups >= 2, true},
      {"global links sparser than local ones: inter-group density " + F(f.inter_density, 4) +
           " vs intra-group " + F(f.intra_density, 3),
       f.intra_links > 0 && f.inter_density < f.intra_density, true},
      {"groups connected through global links", f.groups_connected, false},
      {"routers have > 2 neighbouring routers (not a ring)", !rings.hh_deg_le2, true},
  };
}

// Names the class whose required checks hold (fat-tree, then hhre, then dragonfly; else unknown),
// its confidence (ClassConfidence) and the checks' evidence.
void Decide(const SwitchRoles& s, const LayerFacts& layers, const RingFacts& rings, const GroupFacts& groups,
            bool from_probes, ArchitectureReport& rep) {
  const double observed = ObservedShare(s);
  const std::vector<Check> ft = FatTreeChecks(s, layers, rep);
  std::vector<int> sorted_rings = rings.ring_lengths;
  std::sort(sorted_rings.begin(), sorted_rings.end(), std::greater<>());
  const bool cores_seen = !s.cs.empty();
  const std::vector<Check> hh = HhreChecks(s, rings, from_probes, rep);
  const std::vector<Check> df = DragonflyChecks(s, groups, rings, rep);
  if (RequiredHold(ft)) {
    rep.arch_class = ArchClass::kFatTree;
    rep.confidence = ClassConfidence(ft, {&hh, &df}, observed);
    AddChecks("fat-tree", ft, rep);
  } else if (RequiredHold(hh)) {
    rep.arch_class = ArchClass::kHhre;
    rep.confidence = ClassConfidence(hh, {&ft, &df}, observed);
    rep.ring_lengths = sorted_rings;
    AddChecks("hhre", hh, rep);
    if (!cores_seen) {
      rep.evidence.push_back(
          "hhre: no core switch seen: the probed traffic never left the ring(s) (in-ring routes use ring "
          "segments only); confidence lowered");
    }
  } else if (RequiredHold(df)) {
    rep.arch_class = ArchClass::kDragonfly;
    rep.confidence = ClassConfidence(df, {&ft, &hh}, observed);
    AddChecks("dragonfly", df, rep);
  } else {
    rep.arch_class = ArchClass::kUnknown;
    rep.confidence = 0;
    AddChecks("fat-tree", ft, rep);
    AddChecks("hhre", hh, rep);
    AddChecks("dragonfly", df, rep);
  }
  if (rep.arch_class != ArchClass::kHhre && rings.rings_ok) rep.ring_lengths = sorted_rings;
}

// Structure analysis: fills the report's structure fields, class, confidence and evidence.
void Classify(const Graph& g, bool from_probes, ArchitectureReport& rep) {
  const SwitchRoles s = SplitSwitches(g, rep);
  const std::string src = from_probes ? "path probes' hop lists" : "the fabric dump";
  rep.evidence.push_back("switch graph from " + src + ": " + std::to_string(rep.switches) + " switches (" +
                         std::to_string(rep.host_switches) + " holding endpoints, " +
                         std::to_string(rep.core_switches) + " without), " + std::to_string(rep.endpoints) +
                         " endpoints");
  rep.evidence.push_back("switch links (distinct switch pairs): host-switch--host-switch " +
                         std::to_string(rep.hh_links) + ", host-switch--core " +
                         std::to_string(rep.hc_links) + ", core--core " + std::to_string(rep.cc_links));
  if (s.hs.empty()) {
    rep.evidence.push_back("no switch holds an endpoint: nothing to classify");
    rep.arch_class = ArchClass::kUnknown;
    rep.confidence = 0;
    return;
  }
  const HostDegrees deg = MeasureHostDegrees(s);
  rep.evidence.push_back("host-switch degrees: to cores " + DegreeRange(deg.up) +
                         ", to other host switches " + DegreeRange(deg.hh));
  const LayerFacts layers = MeasureLayers(s, deg, rep);
  const RingFacts rings = MeasureRings(s, deg, rep);
  const GroupFacts groups = MeasureGroups(s, rep);
  Decide(s, layers, rings, groups, from_probes, rep);
}

// Shortest paths (links) from node `a` to every node, -1 where unreachable; endpoints are not
// transit nodes.
std::vector<int> BfsFrom(const Graph& g, int a) {
  std::vector<int> d(g.size(), -1);
  if (a < 0) return d;
  std::deque<int> q{a};
  d[static_cast<size_t>(a)] = 0;
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    for (const int v : g.adj[static_cast<size_t>(u)]) {
      if (d[static_cast<size_t>(v)] >= 0) continue;
      d[static_cast<size_t>(v)] = d[static_cast<size_t>(u)] + 1;
      if (g.is_switch[static_cast<size_t>(v)]) q.push_back(v);  // endpoints are not transit nodes
    }
  }
  return d;
}

// Shortest path (links) between two nodes, -1 when unreachable.
int Bfs(const Graph& g, int a, int b) {
  if (a < 0 || b < 0) return -1;
  if (a == b) return 0;
  return BfsFrom(g, a)[static_cast<size_t>(b)];
}

struct PairData {
  std::vector<double> links;
  std::vector<double> rtt_us;
};

using HostPair = std::pair<std::string, std::string>;  // (smaller name, larger name)

// Builds the switch graph from the source the options and inputs give (the fabric dump when
// present, else the probes' hop lists); sets rep.graph_source and rep.endpoints; returns the graph
// (empty for none).
Graph BuildGraph(const ArchitectureInputs& in, const ArchitectureOptions& opt, bool have_fabric,
                       bool have_probes, ArchitectureReport& rep) {
  bool use_fabric = have_fabric;
  if (opt.graph_source == GraphSource::kProbes) use_fabric = false;
  if (opt.graph_source == GraphSource::kFabric && !have_fabric) {
    rep.evidence.push_back("graph source \"fabric\" asked for but no fabric dump with switches is present");
  }
  Graph g;
  if (use_fabric) {
    BuildFromFabric(*in.fabric, g, &rep.endpoints);
    rep.graph_source = GraphSource::kFabric;
  } else if (have_probes && opt.graph_source != GraphSource::kFabric) {
    BuildFromProbes(*in.probes, g, &rep.endpoints);
    rep.graph_source = GraphSource::kProbes;
  }
  return g;
}

// Builds the switch graph (BuildGraph) and classifies it; returns the graph (empty for none).
Graph BuildAndClassify(const ArchitectureInputs& in, const ArchitectureOptions& opt, bool have_fabric,
                       bool have_probes, ArchitectureReport& rep) {
  Graph g = BuildGraph(in, opt, have_fabric, have_probes, rep);
  if (rep.graph_source == GraphSource::kNone) {
    rep.evidence.push_back("no switch graph: neither a fabric dump with switches nor path probes");
  } else {
    Classify(g, rep.graph_source == GraphSource::kProbes, rep);
  }
  return g;
}

// Per unordered host pair, the link counts and finite RTTs of its probes; and every host known
// (probe endpoints, fabric hosts).
struct ProbedPairs {
  std::map<HostPair, PairData> pairs;
  std::set<std::string> hosts;
};

ProbedPairs CollectPairs(const ArchitectureInputs& in, bool have_fabric, bool have_probes) {
  ProbedPairs pp;
  if (have_probes) {
    for (const formats::PathProbe& p : *in.probes) {
      if (p.src.empty() || p.dst.empty() || p.src == p.dst) continue;
      pp.hosts.insert(p.src);
      pp.hosts.insert(p.dst);
      const std::vector<std::string> path = FullPath(p);
      PairData& d = pp.pairs[std::minmax(p.src, p.dst)];
      d.links.push_back(static_cast<double>(path.size() - 1));
      if (std::isfinite(p.rtt_us)) d.rtt_us.push_back(p.rtt_us);
    }
  }
  if (have_fabric) {
    for (const std::string& h : in.fabric->hosts) pp.hosts.insert(h);
  }
  return pp;
}

// Per probed pair, the median link count of its probes; sets rep.mean_pair_hops.
std::map<HostPair, double> MedianPairLinks(const std::map<HostPair, PairData>& pairs,
                                           ArchitectureReport& rep) {
  std::map<HostPair, double> pair_links;
  double sum = 0;
  int64_t cnt = 0;
  for (const auto& [k, d] : pairs) {
    const double m = Median(d.links);
    pair_links[k] = m;
    sum += m;
    ++cnt;
  }
  if (cnt > 0) rep.mean_pair_hops = sum / static_cast<double>(cnt);
  return pair_links;
}

// Where a host pair's link count came from.
enum class PairLinksFrom { kProbes, kGraph, kNone };

// The link count of hosts a, b as avg_allreduce_hops takes it: the median of the pair's probes,
// else the switch graph's shortest path (`graph_links()`, called only then; <= 0: unreachable).
template <typename GraphLinks>
PairLinksFrom PairLinkCount(const std::string& a, const std::string& b, const std::map<HostPair, double>& pair_links,
                            GraphLinks graph_links, double* links) {
  auto it = pair_links.find(std::minmax(a, b));
  if (it != pair_links.end()) {
    *links = it->second;
    return PairLinksFrom::kProbes;
  }
  const int d = graph_links();
  if (d > 0) {
    *links = d;
    return PairLinksFrom::kGraph;
  }
  *links = NAN;
  return PairLinksFrom::kNone;
}

// The ring of every known host in topology order: the hosts grouped by the switch they hang off
// (the first of them by name, for a host on several), the groups visited nearest-neighbour over
// the switch graph from the largest one. Hosts the graph does not hold come last. Empty when the
// graph places fewer than two hosts: the ring is then unknown.
std::vector<std::string> TopologyOrderRing(const std::set<std::string>& hosts, const Graph& g) {
  std::map<int, std::vector<std::string>> by_switch;  // switch node -> its hosts
  std::vector<std::string> unplaced;
  for (const std::string& h : hosts) {
    const int node = g.Find(h);
    int attach = -1;
    if (node >= 0) {
      for (const int v : g.adj[static_cast<size_t>(node)]) {
        if (!g.is_switch[static_cast<size_t>(v)]) continue;
        if (attach < 0 || g.names[static_cast<size_t>(v)] < g.names[static_cast<size_t>(attach)]) attach = v;
      }
    }
    if (attach < 0) {
      unplaced.push_back(h);
    } else {
      by_switch[attach].push_back(h);
    }
  }
  if (hosts.size() - unplaced.size() < 2) return {};
  // Larger groups first, then by switch name: the start, and the tie-break between equally near groups.
  auto before = [&](int a, int b) {
    const size_t na = by_switch[a].size(), nb = by_switch[b].size();
    if (na != nb) return na > nb;
    return g.names[static_cast<size_t>(a)] < g.names[static_cast<size_t>(b)];
  };
  std::vector<int> left;
  for (const auto& entry : by_switch) left.push_back(entry.first);
  std::sort(left.begin(), left.end(), before);
  std::vector<std::string> ring;
  int at = left.front();
  left.erase(left.begin());
  while (true) {
    ring.insert(ring.end(), by_switch[at].begin(), by_switch[at].end());
    if (left.empty()) break;
    size_t best = 0;
    int best_d = -1;
    for (size_t i = 0; i < left.size(); ++i) {
      const int d = Bfs(g, at, left[i]);
      if (d >= 0 && (best_d < 0 || d < best_d)) {
        best_d = d;
        best = i;
      }
    }
    at = left[best];  // with none reachable, the next group in order
    left.erase(left.begin() + static_cast<std::ptrdiff_t>(best));
  }
  ring.insert(ring.end(), unplaced.begin(), unplaced.end());
  return ring;
}

// avg_allreduce_hops over the given rings (else the topology-order ring of every known host): per
// consecutive pair its probed median link count, else its shortest path in the graph.
void MeasureAllReduceHops(const ArchitectureInputs& in, const std::set<std::string>& hosts,
                          const std::map<HostPair, double>& pair_links, const Graph& g,
                          ArchitectureReport& rep) {
  std::vector<std::vector<std::string>> rings = in.rings;
  if (!rings.empty()) {
    rep.ring_order = in.ring_source == RingOrder::kNone ? RingOrder::kGiven : in.ring_source;
  } else if (std::vector<std::string> ring = TopologyOrderRing(hosts, g); !ring.empty()) {
    rings.push_back(std::move(ring));
    rep.ring_order = RingOrder::kTopologyOrder;
  }
  double sum = 0;
  for (const auto& ring : rings) {
    if (ring.size() < 2) continue;
    for (size_t i = 0; i < ring.size(); ++i) {
      const std::string& a = ring[i];
      const std::string& b = ring[(i + 1) % ring.size()];
      if (a == b) continue;
      ++rep.ring_pairs;
      double links = NAN;
      const PairLinksFrom from =
          PairLinkCount(a, b, pair_links, [&] { return Bfs(g, g.Find(a), g.Find(b)); }, &links);
      if (from == PairLinksFrom::kNone) {
        ++rep.ring_pairs_unreachable;
        continue;
      }
      ++(from == PairLinksFrom::kProbes ? rep.ring_pairs_probed : rep.ring_pairs_graph);
      sum += links;
    }
  }
  const int64_t used = rep.ring_pairs_probed + rep.ring_pairs_graph;
  if (used > 0) rep.avg_allreduce_hops = sum / static_cast<double>(used);
  if (rep.ring_order == RingOrder::kNone) {
    rep.evidence.push_back("avg_allreduce_hops: unknown (no NCCL ring order, and the switch graph places < 2 hosts)");
  } else {
    rep.evidence.push_back("avg_allreduce_hops " + F(rep.avg_allreduce_hops, 3) + " links over " +
                           std::to_string(rep.ring_pairs) + " ring-consecutive pairs (ring order " +
                           std::string(RingOrderName(rep.ring_order)) + ", " + std::to_string(rings.size()) +
                           " ring(s)): " + std::to_string(rep.ring_pairs_probed) + " from probes, " +
                           std::to_string(rep.ring_pairs_graph) + " from the switch graph, " +
                           std::to_string(rep.ring_pairs_unreachable) + " unreachable");
  }
}

// One path-length class's jitter from its pooled residuals: the half-spread of the residuals left
// after dropping those beyond median +- jitter_mad_k x kMadToSigma x max(MAD, floor).
JitterClass ClassJitter(int links, int64_t pairs, const std::vector<double>& r,
                        const ArchitectureOptions& opt) {
  const double med = Median(r);
  std::vector<double> dev;
  dev.reserve(r.size());
  for (const double x : r) dev.push_back(std::abs(x - med));
  const double mad = std::max(Median(dev), opt.jitter_mad_floor_us);
  const double cut = opt.jitter_mad_k * stats::kMadToSigma * mad;
  std::vector<double> kept;
  kept.reserve(r.size());
  for (const double x : r) {
    if (std::abs(x - med) <= cut) kept.push_back(x);
  }
  std::sort(kept.begin(), kept.end());
  JitterClass jc;
  jc.links = links;
  jc.pairs = pairs;
  jc.samples = static_cast<int64_t>(kept.size());
  jc.dropped = static_cast<int64_t>(r.size() - kept.size());
  jc.half_spread_us =
      0.5 * (QuantileSorted(kept, 1.0 - opt.jitter_quantile) - QuantileSorted(kept, opt.jitter_quantile));
  return jc;
}

// jitter_us: per pair with enough RTT samples, residual = RTT - the pair's median RTT, pooled per
// path-length class; the worst class's jitter.
void MeasureJitter(const std::map<HostPair, PairData>& pairs, const std::map<HostPair, double>& pair_links,
                   const ArchitectureOptions& opt, ArchitectureReport& rep) {
  std::map<int, std::vector<double>> residuals;
  std::map<int, int64_t> class_pairs;
  for (const auto& [k, d] : pairs) {
    if (static_cast<int64_t>(d.rtt_us.size()) < opt.jitter_min_pair_samples) continue;
    ++rep.jitter_pairs;
    const double m = Median(d.rtt_us);
    const int cls = static_cast<int>(std::lround(pair_links.at(k)));
    ++class_pairs[cls];
    auto& r = residuals[cls];
    for (const double x : d.rtt_us) r.push_back(x - m);
  }
  for (const auto& [cls, r] : residuals) {
    if (static_cast<int64_t>(r.size()) < opt.jitter_min_class_samples) continue;
    const JitterClass jc = ClassJitter(cls, class_pairs[cls], r, opt);
    rep.jitter_classes.push_back(jc);
    if (!std::isfinite(rep.jitter_us) || jc.half_spread_us > rep.jitter_us) {
      rep.jitter_us = jc.half_spread_us;
      rep.jitter_links = cls;
    }
  }
  std::string e = "jitter_us ±" + F(rep.jitter_us, 3) +
                  " (worst path class: " + std::to_string(rep.jitter_links) + " links) from " +
                  std::to_string(rep.jitter_pairs) + " host pairs; per class";
  for (const JitterClass& jc : rep.jitter_classes) {
    e += " [" + std::to_string(jc.links) + " links: ±" + F(jc.half_spread_us, 3) + " us, " +
         std::to_string(jc.pairs) + " pairs, " + std::to_string(jc.samples) + " kept, " +
         std::to_string(jc.dropped) + " outliers dropped]";
  }
  if (rep.jitter_classes.empty()) e = "jitter_us: no path class with enough RTT samples";
  rep.evidence.push_back(e);
}

// The seed's topology entropy of the probes' paths in each of `w` equal windows of their time span
// (windows with fewer than min_window_probes probes left out), in time order.
std::vector<double> WindowEntropies(const std::vector<formats::PathProbe>& probes, int w,
                                    const ArchitectureOptions& opt) {
  std::vector<double> bits;
  int64_t t0 = 0, t1 = 0;
  bool any = false;
  for (const formats::PathProbe& p : probes) {
    if (p.ts_ns == kNoTime || p.dst.empty()) continue;
    if (!any) {
      t0 = t1 = p.ts_ns;
      any = true;
    }
    t0 = std::min(t0, p.ts_ns);
    t1 = std::max(t1, p.ts_ns);
  }
  if (!any || t1 <= t0) return bits;
  std::vector<std::vector<std::vector<std::string>>> windows(static_cast<size_t>(w));
  const double span = static_cast<double>(t1 - t0);
  for (const formats::PathProbe& p : probes) {
    if (p.ts_ns == kNoTime || p.dst.empty()) continue;
    const double f = static_cast<double>(p.ts_ns - t0) / span;
    const int k = std::min(w - 1, static_cast<int>(f * w));
    windows[static_cast<size_t>(k)].push_back(FullPath(p));
  }
  for (const auto& win : windows) {
    if (static_cast<int64_t>(win.size()) < opt.min_window_probes) continue;
    bits.push_back(SeedNodeEntropyBits(win));
  }
  return bits;
}

// entropy_stability: the coefficient of variation of the window entropies.
void MeasureEntropyStability(const ArchitectureInputs& in, bool have_probes, const ArchitectureOptions& opt,
                             ArchitectureReport& rep) {
  const int w = std::max(1, opt.entropy_windows);
  if (have_probes) rep.window_entropy_bits = WindowEntropies(*in.probes, w, opt);
  rep.entropy_windows = static_cast<int>(rep.window_entropy_bits.size());
  if (rep.entropy_windows >= 1) {
    double s = 0;
    for (const double h : rep.window_entropy_bits) s += h;
    rep.entropy_mean_bits = s / rep.entropy_windows;
  }
  if (rep.entropy_windows >= 2) {
    double v = 0;
    for (const double h : rep.window_entropy_bits)
      v += (h - rep.entropy_mean_bits) * (h - rep.entropy_mean_bits);
    const double sd = std::sqrt(v / rep.entropy_windows);
    rep.entropy_stability = rep.entropy_mean_bits > 0 ? sd / rep.entropy_mean_bits : 0.0;
  }
  std::string e = "entropy_stability " + F(rep.entropy_stability, 4) +
                  " (std/mean of the topology entropy over " + std::to_string(rep.entropy_windows) +
                  " of " + std::to_string(w) + " time windows; mean " + F(rep.entropy_mean_bits, 3) +
                  " bits)";
  rep.evidence.push_back(e);
}

}  // namespace

std::string_view ArchClassName(ArchClass c) { return NameIn(kArchClassNames, c, "unknown"); }

std::string_view GraphSourceName(GraphSource s) { return NameIn(kGraphSourceNames, s, "none"); }

std::string_view RingOrderName(RingOrder o) { return NameIn(kRingOrderNames, o, "none"); }

std::vector<std::vector<std::string>> RingHostOrders(const RingReport& rings) {
  std::set<std::vector<std::string>> seen;
  std::vector<std::vector<std::string>> out;
  for (const RingView& r : rings.rings) {
    if (r.source != RingSource::kNcclLog || r.hosts.size() < 2 || !r.complete) continue;
    if (seen.insert(CanonicalCycle(r.hosts)).second) out.push_back(r.hosts);
  }
  return out;
}

std::vector<double> HostPairLinks(const ArchitectureInputs& in, const std::vector<std::string>& hosts,
                                  const ArchitectureOptions& opt) {
  ArchitectureReport scratch;
  const bool have_fabric = in.fabric != nullptr && in.fabric->present && !in.fabric->switches.empty();
  const bool have_probes = in.probes != nullptr && !in.probes->empty();
  const Graph g = BuildGraph(in, opt, have_fabric, have_probes, scratch);
  const ProbedPairs pp = CollectPairs(in, have_fabric, have_probes);
  const std::map<HostPair, double> pair_links = MedianPairLinks(pp.pairs, scratch);
  const size_t n = hosts.size();
  std::vector<double> out(n * n, NAN);
  for (size_t i = 0; i < n; ++i) {
    out[i * n + i] = 0;
    std::vector<int> dist;  // from hosts[i], computed on first need
    for (size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      auto graph_links = [&] {
        const int a = g.Find(hosts[i]), b = g.Find(hosts[j]);
        if (a < 0 || b < 0) return -1;
        if (dist.empty()) dist = BfsFrom(g, a);
        return dist[static_cast<size_t>(b)];
      };
      PairLinkCount(hosts[i], hosts[j], pair_links, graph_links, &out[i * n + j]);
    }
  }
  return out;
}

ArchitectureReport IdentifyArchitecture(const ArchitectureInputs& in, const ArchitectureOptions& opt) {
  ArchitectureReport rep;
  const bool have_fabric = in.fabric != nullptr && in.fabric->present && !in.fabric->switches.empty();
  const bool have_probes = in.probes != nullptr && !in.probes->empty();
  const Graph g = BuildAndClassify(in, opt, have_fabric, have_probes, rep);
  const ProbedPairs pp = CollectPairs(in, have_fabric, have_probes);
  const std::map<HostPair, double> pair_links = MedianPairLinks(pp.pairs, rep);
  MeasureAllReduceHops(in, pp.hosts, pair_links, g, rep);
  MeasureJitter(pp.pairs, pair_links, opt, rep);
  MeasureEntropyStability(in, have_probes, opt, rep);
  return rep;
}

}  // namespace toposcope::analysis
