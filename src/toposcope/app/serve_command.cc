// app/serve_command: `toposcope serve` and the OTLP metrics file (see serve_command.h).
#include "toposcope/app/serve_command.h"

#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "toposcope/base/file_io.h"
#include "toposcope/report/export/metrics.h"
#include "toposcope/report/export/otlp_export.h"
#include "toposcope/serve/server.h"

namespace toposcope::app {
namespace {

// The analysis the server runs at start and on every change: `analyze` without progress lines,
// the report page read back when the run wrote one.
serve::AnalyzeFunction AnalyzeFunctionOf(AnalyzeRequest req) {
  req.progress = nullptr;
  return [req]() -> Result<serve::AnalysisOutput> {
    auto a = RunAnalyze(req);
    if (!a.ok()) return a.error();
    if (!a->any_input_read && req.from_dump.empty()) {
      return MakeKindError(ErrorKind::kInput, "no input could be read", "check the paths given to serve");
    }
    serve::AnalysisOutput out;
    out.result = std::move(a->result);
    out.probes = std::move(a->probes);
    if (!req.out.empty()) {
      const std::string page = (std::filesystem::path(req.out) / "report.html").string();
      std::error_code ec;
      if (std::filesystem::is_regular_file(page, ec)) {
        auto text = ReadFileText(page);
        if (text.ok()) out.report_html = std::move(*text);
      }
    }
    return out;
  };
}

// Waits for SIGINT / SIGTERM (blocked in every thread) until one comes or `done` is set; a signal
// stops the server.
void WaitForSignal(const sigset_t& set, serve::Server& server, const std::atomic<bool>& done) {
  const timespec tick{0, 200 * 1000 * 1000};
  while (!done) {
    siginfo_t info;
    if (sigtimedwait(&set, &info, &tick) > 0) {
      server.Stop();
      return;
    }
  }
}

}  // namespace

Status RunServe(const ServeRequest& req, std::FILE* log) {
  auto listen = serve::ParseListen(req.listen);
  if (!listen.ok()) return listen.error();
  if (req.poll_s < 0) return MakeKindError(ErrorKind::kUsage, "--poll-s must be 0 or more");
  serve::ServeOptions opt;
  opt.host = listen->first;
  opt.port = listen->second;
  opt.poll_s = req.poll_s;
  opt.watch = req.analyze.paths;
  if (!req.analyze.from_dump.empty()) opt.watch.push_back(req.analyze.from_dump);
  opt.exclude_dir = req.analyze.out;
  opt.threads = req.threads;

  sigset_t set, old;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, &old);
  serve::Server server(opt, AnalyzeFunctionOf(req.analyze));
  Status st = server.Analyze();
  Result<int> port = st.ok() ? server.Bind() : Result<int>(st.error());
  if (!port.ok()) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return port.error();
  }
  const auto snap = server.Current();
  std::fprintf(log, "serving http://%s:%d/ (%zu hosts; /metrics, /api/result, /api/hosts/<host>); Ctrl-C stops\n",
               opt.host.find(':') != std::string::npos ? ("[" + opt.host + "]").c_str() : opt.host.c_str(), *port,
               snap ? snap->host_json.size() : size_t{0});
  std::fflush(log);
  std::atomic<bool> done{false};
  std::thread signals([&] { WaitForSignal(set, server, done); });
  st = server.Run();
  done = true;
  signals.join();
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (st.ok()) {
    std::fprintf(log, "stopped\n");
    std::fflush(log);
  }
  return st;
}

Status WriteOtlpMetricsFile(const AnalyzeOutcome& a, const std::string& path) {
  report::OtlpOptions opt;
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  if (epoch != nullptr && *epoch != '\0') {
    opt.time_unix_nano = std::strtoull(epoch, nullptr, 10) * 1000000000ULL;
  } else {
    opt.time_unix_nano = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  }
  const std::string text = report::OtlpMetricsJson(report::ResultMetrics(a.result, &a.probes), opt);
  if (Status st = WriteFileText(path, text); !st.ok()) return WithKind(st.error(), ErrorKind::kOutput);
  return {};
}

}  // namespace toposcope::app
