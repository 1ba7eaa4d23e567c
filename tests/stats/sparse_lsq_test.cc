// Tests for stats/sparse_lsq: LSQR and CG on the normal equations against dense solutions.
#include "toposcope/stats/sparse_lsq.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::stats {
namespace sparse_lsq_test {

// A random sparse m×n matrix with about `per_row` nonzeros per row (and every column hit).
SparseRowMatrix RandomSparse(int m, int n, int per_row, uint64_t seed) {
  Rng rng(seed);
  std::vector<Eigen::Triplet<double>> t;
  for (int i = 0; i < m; ++i) {
    for (int k = 0; k < per_row; ++k)
      t.emplace_back(i, static_cast<int>(rng.Below(n)), rng.Uniform(0.5, 2.0));
    t.emplace_back(i, i % n, 1.0);
  }
  SparseRowMatrix a(m, n);
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  return a;
}

Eigen::VectorXd DenseWls(const SparseRowMatrix& a, const Eigen::VectorXd& b,
                         const Eigen::VectorXd& w, double damp = 0) {
  const Eigen::MatrixXd ad = Eigen::MatrixXd(a);
  Eigen::MatrixXd n = ad.transpose() * w.asDiagonal() * ad;
  n += damp * damp * Eigen::MatrixXd::Identity(ad.cols(), ad.cols());
  return n.ldlt().solve(ad.transpose() * w.asDiagonal() * b);
}

TEST(SparseLsq, LsqrMatchesDenseWeightedSolution) {
  const SparseRowMatrix a = RandomSparse(200, 40, 4, 1);
  Rng rng(2);
  Eigen::VectorXd b(200), w(200);
  for (int i = 0; i < 200; ++i) {
    b[i] = rng.Uniform(1, 10);
    w[i] = 1.0 / b[i];
  }
  const Eigen::VectorXd ref = DenseWls(a, b, w);
  for (bool scale : {true, false}) {
    SparseLsqOptions o;
    o.column_scaling = scale;
    const SparseLsqResult r = SolveSparseLeastSquares(a, b, w, o);
    EXPECT_TRUE(r.converged);
    EXPECT_GT(r.iterations, 0);
    EXPECT_LT((r.x - ref).norm() / ref.norm(), 1e-8) << "scale=" << scale;
    EXPECT_EQ(r.method, scale ? "lsqr+colscale" : "lsqr");
    // the reported residual is the true weighted residual
    const Eigen::VectorXd res = w.cwiseSqrt().cwiseProduct(a * r.x - b);
    EXPECT_NEAR(r.residual_norm, res.norm(), 1e-9 * res.norm());
    EXPECT_NEAR(r.relative_residual, res.norm() / w.cwiseSqrt().cwiseProduct(b).norm(), 1e-9);
    EXPECT_LT(r.normal_residual, 1e-8);
  }
}

TEST(SparseLsq, CgNormalMatchesDense) {
  const SparseRowMatrix a = RandomSparse(300, 50, 3, 3);
  Rng rng(4);
  Eigen::VectorXd b(300);
  for (int i = 0; i < 300; ++i) b[i] = rng.Normal();
  const Eigen::VectorXd ref = DenseWls(a, b, Eigen::VectorXd::Ones(300));
  SparseLsqOptions o;
  o.method = LsqMethod::kCgNormal;
  const SparseLsqResult r = SolveSparseLeastSquares(a, b, {}, o);
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.method, "cg-normal+colscale");
  EXPECT_LT((r.x - ref).norm() / ref.norm(), 1e-8);
}

TEST(SparseLsq, DampingMatchesRidge) {
  const SparseRowMatrix a = RandomSparse(120, 30, 3, 5);
  Rng rng(6);
  Eigen::VectorXd b(120);
  for (int i = 0; i < 120; ++i) b[i] = rng.Normal();
  const Eigen::VectorXd ref = DenseWls(a, b, Eigen::VectorXd::Ones(120), 0.7);
  for (LsqMethod m : {LsqMethod::kLsqr, LsqMethod::kCgNormal}) {
    SparseLsqOptions o;
    o.method = m;
    o.damping = 0.7;
    o.column_scaling = false;  // damping acts on the caller's variables only without scaling
    const SparseLsqResult r = SolveSparseLeastSquares(a, b, {}, o);
    EXPECT_TRUE(r.converged);
    EXPECT_LT((r.x - ref).norm() / ref.norm(), 1e-7);
    EXPECT_NE(r.method.find("+damp"), std::string::npos);
  }
}

