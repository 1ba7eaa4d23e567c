// stats/ari: the adjusted Rand index between two labelings of the same items (1 = identical
// partitions up to renaming, ~0 = chance).
#pragma once

#include <vector>

namespace toposcope::stats {

// Both vectors have one label per item; labels are arbitrary non-negative ints.
double AdjustedRandIndex(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace toposcope::stats
