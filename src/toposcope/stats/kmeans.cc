// stats/kmeans: greedy k-means++ seeding (2 + ln k local trials, as in scikit-learn), Lloyd
// iterations, restarts keeping the lowest inertia. Only toposcope::Rng is used, so results are
// the same on every platform.
#include "toposcope/stats/kmeans.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "toposcope/base/rng.h"

namespace toposcope::stats {
namespace {

using Index = Eigen::Index;

// Squared distance between column i of `a` and column j of `b` (points are columns).
double Dist2(const Eigen::MatrixXd& a, Index i, const Eigen::MatrixXd& b, Index j) {
  double s = 0;
  for (Index r = 0; r < a.rows(); ++r) {
    const double d = a(r, i) - b(r, j);
    s += d * d;
  }
  return s;
}

// Index of the first entry where the running sum of `w` exceeds `target` (last positive on
// round-off).
Index SampleIndex(const std::vector<double>& w, double target) {
  double acc = 0;
  Index last_positive = 0;
  for (size_t i = 0; i < w.size(); ++i) {
    if (w[i] <= 0) continue;
    acc += w[i];
    last_positive = static_cast<Index>(i);
    if (acc > target) return last_positive;
  }
  return last_positive;
}

// Greedy k-means++: each new centre is the best (lowest potential) of a few D^2-sampled
// candidates. `pts` is d x n; returns d x k centres.
Eigen::MatrixXd SeedPlusPlus(const Eigen::MatrixXd& pts, int k, Rng& rng) {
  const Index n = pts.cols();
  Eigen::MatrixXd centers(pts.rows(), k);
  const int trials = 2 + static_cast<int>(std::log(static_cast<double>(k)));
  Index first = static_cast<Index>(rng.Below(static_cast<uint64_t>(n)));
  centers.col(0) = pts.col(first);
  std::vector<double> closest(static_cast<size_t>(n));
  for (Index i = 0; i < n; ++i) closest[static_cast<size_t>(i)] = Dist2(pts, i, centers, 0);
  std::vector<double> cand(static_cast<size_t>(n));
  for (int c = 1; c < k; ++c) {
    double pot = std::accumulate(closest.begin(), closest.end(), 0.0);
    Index best = -1;
    double best_pot = std::numeric_limits<double>::infinity();
    std::vector<double> best_closest;
    for (int t = 0; t < trials; ++t) {
      // All points coincide with a centre: take any (the caller avoids this case).
      const Index idx = pot > 0 ? SampleIndex(closest, rng.Uniform() * pot)
                                : static_cast<Index>(rng.Below(static_cast<uint64_t>(n)));
      double p = 0;
      for (Index i = 0; i < n; ++i) {
        const size_t si = static_cast<size_t>(i);
        cand[si] = std::min(closest[si], Dist2(pts, i, pts, idx));
        p += cand[si];
      }
      if (p < best_pot || best < 0) {
        best_pot = p;
        best = idx;
        best_closest = cand;
      }
    }
    centers.col(c) = pts.col(best);
    closest.swap(best_closest);
  }
  return centers;
}

// The centre (column of `centers`) nearest to column i of `pts`, the first one on ties; its squared
// distance goes to *dist2.
int NearestCenter(const Eigen::MatrixXd& pts, Index i, const Eigen::MatrixXd& centers, double* dist2) {
  const int k = static_cast<int>(centers.cols());
  int best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (int c = 0; c < k; ++c) {
    const double dc = Dist2(pts, i, centers, c);
    if (dc < best_d) {
      best_d = dc;
      best = c;
    }
  }
  *dist2 = best_d;
  return best;
}

struct Run {
  std::vector<int> labels;
  Eigen::MatrixXd centers;  // d x k
  double inertia = 0;
};

// Lloyd iterations from the given centres.
Run Lloyd(const Eigen::MatrixXd& pts, Eigen::MatrixXd centers, int max_iter) {
  const Index n = pts.cols();
  const Index d = pts.rows();
  const int k = static_cast<int>(centers.cols());
  std::vector<int> labels(static_cast<size_t>(n), -1);
  std::vector<double> dist(static_cast<size_t>(n), 0.0);
  std::vector<int> counts(static_cast<size_t>(k));
  for (int iter = 0; iter < std::max(1, max_iter); ++iter) {
    bool changed = false;
    for (Index i = 0; i < n; ++i) {
      double best_d = 0;
      const int best = NearestCenter(pts, i, centers, &best_d);
      const size_t si = static_cast<size_t>(i);
      if (labels[si] != best) changed = true;
      labels[si] = best;
      dist[si] = best_d;
    }
    if (!changed && iter > 0) break;
    // New centres; an empty cluster takes the point farthest from its centre (in a cluster
    // with more than one point, so no other cluster empties).
    Eigen::MatrixXd sums = Eigen::MatrixXd::Zero(d, k);
    std::fill(counts.begin(), counts.end(), 0);
    for (Index i = 0; i < n; ++i) {
      const int l = labels[static_cast<size_t>(i)];
      sums.col(l) += pts.col(i);
      ++counts[static_cast<size_t>(l)];
    }
    for (int c = 0; c < k; ++c) {
      if (counts[static_cast<size_t>(c)] > 0) continue;
      Index far = -1;
      double far_d = 0;
      for (Index i = 0; i < n; ++i) {
        const size_t si = static_cast<size_t>(i);
        if (counts[static_cast<size_t>(labels[si])] > 1 && dist[si] > far_d) {
          far_d = dist[si];
          far = i;
        }
      }
      if (far < 0) continue;  // nothing to move: keep the old centre
      const size_t sf = static_cast<size_t>(far);
      const int from = labels[sf];
      sums.col(from) -= pts.col(far);
      --counts[static_cast<size_t>(from)];
      sums.col(c) = pts.col(far);
      counts[static_cast<size_t>(c)] = 1;
      labels[sf] = c;
      dist[sf] = 0;
      changed = true;
    }
    for (int c = 0; c < k; ++c) {
      if (counts[static_cast<size_t>(c)] > 0) centers.col(c) = sums.col(c) / counts[static_cast<size_t>(c)];
    }
  }
  // Final assignment and inertia against the final centres.
  Run run;
  run.labels.resize(static_cast<size_t>(n));
  for (Index i = 0; i < n; ++i) {
    double best_d = 0;
    run.labels[static_cast<size_t>(i)] = NearestCenter(pts, i, centers, &best_d);
    run.inertia += best_d;
  }
  run.centers = std::move(centers);
  return run;
}

// Indices of the first occurrence of each distinct point, in order of appearance, and each
// point's distinct-group number.
std::vector<Index> DistinctPoints(const Eigen::MatrixXd& pts, std::vector<int>& group) {
  const Index n = pts.cols();
  std::vector<Index> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), Index{0});
  auto less = [&](Index a, Index b) {
    for (Index r = 0; r < pts.rows(); ++r) {
      if (pts(r, a) != pts(r, b)) return pts(r, a) < pts(r, b);
    }
    return a < b;
  };
  auto same = [&](Index a, Index b) { return (pts.col(a).array() == pts.col(b).array()).all(); };
  std::sort(order.begin(), order.end(), less);
  // Representative (first index) of each run of equal points.
  std::vector<Index> rep(static_cast<size_t>(n));
  for (size_t i = 0; i < order.size(); ++i) {
    rep[static_cast<size_t>(order[i])] = (i > 0 && same(order[i - 1], order[i]))
                                             ? rep[static_cast<size_t>(order[i - 1])]
                                             : order[i];
  }
  std::vector<Index> firsts;
  std::vector<int> id_of(static_cast<size_t>(n), -1);
  group.assign(static_cast<size_t>(n), 0);
  for (Index i = 0; i < n; ++i) {
    const size_t r = static_cast<size_t>(rep[static_cast<size_t>(i)]);
    if (id_of[r] < 0) {
      id_of[r] = static_cast<int>(firsts.size());
      firsts.push_back(i);
    }
    group[static_cast<size_t>(i)] = id_of[r];
  }
  return firsts;
}

}  // namespace

