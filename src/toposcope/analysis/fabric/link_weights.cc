// analysis/fabric/link_weights: cable latencies from path probes by tomography, and OpenSM hop weights
// (see link_weights.h).
#include "toposcope/analysis/fabric/link_weights.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "toposcope/base/text.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

// The probe's node list src, hops..., dst; empty when it cannot be used. Without hops, the level
// route through the endpoints' leaves (`leaf_of`), when both are known.
std::vector<std::string> NodeList(const formats::PathProbe& p, const std::map<std::string, std::string>& leaf_of,
                                  bool* by_level) {
  std::vector<std::string> nodes;
  *by_level = false;
  if (p.src.empty() || p.dst.empty() || p.src == p.dst) return nodes;
  if (p.hops.empty()) {
    auto a = leaf_of.find(p.src), b = leaf_of.find(p.dst);
    if (a == leaf_of.end() || b == leaf_of.end()) return nodes;
    *by_level = true;
    if (a->second == b->second) return {p.src, a->second, p.dst};
    return {p.src, a->second, kSpineLevel, b->second, p.dst};
  }
  nodes.push_back(p.src);
  for (size_t i = 0; i < p.hops.size(); ++i) {
    const std::string& h = p.hops[i];
    if (h == formats::kUnknownHop || h.empty()) return {};
    if (i == 0 && h == p.src) continue;
    if (i + 1 == p.hops.size() && h == p.dst) continue;
    nodes.push_back(h);
  }
  nodes.push_back(p.dst);
  std::set<std::string> seen(nodes.begin(), nodes.end());
  if (seen.size() != nodes.size()) return {};  // a loop: not a route
  return nodes;
}

// The route's RTT from its probes' RTTs, sorted ascending.
double Statistic(const std::vector<double>& sorted, RttStatistic which) {
  if (which == RttStatistic::kEndpoint && sorted.size() >= 2) {
    // Robson–Whitlock: the floor below the smallest sample, estimated from the first spacing.
    return std::max(0.0, 2 * sorted[0] - sorted[1]);
  }
  if (which == RttStatistic::kMedian) return stats::Median(sorted);
  return sorted.front();
}

// Switch-port ends of the fabric by node name.
struct PortIndex {
  std::map<std::string, const FabricSwitch*> switch_by_name;  // unambiguous descriptions only
  std::set<std::string> ambiguous;
  std::map<std::string, std::set<std::string>> ca_ids_by_name;  // host / host-device -> CA ids
};

PortIndex IndexFabric(const FabricReport& fabric) {
  PortIndex ix;
  for (const auto& s : fabric.switches) {
    if (s.desc.empty()) continue;
    if (ix.switch_by_name.count(s.desc) > 0) ix.ambiguous.insert(s.desc);
    ix.switch_by_name[s.desc] = &s;
  }
  for (const auto& name : ix.ambiguous) ix.switch_by_name.erase(name);
  for (const auto& c : fabric.cas) {
    if (c.host.empty()) continue;
    ix.ca_ids_by_name[c.host].insert(c.id);
    ix.ca_ids_by_name[c.host + "-" + c.device].insert(c.id);
  }
  return ix;
}

// The switch ports of `sw` whose peer is the node named `other` (kSpineLevel: every port to a
// switch, the leaf's uplinks).
std::vector<int> PortsTo(const PortIndex& ix, const FabricSwitch& sw, const std::string& other) {
  std::vector<int> ports;
  auto s = ix.switch_by_name.find(other);
  auto c = ix.ca_ids_by_name.find(other);
  for (const auto& p : sw.ports) {
    if (other == kSpineLevel) {
      if (!p.peer.empty() && p.peer[0] == 'S') ports.push_back(p.port);
      continue;
    }
    const bool to_switch = s != ix.switch_by_name.end() && p.peer == s->second->id;
    const bool to_ca = c != ix.ca_ids_by_name.end() && c->second.count(p.peer) > 0;
    if (to_switch || to_ca) ports.push_back(p.port);
  }
  return ports;
}

