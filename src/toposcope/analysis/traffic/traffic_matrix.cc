#include "toposcope/analysis/traffic/traffic_matrix.h"

#include <Eigen/Dense>
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <utility>

#include "toposcope/base/hash.h"
#include "toposcope/base/names.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"
#include "toposcope/base/rng.h"
#include "toposcope/base/text.h"

namespace toposcope::analysis {
namespace {

constexpr int kTxField = formats::field_id::kProfNvlinkTxBytes;
constexpr int kRxField = formats::field_id::kProfNvlinkRxBytes;
constexpr double kChannelShareTolerance = 0.05;  // share perturbation for the ambiguity term

using Edge = std::pair<int, int>;  // (src GPU, dst GPU)

// One pattern: a set of edges that carry the same bytes.
struct Pattern {
  std::vector<Edge> edges;
  std::vector<int> channels;  // ring channels merged into it (identical edge sets)
  bool pipeline = false;
};

// The per-host rings of the chosen communicator.
struct HostRings {
  std::map<int, std::set<Edge>> channel_edges;  // channel -> intra-node successor edges
  std::set<Edge> pipeline_edges;
  std::set<int> gpus;
};

// Per host, per GPU: the time-blocked sums of one field.
struct Blocks {
  std::vector<double> sum;
  std::vector<int64_t> count;
};

double Sq(double v) { return v * v; }

// P(|T| <= t) for Student's t with `dof` >= 1 degrees of freedom (the finite sums of Abramowitz &
// Stegun 26.7.3 / 26.7.4 for integer dof).
double StudentTwoSided(double t, int dof) {
  const double theta = std::atan(t / std::sqrt(static_cast<double>(dof)));
  const double c2 = Sq(std::cos(theta)), s = std::sin(theta);
  double sum = 0, term = 1;
  if (dof % 2 == 1) {
    if (dof > 1) {
      term = std::cos(theta);
      sum = term;
      for (int k = 3; k <= dof - 2; k += 2) {
        term *= c2 * static_cast<double>(k - 1) / static_cast<double>(k);
        sum += term;
      }
    }
    return 2.0 / std::numbers::pi * (theta + s * sum);
  }
  sum = 1;
  for (int k = 2; k <= dof - 2; k += 2) {
    term *= c2 * static_cast<double>(k - 1) / static_cast<double>(k);
    sum += term;
  }
  return s * sum;
}

// The Student-t quantile with `dof` degrees of freedom at the two-sided level of the normal
// quantile z (z = 1.96: the 95 % level); z itself when dof < 1 (nothing to widen by).
double StudentQuantile(double z, int dof) {
  if (dof < 1 || z <= 0) return z;
  const double level = std::erf(z / std::numbers::sqrt2);
  double lo = 0, hi = z;
  while (StudentTwoSided(hi, dof) < level && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = (lo + hi) / 2;
    (StudentTwoSided(mid, dof) < level ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

// Non-negative least squares by cyclic coordinate descent (a few unknowns): min |M theta - m|.
std::vector<double> Nnls(const Eigen::MatrixXd& m, const Eigen::VectorXd& b) {
  const Eigen::Index k = m.cols();
  std::vector<double> theta(static_cast<size_t>(k), 0.0);
  Eigen::VectorXd r = b;
  Eigen::VectorXd norm2 = m.colwise().squaredNorm();
  for (int sweep = 0; sweep < 2000; ++sweep) {
    double change = 0;
    for (Eigen::Index j = 0; j < k; ++j) {
      if (norm2(j) <= 0) continue;
      const double old = theta[static_cast<size_t>(j)];
      const double next = std::max(0.0, old + m.col(j).dot(r) / norm2(j));
      if (next != old) {
        r -= (next - old) * m.col(j);
        theta[static_cast<size_t>(j)] = next;
        change = std::max(change, std::abs(next - old));
      }
    }
    if (change <= 1e-12 * std::max(1.0, b.cwiseAbs().maxCoeff())) break;
  }
  return theta;
}

// Iterative proportional fitting of x (on its support) to tx (rows) and rx (columns), both
// rescaled to a common total. The result is the mean of the last row- and column-fitted matrices.
std::vector<double> Ipf(const std::vector<Edge>& edges, std::vector<double> x, const std::vector<double>& tx,
                        const std::vector<double>& rx, int g, const TrafficMatrixOptions& opt) {
  double stx = 0, srx = 0;
  for (int i = 0; i < g; ++i) {
    stx += tx[static_cast<size_t>(i)];
    srx += rx[static_cast<size_t>(i)];
  }
  if (stx <= 0 || srx <= 0) return x;
  const double total = (stx + srx) / 2;
  std::vector<double> row(static_cast<size_t>(g)), col(static_cast<size_t>(g));
  std::vector<double> after_rows = x;
  for (int it = 0; it < opt.ipf_iterations; ++it) {
    std::fill(row.begin(), row.end(), 0.0);
    for (size_t e = 0; e < edges.size(); ++e) row[static_cast<size_t>(edges[e].first)] += x[e];
    for (size_t e = 0; e < edges.size(); ++e) {
      const double have = row[static_cast<size_t>(edges[e].first)];
      if (have > 0) x[e] *= tx[static_cast<size_t>(edges[e].first)] * total / stx / have;
    }
    after_rows = x;
    std::fill(col.begin(), col.end(), 0.0);
    for (size_t e = 0; e < edges.size(); ++e) col[static_cast<size_t>(edges[e].second)] += x[e];
    double worst = 0;
    for (size_t e = 0; e < edges.size(); ++e) {
      const double have = col[static_cast<size_t>(edges[e].second)];
      const double want = rx[static_cast<size_t>(edges[e].second)] * total / srx;
      if (have > 0) x[e] *= want / have;
      worst = std::max(worst, std::abs(have - want) / std::max(1e-300, total));
    }
    if (worst <= opt.ipf_tolerance) break;
  }
  for (size_t e = 0; e < edges.size(); ++e) x[e] = (x[e] + after_rows[e]) / 2;
  return x;
}

// The pattern fit and IPF for one set of margins.
struct Fit {
  std::vector<double> theta;    // per pattern
  std::vector<double> pattern;  // per edge: the pattern's matrix
  std::vector<double> x;        // per edge: after IPF
};

Fit FitOnce(const std::vector<Pattern>& patterns, const std::vector<Edge>& edges,
            const std::map<Edge, size_t>& edge_index, const std::vector<double>& tx, const std::vector<double>& rx,
            int g, const TrafficMatrixOptions& opt, const std::vector<double>* theta_override = nullptr) {
  Fit f;
  const auto k = static_cast<Eigen::Index>(patterns.size());
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(2 * g, k);
  for (Eigen::Index j = 0; j < k; ++j) {
    for (const Edge& e : patterns[static_cast<size_t>(j)].edges) {
      m(e.first, j) += 1;
      m(g + e.second, j) += 1;
    }
  }
  Eigen::VectorXd b(2 * g);
  for (int i = 0; i < g; ++i) {
    b(i) = tx[static_cast<size_t>(i)];
    b(g + i) = rx[static_cast<size_t>(i)];
  }
  f.theta = theta_override != nullptr ? *theta_override : Nnls(m, b);
  f.pattern.assign(edges.size(), 0.0);
  for (size_t j = 0; j < patterns.size(); ++j) {
    for (const Edge& e : patterns[j].edges) f.pattern[edge_index.at(e)] += f.theta[j];
  }
  f.x = Ipf(edges, f.pattern, tx, rx, g, opt);
  return f;
}


// Per GPU: its (tx, rx) NVLink byte series.
using GpuCounters = std::map<int, std::pair<const model::SeriesSummary*, const model::SeriesSummary*>>;

// The communicator whose log rings name the most (host, GPU) ranks; *ranks = how many (0: none).
std::string ChooseCommunicator(const RingReport& rings, size_t* ranks) {
  std::map<std::string, std::set<std::string>> comm_gpus;
  for (const RingView& v : rings.rings) {
    if (v.source != RingSource::kNcclLog || v.gpus.size() != v.ranks.size()) continue;
    for (const std::string& gname : v.gpus) {
      if (ParseGpuName(gname)) comm_gpus[v.comm].insert(gname);
    }
  }
  std::string comm;
  size_t best = 0;
  for (const auto& [c, set] : comm_gpus) {
    if (set.size() > best) {
      best = set.size();
      comm = c;
    }
  }
  *ranks = best;
  return comm;
}

// Per host: the intra-node successor edges of every log ring channel of `comm` (and, with the option,
// the pipeline rank -> rank + 1 edges); the channels seen go to *channels_seen.
std::map<std::string, HostRings> CollectHostRings(const RingReport& rings, const std::string& comm,
                                                  const TrafficMatrixOptions& opt, std::set<int>* channels_seen) {
  std::map<std::string, HostRings> host_rings;
  std::map<int, GpuRef> rank_gpu;
  for (const RingView& v : rings.rings) {
    if (v.source != RingSource::kNcclLog || v.comm != comm || v.gpus.size() != v.ranks.size()) continue;
    channels_seen->insert(v.channel);
    const size_t n = v.ranks.size();
    std::vector<std::optional<GpuRef>> refs;
    for (size_t i = 0; i < n; ++i) {
      refs.push_back(ParseGpuName(v.gpus[i]));
      if (refs.back()) rank_gpu[v.ranks[i]] = *refs.back();
    }
    for (size_t i = 0; i + (v.complete ? 0 : 1) < n && n > 1; ++i) {  // a partial ring has no hop back
      const auto& a = refs[i];
      const auto& b = refs[(i + 1) % n];
      if (!a || !b || a->host != b->host || a->index == b->index) continue;
      HostRings& hr = host_rings[a->host];
      hr.channel_edges[v.channel].insert({a->index, b->index});
      hr.gpus.insert(a->index);
      hr.gpus.insert(b->index);
    }
  }
  if (opt.pipeline_successor_edges) {
    for (const auto& [r, ref] : rank_gpu) {
      auto it = rank_gpu.find(r + 1);
      if (it == rank_gpu.end() || it->second.host != ref.host || it->second.index == ref.index) continue;
      host_rings[ref.host].pipeline_edges.insert({ref.index, it->second.index});
    }
  }
  return host_rings;
}

// Per host and GPU: the non-empty whole-GPU DCGM NVLink tx / rx byte series of the dataset.
std::map<std::string, GpuCounters> CollectCounters(const model::Dataset& ds) {
  std::map<std::string, GpuCounters> counters;
  for (const auto& [key, series] : ds.dcgm.series) {
    if (!key.IsGpu() || key.link >= 0 || key.gpu < 0 || (key.field_id != kTxField && key.field_id != kRxField)) continue;
    if (series.points.empty()) continue;
    auto& slot = counters[key.host][key.gpu];
    (key.field_id == kTxField ? slot.first : slot.second) = &series;
  }
  return counters;
}

// The host's GPU count: one more than the highest GPU index its counters, rings or inventory name.
int HostGpuCount(const GpuCounters* counters, const HostRings* rings, const model::HostEvidence* evidence) {
  int g = 0;
  if (counters != nullptr) {
    for (const auto& [gpu, s] : *counters) g = std::max(g, gpu + 1);
  }
  if (rings != nullptr) {
    for (int gpu : rings->gpus) g = std::max(g, gpu + 1);
  }
  if (evidence != nullptr) {
    for (const auto& [gpu, info] : evidence->gpus) g = std::max(g, gpu + 1);
  }
  return g;
}

// True when the host declares a topology without NVSwitch in which some pair of its `g` GPUs is
// declared but not NVLink-connected.
bool DeclaredNotSwitched(const model::HostEvidence& evidence, int g) {
  bool declared = false, all_nvlink = true, any_nvswitch = false;
  for (const auto* links : {&evidence.xml_links, &evidence.nvsmi_links}) {
    for (const auto& [pair, link] : *links) {
      declared = true;
      if (link.cls.type == LinkType::kNvswitch) any_nvswitch = true;
    }
  }
  if (declared && !any_nvswitch) {
    for (int a = 0; a < g && all_nvlink; ++a) {
      for (int b = a + 1; b < g && all_nvlink; ++b) {
        bool nv = false, seen = false;
        for (const auto* links : {&evidence.xml_links, &evidence.nvsmi_links}) {
          auto it = links->find(model::MakePair(a, b));
          if (it == links->end()) continue;
          seen = true;
          if (IsNvlinkFamily(it->second.cls.type)) nv = true;
        }
        if (seen && !nv) all_nvlink = false;
      }
    }
  }
  return declared && !any_nvswitch && !all_nvlink;
}

// Why a host of `g` GPUs cannot be estimated before its samples are read; "" when it can.
std::string PreconditionFailure(const GpuCounters* counters, const HostRings* rings,
                                const model::HostEvidence* evidence, int g) {
  if (evidence != nullptr && DeclaredNotSwitched(*evidence, g)) {
    return "not an NVSwitch node: some GPU pairs are not NVLink-connected (NVLink bridges or PCIe only), so the "
           "per-GPU NVLink counters do not come from a switched all-to-all fabric";
  }
  if (counters == nullptr) return "no DCGM NVLink byte counters (fields 1011 TX / 1012 RX) for this host";
  std::vector<int> missing;
  for (int gpu = 0; gpu < g; ++gpu) {
    auto it = counters->find(gpu);
    if (it == counters->end() || it->second.first == nullptr || it->second.second == nullptr) missing.push_back(gpu);
  }
  if (!missing.empty()) {
    std::string list;
    for (int m : missing) list += (list.empty() ? "" : ",") + std::to_string(m);
    return "DCGM NVLink tx/rx counters (1011/1012) missing for GPU(s) " + list;
  }
  if (rings == nullptr || rings->channel_edges.empty()) {
    return "no NCCL ring order (NCCL_DEBUG=INFO logs) passes through two GPUs of this host";
  }
  return {};
}

// A host's samples in its common window, summed per time block (the bootstrap's unit).
struct SampleBlocks {
  int gpus = 0;
  int n_blocks = 0;
  std::vector<Blocks> tx, rx;  // per GPU

  // Per-GPU tx / rx means over the blocks, block b counted weights[b] times.
  void Margins(const std::vector<int>& weights, std::vector<double>* tx_out, std::vector<double>* rx_out) const {
    tx_out->assign(static_cast<size_t>(gpus), 0.0);
    rx_out->assign(static_cast<size_t>(gpus), 0.0);
    for (int gpu = 0; gpu < gpus; ++gpu) {
      for (int f = 0; f < 2; ++f) {
        const Blocks& bl = (f == 0 ? tx : rx)[static_cast<size_t>(gpu)];
        double sum = 0, cnt = 0;
        for (int b = 0; b < n_blocks; ++b) {
          sum += weights[static_cast<size_t>(b)] * bl.sum[static_cast<size_t>(b)];
          cnt += weights[static_cast<size_t>(b)] * static_cast<double>(bl.count[static_cast<size_t>(b)]);
        }
        (f == 0 ? *tx_out : *rx_out)[static_cast<size_t>(gpu)] = cnt > 0 ? sum / cnt : 0.0;
      }
    }
  }
};

// Fixes the common window of the host's `g` GPUs' counters (the window fields of *hm) and sums the
// samples into blocks (*out). Returns the reason when there are too few common samples, else "".
std::string BlockSamples(const GpuCounters& counters, int g, const TrafficMatrixOptions& opt, HostTrafficMatrix* hm,
                         SampleBlocks* out) {
  int64_t w0 = INT64_MIN, w1 = INT64_MAX;
  size_t n_min = SIZE_MAX;
  for (const auto& [gpu, s] : counters) {
    if (gpu >= g) continue;
    for (const model::SeriesSummary* ss : {s.first, s.second}) {
      w0 = std::max(w0, ss->points.front().first);
      w1 = std::min(w1, ss->points.back().first);
    }
  }
  // Samples of GPU 0's tx inside the window give the sample count and the block edges.
  std::vector<int64_t> instants;
  for (const auto& [ts, v] : counters.at(0).first->points) {
    if (ts >= w0 && ts <= w1) instants.push_back(ts);
  }
  n_min = instants.size();
  hm->window_start_ns = w0;
  hm->window_end_ns = w1;
  hm->samples = static_cast<int>(n_min);
  if (w1 <= w0 || static_cast<int>(n_min) < hm->samples_needed) {
    return StringPrintf("too few common DCGM samples (%zu, need %d: %s)", n_min == SIZE_MAX ? size_t{0} : n_min,
                        hm->samples_needed,
                        opt.min_samples > 0 ? "the min_samples option"
                                            : "a spread between instants and more margin equations than pattern "
                                              "volumes");
  }
  // Each sample averages the period before it: the window covers one period before the first.
  const double period_ns = static_cast<double>(w1 - w0) / static_cast<double>(n_min - 1);
  hm->window_s = (static_cast<double>(w1 - w0) + period_ns) / 1e9;
  // Blocks of n^(1/3) samples (at least 2, for the autocorrelation of fast samples) while that
  // leaves 4 blocks; with fewer samples every sample is a block (slow periods: each sample already
  // averages a long period).
  constexpr int kMinMovingBlocks = 4;
  int block_len = std::max(2, static_cast<int>(std::lround(std::cbrt(static_cast<double>(n_min)))));
  if (static_cast<int>(n_min) / block_len < kMinMovingBlocks) block_len = 1;
  if (opt.block_samples > 0) block_len = opt.block_samples;
  const int n_blocks = std::max(1, static_cast<int>(n_min) / block_len);
  hm->noise_blocks = n_blocks;
  hm->noise_dof = n_blocks - 1;
  hm->noise_z = StudentQuantile(opt.z, hm->noise_dof);
  hm->confidence = hm->noise_dof > 0 ? std::max(0.0, 1.0 - 1.0 / std::sqrt(2.0 * hm->noise_dof)) : 0.0;
  // Block b covers instants [b * n / n_blocks, (b + 1) * n / n_blocks).
  std::vector<int64_t> block_start;
  for (int b = 0; b < n_blocks; ++b) {
    block_start.push_back(instants[static_cast<size_t>(b) * n_min / static_cast<size_t>(n_blocks)]);
  }
  auto block_of = [&](int64_t ts) {
    auto it = std::upper_bound(block_start.begin(), block_start.end(), ts);
    return static_cast<int>(it - block_start.begin()) - 1;
  };
  out->gpus = g;
  out->n_blocks = n_blocks;
  out->tx.assign(static_cast<size_t>(g), Blocks{});
  out->rx.assign(static_cast<size_t>(g), Blocks{});
  for (int gpu = 0; gpu < g; ++gpu) {
    const auto& s = counters.at(gpu);
    for (int f = 0; f < 2; ++f) {
      Blocks& bl = (f == 0 ? out->tx : out->rx)[static_cast<size_t>(gpu)];
      bl.sum.assign(static_cast<size_t>(n_blocks), 0.0);
      bl.count.assign(static_cast<size_t>(n_blocks), 0);
      for (const auto& [ts, v] : (f == 0 ? s.first : s.second)->points) {
        if (ts < w0 - static_cast<int64_t>(period_ns / 2) || ts > w1 + static_cast<int64_t>(period_ns / 2)) continue;
        if (!std::isfinite(v)) continue;
        const int b = std::clamp(block_of(ts), 0, n_blocks - 1);
        bl.sum[static_cast<size_t>(b)] += v;
        bl.count[static_cast<size_t>(b)] += 1;
      }
    }
  }
  return {};
}

// One host's pattern model: its patterns, the edges they cover and the fit to the measured margins.
struct HostModel {
  int g = 0;
  std::vector<Pattern> patterns;
  std::vector<Edge> edges;            // sorted
  std::map<Edge, size_t> edge_index;  // edge -> index into `edges`
  Fit fit;
};

// The patterns of a host's rings: one per distinct channel edge set, then the pipeline; the channels
// go to *channel_ids in channel order.
std::vector<Pattern> BuildPatterns(const HostRings& hr, std::vector<int>* channel_ids) {
  std::vector<Pattern> patterns;
  for (const auto& [ch, es] : hr.channel_edges) {
    channel_ids->push_back(ch);
    std::vector<Edge> ev(es.begin(), es.end());
    bool merged = false;
    for (Pattern& p : patterns) {
      if (!p.pipeline && p.edges == ev) {
        p.channels.push_back(ch);
        merged = true;
      }
    }
    if (!merged) patterns.push_back({ev, {ch}, false});
  }
  if (!hr.pipeline_edges.empty()) {
    patterns.push_back({std::vector<Edge>(hr.pipeline_edges.begin(), hr.pipeline_edges.end()), {}, true});
  }
  return patterns;
}

// Builds the host's patterns and fits them to its measured margins; the fitted volumes per channel
// and of the pipeline go to *hm.
HostModel FitHostModel(const HostRings& hr, int g, const TrafficMatrixOptions& opt, HostTrafficMatrix* hm) {
  HostModel m;
  m.g = g;
  m.patterns = BuildPatterns(hr, &hm->channel_ids);
  std::set<Edge> edge_set;
  for (const Pattern& p : m.patterns) edge_set.insert(p.edges.begin(), p.edges.end());
  m.edges.assign(edge_set.begin(), edge_set.end());
  for (size_t e = 0; e < m.edges.size(); ++e) m.edge_index[m.edges[e]] = e;

  m.fit = FitOnce(m.patterns, m.edges, m.edge_index, hm->tx_bytes_per_s, hm->rx_bytes_per_s, g, opt);
  for (int ch : hm->channel_ids) {
    for (size_t j = 0; j < m.patterns.size(); ++j) {
      const auto& pc = m.patterns[j].channels;
      if (std::find(pc.begin(), pc.end(), ch) != pc.end()) {
        hm->channel_bytes_per_s.push_back(m.fit.theta[j] / static_cast<double>(pc.size()));
      }
    }
  }
  for (size_t j = 0; j < m.patterns.size(); ++j) {
    if (m.patterns[j].pipeline) hm->pipeline_bytes_per_s = m.fit.theta[j];
  }
  return m;
}

// The common sample instants a host of `g` GPUs with rings `hr` needs: two for a spread between
// instants, and enough that the pooled per-instant regression of its P pattern volumes on its 2G
// margins has more equations than unknowns (n x 2G > P). Never fails.
int SamplesNeeded(const HostRings& hr, int g) {
  std::vector<int> channel_ids;
  const int unknowns = static_cast<int>(BuildPatterns(hr, &channel_ids).size());
  return std::max(2, unknowns / std::max(1, 2 * g) + 1);
}

// Per GPU: the tx / rx sums of the IPF matrix, and the measured margins minus the pattern fit's.
struct MarginResiduals {
  std::vector<double> xtx, xrx;  // IPF matrix row / column sums
  std::vector<double> rtx, rrx;  // measured - pattern fit
};

// The residuals of the host's pattern fit on its margins; sets hm->margin_residual_rel.
MarginResiduals ComputeResiduals(const HostModel& m, HostTrafficMatrix* hm) {
  const int g = m.g;
  const std::vector<Edge>& edges = m.edges;
  const Fit& fit = m.fit;
  MarginResiduals r;
  std::vector<double> ptx(static_cast<size_t>(g), 0.0), prx(static_cast<size_t>(g), 0.0);
  r.xtx.assign(static_cast<size_t>(g), 0.0);
  r.xrx.assign(static_cast<size_t>(g), 0.0);
  for (size_t e = 0; e < edges.size(); ++e) {
    ptx[static_cast<size_t>(edges[e].first)] += fit.pattern[e];
    prx[static_cast<size_t>(edges[e].second)] += fit.pattern[e];
    r.xtx[static_cast<size_t>(edges[e].first)] += fit.x[e];
    r.xrx[static_cast<size_t>(edges[e].second)] += fit.x[e];
  }
  double res2 = 0, norm2 = 0;
  r.rtx.resize(static_cast<size_t>(g));
  r.rrx.resize(static_cast<size_t>(g));
  for (int i = 0; i < g; ++i) {
    const auto u = static_cast<size_t>(i);
    r.rtx[u] = hm->tx_bytes_per_s[u] - ptx[u];
    r.rrx[u] = hm->rx_bytes_per_s[u] - prx[u];
    res2 += Sq(r.rtx[u]) + Sq(r.rrx[u]);
    norm2 += Sq(hm->tx_bytes_per_s[u]) + Sq(hm->rx_bytes_per_s[u]);
  }
  hm->margin_residual_rel = norm2 > 0 ? std::sqrt(res2 / norm2) : 0.0;
  return r;
}

// Identifiability: the rank of the incidence matrix of the support (the edges the fit uses) and each
// edge's feasible range [*lo, *hi] under the margins alone. Sets hm->unknowns and hm->margin_rank.
void FeasibleRanges(const HostModel& m, HostTrafficMatrix* hm, std::vector<double>* lo, std::vector<double>* hi) {
  const int g = m.g;
  const std::vector<Edge>& edges = m.edges;
  const Fit& fit = m.fit;
  std::vector<size_t> used;
  for (size_t e = 0; e < edges.size(); ++e) {
    if (fit.pattern[e] > 0) used.push_back(e);
  }
  hm->unknowns = static_cast<int>(used.size());
  Eigen::MatrixXd inc = Eigen::MatrixXd::Zero(2 * g, static_cast<Eigen::Index>(std::max<size_t>(1, used.size())));
  for (size_t j = 0; j < used.size(); ++j) {
    inc(edges[used[j]].first, static_cast<Eigen::Index>(j)) = 1;
    inc(g + edges[used[j]].second, static_cast<Eigen::Index>(j)) = 1;
  }
  lo->resize(edges.size());
  hi->resize(edges.size());
  for (size_t e = 0; e < edges.size(); ++e) (*lo)[e] = (*hi)[e] = fit.x[e];
  if (used.empty()) return;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(inc, Eigen::ComputeFullV);
  const Eigen::VectorXd sv = svd.singularValues();
  int rank = 0;
  for (Eigen::Index i = 0; i < sv.size(); ++i) {
    if (sv(i) > 1e-9 * std::max(1.0, sv(0))) ++rank;
  }
  hm->margin_rank = rank;
  const auto n_used = static_cast<Eigen::Index>(used.size());
  for (Eigen::Index c = rank; c < n_used; ++c) {
    const Eigen::VectorXd v = svd.matrixV().col(c);
    double t_lo = -INFINITY, t_hi = INFINITY;
    for (Eigen::Index j = 0; j < n_used; ++j) {
      const double vj = v(j);
      if (std::abs(vj) < 1e-12) continue;
      const double t = -fit.x[used[static_cast<size_t>(j)]] / vj;  // x + t v = 0
      if (vj > 0) t_lo = std::max(t_lo, t);
      else t_hi = std::min(t_hi, t);
    }
    if (!std::isfinite(t_lo) || !std::isfinite(t_hi)) continue;
    for (Eigen::Index j = 0; j < n_used; ++j) {
      const size_t e = used[static_cast<size_t>(j)];
      (*lo)[e] += std::min(t_lo * v(j), t_hi * v(j));
      (*hi)[e] += std::max(t_lo * v(j), t_hi * v(j));
    }
  }
}

// Sets hm->separable and hm->assumption (what decides the pairs the margins cannot separate).
void DescribeAssumption(const HostRings& hr, HostTrafficMatrix* hm) {
  hm->separable = hm->unknowns <= hm->margin_rank;
  if (!hm->separable) {
    hm->assumption = StringPrintf(
        "%d supported pairs but the %d tx/rx margins have rank %d: the counters alone cannot separate "
        "the pairs; equal bytes on every edge of a ring channel%s decide",
        hm->unknowns, hm->margins, hm->margin_rank,
        hr.pipeline_edges.empty() ? "" : " and one volume for every pipeline rank->rank+1 edge");
  } else {
    hm->assumption = "none: the margins fix every supported pair";
  }
}

// The spread of the moving-block bootstrap replicates: sums of squared deviations from the running
// mean, per edge of the IPF matrix and per GPU of the margins.
struct BootstrapMoments {
  int reps = 0;
  double scale = 1;                  // sqrt(B / (B - 1)) for B blocks: the bootstrap's small-sample bias
  std::vector<double> m2;            // per edge
  std::vector<double> tx_m2, rx_m2;  // per GPU
  // The replicates' standard deviation from a sum of squared deviations, corrected by `scale`
  // (0 with fewer than two replicates).
  [[nodiscard]] double Sd(double m2v) const { return reps > 1 ? scale * std::sqrt(m2v / (reps - 1)) : 0.0; }
};

// The seed of a host's bootstrap stream: FNV-1a over its blocks' sums and counts, so that the stream
// follows the host's data, never its name (a renamed dataset gets the same error bars).
uint64_t BlocksHash(const SampleBlocks& blocks) {
  uint64_t h = kFnv1aOffsetBasis;
  auto add = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i) h = Fnv1aByte(h, static_cast<uint8_t>(v >> (8 * i)));
  };
  add(static_cast<uint64_t>(blocks.gpus));
  add(static_cast<uint64_t>(blocks.n_blocks));
  for (const auto* side : {&blocks.tx, &blocks.rx}) {
    for (const Blocks& bl : *side) {
      for (const double v : bl.sum) add(std::bit_cast<uint64_t>(v));
      for (const auto c : bl.count) add(static_cast<uint64_t>(c));
    }
  }
  return h;
}

// Error part (a), noise: the fit redone on moving-block bootstrap replicates of the host's blocks
// (one seeded stream per host, from its data).
BootstrapMoments Bootstrap(const HostModel& m, const SampleBlocks& blocks, const TrafficMatrixOptions& opt) {
  const int g = m.g;
  const size_t n_edges = m.edges.size();
  const int n_blocks = blocks.n_blocks;
  Rng rng(Rng::Mix(opt.seed, BlocksHash(blocks)));
  BootstrapMoments out;
  if (n_blocks > 1) out.scale = std::sqrt(static_cast<double>(n_blocks) / static_cast<double>(n_blocks - 1));
  std::vector<double> mean(n_edges, 0.0);
  out.m2.assign(n_edges, 0.0);
  std::vector<double> tx_m(static_cast<size_t>(g), 0.0), rx_m(static_cast<size_t>(g), 0.0);
  out.tx_m2.assign(static_cast<size_t>(g), 0.0);
  out.rx_m2.assign(static_cast<size_t>(g), 0.0);
  out.reps = std::max(0, opt.bootstrap_replicates);
  for (int r = 0; r < out.reps; ++r) {
    std::vector<int> w(static_cast<size_t>(n_blocks), 0);
    for (int b = 0; b < n_blocks; ++b) w[rng.Below(static_cast<uint64_t>(n_blocks))] += 1;
    std::vector<double> btx, brx;
    blocks.Margins(w, &btx, &brx);
    const Fit bf = FitOnce(m.patterns, m.edges, m.edge_index, btx, brx, g, opt);
    for (size_t e = 0; e < n_edges; ++e) {
      const double d = bf.x[e] - mean[e];
      mean[e] += d / (r + 1);
      out.m2[e] += d * (bf.x[e] - mean[e]);
    }
    for (int i = 0; i < g; ++i) {
      const auto u = static_cast<size_t>(i);
      double d = btx[u] - tx_m[u];
      tx_m[u] += d / (r + 1);
      out.tx_m2[u] += d * (btx[u] - tx_m[u]);
      d = brx[u] - rx_m[u];
      rx_m[u] += d / (r + 1);
      out.rx_m2[u] += d * (brx[u] - rx_m[u]);
    }
  }
  return out;
}

// Error part (c), channel-share ambiguity: per edge, the squared change of the IPF matrix when each
// pattern's volume in turn is raised by the tolerance (all 0 when the margins separate the pairs).
std::vector<double> AmbiguitySq(const HostModel& m, const HostTrafficMatrix& hm, const TrafficMatrixOptions& opt) {
  std::vector<double> amb2(m.edges.size(), 0.0);
  if (hm.separable) return amb2;
  for (size_t j = 0; j < m.patterns.size(); ++j) {
    std::vector<double> th = m.fit.theta;
    th[j] *= 1.0 + kChannelShareTolerance;
    const Fit af = FitOnce(m.patterns, m.edges, m.edge_index, hm.tx_bytes_per_s, hm.rx_bytes_per_s, m.g, opt, &th);
    for (size_t e = 0; e < m.edges.size(); ++e) amb2[e] += Sq(af.x[e] - m.fit.x[e]);
  }
  return amb2;
}

// What one host's error bars are made of.
struct ErrorParts {
  double noise_z = 0;             // the noise part's quantile (HostTrafficMatrix::noise_z)
  double stx = 0, srx = 0;        // measured tx / rx totals
  MarginResiduals residuals;
  std::vector<double> lo, hi;     // per edge: feasible range under the margins alone
  BootstrapMoments noise;
  std::vector<double> amb2;       // per edge: squared channel-share ambiguity
};

// A pair on fitted edge `e`: its IPF volume, the three error parts and the patterns that carry it.
void FillSupportedPair(const HostModel& m, const ErrorParts& err, size_t e, const TrafficMatrixOptions& opt,
                       PairTraffic* p) {
  const Fit& fit = m.fit;
  const int s = p->src_gpu, d = p->dst_gpu;
  const auto us = static_cast<size_t>(s), ud = static_cast<size_t>(d);
  const double total = (err.stx + err.srx) / 2;
  p->supported = true;
  p->bytes_per_s = fit.x[e];
  p->sigma_noise = err.noise.Sd(err.noise.m2[e]);
  // (b) The pair's share of the pattern's residual on its sender's tx and receiver's rx,
  // and of the tx/rx total mismatch.
  const double share_s = err.residuals.xtx[us] > 0 ? fit.x[e] / err.residuals.xtx[us] : 0.0;
  const double share_d = err.residuals.xrx[ud] > 0 ? fit.x[e] / err.residuals.xrx[ud] : 0.0;
  p->sigma_margin = std::sqrt(Sq(share_s * err.residuals.rtx[us]) + Sq(share_d * err.residuals.rrx[ud]) +
                              Sq(fit.x[e] / std::max(1e-300, total) * std::abs(err.stx - err.srx) / 2));
  p->sigma_ambiguity = std::sqrt(err.amb2[e]);
  p->range_lo = std::max(0.0, err.lo[e]);
  p->range_hi = err.hi[e];
  for (const Pattern& pat : m.patterns) {
    if (std::find(pat.edges.begin(), pat.edges.end(), Edge{s, d}) == pat.edges.end()) continue;
    if (pat.pipeline) p->pipeline = true;
    p->channels.insert(p->channels.end(), pat.channels.begin(), pat.channels.end());
  }
  std::sort(p->channels.begin(), p->channels.end());
  p->err_bytes_per_s =
      std::sqrt(Sq(err.noise_z * p->sigma_noise) + Sq(opt.z * p->sigma_margin) + Sq(opt.z * p->sigma_ambiguity));
}

// A pair on no fitted edge: 0, bounded by what the fitted matrix leaves unexplained on the sender's
// tx and the receiver's rx, plus their noise.
void FillUnsupportedPair(const HostTrafficMatrix& hm, const ErrorParts& err, PairTraffic* p) {
  const auto us = static_cast<size_t>(p->src_gpu), ud = static_cast<size_t>(p->dst_gpu);
  p->supported = false;
  const double free_tx =
      std::max(0.0, hm.tx_bytes_per_s[us] - err.residuals.xtx[us]) + err.noise_z * err.noise.Sd(err.noise.tx_m2[us]);
  const double free_rx =
      std::max(0.0, hm.rx_bytes_per_s[ud] - err.residuals.xrx[ud]) + err.noise_z * err.noise.Sd(err.noise.rx_m2[ud]);
  p->err_bytes_per_s = std::min(free_tx, free_rx);
  p->range_hi = p->err_bytes_per_s;
}

// Every ordered GPU pair src != dst of the host, in (src, dst) order, into hm->pairs.
void BuildPairs(const HostModel& m, const ErrorParts& err, const TrafficMatrixOptions& opt, HostTrafficMatrix* hm) {
  for (int s = 0; s < m.g; ++s) {
    for (int d = 0; d < m.g; ++d) {
      if (s == d) continue;
      PairTraffic p;
      p.src_gpu = s;
      p.dst_gpu = d;
      auto it = m.edge_index.find({s, d});
      if (it != m.edge_index.end() && m.fit.x[it->second] > 0) {
        FillSupportedPair(m, err, it->second, opt, &p);
      } else {
        FillUnsupportedPair(*hm, err, &p);
      }
      p.bytes = p.bytes_per_s * hm->window_s;
      hm->pairs.push_back(std::move(p));
    }
  }
}

// Estimates one host (hm->host) into *hm. Returns why the host cannot be estimated ("" when it was);
// the fields filled until then stay filled.
std::string EstimateHost(const model::Dataset& ds, const GpuCounters* counters, const HostRings* rings,
                         const TrafficMatrixOptions& opt, HostTrafficMatrix* hm) {
  const auto dit = ds.hosts.find(hm->host);
  const model::HostEvidence* evidence = dit == ds.hosts.end() ? nullptr : &dit->second;
  const int g = HostGpuCount(counters, rings, evidence);
  hm->gpus = g;
  hm->margins = 2 * g;
  if (std::string why = PreconditionFailure(counters, rings, evidence, g); !why.empty()) return why;
  hm->samples_needed = opt.min_samples > 0 ? opt.min_samples : SamplesNeeded(*rings, g);
  SampleBlocks blocks;
  if (std::string why = BlockSamples(*counters, g, opt, hm, &blocks); !why.empty()) return why;
  blocks.Margins(std::vector<int>(static_cast<size_t>(blocks.n_blocks), 1), &hm->tx_bytes_per_s,
                 &hm->rx_bytes_per_s);
  ErrorParts err;
  err.noise_z = hm->noise_z;
  for (int gpu = 0; gpu < g; ++gpu) {
    err.stx += hm->tx_bytes_per_s[static_cast<size_t>(gpu)];
    err.srx += hm->rx_bytes_per_s[static_cast<size_t>(gpu)];
  }
  if (err.stx <= 0 && err.srx <= 0) return "the NVLink counters are zero over the window: no NVLink traffic to split";
  hm->margin_mismatch_rel = std::abs(err.stx - err.srx) / std::max(1e-300, (err.stx + err.srx) / 2);

  const HostModel m = FitHostModel(*rings, g, opt, hm);
  err.residuals = ComputeResiduals(m, hm);
  FeasibleRanges(m, hm, &err.lo, &err.hi);
  DescribeAssumption(*rings, hm);
  err.noise = Bootstrap(m, blocks, opt);
  err.amb2 = AmbiguitySq(m, *hm, opt);
  BuildPairs(m, err, opt, hm);
  return {};
}

}  // namespace

TrafficMatrixReport EstimateTrafficMatrix(const model::Dataset& ds, const RingReport& rings,
                                          const TrafficMatrixOptions& opt) {
  TrafficMatrixReport rep;
  rep.method =
      "per-GPU DCGM NVLink tx/rx means (fields 1011/1012) over the common window; NNLS fit of one volume per "
      "ring channel's intra-node successor edges (+ one per pipeline rank->rank+1 edge); IPF from that fit to "
      "the tx/rx margins; error bar z x sqrt(block-bootstrap^2 + margin residual^2 + channel-share ambiguity^2)";

  // 1. The communicator: the one whose log rings name the most (host, GPU) ranks.
  size_t best = 0;
  rep.comm = ChooseCommunicator(rings, &best);
  std::map<std::string, HostRings> host_rings;
  std::set<int> channels_seen;
  if (best > 0) host_rings = CollectHostRings(rings, rep.comm, opt, &channels_seen);
  rep.channels = static_cast<int>(channels_seen.size());

  // 2. The counters per host and GPU.
  const std::map<std::string, GpuCounters> counters = CollectCounters(ds);
  rep.present = !counters.empty() || !host_rings.empty();

  std::set<std::string> host_names;
  for (const auto& [h, c] : counters) host_names.insert(h);
  for (const auto& [h, r] : host_rings) host_names.insert(h);

  // 3. Every host: its window and blocks, the pattern fit, the identifiability and the error bars.
  for (const std::string& host : host_names) {
    HostTrafficMatrix hm;
    hm.host = host;
    const auto cit = counters.find(host);
    const auto rit = host_rings.find(host);
    const std::string why = EstimateHost(ds, cit == counters.end() ? nullptr : &cit->second,
                                         rit == host_rings.end() ? nullptr : &rit->second, opt, &hm);
    if (!why.empty()) {
      hm.estimable = false;
      hm.reason = why;
      rep.hosts.push_back(hm);
      continue;
    }
    hm.estimable = true;
    ++rep.hosts_estimable;
    rep.hosts.push_back(std::move(hm));
  }
  if (best == 0) rep.notes.push_back("no NCCL ring order with per-rank GPUs: nothing to constrain the pairs");
  if (rep.present && rep.hosts_estimable == 0) rep.notes.push_back("no host could be estimated (see reasons)");
  return rep;
}

}  // namespace toposcope::analysis
