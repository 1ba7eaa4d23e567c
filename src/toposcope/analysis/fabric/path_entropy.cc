// analysis/fabric/path_entropy: path entropy, bottleneck nodes and redundant hops (see the header for
// the exact definitions).
#include "toposcope/analysis/fabric/path_entropy.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/analysis/fabric/graph_search.h"
#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

constexpr std::string_view kNoSource = "(source)";

double EntropyBits(const std::vector<int64_t>& counts) {
  double total = 0;
  for (const int64_t c : counts) total += static_cast<double>(c);
  if (total <= 0) return 0;
  double h = 0;
  for (const int64_t c : counts) {
    if (c <= 0) continue;
    const double p = static_cast<double>(c) / total;
    h -= p * std::log2(p);
  }
  return h == 0 ? 0.0 : h;
}

// log P(X >= k) for X ~ Binomial(n, p), in natural log.
double LogBinomialTail(int64_t n, int64_t k, double p) {
  if (k <= 0) return 0;
  if (k > n) return -INFINITY;
  if (p >= 1) return 0;
  const double lp = std::log(p), lq = std::log1p(-p);
  double max_term = -INFINITY;
  std::vector<double> terms;
  terms.reserve(static_cast<size_t>(n - k + 1));
  for (int64_t i = k; i <= n; ++i) {
    const double t = std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(i) + 1) -
                     std::lgamma(static_cast<double>(n - i) + 1) + static_cast<double>(i) * lp +
                     static_cast<double>(n - i) * lq;
    terms.push_back(t);
    max_term = std::max(max_term, t);
  }
  double s = 0;
  for (const double t : terms) s += std::exp(t - max_term);
  return std::min(0.0, max_term + std::log(s));
}

std::string FormatP(double log_p) {
  const double log10p = log_p / std::log(10.0);
  if (log10p > -3) return FormatFixed(std::exp(log_p), 4);
  return "1e" + std::to_string(static_cast<int64_t>(std::floor(log10p)));
}

// Node names <-> ids.
class Names {
 public:
  int Id(const std::string& s) {
    const auto [it, inserted] = ids_.try_emplace(s, static_cast<int>(names_.size()));
    if (inserted) names_.push_back(s);
    return it->second;
  }
  [[nodiscard]] const std::string& Name(int id) const { return names_[static_cast<size_t>(id)]; }
  [[nodiscard]] size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> names_;
};

struct Path {
  std::vector<int> nodes;  // src, intermediates..., dst (unknown hops = -1)
};

uint64_t PairKey(int a, int b) { return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b); }

// The probes with a destination as node-id paths (a missing src named kNoSource; a leading src /
// trailing dst hop dropped), counting each known intermediate hop's visits into `visits`.
std::vector<Path> InternPaths(const std::vector<formats::PathProbe>& probes, Names& names,
                              std::unordered_map<int, int64_t>& visits) {
  std::vector<Path> paths;
  paths.reserve(probes.size());
  for (const auto& p : probes) {
    if (p.dst.empty()) continue;
    Path path;
    const std::string src = p.src.empty() ? std::string(kNoSource) : p.src;
    size_t b = 0, e = p.hops.size();
    if (b < e && p.hops[b] == src) ++b;
    if (b < e && p.hops[e - 1] == p.dst) --e;
    path.nodes.push_back(names.Id(src));
    for (size_t i = b; i < e; ++i) {
      if (p.hops[i] == formats::kUnknownHop) {
        path.nodes.push_back(-1);
      } else {
        const int id = names.Id(p.hops[i]);
        path.nodes.push_back(id);
        ++visits[id];
      }
    }
    path.nodes.push_back(names.Id(p.dst));
    paths.push_back(std::move(path));
  }
  return paths;
}

// Adjacency of the observed paths: directed successor / predecessor sets and the undirected graph
// (with the known links added).
struct PathGraph {
  std::vector<std::set<int>> after, before, adj;
};

