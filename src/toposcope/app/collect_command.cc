// app/collect_command: the output file, the signal handlers, the collector.
#include "toposcope/app/collect_command.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>

namespace toposcope::app {
namespace {

std::atomic<bool>* g_stop = nullptr;

extern "C" void OnStopSignal(int /*sig*/) {
  if (g_stop != nullptr) g_stop->store(true);
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f != nullptr && f != stdout) std::fclose(f);
  }
};

}  // namespace

void StopOnSignals(std::atomic<bool>* stop) {
  g_stop = stop;
  struct sigaction sa = {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

Result<probe::CollectSummary> RunCollect(const CollectRequest& req, const std::atomic<bool>& stop) {
  auto nvml = probe::NvmlLibrary::Load(req.nvml);
  if (!nvml.ok()) return nvml.error();
  const bool to_stdout = req.out.empty() || req.out == "-";
  if (!to_stdout) {
    std::error_code ec;
    const auto parent = std::filesystem::path(req.out).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  std::unique_ptr<std::FILE, FileCloser> file(to_stdout ? stdout : std::fopen(req.out.c_str(), "w"));
  if (file == nullptr) return MakeKindError(ErrorKind::kOutput, "cannot open " + req.out + " for writing");
  auto write = [f = file.get()](std::string_view text) {
    return std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  };
  auto sum = probe::RunCollector(*nvml, req.options, write, stop);
  if (!sum.ok()) {
    Error e = sum.error();
    if (e.kind == ErrorKind::kOutput && !to_stdout) e.path = req.out;
    return e;
  }
  if (!to_stdout && std::fclose(file.release()) != 0) {
    return MakeKindError(ErrorKind::kOutput, "cannot close " + req.out);
  }
  return sum;
}

}  // namespace toposcope::app