// Queueing routes: the route spreads (median - min RTT) of the routes with one split in two by
// Otsu's criterion on their logarithms (the split of largest between-class variance), kept when the
// upper class's median spread is at least kQueueJump times the lower's: a congested switch queues
// its routes by microseconds where idle routes spread by tens of nanoseconds. Those routes'
// minimum is an upper bound of their idle RTT. None when fewer than 4 routes have a spread.
constexpr double kQueueJump = 10.0;

std::vector<char> QueueingRoutes(const std::vector<double>& route_spread) {
  std::vector<double> lg;
  for (double v : route_spread) {
    if (std::isfinite(v)) lg.push_back(std::log(std::max(v, 1e-3)));
  }
  std::vector<char> queueing(route_spread.size(), 0);
  const size_t n = lg.size();
  if (n < 4) return queueing;
  std::sort(lg.begin(), lg.end());
  std::vector<double> prefix(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + lg[i];
  double best = -1;
  size_t cut = 0;  // the upper class starts at lg[cut]
  for (size_t i = 1; i < n; ++i) {
    if (!(lg[i] > lg[i - 1])) continue;
    const double w0 = static_cast<double>(i), w1 = static_cast<double>(n - i);
    const double m0 = prefix[i] / w0, m1 = (prefix[n] - prefix[i]) / w1;
    const double between = w0 * w1 * (m1 - m0) * (m1 - m0);
    if (between > best) {
      best = between;
      cut = i;
    }
  }
  if (cut == 0) return queueing;
  const double lower = lg[(cut - 1) / 2], upper = lg[cut + (n - cut - 1) / 2];
  if (upper - lower < std::log(kQueueJump)) return queueing;
  const double limit = std::exp(lg[cut]);
  for (size_t i = 0; i < route_spread.size(); ++i) {
    queueing[i] = std::isfinite(route_spread[i]) && std::max(route_spread[i], 1e-3) >= limit * (1 - 1e-12) ? 1 : 0;
  }
  return queueing;
}

// The identifiable links' weights, normalised linearly over their latencies to [min_weight,
// max_weight] as SolveTomography does for one solve.
void RenormaliseWeights(const TomographyOptions& opt, std::vector<LinkWeight>& links) {
  double lo = INFINITY, hi = -INFINITY;
  for (const LinkWeight& l : links) {
    if (!l.identifiable) continue;
    lo = std::min(lo, l.latency_us);
    hi = std::max(hi, l.latency_us);
  }
  for (LinkWeight& l : links) {
    if (!l.identifiable) continue;
    l.weight = hi > lo ? opt.min_weight + (l.latency_us - lo) / (hi - lo) * (opt.max_weight - opt.min_weight)
                       : opt.min_weight;
  }
}

// Tomography in two stages: first the routes that do not queue; then the queueing routes, less the
// cables the first stage identified, for the cables only they cross (or the first left
// unidentified). A congested switch's queueing then inflates its own cables (flagged by their
// queue spread) instead of spreading over the whole fabric through the least squares. One solve
// when no route queues or no route is clean. Counts the queueing routes in `routes_queueing`.
TomographyResult SolveInStages(const std::vector<TomographyPath>& paths, const std::vector<double>& route_spread,
                               const TomographyOptions& opt, int64_t& routes_queueing) {
  const std::vector<char> queueing = QueueingRoutes(route_spread);
  std::vector<TomographyPath> clean, rest;
  for (size_t i = 0; i < paths.size(); ++i) (queueing[i] ? rest : clean).push_back(paths[i]);
  routes_queueing = static_cast<int64_t>(rest.size());
  if (rest.empty() || clean.empty() || opt.host_terms || !opt.extra_links.empty()) {
    return SolveTomography(paths, opt);
  }
  TomographyResult first = SolveTomography(clean, opt);
  std::map<std::string, double> known;
  for (const LinkWeight& l : first.links) {
    if (l.identifiable) known[l.link] = l.latency_us;
  }
  std::vector<TomographyPath> reduced;
  for (TomographyPath p : rest) {
    std::vector<std::string> unknown;
    for (const std::string& id : p.links) {
      auto it = known.find(id);
      if (it != known.end()) {
        p.rtt_us -= it->second;
      } else {
        unknown.push_back(id);
      }
    }
    if (unknown.empty()) continue;
    p.links = std::move(unknown);
    p.rtt_us = std::max(0.0, p.rtt_us);
    reduced.push_back(std::move(p));
  }
  TomographyResult second = SolveTomography(reduced, opt);
  std::map<std::string, LinkWeight> merged;
  for (const LinkWeight& l : second.links) merged[l.link] = l;
  for (const LinkWeight& l : first.links) {
    auto it = merged.find(l.link);
    if (l.identifiable || it == merged.end()) merged[l.link] = l;
  }
  TomographyResult out = first;
  out.links.clear();
  for (auto& [id, l] : merged) out.links.push_back(std::move(l));
  RenormaliseWeights(opt, out.links);
  out.iterations += second.iterations;
  out.paths += second.paths;
  out.dropped_paths += second.dropped_paths + static_cast<int64_t>(rest.size() - reduced.size());
  out.link_count = static_cast<int64_t>(out.links.size());
  out.rank_deficiency = 0;
  for (const LinkWeight& l : out.links) out.rank_deficiency += l.identifiable ? 0 : 1;
  out.method += "; " + std::to_string(rest.size()) + " queueing routes solved second";
  return out;
}

// One tomography path's probes: its node list (endpoints first and last) and its RTTs.
struct RouteProbes {
  const std::vector<std::string>* nodes;
  const std::vector<double>* rtts;
};

// Routes between different endpoints that follow the same switches share that switch path's floor.
// A route's minimum over its own few probes sits above the floor by the least queueing its probes
// met, which grows with the switches crossed and shrinks with the probes taken; so each probe, less
// its route's two endpoint cables as `solved` has them, is pooled with the probes of every route on
// the same switch path (either direction), and a route's RTT becomes the pool's minimum plus its
// endpoint cables, when that is lower than its own minimum. Routes whose endpoint cables are not
// identifiable keep their own minimum. Returns how many routes got a lower RTT.
int64_t PoolSwitchPaths(const std::vector<RouteProbes>& routes, const TomographyResult& solved,
                        std::vector<TomographyPath>& paths) {
  std::map<std::string, double> known;
  for (const LinkWeight& l : solved.links) {
    if (l.identifiable && std::isfinite(l.latency_us)) known[l.link] = l.latency_us;
  }
  std::vector<double> ends(routes.size(), NAN);  // per route: its endpoint cables, out and back
  std::vector<std::vector<std::string>> keys(routes.size());
  std::map<std::vector<std::string>, double> pool_min;
  for (size_t i = 0; i < routes.size(); ++i) {
    const std::vector<std::string>& nodes = *routes[i].nodes;
    if (nodes.size() < 4) continue;  // one switch or none: its own probes are the whole pool
    auto a = known.find(CableId(nodes[0], nodes[1]));
    auto b = known.find(CableId(nodes[nodes.size() - 2], nodes.back()));
    if (a == known.end() || b == known.end()) continue;
    ends[i] = 2 * (a->second + b->second);
    std::vector<std::string> key(nodes.begin() + 1, nodes.end() - 1);
    std::vector<std::string> back(key.rbegin(), key.rend());
    keys[i] = std::min(key, back);
    const double least = *std::min_element(routes[i].rtts->begin(), routes[i].rtts->end()) - ends[i];
    auto [it, fresh] = pool_min.emplace(keys[i], least);
    if (!fresh) it->second = std::min(it->second, least);
  }
  int64_t lowered = 0;
  for (size_t i = 0; i < routes.size(); ++i) {
    if (!std::isfinite(ends[i])) continue;
    const double pooled = std::max(0.0, pool_min.at(keys[i]) + ends[i]);
    if (pooled < paths[i].rtt_us) {
      paths[i].rtt_us = pooled;
      ++lowered;
    }
  }
  return lowered;
}

constexpr NamedValue<RttStatistic> kRttStatisticNames[] = {
    {RttStatistic::kMin, "min"}, {RttStatistic::kEndpoint, "endpoint"}, {RttStatistic::kMedian, "median"}};

constexpr NamedValue<LevelSource> kLevelSourceNames[] = {
    {LevelSource::kNone, ""}, {LevelSource::kIbnetdiscover, "ibnetdiscover"},
    {LevelSource::kIblinkinfo, "iblinkinfo"}, {LevelSource::kIbnetdiscoverIblinkinfo, "ibnetdiscover+iblinkinfo"},
    {LevelSource::kInferred, "inferred"}};

}  // namespace

