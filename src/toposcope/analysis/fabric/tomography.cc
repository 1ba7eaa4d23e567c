// analysis/fabric/tomography: per-link latencies from path RTTs, sparse weighted least squares with
// identifiability (see tomography.h).
#include "toposcope/analysis/fabric/tomography.h"

#include <tbb/parallel_invoke.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "toposcope/base/rng.h"
#include "toposcope/stats/sparse_lsq.h"

namespace toposcope::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kSeedEps = 1e-6;  // the seed's `rtt_obs + 1e-6`

uint64_t Mix64(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
  h *= 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

uint64_t DoubleBits(double v) {
  uint64_t u;
  static_assert(sizeof u == sizeof v);
  std::memcpy(&u, &v, sizeof u);
  return u;
}

// The path-link incidence matrix A in CSR, with the link ids interned in first-appearance order
// (deterministic).
struct Design {
  std::deque<std::string> names;  // stable addresses for the string_view keys
  std::unordered_map<std::string_view, int> index;
  std::vector<int> outer{0};
  std::vector<int> inner;
  std::vector<double> values, rtt;

  // The column of link `id`, added when new.
  int Intern(std::string_view id) {
    auto it = index.find(id);
    if (it != index.end()) return it->second;
    names.emplace_back(id);
    const int j = static_cast<int>(names.size()) - 1;
    index.emplace(std::string_view(names.back()), j);
    return j;
  }
};

// Builds A from the usable paths (finite RTT >= 0, links or host terms), counting the others in
// res.dropped_paths; the extra links are interned last.
void BuildDesign(const std::vector<TomographyPath>& paths, const TomographyOptions& opt, Design& a,
                 TomographyResult& res) {
  a.index.reserve(1024);
  std::vector<int> cols;
  a.inner.reserve(paths.size() * 8);
  a.values.reserve(paths.size() * 8);
  a.rtt.reserve(paths.size());
  std::string host_id;
  for (const TomographyPath& p : paths) {
    if (!std::isfinite(p.rtt_us) || p.rtt_us < 0 || (p.links.empty() && !opt.host_terms)) {
      ++res.dropped_paths;
      continue;
    }
    cols.clear();
    for (const std::string& l : p.links) cols.push_back(a.Intern(l));
    if (opt.host_terms) {
      for (const std::string* h : {&p.src, &p.dst}) {
        host_id = "host:";
        host_id += *h;
        cols.push_back(a.Intern(host_id));
      }
    }
    std::sort(cols.begin(), cols.end());
    for (size_t k = 0; k < cols.size();) {
      size_t e = k;
      while (e < cols.size() && cols[e] == cols[k]) ++e;
      a.inner.push_back(cols[k]);
      a.values.push_back(static_cast<double>(e - k));
      k = e;
    }
    a.outer.push_back(static_cast<int>(a.inner.size()));
    a.rtt.push_back(p.rtt_us);
  }
  for (const std::string& l : opt.extra_links) a.Intern(l);
}

// Exact structure of A's columns: per column its paths and its group representative (the smallest
// index of the columns identical to it up to scale; -1 when uncovered).
struct ColumnGroups {
  std::vector<int> nnz;                 // paths per column
  std::vector<int> rep;                 // representative, -1 when uncovered
  std::vector<std::vector<int>> group;  // per representative: its columns
};

ColumnGroups GroupColumns(const Design& a) {
  const int n = static_cast<int>(a.names.size());
  const int m = static_cast<int>(a.rtt.size());
  const std::vector<int>& outer = a.outer;
  const std::vector<int>& inner = a.inner;
  const std::vector<double>& values = a.values;
  ColumnGroups cg;
  std::vector<int>& col_nnz = cg.nnz;
  col_nnz.assign(n, 0);
  std::vector<uint64_t> col_hash(n, 0x70F0ULL);
  std::vector<double> col_first(n, 0);
  for (int i = 0; i < m; ++i)
    for (int k = outer[i]; k < outer[i + 1]; ++k) {
      const int j = inner[k];
      if (col_nnz[j]++ == 0) col_first[j] = values[k];
      col_hash[j] = Mix64(Mix64(col_hash[j], static_cast<uint64_t>(i)),
                          DoubleBits(values[k] / col_first[j]));
    }
  // CSC copy (row indices and values per column) for the exact comparison of candidate groups.
  std::vector<int> cstart(n + 1, 0);
  for (int j = 0; j < n; ++j) cstart[j + 1] = cstart[j] + col_nnz[j];
  std::vector<int> crow(inner.size());
  std::vector<double> cval(inner.size());
  {
    std::vector<int> fill(cstart.begin(), cstart.end() - 1);
    for (int i = 0; i < m; ++i)
      for (int k = outer[i]; k < outer[i + 1]; ++k) {
        const int j = inner[k];
        crow[fill[j]] = i;
        cval[fill[j]] = values[k] / col_first[j];
        ++fill[j];
      }
  }
  auto same_column = [&](int x, int y) {
    if (col_nnz[x] != col_nnz[y]) return false;
    return std::equal(crow.begin() + cstart[x], crow.begin() + cstart[x + 1],
                      crow.begin() + cstart[y]) &&
           std::equal(cval.begin() + cstart[x], cval.begin() + cstart[x + 1],
                      cval.begin() + cstart[y]);
  };
  std::vector<int>& rep = cg.rep;
  rep.resize(n);
  std::iota(rep.begin(), rep.end(), 0);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int x, int y) {
    if (col_nnz[x] != col_nnz[y]) return col_nnz[x] < col_nnz[y];
    if (col_hash[x] != col_hash[y]) return col_hash[x] < col_hash[y];
    return x < y;
  });
  for (size_t s = 0; s < order.size();) {
    size_t e = s;
    while (e < order.size() && col_nnz[order[e]] == col_nnz[order[s]] &&
           col_hash[order[e]] == col_hash[order[s]])
      ++e;
    // within a hash run: pairwise exact comparison against earlier representatives
    std::vector<int> reps_in_run;
    for (size_t k = s; k < e; ++k) {
      const int j = order[k];
      if (col_nnz[j] == 0) {
        rep[j] = -1;
        continue;
      }
      bool merged = false;
      for (int r : reps_in_run)
        if (same_column(r, j)) {
          rep[j] = r;
          merged = true;
          break;
        }
      if (!merged) reps_in_run.push_back(j);
    }
    s = e;
  }
  cg.group.resize(n);
  for (int j = 0; j < n; ++j)
    if (rep[j] >= 0) cg.group[rep[j]].push_back(j);
  return cg;
}

