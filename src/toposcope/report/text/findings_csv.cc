// report/text/findings_csv: every finding as one CSV row (see the header).
#include "toposcope/report/text/findings_csv.h"

#include <string_view>

#include "toposcope/base/text.h"

namespace toposcope::report {
namespace {

// "HOST/gpuN" -> "HOST" (the id itself when it has no '/').
std::string HostOfGpu(const std::string& id) {
  const size_t slash = id.rfind('/');
  return slash == std::string::npos ? id : id.substr(0, slash);
}

// "HOST/gpuN" -> "gpuN".
std::string GpuOfId(const std::string& id) {
  const size_t slash = id.rfind('/');
  return slash == std::string::npos ? id : id.substr(slash + 1);
}

void Row(std::string& out, std::string_view kind, std::string_view severity, std::string_view host,
         std::string_view where, std::string_view detail) {
  out += CsvCell(kind) + "," + CsvCell(severity) + "," + CsvCell(host) + "," + CsvCell(where) + "," + CsvCell(detail) +
         "\n";
}

std::string PortOf(const std::string& node, int port) {
  return port >= 0 ? node + ":" + std::to_string(port) : node;
}

void NodeRows(std::string& out, const analysis::AnalysisResult& r) {
  for (const analysis::LinkReport& l : r.links) {
    if (!l.degraded) continue;
    Row(out, "degraded_link", "error", HostOfGpu(l.a), GpuOfId(l.a) + "-" + GpuOfId(l.b), l.evidence);
  }
  for (const analysis::TelemetryFinding& f : r.telemetry.findings) {
    std::string where = f.gpu >= 0 ? "gpu" + std::to_string(f.gpu) : "";
    if (f.link >= 0) where += (where.empty() ? "" : "/") + std::string("link") + std::to_string(f.link);
    Row(out, analysis::TelemetryFindingKindName(f.kind), "warning", f.host, where, f.evidence);
  }
  for (const analysis::ServoFinding& f : r.servo.findings) {
    Row(out, std::string("servo_") + std::string(analysis::ServoFindingKindName(f.kind)), "warning", f.host,
        f.program + (f.clock.empty() ? "" : " " + f.clock), f.evidence);
  }
}

void NetworkRows(std::string& out, const analysis::AnalysisResult& r) {
  for (const analysis::NicFinding& f : r.nics.findings) {
    Row(out, f.kind, f.kind == "port_down" ? "error" : "warning", f.host, PortOf(f.device, f.port), f.evidence);
  }
  for (const analysis::FabricFinding& f : r.fabric.findings) {
    const bool down = f.kind == analysis::FabricFindingKind::kPortDownExpectedLink;
    std::string where = PortOf(f.node, f.port);
    if (!f.peer.empty()) where += " -> " + PortOf(f.peer, f.peer_port);
    Row(out, analysis::FabricFindingKindName(f.kind), down ? "error" : "warning", "", where, f.evidence);
  }
  for (const analysis::CollectiveFinding& f : r.collectives.findings) {
    std::string hosts;
    for (const std::string& h : f.hosts) hosts += (hosts.empty() ? "" : " ") + h;
    Row(out, f.kind, f.kind == "validation_failed" ? "error" : "warning", hosts, f.test, f.evidence);
  }
  if (r.paths_present) {
    for (const analysis::PathFinding& f : r.paths.bottlenecks) {
      Row(out, analysis::PathFindingKindName(f.kind), "warning", "", f.node, f.evidence);
    }
    for (const analysis::PathFinding& f : r.paths.redundant_hops) {
      Row(out, analysis::PathFindingKindName(f.kind), "info", "", f.node, f.evidence);
    }
  }
}

}  // namespace

std::string FindingsCsv(const analysis::AnalysisResult& r) {
  std::string out = std::string(kFindingsCsvHeader) + "\n";
  NodeRows(out, r);
  NetworkRows(out, r);
  return out;
}

}  // namespace toposcope::report