std::string_view RttStatisticName(RttStatistic s) { return NameIn(kRttStatisticNames, s, "min"); }

std::optional<RttStatistic> ParseRttStatistic(std::string_view name) {
  return ValueIn(kRttStatisticNames, name);
}

std::string_view LevelSourceName(LevelSource s) { return NameIn(kLevelSourceNames, s, ""); }

std::string CableId(const std::string& a, const std::string& b) {
  return a < b ? a + "--" + b : b + "--" + a;
}

LinkWeightReport AnalyzeLinkWeights(const std::vector<formats::PathProbe>& probes,
                                    const FabricReport& fabric, const LinkWeightOptions& opt,
                                    const LeafInference* inferred) {
  LinkWeightReport r;
  if (probes.empty()) return r;
  r.present = true;
  // Leaves of the endpoints, for probes without hop lists.
  std::map<std::string, std::string> leaf_of;
  if (std::any_of(probes.begin(), probes.end(), [](const formats::PathProbe& p) { return p.hops.empty(); })) {
    if (fabric.present) {
      for (const auto& l : fabric.leaves) {
        for (const auto& h : l.hosts) leaf_of.emplace(h, l.desc.empty() ? l.switch_id : l.desc);
      }
      // Endpoints named "<host>-<device>" (one per adapter).
      for (const auto& c : fabric.cas) {
        if (c.host.empty()) continue;
        for (const auto& sw : fabric.switches) {
          if (sw.level != SwitchLevel::kLeaf) continue;
          for (const auto& port : sw.ports) {
            if (port.peer == c.id) leaf_of.emplace(c.host + "-" + c.device, sw.desc.empty() ? sw.id : sw.desc);
          }
        }
      }
      if (!leaf_of.empty()) {
        // Named by the tools the fabric graph came from.
        r.level_source = fabric.source_tools == "iblinkinfo" ? LevelSource::kIblinkinfo
                         : fabric.source_tools == "ibnetdiscover+iblinkinfo" ? LevelSource::kIbnetdiscoverIblinkinfo
                                                                             : LevelSource::kIbnetdiscover;
      }
    }
    if (leaf_of.empty() && inferred != nullptr) {
      for (const auto& l : inferred->leaves) {
        for (const auto& h : l.hosts) leaf_of.emplace(h, l.name);
      }
      if (!leaf_of.empty()) r.level_source = LevelSource::kInferred;
    }
  }
  r.rtt_statistic = opt.rtt_statistic;
  // Route groups: endpoints sorted, node list oriented from the lower endpoint.
  std::map<std::vector<std::string>, std::vector<double>> routes;
  for (const auto& p : probes) {
    ++r.probes;
    bool by_level = false;
    std::vector<std::string> nodes = NodeList(p, leaf_of, &by_level);
    if (nodes.empty() || !std::isfinite(p.rtt_us) || p.rtt_us < 0) {
      ++r.probes_unusable;
      continue;
    }
    r.probes_by_level += by_level ? 1 : 0;
    if (nodes.back() < nodes.front()) std::reverse(nodes.begin(), nodes.end());
    routes[nodes].push_back(p.rtt_us);
  }
  std::vector<TomographyPath> paths;
  std::vector<RouteProbes> route_probes;               // per path: its node list and RTTs
  std::vector<double> route_spread;                    // per path: median - min RTT (NaN: one probe)
  std::map<std::string, std::vector<double>> spreads;  // cable -> spreads of the routes crossing it
  for (auto& [nodes, rtts] : routes) {
    if (static_cast<int>(rtts.size()) < std::max(1, opt.min_probes_per_route)) {
      r.probes_unusable += static_cast<int64_t>(rtts.size());
      continue;
    }
    r.probes_used += static_cast<int64_t>(rtts.size());
    route_probes.push_back({&nodes, &rtts});
    TomographyPath path;
    path.src = nodes.front();
    path.dst = nodes.back();
    for (size_t i = 0; i + 1 < nodes.size(); ++i) {
      const std::string id = CableId(nodes[i], nodes[i + 1]);
      path.links.push_back(id);  // out
      path.links.push_back(id);  // and back
    }
    std::sort(rtts.begin(), rtts.end());
    path.rtt_us = Statistic(rtts, r.rtt_statistic);
    route_spread.push_back(NAN);
    if (rtts.size() >= 2) {
      const double spread = stats::Median(rtts) - rtts.front();
      route_spread.back() = spread;
      for (size_t i = 0; i + 1 < nodes.size(); ++i) spreads[CableId(nodes[i], nodes[i + 1])].push_back(spread);
    }
    paths.push_back(std::move(path));
  }
  r.routes = static_cast<int64_t>(paths.size());
  r.tomography = SolveInStages(paths, route_spread, opt.tomography, r.routes_queueing);
  if (r.rtt_statistic == RttStatistic::kMin && opt.pool_switch_paths) {
    r.routes_pooled = PoolSwitchPaths(route_probes, r.tomography, paths);
    if (r.routes_pooled > 0) {
      const int first_iterations = r.tomography.iterations;
      r.tomography = SolveInStages(paths, route_spread, opt.tomography, r.routes_queueing);
      r.tomography.iterations += first_iterations;
      r.tomography.method += "; switch paths pooled";
    }
  }
  for (const auto& l : r.tomography.links) {
    auto it = spreads.find(l.link);
    const double spread = it != spreads.end() ? stats::Median(it->second) : NAN;
    r.queue_spread_us.push_back(spread);
    if (l.identifiable && std::isfinite(spread) && spread > l.latency_us) ++r.links_queueing;
  }

  // OpenSM hop weights for the cables the fabric names.
  const PortIndex ix = IndexFabric(fabric);
  std::map<std::pair<std::string, int>, int> entries;
  for (const auto& l : r.tomography.links) {
    const size_t cut = l.link.find("--");
    bool mapped = false;
    if (fabric.present && cut != std::string::npos) {
      const std::string a = l.link.substr(0, cut), b = l.link.substr(cut + 2);
      const int w = HopWeightFromTomography(l.weight, opt.tomography.min_weight,
                                            opt.unidentified_hop_weight);
      for (const auto& [end, other] : {std::pair{a, b}, std::pair{b, a}}) {
        auto s = ix.switch_by_name.find(end);
        if (s == ix.switch_by_name.end() || s->second->port_guid.empty()) continue;
        for (int port : PortsTo(ix, *s->second, other)) {
          entries[{"0x" + s->second->port_guid, port}] = w;
          mapped = true;
        }
      }
    }
    ++(mapped ? r.cables_mapped : r.cables_unmapped);
  }
  for (const auto& [key, w] : entries) r.hop_weights.push_back({key.first, key.second, w});
  return r;
}

}  // namespace toposcope::analysis
