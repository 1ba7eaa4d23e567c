// analysis/fabric/leaf_inference: leaves and pods from host-to-host RTT probes alone (see the header for
// the method).
#include "toposcope/analysis/fabric/leaf_inference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

using stats::Median;

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Edge {
  int a = 0, b = 0;       // a < b, indices into hosts
  double min_us = 0;      // minimum RTT over the pair's probes (both directions)
  int probes = 0;
};

uint64_t Key(int a, int b) {
  if (a > b) std::swap(a, b);
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

// Union-find over cluster ids with member lists (small to large merges).
struct Clusters {
  std::vector<int> of;                     // element -> cluster id
  std::vector<std::vector<int>> members;   // cluster id -> elements (sorted on demand)
  explicit Clusters(int n) : of(static_cast<size_t>(n)), members(static_cast<size_t>(n)) {
    for (int i = 0; i < n; ++i) {
      of[static_cast<size_t>(i)] = i;
      members[static_cast<size_t>(i)] = {i};
    }
  }
  void Merge(int ca, int cb) {
    if (ca == cb) return;
    if (members[static_cast<size_t>(ca)].size() < members[static_cast<size_t>(cb)].size()) std::swap(ca, cb);
    for (int x : members[static_cast<size_t>(cb)]) {
      of[static_cast<size_t>(x)] = ca;
      members[static_cast<size_t>(ca)].push_back(x);
    }
    members[static_cast<size_t>(cb)].clear();
  }
};

// Canonical partition: groups sorted by their smallest element, members sorted; returns, per
// element, its group index (-1 for elements not in `active`).
std::vector<int> Canonical(const Clusters& c, const std::vector<char>& active) {
  const int n = static_cast<int>(c.of.size());
  std::vector<int> label(static_cast<size_t>(n), -1);
  std::vector<int> root_label(static_cast<size_t>(n), -1);
  int next = 0;
  for (int i = 0; i < n; ++i) {
    if (!active[static_cast<size_t>(i)]) continue;
    const int r = c.of[static_cast<size_t>(i)];
    if (root_label[static_cast<size_t>(r)] < 0) root_label[static_cast<size_t>(r)] = next++;
    label[static_cast<size_t>(i)] = root_label[static_cast<size_t>(r)];
  }
  return label;
}

std::string Fmt(double v) { return FormatFixed(v, 3); }

using Rows = std::vector<std::vector<std::pair<double, int>>>;  // per element: (distance, other), sorted

struct RowPartitionResult {
  double l0 = NAN;          // median of the rows' smallest distances (the lowest tier)
  double l1 = NAN;          // median upper side of the rows' first wide gap near l0 (the next tier)
  double tau = NAN;         // (l0 + l1) / 2; -inf when no row has a wide gap
  int rows_with_gap = 0;
};

// Groups elements whose rows put each other below the row's own cut: per row, the first gap of at
// least `min_gap` straddling the row's midpoint (within a quarter tier either side), else that
// midpoint: the global midpoint tau, or half a tier above the lower of the row's and its nearest
// peer's nearest residuals when that is higher (a leaf switch that delays all its pairs);
// pairs below both rows' cuts are mutual; clusters merge along mutual pairs in ascending distance
// while at least half of the measured pairs between them are mutual (one stray pair cannot chain
// two groups).
template <class HasPair>
RowPartitionResult RowPartition(const Rows& rows, double min_gap, const HasPair& has_pair, Clusters& out) {
  RowPartitionResult res;
  const int n = static_cast<int>(rows.size());
  std::vector<double> nn, up;
  for (const auto& row : rows) {
    if (!row.empty()) nn.push_back(row[0].first);
  }
  res.l0 = Median(nn);
  for (const auto& row : rows) {
    for (size_t k = 0; k + 1 < row.size(); ++k) {
      if (row[k].first > res.l0 + min_gap) break;
      if (row[k + 1].first - row[k].first >= min_gap) {
        up.push_back(row[k + 1].first);
        break;
      }
    }
  }
  res.rows_with_gap = static_cast<int>(up.size());
  res.l1 = up.empty() ? kInf : Median(up);
  res.tau = std::isfinite(res.l1) ? (res.l0 + res.l1) / 2.0 : -kInf;
  const double w = std::isfinite(res.l1) ? res.l1 - res.l0 : 0.0;
  std::vector<std::vector<int>> mates(static_cast<size_t>(n));
  std::vector<double> cut_of(static_cast<size_t>(n), res.tau);
  // A leaf switch that delays every pair of its hosts (a congested one) lifts all their rows alike:
  // a host's midpoint is half a tier above the nearest residual that both it and its nearest peer
  // see, when that is above tau. A host alone on its leaf keeps tau, as its nearest peer's row starts
  // at that peer's own leaf mates.
  auto nearest = [&](int h) {
    const auto& row = rows[static_cast<size_t>(h)];
    return row.empty() ? kInf : row[0].first;
  };
  for (int h = 0; h < n; ++h) {
    const auto& row = rows[static_cast<size_t>(h)];
    const double shared = row.empty() ? kInf : std::min(row[0].first, nearest(row[0].second));
    const double row_tau =
        std::isfinite(res.tau) && std::isfinite(shared) ? std::max(res.tau, shared + w / 2.0) : res.tau;
    double cut = row_tau;
    for (size_t k = 0; k + 1 < row.size() && std::isfinite(res.tau); ++k) {
      const double lo = row[k].first, hi = row[k + 1].first;
      if (lo > row_tau + w / 4.0) break;
      if (hi - lo >= min_gap && hi >= row_tau - w / 4.0) {
        cut = (lo + hi) / 2.0;
        break;
      }
    }
    for (const auto& [v, j] : row) {
      if (v > cut) break;
      mates[static_cast<size_t>(h)].push_back(j);
    }
    std::sort(mates[static_cast<size_t>(h)].begin(), mates[static_cast<size_t>(h)].end());
  }
  auto mutual = [&](int a, int b) {
    const auto& ma = mates[static_cast<size_t>(a)];
    const auto& mb = mates[static_cast<size_t>(b)];
    return std::binary_search(ma.begin(), ma.end(), b) && std::binary_search(mb.begin(), mb.end(), a);
  };
  std::vector<std::tuple<double, int, int>> cand;
  for (int h = 0; h < n; ++h) {
    for (const auto& [v, j] : rows[static_cast<size_t>(h)]) {
      if (h < j && mutual(h, j)) cand.emplace_back(v, h, j);
    }
  }
  std::sort(cand.begin(), cand.end());
  for (const auto& [v, a, b] : cand) {
    const int ca = out.of[static_cast<size_t>(a)], cb = out.of[static_cast<size_t>(b)];
    if (ca == cb) continue;
    int measured = 0, yes = 0;
    for (int x : out.members[static_cast<size_t>(ca)]) {
      for (int y : out.members[static_cast<size_t>(cb)]) {
        if (!has_pair(x, y)) continue;
        ++measured;
        if (mutual(x, y)) ++yes;
      }
    }
    if (2 * yes >= measured) out.Merge(ca, cb);
  }
  return res;
}

// Whether a probe counts: both ends named and distinct, a finite non-negative RTT.
bool UsableProbe(const formats::PathProbe& p) {
  return !p.src.empty() && !p.dst.empty() && p.src != p.dst && std::isfinite(p.rtt_us) && !(p.rtt_us < 0);
}

// The number of groups of a labelling (labels 0..k-1, -1 for none).
int GroupCount(const std::vector<int>& label) {
  int k = 0;
  for (int l : label) k = std::max(k, l + 1);
  return k;
}

// The measured host pairs: per unordered pair its minimum RTT, and which hosts have enough peers.
struct PairGraph {
  std::vector<Edge> edges;                       // by (a, b); pairs with >= min_probes_per_pair probes
  std::unordered_map<uint64_t, size_t> edge_of;  // Key(a, b) -> index into edges
  std::vector<std::vector<size_t>> adj;          // per host: its edges
  std::vector<char> placed;                      // per host: >= min_peers measured peers
  std::vector<size_t> live;                      // edges between placed hosts
};

// Names the hosts of the usable probes (out.hosts, sorted) and measures each pair's minimum RTT
// over its probes in both directions; counts the probes used and ignored and the pairs kept.
PairGraph MeasurePairs(const std::vector<formats::PathProbe>& probes, const LeafInferenceOptions& opt,
                       LeafInference& out) {
  std::set<std::string> names;
  for (const formats::PathProbe& p : probes) {
    if (!UsableProbe(p)) continue;
    names.insert(p.src);
    names.insert(p.dst);
  }
  out.hosts.assign(names.begin(), names.end());
  const int n = static_cast<int>(out.hosts.size());
  std::unordered_map<std::string, int> index;
  index.reserve(static_cast<size_t>(n) * 2);
  for (int i = 0; i < n; ++i) index.emplace(out.hosts[static_cast<size_t>(i)], i);

  std::unordered_map<uint64_t, size_t> first_of;
  std::vector<Edge> edges;
  for (const formats::PathProbe& p : probes) {
    if (!UsableProbe(p)) {
      ++out.probes_ignored;
      continue;
    }
    ++out.probes_used;
    const int a = index.at(p.src), b = index.at(p.dst);
    const uint64_t k = Key(a, b);
    auto [it, inserted] = first_of.emplace(k, edges.size());
    if (inserted) edges.push_back({std::min(a, b), std::max(a, b), p.rtt_us, 0});
    Edge& e = edges[it->second];
    e.min_us = std::min(e.min_us, p.rtt_us);
    ++e.probes;
  }
  // Deterministic edge order (by pair), independent of the probe order.
  std::sort(edges.begin(), edges.end(),
            [](const Edge& x, const Edge& y) { return x.a != y.a ? x.a < y.a : x.b < y.b; });
  PairGraph g;
  for (const Edge& e : edges) {
    if (e.probes >= opt.min_probes_per_pair) g.edges.push_back(e);
  }
  for (size_t i = 0; i < g.edges.size(); ++i) g.edge_of.emplace(Key(g.edges[i].a, g.edges[i].b), i);
  out.pairs = static_cast<int64_t>(g.edges.size());
  g.adj.resize(static_cast<size_t>(n));
  for (size_t i = 0; i < g.edges.size(); ++i) {
    g.adj[static_cast<size_t>(g.edges[i].a)].push_back(i);
    g.adj[static_cast<size_t>(g.edges[i].b)].push_back(i);
  }
  return g;
}

// Places the hosts with at least min_peers measured peers (the others are unplaced, with the reason
// in evidence) and collects the edges between placed hosts; returns the number placed.
int PlaceHosts(const LeafInferenceOptions& opt, PairGraph& g, LeafInference& out) {
  const int n = static_cast<int>(out.hosts.size());
  g.placed.assign(static_cast<size_t>(n), 0);
  int placed_n = 0;
  for (int i = 0; i < n; ++i) {
    const int deg = static_cast<int>(g.adj[static_cast<size_t>(i)].size());
    if (deg >= opt.min_peers) {
      g.placed[static_cast<size_t>(i)] = 1;
      ++placed_n;
    } else {
      out.unplaced.push_back(out.hosts[static_cast<size_t>(i)]);
      out.evidence.push_back("unplaced " + out.hosts[static_cast<size_t>(i)] + ": " + std::to_string(deg) +
                             " measured peer(s), fewer than " + std::to_string(opt.min_peers));
    }
  }
  for (size_t i = 0; i < g.edges.size(); ++i) {
    if (g.placed[static_cast<size_t>(g.edges[i].a)] && g.placed[static_cast<size_t>(g.edges[i].b)])
      g.live.push_back(i);
  }
  return placed_n;
}

// Per host, its peers by residual RTT (a row), ascending. Tier 0 is the lowest level of every row;
// within a row the host's own side and leaf switch are common, so a row's gap between its leaf
// mates and the rest is cleaner than any global threshold.
Rows SortedRows(const PairGraph& g, const std::vector<double>& r) {
  Rows rows(g.placed.size());
  for (size_t i : g.live) {
    rows[static_cast<size_t>(g.edges[i].a)].push_back({r[i], g.edges[i].b});
    rows[static_cast<size_t>(g.edges[i].b)].push_back({r[i], g.edges[i].a});
  }
  for (auto& row : rows) std::sort(row.begin(), row.end());
  return rows;
}

// A host left alone joins the leaf it is closest to (median residual over that leaf's hosts) when
// it is closer to that leaf than the leaf is to any other leaf: a leaf mate whose pairs queue behind
// a congested switch keeps the leaf's distance profile even when single pairs blur the row gap.
// Returns the number of hosts attached.
int AttachLoneHosts(const Rows& rows, const std::vector<char>& placed, Clusters& leaves) {
  int attached = 0;
  const int n = static_cast<int>(rows.size());
  for (int x = 0; x < n; ++x) {
    const int cx = leaves.of[static_cast<size_t>(x)];
    if (!placed[static_cast<size_t>(x)] || leaves.members[static_cast<size_t>(cx)].size() != 1) continue;
    // Median residual from x to each leaf it has pairs with.
    std::map<int, std::vector<double>> to;
    for (const auto& [v, j] : rows[static_cast<size_t>(x)])
      to[leaves.of[static_cast<size_t>(j)]].push_back(v);
    int best_leaf = -1;
    double best = kInf;
    for (auto& [c, v] : to) {
      const double m = Median(v);
      if (m < best) {
        best = m;
        best_leaf = c;
      }
    }
    if (best_leaf < 0) continue;
    // The leaf's distance to its nearest other leaf (x excluded).
    std::map<int, std::vector<double>> from;
    for (int y : leaves.members[static_cast<size_t>(best_leaf)]) {
      for (const auto& [v, j] : rows[static_cast<size_t>(y)]) {
        const int cj = leaves.of[static_cast<size_t>(j)];
        if (j != x && cj != best_leaf) from[cj].push_back(v);
      }
    }
    double nearest = kInf;
    for (auto& [c, v] : from) nearest = std::min(nearest, Median(v));
    if (best < nearest) {
      leaves.Merge(best_leaf, cx);
      ++attached;
    }
  }
  return attached;
}

// Two leaves of two or more hosts merge when the median residual between them sits nearer their
// own within-leaf levels than a tier up: D(A,B) - (D(A,A) + D(B,B)) / 2 < half_tier. The difference
// is free of host and leaf offsets; it rejoins a leaf whose pairs queue behind a congested switch
// so much that single rows lose their gap. Returns the number of leaf pairs rejoined.
int RejoinLeaves(const PairGraph& g, const std::vector<double>& r, double half_tier, Clusters& leaves) {
  const int n = static_cast<int>(g.placed.size());
  // Median residual over the measured pairs between two leaves (within one leaf: each pair once).
  auto level = [&](int ca, int cb) {
    std::vector<double> v;
    for (int x : leaves.members[static_cast<size_t>(ca)]) {
      for (int y : leaves.members[static_cast<size_t>(cb)]) {
        if (ca == cb && y <= x) continue;
        auto it = g.edge_of.find(Key(x, y));
        if (it != g.edge_of.end()) v.push_back(r[it->second]);
      }
    }
    return Median(std::move(v));
  };
  int rejoined = 0;
  for (bool merged = true; merged;) {
    merged = false;
    std::vector<int> roots;
    for (int h = 0; h < n; ++h) {
      if (g.placed[static_cast<size_t>(h)] && leaves.of[static_cast<size_t>(h)] == h &&
          leaves.members[static_cast<size_t>(h)].size() >= 2)
        roots.push_back(h);
    }
    std::vector<double> own(static_cast<size_t>(n), NAN);
    for (int c : roots) own[static_cast<size_t>(c)] = level(c, c);
    double best = kInf;
    int ba = -1, bb = -1;
    for (size_t i = 0; i < roots.size(); ++i) {
      for (size_t j = i + 1; j < roots.size(); ++j) {
        const int ca = roots[i], cb = roots[j];
        const double d = level(ca, cb) - (own[static_cast<size_t>(ca)] + own[static_cast<size_t>(cb)]) / 2.0;
        if (d < best) {
          best = d;
          ba = ca;
          bb = cb;
        }
      }
    }
    if (ba >= 0 && best < half_tier) {
      leaves.Merge(ba, bb);
      ++rejoined;
      merged = true;
    }
  }
  return rejoined;
}

// Leaf-to-leaf residual, n_leaves x n_leaves (NaN where no host pair is measured): a low quantile
// of the measured host pairs, as faults (queueing, detours) only ever add latency to a pair.
std::vector<double> LeafDistances(const PairGraph& g, const std::vector<double>& r,
                                  const std::vector<int>& leaf_of, int n_leaves) {
  std::map<std::pair<int, int>, std::vector<double>> lp;
  std::vector<std::vector<double>> same(static_cast<size_t>(n_leaves));
  for (size_t i : g.live) {
    const int la = leaf_of[static_cast<size_t>(g.edges[i].a)],
              lb = leaf_of[static_cast<size_t>(g.edges[i].b)];
    if (la < 0 || lb < 0) continue;
    if (la == lb) {
      same[static_cast<size_t>(la)].push_back(r[i]);
      continue;
    }
    lp[{std::min(la, lb), std::max(la, lb)}].push_back(r[i]);
  }
  // Each leaf's own level (its host side and switch, which every distance from it carries); a leaf
  // of one host takes the median level.
  std::vector<double> own(static_cast<size_t>(n_leaves), NAN), owns;
  for (size_t l = 0; l < own.size(); ++l) {
    if (same[l].empty()) continue;
    own[l] = Median(same[l]);
    owns.push_back(own[l]);
  }
  const double own_default = owns.empty() ? 0.0 : Median(owns);
  for (double& v : own) {
    if (!std::isfinite(v)) v = own_default;
  }
  std::vector<double> dmat(static_cast<size_t>(n_leaves) * static_cast<size_t>(n_leaves), NAN);
  for (auto& [k, v] : lp) {
    std::sort(v.begin(), v.end());
    const double m = v[(v.size() - 1) / 4] - (own[static_cast<size_t>(k.first)] + own[static_cast<size_t>(k.second)]) / 2.0;
    dmat[static_cast<size_t>(k.first) * static_cast<size_t>(n_leaves) + static_cast<size_t>(k.second)] = m;
    dmat[static_cast<size_t>(k.second) * static_cast<size_t>(n_leaves) + static_cast<size_t>(k.first)] = m;
  }
  return dmat;
}

// The pod tier of one round.
struct PodTier {
  std::vector<int> label;  // per leaf: its pod
  double lo = 0;           // average residual of the last pod merge
  double hi = 0;           // average residual of the closest pods left apart
  double jump_ratio = 0;   // the largest jump with enough merges below, over their median
  std::vector<double> heights;  // the leaf dendrogram's merge linkages, ascending
  bool tier = false;       // more than one pod
};

// Median-linkage agglomeration of the L leaves on `dmat` until no measured pair joins two clusters:
// the merges in order (the two clusters' first leaves) and their linkages made non-decreasing (a
// running maximum). The median over the measured leaf pairs between two clusters: one faulty pair (a
// degraded cable, a congested switch) cannot hold a leaf away from its pod.
struct Dendrogram {
  std::vector<std::pair<size_t, size_t>> merges;
  std::vector<double> heights;
};

Dendrogram MedianLinkage(const std::vector<double>& dmat, size_t L) {
  std::vector<std::vector<size_t>> members(L);
  for (size_t a = 0; a < L; ++a) members[a] = {a};
  std::vector<char> alive(L, 1);
  Dendrogram d;
  double running = -kInf;
  std::vector<double> cross;
  for (;;) {
    double best = kInf;
    size_t ba = 0, bb = 0;
    for (size_t a = 0; a < L; ++a) {
      if (!alive[a]) continue;
      for (size_t b = a + 1; b < L; ++b) {
        if (!alive[b]) continue;
        cross.clear();
        for (size_t x : members[a]) {
          for (size_t y : members[b]) {
            if (std::isfinite(dmat[x * L + y])) cross.push_back(dmat[x * L + y]);
          }
        }
        if (cross.empty()) continue;
        const double h = Median(cross);
        if (h < best) {
          best = h;
          ba = a;
          bb = b;
        }
      }
    }
    if (!std::isfinite(best)) break;
    running = std::max(running, best);
    d.merges.emplace_back(ba, bb);
    d.heights.push_back(running);
    members[ba].insert(members[ba].end(), members[bb].begin(), members[bb].end());
    members[bb].clear();
    alive[bb] = 0;
  }
  return d;
}

// Pods: the leaves' dendrogram cut at its largest jump between consecutive merges, when at least
// kMinMergesBelow merges and half the leaves lie below it (pods of two leaves or more on average)
// and the jump is at least pod_jump_ratio times the median of those merges (a relative jump; the
// median at least min_pod_level_us); else one pod. One pod too when pods are not inferred or there is one leaf.
void InferPods(const std::vector<double>& dmat, int n_leaves, const LeafInferenceOptions& opt,
               PodTier& pods) {
  constexpr size_t kMinMergesBelow = 3;
  pods.label.assign(static_cast<size_t>(n_leaves), 0);
  pods.lo = pods.hi = 0;
  pods.jump_ratio = 0;
  pods.heights.clear();
  pods.tier = false;
  if (!opt.infer_pods || n_leaves <= 1) return;
  const size_t L = static_cast<size_t>(n_leaves);
  const Dendrogram d = MedianLinkage(dmat, L);
  pods.heights = d.heights;
  const size_t m = d.heights.size();
  size_t cut = m;  // merges applied
  if (m > 0) pods.lo = d.heights.back();
  size_t best_k = 0;
  double best_jump = -kInf;
  // A pod tier has at least two leaves per pod on average: at least half the leaves merged below.
  for (size_t k = std::max(kMinMergesBelow, (L + 1) / 2); k < m; ++k) {
    const double jump = d.heights[k] - d.heights[k - 1];
    if (jump > best_jump) {
      best_jump = jump;
      best_k = k;
    }
  }
  if (best_k > 0) {
    const std::vector<double> below(d.heights.begin(), d.heights.begin() + static_cast<std::ptrdiff_t>(best_k));
    pods.jump_ratio = best_jump / std::max(opt.min_pod_level_us, Median(below));
    if (pods.jump_ratio >= opt.pod_jump_ratio) {
      cut = best_k;
      pods.lo = d.heights[best_k - 1];
      pods.hi = d.heights[best_k];
    }
  }
  Clusters pc(static_cast<int>(L));
  for (size_t k = 0; k < cut; ++k) pc.Merge(pc.of[d.merges[k].first], pc.of[d.merges[k].second]);
  pods.label = Canonical(pc, std::vector<char>(L, 1));
  pods.tier = GroupCount(pods.label) > 1;
}

// Contrast rtt(a, x) - rtt(a, y) over third placed hosts a outside `skip` (sorted): the median,
// NaN when none.
double Contrast(const PairGraph& g, int x, int y, const std::vector<int>& skip) {
  std::vector<double> v;
  for (size_t e : g.adj[static_cast<size_t>(x)]) {
    const Edge& ed = g.edges[e];
    const int a = ed.a == x ? ed.b : ed.a;
    if (a == y || !g.placed[static_cast<size_t>(a)] || std::binary_search(skip.begin(), skip.end(), a))
      continue;
    auto it = g.edge_of.find(Key(a, y));
    if (it != g.edge_of.end()) v.push_back(ed.min_us - g.edges[it->second].min_us);
  }
  return Median(std::move(v));
}

// Host offsets from profile contrasts: a host's offset against a reference set R (its current leaf
// mates; a host alone on its leaf: the leaf of its nearest peer) is the median, over third hosts a
// outside R, of rtt(a, i) - (rtt(a, j) - o_j), j in R. Leaf mates reach every third host over the
// same switches, so this is exact for them whatever the fabric; offsets are then anchored per leaf
// at its fastest host (a leaf's common part stays in the fabric levels). Returns one per host.
std::vector<double> FitOffsets(const PairGraph& g, const Rows& rows, const std::vector<int>& leaf_of,
                               int n_leaves) {
  const int n = static_cast<int>(leaf_of.size());
  std::vector<double> no(static_cast<size_t>(n), 0.0);
  std::vector<std::vector<int>> members(static_cast<size_t>(n_leaves));
  for (int h = 0; h < n; ++h) {
    if (leaf_of[static_cast<size_t>(h)] >= 0)
      members[static_cast<size_t>(leaf_of[static_cast<size_t>(h)])].push_back(h);
  }
  // Leaves of two or more hosts: least squares of o_x - o_y = contrast(x, y) (the mean of each
  // host's contrasts), anchored at the leaf's fastest host.
  for (const std::vector<int>& m : members) {
    if (m.size() < 2) continue;
    double floor_us = kInf;
    for (int x : m) {
      double sum = 0;
      int cnt = 1;  // contrast with itself: 0
      for (int y : m) {
        if (y == x) continue;
        const double c = Contrast(g, x, y, m);
        if (std::isfinite(c)) {
          sum += c;
          ++cnt;
        }
      }
      no[static_cast<size_t>(x)] = sum / cnt;
      floor_us = std::min(floor_us, no[static_cast<size_t>(x)]);
    }
    for (int x : m) no[static_cast<size_t>(x)] -= floor_us;
  }
  // A host alone: against the leaf of its nearest peer (a few passes, as that leaf may be a host
  // alone too).
  for (int pass = 0; pass < 3; ++pass) {
    for (const std::vector<int>& m : members) {
      if (m.size() != 1 || rows[static_cast<size_t>(m[0])].empty()) continue;
      const int x = m[0];
      const std::vector<int>& ref =
          members[static_cast<size_t>(leaf_of[static_cast<size_t>(rows[static_cast<size_t>(x)][0].second)])];
      std::vector<double> v;
      for (int y : ref) {
        const double c = Contrast(g, x, y, ref);
        if (std::isfinite(c)) v.push_back(c + no[static_cast<size_t>(y)]);
      }
      if (!v.empty()) no[static_cast<size_t>(x)] = Median(std::move(v));
    }
  }
  return no;
}

// Tier levels: the median residual (after the offsets `o`) of the live pairs in the same leaf, the
// same pod, and across pods (NaN for a tier without pairs).
std::vector<double> TierLevels(const PairGraph& g, const std::vector<int>& leaf_of,
                               const std::vector<int>& pod_of, const std::vector<double>& o) {
  std::vector<std::vector<double>> per_tier(3);
  for (size_t i : g.live) {
    const Edge& e = g.edges[i];
    const int t = leaf_of[static_cast<size_t>(e.a)] == leaf_of[static_cast<size_t>(e.b)] ? 0
                  : pod_of[static_cast<size_t>(e.a)] == pod_of[static_cast<size_t>(e.b)] ? 1
                                                                                         : 2;
    per_tier[static_cast<size_t>(t)].push_back(e.min_us - o[static_cast<size_t>(e.a)] -
                                               o[static_cast<size_t>(e.b)]);
  }
  std::vector<double> levels(3, NAN);
  for (size_t t = 0; t < 3; ++t) levels[t] = Median(std::move(per_tier[t]));
  return levels;
}

// The partition the rounds end with, and what the evidence reports of the last round.
struct Partition {
  std::vector<double> offset_us;     // per host (the offsets the last round's residuals used)
  std::vector<int> leaf_of, pod_of;  // per host: leaf / pod index, -1 when unplaced
  int n_leaves = 0, n_pods = 0;
  RowPartitionResult tiers;  // tier-0 / tier-1 levels and the global midpoint
  int attached = 0;          // lone hosts attached to their closest leaf
  int rejoined = 0;          // leaf pairs rejoined by the offset-free level test
  PodTier pods;
  std::vector<double> levels;  // median residual per tier (same leaf, same pod, across)
};

// One round: rows of residual RTTs (after `p.offset_us`), leaves from the rows, lone hosts and split
// leaves rejoined, pods over the leaves, then new offsets and the tier levels. Returns the new
// offsets (all 0 without fit_offsets).
std::vector<double> RunRound(const PairGraph& g, const LeafInferenceOptions& opt, std::vector<double>& r,
                             Partition& p) {
  const int n = static_cast<int>(g.placed.size());
  for (size_t i : g.live)
    r[i] = g.edges[i].min_us - p.offset_us[static_cast<size_t>(g.edges[i].a)] -
           p.offset_us[static_cast<size_t>(g.edges[i].b)];
  const Rows rows = SortedRows(g, r);
  Clusters leaves(n);
  p.tiers = RowPartition(
      rows, opt.min_level_gap_us, [&](int x, int y) { return g.edge_of.count(Key(x, y)) > 0; }, leaves);
  p.attached = AttachLoneHosts(rows, g.placed, leaves);
  p.rejoined = std::isfinite(p.tiers.l1) ? RejoinLeaves(g, r, (p.tiers.l1 - p.tiers.l0) / 2.0, leaves) : 0;
  p.leaf_of = Canonical(leaves, g.placed);
  p.n_leaves = GroupCount(p.leaf_of);
  InferPods(LeafDistances(g, r, p.leaf_of, p.n_leaves), p.n_leaves, opt, p.pods);
  p.n_pods = GroupCount(p.pods.label);
  p.pod_of.assign(static_cast<size_t>(n), -1);
  for (int h = 0; h < n; ++h) {
    if (p.leaf_of[static_cast<size_t>(h)] >= 0)
      p.pod_of[static_cast<size_t>(h)] = p.pods.label[static_cast<size_t>(p.leaf_of[static_cast<size_t>(h)])];
  }
  std::vector<double> no = opt.fit_offsets ? FitOffsets(g, rows, p.leaf_of, p.n_leaves)
                                           : std::vector<double>(static_cast<size_t>(n), 0.0);
  p.levels = TierLevels(g, p.leaf_of, p.pod_of, no);
  return no;
}

// Rounds until the partition is stable (at most max_iterations); sets out.iterations and
// out.converged.
Partition FitPartition(const PairGraph& g, const LeafInferenceOptions& opt, LeafInference& out) {
  Partition p;
  p.offset_us.assign(g.placed.size(), 0.0);
  std::vector<double> r(g.edges.size(), 0.0);
  std::vector<int> prev_leaf, prev_pod;
  for (int iter = 1; iter <= std::max(1, opt.max_iterations); ++iter) {
    out.iterations = iter;
    std::vector<double> no = RunRound(g, opt, r, p);
    const bool stable = p.leaf_of == prev_leaf && p.pod_of == prev_pod;
    prev_leaf = p.leaf_of;
    prev_pod = p.pod_of;
    if (stable) {
      out.converged = true;
      break;
    }
    if (opt.fit_offsets) p.offset_us = std::move(no);
  }
  return p;
}

// Writes the leaves and pods of the partition (named in index order) and the tier levels present.
void WriteGroups(const Partition& p, LeafInference& out) {
  const int n = static_cast<int>(out.hosts.size());
  for (int l = 0; l < p.n_leaves; ++l) {
    InferredLeaf leaf;
    leaf.name = StringPrintf("leaf-%02d", l);
    for (int h = 0; h < n; ++h) {
      if (p.leaf_of[static_cast<size_t>(h)] == l) leaf.hosts.push_back(out.hosts[static_cast<size_t>(h)]);
    }
    out.leaves.push_back(std::move(leaf));
  }
  for (int q = 0; q < p.n_pods; ++q) {
    InferredPod pod;
    pod.name = StringPrintf("pod-%02d", q);
    std::set<std::string> hs;
    for (int h = 0; h < n; ++h) {
      if (p.pod_of[static_cast<size_t>(h)] != q) continue;
      hs.insert(out.hosts[static_cast<size_t>(h)]);
      const std::string& ln = out.leaves[static_cast<size_t>(p.leaf_of[static_cast<size_t>(h)])].name;
      if (std::find(pod.leaves.begin(), pod.leaves.end(), ln) == pod.leaves.end()) pod.leaves.push_back(ln);
    }
    std::sort(pod.leaves.begin(), pod.leaves.end());
    pod.hosts.assign(hs.begin(), hs.end());
    out.pods.push_back(std::move(pod));
  }
  for (double lv : p.levels) {
    if (std::isfinite(lv)) out.levels_us.push_back(lv);
  }
  std::sort(out.levels_us.begin(), out.levels_us.end());
}

// Row margins of the final partition: per host with leaf mates and other peers, its nearest
// non-mate minus its farthest mate (residual RTT after the final offsets).
struct RowMargins {
  std::vector<double> same_leaf;  // residuals of the same-leaf pairs
  std::vector<double> margins;    // per such host, in host order
  int negative_rows = 0;          // margins <= 0: no clean row gap
};

RowMargins MeasureRowMargins(const PairGraph& g, const Partition& p) {
  RowMargins rm;
  const size_t n = g.placed.size();
  const std::vector<double>& o = p.offset_us;
  std::vector<double> far_mate(n, -kInf), near_other(n, kInf);
  for (size_t i : g.live) {
    const Edge& e = g.edges[i];
    const double ri = e.min_us - o[static_cast<size_t>(e.a)] - o[static_cast<size_t>(e.b)];
    const bool same = p.leaf_of[static_cast<size_t>(e.a)] == p.leaf_of[static_cast<size_t>(e.b)];
    if (same) rm.same_leaf.push_back(ri);
    for (int h : {e.a, e.b}) {
      if (same) {
        far_mate[static_cast<size_t>(h)] = std::max(far_mate[static_cast<size_t>(h)], ri);
      } else {
        near_other[static_cast<size_t>(h)] = std::min(near_other[static_cast<size_t>(h)], ri);
      }
    }
  }
  for (size_t h = 0; h < n; ++h) {
    if (std::isfinite(far_mate[h]) && std::isfinite(near_other[h])) {
      rm.margins.push_back(near_other[h] - far_mate[h]);
      if (rm.margins.back() <= 0) ++rm.negative_rows;
    }
  }
  return rm;
}

// Separation (the median row margin over the within-leaf spread, MAD), the pod margin and the
// confidence: the median row margin against the level gap, times the share of rows whose own gap
// separates their mates (the rest were placed by the leaf-level tests), less when not converged.
void ScoreSeparation(const LeafInferenceOptions& opt, const Partition& p, const RowMargins& rm,
                     LeafInference& out) {
  if (!rm.margins.empty()) {
    out.margin_us = Median(rm.margins);
    std::vector<double> dev;
    const double med = Median(rm.same_leaf);
    for (double v : rm.same_leaf) dev.push_back(std::abs(v - med));
    out.separation = out.margin_us / std::max(0.01, Median(std::move(dev)));
  }
  out.pod_margin_us = p.pods.tier ? p.pods.hi - p.pods.lo : 0.0;
  const double clean_rows = rm.margins.empty() ? 0.0
                                               : 1.0 - static_cast<double>(rm.negative_rows) /
                                                           static_cast<double>(rm.margins.size());
  out.confidence = out.margin_us <= 0
                       ? 0.0
                       : std::clamp(out.margin_us / (out.margin_us + opt.min_level_gap_us), 0.0, 1.0) *
                             clean_rows * (out.converged ? 1.0 : 0.8);
}

// The evidence lines of the result: tiers, leaves and margins, the pod tier, the leaf-level tests,
// the levels and the rounds.
void AddResultEvidence(const LeafInferenceOptions& opt, const Partition& p, const RowMargins& rm,
                       LeafInference& out) {
  out.evidence.push_back(
      "tier-0 level " + Fmt(p.tiers.l0) + " us (median nearest-peer residual RTT), tier-1 level " +
      Fmt(p.tiers.l1) + " us (median upper side of each host's first gap >= " + Fmt(opt.min_level_gap_us) +
      " us); global midpoint " + Fmt(p.tiers.tau) + " us, each host cut at its own gap straddling it");
  out.evidence.push_back(
      std::to_string(out.leaves.size()) + " leaves, " + std::to_string(out.pods.size()) + " pods; " +
      std::to_string(rm.same_leaf.size()) + " same-leaf pairs; median row margin " + Fmt(out.margin_us) +
      " us (nearest other host minus farthest leaf mate), separation " + FormatFixed(out.separation, 1) +
      " x within-leaf MAD; " + std::to_string(rm.negative_rows) + " of " + std::to_string(rm.margins.size()) +
      " hosts without a clean row gap (placed by leaf-level tests)");
  std::string hs;
  for (double h : p.pods.heights) hs += " " + Fmt(h);
  const std::string jump = "largest jump " + FormatFixed(p.pods.jump_ratio, 3) + " x the median merge below it (split at >= " +
                           FormatFixed(opt.pod_jump_ratio, 3) + ")";
  if (p.pods.tier) {
    out.evidence.push_back("pod tier: leaves' dendrogram (median linkage of residuals above each leaf's own level) merges at" +
                           hs + " us; cut between " + Fmt(p.pods.lo) + " and " + Fmt(p.pods.hi) + " us, " + jump);
  } else if (out.leaves.size() > 1) {
    out.evidence.push_back("no pod tier: leaves' dendrogram merges at" + hs + " us, " + jump + ": one pod");
  }
  if (p.attached > 0) {
    out.evidence.push_back(
        std::to_string(p.attached) +
        " lone host(s) attached to the leaf they are closer to than that leaf is to any other");
  }
  if (p.rejoined > 0) {
    out.evidence.push_back(
        std::to_string(p.rejoined) +
        " leaf pair(s) rejoined: residual between them within half a tier of their own levels");
  }
  std::string lv = "levels_us";
  for (double v : out.levels_us) lv += " " + Fmt(v);
  out.evidence.push_back(lv);
}

}  // namespace

LeafInference InferLeaves(const std::vector<formats::PathProbe>& probes, const LeafInferenceOptions& opt) {
  LeafInference out;
  PairGraph g = MeasurePairs(probes, opt, out);
  const int placed_n = PlaceHosts(opt, g, out);
  out.offset_us.assign(out.hosts.size(), 0.0);
  out.evidence.push_back("probes used " + std::to_string(out.probes_used) + ", ignored " +
                         std::to_string(out.probes_ignored) + "; host pairs " + std::to_string(out.pairs) +
                         " (minimum RTT per pair, both directions; hop lists not read)");
  if (placed_n < 2) {
    out.evidence.push_back("too few placed hosts to infer leaves");
    return out;
  }
  const Partition p = FitPartition(g, opt, out);
  out.offset_us = p.offset_us;
  WriteGroups(p, out);
  const RowMargins rm = MeasureRowMargins(g, p);
  ScoreSeparation(opt, p, rm, out);
  AddResultEvidence(opt, p, rm, out);
  out.evidence.push_back(std::to_string(out.iterations) + " iteration(s), " +
                         (out.converged ? "partition stable" : "stopped at max_iterations"));
  return out;
}

}  // namespace toposcope::analysis