KMeansResult KMeans(const Eigen::MatrixXd& points, int k, uint64_t seed, int restarts, int max_iter) {
  KMeansResult out;
  const Index n = points.rows();
  const Index d = points.cols();
  if (n == 0) {
    out.centers.resize(0, d);
    return out;
  }
  k = std::clamp(k, 1, static_cast<int>(n));
  // d x n, one point per column; non-finite coordinates count as 0.
  const Eigen::MatrixXd pts =
      points.transpose().unaryExpr([](double x) { return std::isfinite(x) ? x : 0.0; });

  // k >= the number of distinct points: each distinct point is its own cluster (labels by first
  // appearance); any remaining centres repeat the last distinct point and hold no items.
  std::vector<int> group;
  const std::vector<Index> firsts = DistinctPoints(pts, group);
  if (static_cast<Index>(firsts.size()) <= k) {
    out.labels = group;
    out.centers.resize(k, d);
    for (int c = 0; c < k; ++c) {
      const size_t f = std::min(static_cast<size_t>(c), firsts.size() - 1);
      out.centers.row(c) = pts.col(firsts[f]).transpose();
    }
    out.inertia = 0;
    return out;
  }

  Rng rng(seed);
  Run best;
  bool have = false;
  for (int r = 0; r < std::max(1, restarts); ++r) {
    Run run = Lloyd(pts, SeedPlusPlus(pts, k, rng), max_iter);
    if (!have || run.inertia < best.inertia) {
      best = std::move(run);
      have = true;
    }
  }
  out.labels = std::move(best.labels);
  out.centers = best.centers.transpose();
  out.inertia = best.inertia;
  return out;
}

}  // namespace toposcope::stats