PathGraph BuildPathGraph(const std::vector<Path>& paths, const PathOptions& opt, Names& names) {
  const size_t n_nodes = names.size() + opt.known_links.size() * 2;
  PathGraph g;
  g.after.resize(n_nodes);
  g.before.resize(n_nodes);
  g.adj.resize(n_nodes);
  for (const auto& path : paths) {
    for (size_t i = 0; i + 1 < path.nodes.size(); ++i) {
      const int a = path.nodes[i], c = path.nodes[i + 1];
      if (a < 0 || c < 0 || a == c) continue;
      g.after[static_cast<size_t>(a)].insert(c);
      g.before[static_cast<size_t>(c)].insert(a);
      g.adj[static_cast<size_t>(a)].insert(c);
      g.adj[static_cast<size_t>(c)].insert(a);
    }
  }
  for (const auto& [x, y] : opt.known_links) {
    const int a = names.Id(x), c = names.Id(y);
    if (static_cast<size_t>(std::max(a, c)) >= g.adj.size())
      g.adj.resize(static_cast<size_t>(std::max(a, c)) + 1);
    if (a == c) continue;
    g.adj[static_cast<size_t>(a)].insert(c);
    g.adj[static_cast<size_t>(c)].insert(a);
  }
  return g;
}

// Breadth-first distances from a node over an adjacency, computed once per source.
class DistanceCache {
 public:
  explicit DistanceCache(const std::vector<std::set<int>>& adj) : adj_(adj) {}
  // Distances from `s` to every node (-1 unreached); the reference stays valid.
  const std::vector<int>& From(int s) {
    auto it = cache_.find(s);
    if (it != cache_.end()) return it->second;
    return cache_.emplace(s, BfsDistances(adj_, {s})).first->second;
  }

 private:
  const std::vector<std::set<int>>& adj_;
  std::unordered_map<int, std::vector<int>> cache_;
};

// Per endpoint pair: its probes, and for its detours the nodes off its shortest paths.
struct PairAcc {
  int64_t probes = 0;
  std::map<int, int64_t> off_shortest;     // node -> detour probes through it
  std::map<int, std::vector<int>> extras;  // node -> extra links per such probe
  std::map<int, int64_t> visits;           // intermediate visits (for the pair's entropy)
  int shortest = -1;
};

// Accumulates each endpoint pair's probes and detours (probes >= redundant_extra_hops links longer
// than the shortest known path); marks the detours in `detour` and counts them in the report.
std::map<uint64_t, PairAcc> FindDetours(const std::vector<Path>& paths, const PathGraph& g,
                                        const PathOptions& opt, std::vector<bool>& detour, PathReport& rep) {
  DistanceCache dist(g.adj);
  std::map<uint64_t, PairAcc> pairs;
  detour.assign(paths.size(), false);
  for (size_t pi = 0; pi < paths.size(); ++pi) {
    const Path& path = paths[pi];
    const int s = path.nodes.front(), d = path.nodes.back();
    PairAcc& pa = pairs[PairKey(s, d)];
    ++pa.probes;
    for (size_t i = 1; i + 1 < path.nodes.size(); ++i) {
      if (path.nodes[i] >= 0) ++pa.visits[path.nodes[i]];
    }
    const std::vector<int>& ds = dist.From(s);
    const int shortest = ds[static_cast<size_t>(d)];
    pa.shortest = shortest;
    const int len = static_cast<int>(path.nodes.size()) - 1;
    if (shortest < 0 || len - shortest < opt.redundant_extra_hops) continue;
    ++rep.detour_probes;
    detour[pi] = true;
    const std::vector<int>& dd = dist.From(d);
    std::set<int> seen;
    for (size_t i = 1; i + 1 < path.nodes.size(); ++i) {
      const int x = path.nodes[i];
      if (x < 0 || !seen.insert(x).second) continue;
      const int a = ds[static_cast<size_t>(x)], b = dd[static_cast<size_t>(x)];
      if (a < 0 || b < 0 || a + b > shortest) {
        ++pa.off_shortest[x];
        pa.extras[x].push_back(len - shortest);
      }
    }
  }
  return pairs;
}

// A choice point (prev, next): its paths, the node carrying most of them and its hop entropy.
struct Choice {
  int prev, next, dominant;
  int64_t n, k;
  size_t candidates;
  double entropy;
};

