// model/dcgm: DCGM samples from every source (dmon text, exporter scrapes, TSDB CSV) folded into
// per-series summaries whose size is bounded by the number of series, not by the samples read:
// counts, first/last time, the sampling period (median of the first gaps), and a decimated
// (time, value) trace of at most `kMaxPoints` points for the analyses that look at shapes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace toposcope::model {

struct DcgmPoint {
  std::string host;
  int gpu = -1;        // entity id; -1 when the source has none
  int link = -1;       // NVLink index for per-link samples
  int field_id = -1;   // DCGM field id, -1 when the name is not in the catalog
  std::string field;   // as the source names it (short name, DCGM_FI_ name)
  int64_t ts_ns = 0;   // on the host's clock
  double value = 0;
};

struct SeriesKey {
  std::string host;
  int gpu = -1;
  int link = -1;
  int field_id = -1;
  std::string field;
  friend bool operator<(const SeriesKey& a, const SeriesKey& b) {
    return std::tie(a.host, a.gpu, a.link, a.field_id, a.field) < std::tie(b.host, b.gpu, b.link, b.field_id, b.field);
  }
};

struct SeriesSummary {
  static constexpr size_t kMaxPoints = 8192;
  int64_t count = 0;
  int64_t first_ns = 0, last_ns = 0;
  int64_t out_of_order = 0;             // samples older than the previous one
  std::vector<int64_t> first_gaps_ns;   // up to 256 gaps between consecutive samples
  std::vector<std::pair<int64_t, double>> points;  // decimated: every `stride`-th sample
  int64_t stride = 1;

  void Add(int64_t ts_ns, double value);
  // Median gap between consecutive samples, ms; NaN with fewer than 2 samples.
  [[nodiscard]] double PeriodMs() const;
};

struct DcgmStore {
  std::map<SeriesKey, SeriesSummary> series;
  int64_t points = 0;
  void Add(const DcgmPoint& p);
};

}  // namespace toposcope::model
