// app/exporter_command: `toposcope simulate --serve-exporter` as one library call: simulate a
// cluster into a directory (as `simulate` does), read back the DCGM samples its hosts logged
// (dmon text, exporter scrapes, CSV: model/dcgm_read, each host on its own clock) and serve them
// as a dcgm-exporter would (serve/exporter_server: DCGM_FI_* metrics with the exporter's labels,
// stepping through the run) until SIGINT or SIGTERM.
#pragma once

#include <cstdio>
#include <string>

#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"
#include "toposcope/serve/exporter_server.h"
#include "toposcope/sim/simulate.h"

namespace toposcope::app {

struct ExporterRequest {
  std::string listen = "127.0.0.1:9401";  // HOST:PORT; port 0 picks a free one
  int samples_per_scrape = 0;             // 0: in step with the wall clock (exporter_server.h)
  int threads = 4;
};

// The exporter series of a dataset's DCGM inputs (every GPU sample with a value of its dmon,
// exporter and CSV files, read again in full; dmon's N/A left out): metric names DCGM_FI_* from the field catalog (series whose field
// has no DCGM_FI_ name are left out), labels gpu, UUID (a stable made-up one per host and GPU),
// pci_bus_id (when known), device (nvidia<N>), modelName (when known), Hostname, and link for a
// per-link sample. Fails (kInput) when a DCGM input cannot be read again.
Result<serve::ExporterData> ExporterDataOf(const model::Dataset& ds);

// Simulates `options` into `out_dir` (RunSimulate), prints its summary and then "serving
// http://HOST:PORT/metrics ..." on `log`, and serves until SIGINT or SIGTERM. Fails with the
// simulator's error, kInput when the simulated dataset has no DCGM samples (--no-telemetry),
// kUsage for a bad --listen or an address that cannot be bound.
Status RunSimulateExporter(const sim::SimOptions& options, const std::string& out_dir, const ExporterRequest& req,
                           std::FILE* log);

}  // namespace toposcope::app
