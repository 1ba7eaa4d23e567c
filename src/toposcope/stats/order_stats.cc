// stats/order_stats: order statistics (see order_stats.h).
#include "toposcope/stats/order_stats.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace toposcope::stats {

double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  return 0.5 * (*std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid)) + hi);
}

}  // namespace toposcope::stats
