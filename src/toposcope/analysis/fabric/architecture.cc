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

#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

using stats::Median;

constexpr size_t kMaxCliques = 200000;  // enumeration budget of the maximal-clique search

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

// Structure analysis: fills the report's structure fields, class, confidence and evidence.
void Classify(const Graph& g, bool from_probes, ArchitectureReport& rep) {
  const size_t n = g.size();
  std::vector<int> sw;
  std::vector<bool> is_h(n, false), is_c(n, false);
  std::vector<std::set<int>> sadj(n);  // switch-switch adjacency
  for (size_t i = 0; i < n; ++i) {
    if (!g.is_switch[i]) continue;
    sw.push_back(static_cast<int>(i));
    for (const int j : g.adj[i]) {
      if (g.is_switch[static_cast<size_t>(j)]) {
        sadj[i].insert(j);
      } else {
        is_h[i] = true;
      }
    }
  }
  std::vector<int> hs, cs;
  for (const int s : sw) {
    const size_t u = static_cast<size_t>(s);
    if (is_h[u]) {
      hs.push_back(s);
    } else if (!sadj[u].empty()) {
      is_c[u] = true;
      cs.push_back(s);
    }
  }
  rep.switches = static_cast<int>(sw.size());
  rep.host_switches = static_cast<int>(hs.size());
  rep.core_switches = static_cast<int>(cs.size());
  for (const int s : sw) {
    for (const int t : sadj[static_cast<size_t>(s)]) {
      if (t < s) continue;
      const bool hs_ = is_h[static_cast<size_t>(s)], ht = is_h[static_cast<size_t>(t)];
      if (hs_ && ht) {
        ++rep.hh_links;
      } else if (hs_ || ht) {
        ++rep.hc_links;
      } else {
        ++rep.cc_links;
      }
    }
  }
  const std::string src = from_probes ? "path probes' hop lists" : "the fabric dump";
  rep.evidence.push_back("switch graph from " + src + ": " + std::to_string(rep.switches) + " switches (" +
                         std::to_string(rep.host_switches) + " holding endpoints, " +
                         std::to_string(rep.core_switches) + " without), " + std::to_string(rep.endpoints) +
                         " endpoints");
  rep.evidence.push_back("switch links (distinct switch pairs): host-switch--host-switch " +
                         std::to_string(rep.hh_links) + ", host-switch--core " + std::to_string(rep.hc_links) +
                         ", core--core " + std::to_string(rep.cc_links));
  if (hs.empty()) {
    rep.evidence.push_back("no switch holds an endpoint: nothing to classify");
    rep.arch_class = "unknown";
    rep.confidence = 0;
    return;
  }
  const double source_factor = from_probes ? 0.9 : 1.0;

  // Degrees.
  std::vector<int> h_up, h_hh;
  for (const int h : hs) {
    int up = 0, hh = 0;
    for (const int t : sadj[static_cast<size_t>(h)]) (is_h[static_cast<size_t>(t)] ? hh : up) += 1;
    h_up.push_back(up);
    h_hh.push_back(hh);
  }
  auto minmax = [](const std::vector<int>& v) {
    if (v.empty()) return std::string("none");
    return std::to_string(*std::min_element(v.begin(), v.end())) + ".." +
           std::to_string(*std::max_element(v.begin(), v.end()));
  };
  rep.evidence.push_back("host-switch degrees: to cores " + minmax(h_up) + ", to other host switches " +
                         minmax(h_hh));

  // ---- Fat-tree: levels by BFS from H.
  std::vector<int> level(n, -1);
  std::deque<int> q;
  for (const int h : hs) {
    level[static_cast<size_t>(h)] = 0;
    q.push_back(h);
  }
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    for (const int v : sadj[static_cast<size_t>(u)]) {
      if (level[static_cast<size_t>(v)] < 0) {
        level[static_cast<size_t>(v)] = level[static_cast<size_t>(u)] + 1;
        q.push_back(v);
      }
    }
  }
  int64_t same_level = 0, skip_level = 0;
  int max_level = 0;
  for (const int s : sw) {
    const int ls = level[static_cast<size_t>(s)];
    max_level = std::max(max_level, ls);
    for (const int t : sadj[static_cast<size_t>(s)]) {
      if (t < s) continue;
      const int d = std::abs(ls - level[static_cast<size_t>(t)]);
      if (d == 0) ++same_level;
      if (d > 1) ++skip_level;
    }
  }
  rep.layered = same_level == 0 && skip_level == 0 && !cs.empty();
  rep.tiers = rep.layered ? max_level + 1 : 0;
  {
    std::string e = "levels (BFS from host switches): " + std::to_string(max_level + 1) + ", links within a level " +
                    std::to_string(same_level) + ", links skipping a level " + std::to_string(skip_level);
    if (rep.layered) e += " -> layered Clos, " + std::to_string(rep.tiers) + " tiers";
    std::vector<int> per_level(static_cast<size_t>(max_level + 1), 0);
    int unreached = 0;
    for (const int s : sw) {
      const int ls = level[static_cast<size_t>(s)];
      if (ls >= 0) {
        ++per_level[static_cast<size_t>(ls)];
      } else if (!sadj[static_cast<size_t>(s)].empty()) {
        ++unreached;
      }
    }
    e += "; switches per level";
    for (size_t i = 0; i < per_level.size(); ++i) e += (i ? "/" : " ") + std::to_string(per_level[i]);
    if (unreached > 0) e += "; " + std::to_string(unreached) + " linked switches unreachable from any host switch";
    rep.evidence.push_back(e);
  }
  int leaves_up = 0;
  for (const int u : h_up) leaves_up += u > 0 ? 1 : 0;
  // Full bipartite between tier 0 and tier 1?
  int64_t tier1 = 0;
  for (const int c : cs) tier1 += level[static_cast<size_t>(c)] == 1 ? 1 : 0;

  // ---- HHRE: H--H components.
  bool hh_deg_le2 = true;
  for (const int d : h_hh) hh_deg_le2 = hh_deg_le2 && d <= 2;
  std::vector<std::vector<int>> comps;
  {
    std::set<int> seen;
    for (const int h : hs) {
      if (seen.count(h)) continue;
      std::vector<int> comp;
      std::deque<int> qq{h};
      seen.insert(h);
      while (!qq.empty()) {
        const int u = qq.front();
        qq.pop_front();
        comp.push_back(u);
        for (const int v : sadj[static_cast<size_t>(u)]) {
          if (is_h[static_cast<size_t>(v)] && seen.insert(v).second) qq.push_back(v);
        }
      }
      std::sort(comp.begin(), comp.end());
      comps.push_back(comp);
    }
  }
  bool rings_ok = hh_deg_le2 && rep.hh_links > 0;
  int real_rings = 0;
  std::vector<int> ring_lengths;
  for (const auto& comp : comps) {
    int64_t edges = 0;
    bool all2 = true;
    for (const int u : comp) {
      int d = 0;
      for (const int v : sadj[static_cast<size_t>(u)]) d += is_h[static_cast<size_t>(v)] ? 1 : 0;
      edges += d;
      all2 = all2 && d == 2;
    }
    edges /= 2;
    const bool cycle = comp.size() >= 3 && all2 && edges == static_cast<int64_t>(comp.size());
    const bool small = comp.size() <= 2;
    if (cycle || comp.size() == 2) ++real_rings;
    if (!cycle && !small) rings_ok = false;
    ring_lengths.push_back(static_cast<int>(comp.size()));
  }
  rings_ok = rings_ok && real_rings > 0;
  // Cores per ring.
  int racks_with_core = 0, rings_sharing_core = 0;
  for (const auto& comp : comps) {
    std::set<int> common;
    bool first = true;
    for (const int u : comp) {
      std::set<int> cores;
      for (const int v : sadj[static_cast<size_t>(u)]) {
        if (is_c[static_cast<size_t>(v)]) cores.insert(v);
      }
      racks_with_core += cores.empty() ? 0 : 1;
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
    rings_sharing_core += common.empty() ? 0 : 1;
  }
  int64_t core_pairs = static_cast<int64_t>(cs.size()) * (static_cast<int64_t>(cs.size()) - 1) / 2;
  rep.cores_complete = !cs.empty() && rep.cc_links == core_pairs;

  // ---- Dragonfly: clique cover of H.
  std::vector<std::set<int>> hadj(n);
  for (const int h : hs) {
    for (const int v : sadj[static_cast<size_t>(h)]) {
      if (is_h[static_cast<size_t>(v)]) hadj[static_cast<size_t>(h)].insert(v);
    }
  }
  std::vector<std::vector<int>> cliques;
  if (rep.hh_links > 0) {
    std::vector<int> r;
    BronKerbosch(hadj, r, std::set<int>(hs.begin(), hs.end()), {}, cliques);
  }
  for (auto& c : cliques) std::sort(c.begin(), c.end());
  std::sort(cliques.begin(), cliques.end(), [&](const std::vector<int>& a, const std::vector<int>& b) {
    if (a.size() != b.size()) return a.size() > b.size();
    return a < b;
  });
  std::vector<int> group_of(n, -1);
  std::vector<std::vector<int>> groups;
  for (const auto& c : cliques) {
    if (c.size() < 3) break;
    bool free = true;
    for (const int u : c) free = free && group_of[static_cast<size_t>(u)] < 0;
    if (!free) continue;
    for (const int u : c) group_of[static_cast<size_t>(u)] = static_cast<int>(groups.size());
    groups.push_back(c);
  }
  int covered = 0;
  for (const auto& gr : groups) covered += static_cast<int>(gr.size());
  int64_t intra_pairs = 0, intra_links = 0, inter_links = 0;
  for (const auto& gr : groups) intra_pairs += static_cast<int64_t>(gr.size()) * (static_cast<int64_t>(gr.size()) - 1) / 2;
  for (const int h : hs) {
    for (const int v : hadj[static_cast<size_t>(h)]) {
      if (v < h) continue;
      const int gh = group_of[static_cast<size_t>(h)], gv = group_of[static_cast<size_t>(v)];
      if (gh >= 0 && gh == gv) {
        ++intra_links;
      } else {
        ++inter_links;
      }
    }
  }
  const int64_t all_pairs = static_cast<int64_t>(hs.size()) * (static_cast<int64_t>(hs.size()) - 1) / 2;
  const double intra_density = intra_pairs > 0 ? static_cast<double>(intra_links) / static_cast<double>(intra_pairs) : 0;
  const double inter_density = all_pairs - intra_pairs > 0
                                   ? static_cast<double>(inter_links) / static_cast<double>(all_pairs - intra_pairs)
                                   : 0;
  // Groups connected through global links?
  bool groups_connected = false;
  if (!groups.empty()) {
    std::vector<std::set<int>> gadj(groups.size());
    for (const int h : hs) {
      for (const int v : hadj[static_cast<size_t>(h)]) {
        const int a = group_of[static_cast<size_t>(h)], b = group_of[static_cast<size_t>(v)];
        if (a >= 0 && b >= 0 && a != b) gadj[static_cast<size_t>(a)].insert(b);
      }
    }
    std::vector<bool> seen(groups.size(), false);
    std::deque<int> qq{0};
    seen[0] = true;
    size_t reached = 1;
    while (!qq.empty()) {
      const int u = qq.front();
      qq.pop_front();
      for (const int v : gadj[static_cast<size_t>(u)]) {
        if (!seen[static_cast<size_t>(v)]) {
          seen[static_cast<size_t>(v)] = true;
          ++reached;
          qq.push_back(v);
        }
      }
    }
    groups_connected = reached == groups.size();
  }
  for (const auto& gr : groups) rep.group_sizes.push_back(static_cast<int>(gr.size()));
  std::sort(rep.group_sizes.begin(), rep.group_sizes.end(), std::greater<>());

  // ---- Decide.
  struct Check {
    std::string what;
    bool ok;
    bool required;
  };
  auto fraction = [](const std::vector<Check>& cs_) {
    int ok = 0;
    for (const Check& c : cs_) ok += c.ok ? 1 : 0;
    return cs_.empty() ? 0.0 : static_cast<double>(ok) / static_cast<double>(cs_.size());
  };
  auto required_ok = [](const std::vector<Check>& cs_) {
    for (const Check& c : cs_) {
      if (c.required && !c.ok) return false;
    }
    return true;
  };
  std::vector<Check> ft = {
      {"no link between two host switches (" + std::to_string(rep.hh_links) + ")", rep.hh_links == 0, true},
      {"a host-less switch tier exists (" + std::to_string(cs.size()) + " core switches)", !cs.empty(), true},
      {"layered: every switch link joins adjacent levels", rep.layered, true},
      {"every host switch has an uplink (" + std::to_string(leaves_up) + "/" + std::to_string(hs.size()) + ")",
       leaves_up == static_cast<int>(hs.size()), false},
  };
  if (rep.layered && tier1 > 0) {
    const double full = static_cast<double>(rep.hc_links) / (static_cast<double>(hs.size()) * static_cast<double>(tier1));
    ft.push_back({"host switch--tier-1 links " + std::to_string(rep.hc_links) + " of " +
                      std::to_string(static_cast<int64_t>(hs.size()) * tier1) + " possible (" + F(full, 3) +
                      " of a full bipartite leaf/spine mesh)",
                  true, false});
  }
  std::vector<int> sorted_rings = ring_lengths;
  std::sort(sorted_rings.begin(), sorted_rings.end(), std::greater<>());
  const bool cores_seen = !cs.empty();
  std::vector<Check> hh = {
      {"host switches (racks) have <= 2 rack neighbours, components are rings: rack counts per component " +
           SizeSummary(ring_lengths),
       rings_ok, true},
      {"every rack links a core (" + std::to_string(racks_with_core) + "/" + std::to_string(hs.size()) + ")",
       racks_with_core == static_cast<int>(hs.size()), !from_probes},
      {"the racks of each ring share a core (" + std::to_string(rings_sharing_core) + "/" +
           std::to_string(comps.size()) + " rings)",
       rings_sharing_core == static_cast<int>(comps.size()), !from_probes},
      {"cores form a complete graph (" + std::to_string(rep.cc_links) + "/" + std::to_string(core_pairs) +
           " core pairs linked)",
       rep.cores_complete, false},
  };
  // From probes, links no probe crossed are invisible: the core checks only weigh in the
  // confidence; with no core seen at all they are left out (unobservable), the class kept at a
  // lower confidence.
  if (!cores_seen && from_probes) hh.resize(1);
  std::vector<Check> df = {
      {"no host-less switch tier (" + std::to_string(cs.size()) + " core switches)", cs.empty(), true},
      {"host switches in cliques of >= 3 (groups): " + std::to_string(covered) + "/" + std::to_string(hs.size()) +
           ", group sizes " + SizeSummary(rep.group_sizes),
       covered * 10 >= static_cast<int>(hs.size()) * 9, true},
      {">= 2 groups (" + std::to_string(groups.size()) + ")", groups.size() >= 2, true},
      {"global links sparser than local ones: inter-group density " + F(inter_density, 4) + " vs intra-group " +
           F(intra_density, 3),
       intra_links > 0 && inter_density < intra_density, true},
      {"groups connected through global links", groups_connected, false},
      {"routers have > 2 neighbouring routers (not a ring)", !hh_deg_le2, true},
  };
  auto add_checks = [&](const std::string& cls, const std::vector<Check>& checks) {
    for (const Check& c : checks) {
      rep.evidence.push_back(cls + ": " + (c.ok ? "yes" : "no") + " - " + c.what);
    }
  };
  if (required_ok(ft)) {
    rep.arch_class = "fat-tree";
    rep.confidence = fraction(ft) * source_factor;
    add_checks("fat-tree", ft);
  } else if (required_ok(hh)) {
    rep.arch_class = "hhre";
    rep.confidence = fraction(hh) * source_factor * (cores_seen ? 1.0 : 0.6);
    rep.ring_lengths = sorted_rings;
    add_checks("hhre", hh);
    if (!cores_seen) {
      rep.evidence.push_back(
          "hhre: no core switch seen: the probed traffic never left the ring(s) (in-ring routes use ring "
          "segments only); confidence lowered");
    }
  } else if (required_ok(df)) {
    rep.arch_class = "dragonfly";
    rep.confidence = fraction(df) * source_factor;
    add_checks("dragonfly", df);
  } else {
    rep.arch_class = "unknown";
    rep.confidence = 0;
    add_checks("fat-tree", ft);
    add_checks("hhre", hh);
    add_checks("dragonfly", df);
  }
  if (rep.arch_class != "hhre" && rings_ok) rep.ring_lengths = sorted_rings;
}

