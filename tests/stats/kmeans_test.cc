// Tests for stats/kmeans: k-means++ with restarts, deterministic.
#include "toposcope/stats/kmeans.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <utility>
#include <vector>

#include "toposcope/base/rng.h"
#include "toposcope/stats/ari.h"

namespace toposcope::stats {
namespace kmeans_test {

// `per` points around each of the given 2-D centres, with standard deviation `sd`.
Eigen::MatrixXd Blobs(const std::vector<std::pair<double, double>>& centres, int per, double sd,
                      uint64_t seed, std::vector<int>* truth) {
  Rng rng(seed);
  Eigen::MatrixXd pts(static_cast<Eigen::Index>(centres.size()) * per, 2);
  truth->clear();
  Eigen::Index r = 0;
  for (size_t c = 0; c < centres.size(); ++c) {
    for (int i = 0; i < per; ++i, ++r) {
      pts(r, 0) = centres[c].first + sd * rng.Normal();
      pts(r, 1) = centres[c].second + sd * rng.Normal();
      truth->push_back(static_cast<int>(c));
    }
  }
  return pts;
}

TEST(KMeansTest, RecoversSeparatedBlobs) {
  std::vector<int> truth;
  const Eigen::MatrixXd pts = Blobs({{0, 0}, {10, 0}, {0, 10}, {10, 10}}, 50, 0.5, 3, &truth);
  const KMeansResult res = KMeans(pts, 4, 1);
  ASSERT_EQ(res.labels.size(), truth.size());
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(res.labels, truth), 1.0);
  ASSERT_EQ(res.centers.rows(), 4);
  ASSERT_EQ(res.centers.cols(), 2);
  // Each centre sits near one true centre; inertia ~ n * d * sd^2 = 200 * 2 * 0.25.
  for (Eigen::Index c = 0; c < 4; ++c) {
    const double x = res.centers(c, 0);
    const double y = res.centers(c, 1);
    EXPECT_LT(std::min(std::abs(x), std::abs(x - 10)), 0.3);
    EXPECT_LT(std::min(std::abs(y), std::abs(y - 10)), 0.3);
  }
  EXPECT_GT(res.inertia, 50.0);
  EXPECT_LT(res.inertia, 150.0);
}

TEST(KMeansTest, InertiaMatchesLabelsAndCentres) {
  std::vector<int> truth;
  const Eigen::MatrixXd pts = Blobs({{0, 0}, {3, 1}, {1, 4}}, 40, 1.2, 9, &truth);
  const KMeansResult res = KMeans(pts, 3, 5);
  double inertia = 0;
  for (Eigen::Index i = 0; i < pts.rows(); ++i) {
    inertia += (pts.row(i) - res.centers.row(res.labels[static_cast<size_t>(i)])).squaredNorm();
    // Every point is assigned to its nearest centre.
    for (Eigen::Index c = 0; c < 3; ++c) {
      EXPECT_LE((pts.row(i) - res.centers.row(res.labels[static_cast<size_t>(i)])).squaredNorm(),
                (pts.row(i) - res.centers.row(c)).squaredNorm() + 1e-12);
    }
  }
  EXPECT_NEAR(res.inertia, inertia, 1e-9 * inertia);
}

TEST(KMeansTest, DeterministicForASeed) {
  std::vector<int> truth;
  const Eigen::MatrixXd pts = Blobs({{0, 0}, {2, 0}, {0, 2}, {2, 2}, {1, 1}}, 30, 0.8, 11, &truth);
  const KMeansResult a = KMeans(pts, 5, 77);
  const KMeansResult b = KMeans(pts, 5, 77);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.inertia, b.inertia);
  EXPECT_TRUE(a.centers == b.centers);
}

