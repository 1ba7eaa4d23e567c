// stats/order_stats: order statistics shared by the analyses (the median of a sample).
#pragma once

#include <vector>

namespace toposcope::stats {

// The median of `v` (the mean of the two middle values for an even count); NaN when empty.
double Median(std::vector<double> v);

}  // namespace toposcope::stats
