#include "toposcope/act/ring_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/analysis/fabric/link_weights.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/fabric/path_probe.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::act {
namespace {

constexpr double kLatencyTieBreak = 1e-3;  // cost per µs of one-way latency (links dominate)

std::string F(double v, int d) { return std::isfinite(v) ? FormatFixed(v, d) : std::string("n/a"); }

// What the probes say about one unordered host pair.
struct PairProbes {
  std::set<std::string> cables;  // every cable of every hop list probed between the two
  double min_rtt_us = NAN;
  bool routed = false;           // some probe of the pair had a full hop list
};

// Everything the planner measures an order with, indexed by host (the default order first).
struct Context {
  std::vector<std::string> hosts;
  std::map<std::string, size_t> index;
  std::vector<double> links;                       // n x n, HostPairLinks
  std::map<std::pair<size_t, size_t>, PairProbes> pairs;  // (i < j)
  std::map<std::string, double> cable_rate_gbps;   // fabric cables by name
  std::map<std::string, double> host_rate_gbps;    // per host: the lowest rate of its own cables
  std::map<std::string, AvoidedCable> avoided;
  std::map<std::string, std::string> leaf_of;
  std::string leaf_source = "none";
  std::vector<double> cost;                        // n x n edge costs
  size_t n() const { return hosts.size(); }
};

// Every host the inputs know: fabric hosts, probe endpoints, inferred-leaf hosts.
std::set<std::string> KnownHosts(const RingPlanInputs& in) {
  std::set<std::string> hosts;
  if (in.fabric != nullptr && in.fabric->present) hosts.insert(in.fabric->hosts.begin(), in.fabric->hosts.end());
  if (in.probes != nullptr) {
    for (const formats::PathProbe& p : *in.probes) {
      if (p.src.empty() || p.dst.empty() || p.src == p.dst) continue;
      hosts.insert(p.src);
      hosts.insert(p.dst);
    }
  }
  if (in.inferred_leaves != nullptr) hosts.insert(in.inferred_leaves->hosts.begin(), in.inferred_leaves->hosts.end());
  return hosts;
}

// The fabric node's name as probes and CableId name it: a switch's description (else its id), a
// host adapter's host; empty for service adapters.
std::map<std::string, std::string> FabricNames(const analysis::FabricReport& f) {
  std::map<std::string, std::string> name;
  for (const analysis::FabricSwitch& s : f.switches) name[s.id] = s.desc.empty() ? s.id : s.desc;
  for (const analysis::FabricCa& c : f.cas) name[c.id] = c.name;
  return name;
}

void AddPairProbes(const RingPlanInputs& in, Context& c) {
  if (in.probes == nullptr) return;
  for (const formats::PathProbe& p : *in.probes) {
    auto ia = c.index.find(p.src), ib = c.index.find(p.dst);
    if (ia == c.index.end() || ib == c.index.end() || ia->second == ib->second) continue;
    PairProbes& pp = c.pairs[std::minmax(ia->second, ib->second)];
    if (std::isfinite(p.rtt_us) && p.rtt_us >= 0 && !(pp.min_rtt_us <= p.rtt_us)) pp.min_rtt_us = p.rtt_us;
    if (p.hops.empty()) continue;
    const std::vector<std::string> nodes = formats::ProbeNodes(p);
    bool whole = true;
    for (const std::string& node : nodes) whole = whole && node != formats::kUnknownHop;
    for (size_t k = 0; k + 1 < nodes.size(); ++k) {
      if (nodes[k] == formats::kUnknownHop || nodes[k + 1] == formats::kUnknownHop) continue;
      pp.cables.insert(analysis::CableId(nodes[k], nodes[k + 1]));
    }
    pp.routed = pp.routed || whole;
  }
}

// Degraded cables from the fabric dump: inter-switch cables below the modal inter-switch rate, and
// cables whose ends print different widths or speeds. Also fills the cable rates.
void FindDegradedCables(const analysis::FabricReport& f, Context& c) {
  const std::map<std::string, std::string> name = FabricNames(f);
  std::set<std::string> switches;
  for (const analysis::FabricSwitch& s : f.switches) switches.insert(s.id);
  std::map<double, int64_t> rate_count;
  for (const analysis::FabricLink& l : f.links) {
    auto a = name.find(l.a), b = name.find(l.b);
    if (a == name.end() || b == name.end() || a->second.empty() || b->second.empty()) continue;
    const std::string id = analysis::CableId(a->second, b->second);
    auto [it, fresh] = c.cable_rate_gbps.emplace(id, l.rate_gbps);
    if (!fresh) it->second = std::min(it->second, l.rate_gbps);
    if (switches.count(l.a) > 0 && switches.count(l.b) > 0 && l.rate_gbps > 0) ++rate_count[l.rate_gbps];
    for (const std::string& end : {a->second, b->second}) {
      if (c.index.count(end) == 0 || !(l.rate_gbps > 0)) continue;
      auto [h, first] = c.host_rate_gbps.emplace(end, l.rate_gbps);
      if (!first) h->second = std::min(h->second, l.rate_gbps);
    }
  }
  double modal = 0;
  int64_t modal_n = 0, total = 0;
  for (const auto& [rate, cnt] : rate_count) {
    total += cnt;
    if (cnt >= modal_n) {
      modal = rate;
      modal_n = cnt;
    }
  }
  for (const analysis::FabricLink& l : f.links) {
    if (switches.count(l.a) == 0 || switches.count(l.b) == 0 || !(l.rate_gbps < modal)) continue;
    const std::string id = analysis::CableId(name.at(l.a), name.at(l.b));
    AvoidedCable& a = c.avoided[id];
    a.cable = id;
    a.kind = "degraded";
    a.rate_gbps = l.rate_gbps;
    a.reason = "trained at " + F(l.rate_gbps, 0) + " Gb/s where " + std::to_string(modal_n) + " of " +
               std::to_string(total) + " inter-switch cables run at " + F(modal, 0) + " Gb/s (fabric dump)";
  }
  for (const analysis::FabricLinkMismatch& m : f.mismatches) {
    // A host's own cable carries every edge of that host whatever the order: not one to avoid.
    if (switches.count(m.a.node) == 0 || switches.count(m.b.node) == 0) continue;
    auto a = name.find(m.a.node), b = name.find(m.b.node);
    if (a == name.end() || b == name.end() || a->second.empty() || b->second.empty()) continue;
    const std::string id = analysis::CableId(a->second, b->second);
    AvoidedCable& av = c.avoided[id];
    const std::string what = "its ends print " + m.a.width + m.a.speed + " and " + m.b.width + m.b.speed;
    av.reason = av.reason.empty() ? what + " (fabric dump)" : av.reason + "; " + what;
    av.cable = id;
    av.kind = "degraded";
  }
}

// Slow cables from tomography: identifiable inter-switch cables far above the others' median.
void FindSlowCables(const analysis::LinkWeightReport& w, const RingPlanOptions& opt, Context& c) {
  std::vector<const analysis::LinkWeight*> cand;
  std::vector<double> lat;
  for (const analysis::LinkWeight& l : w.tomography.links) {
    if (!l.identifiable || !std::isfinite(l.latency_us)) continue;
    const size_t at = l.link.find("--");
    if (at == std::string::npos) continue;
    const std::string a = l.link.substr(0, at), b = l.link.substr(at + 2);
    if (c.index.count(a) > 0 || c.index.count(b) > 0) continue;  // a host's own cable: no order avoids it
    if (a == analysis::kSpineLevel || b == analysis::kSpineLevel) continue;
    cand.push_back(&l);
    lat.push_back(l.latency_us);
  }
  if (cand.size() < 3) return;
  const double med = stats::Median(lat);
  std::vector<double> dev;
  for (const double v : lat) dev.push_back(std::fabs(v - med));
  const double mad = std::max(stats::Median(dev), opt.slow_cable_floor_us);
  const double cut = med + opt.slow_cable_mad_k * stats::kMadToSigma * mad;
  for (const analysis::LinkWeight* l : cand) {
    if (!(l->latency_us > cut)) continue;
    AvoidedCable& a = c.avoided[l->link];
    const std::string what = "tomography latency " + F(l->latency_us, 3) + " us per crossing, above " + F(cut, 3) +
                             " us (median " + F(med, 3) + " us of " + std::to_string(cand.size()) +
                             " inter-switch cables + " + F(opt.slow_cable_mad_k, 0) + " x 1.4826 x MAD)";
    a.latency_us = l->latency_us;
    a.cable = l->link;
    if (a.kind.empty()) a.kind = "slow";
    a.reason = a.reason.empty() ? what : a.reason + "; " + what;
  }
}

// log P(X >= z) for X ~ Poisson(mean): 0 (P ~ 1) when z is not above the mean, -inf for mean 0.
double LogPoissonTail(double mean, int64_t z) {
  if (mean <= 0) return -std::numeric_limits<double>::infinity();
  if (static_cast<double>(z) <= mean) return 0;
  // P(X >= z) = P(X = z) x sum_j prod_{k=z+1}^{z+j} mean / k; the terms fall fast above the mean.
  const double log_pz = -mean + static_cast<double>(z) * std::log(mean) - std::lgamma(static_cast<double>(z) + 1);
  double sum = 0, term = 1;
  for (int64_t k = z + 1; k < z + 10000 && term > 1e-17 * sum; ++k) {
    sum += term;
    term *= mean / static_cast<double>(k);
  }
  return log_pz + std::log(sum);
}

// Flapping cables: inter-switch cables whose routes fall silent in time more often than chance.
void FindFlappingCables(const RingPlanInputs& in, const RingPlanOptions& opt, Context& c) {
  if (in.probes == nullptr || opt.flap_windows < 2) return;
  int64_t t0 = std::numeric_limits<int64_t>::max(), t1 = std::numeric_limits<int64_t>::min();
  for (const formats::PathProbe& p : *in.probes) {
    if (p.ts_ns == kNoTime || p.hops.empty()) continue;
    t0 = std::min(t0, p.ts_ns);
    t1 = std::max(t1, p.ts_ns);
  }
  if (t0 >= t1) return;
  const size_t w_count = static_cast<size_t>(opt.flap_windows);
  auto window_of = [&](int64_t ts) {
    const double f = static_cast<double>(ts - t0) / static_cast<double>(t1 - t0);
    return std::min(w_count - 1, static_cast<size_t>(f * static_cast<double>(w_count)));
  };
  std::map<std::pair<size_t, size_t>, std::vector<int64_t>> pair_windows;  // probes per window
  std::map<std::string, std::map<std::pair<size_t, size_t>, std::vector<int64_t>>> crossings;  // cable -> pair -> per window
  for (const formats::PathProbe& p : *in.probes) {
    if (p.ts_ns == kNoTime || p.hops.empty()) continue;
    auto ia = c.index.find(p.src), ib = c.index.find(p.dst);
    if (ia == c.index.end() || ib == c.index.end() || ia->second == ib->second) continue;
    const auto key = std::minmax(ia->second, ib->second);
    const size_t w = window_of(p.ts_ns);
    std::vector<int64_t>& pw = pair_windows[key];
    if (pw.empty()) pw.assign(w_count, 0);
    ++pw[w];
    const std::vector<std::string> nodes = formats::ProbeNodes(p);
    for (size_t k = 0; k + 1 < nodes.size(); ++k) {
      const std::string& a = nodes[k];
      const std::string& b = nodes[k + 1];
      if (a == formats::kUnknownHop || b == formats::kUnknownHop || c.index.count(a) > 0 || c.index.count(b) > 0) continue;
      std::vector<int64_t>& cw = crossings[analysis::CableId(a, b)][key];
      if (cw.empty()) cw.assign(w_count, 0);
      ++cw[w];
    }
  }
  const double log_cut = std::log(opt.flap_alpha / static_cast<double>(std::max<size_t>(1, crossings.size())));
  for (const auto& [cable, users] : crossings) {
    std::vector<double> n_w(w_count, 0), x_w(w_count, 0);
    for (const auto& [pair, cw] : users) {
      const std::vector<int64_t>& pw = pair_windows[pair];
      for (size_t w = 0; w < w_count; ++w) {
        n_w[w] += static_cast<double>(pw[w]);
        x_w[w] += static_cast<double>(cw[w]);
      }
    }
    double n = 0, x = 0;
    for (size_t w = 0; w < w_count; ++w) {
      n += n_w[w];
      x += x_w[w];
    }
    const double share = x / n;
    double expected_silent = 0;
    int64_t silent = 0;
    for (size_t w = 0; w < w_count; ++w) {
      if (n_w[w] <= 0) continue;
      expected_silent += std::exp(-share * n_w[w]);
      silent += x_w[w] == 0 ? 1 : 0;
    }
    if (silent < 2 || LogPoissonTail(expected_silent, silent) >= log_cut) continue;
    AvoidedCable& a = c.avoided[cable];
    const std::string what = "its routes fell silent in " + std::to_string(silent) + " of " + std::to_string(w_count) +
                             " time windows where " + F(expected_silent, 3) + " were expected (probes: down in time)";
    a.cable = cable;
    if (a.kind.empty()) a.kind = "flapping";
    a.reason = a.reason.empty() ? what : a.reason + "; " + what;
  }
}

void PlaceLeaves(const RingPlanInputs& in, Context& c) {
  if (in.fabric != nullptr && in.fabric->present && !in.fabric->leaves.empty()) {
    for (const analysis::FabricLeaf& l : in.fabric->leaves) {
      for (const std::string& h : l.hosts) c.leaf_of.emplace(h, l.desc.empty() ? l.switch_id : l.desc);
    }
    c.leaf_source = "ibnetdiscover";
    return;
  }
  if (in.inferred_leaves != nullptr && !in.inferred_leaves->leaves.empty()) {
    for (const analysis::InferredLeaf& l : in.inferred_leaves->leaves) {
      for (const std::string& h : l.hosts) c.leaf_of.emplace(h, l.name);
    }
    c.leaf_source = "inferred";
  }
}

// The edge between hosts i and j, measured.
RingEdge MakeEdge(const Context& c, size_t i, size_t j) {
  RingEdge e;
  e.a = c.hosts[i];
  e.b = c.hosts[j];
  e.links = c.links[i * c.n() + j];
  auto la = c.leaf_of.find(e.a), lb = c.leaf_of.find(e.b);
  e.inter_leaf = la != c.leaf_of.end() && lb != c.leaf_of.end() && la->second != lb->second;
  auto p = c.pairs.find(std::minmax(i, j));
  if (p == c.pairs.end() || p->second.cables.empty()) {
    // No probed route: the lower of the two hosts' own cable rates (the fabric dump), if known.
    for (const std::string& h : {e.a, e.b}) {
      auto r = c.host_rate_gbps.find(h);
      if (r != c.host_rate_gbps.end() && !(e.bandwidth_gbps <= r->second)) e.bandwidth_gbps = r->second;
    }
  }
  if (p == c.pairs.end()) return e;
  e.latency_us = p->second.min_rtt_us / 2;
  e.cables.assign(p->second.cables.begin(), p->second.cables.end());
  for (const std::string& cable : p->second.cables) {
    if (c.avoided.count(cable) > 0) e.avoided.push_back(cable);
    auto r = c.cable_rate_gbps.find(cable);
    if (r != c.cable_rate_gbps.end() && r->second > 0 && !(e.bandwidth_gbps <= r->second)) e.bandwidth_gbps = r->second;
  }
  return e;
}

void FillCosts(const RingPlanOptions& opt, Context& c) {
  const size_t n = c.n();
  c.cost.assign(n * n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const RingEdge e = MakeEdge(c, i, j);
      double cost = std::isfinite(e.links) ? e.links : opt.unreachable_links;
      if (!e.avoided.empty()) cost += opt.avoid_weight_links;
      if (std::isfinite(e.latency_us)) cost += kLatencyTieBreak * e.latency_us;
      c.cost[i * n + j] = c.cost[j * n + i] = cost;
    }
  }
}

