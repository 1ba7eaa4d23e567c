// app/exporter_command: `simulate --serve-exporter` (see exporter_command.h).
#include "toposcope/app/exporter_command.h"

#include <atomic>
#include <cctype>
#include <cinttypes>
#include <cmath>
#include <map>
#include <thread>

#include "toposcope/app/collect_command.h"
#include "toposcope/app/simulate_command.h"
#include "toposcope/base/hash.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"
#include "toposcope/model/dcgm_read.h"
#include "toposcope/serve/server.h"

namespace toposcope::app {
namespace {

// A stable made-up GPU UUID for a host's GPU, in NVML's layout (GPU-8-4-4-4-12 hex digits).
std::string MadeUpUuid(const std::string& host, int gpu) {
  const uint64_t a = Fnv1a(host + "/" + std::to_string(gpu));
  const uint64_t b = Fnv1a(std::to_string(gpu) + "/" + host);
  char buf[48];
  std::snprintf(buf, sizeof buf, "GPU-%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64, a >> 32,
                (a >> 16) & 0xffff, a & 0xffff, b >> 48, b & uint64_t{0xffffffffffff});
  return buf;
}

// "0000:a4:00.0" as dcgm-exporter writes a bus id: "00000000:A4:00.0".
std::string ExporterBusId(const std::string& bus_id) {
  std::string out = bus_id;
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const size_t colon = out.find(':');
  if (colon != std::string::npos && colon < 8) out = std::string(8 - colon, '0') + out;
  return out;
}

// The exporter's name, HELP and TYPE of a field; an empty name for one without a DCGM_FI_ name.
formats::PromMetricInfo MetricOf(const model::SeriesKey& key) {
  formats::PromMetricInfo m;
  const formats::DcgmField* f = key.field_id >= 0 ? formats::FindFieldById(key.field_id) : nullptr;
  if (f != nullptr && !f->constant.empty()) {
    m.name = std::string(f->constant);
    m.help = std::string(f->long_name) + (f->unit.empty() ? "" : " (in " + std::string(f->unit) + ")") + ".";
  } else if (formats::IsDcgmMetric(key.field)) {
    m.name = key.field;
    m.help = key.field + ".";
  }
  const bool counter = m.name.find("_TOTAL") != std::string::npos || m.name.find("ENERGY_CONSUMPTION") != std::string::npos;
  m.type = counter ? formats::PromMetricType::kCounter : formats::PromMetricType::kGauge;
  m.has_help = m.has_type = true;
  return m;
}

formats::PromLabels LabelsOf(const model::Dataset& ds, const model::SeriesKey& key) {
  formats::PromLabels labels = {{"gpu", std::to_string(key.gpu)}, {"UUID", MadeUpUuid(key.host, key.gpu)}};
  const auto h = ds.hosts.find(key.host);
  const model::GpuInfo* gpu = nullptr;
  if (h != ds.hosts.end()) {
    const auto g = h->second.gpus.find(key.gpu);
    if (g != h->second.gpus.end()) gpu = &g->second;
  }
  if (gpu != nullptr && !gpu->bus_id.empty()) labels.emplace_back("pci_bus_id", ExporterBusId(gpu->bus_id));
  labels.emplace_back("device", "nvidia" + std::to_string(key.gpu));
  if (gpu != nullptr && !gpu->model.empty()) labels.emplace_back("modelName", gpu->model);
  labels.emplace_back("Hostname", key.host);
  if (key.link >= 0) labels.emplace_back("link", std::to_string(key.link));
  return formats::ExporterLabelOrder(labels);
}

// Set on SIGINT / SIGTERM (StopOnSignals).
std::atomic<bool> g_stop{false};

// Stops the server once a signal came (or `done` is set).
void StopServerOnSignal(serve::ExporterServer& server, const std::atomic<bool>& done) {
  while (!done && !g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  server.Stop();
}

}  // namespace

Result<serve::ExporterData> ExporterDataOf(const model::Dataset& ds) {
  std::map<std::string, formats::PromMetricInfo> metrics;  // by name
  std::map<std::pair<std::string, model::SeriesKey>, serve::ExporterSeries> series;  // by name, then key
  Diagnostics diag;
  for (const model::EventInput& in : ds.event_inputs) {
    using formats::FileFormat;
    if (in.format != FileFormat::kDcgmDmon && in.format != FileFormat::kPrometheusText && in.format != FileFormat::kDcgmCsv) {
      continue;
    }
    ReadCounts counts;
    const Status st = model::ReadDcgmFile(
        in.path, in.host, in.format,
        [&](const model::DcgmPoint& p) {
          // dmon's N/A (a field the GPU does not have): dcgm-exporter writes no line for it.
          if (p.entity != model::DcgmEntity::kGpu || p.gpu < 0 || !std::isfinite(p.value)) return;
          model::SeriesKey key{p.host, p.gpu, p.link, p.field_id, p.field};
          formats::PromMetricInfo m = MetricOf(key);
          if (m.name.empty()) return;
          key.field = m.name;  // dmon's short name and the exporter's constant: one series
          auto it = series.find({m.name, key});
          if (it == series.end()) {
            it = series.emplace(std::make_pair(m.name, key), serve::ExporterSeries{m.name, LabelsOf(ds, key), {}}).first;
            metrics.emplace(m.name, m);
          }
          it->second.points.emplace_back(p.ts_ns, p.value);
        },
        diag, counts, in.untimed_at_ns);
    if (!st.ok()) return st.error();
  }
  serve::ExporterData out;
  for (auto& [key, s] : series) out.series.push_back(std::move(s));
  for (auto& [name, m] : metrics) out.metadata.push_back(std::move(m));
  return out;
}

Status RunSimulateExporter(const sim::SimOptions& options, const std::string& out_dir, const ExporterRequest& req,
                           std::FILE* log) {
  auto listen = serve::ParseListen(req.listen);
  if (!listen.ok()) return listen.error();
  auto summary = RunSimulate(options, out_dir);
  if (!summary.ok()) return summary.error();
  std::fputs(sim::SimSummaryText(*summary).c_str(), log);
  auto ds = model::LoadPaths({out_dir}, model::LoadOptions{});
  if (!ds.ok()) return ds.error();
  auto data = ExporterDataOf(*ds);
  if (!data.ok()) return data.error();
  if (data->series.empty()) {
    return MakeError("the simulated dataset has no DCGM samples to serve", "leave out --no-telemetry");
  }
  serve::ExporterOptions opt;
  opt.host = listen->first;
  opt.port = listen->second;
  opt.samples_per_scrape = req.samples_per_scrape;
  opt.threads = req.threads;
  serve::ExporterServer server(opt, std::move(*data));
  auto port = server.Bind();
  if (!port.ok()) return port.error();
  const serve::ExporterTimeline& t = server.timeline();
  const std::string host = opt.host.find(':') != std::string::npos ? "[" + opt.host + "]" : opt.host;
  std::fprintf(log,
               "serving http://%s:%d/metrics: %zu DCGM series of %zu hosts, %.1f s of samples every %.0f ms from "
               "unix time %.3f (%s; /status says how far); Ctrl-C stops\n",
               host.c_str(), *port, t.series_count(), t.host_count(), static_cast<double>(t.span_ns()) / 1e9,
               static_cast<double>(t.period_ns()) / 1e6, static_cast<double>(server.start_ms()) / 1e3,
               req.samples_per_scrape > 0 ? (std::to_string(req.samples_per_scrape) + " periods a scrape").c_str()
                                          : "in step with the wall clock");
  std::fflush(log);
  StopOnSignals(&g_stop);
  std::atomic<bool> done{false};
  std::thread signals([&] { StopServerOnSignal(server, done); });
  const Status st = server.Run();
  done = true;
  signals.join();
  if (st.ok()) {
    std::fprintf(log, "stopped\n");
    std::fflush(log);
  }
  return st;
}

}  // namespace toposcope::app
