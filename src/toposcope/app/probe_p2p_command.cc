// app/probe_p2p_command: load, measure, write.
#include "toposcope/app/probe_p2p_command.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"

namespace toposcope::app {
namespace {

std::string ThisHost() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  std::string h(buf);
  const size_t dot = h.find('.');  // the short name, as Slurm and NCCL print hosts
  return dot == std::string::npos || dot == 0 ? h : h.substr(0, dot);
}

}  // namespace

Result<ProbeP2pOutcome> RunProbeP2p(const ProbeP2pRequest& req, std::FILE* progress) {
  if (!req.host.empty() && (req.host.find('/') != std::string::npos || req.host == "." || req.host == "..")) {
    return MakeKindError(ErrorKind::kUsage, "--host must be a plain host name, not \"" + req.host + "\"");
  }
  auto rt = probe::CudaRuntime::Load(req.cudart);
  if (!rt.ok()) return rt.error();
  const bool tty = progress != nullptr && isatty(fileno(progress)) != 0;
  probe::ProbeProgress on_step;
  if (tty) {
    on_step = [progress](int done, int total, const std::string& what) {
      std::fprintf(progress, "\r[%d/%d] %-40s", done, total, what.c_str());
      if (done == total) std::fputc('\n', progress);
      std::fflush(progress);
    };
  }
  ProbeP2pOutcome o;
  o.runtime_path = rt->path();
  o.host = req.host.empty() ? ThisHost() : req.host;
  const auto t0 = std::chrono::steady_clock::now();
  auto report = probe::RunP2pProbe(*rt, req.options, on_step);
  if (!report.ok()) return report.error();
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  o.report = std::move(*report);
  if (req.out.empty()) return o;
  const std::filesystem::path dir = std::filesystem::path(req.out) / o.host;
  const std::pair<std::string, std::string> files[] = {
      {(dir / "p2pBandwidthLatencyTest.txt").string(), formats::WriteP2pBandwidthLatencyTest(o.report)},
      {(dir / "p2p_matrix.csv").string(), formats::WriteP2pCsv(o.report)},
  };
  for (const auto& [path, text] : files) {
    if (auto s = WriteFileText(path, text); !s.ok()) return WithKind(s.error(), ErrorKind::kOutput);
    o.written.push_back(path);
  }
  return o;
}

std::string ProbeP2pText(const ProbeP2pOutcome& o) {
  std::string out = "P2P probe on " + o.host + " (" + o.runtime_path;
  if (!o.report.cuda_runtime_version.empty()) out += ", runtime " + o.report.cuda_runtime_version;
  if (!o.report.cuda_driver_version.empty()) out += ", driver API " + o.report.cuda_driver_version;
  out += StringPrintf("), %.1f s\n", o.seconds);
  out += probe::P2pProbeSummaryText(o.report);
  for (const std::string& f : o.written) out += "wrote " + f + "\n";
  return out;
}

}  // namespace toposcope::app
