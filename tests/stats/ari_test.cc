// Tests for stats/ari: the adjusted Rand index.
#include "toposcope/stats/ari.h"

#include <gtest/gtest.h>

#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::stats {
namespace ari_test {

TEST(AriTest, IdenticalPartitionsScoreOne) {
  const std::vector<int> a = {0, 0, 1, 1, 2, 2, 2};
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(a, a), 1.0);
}

TEST(AriTest, RelabellingDoesNotMatter) {
  const std::vector<int> a = {0, 0, 1, 1, 2, 2, 2};
  const std::vector<int> b = {7, 7, 3, 3, 100, 100, 100};
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(a, b), 1.0);
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(b, a), 1.0);
}

TEST(AriTest, KnownValuesMatchScikitLearn) {
  // Values from sklearn.metrics.adjusted_rand_score.
  EXPECT_NEAR(AdjustedRandIndex({0, 0, 1, 1}, {0, 0, 1, 2}), 0.5714285714285714, 1e-12);
  EXPECT_NEAR(AdjustedRandIndex({0, 0, 0, 1, 1, 1}, {0, 0, 1, 1, 2, 2}), 0.24242424242424243, 1e-12);
  EXPECT_NEAR(AdjustedRandIndex({0, 0, 1, 1, 2, 2, 3}, {5, 5, 5, 7, 7, 9, 9}), 0.08695652173913043,
              1e-12);
}

TEST(AriTest, IsSymmetric) {
  const std::vector<int> a = {0, 0, 1, 1, 2, 3, 3, 3};
  const std::vector<int> b = {1, 0, 1, 1, 2, 2, 3, 0};
  EXPECT_DOUBLE_EQ(AdjustedRandIndex(a, b), AdjustedRandIndex(b, a));
}

TEST(AriTest, DegenerateIdenticalPartitions) {
  EXPECT_DOUBLE_EQ(AdjustedRandIndex({0, 1, 2, 3}, {3, 2, 1, 0}), 1.0);  // all singletons
  EXPECT_DOUBLE_EQ(AdjustedRandIndex({4, 4, 4, 4}, {0, 0, 0, 0}), 1.0);  // one cluster
  EXPECT_DOUBLE_EQ(AdjustedRandIndex({}, {}), 1.0);
  EXPECT_DOUBLE_EQ(AdjustedRandIndex({5}, {2}), 1.0);
}

TEST(AriTest, SingletonsAgainstOneClusterIsZero) {
  EXPECT_DOUBLE_EQ(AdjustedRandIndex({0, 1, 2, 3}, {0, 0, 0, 0}), 0.0);
}

TEST(AriTest, MismatchedLengthsScoreZero) {
  EXPECT_DOUBLE_EQ(AdjustedRandIndex({0, 0, 1}, {0, 0}), 0.0);
}

TEST(AriTest, IndependentRandomLabelsScoreNearZero) {
  Rng rng(42);
  std::vector<int> a(20000);
  std::vector<int> b(20000);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<int>(rng.Below(10));
    b[i] = static_cast<int>(rng.Below(10));
  }
  EXPECT_NEAR(AdjustedRandIndex(a, b), 0.0, 0.01);
}

TEST(AriTest, OneMisplacedItemScoresBelowOne) {
  const std::vector<int> truth = {0, 0, 0, 0, 1, 1, 1, 1};
  const std::vector<int> guess = {0, 0, 0, 1, 1, 1, 1, 1};
  const double ari = AdjustedRandIndex(truth, guess);
  EXPECT_LT(ari, 1.0);
  EXPECT_GT(ari, 0.0);
}

}  // namespace ari_test
}  // namespace toposcope::stats
