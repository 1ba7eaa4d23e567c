// serve/server: the HTTP server of `toposcope serve` (cpp-httplib). GET /metrics (Prometheus text),
// /api/result (result.json), /api/hosts (the host list), /api/hosts/<host> (that host's part),
// /report.html (the run's HTML report, when one was written) and / (an index page). It analyses
// through a function the caller gives (app/serve_command: app::RunAnalyze), watches the inputs
// and re-analyses when they change, and swaps the rendered snapshot in under a mutex. Other
// methods get 405, unknown paths 404, bad requests 4xx; a handler never takes the process down.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "toposcope/base/result.h"
#include "toposcope/serve/snapshot.h"

namespace toposcope::serve {

struct ServeOptions {
  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 9400;                 // 0: any free port (Bind says which)
  double poll_s = 5;               // input poll period; 0: never re-analyse
  std::vector<std::string> watch;  // the inputs to watch
  std::string exclude_dir;         // left out of the watch (the output directory)
  int threads = 16;                // request worker threads (one per open connection)
};

using AnalyzeFunction = std::function<Result<AnalysisOutput>()>;

// Splits "HOST:PORT" ("127.0.0.1:9400", "[::1]:9400", ":9400" for every address). Fails (kUsage)
// on a missing or out-of-range port.
Result<std::pair<std::string, int>> ParseListen(const std::string& listen);

class Server {
 public:
  Server(ServeOptions opt, AnalyzeFunction analyze);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Runs one analysis now and serves its snapshot from then on. Fails with the analysis's error
  // (the snapshot served before stays).
  Status Analyze();
  // Binds the listening socket; returns the port (the chosen one for port 0). Fails (kUsage) when
  // the address cannot be bound.
  Result<int> Bind();
  // Serves until Stop(), polling the inputs on a thread of its own. Needs Bind() first.
  Status Run();
  // Stops Run() (from any thread); idempotent.
  void Stop();

  // The snapshot served now (null before the first analysis).
  std::shared_ptr<const Snapshot> Current() const;
  // The /metrics body now: the snapshot's metrics and the server's own (analyses, failures,
  // durations, requests per endpoint).
  std::string MetricsText() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace toposcope::serve
