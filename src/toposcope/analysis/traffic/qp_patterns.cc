// analysis/traffic/qp_patterns: QP state-flow windows, features, k-means and the pattern classifier.
#include "toposcope/analysis/traffic/qp_patterns.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/stats/kmeans.h"

namespace toposcope::analysis {
namespace {

constexpr NamedValue<PatternClass> kPatternClassNames[] = {
    {PatternClass::kUnknown, "unknown"}, {PatternClass::kAllreduce, "allreduce"},
    {PatternClass::kPipeline, "pipeline"}, {PatternClass::kMixed, "mixed"}};

constexpr NamedValue<SeedPatternClass> kSeedClassNames[] = {
    {SeedPatternClass::kAllreduce, "allreduce"}, {SeedPatternClass::kPipeline, "pipeline"},
    {SeedPatternClass::kUnclassified, "unclassified"}};

constexpr NamedValue<QpClass> kQpClassNames[] = {
    {QpClass::kAllreduce, "allreduce"}, {QpClass::kPipeline, "pipeline"}, {QpClass::kSteady, "steady"}};

using formats::QpState;

constexpr uint8_t Cell(QpState from, QpState to) {
  return static_cast<uint8_t>(static_cast<int>(from) * 8 + static_cast<int>(to));
}
constexpr uint8_t kErrReset = Cell(QpState::kErr, QpState::kReset);
constexpr uint8_t kRtsSqd = Cell(QpState::kRts, QpState::kSqd);
constexpr uint8_t kResetInit = Cell(QpState::kReset, QpState::kInit);

std::array<double, 5> Quantiles(std::vector<double> v) {
  std::array<double, 5> q{};
  if (v.empty()) return q;
  std::sort(v.begin(), v.end());
  const double ps[5] = {0.0, 0.25, 0.5, 0.75, 1.0};
  for (int i = 0; i < 5; ++i) {
    const double pos = ps[i] * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(pos));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    const double f = pos - static_cast<double>(lo);
    q[static_cast<size_t>(i)] = v[lo] * (1 - f) + v[hi] * f;
  }
  return q;
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  return Quantiles(std::move(v))[2];
}

// One active window of one QP, reduced to what the classifier needs.
struct WindowSummary {
  int64_t window;
  double entropy;
  uint32_t err_reset, rts_sqd, recreations;
};

struct QpWork {
  const std::string* host;
  uint32_t qp;
  std::string job;
  std::string peer_group;  // see QpLabel::peer_group
  std::vector<WindowSummary> windows;
  std::vector<int64_t> recreation_windows;  // windows with >= 1 RESET->INIT
  QpLabel label;
};

// Sorts one QP's transition entries by (window, cell).
template <class Entry>
void SortEntries(std::vector<Entry>& e) {
  std::sort(e.begin(), e.end(), [](const Entry& a, const Entry& b) {
    return a.window != b.window ? a.window < b.window : a.cell < b.cell;
  });
}

// Calls fn(window, matrix) for every window of sorted entries, in window order, with the window's
// transition counts.
template <class Entry, class Fn>
void ForEachWindow(const std::vector<Entry>& e, Fn&& fn) {
  for (size_t i = 0; i < e.size();) {
    QpTransitionMatrix m{};
    size_t j = i;
    for (; j < e.size() && e[j].window == e[i].window; ++j) m[e[j].cell / 8][e[j].cell % 8] += e[j].count;
    fn(e[i].window, m);
    i = j;
  }
}

// The per-window figures pooled over every QP, for the distributions.
struct WindowPools {
  std::vector<double> entropy, err_resets, defined_ratios;
};

// Half the median gap between consecutive windows of `w` (sorted, distinct), at least 1: the lags
// at which another host's periodic re-creations can follow these (a lag past half a period is a
// negative lag to the next one).
int64_t HalfPeriodWindows(const std::vector<int64_t>& w) {
  std::vector<int64_t> gaps;
  for (size_t i = 1; i < w.size(); ++i) gaps.push_back(w[i] - w[i - 1]);
  if (gaps.empty()) return 1;
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
  return std::max<int64_t>(1, gaps[gaps.size() / 2] / 2);
}

// The largest share, over lags of up to `max_lag` windows, of the windows `a` whose +-1
// neighbourhood at that lag holds one of `b` (both sorted): hosts of one communicator re-create
// together (lag 0), the stages of one pipeline at a fixed lag.
double WindowAffinity(const std::vector<int64_t>& a, const std::vector<int64_t>& b, int64_t max_lag) {
  if (a.empty()) return 0;
  std::unordered_map<int64_t, int64_t> met;  // lag -> windows of `a` met at that lag
  std::vector<int64_t> lags;
  for (const int64_t w : a) {
    lags.clear();
    for (auto it = std::lower_bound(b.begin(), b.end(), w - max_lag - 1); it != b.end() && *it <= w + max_lag + 1; ++it) {
      for (int64_t d = -1; d <= 1; ++d) lags.push_back(*it - w + d);
    }
    std::sort(lags.begin(), lags.end());
    lags.erase(std::unique(lags.begin(), lags.end()), lags.end());
    for (const int64_t l : lags) {
      if (l >= -max_lag && l <= max_lag) ++met[l];
    }
  }
  int64_t best = 0;
  for (const auto& [lag, n] : met) best = std::max(best, n);
  return static_cast<double>(best) / static_cast<double>(a.size());
}

// A union-find over indices.
struct Components {
  std::vector<size_t> parent;
  explicit Components(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), size_t{0}); }
  size_t Find(size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }
  void Join(size_t a, size_t b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// 2a. Peer groups: the job when named; else hosts joined when their re-creations meet, both ways,
// in at least opt.peer_affinity of their windows at one lag (WindowAffinity), joined transitively. Returns how many groups were found from the data.
size_t AssignPeerGroups(std::vector<QpWork>& work, const QpPatternOptions& opt) {
  std::map<std::string, std::vector<int64_t>> host_windows;  // unlabelled QPs' re-creation windows
  for (QpWork& q : work) {
    if (!q.job.empty()) {
      q.peer_group = "job:" + q.job;
      continue;
    }
    auto& w = host_windows[*q.host];
    w.insert(w.end(), q.recreation_windows.begin(), q.recreation_windows.end());
  }
  std::vector<std::string> hosts;
  std::vector<std::vector<int64_t>> windows;
  for (auto& [host, w] : host_windows) {
    std::sort(w.begin(), w.end());
    w.erase(std::unique(w.begin(), w.end()), w.end());
    hosts.push_back(host);
    windows.push_back(std::move(w));
  }
  std::vector<int64_t> max_lag;
  for (const auto& w : windows) max_lag.push_back(HalfPeriodWindows(w));
  Components groups(hosts.size());
  for (size_t a = 0; a < hosts.size(); ++a) {
    for (size_t b = a + 1; b < hosts.size(); ++b) {
      if (windows[a].empty() || windows[b].empty() || groups.Find(a) == groups.Find(b)) continue;
      const int64_t lag = std::max(max_lag[a], max_lag[b]);
      if (WindowAffinity(windows[a], windows[b], lag) >= opt.peer_affinity &&
          WindowAffinity(windows[b], windows[a], lag) >= opt.peer_affinity) {
        groups.Join(a, b);
      }
    }
  }
  std::map<std::string, size_t> index;
  for (size_t h = 0; h < hosts.size(); ++h) index[hosts[h]] = h;
  std::set<size_t> roots;
  for (QpWork& q : work) {
    if (!q.job.empty()) continue;
    const size_t root = groups.Find(index[*q.host]);
    roots.insert(root);
    q.peer_group = "hosts:" + hosts[root];
  }
  return roots.size();
}

// The QP re-creations of one peer group in one window.
struct WindowCount {
  int64_t qps = 0;                      // distinct QPs re-creating
  const std::string* host = nullptr;    // the first one's host
  bool hosts = false;                   // more than one host
  void Add(const std::string* h) {
    ++qps;
    if (host == nullptr) host = h;
    else if (*host != *h) hosts = true;
  }
};

// 2b. Batch synchrony per peer group: sets each QP's label.sync. A batch is communicator-wide: at
// least max(min_batch_qps, batch_share x the group's re-creating QPs) re-creations within +-1
// window, on more than one host (QPs carry inter-host traffic, so a communicator's batch spans
// hosts; one host's few staggered QPs never make one).
void MarkBatchSynchrony(std::vector<QpWork>& work, const QpPatternOptions& opt) {
  std::map<std::string, std::vector<size_t>> groups;
  for (size_t i = 0; i < work.size(); ++i) groups[work[i].peer_group].push_back(i);
  for (const auto& [group, members] : groups) {
    std::unordered_map<int64_t, WindowCount> per_window;
    int64_t n_recreating = 0;
    for (const size_t i : members) {
      if (!work[i].recreation_windows.empty()) ++n_recreating;
      for (const int64_t w : work[i].recreation_windows) per_window[w].Add(work[i].host);
    }
    const double need = std::max<double>(opt.min_batch_qps, opt.batch_share * static_cast<double>(n_recreating));
    auto is_batch = [&](int64_t w) {
      int64_t qps = 0;
      const std::string* first = nullptr;
      bool hosts = false;
      for (int64_t d = -1; d <= 1; ++d) {
        const auto it = per_window.find(w + d);
        if (it == per_window.end()) continue;
        const WindowCount& c = it->second;
        qps += c.qps;
        hosts = hosts || c.hosts || (first != nullptr && *first != *c.host);
        if (first == nullptr) first = c.host;
      }
      return hosts && static_cast<double>(qps) >= need;
    };
    for (const size_t i : members) {
      QpWork& q = work[i];
      int64_t in_batch = 0;
      for (const int64_t w : q.recreation_windows) in_batch += is_batch(w) ? 1 : 0;
      q.label.sync = q.recreation_windows.empty()
                         ? 0.0
                         : static_cast<double>(in_batch) / static_cast<double>(q.recreation_windows.size());
    }
  }
}

// 3. Per-QP labels and features; each QP's synchrony and re-creations go to *qp_sync and
// *qp_recreations.
void LabelQps(std::vector<QpWork>& work, const QpPatternOptions& opt, std::vector<double>* qp_sync,
              std::vector<double>* qp_recreations) {
  for (QpWork& q : work) {
    QpLabel& l = q.label;
    l.host = *q.host;
    l.qp = q.qp;
    l.job = q.job;
    l.peer_group = q.peer_group;
    l.windows = static_cast<int64_t>(q.windows.size());
    int64_t err_resets = 0;
    double ent = 0;
    for (const auto& s : q.windows) {
      l.recreations += s.recreations;
      err_resets += s.err_reset;
      ent += s.entropy;
    }
    l.mean_entropy = l.windows > 0 ? ent / static_cast<double>(l.windows) : 0;
    l.err_resets_per_window = l.windows > 0 ? static_cast<double>(err_resets) / static_cast<double>(l.windows) : 0;
    if (static_cast<int64_t>(q.recreation_windows.size()) >= opt.min_recreations) {
      l.cls = l.sync >= opt.sync_allreduce ? QpClass::kAllreduce : QpClass::kPipeline;
    } else {
      l.cls = QpClass::kSteady;
    }
    qp_sync->push_back(l.sync);
    qp_recreations->push_back(static_cast<double>(l.recreations));
  }
}

// 4. k-means over the labelled QPs' feature vectors (z-scored): each labelled QP's cluster, the
// cluster sizes and names go to `work` and *res. Returns how many QPs are labelled.
size_t ClusterLabelled(std::vector<QpWork>& work, const QpPatternOptions& opt, QpPatternResult* res) {
  std::vector<size_t> labelled;
  for (size_t i = 0; i < work.size(); ++i) {
    if (work[i].label.cls != QpClass::kSteady) labelled.push_back(i);
  }
  if (labelled.empty()) return 0;
  constexpr int kDims = 4;
  Eigen::MatrixXd x(static_cast<Eigen::Index>(labelled.size()), kDims);
  for (size_t r = 0; r < labelled.size(); ++r) {
    const QpLabel& l = work[labelled[r]].label;
    const auto ri = static_cast<Eigen::Index>(r);
    x(ri, 0) = l.sync;
    x(ri, 1) = l.mean_entropy;
    x(ri, 2) = l.err_resets_per_window;
    x(ri, 3) = std::log1p(static_cast<double>(l.recreations));
  }
  for (Eigen::Index c = 0; c < kDims; ++c) {
    const double mean = x.col(c).mean();
    const double sd = std::sqrt((x.col(c).array() - mean).square().mean());
    // z-scores; synchrony, the feature that carries the class, weighs 3x.
    const double weight = c == 0 ? 3.0 : 1.0;
    if (sd > 1e-12) {
      x.col(c) = ((x.col(c).array() - mean) * (weight / sd)).matrix();
    } else {
      x.col(c).setZero();
    }
  }
  const stats::KMeansResult km = stats::KMeans(x, opt.k, opt.seed);
  const int k = static_cast<int>(km.centers.rows());
  res->cluster_sizes.assign(static_cast<size_t>(k), 0);
  std::vector<std::pair<int64_t, int64_t>> votes(static_cast<size_t>(k), {0, 0});  // allreduce, pipeline
  for (size_t r = 0; r < labelled.size(); ++r) {
    const int c = km.labels[r];
    work[labelled[r]].label.cluster = c;
    ++res->cluster_sizes[static_cast<size_t>(c)];
    (work[labelled[r]].label.cls == QpClass::kAllreduce ? votes[static_cast<size_t>(c)].first
                                                        : votes[static_cast<size_t>(c)].second)++;
  }
  for (const auto& [a, p] : votes) {
    res->cluster_names.push_back(a + p == 0 ? "empty" : (a >= p ? "allreduce" : "pipeline"));
  }
  return labelled.size();
}

// What one scope (a job, a host, everything) pools over its QPs.
struct ScopeAcc {
  int64_t windows = 0, qps = 0, err_reset = 0, rts_sqd = 0, windows_defined = 0, allreduce = 0, pipeline = 0;
  double entropy_sum = 0;
  std::vector<double> syncs;
};

// Adds one QP's windows and label to a scope.
void AddToScope(const QpWork& q, ScopeAcc* s) {
  ++s->qps;
  for (const auto& w : q.windows) {
    ++s->windows;
    s->err_reset += w.err_reset;
    s->rts_sqd += w.rts_sqd;
    if (w.rts_sqd > 0) ++s->windows_defined;
    s->entropy_sum += w.entropy;
  }
  if (q.label.cls == QpClass::kAllreduce) ++s->allreduce;
  if (q.label.cls == QpClass::kPipeline) ++s->pipeline;
  if (q.label.cls != QpClass::kSteady) s->syncs.push_back(q.label.sync);
}

// The evidence line of a scope report `p` built from `s`.
std::string ScopeEvidence(const PatternReport& p, const ScopeAcc& s, const QpPatternOptions& opt) {
  const int64_t labelled_n = s.allreduce + s.pipeline;
  std::string ev = std::to_string(s.qps) + " QPs, " + std::to_string(labelled_n) + " with >= " +
                   std::to_string(opt.min_recreations) + " re-creations: " + FormatPercent(p.allreduce_share) +
                   " re-create in job-wide batches (AllReduce-like), " + FormatPercent(p.pipeline_share) +
                   " staggered (pipeline-like); median batch synchrony " + FormatFixed(p.median_sync, 2) +
                   "; mean window state entropy " + FormatFixed(p.state_entropy, 2) + " bits over " +
                   std::to_string(s.windows) + " windows; reset density ";
  if (p.reset_density_defined) {
    ev += FormatFixed(p.reset_density, 3) + " (" + std::to_string(s.err_reset) + " ERR->RESET / " +
          std::to_string(s.rts_sqd) + " RTS->SQD)";
  } else {
    ev += "undefined (" + std::to_string(s.err_reset) + " ERR->RESET / 0 RTS->SQD; reported as " +
          FormatFixed(opt.zero_denominator_value, 2) + ")";
  }
  ev += "; the published thresholds (> " + FormatFixed(opt.allreduce_reset_density, 2) + " and < " +
        FormatFixed(opt.allreduce_entropy_max, 1) + " bits: AllReduce; < " +
        FormatFixed(opt.pipeline_reset_density, 2) + " and > " + FormatFixed(opt.pipeline_entropy_min, 1) +
        " bits: pipeline) say " + std::string(SeedPatternClassName(p.seed_cls));
  if (!p.seed_feature_informative) ev += " (the ratio carries no information here)";
  return ev;
}

// The report of one scope: its pooled seed features, our class, the seed's class and the evidence.
PatternReport ScopeReport(const std::string& scope, const ScopeAcc& s, const QpPatternOptions& opt) {
  PatternReport p;
  p.scope = scope;
  p.windows = s.windows;
  p.qps = s.qps;
  p.reset_density_defined = s.rts_sqd > 0;
  p.reset_density = p.reset_density_defined ? static_cast<double>(s.err_reset) / static_cast<double>(s.rts_sqd)
                                            : opt.zero_denominator_value;
  p.state_entropy = s.windows > 0 ? s.entropy_sum / static_cast<double>(s.windows) : 0;
  p.seed_feature_informative = s.windows > 0 && 2 * s.windows_defined >= s.windows;
  const int64_t labelled_n = s.allreduce + s.pipeline;
  p.allreduce_share = labelled_n > 0 ? static_cast<double>(s.allreduce) / static_cast<double>(labelled_n) : 0;
  p.pipeline_share = labelled_n > 0 ? static_cast<double>(s.pipeline) / static_cast<double>(labelled_n) : 0;
  p.median_sync = Median(s.syncs);
  if (labelled_n == 0) {
    p.cls = PatternClass::kUnknown;
  } else if (p.allreduce_share >= opt.scope_majority) {
    p.cls = PatternClass::kAllreduce;
  } else if (p.pipeline_share >= opt.scope_majority) {
    p.cls = PatternClass::kPipeline;
  } else {
    p.cls = PatternClass::kMixed;
  }
  if (p.reset_density_defined && p.reset_density > opt.allreduce_reset_density &&
      p.state_entropy < opt.allreduce_entropy_max) {
    p.seed_cls = SeedPatternClass::kAllreduce;
  } else if (p.reset_density_defined && p.reset_density < opt.pipeline_reset_density &&
             p.state_entropy > opt.pipeline_entropy_min) {
    p.seed_cls = SeedPatternClass::kPipeline;
  } else {
    p.seed_cls = SeedPatternClass::kUnclassified;
  }
  p.evidence = ScopeEvidence(p, s, opt);
  return p;
}

// 5. Scopes: one report per job (when named), per host, then "all" (when there are QPs).
void ReportScopes(const std::vector<QpWork>& work, const QpPatternOptions& opt, QpPatternResult* res) {
  std::map<std::string, ScopeAcc> jobs, hosts;
  ScopeAcc all;
  for (const QpWork& q : work) {
    std::vector<ScopeAcc*> scopes = {&hosts[*q.host], &all};
    if (!q.job.empty()) scopes.push_back(&jobs[q.job]);
    for (ScopeAcc* s : scopes) AddToScope(q, s);
  }
  for (const auto& [job, s] : jobs) res->patterns.push_back(ScopeReport("job:" + job, s, opt));
  for (const auto& [host, s] : hosts) res->patterns.push_back(ScopeReport("host:" + host, s, opt));
  if (!work.empty()) res->patterns.push_back(ScopeReport("all", all, opt));
}

// 6. The note: whether the seed's reset density is defined, and how many of `qps` QPs our
// classifier labelled.
std::string ResultNote(const QpPatternResult& res, size_t labelled, size_t qps, const QpPatternOptions& opt) {
  const std::string ours = "classified by the batch synchrony of QP re-creations (" +
                           std::to_string(labelled) + " of " + std::to_string(qps) + " QPs labelled)";
  if (res.windows == 0) return "no QP transitions";
  if (res.windows_ratio_defined == 0) {
    return "RTS->SQD never seen in " + std::to_string(res.windows) +
           " QP windows: the reset density #(ERR->RESET)/#(RTS->SQD) is undefined (reported as " +
           FormatFixed(opt.zero_denominator_value, 2) + ") and carries no information; " + ours;
  }
  if (2 * res.windows_ratio_defined < res.windows) {
    return "RTS->SQD seen in only " + std::to_string(res.windows_ratio_defined) + " of " +
           std::to_string(res.windows) + " QP windows: the reset density is undefined elsewhere; " + ours;
  }
  return "the reset density is defined in " + std::to_string(res.windows_ratio_defined) + " of " +
         std::to_string(res.windows) + " QP windows; " + ours;
}

}  // namespace