Context BuildContext(const RingPlanInputs& in, const std::vector<std::string>& hosts, const RingPlanOptions& opt) {
  Context c;
  c.hosts = hosts;
  for (size_t i = 0; i < hosts.size(); ++i) c.index.emplace(hosts[i], i);
  analysis::ArchitectureInputs ai;
  ai.fabric = in.fabric;
  ai.probes = in.probes;
  c.links = analysis::HostPairLinks(ai, hosts);
  AddPairProbes(in, c);
  if (in.fabric != nullptr && in.fabric->present) FindDegradedCables(*in.fabric, c);
  if (in.link_weights != nullptr && in.link_weights->present) FindSlowCables(*in.link_weights, opt, c);
  FindFlappingCables(in, opt, c);
  PlaceLeaves(in, c);
  FillCosts(opt, c);
  return c;
}

RingMetrics Measure(const Context& c, const std::vector<size_t>& tour, const RingPlanOptions& opt) {
  RingMetrics m;
  const size_t n = tour.size();
  double hops = 0;
  int64_t reachable = 0;
  for (size_t k = 0; k < n; ++k) {
    RingEdge e = MakeEdge(c, tour[k], tour[(k + 1) % n]);
    if (std::isfinite(e.links)) {
      hops += e.links;
      ++reachable;
    } else {
      ++m.unreachable_edges;
    }
    m.inter_leaf += e.inter_leaf ? 1 : 0;
    m.avoided_edges += e.avoided.empty() ? 0 : 1;
    if (e.bandwidth_gbps > 0 && !(m.min_bandwidth_gbps <= e.bandwidth_gbps)) m.min_bandwidth_gbps = e.bandwidth_gbps;
    if (std::isfinite(e.latency_us) && !(m.max_latency_us >= e.latency_us)) m.max_latency_us = e.latency_us;
    m.edges.push_back(std::move(e));
  }
  if (reachable > 0) m.hops = hops;
  const double steps = 2.0 * static_cast<double>(n - 1);
  // S bytes x 8 bit / (B Gb/s x 1e3 bit/µs per Gb/s): µs.
  const double transfer_us = steps / static_cast<double>(n) * opt.message_bytes * 8 / (m.min_bandwidth_gbps * 1e3);
  // Without any edge latency (no probes) the time is the bandwidth term alone.
  m.allreduce_us = transfer_us + (std::isfinite(m.max_latency_us) ? steps * m.max_latency_us : 0);
  return m;
}

