// stats/kmeans: k-means with k-means++ seeding and a fixed seed (deterministic), several restarts,
// keeping the lowest inertia.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <vector>

namespace toposcope::stats {

struct KMeansResult {
  std::vector<int> labels;    // per row of the input
  Eigen::MatrixXd centers;    // k x d
  double inertia = 0;         // sum of squared distances to the assigned centres
};

// Clusters the rows of `points` into k groups (k is clamped to 1..rows). When k >= the number of
// distinct rows, each distinct row is its own cluster (labels by first appearance) and the spare
// centres hold no rows. Non-finite coordinates count as 0. Returns the labels, the centres and the
// inertia of the best of `restarts` runs. Never fails: no rows give no labels and 0 x d centres.
KMeansResult KMeans(const Eigen::MatrixXd& points, int k, uint64_t seed, int restarts = 8,
                    int max_iter = 300);

}  // namespace toposcope::stats