std::string_view PatternClassName(PatternClass c) { return NameIn(kPatternClassNames, c, "unknown"); }

std::string_view SeedPatternClassName(SeedPatternClass c) { return NameIn(kSeedClassNames, c, "unclassified"); }

std::string_view QpClassName(QpClass c) { return NameIn(kQpClassNames, c, "steady"); }

double QpStateEntropyBits(const QpTransitionMatrix& m) {
  double total = 0;
  for (const auto& row : m) {
    for (const uint32_t c : row) total += c;
  }
  if (total <= 0) return 0;
  double h = 0;
  for (const auto& row : m) {
    for (const uint32_t c : row) {
      if (c == 0) continue;
      const double p = c / total;
      h -= p * std::log2(p);
    }
  }
  return h == 0 ? 0.0 : h;  // no -0
}

double QpResetDensity(const QpTransitionMatrix& m, double zero_denominator_value, bool* defined) {
  const uint32_t num = m[static_cast<size_t>(QpState::kErr)][static_cast<size_t>(QpState::kReset)];
  const uint32_t den = m[static_cast<size_t>(QpState::kRts)][static_cast<size_t>(QpState::kSqd)];
  if (defined != nullptr) *defined = den > 0;
  if (den == 0) return zero_denominator_value;
  return static_cast<double>(num) / static_cast<double>(den);
}