double TourCost(const Context& c, const std::vector<size_t>& t) {
  double s = 0;
  for (size_t k = 0; k < t.size(); ++k) s += c.cost[t[k] * c.n() + t[(k + 1) % t.size()]];
  return s;
}

// One round of 2-opt: reverses t[i+1..j] whenever that lowers the cost. Returns whether it did.
bool TwoOptRound(const Context& c, std::vector<size_t>& t) {
  const size_t n = t.size();
  auto w = [&](size_t a, size_t b) { return c.cost[a * c.n() + b]; };
  bool improved = false;
  for (size_t i = 0; i + 2 < n; ++i) {
    for (size_t j = i + 2; j < n; ++j) {
      const size_t a = t[i], b = t[i + 1], d = t[j], e = t[(j + 1) % n];
      if (a == e) continue;
      if (w(a, d) + w(b, e) < w(a, b) + w(d, e) - 1e-9) {
        std::reverse(t.begin() + static_cast<std::ptrdiff_t>(i + 1), t.begin() + static_cast<std::ptrdiff_t>(j + 1));
        improved = true;
      }
    }
  }
  return improved;
}

// One round of or-opt: moves a segment of 1..3 hosts between two others whenever that lowers the
// cost. Returns whether it did.
bool OrOptRound(const Context& c, std::vector<size_t>& t) {
  const size_t n = t.size();
  auto w = [&](size_t a, size_t b) { return c.cost[a * c.n() + b]; };
  bool improved = false;
  for (size_t len = 1; len <= 3 && len + 2 <= n; ++len) {
    for (size_t i = 0; i + len <= n; ++i) {
      const size_t prev = t[(i + n - 1) % n], first = t[i], last = t[i + len - 1], next = t[(i + len) % n];
      const double removed_gain = w(prev, first) + w(last, next) - w(prev, next);
      std::vector<size_t> rest;
      rest.reserve(n - len);
      for (size_t k = 0; k < n; ++k) {
        if (k < i || k >= i + len) rest.push_back(t[k]);
      }
      double best = 1e-9;
      size_t best_at = 0;
      bool best_rev = false;
      for (size_t k = 0; k < rest.size(); ++k) {
        const size_t u = rest[k], v = rest[(k + 1) % rest.size()];
        if (u == prev && v == next) continue;
        const double fwd = removed_gain - (w(u, first) + w(last, v) - w(u, v));
        const double rev = removed_gain - (w(u, last) + w(first, v) - w(u, v));
        if (fwd > best) { best = fwd; best_at = k; best_rev = false; }
        if (rev > best) { best = rev; best_at = k; best_rev = true; }
      }
      if (best <= 1e-9) continue;
      std::vector<size_t> seg(t.begin() + static_cast<std::ptrdiff_t>(i), t.begin() + static_cast<std::ptrdiff_t>(i + len));
      if (best_rev) std::reverse(seg.begin(), seg.end());
      rest.insert(rest.begin() + static_cast<std::ptrdiff_t>(best_at + 1), seg.begin(), seg.end());
      t = std::move(rest);
      improved = true;
    }
  }
  return improved;
}