// The segment groups (prev, next) of the non-detour paths with >= min_group_paths paths and >= 2
// candidate middle nodes, in (prev, next) order.
std::vector<Choice> FindChoicePoints(const std::vector<Path>& paths, const std::vector<bool>& detour,
                                     const PathGraph& g, const PathOptions& opt) {
  struct Group {
    std::map<int, int64_t> middle;
    int64_t n = 0;
  };
  std::map<uint64_t, Group> groups;
  for (size_t pi = 0; pi < paths.size(); ++pi) {
    if (detour[pi]) continue;  // detours are redundant-hop evidence, not choice-point evidence
    const Path& path = paths[pi];
    for (size_t i = 1; i + 1 < path.nodes.size(); ++i) {
      const int prev = path.nodes[i - 1], x = path.nodes[i], next = path.nodes[i + 1];
      if (prev < 0 || x < 0 || next < 0) continue;
      Group& gr = groups[PairKey(prev, next)];
      ++gr.middle[x];
      ++gr.n;
    }
  }
  std::vector<Choice> choices;
  for (const auto& [key, gr] : groups) {
    if (gr.n < opt.min_group_paths) continue;
    const int prev = static_cast<int>(key >> 32), next = static_cast<int>(key & 0xffffffffu);
    const auto& a = g.after[static_cast<size_t>(prev)];
    const auto& b = g.before[static_cast<size_t>(next)];
    size_t candidates = 0;
    for (const int x : a) candidates += b.count(x);
    if (candidates < 2) continue;
    std::vector<int64_t> counts;
    int dominant = -1;
    int64_t k = 0;
    for (const auto& [x, c] : gr.middle) {
      counts.push_back(c);
      if (c > k) {
        k = c;
        dominant = x;
      }
    }
    choices.push_back(Choice{prev, next, dominant, gr.n, k, candidates, EntropyBits(counts)});
  }
  return choices;
}

// Bottleneck findings: the dominant nodes of low-entropy choice points whose concentration is not
// chance (binomial tail, corrected for the number of choice points tested), one per node.
void AddBottlenecks(const std::vector<Choice>& choices, const Names& names, const PathOptions& opt,
                    PathReport& rep) {
  const double log_tests = std::log(std::max<double>(1.0, static_cast<double>(choices.size())));
  struct BottleAcc {
    int64_t paths = 0, carried = 0;
    double weighted_entropy = 0;
    const Choice* worst = nullptr;
    double worst_log_p = 0;
    int points = 0;
  };
  std::map<int, BottleAcc> bottle;
  for (const Choice& c : choices) {
    if (!(c.entropy < opt.bottleneck_entropy)) continue;
    const double log_p = LogBinomialTail(c.n, c.k, 1.0 / static_cast<double>(c.candidates));
    if (!(log_p + log_tests < std::log(opt.significance))) continue;
    BottleAcc& acc = bottle[c.dominant];
    acc.paths += c.n;
    acc.carried += c.k;
    acc.weighted_entropy += c.entropy * static_cast<double>(c.n);
    ++acc.points;
    if (acc.worst == nullptr || c.n > acc.worst->n) {
      acc.worst = &c;
      acc.worst_log_p = log_p + log_tests;
    }
  }
  for (const auto& [node, acc] : bottle) {
    PathFinding f;
    f.node = names.Name(node);
    f.kind = PathFindingKind::kBottleneck;
    f.paths = acc.paths;
    f.entropy = acc.weighted_entropy / static_cast<double>(acc.paths);
    f.reuse_rate = static_cast<double>(acc.carried) / static_cast<double>(acc.paths);
    const Choice& w = *acc.worst;
    f.evidence = "carries " + std::to_string(acc.carried) + " of " + std::to_string(acc.paths) + " paths (" +
                 FormatPercent(f.reuse_rate) + ") at " + std::to_string(acc.points) +
                 " choice point(s) whose hop entropy is below " + FormatFixed(opt.bottleneck_entropy, 2) +
                 " bits; largest: " + names.Name(w.prev) + " -> ? -> " + names.Name(w.next) + ", " +
                 std::to_string(w.k) + " of " + std::to_string(w.n) + " paths over " +
                 std::to_string(w.candidates) + " alternatives, entropy " + FormatFixed(w.entropy, 2) +
                 " bits, chance p = " + FormatP(acc.worst_log_p) + " (binomial, corrected for " +
                 std::to_string(choices.size()) + " tests)";
    rep.bottlenecks.push_back(std::move(f));
  }
}

