#include "toposcope/report/score/traffic_matrix_score.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace toposcope::report {

using analysis::HostTrafficMatrix;
using analysis::PairTraffic;

TrafficMatrixScore ScoreTrafficMatrix(const analysis::TrafficMatrixReport& report,
                                      const std::vector<TruePairTraffic>& truth,
                                      double floor_share, double floor_bytes_per_s) {
  TrafficMatrixScore sc;
  std::map<std::string, const HostTrafficMatrix*> hosts;
  for (const HostTrafficMatrix& h : report.hosts) {
    if (h.estimable) hosts[h.host] = &h;
  }
  std::map<std::string, double> host_max;
  std::map<std::tuple<std::string, int, int>, double> true_rate;
  for (const TruePairTraffic& t : truth) {
    host_max[t.host] = std::max(host_max[t.host], t.bytes_per_s);
    true_rate[{t.host, t.src_gpu, t.dst_gpu}] += t.bytes_per_s;
  }
  std::vector<double> errs;
  int covered = 0;
  for (const auto& [key, rate] : true_rate) {
    const auto& [host, s, d] = key;
    const double floor = std::max(floor_bytes_per_s, floor_share * host_max[host]);
    if (rate < floor || rate <= 0) continue;
    auto it = hosts.find(host);
    const PairTraffic* p = nullptr;
    if (it != hosts.end()) {
      for (const PairTraffic& q : it->second->pairs) {
        if (q.src_gpu == s && q.dst_gpu == d) p = &q;
      }
    }
    ++sc.pairs_scored;
    if (p == nullptr) {
      ++sc.pairs_missing;
      errs.push_back(1.0);
      continue;
    }
    const double err = std::abs(p->bytes_per_s - rate);
    errs.push_back(err / rate);
    if (err <= p->err_bytes_per_s) ++covered;
  }
  // Pairs below the floor (including the zero pairs) on the scored hosts.
  for (const auto& [host, h] : hosts) {
    if (host_max.find(host) == host_max.end()) continue;
    const double floor = std::max(floor_bytes_per_s, floor_share * host_max[host]);
    for (const PairTraffic& q : h->pairs) {
      auto t = true_rate.find({host, q.src_gpu, q.dst_gpu});
      const double rate = t == true_rate.end() ? 0.0 : t->second;
      if (rate >= floor && rate > 0) continue;
      sc.max_abs_error_below_floor = std::max(sc.max_abs_error_below_floor, std::abs(q.bytes_per_s - rate));
    }
  }
  if (!errs.empty()) {
    std::sort(errs.begin(), errs.end());
    const size_t n = errs.size();
    sc.median_rel_error = n % 2 == 1 ? errs[n / 2] : (errs[n / 2 - 1] + errs[n / 2]) / 2;
    sc.p90_rel_error = errs[std::min(n - 1, static_cast<size_t>(std::ceil(0.9 * static_cast<double>(n))) - 1)];
    sc.coverage = static_cast<double>(covered) / static_cast<double>(n);
  }
  return sc;
}

}  // namespace toposcope::report