// Sets each link's path count and, for uncovered and always-together links, the reason; adds
// them to res.rank_deficiency.
void MarkStructuralDeficiency(const Design& a, const ColumnGroups& cg, TomographyResult& res) {
  const int n = static_cast<int>(a.names.size());
  for (int j = 0; j < n; ++j) {
    res.links[j].paths = cg.nnz[j];
    if (cg.rep[j] < 0) {
      res.links[j].reason = "uncovered";
      ++res.rank_deficiency;
    } else if (cg.group[cg.rep[j]].size() > 1) {
      std::string others;
      int listed = 0;
      const auto& g = cg.group[cg.rep[j]];
      for (int o : g) {
        if (o == j) continue;
        if (listed == 8) {
          others += ", ... (+" + std::to_string(g.size() - 1 - listed) + " more)";
          break;
        }
        if (listed++ > 0) others += ", ";
        others += a.names[o];
      }
      res.links[j].reason = "rank-deficient: always together with " + others;
      if (cg.rep[j] == j) res.rank_deficiency += static_cast<int>(g.size()) - 1;
    }
  }
}

// The reduced weighted system: one column per covered group (the representative stands for the
// group's sum, which still contributes to every RTT it is in; it is never reported itself).
struct ReducedSystem {
  std::vector<int> col_to_link;  // reduced column -> link (representative)
  stats::SparseRowMatrix ar;
  Eigen::VectorXd b, wts;
};