QpPatternAccumulator::QpPatternAccumulator(QpPatternOptions o) : opt_(o) {
  if (opt_.window_ns <= 0) opt_.window_ns = 10'000'000;
  if (opt_.k < 1) opt_.k = 1;
}

void QpPatternAccumulator::Add(const formats::QpStateRecord& r) {
  ++records_;
  if (!formats::IsLegalQpTransition(r.from, r.to)) ++illegal_;
  QpData& d = qps_[QpKey{r.host, r.qp}];
  if (!r.job.empty() && d.job != r.job) d.job = r.job;
  const int64_t w = FloorDiv(r.ts_ns, opt_.window_ns);
  const uint8_t cell = Cell(r.from, r.to);
  if (!d.entries.empty() && d.entries.back().window == w && d.entries.back().cell == cell) {
    ++d.entries.back().count;
  } else {
    d.entries.push_back(Entry{w, cell, 1});
  }
}

std::vector<QpWindowFeatures> QpPatternAccumulator::Windows() const {
  std::vector<QpWindowFeatures> out;
  for (const auto& kv : qps_) {  // no structured binding: clang 14 cannot capture one in a lambda
    const QpKey& key = kv.first;
    std::vector<Entry> e = kv.second.entries;
    SortEntries(e);
    ForEachWindow(e, [&](int64_t window, const QpTransitionMatrix& m) {
      QpWindowFeatures f;
      f.host = key.host;
      f.qp = key.qp;
      f.window_start_ns = window * opt_.window_ns;
      f.transitions = m;
      f.state_entropy = QpStateEntropyBits(f.transitions);
      f.reset_density = QpResetDensity(f.transitions, opt_.zero_denominator_value, &f.ratio_defined);
      out.push_back(std::move(f));
    });
  }
  return out;
}

