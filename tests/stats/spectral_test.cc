// Tests for stats/spectral: eigengap choice of k, dense and sparse (Spectra) paths.
#include "toposcope/stats/spectral.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

#include "toposcope/base/rng.h"
#include "toposcope/stats/ari.h"

namespace toposcope::stats {
namespace spectral_test {

Eigen::SparseMatrix<double> ToSparse(const Eigen::MatrixXd& m) { return m.sparseView(); }

// Labels must be 0..k-1 numbered by first appearance.
void ExpectFirstAppearance(const SpectralResult& r) {
  int next = 0;
  for (int l : r.labels) {
    ASSERT_LE(l, next);
    if (l == next) ++next;
  }
  EXPECT_EQ(next, r.k);
}

// `blocks` blocks of `size`, intra weight `in`, inter weight `out`.
Eigen::MatrixXd BlockMatrix(int blocks, int size, double in, double out, std::vector<int>* truth) {
  const int n = blocks * size;
  Eigen::MatrixXd m(n, n);
  truth->clear();
  for (int i = 0; i < n; ++i) {
    truth->push_back(i / size);
    for (int j = 0; j < n; ++j) m(i, j) = i == j ? 0.0 : (i / size == j / size ? in : out);
  }
  return m;
}

TEST(SpectralTest, CompleteGraphIsOneCluster) {
  const Eigen::MatrixXd m = Eigen::MatrixXd::Constant(10, 10, 5.0);
  for (const SpectralResult& r : {SpectralClusterDense(m), SpectralClusterSparse(ToSparse(m))}) {
    EXPECT_EQ(r.k, 1);
    EXPECT_EQ(r.labels, std::vector<int>(10, 0));
    ASSERT_GE(r.eigenvalues.size(), 2u);
    EXPECT_NEAR(r.eigenvalues[0], 0.0, 1e-12);
    EXPECT_NEAR(r.eigenvalues[1], 10.0 / 9.0, 1e-9);  // n / (n - 1)
    EXPECT_TRUE(r.notes.empty());
  }
}

TEST(SpectralTest, TwoDisconnectedCliques) {
  std::vector<int> truth;
  const Eigen::MatrixXd m = BlockMatrix(2, 6, 50.0, 0.0, &truth);
  for (const SpectralResult& r : {SpectralClusterDense(m), SpectralClusterSparse(ToSparse(m))}) {
    EXPECT_EQ(r.k, 2);
    EXPECT_EQ(r.labels, truth);
    EXPECT_EQ(r.components, 2);
  }
}

TEST(SpectralTest, StrongBlocksWeakBackground) {
  std::vector<int> truth;
  const Eigen::MatrixXd m = BlockMatrix(4, 8, 300.0, 20.0, &truth);
  const SpectralResult dense = SpectralClusterDense(m);
  EXPECT_EQ(dense.k, 4);
  EXPECT_EQ(dense.labels, truth);
  EXPECT_EQ(dense.components, 1);
  // lambda_2..4 = 1 - 1940/2580, lambda_5 = 1 + 300/2580: the gap after 4 chose k.
  ASSERT_GE(dense.eigenvalues.size(), 5u);
  EXPECT_NEAR(dense.eigenvalues[1], 1.0 - 1940.0 / 2580.0, 1e-9);
  EXPECT_NEAR(dense.eigengap, (300.0 + 1940.0) / 2580.0, 1e-9);
  EXPECT_EQ(SpectralClusterSparse(ToSparse(m)).labels, truth);
  // Force the Lanczos path (nev = 9 < 32 vertices).
  SpectralOptions opt;
  opt.max_clusters = 8;
  opt.dense_limit = 4;
  const SpectralResult lanczos = SpectralClusterSparse(ToSparse(m), opt);
  EXPECT_EQ(lanczos.labels, truth);
  EXPECT_TRUE(lanczos.notes.empty());
  ASSERT_EQ(lanczos.eigenvalues.size(), 9u);
  for (size_t i = 0; i < 9; ++i) EXPECT_NEAR(lanczos.eigenvalues[i], dense.eigenvalues[i], 1e-8);
}

TEST(SpectralTest, BandwidthPairsGiveFourClusters) {
  // 8 GPUs: NVLink pairs {0,1},{2,3},.. at 100 GB/s, everything else 10 GB/s.
  Eigen::MatrixXd m(8, 8);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) m(i, j) = i == j ? 0.0 : (i / 2 == j / 2 ? 100.0 : 10.0);
  }
  const std::vector<int> truth = {0, 0, 1, 1, 2, 2, 3, 3};
  const SpectralResult dense = SpectralClusterDense(m);
  EXPECT_EQ(dense.k, 4);
  EXPECT_EQ(dense.labels, truth);
  EXPECT_NEAR(dense.eigengap, 1.125, 1e-9);  // 1.625 - 0.5
  const SpectralResult sparse = SpectralClusterSparse(ToSparse(m));
  EXPECT_EQ(sparse.labels, truth);
}