// Redundant-hop findings: nodes off the shortest paths on more than redundant_reuse of the probes
// of the pairs whose detours pass them (pooled over those pairs), citing the pair with most probes.
void AddRedundantHops(const std::map<uint64_t, PairAcc>& pairs, const Names& names, const PathOptions& opt,
                      PathReport& rep) {
  struct RedAcc {
    int64_t paths = 0, pair_probes = 0;
    std::vector<int> extras;
    uint64_t best_pair = 0;
    int64_t best_probes = -1;
  };
  std::map<int, RedAcc> red;
  for (const auto& [key, pa] : pairs) {
    for (const auto& [x, c] : pa.off_shortest) {
      RedAcc& r = red[x];
      r.paths += c;
      r.pair_probes += pa.probes;
      const auto& ex = pa.extras.at(x);
      r.extras.insert(r.extras.end(), ex.begin(), ex.end());
      if (pa.probes > r.best_probes) {
        r.best_probes = pa.probes;
        r.best_pair = key;
      }
    }
  }
  for (auto& [node, r] : red) {
    if (!(static_cast<double>(r.paths) > opt.redundant_reuse * static_cast<double>(r.pair_probes))) continue;
    PathFinding f;
    f.node = names.Name(node);
    f.kind = PathFindingKind::kRedundantHop;
    f.paths = r.paths;
    f.reuse_rate = static_cast<double>(r.paths) / static_cast<double>(r.pair_probes);
    std::sort(r.extras.begin(), r.extras.end());
    f.extra_hops = r.extras[r.extras.size() / 2];
    const PairAcc& pa = pairs.at(r.best_pair);
    std::vector<int64_t> counts;
    for (const auto& [x, c] : pa.visits) counts.push_back(c);
    f.entropy = EntropyBits(counts);
    const int s = static_cast<int>(r.best_pair >> 32), d = static_cast<int>(r.best_pair & 0xffffffffu);
    f.evidence = "on " + std::to_string(r.paths) + " of " + std::to_string(r.pair_probes) + " probes (" +
                 FormatPercent(f.reuse_rate) + ") of the endpoint pairs it detours; e.g. " + names.Name(s) +
                 " -> " + names.Name(d) + ": " + std::to_string(pa.off_shortest.at(node)) + " of " +
                 std::to_string(pa.probes) + " probes pass it, " + std::to_string(f.extra_hops) +
                 " links longer than the shortest known path (" + std::to_string(pa.shortest) +
                 " links), which it is not on";
    rep.redundant_hops.push_back(std::move(f));
  }
}

constexpr NamedValue<PathFindingKind> kKindNames[] = {
    {PathFindingKind::kBottleneck, "bottleneck"}, {PathFindingKind::kRedundantHop, "redundant_hop"}};

}  // namespace

std::string_view PathFindingKindName(PathFindingKind k) { return NameIn(kKindNames, k, "bottleneck"); }

double SeedNodeEntropyBits(const std::vector<std::vector<std::string>>& paths) {
  std::map<std::string, int64_t> visits;
  for (const auto& p : paths) {
    for (size_t i = 1; i + 1 < p.size(); ++i) {
      if (p[i] == formats::kUnknownHop) continue;
      ++visits[p[i]];
    }
  }
  std::vector<int64_t> counts;
  counts.reserve(visits.size());
  for (const auto& [n, c] : visits) counts.push_back(c);
  return EntropyBits(counts);
}

PathReport AnalyzePaths(const std::vector<formats::PathProbe>& probes, const PathOptions& opt) {
  PathReport rep;
  Names names;
  std::unordered_map<int, int64_t> visits;
  const std::vector<Path> paths = InternPaths(probes, names, visits);
  rep.paths = static_cast<int64_t>(paths.size());
  {
    std::vector<int64_t> counts;
    counts.reserve(visits.size());
    for (const auto& [n, c] : visits) counts.push_back(c);
    rep.overall_entropy = EntropyBits(counts);
  }
  const PathGraph g = BuildPathGraph(paths, opt, names);
  std::vector<bool> detour;
  const std::map<uint64_t, PairAcc> pairs = FindDetours(paths, g, opt, detour, rep);
  const std::vector<Choice> choices = FindChoicePoints(paths, detour, g, opt);
  rep.choice_points = static_cast<int64_t>(choices.size());
  AddBottlenecks(choices, names, opt, rep);
  AddRedundantHops(pairs, names, opt, rep);
  auto by_node = [](const PathFinding& a, const PathFinding& b) { return a.node < b.node; };
  std::sort(rep.bottlenecks.begin(), rep.bottlenecks.end(), by_node);
  std::sort(rep.redundant_hops.begin(), rep.redundant_hops.end(), by_node);
  return rep;
}

}  // namespace toposcope::analysis
