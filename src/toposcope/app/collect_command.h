// app/collect_command: `toposcope collect [--out FILE]` as one library call. Loads NVML
// (probe/nvml), samples every GPU at --hz into `dcgmi dmon` text with a time prefix per line
// (probe/nvml/collector), flushed after every iteration, until SIGINT / SIGTERM, --duration or
// --iterations; a signal ends the file with dmon's own stop message.
#pragma once

#include <atomic>
#include <string>

#include "toposcope/base/result.h"
#include "toposcope/probe/nvml/collector.h"

namespace toposcope::app {

struct CollectRequest {
  std::string out;   // output file; empty or "-": stdout
  std::string nvml;  // libnvidia-ml path; empty: the loader's search
  probe::CollectOptions options;
};

// Sets `stop` on SIGINT and SIGTERM (the collector finishes its iteration and returns).
void StopOnSignals(std::atomic<bool>* stop);

// Runs the request. Fails with NVML's error (kInput), a bad option (kUsage) or an output that
// cannot be opened or written (kOutput).
Result<probe::CollectSummary> RunCollect(const CollectRequest& req, const std::atomic<bool>& stop);

}  // namespace toposcope::app
