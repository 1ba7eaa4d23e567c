// stats/spectral: spectral clustering per connected component. k comes from the largest gap in
// the smallest eigenvalues of L = I - D^-1/2 W D^-1/2; the first k eigenvectors, rows normalised
// (Ng-Jordan-Weiss), are clustered by k-means++. Small components: Eigen's dense solver; large
// ones: Spectra's Lanczos on M = D^-1/2 W D^-1/2 (largest eigenvalues of M = smallest of L).
#include "toposcope/stats/spectral.h"

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymEigsSolver.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <string>
#include <utility>

#include "toposcope/stats/kmeans.h"

namespace toposcope::stats {
namespace {

using Index = Eigen::Index;

// Symmetric, diagonal-free graph with positive weights, in compressed rows.
struct Graph {
  int n = 0;
  std::vector<int> start;  // n + 1
  std::vector<int> nbr;
  std::vector<double> w;
};

// A clean weight: negative or NaN -> 0.
double Clean(double x) { return x > 0 ? x : 0.0; }

Graph FromDense(const Eigen::MatrixXd& a) {
  Graph g;
  g.n = static_cast<int>(a.rows());
  g.start.assign(static_cast<size_t>(g.n) + 1, 0);
  for (int i = 0; i < g.n; ++i) {
    for (int j = 0; j < g.n; ++j) {
      if (i == j) continue;
      const double x = 0.5 * (Clean(a(i, j)) + Clean(a(j, i)));
      if (x > 0) {
        g.nbr.push_back(j);
        g.w.push_back(x);
      }
    }
    g.start[static_cast<size_t>(i) + 1] = static_cast<int>(g.nbr.size());
  }
  return g;
}

Graph FromSparse(const Eigen::SparseMatrix<double>& a) {
  // (A + A^T) / 2 with cleaned weights, column-major: column j holds row i's edge (i, j).
  Eigen::SparseMatrix<double> c = a.unaryExpr([](double x) { return Clean(x); });
  Eigen::SparseMatrix<double> t = c.transpose();
  Eigen::SparseMatrix<double> s = 0.5 * (c + t);
  s.makeCompressed();
  Graph g;
  g.n = static_cast<int>(s.cols());
  g.start.assign(static_cast<size_t>(g.n) + 1, 0);
  g.nbr.reserve(static_cast<size_t>(s.nonZeros()));
  g.w.reserve(static_cast<size_t>(s.nonZeros()));
  for (int j = 0; j < g.n; ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(s, j); it; ++it) {
      if (it.row() == j || !(it.value() > 0)) continue;
      g.nbr.push_back(static_cast<int>(it.row()));
      g.w.push_back(it.value());
    }
    g.start[static_cast<size_t>(j) + 1] = static_cast<int>(g.nbr.size());
  }
  return g;
}

// What one component's clustering produced.
struct Part {
  std::vector<int> labels;  // local, per component vertex
  std::vector<double> eigenvalues;
  double eigengap = 0;
  std::string note;
};

// k = argmax_{k <= max_k} (lambda_{k+1} - lambda_k); below min_gap -> 1. Returns (k, gap).
std::pair<int, double> ChooseK(const std::vector<double>& lambda, int max_k, double min_gap) {
  int best_k = 1;
  double best = -1;
  const int last = std::min<int>(max_k, static_cast<int>(lambda.size()) - 1);
  for (int k = 1; k <= last; ++k) {
    const double gap = lambda[static_cast<size_t>(k)] - lambda[static_cast<size_t>(k) - 1];
    if (gap > best) {
      best = gap;
      best_k = k;
    }
  }
  if (best < 0) return {1, 0.0};
  if (best < min_gap) return {1, best};
  return {best_k, best};
}

// Rows of the first k eigenvectors, normalised, then k-means.
std::vector<int> EmbedAndCluster(Eigen::MatrixXd vecs, int k, const SpectralOptions& opt) {
  if (k <= 1) return std::vector<int>(static_cast<size_t>(vecs.rows()), 0);
  for (Index i = 0; i < vecs.rows(); ++i) {
    const double norm = vecs.row(i).norm();
    if (norm > 0) vecs.row(i) /= norm;
  }
  return KMeans(vecs, k, opt.seed, opt.kmeans_restarts).labels;
}

// Dense path: `w` is the component's affinity (zero diagonal, every degree > 0).
Part ClusterDense(const Eigen::MatrixXd& w, const SpectralOptions& opt) {
  Part part;
  const Index n = w.rows();
  const Eigen::VectorXd dinv = w.rowwise().sum().cwiseSqrt().cwiseInverse();
  Eigen::MatrixXd lap = -(dinv.asDiagonal() * w * dinv.asDiagonal());
  lap.diagonal().array() += 1.0;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(lap);
  if (es.info() != Eigen::Success) {
    part.labels.assign(static_cast<size_t>(n), 0);
    part.note = "dense eigen-solver failed on a component of " + std::to_string(n) +
                " vertices; treated as one cluster";
    return part;
  }
  const Index m = std::min<Index>(n, static_cast<Index>(opt.max_clusters) + 1);
  for (Index i = 0; i < m; ++i) part.eigenvalues.push_back(es.eigenvalues()(i));
  const auto [k, gap] = ChooseK(part.eigenvalues, opt.max_clusters, opt.min_eigengap);
  part.eigengap = gap;
  part.labels = EmbedAndCluster(es.eigenvectors().leftCols(k), k, opt);
  return part;
}

// Sparse path: Lanczos for the largest max_clusters + 1 eigenvalues of M. Needs nev < n.
Part ClusterLanczos(const Eigen::SparseMatrix<double>& w, const SpectralOptions& opt) {
  Part part;
  const Index n = w.rows();
  Eigen::VectorXd deg = Eigen::VectorXd::Zero(n);
  for (Index j = 0; j < w.outerSize(); ++j) {
    for (Eigen::SparseMatrix<double>::InnerIterator it(w, j); it; ++it) deg(it.row()) += it.value();
  }
  const Eigen::VectorXd dinv = deg.cwiseSqrt().cwiseInverse();
  const Eigen::SparseMatrix<double> m = dinv.asDiagonal() * w * dinv.asDiagonal();
  const Index nev = static_cast<Index>(opt.max_clusters) + 1;
  const Index ncv = std::min<Index>(n, std::max<Index>(2 * nev + 1, 20));
  bool ok = false;
  Eigen::VectorXd mu;
  Eigen::MatrixXd vecs;
  try {
    Spectra::SparseSymMatProd<double> op(m);
    Spectra::SymEigsSolver<Spectra::SparseSymMatProd<double>> eigs(op, nev, ncv);
    eigs.init();
    eigs.compute(Spectra::SortRule::LargestAlge, 1000, 1e-10, Spectra::SortRule::LargestAlge);
    if (eigs.info() == Spectra::CompInfo::Successful) {
      mu = eigs.eigenvalues();  // descending
      vecs = eigs.eigenvectors();
      ok = mu.size() == nev;
    }
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok) {
    part.labels.assign(static_cast<size_t>(n), 0);
    part.note = "Lanczos eigen-solver did not converge on a component of " + std::to_string(n) +
                " vertices; treated as one cluster";
    return part;
  }
  for (Index i = 0; i < nev; ++i) part.eigenvalues.push_back(1.0 - mu(i));
  const auto [k, gap] = ChooseK(part.eigenvalues, opt.max_clusters, opt.min_eigengap);
  part.eigengap = gap;
  part.labels = EmbedAndCluster(vecs.leftCols(k), k, opt);
  return part;
}

SpectralResult Cluster(const Graph& g, const SpectralOptions& opt, bool dense_only) {
  SpectralResult res;
  const int n = g.n;
  res.labels.assign(static_cast<size_t>(n), -1);
  if (n == 0) return res;
  SpectralOptions o = opt;
  o.max_clusters = std::max(1, o.max_clusters);

  // Isolated: degree below the threshold. Their edges are dropped from everyone else too.
  std::vector<char> active(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    double deg = 0;
    for (int e = g.start[static_cast<size_t>(i)]; e < g.start[static_cast<size_t>(i) + 1]; ++e) {
      deg += g.w[static_cast<size_t>(e)];
    }
    active[static_cast<size_t>(i)] = deg >= o.isolated_degree && deg > 0 ? 1 : 0;
  }

  std::vector<int> raw(static_cast<size_t>(n), -1);  // labels before renumbering
  std::vector<int> local(static_cast<size_t>(n), -1);
  std::vector<int> members;
  int next_label = 0;
  size_t largest = 0;
  for (int s = 0; s < n; ++s) {
    if (raw[static_cast<size_t>(s)] >= 0) continue;
    ++res.components;
    // Breadth-first search over active vertices, from the lowest unlabelled vertex.
    members.assign(1, s);
    raw[static_cast<size_t>(s)] = next_label;  // provisional: marks visited
    if (active[static_cast<size_t>(s)]) {
      for (size_t h = 0; h < members.size(); ++h) {
        const int v = members[h];
        for (int e = g.start[static_cast<size_t>(v)]; e < g.start[static_cast<size_t>(v) + 1]; ++e) {
          const int u = g.nbr[static_cast<size_t>(e)];
          if (!active[static_cast<size_t>(u)] || raw[static_cast<size_t>(u)] >= 0) continue;
          raw[static_cast<size_t>(u)] = next_label;
          members.push_back(u);
        }
      }
    }
    const int size = static_cast<int>(members.size());
    if (size == 1) {
      ++next_label;
      if (largest == 0) largest = 1;
      continue;
    }
    std::sort(members.begin(), members.end());
    for (int i = 0; i < size; ++i) local[static_cast<size_t>(members[static_cast<size_t>(i)])] = i;

    Part part;
    const bool use_dense = dense_only || size <= o.dense_limit || size <= o.max_clusters + 1;
    if (use_dense) {
      Eigen::MatrixXd w = Eigen::MatrixXd::Zero(size, size);
      for (int i = 0; i < size; ++i) {
        const int v = members[static_cast<size_t>(i)];
        for (int e = g.start[static_cast<size_t>(v)]; e < g.start[static_cast<size_t>(v) + 1]; ++e) {
          const int u = g.nbr[static_cast<size_t>(e)];
          if (active[static_cast<size_t>(u)]) w(i, local[static_cast<size_t>(u)]) = g.w[static_cast<size_t>(e)];
        }
      }
      part = ClusterDense(w, o);
    } else {
      std::vector<Eigen::Triplet<double>> trips;
      for (int i = 0; i < size; ++i) {
        const int v = members[static_cast<size_t>(i)];
        for (int e = g.start[static_cast<size_t>(v)]; e < g.start[static_cast<size_t>(v) + 1]; ++e) {
          const int u = g.nbr[static_cast<size_t>(e)];
          if (active[static_cast<size_t>(u)]) trips.emplace_back(i, local[static_cast<size_t>(u)], g.w[static_cast<size_t>(e)]);
        }
      }
      Eigen::SparseMatrix<double> w(size, size);
      w.setFromTriplets(trips.begin(), trips.end());
      part = ClusterLanczos(w, o);
    }
    if (!part.note.empty()) res.notes.push_back(part.note);
    int max_local = 0;
    for (int i = 0; i < size; ++i) {
      const int l = part.labels[static_cast<size_t>(i)];
      raw[static_cast<size_t>(members[static_cast<size_t>(i)])] = next_label + l;
      max_local = std::max(max_local, l);
    }
    next_label += max_local + 1;
    if (static_cast<size_t>(size) > largest) {
      largest = static_cast<size_t>(size);
      res.eigenvalues = std::move(part.eigenvalues);
      res.eigengap = part.eigengap;
    }
  }

  // Renumber by first appearance.
  std::vector<int> map(static_cast<size_t>(next_label), -1);
  int k = 0;
  for (int i = 0; i < n; ++i) {
    int& m = map[static_cast<size_t>(raw[static_cast<size_t>(i)])];
    if (m < 0) m = k++;
    res.labels[static_cast<size_t>(i)] = m;
  }
  res.k = k;
  return res;
}

}  // namespace

SpectralResult SpectralClusterDense(const Eigen::MatrixXd& affinity, const SpectralOptions& opt) {
  if (affinity.rows() != affinity.cols()) {
    SpectralResult res;
    res.notes.push_back("affinity matrix is not square");
    return res;
  }
  return Cluster(FromDense(affinity), opt, /*dense_only=*/true);
}

SpectralResult SpectralClusterSparse(const Eigen::SparseMatrix<double>& affinity,
                                     const SpectralOptions& opt) {
  if (affinity.rows() != affinity.cols()) {
    SpectralResult res;
    res.notes.push_back("affinity matrix is not square");
    return res;
  }
  return Cluster(FromSparse(affinity), opt, /*dense_only=*/false);
}

}  // namespace toposcope::stats