// Shortest path (links) between two nodes, -1 when unreachable.
int Bfs(const Graph& g, int a, int b) {
  if (a < 0 || b < 0) return -1;
  if (a == b) return 0;
  std::vector<int> d(g.size(), -1);
  std::deque<int> q{a};
  d[static_cast<size_t>(a)] = 0;
  while (!q.empty()) {
    const int u = q.front();
    q.pop_front();
    for (const int v : g.adj[static_cast<size_t>(u)]) {
      if (d[static_cast<size_t>(v)] >= 0) continue;
      // Endpoints are not transit nodes.
      d[static_cast<size_t>(v)] = d[static_cast<size_t>(u)] + 1;
      if (v == b) return d[static_cast<size_t>(v)];
      if (g.is_switch[static_cast<size_t>(v)]) q.push_back(v);
    }
  }
  return -1;
}

struct PairData {
  std::vector<double> links;
  std::vector<double> rtt_us;
};

}  // namespace

std::vector<std::vector<std::string>> RingHostOrders(const RingReport& rings) {
  std::set<std::vector<std::string>> seen;
  std::vector<std::vector<std::string>> out;
  for (const RingView& r : rings.rings) {
    if (r.source != "nccl_log" || r.hosts.size() < 2) continue;
    if (seen.insert(CanonicalCycle(r.hosts)).second) out.push_back(r.hosts);
  }
  return out;
}

