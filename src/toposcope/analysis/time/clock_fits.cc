#include "toposcope/analysis/time/clock_fits.h"

#include <algorithm>
#include <optional>

#include <tbb/parallel_for.h>

#include "toposcope/base/time.h"

namespace toposcope::analysis {

std::vector<HostClockFit> FitClocks(const model::Dataset& ds, const TimesyncOptions& opt) {
  std::vector<const std::pair<const std::string, model::HostEvidence>*> hosts;
  for (const auto& entry : ds.hosts) hosts.push_back(&entry);
  // Hosts are independent: fitted in parallel, each into its own slot, so the output (ordered by
  // host) does not depend on the thread count.
  std::vector<std::optional<HostClockFit>> slots(hosts.size());
  tbb::parallel_for(size_t{0}, hosts.size(), [&](size_t i) {
    const auto& [host, h] = *hosts[i];
    std::vector<SyncSample> samples;
    for (const auto& p : h.sync_points) {
      if (!p.synced || p.local_ns == kNoTime || p.ref_ns == kNoTime) continue;
      SyncSample s;
      s.local_ns = p.local_ns;
      s.ref_ns = p.ref_ns;
      s.uncertainty_ns = p.uncertainty_ns;
      samples.push_back(s);
    }
    if (samples.empty()) return;
    // Sources on the realtime axis (Unix-epoch ns) and on a monotonic axis (ns since boot) cannot be
    // fitted together; events are stamped in realtime, so realtime points win when both exist.
    constexpr int64_t kEpochAxis = 100000000000000000LL;  // 1973: below this, a since-boot clock
    const bool any_epoch = std::any_of(samples.begin(), samples.end(), [](const SyncSample& s) { return s.local_ns >= kEpochAxis; });
    if (any_epoch) {
      samples.erase(std::remove_if(samples.begin(), samples.end(), [](const SyncSample& s) { return s.local_ns < kEpochAxis; }),
                    samples.end());
    }
    slots[i] = FitHostClock(host, std::move(samples), opt);
  });
  std::vector<HostClockFit> out;
  for (auto& s : slots) {
    if (s) out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace toposcope::analysis
