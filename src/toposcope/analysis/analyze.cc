#include "toposcope/analysis/analyze.h"

#include <algorithm>
#include <optional>

#include <tbb/parallel_for.h>

#include "toposcope/analysis/node/islands.h"
#include "toposcope/analysis/node/links.h"
#include "toposcope/model/sources.h"
#include "toposcope/base/time.h"

namespace toposcope::analysis {

std::vector<HostClockFit> FitClocks(const model::Dataset& ds, const TimesyncOptions& opt) {
  std::vector<const std::pair<const std::string, model::HostEvidence>*> hosts;
  for (const auto& entry : ds.hosts) hosts.push_back(&entry);
  // Hosts are independent: fitted in parallel, each into its own slot, so the output (ordered by
  // host) does not depend on the thread count.
  std::vector<std::optional<HostClockFit>> slots(hosts.size());
  tbb::parallel_for(size_t{0}, hosts.size(), [&](size_t i) {
    const auto& [host, h] = *hosts[i];
    std::vector<SyncSample> samples;
    for (const auto& p : h.sync_points) {
      if (!p.synced || p.local_ns == kNoTime || p.ref_ns == kNoTime) continue;
      SyncSample s;
      s.local_ns = p.local_ns;
      s.ref_ns = p.ref_ns;
      s.uncertainty_ns = p.uncertainty_ns;
      samples.push_back(s);
    }
    if (samples.empty()) return;
    // Sources on the realtime axis (Unix-epoch ns) and on a monotonic axis (ns since boot) cannot be
    // fitted together; events are stamped in realtime, so realtime points win when both exist.
    constexpr int64_t kEpochAxis = 100000000000000000LL;  // 1973: below this, a since-boot clock
    const bool any_epoch = std::any_of(samples.begin(), samples.end(), [](const SyncSample& s) { return s.local_ns >= kEpochAxis; });
    if (any_epoch) {
      samples.erase(std::remove_if(samples.begin(), samples.end(), [](const SyncSample& s) { return s.local_ns < kEpochAxis; }),
                    samples.end());
    }
    slots[i] = FitHostClock(host, std::move(samples), opt);
  });
  std::vector<HostClockFit> out;
  for (auto& s : slots) {
    if (s) out.push_back(std::move(*s));
  }
  return out;
}

AnalysisResult Analyze(const model::Dataset& ds, const AnalyzeOptions& opt) {
  AnalysisResult r;
  r.thresholds = opt.thresholds;
  for (const auto& in : ds.inputs) {
    r.inputs.push_back({in.path, in.format, in.host, in.records, in.rejected, in.skipped, in.skip_reason});
  }
  r.links = AnalyzeLinks(ds, opt.thresholds, opt.noise);
  IslandOutput isl = AnalyzeIslands(ds, r.links, opt.thresholds);
  r.gpus = std::move(isl.gpus);
  r.islands = std::move(isl.islands);
  r.confidence = AnalyzeConfidence(r.links, opt.noise, opt.confidence);
  r.clocks = FitClocks(ds, opt.timesync);
  if (opt.anchors.enabled && !ds.event_inputs.empty()) {
    Diagnostics scratch;  // the event readers' diagnostics are reported by the alignment pass
    const AnchorGroups groups = CollectAnchors(ds, opt.anchors, &scratch);
    r.anchors.present = true;
    r.anchors.events_scanned = groups.events_scanned;
    r.anchors.candidate_events = groups.candidate_events;
    r.anchors.groups = static_cast<int64_t>(groups.groups.size());
    r.anchors.groups_dropped = groups.groups_dropped;
    r.anchors.hosts = RefineClocksWithAnchors(&r.clocks, groups, opt.anchors, opt.timesync);
  }
  r.telemetry = AnalyzeTelemetry(ds.dcgm, r.clocks);
  r.fabric = AnalyzeFabric(ds);
  if (!ds.qp_state_inputs.empty()) {
    Diagnostics qp_diag;
    QpPatternAccumulator acc(opt.qp_patterns);
    for (const auto& input : ds.qp_state_inputs) {
      const model::StreamedInput read =
          model::StreamQpStateLog(input, [&acc](const formats::QpStateRecord& rec) { acc.Add(rec); }, qp_diag);
      for (auto& in : r.inputs) {
        if (in.path != input.path) continue;
        in.records = read.counts.read;
        in.rejected = read.counts.rejected;
        if (!read.error.empty()) {
          in.skipped = true;
          in.skip_reason = read.error;
        }
      }
    }
    r.patterns_present = true;
    r.patterns = acc.Finish();
    r.rejected_total += qp_diag.rejected_total();
    r.warnings_total += qp_diag.warnings_total();
    for (const auto& d : qp_diag.items()) r.diagnostics.push_back(d.ToString());
  }
  if (!ds.path_probes.empty()) {
    r.paths_present = true;
    r.paths = AnalyzePaths(ds.path_probes, opt.paths);
    r.leaves_inferred = true;
    r.inferred_leaves = InferLeaves(ds.path_probes, opt.leaf_inference);
    r.link_weights = AnalyzeLinkWeights(ds.path_probes, r.fabric, opt.link_weights, &r.inferred_leaves);
  }
  {
    Diagnostics rdma_diag;
    r.rdma = AnalyzeRdma(ds, opt.rdma, rdma_diag);
    // Captures are read by the traffic pass: their record counts land in the inputs list here.
    for (auto& in : r.inputs) {
      if (in.skipped || (in.format != "pcap" && in.format != "pcapng")) continue;
      bool read = false;
      for (const auto& c : r.rdma.flows.captures) {
        if (in.path != c.path) continue;
        in.records = c.counts.read;
        in.rejected = c.counts.rejected;
        read = true;
      }
      if (!read) {  // the traffic pass rejected the whole file (one diagnostic at byte 0)
        in.skipped = true;
        in.rejected = 1;
        in.skip_reason = "capture could not be read (see diagnostics)";
      }
    }
    r.traffic_matrix = EstimateTrafficMatrix(ds, r.rdma.rings, opt.traffic_matrix);
    if (r.fabric.present || !ds.path_probes.empty()) {
      ArchitectureInputs ai;
      ai.fabric = &r.fabric;
      ai.probes = &ds.path_probes;
      ai.rings = RingHostOrders(r.rdma.rings);
      ai.ring_source = "nccl_log";
      r.architecture_present = true;
      r.architecture = IdentifyArchitecture(ai, opt.architecture);
    }
    r.rejected_total += rdma_diag.rejected_total();
    r.warnings_total += rdma_diag.warnings_total();
    for (const auto& d : rdma_diag.items()) r.diagnostics.push_back(d.ToString());
  }
  r.rejected_total += ds.diag.rejected_total();
  r.warnings_total += ds.diag.warnings_total();
  for (const auto& d : ds.diag.items()) r.diagnostics.push_back(d.ToString());
  return r;
}

}  // namespace toposcope::analysis