TEST(SparseLsq, RankDeficientConsistentGivesMinimumNorm) {
  // Columns 0 and 1 identical: x0 + x1 is determined, the min-norm split is equal halves.
  SparseRowMatrix a(3, 3);
  std::vector<Eigen::Triplet<double>> t = {{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {1, 1, 1},
                                           {1, 2, 1}, {2, 2, 1}};
  a.setFromTriplets(t.begin(), t.end());
  a.makeCompressed();
  Eigen::VectorXd b(3);
  b << 4, 7, 3;
  SparseLsqOptions o;
  o.column_scaling = false;
  for (LsqMethod m : {LsqMethod::kLsqr, LsqMethod::kCgNormal}) {
    o.method = m;
    const SparseLsqResult r = SolveSparseLeastSquares(a, b, {}, o);
    EXPECT_NEAR(r.x[0], 2, 1e-9);
    EXPECT_NEAR(r.x[1], 2, 1e-9);
    EXPECT_NEAR(r.x[2], 3, 1e-9);
    EXPECT_LT(r.relative_residual, 1e-10);
  }
}

TEST(SparseLsq, EdgeCases) {
  SparseRowMatrix empty(0, 0);
  SparseLsqResult r = SolveSparseLeastSquares(empty, Eigen::VectorXd(0));
  EXPECT_EQ(r.x.size(), 0);
  EXPECT_EQ(r.iterations, 0);
  // mismatch
  SparseRowMatrix a(2, 2);
  a.insert(0, 0) = 1;
  a.insert(1, 1) = 1;
  r = SolveSparseLeastSquares(a, Eigen::VectorXd::Ones(3));
  EXPECT_EQ(r.x.size(), 0);
  EXPECT_EQ(r.method.rfind("error", 0), 0u);
  r = SolveSparseLeastSquares(a, Eigen::VectorXd::Ones(2), Eigen::VectorXd::Ones(5));
  EXPECT_EQ(r.x.size(), 0);
  // uncompressed input, zero rhs, empty column
  SparseRowMatrix c(3, 3);
  c.insert(0, 0) = 2;
  c.insert(1, 0) = 1;
  c.insert(2, 1) = 1;
  r = SolveSparseLeastSquares(c, Eigen::VectorXd::Zero(3));
  EXPECT_EQ(r.x, Eigen::VectorXd::Zero(3));
  Eigen::VectorXd b(3);
  b << 4, 2, 5;
  r = SolveSparseLeastSquares(c, b);
  EXPECT_NEAR(r.x[0], 2, 1e-12);
  EXPECT_NEAR(r.x[1], 5, 1e-12);
  EXPECT_EQ(r.x[2], 0);  // empty column stays at 0
  // NaN in b and a negative weight: those rows drop out
  b << 4, std::nan(""), 5;
  Eigen::VectorXd w(3);
  w << 1, 1, 1;
  r = SolveSparseLeastSquares(c, b, w);
  EXPECT_NEAR(r.x[0], 2, 1e-12);
  EXPECT_TRUE(std::isfinite(r.residual_norm));
  b << 4, 100, 5;
  w << 1, -1, 1;
  r = SolveSparseLeastSquares(c, b, w);
  EXPECT_NEAR(r.x[0], 2, 1e-12);
}

TEST(SparseLsq, IterationCapAndDeterminism) {
  const SparseRowMatrix a = RandomSparse(500, 100, 5, 7);
  Rng rng(8);
  Eigen::VectorXd b(500);
  for (int i = 0; i < 500; ++i) b[i] = rng.Normal();
  SparseLsqOptions o;
  o.max_iterations = 3;
  SparseLsqResult r = SolveSparseLeastSquares(a, b, {}, o);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_FALSE(r.converged);
  o.max_iterations = 10000;
  const SparseLsqResult r1 = SolveSparseLeastSquares(a, b, {}, o);
  const SparseLsqResult r2 = SolveSparseLeastSquares(a, b, {}, o);
  EXPECT_EQ(r1.iterations, r2.iterations);
  for (int j = 0; j < 100; ++j) EXPECT_EQ(r1.x[j], r2.x[j]);  // bit-identical
}

}  // namespace sparse_lsq_test
}  // namespace toposcope::stats