ArchitectureReport IdentifyArchitecture(const ArchitectureInputs& in, const ArchitectureOptions& opt) {
  ArchitectureReport rep;
  const bool have_fabric = in.fabric != nullptr && in.fabric->present && !in.fabric->switches.empty();
  const bool have_probes = in.probes != nullptr && !in.probes->empty();
  bool use_fabric = have_fabric;
  if (opt.graph_source == "probes") use_fabric = false;
  if (opt.graph_source == "fabric" && !have_fabric) {
    rep.evidence.push_back("graph source \"fabric\" asked for but no fabric dump with switches is present");
  }
  Graph g;
  if (use_fabric) {
    BuildFromFabric(*in.fabric, g, &rep.endpoints);
    rep.graph_source = "fabric";
  } else if (have_probes && opt.graph_source != "fabric") {
    BuildFromProbes(*in.probes, g, &rep.endpoints);
    rep.graph_source = "probes";
  }
  if (rep.graph_source == "none") {
    rep.evidence.push_back("no switch graph: neither a fabric dump with switches nor path probes");
  } else {
    Classify(g, rep.graph_source == "probes", rep);
  }

  // ---- Per host pair probe data.
  std::map<std::pair<std::string, std::string>, PairData> pairs;
  std::set<std::string> hosts;
  if (have_probes) {
    for (const formats::PathProbe& p : *in.probes) {
      if (p.src.empty() || p.dst.empty() || p.src == p.dst) continue;
      hosts.insert(p.src);
      hosts.insert(p.dst);
      const std::vector<std::string> path = FullPath(p);
      PairData& d = pairs[std::minmax(p.src, p.dst)];
      d.links.push_back(static_cast<double>(path.size() - 1));
      if (std::isfinite(p.rtt_us)) d.rtt_us.push_back(p.rtt_us);
    }
  }
  if (have_fabric) {
    for (const std::string& h : in.fabric->hosts) hosts.insert(h);
  }
  std::map<std::pair<std::string, std::string>, double> pair_links;  // median link count
  {
    double sum = 0;
    int64_t cnt = 0;
    for (const auto& [k, d] : pairs) {
      const double m = Median(d.links);
      pair_links[k] = m;
      sum += m;
      ++cnt;
    }
    if (cnt > 0) rep.mean_pair_hops = sum / static_cast<double>(cnt);
  }

  // ---- avg_allreduce_hops.
  std::vector<std::vector<std::string>> rings = in.rings;
  if (!rings.empty()) {
    rep.ring_order = in.ring_source.empty() ? "given" : in.ring_source;
  } else if (hosts.size() >= 2) {
    rings.emplace_back(hosts.begin(), hosts.end());
    rep.ring_order = "default_name_order";
  }
  {
    double sum = 0;
    for (const auto& ring : rings) {
      if (ring.size() < 2) continue;
      for (size_t i = 0; i < ring.size(); ++i) {
        const std::string& a = ring[i];
        const std::string& b = ring[(i + 1) % ring.size()];
        if (a == b) continue;
        ++rep.ring_pairs;
        auto it = pair_links.find(std::minmax(a, b));
        if (it != pair_links.end()) {
          ++rep.ring_pairs_probed;
          sum += it->second;
          continue;
        }
        const int d = Bfs(g, g.Find(a), g.Find(b));
        if (d > 0) {
          ++rep.ring_pairs_graph;
          sum += d;
        } else {
          ++rep.ring_pairs_unreachable;
        }
      }
    }
    const int64_t used = rep.ring_pairs_probed + rep.ring_pairs_graph;
    if (used > 0) rep.avg_allreduce_hops = sum / static_cast<double>(used);
  }
  if (rep.ring_order == "none") {
    rep.evidence.push_back("avg_allreduce_hops: no ring (no NCCL ring order and < 2 known hosts)");
  } else {
    rep.evidence.push_back("avg_allreduce_hops " + F(rep.avg_allreduce_hops, 3) + " links over " +
                           std::to_string(rep.ring_pairs) + " ring-consecutive pairs (ring order " + rep.ring_order +
                           ", " + std::to_string(rings.size()) + " ring(s)): " +
                           std::to_string(rep.ring_pairs_probed) + " from probes, " +
                           std::to_string(rep.ring_pairs_graph) + " from the switch graph, " +
                           std::to_string(rep.ring_pairs_unreachable) + " unreachable");
  }

  // ---- jitter_us.
  {
    std::map<int, std::vector<double>> residuals;
    std::map<int, int64_t> class_pairs;
    for (const auto& [k, d] : pairs) {
      if (static_cast<int64_t>(d.rtt_us.size()) < opt.jitter_min_pair_samples) continue;
      ++rep.jitter_pairs;
      const double m = Median(d.rtt_us);
      const int cls = static_cast<int>(std::lround(pair_links[k]));
      ++class_pairs[cls];
      auto& r = residuals[cls];
      for (const double x : d.rtt_us) r.push_back(x - m);
    }
    for (auto& [cls, r] : residuals) {
      if (static_cast<int64_t>(r.size()) < opt.jitter_min_class_samples) continue;
      const double med = Median(r);
      std::vector<double> dev;
      dev.reserve(r.size());
      for (const double x : r) dev.push_back(std::abs(x - med));
      const double mad = std::max(Median(dev), opt.jitter_mad_floor_us);
      const double cut = opt.jitter_mad_k * 1.4826 * mad;
      std::vector<double> kept;
      kept.reserve(r.size());
      for (const double x : r) {
        if (std::abs(x - med) <= cut) kept.push_back(x);
      }
      std::sort(kept.begin(), kept.end());
      JitterClass jc;
      jc.links = cls;
      jc.pairs = class_pairs[cls];
      jc.samples = static_cast<int64_t>(kept.size());
      jc.dropped = static_cast<int64_t>(r.size() - kept.size());
      jc.half_spread_us =
          0.5 * (QuantileSorted(kept, 1.0 - opt.jitter_quantile) - QuantileSorted(kept, opt.jitter_quantile));
      rep.jitter_classes.push_back(jc);
      if (!std::isfinite(rep.jitter_us) || jc.half_spread_us > rep.jitter_us) {
        rep.jitter_us = jc.half_spread_us;
        rep.jitter_links = cls;
      }
    }
    std::string e = "jitter_us ±" + F(rep.jitter_us, 3) + " (worst path class: " + std::to_string(rep.jitter_links) +
                    " links) from " + std::to_string(rep.jitter_pairs) + " host pairs; per class";
    for (const JitterClass& jc : rep.jitter_classes) {
      e += " [" + std::to_string(jc.links) + " links: ±" + F(jc.half_spread_us, 3) + " us, " +
           std::to_string(jc.pairs) + " pairs, " + std::to_string(jc.samples) + " kept, " +
           std::to_string(jc.dropped) + " outliers dropped]";
    }
    if (rep.jitter_classes.empty()) e = "jitter_us: no path class with enough RTT samples";
    rep.evidence.push_back(e);
  }

  // ---- entropy_stability.
  {
    int64_t t0 = 0, t1 = 0;
    bool any = false;
    if (have_probes) {
      for (const formats::PathProbe& p : *in.probes) {
        if (p.ts_ns == kNoTime || p.dst.empty()) continue;
        if (!any) {
          t0 = t1 = p.ts_ns;
          any = true;
        }
        t0 = std::min(t0, p.ts_ns);
        t1 = std::max(t1, p.ts_ns);
      }
    }
    const int w = std::max(1, opt.entropy_windows);
    if (any && t1 > t0) {
      std::vector<std::vector<std::vector<std::string>>> windows(static_cast<size_t>(w));
      const double span = static_cast<double>(t1 - t0);
      for (const formats::PathProbe& p : *in.probes) {
        if (p.ts_ns == kNoTime || p.dst.empty()) continue;
        const double f = static_cast<double>(p.ts_ns - t0) / span;
        const int k = std::min(w - 1, static_cast<int>(f * w));
        windows[static_cast<size_t>(k)].push_back(FullPath(p));
      }
      for (const auto& win : windows) {
        if (static_cast<int64_t>(win.size()) < opt.min_window_probes) continue;
        rep.window_entropy_bits.push_back(SeedNodeEntropyBits(win));
      }
    }
    rep.entropy_windows = static_cast<int>(rep.window_entropy_bits.size());
    if (rep.entropy_windows >= 1) {
      double s = 0;
      for (const double h : rep.window_entropy_bits) s += h;
      rep.entropy_mean_bits = s / rep.entropy_windows;
    }
    if (rep.entropy_windows >= 2) {
      double v = 0;
      for (const double h : rep.window_entropy_bits) v += (h - rep.entropy_mean_bits) * (h - rep.entropy_mean_bits);
      const double sd = std::sqrt(v / rep.entropy_windows);
      rep.entropy_stability = rep.entropy_mean_bits > 0 ? sd / rep.entropy_mean_bits : 0.0;
    }
    std::string e = "entropy_stability " + F(rep.entropy_stability, 4) + " (std/mean of the seed's topology entropy over " +
                    std::to_string(rep.entropy_windows) + " of " + std::to_string(w) +
                    " time windows; mean " + F(rep.entropy_mean_bits, 3) + " bits)";
    rep.evidence.push_back(e);
  }
  return rep;
}

}  // namespace toposcope::analysis
