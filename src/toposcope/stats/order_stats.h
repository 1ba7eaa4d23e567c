// stats/order_stats: order statistics shared by the analyses: the median of a sample and the
// median absolute deviation scaled to a normal sigma.
#pragma once

#include <vector>

namespace toposcope::stats {

// The median of `v` (the mean of the two middle values for an even count); NaN when empty.
double Median(std::vector<double> v);

// MAD -> sigma for normal data: sigma = 1.4826 x median(|x - median|) (1 / Phi^-1(3/4)).
inline constexpr double kMadToSigma = 1.4826;

}  // namespace toposcope::stats