QpPatternResult QpPatternAccumulator::Finish() {
  QpPatternResult res;
  res.records = records_;
  res.illegal_transitions = illegal_;

  // 1. Per-QP windows.
  std::vector<QpWork> work;
  work.reserve(qps_.size());
  WindowPools pools;
  for (auto& [key, data] : qps_) {
    QpWork w;
    w.host = &key.host;
    w.qp = key.qp;
    w.job = data.job;
    SortEntries(data.entries);
    ForEachWindow(data.entries, [&](int64_t window, const QpTransitionMatrix& m) {
      WindowSummary s{window, QpStateEntropyBits(m), m[kErrReset / 8][kErrReset % 8], m[kRtsSqd / 8][kRtsSqd % 8],
                      m[kResetInit / 8][kResetInit % 8]};
      w.windows.push_back(s);
      if (s.recreations > 0) w.recreation_windows.push_back(s.window);
      pools.entropy.push_back(s.entropy);
      pools.err_resets.push_back(s.err_reset);
      if (s.rts_sqd > 0) {
        ++res.windows_ratio_defined;
        pools.defined_ratios.push_back(static_cast<double>(s.err_reset) / s.rts_sqd);
      }
    });
    res.windows += static_cast<int64_t>(w.windows.size());
    work.push_back(std::move(w));
  }

  // 2.-5. Peer groups, synchrony, labels, clusters, scopes.
  const size_t inferred_groups = AssignPeerGroups(work, opt_);
  MarkBatchSynchrony(work, opt_);
  std::vector<double> qp_sync, qp_recreations;
  LabelQps(work, opt_, &qp_sync, &qp_recreations);
  const size_t labelled = ClusterLabelled(work, opt_, &res);
  ReportScopes(work, opt_, &res);

  // 6. Distributions and the note.
  res.feature_quantiles.emplace_back("window_state_entropy_bits", Quantiles(pools.entropy));
  res.feature_quantiles.emplace_back("window_reset_density_defined", Quantiles(pools.defined_ratios));
  res.feature_quantiles.emplace_back("qp_sync", Quantiles(qp_sync));
  res.feature_quantiles.emplace_back("qp_recreations", Quantiles(qp_recreations));
  res.feature_quantiles.emplace_back("window_err_resets", Quantiles(pools.err_resets));
  res.note = ResultNote(res, labelled, work.size(), opt_);
  if (inferred_groups > 0) {
    res.note += "; " + std::to_string(inferred_groups) +
                " peer group(s) of QPs without a job found from co-timed re-creations";
  }
  for (QpWork& q : work) res.qps.push_back(std::move(q.label));
  return res;
}

}  // namespace toposcope::analysis
