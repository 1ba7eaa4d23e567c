#include "toposcope/analysis/pipeline/passes.h"

#include <utility>

#include "toposcope/analysis/fabric/architecture.h"
#include "toposcope/analysis/fabric/fabric.h"
#include "toposcope/analysis/fabric/leaf_inference.h"
#include "toposcope/analysis/fabric/link_weights.h"
#include "toposcope/analysis/fabric/path_entropy.h"
#include "toposcope/analysis/node/confidence.h"
#include "toposcope/analysis/node/islands.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/analysis/time/align.h"
#include "toposcope/analysis/time/anchors.h"
#include "toposcope/analysis/time/clock_fits.h"
#include "toposcope/analysis/time/servo_health.h"
#include "toposcope/analysis/time/telemetry.h"
#include "toposcope/analysis/traffic/qp_patterns.h"
#include "toposcope/analysis/traffic/rdma.h"
#include "toposcope/analysis/traffic/traffic_matrix.h"
#include "toposcope/model/sources.h"

namespace toposcope::analysis {
namespace {

// The kept diagnostics and totals of a sink, for a pass's output.
PassDiagnostics Collect(const Diagnostics& diag) {
  PassDiagnostics out;
  out.rejected = diag.rejected_total();
  out.warnings = diag.warnings_total();
  for (const auto& d : diag.items()) out.lines.push_back(d.ToString());
  return out;
}

int64_t InputRecords(const model::Dataset& ds) {
  int64_t n = 0;
  for (const auto& in : ds.inputs) n += in.records;
  return n;
}

Result<PassCounts> RunLoad(const PipelineOptions& opt, PipelineState* st) {
  auto ds = opt.load_paths ? opt.load_paths(opt.paths, opt.load, opt.load_progress)
                           : model::LoadPaths(opt.paths, opt.load, opt.load_progress);
  if (!ds.ok()) return ds.error();
  st->SetDataset(std::move(*ds));
  return PassCounts{InputRecords(*st->dataset), static_cast<int64_t>(st->dataset->inputs.size())};
}

PassCounts RunLinks(const PipelineOptions& opt, PipelineState* st) {
  NoiseFit fit;
  st->links = AnalyzeLinks(*st->dataset, opt.analyze.thresholds, opt.analyze.noise, &fit);
  st->link_noise = std::move(fit);
  return {static_cast<int64_t>(st->dataset->hosts.size()), static_cast<int64_t>(st->links->size())};
}

PassCounts RunIslands(const PipelineOptions& opt, PipelineState* st) {
  st->islands = AnalyzeIslands(*st->dataset, *st->links, opt.analyze.thresholds);
  return {static_cast<int64_t>(st->links->size()), static_cast<int64_t>(st->islands->islands.size())};
}

PassCounts RunConfidence(const PipelineOptions& opt, PipelineState* st) {
  // Without a link between GPUs there is no path to bound: no table (and no Monte Carlo).
  if (st->links->empty()) {
    st->confidence = ConfidenceReport{};
    return {0, 0};
  }
  const NoiseFit fit = st->link_noise ? *st->link_noise
                                      : MeasuredNoise(*st->dataset, opt.analyze.thresholds, opt.analyze.noise);
  st->confidence = AnalyzeConfidence(*st->links, fit, opt.analyze.confidence);
  return {static_cast<int64_t>(st->links->size()), static_cast<int64_t>(st->confidence->paths.size())};
}

PassCounts RunClocks(const PipelineOptions& opt, PipelineState* st) {
  st->clocks = FitClocks(*st->dataset, opt.analyze.timesync);
  int64_t points = 0;
  for (const auto& [host, h] : st->dataset->hosts) points += static_cast<int64_t>(h.sync_points.size());
  return {points, static_cast<int64_t>(st->clocks->size())};
}

PassCounts RunAnchors(const PipelineOptions& opt, PipelineState* st) {
  AnchorsOutput out;
  out.clocks = *st->clocks;
  const model::Dataset& ds = *st->dataset;
  if (opt.analyze.anchors.enabled && !ds.event_inputs.empty()) {
    Diagnostics scratch;  // the loader counted the event inputs and reported their diagnostics
    const AnchorGroups groups = CollectAnchors(ds, opt.analyze.anchors, &scratch);
    out.report.present = true;
    out.report.events_scanned = groups.events_scanned;
    out.report.candidate_events = groups.candidate_events;
    out.report.groups = static_cast<int64_t>(groups.groups.size());
    out.report.groups_dropped = groups.groups_dropped;
    out.report.hosts = RefineClocksWithAnchors(&out.clocks, groups, opt.analyze.anchors, opt.analyze.timesync);
  }
  st->anchors = std::move(out);
  return {st->anchors->report.events_scanned, st->anchors->report.groups};
}

PassCounts RunTelemetry(const PipelineOptions&, PipelineState* st) {
  st->telemetry = AnalyzeTelemetry(st->dataset->dcgm, st->anchors->clocks, {}, GpuModelsOf(*st->dataset),
                                   GpuOwnLimitsOf(*st->dataset));
  st->telemetry->offered = CheckOfferedFields(*st->dataset);
  st->telemetry->gpu_limits = GpuLimitsOf(*st->dataset);
  return {st->dataset->dcgm.points, static_cast<int64_t>(st->telemetry->findings.size())};
}

PassCounts RunFabric(const PipelineOptions&, PipelineState* st) {
  st->fabric = AnalyzeFabric(*st->dataset);
  return {static_cast<int64_t>(st->dataset->fabrics.size() + st->dataset->link_infos.size()),
          static_cast<int64_t>(st->fabric->switches.size() + st->fabric->cas.size())};
}

PassCounts RunPatterns(const PipelineOptions& opt, PipelineState* st) {
  const model::Dataset& ds = *st->dataset;
  PatternsOutput out;
  int64_t records = 0;
  if (!ds.qp_state_inputs.empty()) {
    Diagnostics diag;
    QpPatternAccumulator acc(opt.analyze.qp_patterns);
    for (const auto& input : ds.qp_state_inputs) {
      const model::StreamedInput read = model::StreamQpStateLog(
          input, [&acc](const formats::QpStateRecord& rec) { acc.Add(rec); }, diag);
      out.inputs.push_back({read.path, read.counts.read, read.counts.rejected, read.error});
      records += read.counts.read;
    }
    out.present = true;
    out.result = acc.Finish();
    out.diag = Collect(diag);
  }
  st->patterns = std::move(out);
  return {records, static_cast<int64_t>(st->patterns->result.patterns.size())};
}

PassCounts RunPaths(const PipelineOptions& opt, PipelineState* st) {
  const auto& probes = st->dataset->path_probes;
  PathsOutput out;
  if (!probes.empty()) {
    out.present = true;
    out.report = AnalyzePaths(probes, opt.analyze.paths);
  }
  st->paths = std::move(out);
  return {static_cast<int64_t>(probes.size()), static_cast<int64_t>(st->paths->report.bottlenecks.size() + st->paths->report.redundant_hops.size())};
}

PassCounts RunCollectives(const PipelineOptions& opt, PipelineState* st) {
  const auto& reports = st->dataset->nccl_tests;
  CollectivesOutput out;
  int64_t rows = 0;
  for (const auto& r : reports) {
    for (const auto& run : r.runs) rows += static_cast<int64_t>(run.rows.size());
  }
  if (!reports.empty()) {
    out.present = true;
    out.report = SummarizeNcclTests(reports, opt.analyze.collectives);
  }
  st->collectives = std::move(out);
  return {rows, static_cast<int64_t>(st->collectives->report.runs.size())};
}

PassCounts RunNics(const PipelineOptions&, PipelineState* st) {
  st->nics = CollectNicPorts(*st->dataset);
  return {static_cast<int64_t>(st->dataset->hosts.size()), static_cast<int64_t>(st->nics->ports.size())};
}

PassCounts RunPortCounters(const PipelineOptions&, PipelineState* st) {
  st->port_counters = AnalyzePortCounters(*st->dataset, *st->fabric);
  return {st->port_counters->blocks, static_cast<int64_t>(st->port_counters->findings.size())};
}

PassCounts RunServo(const PipelineOptions&, PipelineState* st) {
  st->servo = AnalyzeServoHealth(*st->dataset);
  return {static_cast<int64_t>(st->servo->series.size()), static_cast<int64_t>(st->servo->findings.size())};
}

PassCounts RunLeaves(const PipelineOptions& opt, PipelineState* st) {
  const auto& probes = st->dataset->path_probes;
  LeavesOutput out;
  if (!probes.empty()) {
    out.present = true;
    out.leaves = InferLeaves(probes, opt.analyze.leaf_inference);
  }
  st->leaves = std::move(out);
  return {static_cast<int64_t>(probes.size()), static_cast<int64_t>(st->leaves->leaves.leaves.size())};
}

PassCounts RunLinkWeights(const PipelineOptions& opt, PipelineState* st) {
  const auto& probes = st->dataset->path_probes;
  if (probes.empty()) {
    st->link_weights = LinkWeightReport{};
  } else {
    st->link_weights = AnalyzeLinkWeights(probes, *st->fabric, opt.analyze.link_weights, &st->leaves->leaves);
  }
  return {static_cast<int64_t>(probes.size()), static_cast<int64_t>(st->link_weights->tomography.links.size())};
}

// The captures' record counts as the traffic pass read them (the loader only listed them).
std::vector<InputUpdate> CaptureUpdates(const model::Dataset& ds, const RdmaReport& report) {
  std::vector<InputUpdate> out;
  for (const auto& in : ds.inputs) {
    if (in.skipped || (in.format != "pcap" && in.format != "pcapng")) continue;
    InputUpdate u{in.path, in.records, in.rejected, ""};
    bool read = false;
    for (const auto& c : report.flows.captures) {
      if (in.path != c.path) continue;
      u.records = c.counts.read;
      u.rejected = c.counts.rejected;
      read = true;
    }
    if (!read) {  // the traffic pass rejected the whole file: one record, one diagnostic at byte 0
      u.records = 1;
      u.rejected = 1;
      u.skip_reason = "capture could not be read (see diagnostics)";
    }
    out.push_back(std::move(u));
  }
  return out;
}

PassCounts RunRdma(const PipelineOptions& opt, PipelineState* st) {
  const model::Dataset& ds = *st->dataset;
  RdmaOutput out;
  Diagnostics diag;
  out.report = AnalyzeRdma(ds, opt.analyze.rdma, diag);
  out.inputs = CaptureUpdates(ds, out.report);
  out.diag = Collect(diag);
  st->rdma = std::move(out);
  return {st->rdma->report.flows.packets, static_cast<int64_t>(st->rdma->report.flows.flows.size())};
}

PassCounts RunTrafficMatrix(const PipelineOptions& opt, PipelineState* st) {
  st->traffic_matrix = EstimateTrafficMatrix(*st->dataset, st->rdma->report.rings, opt.analyze.traffic_matrix);
  return {st->dataset->dcgm.points, static_cast<int64_t>(st->traffic_matrix->hosts.size())};
}

PassCounts RunArchitecture(const PipelineOptions& opt, PipelineState* st) {
  const model::Dataset& ds = *st->dataset;
  ArchitectureOutput out;
  if (st->fabric->present || !ds.path_probes.empty()) {
    ArchitectureInputs ai;
    ai.fabric = &*st->fabric;
    ai.probes = &ds.path_probes;
    ai.rings = RingHostOrders(st->rdma->report.rings);
    ai.ring_source = RingOrder::kNcclLog;
    out.present = true;
    out.report = IdentifyArchitecture(ai, opt.analyze.architecture);
  }
  st->architecture = std::move(out);
  return {static_cast<int64_t>(ds.path_probes.size()), st->architecture->present ? 1 : 0};
}

Result<PassCounts> RunTimeline(const PipelineOptions& opt, PipelineState* st) {
  TimelineOutput out;
  const model::Dataset& ds = *st->dataset;
  if (opt.timeline != nullptr && !ds.event_inputs.empty()) {
    TimelineSink& sink = *opt.timeline;
    if (Status open = sink.Open(); !open.ok()) return open.error();
    auto a = AlignDataset(ds, st->anchors->clocks, [&sink](const MergedEvent& m) { sink.Write(m); });
    const Status closed = sink.Close();
    if (!a.ok()) return a.error();
    if (!closed.ok()) return closed.error();
    out.timeline = std::move(a->timeline);
    out.timeline.trace_path = sink.path();
    out.stragglers = std::move(a->stragglers);
    out.diag.rejected = a->rejected;
    out.diag.warnings = a->warnings;
    out.diag.lines = std::move(a->diagnostics);
  }
  st->timeline = std::move(out);
  return PassCounts{st->timeline->timeline.events_in, st->timeline->timeline.events_out};
}

}  // namespace

Result<PassCounts> RunPass(PassId id, const PipelineOptions& opt, PipelineState* state) {
  switch (id) {
    case PassId::kLoad: return RunLoad(opt, state);
    case PassId::kLinks: return RunLinks(opt, state);
    case PassId::kIslands: return RunIslands(opt, state);
    case PassId::kConfidence: return RunConfidence(opt, state);
    case PassId::kClocks: return RunClocks(opt, state);
    case PassId::kAnchors: return RunAnchors(opt, state);
    case PassId::kTelemetry: return RunTelemetry(opt, state);
    case PassId::kFabric: return RunFabric(opt, state);
    case PassId::kPatterns: return RunPatterns(opt, state);
    case PassId::kPaths: return RunPaths(opt, state);
    case PassId::kLeaves: return RunLeaves(opt, state);
    case PassId::kLinkWeights: return RunLinkWeights(opt, state);
    case PassId::kRdma: return RunRdma(opt, state);
    case PassId::kTrafficMatrix: return RunTrafficMatrix(opt, state);
    case PassId::kArchitecture: return RunArchitecture(opt, state);
    case PassId::kCollectives: return RunCollectives(opt, state);
    case PassId::kNics: return RunNics(opt, state);
    case PassId::kServo: return RunServo(opt, state);
    case PassId::kPortCounters: return RunPortCounters(opt, state);
    case PassId::kTimeline: return RunTimeline(opt, state);
  }
  return MakeError("unknown pass");
}

bool HasOutput(const PipelineState& s, PassId id) {
  switch (id) {
    case PassId::kLoad: return s.dataset != nullptr;
    case PassId::kLinks: return s.links.has_value();
    case PassId::kIslands: return s.islands.has_value();
    case PassId::kConfidence: return s.confidence.has_value();
    case PassId::kClocks: return s.clocks.has_value();
    case PassId::kAnchors: return s.anchors.has_value();
    case PassId::kTelemetry: return s.telemetry.has_value();
    case PassId::kFabric: return s.fabric.has_value();
    case PassId::kPatterns: return s.patterns.has_value();
    case PassId::kPaths: return s.paths.has_value();
    case PassId::kLeaves: return s.leaves.has_value();
    case PassId::kLinkWeights: return s.link_weights.has_value();
    case PassId::kRdma: return s.rdma.has_value();
    case PassId::kTrafficMatrix: return s.traffic_matrix.has_value();
    case PassId::kArchitecture: return s.architecture.has_value();
    case PassId::kCollectives: return s.collectives.has_value();
    case PassId::kNics: return s.nics.has_value();
    case PassId::kServo: return s.servo.has_value();
    case PassId::kPortCounters: return s.port_counters.has_value();
    case PassId::kTimeline: return s.timeline.has_value();
  }
  return false;
}

}  // namespace toposcope::analysis