TEST(KMeansTest, MoreRestartsNeverWorse) {
  std::vector<int> truth;
  const Eigen::MatrixXd pts = Blobs({{0, 0}, {2, 0}, {0, 2}, {2, 2}, {1, 1}, {3, 3}}, 25, 0.9, 13,
                                    &truth);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    // The first restart of the 8-restart run is the 1-restart run.
    EXPECT_LE(KMeans(pts, 6, seed, 8).inertia, KMeans(pts, 6, seed, 1).inertia);
  }
}

TEST(KMeansTest, OneClusterIsTheMean) {
  Eigen::MatrixXd pts(4, 2);
  pts << 0, 0, 2, 0, 0, 2, 2, 2;
  const KMeansResult res = KMeans(pts, 1, 1);
  EXPECT_EQ(res.labels, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_NEAR(res.centers(0, 0), 1.0, 1e-12);
  EXPECT_NEAR(res.centers(0, 1), 1.0, 1e-12);
  EXPECT_NEAR(res.inertia, 8.0, 1e-12);
}

TEST(KMeansTest, KEqualToRowsGivesZeroInertia) {
  Eigen::MatrixXd pts(5, 1);
  pts << 1, 2, 3, 4, 5;
  const KMeansResult res = KMeans(pts, 5, 1);
  EXPECT_EQ(std::set<int>(res.labels.begin(), res.labels.end()).size(), 5u);
  EXPECT_EQ(res.inertia, 0.0);
}

TEST(KMeansTest, KAtLeastDistinctPoints) {
  // Six points but only two distinct ones; k = 3.
  Eigen::MatrixXd pts(6, 2);
  pts << 1, 1, 5, 5, 1, 1, 5, 5, 1, 1, 5, 5;
  const KMeansResult res = KMeans(pts, 3, 1);
  EXPECT_EQ(res.labels, (std::vector<int>{0, 1, 0, 1, 0, 1}));
  EXPECT_EQ(res.inertia, 0.0);
  EXPECT_EQ(res.centers.rows(), 3);
  // All identical points.
  const KMeansResult same = KMeans(Eigen::MatrixXd::Ones(4, 3), 2, 1);
  EXPECT_EQ(same.labels, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_EQ(same.inertia, 0.0);
}

TEST(KMeansTest, NoEmptyClustersWhenEnoughDistinctPoints) {
  // Heavy duplicates plus a few outliers: every cluster must keep at least one point.
  Eigen::MatrixXd pts(12, 1);
  pts << 0, 0, 0, 0, 0, 0, 0, 0, 10, 10.1, 20, 30;
  for (int k = 1; k <= 5; ++k) {
    const KMeansResult res = KMeans(pts, k, 3, 4);
    const std::set<int> used(res.labels.begin(), res.labels.end());
    EXPECT_EQ(static_cast<int>(used.size()), k) << "k=" << k;
    EXPECT_GE(*used.begin(), 0);
    EXPECT_LT(*used.rbegin(), k);
  }
}

TEST(KMeansTest, ClampsK) {
  Eigen::MatrixXd pts(3, 1);
  pts << 0, 1, 2;
  EXPECT_EQ(KMeans(pts, 0, 1).centers.rows(), 1);
  EXPECT_EQ(KMeans(pts, 10, 1).centers.rows(), 3);
  const KMeansResult empty = KMeans(Eigen::MatrixXd(0, 2), 3, 1);
  EXPECT_TRUE(empty.labels.empty());
}

TEST(KMeansTest, NonFiniteCoordinatesCountAsZero) {
  Eigen::MatrixXd pts(4, 1);
  pts << std::nan(""), 0.0, 9.0, std::numeric_limits<double>::infinity();
  const KMeansResult res = KMeans(pts, 2, 1);
  ASSERT_EQ(res.labels.size(), 4u);
  EXPECT_EQ(res.labels[0], res.labels[1]);
  EXPECT_EQ(res.labels[0], res.labels[3]);
  EXPECT_NE(res.labels[0], res.labels[2]);
  EXPECT_TRUE(std::isfinite(res.inertia));
}

}  // namespace kmeans_test
}  // namespace toposcope::stats