TEST(SpectralTest, SmallGapMeansOneCluster) {
  // Pairs only 2x stronger than the rest: the gap after lambda_1 is the largest (pairs win only
  // when they are more than 5x stronger), so k = 1.
  Eigen::MatrixXd m(8, 8);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) m(i, j) = i == j ? 0.0 : (i / 2 == j / 2 ? 20.0 : 10.0);
  }
  EXPECT_EQ(SpectralClusterDense(m).k, 1);
  // A huge min_eigengap forces one cluster even for clear blocks.
  std::vector<int> truth;
  SpectralOptions opt;
  opt.min_eigengap = 5.0;
  const SpectralResult r = SpectralClusterDense(BlockMatrix(3, 4, 100.0, 1.0, &truth), opt);
  EXPECT_EQ(r.k, 1);
  EXPECT_GT(r.eigengap, 0.2);
}

TEST(SpectralTest, IsolatedVerticesAreSingletons) {
  std::vector<int> truth;
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(7, 7);
  // Vertices 1..4 a clique; 0, 5, 6 isolated (6 has a negligible edge to 1).
  for (int i = 1; i <= 4; ++i) {
    for (int j = 1; j <= 4; ++j) m(i, j) = i == j ? 0.0 : 7.0;
  }
  m(6, 1) = m(1, 6) = 1e-12;
  for (const SpectralResult& r : {SpectralClusterDense(m), SpectralClusterSparse(ToSparse(m))}) {
    EXPECT_EQ(r.labels, (std::vector<int>{0, 1, 1, 1, 1, 2, 3}));
    EXPECT_EQ(r.k, 4);
    ExpectFirstAppearance(r);
  }
  const SpectralResult zero = SpectralClusterSparse(Eigen::SparseMatrix<double>(5, 5));
  EXPECT_EQ(zero.labels, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(zero.k, 5);
}

TEST(SpectralTest, EmptyAndNonSquare) {
  const SpectralResult empty = SpectralClusterDense(Eigen::MatrixXd(0, 0));
  EXPECT_EQ(empty.k, 0);
  EXPECT_TRUE(empty.labels.empty());
  const SpectralResult bad = SpectralClusterDense(Eigen::MatrixXd::Ones(3, 4));
  EXPECT_TRUE(bad.labels.empty());
  EXPECT_FALSE(bad.notes.empty());
}

TEST(SpectralTest, AsymmetricInputIsSymmetrised) {
  std::vector<int> truth;
  Eigen::MatrixXd m = BlockMatrix(3, 5, 80.0, 2.0, &truth);
  const Eigen::MatrixXd upper = m.triangularView<Eigen::StrictlyUpper>();
  m.diagonal().setConstant(1000.0);  // ignored
  EXPECT_EQ(SpectralClusterDense(m).labels, truth);
  EXPECT_EQ(SpectralClusterDense(upper).labels, truth);
  EXPECT_EQ(SpectralClusterSparse(ToSparse(upper)).labels, truth);
}

// n vertices in blocks of 8 (random strong intra weights), with the vertex order shuffled;
// weak random edges chain the blocks listed in `linked` into one component.
struct Planted {
  Eigen::SparseMatrix<double> w;
  std::vector<int> truth;
};
Planted PlantBlocks(int blocks, const std::vector<int>& linked, int extra_edges, uint64_t seed) {
  const int n = blocks * 8;
  Rng rng(seed);
  std::vector<int> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), 0);
  for (int i = n - 1; i > 0; --i) {
    std::swap(perm[static_cast<size_t>(i)], perm[rng.Below(static_cast<uint64_t>(i) + 1)]);
  }
  std::vector<Eigen::Triplet<double>> t;
  auto add = [&](int a, int b, double x) {
    t.emplace_back(perm[static_cast<size_t>(a)], perm[static_cast<size_t>(b)], x);
    t.emplace_back(perm[static_cast<size_t>(b)], perm[static_cast<size_t>(a)], x);
  };
  for (int b = 0; b < blocks; ++b) {
    for (int i = 0; i < 8; ++i) {
      for (int j = i + 1; j < 8; ++j) add(b * 8 + i, b * 8 + j, rng.Uniform(200.0, 400.0));
    }
  }
  // A chain through the linked blocks, plus random extra edges among them.
  auto vertex = [&](int block) { return block * 8 + static_cast<int>(rng.Below(8)); };
  for (size_t i = 1; i < linked.size(); ++i) {
    add(vertex(linked[i - 1]), vertex(linked[i]), rng.Uniform(1.0, 5.0));
  }
  for (int e = 0; e < extra_edges && linked.size() > 1; ++e) {
    const int a = linked[rng.Below(linked.size())];
    const int b = linked[rng.Below(linked.size())];
    if (a != b) add(vertex(a), vertex(b), rng.Uniform(1.0, 5.0));
  }
  Planted p;
  p.w.resize(n, n);
  p.w.setFromTriplets(t.begin(), t.end());  // duplicates are summed, symmetrically
  p.truth.assign(static_cast<size_t>(n), 0);
  for (int v = 0; v < n; ++v) p.truth[static_cast<size_t>(perm[static_cast<size_t>(v)])] = v / 8;
  return p;
}

