// stats/ari: adjusted Rand index (Hubert & Arabie 1985) from the contingency table.
#include "toposcope/stats/ari.h"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace toposcope::stats {
namespace {

double Choose2(int64_t n) { return 0.5 * static_cast<double>(n) * static_cast<double>(n - 1); }

// Sum over runs of equal values in a sorted vector of C(run length, 2).
template <class T>
double SumPairsOfRuns(const std::vector<T>& sorted) {
  double s = 0;
  size_t i = 0;
  while (i < sorted.size()) {
    size_t j = i;
    while (j < sorted.size() && sorted[j] == sorted[i]) ++j;
    s += Choose2(static_cast<int64_t>(j - i));
    i = j;
  }
  return s;
}

}  // namespace

double AdjustedRandIndex(const std::vector<int>& a, const std::vector<int>& b) {
  if (a.size() != b.size()) return 0.0;  // not the same items: no agreement to measure
  const int64_t n = static_cast<int64_t>(a.size());
  if (n < 2) return 1.0;

  std::vector<std::pair<int, int>> cells(a.size());
  for (size_t i = 0; i < a.size(); ++i) cells[i] = {a[i], b[i]};
  std::sort(cells.begin(), cells.end());
  std::vector<int> sa = a;
  std::vector<int> sb = b;
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());

  const double index = SumPairsOfRuns(cells);
  const double sum_a = SumPairsOfRuns(sa);
  const double sum_b = SumPairsOfRuns(sb);
  const double total = Choose2(n);
  // Both all-singletons or both one cluster: the partitions are identical, and the index's
  // denominator is zero.
  if (sum_a == sum_b && (sum_a == 0.0 || sum_a == total)) return 1.0;
  const double expected = sum_a * sum_b / total;
  const double max_index = 0.5 * (sum_a + sum_b);
  const double denom = max_index - expected;
  if (!(denom > 0.0)) return 1.0;  // unreachable but for round-off
  return (index - expected) / denom;
}

}  // namespace toposcope::stats
