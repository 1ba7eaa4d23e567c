// serve/exporter_server: a dcgm-exporter look-alike over HTTP (cpp-httplib) for `toposcope
// simulate --serve-exporter`: GET /metrics answers DCGM series (DCGM_FI_* with the exporter's
// labels gpu, UUID, pci_bus_id, device, modelName, Hostname) in the exposition format, stepping
// through a recorded time series; GET /status says how far (JSON); / is an index page.
//
// Time: a sample's stamp is the exporter's start (wall clock, ms) plus the sample's offset from the
// series' earliest sample, so periods, gaps and each host's clock offsets are kept exactly; each
// sample line carries that stamp (milliseconds), and Prometheus stores the sample at it. What a
// scrape returns is every sample whose offset lies in [last scrape's end, this scrape's end):
//   - samples_per_scrape 0 (the default): in step with the wall clock, the end is now - start: a
//     scrape every 15 s gets the 15 s of samples since the last one, none stamped in the future;
//   - samples_per_scrape N: the end moves N sampling periods (the fastest series') per scrape,
//     whatever the wall clock says: a test scraping every 100 ms gets a whole run in seconds (the
//     stamps then run ahead of the wall clock).
// Past the end of the series, the run starts again, shifted by its length plus one period, so
// stamps keep increasing. One scraper per exporter (each GET /metrics moves the cursor; HEAD does not).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/formats/dcgm/prometheus_text.h"

namespace toposcope::serve {

// One series: metric name, labels (exporter order) and its samples (ns, value), sorted by time.
struct ExporterSeries {
  std::string name;
  formats::PromLabels labels;
  std::vector<std::pair<int64_t, double>> points;
};

struct ExporterData {
  std::vector<ExporterSeries> series;             // written in this order (group them by name)
  std::vector<formats::PromMetricInfo> metadata;  // HELP / TYPE per metric name
};

// The scrapes of a recorded run (no HTTP: the server's core, and what tests drive).
class ExporterTimeline {
 public:
  explicit ExporterTimeline(ExporterData data);

  // The exposition text of the samples whose offset lies in [from_ns, to_ns) of the looping run,
  // stamped start_ms + offset; `served` (may be null) gets the number of samples written. Only the
  // last two passes of the run are written when the window spans more.
  std::string Render(int64_t from_ns, int64_t to_ns, int64_t start_ms, int64_t* served) const;

  [[nodiscard]] int64_t span_ns() const { return span_ns_; }      // earliest to latest sample
  [[nodiscard]] int64_t period_ns() const { return period_ns_; }  // the fastest series' period
  [[nodiscard]] int64_t cycle_ns() const { return span_ns_ + period_ns_; }  // one pass, looping
  [[nodiscard]] size_t series_count() const { return data_.series.size(); }
  [[nodiscard]] int64_t sample_count() const { return samples_; }
  [[nodiscard]] size_t host_count() const { return hosts_; }

 private:
  ExporterData data_;
  int64_t t0_ns_ = 0, span_ns_ = 0, period_ns_ = 1'000'000'000, samples_ = 0;
  size_t hosts_ = 0;
};

struct ExporterOptions {
  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 9401;                 // 0: any free port (Bind says which)
  int samples_per_scrape = 0;      // 0: in step with the wall clock; N: N periods per scrape
  int threads = 4;
  int64_t start_ms = 0;            // the stamp of the run's first sample; 0: the wall clock at construction
};

class ExporterServer {
 public:
  ExporterServer(ExporterOptions opt, ExporterData data);
  ~ExporterServer();
  ExporterServer(const ExporterServer&) = delete;
  ExporterServer& operator=(const ExporterServer&) = delete;

  // Binds the listening socket; returns the port. Fails (kUsage) when the address cannot be bound.
  Result<int> Bind();
  // Serves until Stop(). Needs Bind() first.
  Status Run();
  // Stops Run() (from any thread, a signal watcher's included); idempotent.
  void Stop();

  // One scrape, as GET /metrics answers it (moves the cursor); `now_ms` is the wall clock.
  std::string Scrape(int64_t now_ms);
  // GET /status: {"scrapes", "samples_served", "served_until_unix_ms", "passes_completed",
  // "run_start_unix_ms", "run_end_unix_ms", "cycle_ms", "period_ms", "series", "hosts",
  // "samples_per_scrape"}.
  std::string StatusJson() const;
  [[nodiscard]] const ExporterTimeline& timeline() const;
  [[nodiscard]] int64_t start_ms() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace toposcope::serve
