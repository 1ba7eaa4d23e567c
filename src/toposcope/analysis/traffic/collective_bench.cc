// analysis/traffic/collective_bench: see collective_bench.h.
#include "toposcope/analysis/traffic/collective_bench.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "toposcope/base/text.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

// The bus bandwidth of a row: out-of-place, or in-place when out-of-place was N/A.
double RowBusbw(const formats::NcclTestsRow& r) {
  if (r.out_of_place.present) return r.out_of_place.busbw_gbps;
  return r.in_place.present ? r.in_place.busbw_gbps : 0;
}

std::string FormatGbps(double v) { return StringPrintf("%.2f GB/s", v); }

CollectiveRun SummarizeRun(const std::string& source, const formats::NcclTestsRun& run) {
  CollectiveRun out;
  out.source = source;
  out.first_line = run.first_line;
  out.test = run.test;
  out.version = run.version;
  std::set<std::string> hosts, models;
  for (const auto& d : run.devices) {
    if (!d.host.empty()) hosts.insert(d.host);
    if (!d.gpu_name.empty()) models.insert(d.gpu_name);
  }
  out.hosts.assign(hosts.begin(), hosts.end());
  out.gpu_models.assign(models.begin(), models.end());
  out.ranks = static_cast<int>(run.devices.size());
  out.sizes = static_cast<int64_t>(run.rows.size());
  bool validated = false;
  for (const auto& r : run.rows) {
    const double bw = RowBusbw(r);
    if (r.size_bytes >= out.largest_bytes) {
      out.largest_bytes = r.size_bytes;
      out.busbw_at_largest_gbps = bw;
    }
    if (bw > out.peak_busbw_gbps) {
      out.peak_busbw_gbps = bw;
      out.peak_at_bytes = r.size_bytes;
    }
    for (const auto* t : {&r.out_of_place, &r.in_place}) {
      if (t->present && t->wrong >= 0) {
        validated = true;
        out.wrong += t->wrong;
      }
    }
  }
  out.avg_busbw_gbps = run.avg_busbw_gbps;
  out.out_of_bounds = run.out_of_bounds;
  if (out.out_of_bounds) validated = true;
  const bool failed = out.wrong > 0 || out.out_of_bounds.value_or(0) > 0;
  out.validation = failed ? "failed" : validated ? "passed" : "off";
  return out;
}

// Groups the runs by (test, ranks, hosts), keeps each set's best, then scores every set against
// the others of its test and rank count.
std::vector<HostSetBandwidth> HostSets(const std::vector<CollectiveRun>& runs, const CollectiveBenchOptions& opt) {
  using Key = std::tuple<std::string, int, std::vector<std::string>>;
  std::map<Key, HostSetBandwidth> sets;
  for (const CollectiveRun& r : runs) {
    if (r.sizes == 0) continue;
    HostSetBandwidth& s = sets[Key{r.test, r.ranks, r.hosts}];
    s.hosts = r.hosts;
    s.test = r.test;
    s.ranks = r.ranks;
    ++s.runs;
    if (s.runs == 1 || r.busbw_at_largest_gbps > s.best_busbw_gbps) {
      s.best_busbw_gbps = r.busbw_at_largest_gbps;
      s.largest_bytes = r.largest_bytes;
    }
  }
  // Peers: the same test, rank count, host count (intra-node runs are not compared with
  // inter-node ones) and largest size.
  using Scale = std::tuple<std::string, int, size_t, int64_t>;
  auto scale = [](const HostSetBandwidth& s) { return Scale{s.test, s.ranks, s.hosts.size(), s.largest_bytes}; };
  std::map<Scale, std::vector<double>> by_scale;
  for (const auto& [key, s] : sets) by_scale[scale(s)].push_back(s.best_busbw_gbps);
  std::vector<HostSetBandwidth> out;
  for (auto& [key, s] : sets) {
    const std::vector<double>& all = by_scale[scale(s)];
    s.peers = static_cast<int>(all.size()) - 1;
    if (all.size() >= 3) {
      const double med = stats::Median(all);
      std::vector<double> dev;
      for (double v : all) dev.push_back(std::fabs(v - med));
      const double sigma = std::max(stats::kMadToSigma * stats::Median(dev), 0.01 * med);
      s.peer_median_gbps = med;
      s.z = sigma > 0 ? (s.best_busbw_gbps - med) / sigma : 0;
      s.slow = s.z < -opt.slow_z;
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::string HostList(const std::vector<std::string>& hosts) {
  if (hosts.empty()) return "(hosts not printed)";
  std::string s;
  for (size_t i = 0; i < hosts.size() && i < 4; ++i) s += (i ? "," : "") + hosts[i];
  if (hosts.size() > 4) s += StringPrintf(" and %zu more", hosts.size() - 4);
  return s;
}

}  // namespace

CollectiveBenchReport SummarizeNcclTests(const std::vector<formats::NcclTestsReport>& reports,
                                         const CollectiveBenchOptions& opt) {
  CollectiveBenchReport out;
  for (const auto& rep : reports) {
    for (const auto& run : rep.runs) out.runs.push_back(SummarizeRun(rep.source, run));
  }
  out.host_sets = HostSets(out.runs, opt);
  for (const CollectiveRun& r : out.runs) {
    if (r.validation != "failed") continue;
    out.findings.push_back(
        {"validation_failed", r.source, r.hosts, r.test,
         StringPrintf("%s on %s: %lld wrong values, %lld out of bounds (data corruption on the path)",
                      r.test.empty() ? "nccl-tests" : r.test.c_str(), HostList(r.hosts).c_str(),
                      static_cast<long long>(r.wrong), static_cast<long long>(r.out_of_bounds.value_or(0)))});
  }
  for (const HostSetBandwidth& s : out.host_sets) {
    if (!s.slow) continue;
    out.findings.push_back({"slow_host_set", "", s.hosts, s.test,
                            Cat({s.test.empty() ? "nccl-tests" : s.test, " on ", HostList(s.hosts), ": ",
                                 FormatGbps(s.best_busbw_gbps), " bus bandwidth against a median of ",
                                 FormatGbps(s.peer_median_gbps), " over ", std::to_string(s.peers + 1),
                                 " host sets of ", std::to_string(s.ranks), " ranks (z = ",
                                 StringPrintf("%.1f", s.z), ")"})});
  }
  return out;
}

}  // namespace toposcope::analysis