void LocalSearch(const Context& c, std::vector<size_t>& t, int max_rounds) {
  if (t.size() < 4) return;
  for (int r = 0; r < max_rounds; ++r) {
    const bool a = TwoOptRound(c, t);
    const bool b = OrOptRound(c, t);
    if (!a && !b) break;
  }
}

// Nearest-neighbour tour from host 0 (ties by index).
std::vector<size_t> NearestNeighbour(const Context& c) {
  const size_t n = c.n();
  std::vector<size_t> t{0};
  std::vector<bool> used(n, false);
  used[0] = true;
  for (size_t k = 1; k < n; ++k) {
    size_t best = n;
    for (size_t j = 0; j < n; ++j) {
      if (used[j]) continue;
      if (best == n || c.cost[t.back() * n + j] < c.cost[t.back() * n + best] - 1e-12) best = j;
    }
    used[best] = true;
    t.push_back(best);
  }
  return t;
}

std::vector<HostRanks> RanksOf(const RingPlanInputs& in, const std::vector<std::string>& order, const RingPlanOptions& opt) {
  std::map<std::string, std::vector<const analysis::GpuReport*>> by_host;
  if (in.gpus != nullptr) {
    for (const analysis::GpuReport& g : *in.gpus) by_host[g.host].push_back(&g);
  }
  std::map<std::string, const analysis::IslandReport*> island;
  if (in.islands != nullptr) {
    for (const analysis::IslandReport& i : *in.islands) island[i.id] = &i;
  }
  std::vector<HostRanks> out;
  for (const std::string& h : order) {
    HostRanks r;
    r.host = h;
    std::map<std::string, std::vector<int>> members;  // island -> GPU indices
    for (const analysis::GpuReport* g : by_host[h]) members[g->island].push_back(g->index);
    std::vector<std::vector<int>> groups;
    for (auto& [id, idx] : members) {
      std::sort(idx.begin(), idx.end());
      groups.push_back(idx);
    }
    std::sort(groups.begin(), groups.end());  // by lowest GPU index
    for (const auto& g : groups) {
      r.gpu_order.insert(r.gpu_order.end(), g.begin(), g.end());
      r.island_sizes.push_back(static_cast<int>(g.size()));
    }
    if (members.size() == 1) {
      auto it = island.find(members.begin()->first);
      r.one_nvlink_island = it != island.end() && r.gpu_order.size() > 1 &&
                            (it->second->kind == analysis::IslandKind::kNvlink ||
                             it->second->kind == analysis::IslandKind::kNvswitch);
    }
    r.slots = r.gpu_order.empty() ? opt.default_slots : static_cast<int>(r.gpu_order.size());
    out.push_back(std::move(r));
  }
  return out;
}