TEST(SpectralTest, SparseRecoversBlocksAt2048) {
  // 256 blocks of 8; blocks 0..15 and 100..105 weakly linked, the rest disconnected.
  std::vector<int> linked;
  for (int b = 0; b < 16; ++b) linked.push_back(b);
  const Planted p = PlantBlocks(256, linked, 20, 31);
  std::vector<int> linked2 = {100, 101, 102, 103, 104, 105};
  Eigen::SparseMatrix<double> w = p.w;
  Rng rng(8);
  for (size_t i = 1; i < linked2.size(); ++i) {
    // Find two vertices of consecutive blocks through the truth labels.
    int a = -1;
    int b = -1;
    for (int v = 0; v < 2048 && (a < 0 || b < 0); ++v) {
      if (p.truth[static_cast<size_t>(v)] == linked2[i - 1] && a < 0) a = v;
      if (p.truth[static_cast<size_t>(v)] == linked2[i] && b < 0) b = v;
    }
    w.coeffRef(a, b) += 2.0;
    w.coeffRef(b, a) += 2.0;
  }
  const SpectralResult r = SpectralClusterSparse(w);
  EXPECT_EQ(r.k, 256);
  EXPECT_EQ(r.components, 256 - 15 - 5);
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(r.labels, p.truth), 1.0);
  ExpectFirstAppearance(r);
  // The largest component (16 blocks) chose 16 clusters.
  ASSERT_EQ(r.eigenvalues.size(), 33u);
  EXPECT_GT(r.eigengap, 0.5);
  // Deterministic.
  EXPECT_EQ(SpectralClusterSparse(w).labels, r.labels);
}

TEST(SpectralTest, LanczosAgreesWithDense) {
  // One connected component of 32 weakly linked blocks (256 vertices).
  std::vector<int> linked(32);
  std::iota(linked.begin(), linked.end(), 0);
  const Planted p = PlantBlocks(32, linked, 40, 77);
  SpectralOptions opt;
  opt.max_clusters = 40;
  const SpectralResult dense = SpectralClusterSparse(p.w, opt);  // 256 <= dense_limit
  opt.dense_limit = 16;
  const SpectralResult lanczos = SpectralClusterSparse(p.w, opt);
  EXPECT_TRUE(lanczos.notes.empty());
  EXPECT_EQ(dense.k, 32);
  EXPECT_EQ(lanczos.k, 32);
  EXPECT_EQ(lanczos.labels, dense.labels);
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(lanczos.labels, p.truth), 1.0);
  ASSERT_EQ(lanczos.eigenvalues.size(), dense.eigenvalues.size());
  for (size_t i = 0; i < dense.eigenvalues.size(); ++i) {
    EXPECT_NEAR(lanczos.eigenvalues[i], dense.eigenvalues[i], 1e-8) << i;
  }
  EXPECT_NEAR(lanczos.eigengap, dense.eigengap, 1e-8);
  // The dense entry point gives the same answer.
  EXPECT_EQ(SpectralClusterDense(Eigen::MatrixXd(p.w), opt).labels, dense.labels);
}

TEST(SpectralTest, MaxClustersCapsK) {
  // Six clear blocks in one component but at most 3 clusters allowed.
  std::vector<int> truth;
  SpectralOptions opt;
  opt.max_clusters = 3;
  const SpectralResult r = SpectralClusterDense(BlockMatrix(6, 4, 100.0, 1.0, &truth), opt);
  EXPECT_LE(r.k, 3);
  EXPECT_EQ(r.eigenvalues.size(), 4u);
}

}  // namespace spectral_test
}  // namespace toposcope::stats
