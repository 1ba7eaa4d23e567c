// stats/ari: the adjusted Rand index between two labelings of the same items (1 = identical
// partitions up to renaming, ~0 = chance).
#pragma once

#include <vector>

namespace toposcope::stats {

// Both vectors have one label per item; labels are arbitrary non-negative ints. Identical
// partitions score 1 (also when both are all-singletons or both one cluster, and for fewer than
// two items); vectors of different lengths score 0.
double AdjustedRandIndex(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace toposcope::stats