// The hosts to plan: the default order (checked), else every known host by name.
Result<std::vector<std::string>> HostsOf(const RingPlanInputs& in, const std::set<std::string>& known, std::string* source) {
  if (in.default_order.empty()) {
    *source = "names";
    return std::vector<std::string>(known.begin(), known.end());
  }
  *source = "hostfile";
  std::set<std::string> seen;
  for (const std::string& h : in.default_order) {
    if (!seen.insert(h).second) return MakeKindError(ErrorKind::kUsage, "the hosts file lists " + h + " twice", "");
  }
  return in.default_order;
}

// The parts the hosts fall into when joined only by probed pairs whose routes avoid `cable` (1 when
// it separates none, or when some host has no probed route at all: then nothing is known).
int64_t PartsWithout(const Context& c, const std::string& cable) {
  std::vector<size_t> parent(c.n());
  for (size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<bool> routed(c.n(), false);
  for (const auto& [k, pp] : c.pairs) {
    if (pp.cables.empty()) continue;
    routed[k.first] = routed[k.second] = true;
    if (pp.cables.count(cable) > 0) continue;
    parent[find(k.first)] = find(k.second);
  }
  if (std::find(routed.begin(), routed.end(), false) != routed.end()) return 1;  // a host no route shows: unknown
  std::set<size_t> roots;
  for (size_t i = 0; i < c.n(); ++i) roots.insert(find(i));
  return static_cast<int64_t>(roots.size());
}

void CountAvoided(const Context& c, RingPlan& p) {
  for (const auto& [id, a] : c.avoided) {
    AvoidedCable out = a;
    const int64_t parts = PartsWithout(c, id);
    out.unavoidable_edges = parts > 1 ? parts : 0;
    for (const RingEdge& e : p.before.edges) out.edges_before += std::count(e.avoided.begin(), e.avoided.end(), id);
    for (const RingEdge& e : p.after.edges) out.edges_after += std::count(e.avoided.begin(), e.avoided.end(), id);
    p.avoided.push_back(std::move(out));
  }
}

void AddEvidence(const RingPlanInputs& in, const std::set<std::string>& known, const Context& c, RingPlan& p) {
  std::vector<std::string> unknown;
  for (const std::string& h : c.hosts) {
    if (known.count(h) == 0) unknown.push_back(h);
  }
  if (!unknown.empty()) {
    p.evidence.push_back(std::to_string(unknown.size()) + " host(s) of the hosts file unknown to the topology (their "
                         "edges are unreachable, placed last by cost): " + unknown.front() +
                         (unknown.size() > 1 ? ", ..." : ""));
  }
  int64_t routed = 0;
  for (const auto& [k, pp] : c.pairs) routed += pp.routed ? 1 : 0;
  const int64_t all_pairs = static_cast<int64_t>(c.n() * (c.n() - 1) / 2);
  p.evidence.push_back(std::to_string(c.n()) + " hosts; default order: " +
                       (p.default_source == "hostfile" ? "the hosts file as written" : "host names sorted"));
  const bool dump = in.fabric != nullptr && in.fabric->present && !in.fabric->switches.empty();
  p.evidence.push_back("links per pair: the median of its probes, else the shortest path in the " +
                       std::string(dump ? "fabric dump" : "probes' switch graph") + "; " +
                       std::to_string(c.pairs.size()) + " of " + std::to_string(all_pairs) + " host pairs probed, " +
                       std::to_string(routed) + " with full hop lists");
  p.evidence.push_back("leaves: " + c.leaf_source + " (" + std::to_string(c.leaf_of.size()) + " hosts placed)");
  p.evidence.push_back(std::to_string(c.avoided.size()) + " cable(s) to avoid: degraded from the fabric dump's rates and "
                       "widths, slow from tomography, flapping from the probes' timing");
}

}  // namespace

