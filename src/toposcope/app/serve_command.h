// app/serve_command: `toposcope serve` as one library call: analyse the inputs as `analyze` does,
// then serve the result over HTTP (serve/server: /metrics, /api/result, /api/hosts/<host>, /),
// re-analysing when the inputs change, until SIGINT or SIGTERM. Also the metrics file of
// `analyze --otlp` (the same metrics as OTLP/JSON).
#pragma once

#include <cstdio>
#include <string>

#include "toposcope/app/analyze_command.h"
#include "toposcope/base/result.h"

namespace toposcope::app {

struct ServeRequest {
  AnalyzeRequest analyze;               // paths, options; `out` also gets result.json etc. per analysis
  std::string listen = "127.0.0.1:9400";  // HOST:PORT; port 0 picks a free one
  double poll_s = 5;                    // input poll period (0: never re-analyse)
  int threads = 16;                     // request worker threads
};

// Runs the first analysis (fails with its error: kInput when nothing can be read), binds (kUsage
// when the address cannot be bound), prints "serving http://HOST:PORT/ ..." on `log` and serves
// until SIGINT or SIGTERM arrives (both blocked in the calling thread and those it starts, taken
// by sigtimedwait; the mask is restored on return). Returns ok on such a stop.
Status RunServe(const ServeRequest& req, std::FILE* log);

// Writes the metrics of an analysis (report/export/metrics) as OTLP/JSON to `path`, each data
// point stamped with SOURCE_DATE_EPOCH when set (for reproducible files), else the current time.
// Fails (kOutput) when the file cannot be written.
Status WriteOtlpMetricsFile(const AnalyzeOutcome& a, const std::string& path);

}  // namespace toposcope::app