ReducedSystem ReduceDesign(const Design& a, const ColumnGroups& cg, const TomographyOptions& opt) {
  const int n = static_cast<int>(a.names.size());
  const int m = static_cast<int>(a.rtt.size());
  ReducedSystem rs;
  std::vector<int> rcol(n, -1);
  for (int j = 0; j < n; ++j)
    if (cg.rep[j] == j) {
      rcol[j] = static_cast<int>(rs.col_to_link.size());
      rs.col_to_link.push_back(j);
    }
  const int nr = static_cast<int>(rs.col_to_link.size());
  rs.ar.resize(m, std::max(nr, 1));
  rs.b.resize(m);
  rs.wts.resize(m);
  std::vector<int> router{0}, rinner;
  std::vector<double> rvals;
  rinner.reserve(a.inner.size());
  rvals.reserve(a.inner.size());
  for (int i = 0; i < m; ++i) {
    for (int k = a.outer[i]; k < a.outer[i + 1]; ++k)
      if (rcol[a.inner[k]] >= 0) {
        rinner.push_back(rcol[a.inner[k]]);
        rvals.push_back(a.values[k]);
      }
    router.push_back(static_cast<int>(rinner.size()));
    rs.b[i] = a.rtt[i];
    rs.wts[i] = opt.seed_weighting ? 1.0 / (a.rtt[i] + kSeedEps) : 1.0;
  }
  rs.ar.resizeNonZeros(static_cast<Eigen::Index>(rinner.size()));
  std::copy(router.begin(), router.end(), rs.ar.outerIndexPtr());
  std::copy(rinner.begin(), rinner.end(), rs.ar.innerIndexPtr());
  std::copy(rvals.begin(), rvals.end(), rs.ar.valuePtr());
  return rs;
}

// The null-space probe's verdict per reduced column.
struct NullSpaceProbe {
  std::vector<char> in_null;  // per reduced column: not identifiable
  std::string method = "none";
  int deficiency = 0;
};

// Probes the null space of the reduced matrix `ar` (nr columns): the column-scaled Gram matrix's
// null eigenvectors when nr <= dense_identifiability_limit, else a random right side solved by
// LSQR (a lower bound); nothing when the limit is <= 0 (negative: not even the dense test).
void ProbeNullSpace(const stats::SparseRowMatrix& ar, int nr, const stats::SparseLsqOptions& so,
                    const TomographyOptions& opt, NullSpaceProbe& np) {
  if (nr == 0 || opt.dense_identifiability_limit < 0) return;
  if (nr <= opt.dense_identifiability_limit) {
    // Column-scaled Gram matrix G = D AᵀA D; null eigenvectors span null(A).
    Eigen::SparseMatrix<double> at = ar.transpose();
    Eigen::SparseMatrix<double> g = at * ar;
    Eigen::MatrixXd gd = Eigen::MatrixXd(g);
    Eigen::VectorXd dsc(nr);
    for (int j = 0; j < nr; ++j) dsc[j] = gd(j, j) > 0 ? 1.0 / std::sqrt(gd(j, j)) : 0.0;
    gd = dsc.asDiagonal() * gd * dsc.asDiagonal();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(gd);
    const Eigen::VectorXd& ev = es.eigenvalues();
    const double lmax = std::max(ev.maxCoeff(), 1e-300);
    Eigen::VectorXd proj = Eigen::VectorXd::Zero(nr);
    for (int k = 0; k < nr; ++k)
      if (ev[k] <= 1e-9 * lmax) {
        ++np.deficiency;
        proj += es.eigenvectors().col(k).cwiseAbs2();
      }
    for (int j = 0; j < nr; ++j) np.in_null[j] = proj[j] > 1e-8;
    np.method = "dense-eigen";
  } else if (opt.dense_identifiability_limit > 0) {
    // Random probe: min-norm solution of A x = A z reproduces z_j iff e_j ∈ row space(A).
    Rng rng(opt.probe_seed);
    Eigen::VectorXd z(nr);
    for (int j = 0; j < nr; ++j) z[j] = rng.Uniform(1.0, 2.0);
    Eigen::VectorXd bz = ar * z;
    stats::SparseLsqOptions po = so;
    po.method = stats::LsqMethod::kLsqr;
    po.tolerance = std::min(so.tolerance, 1e-12);
    stats::SparseLsqResult pr = stats::SolveSparseLeastSquares(ar, bz, {}, po);
    for (int j = 0; j < nr; ++j) np.in_null[j] = std::abs(pr.x[j] - z[j]) > 1e-5 * z[j];
    const bool any = std::any_of(np.in_null.begin(), np.in_null.end(), [](char c) { return c != 0; });
    np.deficiency = any ? 1 : 0;  // lower bound
    np.method = "lsqr-probe (" + std::to_string(pr.iterations) + " it" +
                (pr.converged ? "" : ", not converged") + ", deficiency is a lower bound)";
  }
}