RingPlanInputs RingPlanInputsOf(const analysis::AnalysisResult& result, const std::vector<formats::PathProbe>* probes) {
  RingPlanInputs in;
  in.fabric = &result.fabric;
  if (result.leaves_inferred) in.inferred_leaves = &result.inferred_leaves;
  in.link_weights = &result.link_weights;
  in.gpus = &result.gpus;
  in.islands = &result.islands;
  in.probes = probes;
  return in;
}

RingMetrics MeasureRingOrder(const RingPlanInputs& in, const std::vector<std::string>& order, const RingPlanOptions& opt) {
  const Context c = BuildContext(in, order, opt);
  std::vector<size_t> tour(order.size());
  for (size_t i = 0; i < tour.size(); ++i) tour[i] = i;
  return Measure(c, tour, opt);
}

Result<RingPlan> PlanRing(const RingPlanInputs& in, const RingPlanOptions& opt) {
  const bool have_fabric = in.fabric != nullptr && in.fabric->present && !in.fabric->switches.empty();
  const bool have_probes = in.probes != nullptr && !in.probes->empty();
  if (!have_fabric && !have_probes) {
    return MakeKindError(ErrorKind::kInput, "no topology found: neither an ibnetdiscover dump with switches nor path probes",
                         "plan-ring needs fabric.ibnet (ibnetdiscover) or probes.csv among its inputs");
  }
  RingPlan p;
  const std::set<std::string> known = KnownHosts(in);
  auto hosts = HostsOf(in, known, &p.default_source);
  if (!hosts.ok()) return hosts.error();
  if (hosts->size() < 2) {
    return MakeKindError(ErrorKind::kInput,
                         std::to_string(hosts->size()) + " host(s) found: a ring needs at least two",
                         hosts->empty() ? "" : "the only host is " + hosts->front());
  }
  if (std::none_of(hosts->begin(), hosts->end(), [&](const std::string& h) { return known.count(h) > 0; })) {
    return MakeKindError(ErrorKind::kInput,
                         "no host of the hosts file appears in the topology (" + hosts->front() + ", ...)",
                         "the inputs name " + std::to_string(known.size()) + " host(s)" +
                             (known.empty() ? std::string() : ", e.g. " + *known.begin()));
  }
  const Context c = BuildContext(in, *hosts, opt);
  std::vector<size_t> base(c.n());
  for (size_t i = 0; i < base.size(); ++i) base[i] = i;
  std::vector<size_t> from_default = base, nn = NearestNeighbour(c);
  LocalSearch(c, from_default, opt.max_rounds);
  LocalSearch(c, nn, opt.max_rounds);
  const std::vector<size_t>& best = TourCost(c, nn) < TourCost(c, from_default) - 1e-9 ? nn : from_default;
  p.default_order = *hosts;
  for (const size_t i : best) p.order.push_back(c.hosts[i]);
  p.before = Measure(c, base, opt);
  p.after = Measure(c, best, opt);
  CountAvoided(c, p);
  p.leaf_source = c.leaf_source;
  p.leaf_of = c.leaf_of;
  p.ranks = RanksOf(in, p.order, opt);
  p.message_bytes = opt.message_bytes;
  AddEvidence(in, known, c, p);
  return p;
}

}  // namespace toposcope::act