// Latencies of the identifiable links (single-link groups outside the probed null space), then
// their weights normalised linearly to [min_weight, max_weight].
void NormaliseLatencies(const ReducedSystem& rs, const ColumnGroups& cg, const stats::SparseLsqResult& sol,
                        const NullSpaceProbe& np, const TomographyOptions& opt, TomographyResult& res) {
  const int nr = static_cast<int>(rs.col_to_link.size());
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int r = 0; r < nr; ++r) {
    LinkWeight& lw = res.links[rs.col_to_link[r]];
    if (cg.group[rs.col_to_link[r]].size() > 1) continue;  // a group's sum: reason already set
    if (np.in_null[r]) {
      lw.reason = "rank-deficient: in the span of other links";
      continue;
    }
    lw.identifiable = true;
    lw.latency_us = sol.x[r];
    lo = std::min(lo, lw.latency_us);
    hi = std::max(hi, lw.latency_us);
  }
  for (LinkWeight& lw : res.links) {
    if (!lw.identifiable) continue;
    lw.weight = hi > lo ? opt.min_weight + (lw.latency_us - lo) / (hi - lo) *
                                               (opt.max_weight - opt.min_weight)
                        : opt.min_weight;
  }
}

}  // namespace

TomographyResult SolveTomography(const std::vector<TomographyPath>& paths,
                                 const TomographyOptions& opt) {
  TomographyResult res;
  // ---- 1. intern link ids and build A in CSR ----
  Design a;
  BuildDesign(paths, opt, a, res);
  const int n = static_cast<int>(a.names.size());
  res.paths = static_cast<int>(a.rtt.size());
  res.link_count = n;
  res.links.resize(n);
  for (int j = 0; j < n; ++j) {
    res.links[j].link = a.names[j];
    res.links[j].latency_us = kNaN;
    res.links[j].weight = kNaN;
  }
  auto finish = [&]() {
    std::sort(res.links.begin(), res.links.end(),
              [](const LinkWeight& x, const LinkWeight& y) { return x.link < y.link; });
    return res;
  };
  if (n == 0) {
    res.method = "empty";
    return finish();
  }

  // ---- 2. exact structural checks: uncovered columns, proportional (always-together) columns ----
  const ColumnGroups cg = GroupColumns(a);
  MarkStructuralDeficiency(a, cg, res);

  // ---- 3. reduced matrix: one column per covered group ----
  const ReducedSystem rs = ReduceDesign(a, cg, opt);
  const int nr = static_cast<int>(rs.col_to_link.size());

  // ---- 4. solve, and probe the null space (concurrently; each is deterministic) ----
  stats::SparseLsqOptions so;
  so.method = opt.use_cg ? stats::LsqMethod::kCgNormal : stats::LsqMethod::kLsqr;
  so.max_iterations = opt.max_iterations;
  so.tolerance = opt.tolerance;
  stats::SparseLsqResult sol;
  NullSpaceProbe np;
  np.in_null.assign(nr, 0);
  auto solve = [&] { if (nr > 0) sol = stats::SolveSparseLeastSquares(rs.ar, rs.b, rs.wts, so); };
  auto probe = [&] { ProbeNullSpace(rs.ar, nr, so, opt, np); };
  tbb::parallel_invoke(solve, probe);
  res.iterations = sol.iterations;
  res.relative_residual = sol.relative_residual;
  res.rank_deficiency += np.deficiency;
  res.method = (nr > 0 ? sol.method : std::string("none")) +
               (nr > 0 && !sol.converged ? " (not converged)" : "") +
               ", identifiability: exact groups + " + np.method;

  // ---- 5. results and normalisation over the identifiable links ----
  NormaliseLatencies(rs, cg, sol, np, opt, res);
  return finish();
}

// ---------------------------------------------------------------------------------------------

int HopWeightFromTomography(double weight, double min_weight, int unidentified_weight) {
  if (!std::isfinite(weight) || !(min_weight > 0)) return std::max(1, unidentified_weight);
  const double r = std::round(weight / min_weight);
  if (!(r >= 1)) return 1;
  if (r > 1e6) return 1000000;
  return static_cast<int>(r);
}

}  // namespace toposcope::analysis
